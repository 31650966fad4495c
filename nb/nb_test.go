package nb

import (
	"strings"
	"testing"
	"time"

	"github.com/featuredp/featuredp/experiments"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

func TestTableHTML(t *testing.T) {
	df := dataframe.New(
		series.New([]string{"a<b", "c"}, series.String, "name"),
		series.New([]float64{1.0 / 3, 2}, series.Float, "value"),
	)
	s, err := TableHTML(df, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<th", "a&lt;b", "0.333333", ">value<"} {
		if !strings.Contains(s, want) {
			t.Errorf("TableHTML output lacks %q:\n%s", want, s)
		}
	}
	s, err = TableHTML(df, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s, "1 more rows") || strings.Contains(s, ">c<") {
		t.Errorf("truncation not applied:\n%s", s)
	}
	bad := dataframe.DataFrame{Err: errTest}
	if _, err := TableHTML(bad, 0); err == nil {
		t.Error("TableHTML on a DataFrame with Err: want error")
	}
}

type testErr struct{}

func (testErr) Error() string { return "boom" }

var errTest = testErr{}

func TestProgressHTML(t *testing.T) {
	tests := []struct {
		done, total int
		want        string
	}{
		{0, 10, "0/10 (0%), elapsed 20s</div>"},
		{5, 10, "5/10 (50%), elapsed 20s, about 20s left"},
		{12, 10, "10/10 (100%), elapsed 20s</div>"},
		{3, 0, "0/1 (0%)"},
	}
	for _, tc := range tests {
		if got := ProgressHTML("run", tc.done, tc.total, 20*time.Second); !strings.Contains(got, tc.want) {
			t.Errorf("ProgressHTML(%d,%d) = %q, want it to contain %q", tc.done, tc.total, got, tc.want)
		}
	}
}

func TestShowOutsideKernel(t *testing.T) {
	if InKernel() {
		t.Skip("running inside a kernel")
	}
	p := plot.New()
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	if err := ShowPlot(p, 0, 0); err != nil {
		t.Errorf("ShowPlot: %v", err)
	}
	if err := ShowPlotSVG(p, 0, 0); err != nil {
		t.Errorf("ShowPlotSVG: %v", err)
	}
	if err := ShowPlot(nil, 0, 0); err == nil {
		t.Error("ShowPlot(nil): want error")
	}
	pr := NewProgress("x")
	pr.Update(1, 2)
	pr.Done()
	ShowMarkdown("# hi")
	if err := ShowResult(nil, 0); err == nil {
		t.Error("ShowResult(nil): want error")
	}
}

// TestProgressPace checks the bar's estimate on a fake clock: the command
// line's (eta.ForUnits). Cells of 2 workers: both first cells wait for a
// 60 s setup, then a cell takes 5.5 s a worker, so at 4 of 10 cells the
// time left is 6 cells at the pace since the 2nd (33 s), not at the mean
// over the setup (108 s, the old estimate). Steps: the pace since the
// first step.
func TestProgressPace(t *testing.T) {
	steps := experiments.Figure{ID: "steps-fig", Work: func(experiments.Profile, []experiments.Cell) int { return 100 }}
	for _, tc := range []struct {
		name  string
		bar   *Progress
		times []time.Duration // of Update(k, total), k = 0, 1, ...
		total int
		want  string
	}{
		{"cells", NewFigureProgress(experiments.Figure{ID: "cells-fig"}, 2),
			[]time.Duration{0, 60 * time.Second, 61 * time.Second, 66 * time.Second, 72 * time.Second}, 10,
			"4/10 (40%), elapsed 1m12s, about 33s left"},
		{"steps", NewFigureProgress(steps, 2),
			[]time.Duration{0, 60 * time.Second, 70 * time.Second}, 12,
			"2/12 (17%), elapsed 1m10s, about 1m40s left"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			var now time.Time
			tc.bar.now = func() time.Time { return now }
			var got string
			for k, at := range tc.times {
				now = start.Add(at)
				got = tc.bar.html(k, tc.total)
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("bar %q, want it to contain %q", got, tc.want)
			}
		})
	}
}
