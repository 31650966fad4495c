package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/dpnb"
	"github.com/go-gota/gota/dataframe"
)

func init() {
	register("report", "per-column privacy report of a CSV under every notion", runPrivacyReport)
}

const reportUsage = `usage: featuredp report --csv FILE --sensitive COL,COL --label COL [--ignore COL,...]
                        [--epsilon E] [--delta D] [--format markdown|csv|json]
                        [--pipeline] [--bounds COL=LO:HI,...] [--dedup] [--impute COL,...] [--max-missing N]

Says, before anything is trained, what each notion would promise every column
at budget ε: CorrDP's TV of each public column to the sensitive ones (estimated
from the file: the report says so) and the noise weight it implies, whether
feature DP protects it and its attribute-inference bound. Every column not
named sensitive, label or ignore is public. Kinds come from the data (numbers:
continuous; text: categorical with the observed levels, an assumption about
the public domain the report inherits). With --pipeline (implied by the other
pipeline flags) it adds the smooth-RDP cost of planned pre-processing before
DP-GD: min–max scaling of every continuous feature (public ranges from
--bounds, else the data's own extremes), optional deduplication and mean
imputation of the --impute columns (--max-missing: a public bound on the
records with a missing value). See docs/smooth-rdp.md in the repository.

flags:
`

func runPrivacyReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featuredp report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	csvPath := fs.String("csv", "", "the CSV `FILE` (header row)")
	sens := fs.String("sensitive", "", "comma-separated sensitive `COLUMNS`")
	label := fs.String("label", "", "the label `COLUMN`")
	ignore := fs.String("ignore", "", "comma-separated `COLUMNS` left out")
	eps := fs.Float64("epsilon", 1, "budget ε")
	delta := fs.Float64("delta", 1e-5, "δ")
	format := fs.String("format", "markdown", "`markdown`, csv or json")
	pipe := fs.Bool("pipeline", false, "add the smooth-RDP cost of planned pre-processing (min–max scaling, then DP-GD)")
	bounds := fs.String("bounds", "", "public min–max ranges `COL=LO:HI,...` (implies --pipeline)")
	dedup := fs.Bool("dedup", false, "plan deduplication (implies --pipeline)")
	impute := fs.String("impute", "", "continuous `COLUMNS` to mean-impute (implies --pipeline)")
	maxMissing := fs.Int("max-missing", 0, "public bound on the records with a missing value (0: counted in the file)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, reportUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintf(stderr, "featuredp report: %v\n", err)
		return 2
	}
	df, schema, err := reportInput(*csvPath, *sens, *label, *ignore)
	if err == nil && *format != "markdown" && *format != "csv" && *format != "json" {
		err = fmt.Errorf("--format %q: want markdown, csv or json", *format)
	}
	if err != nil {
		fmt.Fprintf(stderr, "featuredp report: %v\n", err)
		return 2
	}
	opts := dpnb.ReportOptions{Eps: *eps, Delta: *delta}
	if *pipe || *bounds != "" || *dedup || *impute != "" || *maxMissing != 0 {
		if opts.Pipeline, err = reportPipeline(*bounds, *dedup, *impute, *maxMissing); err != nil {
			fmt.Fprintf(stderr, "featuredp report: %v\n", err)
			return 2
		}
	}
	r, err := dpnb.PrivacyReport(context.Background(), df, schema, opts)
	if err != nil {
		fmt.Fprintf(stderr, "featuredp report: %s\n", strings.TrimPrefix(err.Error(), "dpnb: PrivacyReport: "))
		return 2
	}
	return writeReport(r, *format, stdout, stderr)
}

// reportPipeline parses the pipeline flags.
func reportPipeline(bounds string, dedup bool, impute string, maxMissing int) (*dpnb.ReportPipeline, error) {
	p := &dpnb.ReportPipeline{Dedup: dedup, MaxMissing: maxMissing, Bounds: map[string]data.Range{}}
	if bounds != "" {
		for _, item := range strings.Split(bounds, ",") {
			name, rng, ok := strings.Cut(strings.TrimSpace(item), "=")
			lo, hi, ok2 := strings.Cut(rng, ":")
			var r data.Range
			_, err1 := fmt.Sscan(lo, &r.Lo)
			_, err2 := fmt.Sscan(hi, &r.Hi)
			if !ok || !ok2 || name == "" || err1 != nil || err2 != nil || !(r.Lo < r.Hi) {
				return nil, fmt.Errorf("--bounds %q: want COL=LO:HI with LO < HI", item)
			}
			p.Bounds[name] = r
		}
	}
	if impute != "" {
		for _, c := range strings.Split(impute, ",") {
			p.Impute = append(p.Impute, strings.TrimSpace(c))
		}
	}
	return p, nil
}

// reportInput reads the CSV and builds the schema from the role flags;
// a column named in a flag that is not in the file is an error.
func reportInput(path, sens, label, ignore string) (dataframe.DataFrame, data.Schema, error) {
	if path == "" || sens == "" || label == "" {
		return dataframe.DataFrame{}, data.Schema{}, errors.New("--csv, --sensitive and --label are required")
	}
	f, err := os.Open(path)
	if err != nil {
		return dataframe.DataFrame{}, data.Schema{}, err
	}
	defer f.Close()
	df, err := data.ReadCSV(f, data.CSVOptions{})
	if err != nil {
		return dataframe.DataFrame{}, data.Schema{}, err
	}
	schema := data.DefaultSchema(df, label, data.Classification)
	roles := map[string]data.Role{}
	for _, c := range strings.Split(sens, ",") {
		roles[strings.TrimSpace(c)] = data.Sensitive
	}
	if ignore != "" {
		for _, c := range strings.Split(ignore, ",") {
			roles[strings.TrimSpace(c)] = data.Ignore
		}
	}
	for name := range roles {
		if schemaIndex(schema, name) < 0 {
			return df, schema, fmt.Errorf("no column %q in %s (columns: %s)", name, path, strings.Join(df.Names(), ", "))
		}
	}
	if schemaIndex(schema, label) < 0 {
		return df, schema, fmt.Errorf("no label column %q in %s (columns: %s)", label, path, strings.Join(df.Names(), ", "))
	}
	for i, c := range schema.Columns {
		if c.Name == label {
			continue
		}
		schema.Columns[i].Role = data.Public
		if r, ok := roles[c.Name]; ok {
			schema.Columns[i].Role = r
		}
		if c.Kind == data.Categorical && len(c.Levels) == 0 {
			schema.Columns[i].Levels = observedLevels(df, c.Name)
		}
	}
	return df, schema, nil
}

// observedLevels returns the sorted distinct values of a column.
func observedLevels(df dataframe.DataFrame, name string) []string {
	seen := map[string]bool{}
	for _, v := range df.Col(name).Records() {
		seen[v] = true
	}
	out := make([]string, 0, len(seen))
	for v := range seen {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

func schemaIndex(s data.Schema, name string) int {
	for i, c := range s.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func writeReport(r *dpnb.PrivacyReportResult, format string, stdout, stderr io.Writer) int {
	switch format {
	case "csv":
		if err := r.Table().WriteCSV(stdout); err != nil {
			fmt.Fprintf(stderr, "featuredp report: %v\n", err)
			return 1
		}
	case "json":
		b, err := json.MarshalIndent(r.Table().Maps(), "", "  ")
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
