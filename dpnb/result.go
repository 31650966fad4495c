package dpnb

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/mdtext"
	"github.com/go-gota/gota/dataframe"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// Result is a figure's run: the tidy rows, their summaries and the run's
// settings. It renders itself as a table, a plot and a markdown report (it
// implements nb.Renderable).
type Result struct {
	Figure  experiments.Figure
	Results *experiments.Results
	Summary []experiments.Summary
	Profile experiments.Profile // profile of the run ("" if unknown)
	Workers int                 // workers used (0 if unknown)
	Elapsed time.Duration       // wall time of the run (0 if unknown)
}

// RunFigure runs every cell of fig for the profile with env (env.Workers ≤ 0
// means all cores), summarizes the rows and returns the Result. progress
// may be nil; see experiments.RunOptions.Progress. A figure whose datasets
// are missing returns an *experiments.MissingDataError.
func RunFigure(ctx context.Context, fig experiments.Figure, profile experiments.Profile, env experiments.Env, progress func(done, total int)) (*Result, error) {
	profile, err := experiments.ParseProfile(string(profile))
	if err != nil {
		return nil, fmt.Errorf("dpnb: %w", err)
	}
	if env.Workers <= 0 {
		env.Workers = runtime.NumCPU()
	}
	start := time.Now()
	res, err := fig.Execute(ctx, profile, env, progress)
	if err != nil {
		return nil, fmt.Errorf("dpnb: %w", err)
	}
	return &Result{
		Figure:  fig,
		Results: res,
		Summary: experiments.SummarizeBy(res, fig.GroupBy...),
		Profile: profile,
		Workers: env.Workers,
		Elapsed: time.Since(start),
	}, nil
}

// Metric returns the plotted metric: Figure.Metric, or the first metric of
// the results.
func (r Result) Metric() string {
	if r.Figure.Metric != "" {
		return r.Figure.Metric
	}
	if r.Results != nil {
		if ms := r.Results.Metrics(); len(ms) > 0 {
			return ms[0]
		}
	}
	for _, s := range r.Summary {
		return s.Metric
	}
	return ""
}

// Table returns the summaries (one row per method, x and metric) as a
// DataFrame; Results.DataFrame() has the raw tidy rows.
func (r Result) Table() dataframe.DataFrame {
	return experiments.SummaryFrame(r.Summary)
}

// Plot draws the figure's metric as the figure's plot kind: lines with SD
// bands, lines with quantile bands, or grouped bars. A figure with PanelBy
// is drawn here in one plot (one curve per method and group); Panels draws
// it as one panel per value.
func (r Result) Plot() (*plot.Plot, error) {
	title := r.Figure.Title
	if r.Figure.MetricTitle != "" {
		title = r.Figure.MetricTitle
	}
	return r.plotOf(r.Summary, title)
}

// Panels draws the figure as its panels: one plot per value of
// Figure.PanelBy (in order of first appearance), titled "Title — value",
// or the single Plot when the figure has no PanelBy.
//
// A figure with a Picture gets it as its first panel.
func (r Result) Panels() ([]*plot.Plot, error) {
	panels, err := r.metricPanels()
	if err != nil || r.Figure.Picture == nil {
		return panels, err
	}
	pic, err := r.PicturePlot()
	if err != nil {
		return nil, err
	}
	return append([]*plot.Plot{pic}, panels...), nil
}

// PicturePlot draws the figure's Picture (Figure.Picture) in a plot titled
// with the figure's title, without axes.
func (r Result) PicturePlot() (*plot.Plot, error) {
	if r.Figure.Picture == nil {
		return nil, fmt.Errorf("dpnb: figure %s has no picture", r.Figure.ID)
	}
	if r.Results == nil {
		return nil, fmt.Errorf("dpnb: figure %s: no results to draw", r.Figure.ID)
	}
	pic, err := r.Figure.Picture(r.Results)
	if err != nil {
		return nil, fmt.Errorf("dpnb: figure %s: picture: %w", r.Figure.ID, err)
	}
	if pic.Image == nil || len(pic.Rows) == 0 || len(pic.Cols) == 0 {
		return nil, fmt.Errorf("dpnb: figure %s: empty picture", r.Figure.ID)
	}
	nr, nc := float64(len(pic.Rows)), float64(len(pic.Cols))
	p := plot.New()
	p.Title.Text = r.Figure.Title
	p.Add(plotter.NewImage(pic.Image, 0, 0, nc, nr))
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, nc, 0, nr
	var xt, yt []plot.Tick
	for j, c := range pic.Cols {
		xt = append(xt, plot.Tick{Value: float64(j) + 0.5, Label: c})
	}
	for i, l := range pic.Rows { // row 0 at the top
		yt = append(yt, plot.Tick{Value: nr - float64(i) - 0.5, Label: l})
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.ConstantTicks(xt), plot.ConstantTicks(yt)
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	p.X.Label.Text, p.Y.Label.Text = pic.ColsTitle, pic.RowsTitle
	return p, nil
}

// metricPanels draws the figure's metric as its panels (Panels without the
// picture).
func (r Result) metricPanels() ([]*plot.Plot, error) {
	key := r.Figure.PanelBy
	if key == "" {
		p, err := r.Plot()
		if err != nil {
			return nil, err
		}
		return []*plot.Plot{p}, nil
	}
	var order []string
	by := map[string][]experiments.Summary{}
	for _, s := range r.Summary {
		v, rest, ok := experiments.SplitGroup(s.Group, key)
		if !ok {
			return nil, fmt.Errorf("dpnb: Panels: a summary of %s has no %q in its group %q", s.Method, key, s.Group)
		}
		if _, seen := by[v]; !seen {
			order = append(order, v)
		}
		s.Group = rest
		by[v] = append(by[v], s)
	}
	panels := make([]*plot.Plot, 0, len(order))
	for _, v := range order {
		p, err := r.plotOf(by[v], r.Figure.Title+" — "+v)
		if err != nil {
			return nil, fmt.Errorf("dpnb: Panels: %s: %w", v, err)
		}
		panels = append(panels, p)
	}
	return panels, nil
}

// plotOf draws sums with the figure's plot kind, axes and metric.
func (r Result) plotOf(sums []experiments.Summary, title string) (*plot.Plot, error) {
	f := r.Figure
	switch f.Plot {
	case experiments.GroupedBars:
		return BarPlot(sums, BarOptions{Title: title, XLabel: f.XLabel, YLabel: f.YLabel, Metric: r.Metric(), XFormat: f.XTicks})
	case experiments.LinesQuantile:
		return LinePlot(sums, LineOptions{Title: title, XLabel: f.XLabel, YLabel: f.YLabel,
			LogX: f.LogX, LogY: f.LogY, Metric: r.Metric(), Band: BandIQR})
	default:
		return LinePlot(sums, LineOptions{Title: title, XLabel: f.XLabel, YLabel: f.YLabel,
			LogX: f.LogX, LogY: f.LogY, Metric: r.Metric(), Band: BandSD})
	}
}

// Comparisons pairs every PaperValue of the figure with this run's number
// (NaN, with a note, when the run has no matching summary).
func (r Result) Comparisons() []Comparison {
	out := make([]Comparison, 0, len(r.Figure.PaperValues))
	for _, pv := range r.Figure.PaperValues {
		c := Comparison{Quantity: pv.Quantity, Paper: pv.Value, Ours: math.NaN(), Note: pv.Note, Tol: pv.Tol}
		if v, ok := pv.Ours(r.Summary); ok {
			c.Ours = v
		} else {
			c.Note = strings.TrimSpace(c.Note + " (not computed in this run)")
		}
		out = append(out, c)
	}
	return out
}

// cells counts the distinct (method, x, seed) combinations of the rows.
func (r Result) cells() int {
	if r.Results == nil {
		return 0
	}
	type key struct {
		m    string
		x    float64
		seed uint64
	}
	seen := map[key]bool{}
	for _, row := range r.Results.Rows {
		seen[key{row.Method, row.X, row.Seed}] = true
	}
	return len(seen)
}

// Markdown returns a short report: a heading with the figure id and title,
// the run's settings, the paper-vs-run table and the figure's notes.
func (r Result) Markdown() string {
	f := r.Figure
	var b strings.Builder
	fmt.Fprintf(&b, "## %s — %s\n\n", f.ID, f.Title)
	parts := []string{"paper: " + f.Paper}
	if r.Profile != "" {
		parts = append(parts, "profile: "+string(r.Profile))
	}
	parts = append(parts, fmt.Sprintf("%d cells, %d rows", r.cells(), len(r.rows())))
	if r.Workers > 0 {
		parts = append(parts, fmt.Sprintf("%d workers", r.Workers))
	}
	if r.Elapsed > 0 {
		parts = append(parts, "wall time "+r.Elapsed.Round(time.Millisecond).String())
	}
	if len(f.Datasets) > 0 {
		parts = append(parts, "data: "+strings.Join(f.Datasets, ", "))
	}
	b.WriteString(strings.Join(parts, " · ") + "\n\n")
	if f.Settings != nil && r.Profile != "" {
		if s := strings.TrimSpace(f.Settings(r.Profile)); s != "" {
			fmt.Fprintf(&b, "**Settings.** %s\n\n", s)
		}
	}
	if t := PaperVsRun(r.Comparisons()); t != "" {
		b.WriteString("**Paper vs this run.**\n\n")
		b.WriteString(t)
		b.WriteString("\n")
	}
	if n := strings.TrimSpace(f.Notes); n != "" {
		fmt.Fprintf(&b, "**Notes.** %s\n", n)
	}
	return mdtext.Controls(b.String()) // names and notes from the user's data
}

func (r Result) rows() []experiments.Row {
	if r.Results == nil {
		return nil
	}
	return r.Results.Rows
}

// errNilResult is the error of a method called on a nil result of type
// typ (AuditResult, ...), which the function fn of this package returns.
func errNilResult(typ, fn string) error {
	return fmt.Errorf("dpnb: nil *%s: use the value returned by dpnb.%s and check its error", typ, fn)
}

// nilMarkdown is the Markdown of a nil result: the error, in italics.
func nilMarkdown(typ, fn string) string {
	return "_no result: " + errNilResult(typ, fn).Error() + "_\n"
}

// nilTable is the Table of a nil result: an empty DataFrame whose Err
// names the fix.
func nilTable(typ, fn string) dataframe.DataFrame {
	return dataframe.DataFrame{Err: errNilResult(typ, fn)}
}
