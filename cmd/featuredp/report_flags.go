package main

// Flag types and checks of the report command: column lists that accept
// any column name (CSV quoting, repeated flags), public bounds and levels,
// and the role and budget checks that name the offending flag.

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/featuredp/featuredp/data"
)

// splitRecord parses one flag value as a CSV record, so that a name with a
// comma or a quote can be given quoted ("a,b" as `"a,b"`); fields are
// trimmed and must not be empty.
func splitRecord(v string) ([]string, error) {
	r := csv.NewReader(strings.NewReader(v))
	r.TrimLeadingSpace = true
	rec, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%q: quote a name holding a comma or a quote as in CSV (\"a,b\", \"say \"\"hi\"\"\"): %w", v, err)
	}
	if _, err := r.Read(); err != io.EOF {
		return nil, fmt.Errorf("%q: one line of comma-separated names, no line break", v)
	}
	for i, f := range rec {
		if rec[i] = strings.TrimSpace(f); rec[i] == "" {
			return nil, fmt.Errorf("%q: empty name at position %d", v, i+1)
		}
	}
	return rec, nil
}

// columnList is a repeatable flag of column names: each value is a
// comma-separated list in CSV quoting.
type columnList []string

func (c *columnList) String() string { return strings.Join(*c, ",") }

func (c *columnList) Set(v string) error {
	rec, err := splitRecord(v)
	if err != nil {
		return err
	}
	*c = append(*c, rec...)
	return nil
}

// boundsList is the repeatable --bounds flag: COL=LO:HI items (CSV
// quoting for the item when the name holds a comma).
type boundsList map[string]data.Range

func (b boundsList) String() string { return fmt.Sprint(map[string]data.Range(b)) }

func (b boundsList) Set(v string) error {
	items, err := splitRecord(v)
	if err != nil {
		return err
	}
	for _, item := range items {
		i := strings.LastIndexByte(item, '=')
		lo, hi, ok := strings.Cut(item[i+1:], ":")
		r, err1 := parseFinite(lo)
		h, err2 := parseFinite(hi)
		if i <= 0 || !ok || err1 != nil || err2 != nil || !(r < h) {
			return fmt.Errorf("%q: want COL=LO:HI with finite LO < HI", item)
		}
		name := strings.TrimSpace(item[:i])
		if _, dup := b[name]; dup {
			return fmt.Errorf("%q: column %q has bounds twice", item, name)
		}
		b[name] = data.Range{Lo: r, Hi: h}
	}
	return nil
}

// floatMap is a repeatable COL=V flag (CSV quoting for an item whose
// name holds a comma); V must lie in the flag's range (lo, hi].
type floatMap struct {
	m      map[string]float64
	lo, hi float64
	what   string
}

func (f *floatMap) String() string {
	if f == nil {
		return ""
	}
	return fmt.Sprint(f.m)
}

func (f *floatMap) Set(v string) error {
	items, err := splitRecord(v)
	if err != nil {
		return err
	}
	for _, item := range items {
		i := strings.LastIndexByte(item, '=')
		x, err := parseFinite(item[i+1:])
		if i <= 0 || err != nil || !(x > f.lo && x <= f.hi) {
			return fmt.Errorf("%q: want COL=V with %s V in (%g, %g]", item, f.what, f.lo, f.hi)
		}
		name := strings.TrimSpace(item[:i])
		if _, dup := f.m[name]; dup {
			return fmt.Errorf("%q: column %q is given twice", item, name)
		}
		f.m[name] = x
	}
	return nil
}

// corrBound is the --q flag: BCDP's correlation bound q in [0, 1], with
// whether it was given (it has no default: 0 would silently assume
// independent coordinates).
type corrBound struct {
	q   float64
	set bool
}

func (c *corrBound) String() string {
	if c == nil || !c.set {
		return ""
	}
	return strconv.FormatFloat(c.q, 'g', -1, 64)
}

func (c *corrBound) Set(v string) error {
	x, err := parseFinite(v)
	if err != nil || x < 0 || x > 1 {
		return fmt.Errorf("%q: want BCDP's correlation bound q in [0, 1] (0: independent coordinates, 1: the always-valid min-δ baseline)", v)
	}
	c.q, c.set = x, true
	return nil
}

// parseFinite parses a finite plain decimal (data.ParseNumber: the rule of
// a CSV cell, so a bound reads as a cell would; no hex floats, digit
// underscores, Inf or NaN).
func parseFinite(s string) (float64, error) { return data.ParseNumber(s) }

// levelsList is the repeatable --levels flag: COL=A|B|C items, the public
// levels of a categorical column.
type levelsList map[string][]string

func (l levelsList) String() string { return fmt.Sprint(map[string][]string(l)) }

func (l levelsList) Set(v string) error {
	items, err := splitRecord(v)
	if err != nil {
		return err
	}
	for _, item := range items {
		name, lv, ok := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || lv == "" {
			return fmt.Errorf("%q: want COL=LEVEL|LEVEL|...", item)
		}
		if _, dup := l[name]; dup {
			return fmt.Errorf("%q: column %q has levels twice", item, name)
		}
		seen := map[string]bool{}
		for _, x := range strings.Split(lv, "|") {
			if x = strings.TrimSpace(x); x == "" || seen[x] {
				return fmt.Errorf("%q: empty or repeated level %q", item, x)
			}
			seen[x] = true
			l[name] = append(l[name], x)
		}
	}
	return nil
}

// checkBudget rejects an ε or δ the report cannot be read at (the report
// used to substitute the defaults for 0).
func checkBudget(eps, delta float64) error {
	switch {
	case !(eps > 0) || math.IsInf(eps, 0):
		return fmt.Errorf("--epsilon %v: want a finite ε > 0", eps)
	case !(delta > 0 && delta < 1):
		return fmt.Errorf("--delta %v: want δ in (0, 1)", delta)
	}
	return nil
}

// checkRoles rejects a column given two roles: label, sensitive and
// ignore are exclusive (the label used to win silently over --sensitive,
// and --ignore over --sensitive).
func checkRoles(sens, ignore columnList, label string) error {
	role := map[string]string{label: "--label"}
	for _, g := range []struct {
		flag  string
		names columnList
	}{{"--sensitive", sens}, {"--ignore", ignore}} {
		for _, n := range g.names {
			if prev, ok := role[n]; ok && prev != g.flag {
				return fmt.Errorf("column %q is in both %s and %s: give each column one role", n, prev, g.flag)
			}
			role[n] = g.flag
		}
	}
	return nil
}

// capFlags maps the reading caps of data.CSVOptions to their flags.
var capFlags = map[string]string{
	"MaxBytes": "--max-bytes", "MaxLineBytes": "--max-line-bytes", "MaxColumns": "--max-columns", "MaxCells": "--max-cells",
}

// csvError rephrases a reading error of path with the flag to change.
func csvError(path string, err error) error {
	var ce *data.CapError
	if errors.As(err, &ce) {
		return fmt.Errorf("--csv %s: %s: over the reading cap %s %d (raise it; -1: no cap)", path, ce.What, capFlags[ce.Option], ce.Limit)
	}
	var spelt *data.NumberSpellingError
	if errors.As(err, &spelt) {
		return fmt.Errorf("--csv %s: %s: add --categorical %q to keep every spelling a category of its own, or --continuous %q to read them as one number",
			path, spelt.Problem(), spelt.Column, spelt.Column)
	}
	msg := strings.Replace(err.Error(), "a type is given for column", "--categorical or --continuous names column", 1)
	if errors.Is(err, data.ErrMixedKind) {
		msg += " (--categorical COL or --continuous COL)"
	}
	return fmt.Errorf("--csv %s: %s", path, msg)
}

// libraryFlags renames the option names of dpnb's errors to the flags
// that set them.
var libraryFlags = strings.NewReplacer(
	"ReportPipeline.MaxDuplicates", "--max-duplicates", "ReportPipeline.MaxMissing", "--max-missing",
	"ReportOptions.Ball, or ", "", "ReportOptions.Ball", "--ball",
	"Pipeline.Impute", "--impute", "Pipeline.Bounds", "--bounds", "Pipeline.MaxMissing", "--max-missing", "Pipeline.MaxDuplicates", "--max-duplicates",
	"has no BCDP level in Levels", "has no --bcdp-level (give one for every sensitive column)",
	"dpnb: PrivacyReport: ", "",
	"drop them (DropMissing) or mark the column Ignore", "--impute the column (a continuous feature), drop those rows from the file, or --ignore the column",
	"read with CSVOptions.TrimSpace", "add --trim-space")

// flagDashes writes the flag package's "-name" as "--name", the spelling
// of the help text.
var flagDashes = strings.NewReplacer("flag -", "flag --", "argument: -", "argument: --", "defined: -", "defined: --")
