package dpnb

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/experiments"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

var pngMagic = []byte("\x89PNG\r\n\x1a\n")

// demoSummaries has two methods over x = 1, 10, 100 with mean 1/x-like
// values and non-zero spreads, and a second metric.
func demoSummaries() []experiments.Summary {
	res := &experiments.Results{}
	for _, m := range []string{"CorrDP", "Standard"} {
		for _, x := range []float64{1, 10, 100} {
			for rep := 0; rep < 5; rep++ {
				v := 1/x + 0.05*float64(rep)
				if m == "Standard" {
					v *= 2
				}
				res.Rows = append(res.Rows,
					experiments.Row{Method: m, X: x, Seed: uint64(rep), Metric: "mse", Value: v},
					experiments.Row{Method: m, X: x, Seed: uint64(rep), Metric: "acc", Value: 1 - v/3})
			}
		}
	}
	return experiments.Summarize(res)
}

func checkRenders(t *testing.T, p *plot.Plot) {
	t.Helper()
	png, err := PNGBytes(p)
	if err != nil {
		t.Fatalf("PNG: %v", err)
	}
	if !bytes.HasPrefix(png, pngMagic) || len(png) < 10000 {
		t.Fatalf("PNG: %d bytes, prefix %q", len(png), png[:min(8, len(png))])
	}
	svg, err := SVGBytes(p)
	if err != nil {
		t.Fatalf("SVG: %v", err)
	}
	if !bytes.Contains(svg, []byte("<svg")) || len(svg) < 2000 {
		t.Fatalf("SVG: %d bytes", len(svg))
	}
}

func TestLinePlotRenders(t *testing.T) {
	cases := []struct {
		name string
		opts LineOptions
	}{
		{"sd linear", LineOptions{Title: "t", XLabel: "x", YLabel: "y", Metric: "mse"}},
		{"iqr log-log", LineOptions{Metric: "mse", LogX: true, LogY: true, Band: BandIQR, Legend: LegendTopLeft}},
		{"none logx", LineOptions{Metric: "acc", LogX: true, Band: BandNone, Legend: LegendBottomRight}},
		// mean − SD < 0 on a log axis: band clipped, no error.
		{"sd log-y clipped band", LineOptions{Metric: "mse", LogY: true, Band: BandSD}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := LinePlot(demoSummaries(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkRenders(t, p)
		})
	}
}

func TestLinePlotErrors(t *testing.T) {
	neg := []experiments.Summary{
		{Method: "m", X: 0, Metric: "v", N: 1, Mean: 1},
		{Method: "m", X: 1, Metric: "v", N: 1, Mean: -1},
	}
	nan := []experiments.Summary{{Method: "m", X: 1, Metric: "v", Mean: math.NaN()}}
	cases := []struct {
		name string
		sums []experiments.Summary
		opts LineOptions
		want string
	}{
		{"log x zero", neg, LineOptions{LogX: true}, "log x axis needs positive x"},
		{"log y negative", neg[1:], LineOptions{LogY: true}, "log y axis needs positive values"},
		{"several metrics", demoSummaries(), LineOptions{}, "several metrics"},
		{"unknown metric", demoSummaries(), LineOptions{Metric: "f1"}, `no summaries for metric "f1"`},
		{"empty", nil, LineOptions{}, "no summaries"},
		{"all NaN", nan, LineOptions{}, "no finite values"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LinePlot(tc.sums, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestRenderRecoversFromLibraryPanic(t *testing.T) {
	p, err := LinePlot([]experiments.Summary{{Method: "m", X: -1, Metric: "v", Mean: 1}, {Method: "m", X: 1, Metric: "v", Mean: 2}}, LineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.X.Scale = plot.LogScale{} // set by hand, bypassing LinePlot's checks
	if _, err := PNGBytes(p); err == nil {
		t.Fatal("expected an error, not a panic")
	}
	if _, err := SVGBytes(nil); err == nil {
		t.Fatal("nil plot: expected an error")
	}
}

func TestBarPlot(t *testing.T) {
	for _, band := range []Band{BandSD, BandIQR, BandNone} {
		p, err := BarPlot(demoSummaries(), BarOptions{Title: "bars", Metric: "acc", Band: band, XFormat: func(x float64) string { return "ε=" + formatTick(x) }})
		if err != nil {
			t.Fatal(err)
		}
		checkRenders(t, p)
	}
	if _, err := BarPlot(demoSummaries(), BarOptions{}); err == nil {
		t.Fatal("several metrics: expected an error")
	}
}

func TestSaveFiles(t *testing.T) {
	p, err := LinePlot(demoSummaries(), LineOptions{Metric: "mse", LogX: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := SavePNG(p, filepath.Join(dir, "a.png"), 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := SaveSVG(p, filepath.Join(dir, "a.svg"), 0, 0); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "a.png"))
	if err != nil || !bytes.HasPrefix(b, pngMagic) {
		t.Fatalf("png file: %v", err)
	}
	if err := SavePNG(p, filepath.Join(dir, "missing", "a.png"), 0, 0); err == nil {
		t.Fatal("expected an error for a missing directory")
	}
}

// Saving a figure over a symbolic link replaces the link, never writes
// through it: on the old code (os.WriteFile) the file the link named was
// overwritten with the PNG.
func TestSaveDoesNotFollowLinks(t *testing.T) {
	p, err := LinePlot(demoSummaries(), LineOptions{Metric: "mse", LogX: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keep, link := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "fig.png")
	if err := os.WriteFile(keep, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(keep, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	if err := SavePNG(p, link, 0, 0); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(keep); string(b) != "keep" {
		t.Errorf("the linked file was overwritten: %d bytes", len(b))
	}
	if fi, err := os.Lstat(link); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("fig.png is not a new regular file: %v, %v", fi, err)
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(min, max float64) []string {
		var out []string
		for _, tk := range (logTicks{}).Ticks(min, max) {
			if tk.Label != "" && tk.Value >= min && tk.Value <= max {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	cases := []struct {
		min, max float64
		want     string
	}{
		{10, 1e4, "10 100 1000 1e4"},
		{2, 9, "2 5"},
		{7.2, 8.1, "7.2 7.6 8.0"},
		{1e-12, 1e12, "1e-12 1e-9 1e-6 0.001 1 1000 1e6 1e9 1e12"},
	}
	for _, tc := range cases {
		if got := strings.Join(labels(tc.min, tc.max), " "); got != tc.want {
			t.Errorf("[%g, %g]: labels %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
	if len((logTicks{}).Ticks(0, 1)) != 0 {
		t.Error("non-positive range should give no ticks")
	}
}

func TestPaperVsRun(t *testing.T) {
	got := PaperVsRun([]Comparison{
		{Quantity: "ε at T=2250", Paper: 7.32911117143, Ours: 7.329111171437147, Note: "Opacus"},
		{Quantity: "acc | adult", Paper: 0.8, Ours: 0.78, Note: "multi\nline"},
		{Quantity: "missing", Paper: 1, Ours: math.NaN()},
		{Quantity: "zero", Paper: 0, Ours: 0.5},
		{Quantity: "equal", Paper: 2, Ours: 2},
	})
	want := "| Quantity | Paper | This run | Rel. diff | Verdict | Note |\n" +
		"|---|---:|---:|---:|---|---|\n" +
		"| ε at T=2250 | 7.329111171 | 7.329111171 | +9.8e-11% | agrees (±10%) | Opacus |\n" +
		"| acc \\| adult | 0.8 | 0.78 | -2.50% | agrees (±10%) | multi line |\n" +
		"| missing | 1 | — | — | — |  |\n" +
		"| zero | 0 | 0.5 | — | disagrees (±10%) |  |\n" +
		"| equal | 2 | 2 | 0% | agrees (±10%) |  |\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if PaperVsRun(nil) != "" {
		t.Error("no rows should give an empty string")
	}
}

func TestRunFigureAndResult(t *testing.T) {
	fig, ok := experiments.Lookup("accounting-eps-vs-steps")
	if !ok {
		t.Fatal("accounting-eps-vs-steps not registered")
	}
	calls := 0
	r, err := RunFigure(context.Background(), fig, experiments.Quick, experiments.Env{Workers: 2}, func(done, total int) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || len(r.Results.Rows) == 0 || len(r.Summary) == 0 {
		t.Fatalf("calls=%d rows=%d", calls, len(r.Results.Rows))
	}
	if nr, _ := r.Table().Dims(); nr != len(r.Summary) {
		t.Errorf("table rows %d != summaries %d", nr, len(r.Summary))
	}
	p, err := r.Plot()
	if err != nil {
		t.Fatal(err)
	}
	checkRenders(t, p)
	md := r.Markdown()
	for _, want := range []string{"## accounting-eps-vs-steps", "profile: quick", "| R1: ε, z=1.5, q=0.04, T=2250, improved | 7.329111171 | 7.329111171 |", "**Notes.**", "**Settings.**"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	for _, c := range r.Comparisons() {
		if d := math.Abs(c.RelDiff()); !(d < 1e-6) {
			t.Errorf("%s: paper %v ours %v", c.Quantity, c.Paper, c.Ours)
		}
	}
	if _, err := RunFigure(context.Background(), fig, "bogus", experiments.Env{}, nil); err == nil {
		t.Error("bad profile: expected an error")
	}
}

func TestResultPlotKinds(t *testing.T) {
	res := &experiments.Results{}
	for _, m := range []string{"a", "b"} {
		for _, x := range []float64{0.5, 1, 2} {
			for s := 0; s < 4; s++ {
				res.Rows = append(res.Rows, experiments.Row{Method: m, X: x, Seed: uint64(s), Metric: "mse", Value: x + float64(s)})
			}
		}
	}
	for _, kind := range []experiments.PlotKind{experiments.LinesSD, experiments.LinesQuantile, experiments.GroupedBars} {
		r := Result{Figure: experiments.Figure{ID: "x", Title: kind.String(), Plot: kind}, Results: res, Summary: experiments.Summarize(res)}
		p, err := r.Plot()
		if err != nil {
			t.Fatalf("%v: %v", kind, err)
		}
		checkRenders(t, p)
		if strings.Contains(r.Markdown(), "Paper vs this run") {
			t.Error("no paper values: no comparison table expected")
		}
	}
}

func TestLegendAuto(t *testing.T) {
	line := func(pairs ...float64) plotter.XYs {
		var out plotter.XYs
		for i := 0; i+1 < len(pairs); i += 2 {
			out = append(out, plotter.XY{X: pairs[i], Y: pairs[i+1]})
		}
		return out
	}
	cases := []struct {
		name string
		xys  plotter.XYs
		want LegendPos
	}{
		{"increasing", line(1, 1, 2, 2, 3, 3), LegendTopLeft},
		{"decreasing", line(1, 3, 2, 2, 3, 1), LegendTopRight},
		{"V shape", line(1, 3, 2, 1, 3, 3), LegendBottomRight},
		{"zigzag through all corners", line(1, 1, 1.01, 3, 2, 2, 2.99, 3, 3, 1), LegendRight},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPlot("", "", "")
			p.Legend.Add("method")
			if got := freeCorner(p, densify(tc.xys, false, false), false, false); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	// Through LinePlot: an increasing curve gets its legend at the top left.
	p, err := LinePlot([]experiments.Summary{{Method: "m", X: 1, Metric: "v", Mean: 1}, {Method: "m", X: 2, Metric: "v", Mean: 2}}, LineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Legend.Top || !p.Legend.Left {
		t.Errorf("legend top=%v left=%v, want top left", p.Legend.Top, p.Legend.Left)
	}
}

// A figure with PanelBy draws one panel per value, titled with it, and the
// panels' curves no longer carry the panel's group.
func TestResultPanels(t *testing.T) {
	fig := experiments.Figure{ID: "x-panels", Paper: "x", Title: "acc", GroupBy: []string{"dataset"}, PanelBy: "dataset"}
	var sums []experiments.Summary
	for _, ds := range []string{"purchase", "fmnist"} {
		for _, m := range []string{"DP", "FDP"} {
			for _, x := range []float64{1, 2} {
				sums = append(sums, experiments.Summary{Method: m, Group: "dataset=" + ds, X: x, Metric: "accuracy", Mean: 0.5 + x/10, N: 1})
			}
		}
	}
	r := Result{Figure: fig, Summary: sums}
	panels, err := r.Panels()
	if err != nil {
		t.Fatal(err)
	}
	if len(panels) != 2 || panels[0].Title.Text != "acc — purchase" || panels[1].Title.Text != "acc — fmnist" {
		t.Fatalf("%d panels", len(panels))
	}
	if b, err := RenderPanelsPNG(panels); err != nil || len(b) < 1000 {
		t.Fatalf("PNG: %v", err)
	}
	if err := SavePanels(panels, filepath.Join(t.TempDir(), "x.gif")); err == nil {
		t.Error("a .gif path accepted")
	}
	r.Summary[0].Group = "mode=paper"
	if _, err := r.Panels(); err == nil || !strings.Contains(err.Error(), `no "dataset"`) {
		t.Errorf("summary without the panel key: %v", err)
	}
}

func TestAudit(t *testing.T) {
	r, err := Audit(context.Background(), AuditOptions{Only: []string{"laplace", "bcdp-duchi"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Records) != 2 || !strings.Contains(r.Markdown(), "| laplace |") || r.Table().Nrow() != 2 {
		t.Errorf("%s", r.Markdown())
	}
	if _, err := r.Plot(); err != nil {
		t.Fatal(err)
	}
	if _, err := Audit(context.Background(), AuditOptions{Only: []string{"nope"}}); err == nil {
		t.Error("unknown mechanism accepted")
	}
}
