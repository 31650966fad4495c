package data

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/featuredp/featuredp/internal/suggest"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// Role is the privacy role of a DataFrame column.
type Role int

const (
	// Sensitive columns get full protection. It is the zero Role, so a
	// column whose role was not set explicitly is treated as sensitive.
	Sensitive Role = iota
	// Public columns are insensitive features (the U block of CorrDP, the
	// public features of feature DP). They are still features of the model.
	Public
	// Label is the prediction target. A Schema has exactly one Label unless
	// its Task is Unsupervised.
	Label
	// Ignore columns are kept in the DataFrame but not used: they are not
	// validated and not encoded.
	Ignore
)

// Insensitive is an alias of Public, the name used by the CorrDP paper.
const Insensitive = Public

// String returns "sensitive", "public", "label" or "ignore".
func (r Role) String() string {
	switch r {
	case Sensitive:
		return "sensitive"
	case Public:
		return "public"
	case Label:
		return "label"
	case Ignore:
		return "ignore"
	}
	return fmt.Sprintf("Role(%d)", int(r))
}

func (r Role) valid() bool { return r >= Sensitive && r <= Ignore }

// Kind says how a column's values are read: as numbers or as categories.
type Kind int

const (
	// Continuous columns hold numbers (gota Int, Float or Bool series, or
	// String series whose values all parse as finite numbers).
	Continuous Kind = iota
	// Categorical columns hold a finite set of levels, compared as strings.
	Categorical
)

// String returns "continuous" or "categorical".
func (k Kind) String() string {
	switch k {
	case Continuous:
		return "continuous"
	case Categorical:
		return "categorical"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

func (k Kind) valid() bool { return k == Continuous || k == Categorical }

// Task is the learning task a Schema describes; it fixes what the label
// must look like.
type Task int

const (
	// Classification needs one Categorical label. It is the zero Task.
	Classification Task = iota
	// Regression needs one Continuous label.
	Regression
	// Unsupervised has no label (for example mean estimation).
	Unsupervised
)

// String returns "classification", "regression" or "unsupervised".
func (t Task) String() string {
	switch t {
	case Classification:
		return "classification"
	case Regression:
		return "regression"
	case Unsupervised:
		return "unsupervised"
	}
	return fmt.Sprintf("Task(%d)", int(t))
}

// Column describes one DataFrame column.
type Column struct {
	// Name is the DataFrame column name.
	Name string
	// Role is the column's privacy role (zero value: Sensitive).
	Role Role
	// Kind is Continuous or Categorical (zero value: Continuous).
	Kind Kind
	// Levels optionally fixes the levels of a Categorical column, in order.
	// Public levels keep the encoding data-independent; a value outside
	// Levels is a validation error. For a categorical label, Levels gives
	// the class order (class k is encoded as k). Empty means "fit from the
	// data" (sorted, numerically when every level is a number). The levels
	// of a column held as numbers (gota Int, Float or Bool) are its values
	// as LevelAt writes them, not the text they were read from: read a
	// column whose spellings are categories ("01" apart from "1") as text
	// (CSVOptions.Types String). ReadCSV refuses to detect such a column as
	// numbers (ErrNumberSpelling); a DataFrame from another reader holds
	// whatever numbers that reader made of the text.
	Levels []string
}

// Schema gives every column of a DataFrame a role and a kind.
type Schema struct {
	// Columns lists every DataFrame column, in any order.
	Columns []Column
	// Task is the learning task (zero value: Classification).
	Task Task
}

// Sentinel errors wrapped by Schema.Validate, for errors.Is.
var (
	// ErrSchema reports a malformed Schema (duplicate or empty names,
	// invalid roles or kinds).
	ErrSchema = errors.New("invalid schema")
	// ErrUnknownColumn reports a schema column that the DataFrame lacks.
	ErrUnknownColumn = errors.New("unknown column")
	// ErrUnlistedColumn reports a DataFrame column that the schema lacks.
	ErrUnlistedColumn = errors.New("column missing from the schema")
	// ErrMissingValue reports NaN, empty or "?" values in a used column.
	ErrMissingValue = errors.New("missing values")
	// ErrNotNumeric reports a non-numeric value in a Continuous column.
	ErrNotNumeric = errors.New("non-numeric value in a continuous column")
	// ErrUnknownLevel reports a value outside a column's declared Levels.
	ErrUnknownLevel = errors.New("value outside the declared levels")
	// ErrLabel reports a missing label, several labels, or a label whose
	// kind does not fit the Task.
	ErrLabel = errors.New("invalid label")
)

// Lookup returns the schema entry for name.
func (s Schema) Lookup(name string) (Column, bool) {
	for _, c := range s.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// Label returns the label column, if the schema has exactly one.
func (s Schema) Label() (Column, bool) {
	var out Column
	n := 0
	for _, c := range s.Columns {
		if c.Role == Label {
			out = c
			n++
		}
	}
	return out, n == 1
}

// Features returns the columns used as model inputs (Sensitive or Public),
// in schema order. This order defines the raw feature indices of Encoded.
func (s Schema) Features() []Column {
	var out []Column
	for _, c := range s.Columns {
		if c.Role == Sensitive || c.Role == Public {
			out = append(out, c)
		}
	}
	return out
}

// Names returns the column names in schema order.
func (s Schema) Names() []string {
	out := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		out[i] = c.Name
	}
	return out
}

// Clone returns a deep copy of s.
func (s Schema) Clone() Schema {
	out := Schema{Task: s.Task, Columns: make([]Column, len(s.Columns))}
	for i, c := range s.Columns {
		c.Levels = slices.Clone(c.Levels)
		out.Columns[i] = c
	}
	return out
}

// WithRole returns a copy of s in which the named columns have the given
// role. It returns an error naming any column that is not in the schema.
func (s Schema) WithRole(role Role, names ...string) (Schema, error) {
	out := s.Clone()
	for _, name := range names {
		found := false
		for i := range out.Columns {
			if out.Columns[i].Name == name {
				out.Columns[i].Role = role
				found = true
			}
		}
		if !found {
			return Schema{}, fmt.Errorf("data: schema has no column %q%s (columns: %s): %w",
				name, suggest.Hint(name, s.Names()), QuoteNames(s.Names()), ErrUnknownColumn)
		}
	}
	return out, nil
}

// DefaultSchema builds a conservative schema for df: label is the Label
// (pass "" for an Unsupervised task), every other column is Sensitive,
// String columns are Categorical and numeric columns Continuous, except
// that the label of a Classification task is always Categorical (so a 0/1
// integer label works as it is; its classes are its distinct values). Only
// the column types are read, never the values. Adjust roles with WithRole.
func DefaultSchema(df dataframe.DataFrame, label string, task Task) Schema {
	s := Schema{Task: task}
	names := df.Names()
	types := df.Types()
	for i, name := range names {
		c := Column{Name: name, Role: Sensitive, Kind: Continuous}
		if types[i] == series.String {
			c.Kind = Categorical
		}
		if name == label {
			c.Role = Label
			if task == Classification {
				c.Kind = Categorical
			}
		}
		s.Columns = append(s.Columns, c)
	}
	return s
}

// Validate checks that df fits the schema and returns every problem found,
// joined, each wrapping one of the sentinel errors above: schema columns the
// DataFrame lacks (listing the available ones), DataFrame columns the schema
// lacks, missing values (NaN, empty or "?") in used columns, non-numeric or
// non-finite values in Continuous columns (with row and value), values
// outside declared Levels, a declared level that a numeric column's cells
// cannot be as LevelAt reads them (ErrLevelSpelling: "01" for an Int
// column), and a missing, repeated or wrongly-kinded label. Ignore columns
// are not inspected.
func (s Schema) Validate(df dataframe.DataFrame) error {
	if err := df.Error(); err != nil {
		return fmt.Errorf("data: the DataFrame carries an error: %w", err)
	}
	errs, seen := s.structureErrors()
	setErrs, inDF := s.columnSetErrors(df.Names(), seen)
	errs = append(errs, setErrs...)
	errs = append(errs, s.labelErrors()...)
	errs = append(errs, s.valueErrors(df, inDF)...)
	return errors.Join(errs...)
}

// structureErrors checks the schema itself: it must have columns and a
// valid task, and every column a unique non-empty name, a valid role and
// kind, and distinct Levels only if it is Categorical. It also returns the
// set of names the schema lists.
func (s Schema) structureErrors() (errs []error, seen map[string]bool) {
	add := func(err error) { errs = append(errs, err) }
	if len(s.Columns) == 0 {
		add(fmt.Errorf("data: the schema has no columns: %w", ErrSchema))
	}
	if s.Task < Classification || s.Task > Unsupervised {
		add(fmt.Errorf("data: invalid task %v: %w", s.Task, ErrSchema))
	}
	seen = map[string]bool{}
	for i, c := range s.Columns {
		switch {
		case c.Name == "":
			add(fmt.Errorf("data: schema column %d has an empty name: %w", i, ErrSchema))
		case seen[c.Name]:
			add(fmt.Errorf("data: schema lists column %q twice: %w", c.Name, ErrSchema))
		}
		seen[c.Name] = true
		if !c.Role.valid() {
			add(fmt.Errorf("data: column %q has invalid role %v: %w", c.Name, c.Role, ErrSchema))
		}
		if !c.Kind.valid() {
			add(fmt.Errorf("data: column %q has invalid kind %v: %w", c.Name, c.Kind, ErrSchema))
		}
		errs = append(errs, levelsErrors(c)...)
	}
	return errs, seen
}

// levelsErrors checks the declared Levels of c: only a Categorical column
// may declare them, and none may repeat.
func levelsErrors(c Column) []error {
	if len(c.Levels) == 0 {
		return nil
	}
	var errs []error
	if c.Kind != Categorical {
		errs = append(errs, fmt.Errorf("data: column %q declares Levels but is %v: %w", c.Name, c.Kind, ErrSchema))
	}
	lv := map[string]bool{}
	for _, l := range c.Levels {
		if lv[l] {
			errs = append(errs, fmt.Errorf("data: column %q declares level %q twice: %w", c.Name, l, ErrSchema))
		}
		lv[l] = true
		if spaced(l) {
			errs = append(errs, fmt.Errorf("data: column %q declares level %q, with white space around it: every reader trims a cell's spaces (LevelAt, EncodeCSV), so no cell could be it: declare %q: %w", c.Name, l, strings.TrimSpace(l), ErrSchema))
		}
		if alwaysMissing(l) {
			errs = append(errs, fmt.Errorf("data: column %q declares level %q, which every reader takes for a missing value (IsMissing, DropMissing): rename it: %w", c.Name, l, ErrSchema))
		}
	}
	return errs
}

// spaced reports whether a level has white space around it
// (strings.TrimSpace would change it).
func spaced(level string) bool {
	t := strings.TrimSpace(level)
	return t != "" && t != level
}

// alwaysMissing reports whether a level is one that IsMissing reads as
// missing whatever the CSV options ("", "?" and "NaN", spaces trimmed); "NA"
// and other markers are missing only as CSVOptions.Missing says, and a
// declared level equal to one of them is that level.
func alwaysMissing(level string) bool {
	switch strings.TrimSpace(level) {
	case "", "?", "NaN":
		return true
	}
	return false
}

// columnSetErrors compares the schema's columns (seen) with the
// DataFrame's (names), both ways. It also returns the set of DataFrame
// column names.
func (s Schema) columnSetErrors(names []string, seen map[string]bool) (errs []error, inDF map[string]bool) {
	inDF = map[string]bool{}
	for _, n := range names {
		inDF[n] = true
	}
	var unlisted []string // the names a misspelt schema column most likely meant
	for _, n := range names {
		if !seen[n] {
			unlisted = append(unlisted, n)
		}
	}
	hints := 0
	for _, c := range s.Columns {
		if c.Name != "" && !inDF[c.Name] {
			hint := ""
			if hints++; hints <= maxNameHints {
				hint = suggest.Hint(c.Name, unlisted)
			}
			errs = append(errs, fmt.Errorf("data: schema column %q is not in the DataFrame%s (available: %s): %w",
				c.Name, hint, QuoteNames(names), ErrUnknownColumn))
		}
	}
	for _, n := range names {
		if !seen[n] {
			errs = append(errs, fmt.Errorf("data: DataFrame column %q is missing from the schema; give it a role (Ignore to leave it out): %w",
				n, ErrUnlistedColumn))
		}
	}
	return errs, inDF
}

// maxNameHints bounds the unknown names an error list suggests a name
// for, so that a schema of many unknown names costs no quadratic time.
const maxNameHints = 20

// labelErrors checks that the schema has exactly one label (none for an
// Unsupervised task) whose kind fits the task.
func (s Schema) labelErrors() []error {
	var labels []Column
	for _, c := range s.Columns {
		if c.Role == Label {
			labels = append(labels, c)
		}
	}
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	switch {
	case s.Task == Unsupervised && len(labels) > 0:
		add(fmt.Errorf("data: task is unsupervised but column %q is a label: %w", labels[0].Name, ErrLabel))
	case s.Task != Unsupervised && len(labels) == 0:
		add(fmt.Errorf("data: the schema has no label column (task %v needs exactly one; use Task: Unsupervised for none): %w",
			s.Task, ErrLabel))
	case len(labels) > 1:
		ln := make([]string, len(labels))
		for i, c := range labels {
			ln[i] = c.Name
		}
		add(fmt.Errorf("data: the schema has %d label columns (%s); exactly one is allowed: %w",
			len(labels), strings.Join(ln, ", "), ErrLabel))
	case len(labels) == 1:
		l := labels[0]
		if s.Task == Classification && l.Kind != Categorical {
			add(fmt.Errorf("data: label %q is %v but the task is classification (make it Categorical, or set Task: Regression): %w",
				l.Name, l.Kind, ErrLabel))
		}
		if s.Task == Regression && l.Kind != Continuous {
			add(fmt.Errorf("data: label %q is %v but the task is regression (make it Continuous, or set Task: Classification): %w",
				l.Name, l.Kind, ErrLabel))
		}
	}
	return errs
}

// valueErrors checks the values of every used column that is in the
// DataFrame (inDF) and has a valid role; Ignore columns are skipped.
func (s Schema) valueErrors(df dataframe.DataFrame, inDF map[string]bool) []error {
	var errs []error
	all := Columns(df) // one df.Col per column would be quadratic in the width
	for _, c := range s.Columns {
		if c.Role == Ignore || !inDF[c.Name] || !c.Role.valid() {
			continue
		}
		col := all[c.Name]
		if err := col.Error(); err != nil {
			errs = append(errs, fmt.Errorf("data: column %q: %w", c.Name, err))
			continue
		}
		if err := checkValues(col, c); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// checkValues validates the values of one used column.
func checkValues(s series.Series, c Column) error {
	var errs []error
	nMissing, firstMissing := 0, -1
	nBad, firstBad, badValue := 0, -1, ""
	nLevel, firstLevel, levelValue := 0, -1, ""
	var levels map[string]bool
	if c.Kind == Categorical && len(c.Levels) > 0 {
		levels = make(map[string]bool, len(c.Levels))
		for _, l := range c.Levels {
			levels[l] = true
		}
		if err := levelSpellingError(s, c.Name, c.Levels); err != nil {
			errs, levels = append(errs, err), nil // its cells' levels would be reported as outside
		}
	}
	n := s.Len()
	for i := 0; i < n; i++ {
		if IsMissing(s, i) {
			nMissing++
			if firstMissing < 0 {
				firstMissing = i
			}
			continue
		}
		switch c.Kind {
		case Continuous:
			if _, err := NumericAt(s, i); err != nil {
				nBad++
				if firstBad < 0 {
					firstBad, badValue = i, s.Elem(i).String()
				}
			}
		case Categorical:
			if levels != nil && !levels[LevelAt(s, i)] {
				nLevel++
				if firstLevel < 0 {
					firstLevel, levelValue = i, LevelAt(s, i)
				}
			}
		}
	}
	if nMissing > 0 {
		errs = append(errs, fmt.Errorf("data: column %q (%v, %v) has %d missing value(s) (NaN, empty or \"?\"), the first at row %d (0-based); drop them (DropMissing) or mark the column Ignore%s: %w",
			c.Name, c.Role, c.Kind, nMissing, firstMissing, missingLevelHint(c), ErrMissingValue))
	}
	if nBad > 0 {
		errs = append(errs, fmt.Errorf("data: continuous column %q has %d non-numeric or non-finite value(s), the first at row %d (0-based): %q; make it Categorical or clean it: %w",
			c.Name, nBad, firstBad, badValue, ErrNotNumeric))
	}
	if nLevel > 0 {
		errs = append(errs, fmt.Errorf("data: categorical column %q has %d value(s) outside its declared levels [%s], the first at row %d (0-based): %q: %w",
			c.Name, nLevel, strings.Join(c.Levels, ", "), firstLevel, levelValue, ErrUnknownLevel))
	}
	return errors.Join(errs...)
}

// missingLevelHint names a declared level of c that ReadCSV reads as
// missing by default, with the fix; "" when there is none.
func missingLevelHint(c Column) string {
	for _, l := range c.Levels {
		if slices.Contains(DefaultMissing, l) {
			return fmt.Sprintf("; the declared level %q is also a missing-value marker: read the CSV with CSVOptions.Missing listing only your markers (featuredp train and predict, and EncodeCSV, read it as the level)", l)
		}
	}
	return ""
}

// IsMissing reports whether element i of s is missing: NaN / NA in any
// series type, or an empty, "?" or "NaN" string (after trimming spaces).
// "NaN" is included because gota turns a missing string into the literal
// "NaN" when it copies series element by element (RBind, Concat).
func IsMissing(s series.Series, i int) bool {
	e := s.Elem(i)
	if e.IsNA() {
		return true
	}
	if s.Type() == series.String {
		v := strings.TrimSpace(e.String())
		return v == "" || v == "?" || v == "NaN"
	}
	return false
}

// NumericAt returns element i of s as a finite float64: numbers as they
// are, numeric strings parsed, booleans as 0/1; missing, unparsable or
// non-finite values are errors.
func NumericAt(s series.Series, i int) (float64, error) {
	e := s.Elem(i)
	if e.IsNA() {
		return 0, fmt.Errorf("missing value")
	}
	var v float64
	switch s.Type() {
	case series.String:
		f, err := ParseNumber(e.String())
		if err != nil {
			return 0, err
		}
		v = f
	case series.Bool:
		b, err := e.Bool()
		if err != nil {
			return 0, err
		}
		if b {
			v = 1
		}
	default:
		v = e.Float()
	}
	if !valid.Finite(v) {
		return 0, fmt.Errorf("%v is not finite", v)
	}
	return v, nil
}

// LevelAt returns element i of s as a category level: the exact string for
// String series, the shortest round-trip decimal for Float series, the
// decimal for Int series and "true"/"false" for Bool series.
func LevelAt(s series.Series, i int) string {
	e := s.Elem(i)
	switch s.Type() {
	case series.Float:
		return strconv.FormatFloat(e.Float(), 'g', -1, 64)
	case series.String:
		return strings.TrimSpace(e.String())
	}
	return e.String()
}

// ErrLevelSpelling is wrapped by the error for a declared level or class
// of a column that a DataFrame holds as numbers (gota Int, Float or Bool)
// written otherwise than LevelAt writes its cells ("01", "+1", "1.0" for
// 1): no cell could be it, and a cell "01" would silently be level "1"
// when "1" is declared too.
var ErrLevelSpelling = errors.New("declared level spelt otherwise than the column's numbers")

// levelSpellingError returns an ErrLevelSpelling error naming the first
// declared level of column name that is a number of s's type written
// otherwise than LevelAt writes it, with the fix; nil when there is none
// or s holds text.
func levelSpellingError(s series.Series, name string, levels []string) error {
	for _, l := range levels {
		canon, ok := "", false
		switch s.Type() {
		case series.Int:
			if n, err := strconv.Atoi(l); err == nil {
				canon, ok = strconv.Itoa(n), true
			}
		case series.Float:
			if f, err := ParseNumber(l); err == nil {
				canon, ok = strconv.FormatFloat(f, 'g', -1, 64), true
			}
		case series.Bool:
			if b, err := strconv.ParseBool(l); err == nil {
				canon, ok = strconv.FormatBool(b), true
			}
		}
		if ok && canon != l {
			return fmt.Errorf("data: column %q holds %v numbers, whose cells are read as their shortest decimal (%q), so its declared level %q matches no cell as written "+
				"(a cell %q is level %q): read the column as text (CSVOptions.Types: {%q: series.String}) to compare cells as written, or declare %q: %w",
				name, s.Type(), canon, l, l, canon, name, canon, ErrLevelSpelling)
		}
	}
	return nil
}
