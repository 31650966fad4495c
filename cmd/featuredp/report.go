package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/dpnb"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

func init() {
	register("report", "per-column privacy report of a CSV under every notion", runPrivacyReport)
}

const reportUsage = `usage: featuredp report --csv FILE --sensitive COL,COL --label COL [--ignore COL,...]
                        [--levels COL=A|B|...] [--levels-from-data] [--categorical COLS] [--continuous COLS]
                        [--ball COL=P,...] [--bcdp-level COL=δ,...] [--q Q]
                        [--epsilon E] [--delta D] [--format markdown|csv|json]
                        [--pipeline] [--bounds COL=LO:HI,...] [--bounds-from-data]
                        [--dedup --max-duplicates N | --dedup --duplicates-from-data]
                        [--impute COL,...] [--max-missing N | --missing-from-data]
                        [--trim-space] [--max-bytes N] [--max-line-bytes N] [--max-columns N] [--max-cells N]

Says, before anything is trained, what each notion would promise every column
at budget ε: CorrDP's TV of each public column to the sensitive ones (estimated
from the file: the report says so; a continuous public column is also checked
over equal-width bins of its --bounds, else of its observed range) and the
noise weight it implies (a heuristic upper confidence bound), whether
feature DP protects it and its attribute-inference bound. Every column not
named sensitive, label or ignore is public; a column has one role. Column
lists are comma-separated, in CSV quoting for a name with a comma ("a,b"),
and the flags may be repeated. Kinds come from the data (numbers: continuous;
text: categorical) unless --categorical or --continuous fixes them; a column
of numbers with a few text cells ("12k", "n/a") is an error naming the cells
(fix them, or fix the kind). --ball gives the prior mass of the best guess
of a sensitive column given the record's public columns and label (public
knowledge: a column without it gets no bound) for feature DP's
attribute-inference bound, and
--bcdp-level the BCDP level demanded of each sensitive column for BCDP's
allocation, which needs --q Q, the public correlation bound of Assumption 1
in [0, 1] (no default: 0 means independent coordinates, 1 the always-valid
min-δ baseline; the report prints it); the markdown ends with a
legend of every column. A categorical feature needs its public levels
(--levels sex=female|male), or --levels-from-data to take the observed ones.
With --pipeline (implied by the other pipeline flags) it adds the smooth-RDP
cost of planned pre-processing before DP-GD: min–max scaling of every
continuous feature (public ranges from --bounds; --bounds-from-data to plan
the data's own extremes: with no public domain one replaced record can move
them anywhere, so that step costs group privacy over every record), optional
deduplication (--max-duplicates: a public bound on the largest group of
identical records; --duplicates-from-data to count it in the file) and mean
imputation of the --impute columns (--max-missing: a public bound on the
records with a missing value; --missing-from-data to count them in the
file); a public bound the file exceeds is an error. Whatever the
report reads from the private data it states first (markdown) or in the
read_from_private_data column (csv, json). The file is read within caps
(default 64 MiB, lines of 4 MiB, 100000 columns, 2·10^6 cells; -1: no
cap). See docs/README.md and docs/smooth-rdp.md in the repository.

flags:
`

// reportFlags are the report command's flags.
type reportFlags struct {
	csv, label, format                            string
	sens, ignore, impute, categorical, continuous columnList
	levels                                        levelsList
	ball, bcdpLevel                               floatMap
	q                                             corrBound
	bounds                                        boundsList
	eps, delta                                    float64
	pipe, dedup                                   bool
	levelsFromData, boundsFromData, missFromData  bool
	dupFromData                                   bool
	maxMissing, maxDup                            int
	csvOpts                                       data.CSVOptions
}

func newReportFlags(fs *flag.FlagSet) *reportFlags {
	f := &reportFlags{levels: levelsList{}, bounds: boundsList{},
		ball:      floatMap{m: map[string]float64{}, lo: 0, hi: 1, what: "the prior mass"},
		bcdpLevel: floatMap{m: map[string]float64{}, lo: 0, hi: math.MaxFloat64, what: "the BCDP level"}}
	fs.Var(&f.ball, "ball", "prior mass `COL=P` of the best guess of a sensitive column without the model, given the record's public columns and label, P in [1/levels, 1], for feature DP's attribute-inference bound (repeatable; without it the column gets no bound: no prior is assumed)")
	fs.Var(&f.bcdpLevel, "bcdp-level", "demanded BCDP level `COL=δ` of a sensitive column, δ > 0 (repeatable; give one for every sensitive column to get the BCDP allocation)")
	fs.Var(&f.q, "q", "BCDP's public bound `Q` on the correlation between coordinates (Assumption 1), in [0, 1]: 0 means independent coordinates, 1 the always-valid min-δ baseline (required with --bcdp-level; no default)")
	fs.StringVar(&f.csv, "csv", "", "the CSV `FILE` (header row)")
	fs.Var(&f.sens, "sensitive", "sensitive `COLUMNS` (comma-separated, CSV quoting; repeatable)")
	fs.StringVar(&f.label, "label", "", "the label `COLUMN`")
	fs.Var(&f.ignore, "ignore", "`COLUMNS` left out (comma-separated, CSV quoting; repeatable)")
	fs.Var(&f.categorical, "categorical", "`COLUMNS` read as categorical whatever their cells look like (comma-separated; repeatable)")
	fs.Var(&f.continuous, "continuous", "`COLUMNS` read as continuous: every non-missing cell must be a number (comma-separated; repeatable)")
	fs.Var(f.levels, "levels", "public levels of a categorical column, `COL=A|B|...` (repeatable)")
	fs.BoolVar(&f.levelsFromData, "levels-from-data", false, "take the levels of categorical columns without --levels from the file (the report says so)")
	floatVar(fs, &f.eps, "epsilon", 1, "budget ε, finite > 0")
	floatVar(fs, &f.delta, "delta", 1e-5, "δ in (0, 1)")
	fs.StringVar(&f.format, "format", "markdown", "`markdown`, csv or json")
	fs.BoolVar(&f.pipe, "pipeline", false, "add the smooth-RDP cost of planned pre-processing (min–max scaling, then DP-GD)")
	fs.Var(f.bounds, "bounds", "public min–max ranges `COL=LO:HI,...` (repeatable; implies --pipeline)")
	fs.BoolVar(&f.boundsFromData, "bounds-from-data", false, "plan min–max scaling with the file's own extremes for continuous columns without --bounds (implies --pipeline; the report says so)")
	fs.BoolVar(&f.dedup, "dedup", false, "plan deduplication of the records (implies --pipeline; needs --max-duplicates or --duplicates-from-data)")
	intVar(fs, &f.maxDup, "max-duplicates", 0, "public bound ≥ 1 on the largest group of identical records (with --dedup)")
	fs.BoolVar(&f.dupFromData, "duplicates-from-data", false, "count the largest group of identical records in the file instead of --max-duplicates (the report says so)")
	fs.Var(&f.impute, "impute", "continuous `COLUMNS` to mean-impute (implies --pipeline)")
	intVar(fs, &f.maxMissing, "max-missing", 0, "public bound ≥ 1 on the records with a missing value (with --impute)")
	fs.BoolVar(&f.missFromData, "missing-from-data", false, "count the records with a missing value in the file instead of --max-missing (the report says so)")
	fs.BoolVar(&f.csvOpts.TrimSpace, "trim-space", false, trimSpaceUsage)
	intVar(fs, &f.csvOpts.MaxBytes, "max-bytes", data.DefaultMaxBytes, "reading cap: bytes of the file (-1: none)")
	intVar(fs, &f.csvOpts.MaxLineBytes, "max-line-bytes", data.DefaultMaxLineBytes, "reading cap: bytes of one line (-1: none)")
	intVar(fs, &f.csvOpts.MaxColumns, "max-columns", data.DefaultMaxColumns, "reading cap: columns (-1: none)")
	intVar(fs, &f.csvOpts.MaxCells, "max-cells", data.DefaultMaxCells, "reading cap: data cells, rows × columns (-1: none)")
	return f
}

func runPrivacyReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featuredp report", flag.ContinueOnError)
	f := newReportFlags(fs)
	if code, done := parseFlags(fs, args, reportUsage, stdout, stderr); done {
		return code
	}
	r, err := f.run(fs.Args())
	if err != nil {
		fmt.Fprintf(stderr, "featuredp report: %s\n", libraryFlags.Replace(err.Error()))
		return 2
	}
	if f.format != "markdown" && len(r.FromData) > 0 {
		fmt.Fprintf(stderr, "featuredp report: read from the private data (not differentially private): %s\n", strings.Join(r.FromData, "; "))
	}
	for i, n := range r.Notes { // in the flags' words
		r.Notes[i] = libraryFlags.Replace(n)
	}
	for i := range r.Columns {
		r.Columns[i].FDPNote = libraryFlags.Replace(r.Columns[i].FDPNote)
	}
	if f.format != "markdown" {
		for _, n := range r.Notes { // the markdown prints them; csv and json have no place for them
			fmt.Fprintf(stderr, "featuredp report: note: %s\n", n)
		}
	}
	return writeReport(r, f.format, stdout, stderr)
}

// run checks the flags, reads the file and computes the report.
func (f *reportFlags) run(extra []string) (*dpnb.PrivacyReportResult, error) {
	if err := f.check(extra); err != nil {
		return nil, err
	}
	df, err := readReportCSV(f.csv, f.readOptions())
	if err != nil {
		return nil, err
	}
	schema, observed, err := f.schema(df)
	if err != nil {
		return nil, err
	}
	opts := dpnb.ReportOptions{Eps: f.eps, Delta: f.delta, ObservedLevels: observed, Ball: f.ball.m, Levels: f.bcdpLevel.m,
		Q: f.q.q, IndependentCoordinates: f.q.set && f.q.q == 0}
	if f.pipelineWanted() {
		if opts.Pipeline, err = f.pipeline(schema); err != nil {
			return nil, err
		}
	}
	r, err := dpnb.PrivacyReport(context.Background(), df, schema, opts)
	if err != nil {
		return nil, fmt.Errorf("report on --csv %s: %w", f.csv, err)
	}
	return r, nil
}

// check validates the flags that need no data.
func (f *reportFlags) check(extra []string) error {
	switch {
	case len(extra) > 0:
		return fmt.Errorf("unexpected argument %q (every input is a flag; see featuredp report --help)", extra[0])
	case f.csv == "" || len(f.sens) == 0 || f.label == "":
		return errors.New("--csv, --sensitive and --label are required")
	case f.format != "markdown" && f.format != "csv" && f.format != "json":
		return fmt.Errorf("--format %q: want markdown, csv or json", f.format)
	case f.maxMissing < 0:
		return fmt.Errorf("--max-missing %d: want a public bound ≥ 1 (or --missing-from-data)", f.maxMissing)
	case f.maxMissing > 0 && f.missFromData:
		return errors.New("--max-missing and --missing-from-data exclude each other: give one")
	case (f.maxMissing > 0 || f.missFromData) && len(f.impute) == 0:
		return errors.New("--max-missing and --missing-from-data bound the records --impute fills: give --impute COLUMNS")
	case f.maxDup < 0:
		return fmt.Errorf("--max-duplicates %d: want a public bound ≥ 1 (or --duplicates-from-data)", f.maxDup)
	case f.maxDup > 0 && f.dupFromData:
		return errors.New("--max-duplicates and --duplicates-from-data exclude each other: give one")
	case (f.maxDup > 0 || f.dupFromData) && !f.dedup:
		return errors.New("--max-duplicates and --duplicates-from-data bound the groups --dedup removes: add --dedup")
	}
	for _, c := range []struct {
		flag string
		v    int64
	}{{"--max-bytes", f.csvOpts.MaxBytes}, {"--max-line-bytes", f.csvOpts.MaxLineBytes},
		{"--max-columns", int64(f.csvOpts.MaxColumns)}, {"--max-cells", int64(f.csvOpts.MaxCells)}} {
		if c.v == 0 || c.v < -1 {
			return fmt.Errorf("%s %d: want a cap ≥ 1, or -1 for none", c.flag, c.v)
		}
	}
	if err := checkBudget(f.eps, f.delta); err != nil {
		return err
	}
	for _, g := range []struct {
		flag string
		m    map[string]float64
	}{{"--ball", f.ball.m}, {"--bcdp-level", f.bcdpLevel.m}} {
		for n := range g.m {
			if !slices.Contains(f.sens, n) {
				return fmt.Errorf("%s %s: %q is not a --sensitive column (the bound and the levels apply to protected columns)", g.flag, n, n)
			}
		}
	}
	if len(f.bcdpLevel.m) > 0 && !f.q.set {
		return errors.New("--bcdp-level needs --q: give BCDP's public bound q on the correlation between coordinates " +
			"(Assumption 1), in [0, 1]; 0 means independent coordinates, 1 the always-valid min-δ baseline")
	}
	for _, n := range f.categorical {
		if slices.Contains(f.continuous, n) {
			return fmt.Errorf("column %q is given both --categorical and --continuous: give one kind", n)
		}
	}
	return checkRoles(f.sens, f.ignore, f.label)
}

// readOptions are the CSV options of the flags: the reading caps, the
// kinds fixed by --categorical and --continuous, and StrictKinds, so that a
// mostly numeric column with a few text cells is an error naming them
// rather than silently categorical.
func (f *reportFlags) readOptions() data.CSVOptions {
	o := f.csvOpts
	o.StrictKinds = true
	o.Types = map[string]series.Type{}
	for _, n := range f.categorical {
		o.Types[n] = series.String
	}
	for _, n := range f.continuous {
		o.Types[n] = series.Float
	}
	return o
}

func (f *reportFlags) pipelineWanted() bool {
	return f.pipe || len(f.bounds) > 0 || f.boundsFromData || f.dedup || len(f.impute) > 0
}

// readReportCSV reads the file within the caps; errors name --csv or the
// cap's flag.
func readReportCSV(path string, opts data.CSVOptions) (dataframe.DataFrame, error) {
	fh, err := openInput("--csv", path)
	if err != nil {
		return dataframe.DataFrame{}, err
	}
	defer fh.Close()
	df, err := data.ReadCSV(fh, opts)
	if err != nil {
		return dataframe.DataFrame{}, csvError(path, err)
	}
	return df, nil
}

// schema builds the schema from the role flags and levels (linear in the
// width). It returns the categorical columns whose levels it took from the
// data (--levels-from-data).
func (f *reportFlags) schema(df dataframe.DataFrame) (data.Schema, []string, error) {
	schema := data.DefaultSchema(df, f.label, data.Classification)
	at := make(map[string]int, len(schema.Columns))
	for i, c := range schema.Columns {
		at[c.Name] = i
	}
	if err := f.known(at, df.Names()); err != nil {
		return schema, nil, err
	}
	for i := range schema.Columns {
		if schema.Columns[i].Role != data.Label {
			schema.Columns[i].Role = data.Public
		}
	}
	for _, g := range []struct {
		names columnList
		role  data.Role
	}{{f.sens, data.Sensitive}, {f.ignore, data.Ignore}} {
		for _, n := range g.names {
			schema.Columns[at[n]].Role = g.role
		}
	}
	observed, err := f.applyLevels(df, schema)
	return schema, observed, err
}

// known checks that every column a flag names is in the file.
func (f *reportFlags) known(at map[string]int, names []string) error {
	for _, l := range []struct {
		flag  string
		names []string
	}{{"--label", []string{f.label}}, {"--sensitive", f.sens}, {"--ignore", f.ignore}, {"--impute", f.impute},
		{"--levels", slices.Sorted(maps.Keys(f.levels))}, {"--bounds", slices.Sorted(maps.Keys(f.bounds))},
		{"--ball", slices.Sorted(maps.Keys(f.ball.m))}, {"--bcdp-level", slices.Sorted(maps.Keys(f.bcdpLevel.m))}} {
		for _, n := range l.names {
			if _, ok := at[n]; !ok {
				return fmt.Errorf("%s: no column %q in %s (columns: %s)%s%s", l.flag, n, f.csv, data.QuoteNames(names), commaHint(at), spaceHint(names, n))
			}
		}
	}
	return nil
}

// commaHint explains the quoting when a column name holds a comma.
// trimSpaceUsage is the help of the --trim-space flags.
const trimSpaceUsage = "trim spaces around every cell and column name (files written with \", \" between fields, such as UCI Adult)"

// spaceHint is data.SpaceHint in flag terms: a header name that is name
// with spaces around it.
func spaceHint(header []string, name string) string {
	return libraryFlags.Replace(data.SpaceHint(header, name))
}

func commaHint(at map[string]int) string {
	for n := range at {
		if strings.Contains(n, ",") {
			return fmt.Sprintf("; a name with a comma is given in CSV quoting, e.g. --sensitive '%s'", strconv.Quote(n))
		}
	}
	return ""
}

// applyLevels gives every categorical feature column its --levels, or with
// --levels-from-data its observed levels; without either it is an error
// naming the columns.
func (f *reportFlags) applyLevels(df dataframe.DataFrame, schema data.Schema) ([]string, error) {
	var need, observed []string
	cols := data.Columns(df)
	for i, c := range schema.Columns {
		lv, public := f.levels[c.Name]
		switch {
		case public && c.Kind != data.Categorical:
			return nil, fmt.Errorf("--levels: column %q is numeric (continuous), levels are for text columns", c.Name)
		case public:
			schema.Columns[i].Levels = lv
		case c.Kind != data.Categorical || c.Role == data.Label || c.Role == data.Ignore:
		case f.levelsFromData:
			schema.Columns[i].Levels = observedLevels(cols[c.Name])
			observed = append(observed, c.Name)
		default:
			need = append(need, c.Name)
		}
	}
	if len(need) > 0 {
		return nil, fmt.Errorf("categorical column(s) %s have no public levels: give them with --levels COL=A|B|..., "+
			"or pass --levels-from-data to take the levels observed in %s (the report then says it read them from the private data)",
			data.QuoteNames(need), f.csv)
	}
	return observed, nil
}

// pipeline builds the planned pre-processing; a continuous feature without
// --bounds needs --bounds-from-data, --impute needs --max-missing or
// --missing-from-data.
func (f *reportFlags) pipeline(schema data.Schema) (*dpnb.ReportPipeline, error) {
	var need []string
	for _, c := range schema.Features() {
		if _, ok := f.bounds[c.Name]; !ok && c.Kind == data.Continuous {
			need = append(need, c.Name)
		}
	}
	if len(need) > 0 && !f.boundsFromData {
		return nil, fmt.Errorf("continuous column(s) %s have no public min–max bounds for the planned scaling: give them with --bounds COL=LO:HI, "+
			"or pass --bounds-from-data to plan the file's own extremes (the report prices and states it)", data.QuoteNames(need))
	}
	if len(f.impute) > 0 && f.maxMissing == 0 && !f.missFromData {
		return nil, errors.New("--impute needs --max-missing N, a public bound on the records with a missing value, " +
			"or --missing-from-data to count them in the file (the report states it)")
	}
	if f.dedup && f.maxDup == 0 && !f.dupFromData {
		return nil, errors.New("--dedup needs --max-duplicates N, a public bound on the largest group of identical records, " +
			"or --duplicates-from-data to count it in the file (the report states it)")
	}
	return &dpnb.ReportPipeline{Dedup: f.dedup, MaxDuplicates: f.maxDup, MaxMissing: f.maxMissing, Bounds: f.bounds, Impute: f.impute}, nil
}

// observedLevels returns the sorted distinct levels of a column, read as
// the schema's validation reads them (data.LevelAt: trimmed; missing cells
// left out).
func observedLevels(s series.Series) []string {
	seen := map[string]bool{}
	for i := range s.Len() {
		if !data.IsMissing(s, i) {
			seen[data.LevelAt(s, i)] = true // as validation reads the cell: trimmed
		}
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

func writeReport(r *dpnb.PrivacyReportResult, format string, stdout, stderr io.Writer) int {
	switch format {
	case "csv":
		if err := writeTableCSV(stdout, r.Table()); err != nil {
			fmt.Fprintf(stderr, "featuredp report: %v\n", err)
			return 1
		}
	case "json":
		b, err := json.MarshalIndent(jsonSafe(r.Table().Maps()), "", "  ")
		if err != nil {
			fmt.Fprintf(stderr, "featuredp report: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, string(b))
	default:
		fmt.Fprint(stdout, r.Markdown())
	}
	return 0
}

// writeTableCSV writes df as CSV with every number in full precision
// (gota's WriteCSV keeps six decimals, which turns a small ε into 0). A
// text cell or a name is the data file's own (a column name, a level), so
// one a spreadsheet would run as a formula gets a leading single quote
// (spreadsheetSafe).
func writeTableCSV(w io.Writer, df dataframe.DataFrame) error {
	cw := csv.NewWriter(w)
	names := slices.Clone(df.Names())
	for j := range names {
		names[j] = spreadsheetSafe(names[j])
	}
	if err := cw.Write(names); err != nil {
		return err
	}
	cols := make([]series.Series, df.Ncol())
	for j := range cols {
		cols[j] = df.Col(df.Names()[j])
	}
	for i := range df.Nrow() {
		rec := make([]string, len(cols))
		for j, c := range cols {
			rec[j] = spreadsheetSafe(c.Elem(i).String())
			if c.Type() == series.Float {
				rec[j] = strconv.FormatFloat(c.Elem(i).Float(), 'g', -1, 64)
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// jsonSafe replaces the numbers JSON cannot hold: NaN (not applicable)
// by null and ±Inf (for example a public column's BCDP level: no
// demand) by the strings "+Inf" and "-Inf".
func jsonSafe(rows []map[string]any) []map[string]any {
	for _, row := range rows {
		for k, v := range row {
			x, ok := v.(float64)
			switch {
			case !ok:
			case math.IsNaN(x):
				row[k] = nil
			case math.IsInf(x, 1):
				row[k] = "+Inf"
			case math.IsInf(x, -1):
				row[k] = "-Inf"
			}
		}
	}
	return rows
}
