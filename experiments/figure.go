// Package experiments describes the figures of the feature-level DP papers as
// values and runs them.
//
// A [Figure] is a paper figure (or a derived one): its labels, the datasets it
// needs, a function that expands a [Profile] into independent [Cell]s (one
// method × x value × seed each), a function that computes a cell's
// [Measurement]s, and the numbers the paper reports. The generic runner [Run]
// evaluates cells in parallel and returns tidy [Results] (one row per cell and
// metric) that do not depend on the number of workers: a cell's randomness
// comes only from its own Seed (see [CellSeed]). [Summarize] aggregates the
// rows per (method, x, metric).
//
// The package knows no paper: each notion under notions/ defines its
// figures and registers them in the default [Registry] from its init
// function (the notions/all package imports every notion, and the featuredp
// command and dpnb import notions/all). [Register], [Figures], [Lookup],
// [Select] and [Papers] use that registry. A cell carries a typed
// [CellConfig] defined by its notion; [Parallel] is the one worker pool and
// [Memo] the one memo cache (scoped to an [Env]) of the project.
package experiments

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/featuredp/featuredp/data"
)

// Profile selects the size of an experiment.
type Profile string

const (
	// Quick is the default profile: small grids and few seeds, minutes on a
	// laptop; used by notebooks, tests and CI.
	Quick Profile = "quick"
	// Full uses the papers' settings (grids, seeds, iterations).
	Full Profile = "full"
)

// ParseProfile converts a profile name ("quick", "full", or "" for
// [Quick]) into a Profile.
func ParseProfile(s string) (Profile, error) {
	switch Profile(strings.ToLower(strings.TrimSpace(s))) {
	case "", Quick:
		return Quick, nil
	case Full:
		return Full, nil
	}
	return "", fmt.Errorf("experiments: unknown profile %q (valid: quick, full)", s)
}

// paperID is the form of a paper id: a lower-case word, e.g. "corrdp".
var paperID = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

// PlotKind says how a figure is drawn.
type PlotKind int

const (
	// LinesSD draws one line per method through the mean over seeds, with a
	// translucent band of ± one sample standard deviation.
	LinesSD PlotKind = iota
	// LinesQuantile draws one line per method through the median over
	// seeds, with a translucent band between the 25% and 75% quantiles.
	LinesQuantile
	// GroupedBars draws one group of bars per x value and one bar per
	// method (the mean over seeds, with ± SD error bars).
	GroupedBars
)

// String returns the kind's name.
func (k PlotKind) String() string {
	switch k {
	case LinesSD:
		return "lines with SD band"
	case LinesQuantile:
		return "lines with quantile band"
	case GroupedBars:
		return "grouped bars"
	}
	return fmt.Sprintf("PlotKind(%d)", int(k))
}

// Cell is one independent unit of work: one method at one x value with one
// seed. All randomness of a cell must be derived from Seed so that results do
// not depend on scheduling.
type Cell struct {
	Method string  // method label, as shown in legends and the method column
	X      float64 // the x-axis value (ε, steps, q, n, ...)
	Seed   uint64  // the cell's seed; see CellSeed
	Rep    int     // replicate index (0-based) among cells with the same method and x
	// Config is the cell's typed configuration: a struct type defined by
	// the figure's notion, read back with a type assertion. Figures decide
	// what to compute from its fields, never from the Method label.
	Config CellConfig
}

// CellConfig is a figure's typed cell configuration. String describes it
// in one line for error messages ("mode=…, q=…").
type CellConfig interface {
	String() string
}

// Measurement is one metric computed by a cell.
type Measurement struct {
	Metric string  // metric name, e.g. "epsilon", "mse", "accuracy"
	Value  float64 // the value (NaN and ±Inf are allowed)
	// Num holds optional extra numeric columns of the tidy table (e.g. the
	// noise multiplier used); they are written with the shortest
	// round-trip representation and read back with Row.Number.
	Num map[string]float64
	// Extra holds optional extra string columns (labels: a dataset, a
	// mode). Keys must not be core column names nor keys of Num; empty
	// values are dropped.
	Extra map[string]string
}

// Env is the environment a figure runs in.
type Env struct {
	DataDir string  // directory holding the real datasets ("" = none)
	Workers int     // parallel workers (0 means runtime.NumCPU(); negative is an error)
	Profile Profile // the profile the cells were generated for
	// Memo caches deterministic intermediate results (prepared data, tuned
	// configurations) for the figures run with this Env; nil makes
	// Execute create one per figure execution.
	Memo *Memo
}

// PaperValue is a number the paper reports, and where to find the matching
// number of this run in the summaries: the summary of (Method, X, Metric),
// statistic Stat.
type PaperValue struct {
	Quantity string  // human-readable description, e.g. "ε at T=2250"
	Value    float64 // the paper's (or the reference table's) number
	Method   string  // method of the summary holding our number
	X        float64 // x value of that summary
	Metric   string  // metric of that summary
	Stat     string  // "mean" (default), "median", "q25", "q75", "min", "max", "sd"
	Note     string  // source and caveats
	// Tol is the relative tolerance within which this run agrees with the
	// paper: |ours − paper| ≤ Tol·|paper| (≤ Tol when the paper's value is
	// 0) [DefaultTol].
	Tol float64
}

// DefaultTol is the relative tolerance of a PaperValue whose Tol is 0.
const DefaultTol = 0.1

// Ours returns this run's value for pv from the summaries, and false if no
// summary matches (Method, X, Metric) or Stat is unknown.
func (pv PaperValue) Ours(sums []Summary) (float64, bool) {
	s, ok := FindSummary(sums, pv.Method, pv.X, pv.Metric)
	if !ok {
		return 0, false
	}
	switch strings.ToLower(pv.Stat) {
	case "", "mean":
		return s.Mean, true
	case "median":
		return s.Median, true
	case "q25":
		return s.Q25, true
	case "q75":
		return s.Q75, true
	case "min":
		return s.Min, true
	case "max":
		return s.Max, true
	case "sd":
		return s.SD, true
	}
	return 0, false
}

// Figure is a paper figure as a value.
type Figure struct {
	ID     string // unique id, "<paper>-<name>", e.g. "corrdp-fig1a"
	Paper  string // the paper (notion) id, a lower-case word: "corrdp", "fdp", …
	Title  string
	XLabel string
	YLabel string
	LogX   bool
	LogY   bool
	// Metric is the metric plotted; "" means the first metric of the results.
	Metric string
	// GroupBy names extra columns (Measurement.Extra keys, e.g. "mode" or
	// "dataset") whose values split the summaries and the plotted curves
	// (see SummarizeBy); nil means one curve per method.
	GroupBy []string
	// PanelBy, if set, is one of GroupBy whose values are drawn as separate
	// panels side by side (e.g. "dataset": one panel per dataset), each
	// titled with its value; the other GroupBy columns still split curves.
	PanelBy string
	Plot    PlotKind
	// Datasets are the file names the figure needs in Env.DataDir; empty if
	// it needs no real data.
	Datasets []string
	// Cells expands a profile into the figure's cells.
	Cells func(p Profile) ([]Cell, error)
	// Run computes the measurements of one cell. It must honour ctx for
	// long computations and draw randomness only from c.Seed.
	Run func(ctx context.Context, c Cell, env Env) ([]Measurement, error)
	// Settings optionally describes the settings of a profile (markdown).
	Settings func(p Profile) string
	// PaperValues are the paper's reported numbers compared in the report.
	PaperValues []PaperValue
	// Notes are shown under the figure in reports (markdown).
	Notes string
	// Reuses, if set, is the id of a figure whose memoised intermediate
	// results (Env.Memo) this one reads, such as trained models: a
	// selection holding both runs this figure right after that one, while
	// the bounded memo still holds them (Registry.Select).
	Reuses string
	// Picture, if set, draws the figure from its results as an image (a
	// grid of generated samples, say); reports and notebooks show it
	// before the plot of Metric.
	Picture func(res *Results) (Picture, error)
	// MetricTitle, if set, titles the plot of Metric instead of Title (a
	// figure with a Picture gives the picture Title and its metric plot
	// its own title).
	MetricTitle string
	// XTicks, if set, names the x values in plots (the group labels of
	// GroupedBars, e.g. "all" and the class names instead of 0, 1, …);
	// nil means the numbers.
	XTicks func(x float64) string
	// ShardUnit, if set, keys the cells that must run in the same shard
	// of a `--shard K/N` run: cells with the same key are one unit, such
	// as every cell scoring one trained model, which a shard then trains
	// once and no other shard trains at all. Units are numbered 0, 1, …
	// by the first appearance of their key in the cell list, and unit u
	// belongs to shard K of N iff u mod N = K−1 (see Shard). nil makes
	// every cell its own unit: cell i belongs to shard K iff i mod N =
	// K−1. It never changes a cell's rows, only where the cell runs.
	ShardUnit func(c Cell) string
	// Work, if set, returns the units of work (WorkUnit) that running
	// cells for profile p takes, for a figure whose cells share work that
	// no cell's completion measures, such as runs that many cells read
	// trained together in lock-step: cells done would all arrive at the
	// end. The cells add the units they do to WorkFrom(ctx), and progress
	// (RunOptions.Progress) counts units instead of cells. It must be
	// cheap and not read data.
	Work func(p Profile, cells []Cell) int
	// WorkUnit names the units of Work in progress lines ("steps" if
	// empty).
	WorkUnit string
}

// ProgressUnit names what a run's progress counts: "cells", or the units
// of Work ("steps" unless WorkUnit says otherwise).
func (f Figure) ProgressUnit() string {
	switch {
	case f.Work == nil:
		return "cells"
	case f.WorkUnit == "":
		return "steps"
	}
	return f.WorkUnit
}

// work returns the units of work of running cells (0 without Work).
func (f Figure) work(p Profile, cells []Cell) int {
	if f.Work == nil {
		return 0
	}
	return f.Work(p, cells)
}

// Picture is a figure drawn as an image: a grid of len(Rows) × len(Cols)
// equal cells, labelled by Rows (top to bottom) and Cols (left to right);
// RowsTitle and ColsTitle, if set, say what the rows and the columns are
// (e.g. "method" and "conditioning class").
type Picture struct {
	Image                image.Image
	Rows, Cols           []string
	RowsTitle, ColsTitle string
}

// Validate checks that the figure is well formed.
func (f Figure) Validate() error {
	if f.ID == "" {
		return errors.New("experiments: figure has an empty ID")
	}
	if strings.ContainsAny(f.ID, " \t\n/\\,") {
		return fmt.Errorf("experiments: figure id %q contains a space, comma or slash", f.ID)
	}
	if !paperID.MatchString(f.Paper) {
		return fmt.Errorf("experiments: figure %s: paper id %q is not a lower-case word", f.ID, f.Paper)
	}
	if !strings.HasPrefix(f.ID, f.Paper+"-") {
		return fmt.Errorf("experiments: figure %s: id does not start with its paper %q and a dash", f.ID, f.Paper)
	}
	if f.Cells == nil || f.Run == nil {
		return fmt.Errorf("experiments: figure %s: Cells and Run must both be set", f.ID)
	}
	if f.Plot < LinesSD || f.Plot > GroupedBars {
		return fmt.Errorf("experiments: figure %s: invalid plot kind %d", f.ID, int(f.Plot))
	}
	if f.PanelBy != "" && !slices.Contains(f.GroupBy, f.PanelBy) {
		return fmt.Errorf("experiments: figure %s: PanelBy %q is not one of GroupBy %v", f.ID, f.PanelBy, f.GroupBy)
	}
	return nil
}

// SplitGroup returns the value of key in a Summary.Group label
// ("k=v, k=v") and the label without it; ok is false when the label has no
// such key.
func SplitGroup(group, key string) (value, rest string, ok bool) {
	var kept []string
	for _, part := range strings.Split(group, ", ") {
		if k, v, found := strings.Cut(part, "="); found && k == key && !ok {
			value, ok = v, true
			continue
		}
		if part != "" {
			kept = append(kept, part)
		}
	}
	return value, strings.Join(kept, ", "), ok
}

// MissingDatasets returns the names in f.Datasets that are not available.
// A file of the dataset registry (data.LookupFile) is available when
// data.Locate finds it in dataDir, $FEATUREDP_DATA or the download cache
// (where `featuredp data fetch` puts it); any other name must be a regular
// file in dataDir.
func (f Figure) MissingDatasets(dataDir string) []string {
	var missing []string
	for _, name := range f.Datasets {
		if _, known := data.LookupFile(name); known {
			if _, ok := data.Locate(name, data.Options{Dir: dataDir}); !ok {
				missing = append(missing, name)
			}
			continue
		}
		if dataDir == "" {
			missing = append(missing, name)
			continue
		}
		st, err := os.Stat(filepath.Join(dataDir, name))
		if err != nil || !st.Mode().IsRegular() {
			missing = append(missing, name)
		}
	}
	return missing
}

// MissingDataError reports that a figure cannot run because some of its
// datasets are not in the data directory.
type MissingDataError struct {
	Figure  string
	DataDir string
	Files   []string
}

// Error implements error. A nil *MissingDataError says so rather than
// panicking.
func (e *MissingDataError) Error() string {
	if e == nil {
		return "experiments: nil *MissingDataError (no missing data recorded)"
	}
	return fmt.Sprintf("experiments: figure %s needs %s: %s", e.Figure, strings.Join(e.Files, ", "), MissingWhere(e.DataDir, e.Files))
}

// MissingWhere says where missing dataset files were looked for and how to
// get them: `featuredp data fetch` for files of the dataset registry, the
// data directory for any other.
func MissingWhere(dataDir string, files []string) string {
	var known, other []string
	for _, name := range files {
		if _, ok := data.LookupFile(name); ok {
			known = append(known, name)
		} else {
			other = append(other, name)
		}
	}
	s := "not found in " + strings.Join(data.Places(data.Options{Dir: dataDir}), ", ")
	if len(known) > 0 {
		s += fmt.Sprintf("; get them with `featuredp data fetch %s` (or `featuredp reproduce --fetch`)", strings.Join(fetchNames(known), " "))
	}
	if len(other) > 0 {
		s += fmt.Sprintf("; put %s in the data directory (--data or $FEATUREDP_DATA)", strings.Join(other, ", "))
	}
	return s
}

// fetchNames names registry files for `featuredp data fetch`: a dataset
// whose files are all among names by its name, the others by file.
func fetchNames(names []string) []string {
	var out []string
	done := map[string]bool{}
	for _, n := range names {
		f, _ := data.LookupFile(n)
		if done[f.Dataset] {
			continue
		}
		all := f.Dataset != ""
		for _, r := range data.Registry() {
			if r.Dataset == f.Dataset && !slices.Contains(names, r.Name) {
				all = false
			}
		}
		if all {
			done[f.Dataset] = true
			out = append(out, f.Dataset)
			continue
		}
		out = append(out, n)
	}
	return out
}

// Execute runs every cell of the figure for profile p with env.Workers
// workers. It returns a *MissingDataError if datasets are missing.
// progress may be nil; see RunOptions.Progress.
func (f Figure) Execute(ctx context.Context, p Profile, env Env, progress func(done, total int)) (*Results, error) {
	cells, env, err := f.prepare(p, env)
	if err != nil {
		return nil, err
	}
	res, err := Run(ctx, cells, func(ctx context.Context, c Cell) ([]Measurement, error) {
		return f.Run(ctx, c, env)
	}, RunOptions{Workers: env.Workers, Progress: progress, Work: f.work(env.Profile, cells), Figure: f.ID})
	if err != nil {
		return nil, fmt.Errorf("experiments: figure %s: %w", f.ID, err)
	}
	return res, nil
}

// prepare validates the figure and the profile, checks the datasets and
// returns the profile's cells and the Env the cells run with.
func (f Figure) prepare(p Profile, env Env) ([]Cell, Env, error) {
	if err := f.Validate(); err != nil {
		return nil, env, err
	}
	if err := checkWorkers("Env.Workers", env.Workers); err != nil {
		return nil, env, fmt.Errorf("experiments: figure %s: %w", f.ID, err)
	}
	p, err := ParseProfile(string(p))
	if err != nil {
		return nil, env, err
	}
	if missing := f.MissingDatasets(env.DataDir); len(missing) > 0 {
		return nil, env, &MissingDataError{Figure: f.ID, DataDir: env.DataDir, Files: missing}
	}
	cells, err := f.Cells(p)
	if err != nil {
		return nil, env, fmt.Errorf("experiments: figure %s: building %s cells: %w", f.ID, p, err)
	}
	env.Profile = p
	if env.Memo == nil {
		env.Memo = NewMemo(0)
	}
	return cells, env, nil
}
