package dpnb_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/featuredp/featuredp/dpnb"
	"github.com/featuredp/featuredp/experiments"
)

// LinePlot draws summaries as one line per method with a ± SD band.
func ExampleLinePlot() {
	res := &experiments.Results{}
	for _, m := range []string{"CorrDP", "Standard"} {
		for _, eps := range []float64{0.5, 1, 2, 4} {
			for seed := 0; seed < 3; seed++ {
				mse := (1 + 0.1*float64(seed)) / (eps * eps)
				if m == "Standard" {
					mse *= 2
				}
				res.Rows = append(res.Rows, experiments.Row{Method: m, X: eps, Seed: uint64(seed), Metric: "mse", Value: mse})
			}
		}
	}
	p, err := dpnb.LinePlot(experiments.Summarize(res), dpnb.LineOptions{
		Title: "Ridge regression", XLabel: "ε", YLabel: "excess MSE", LogX: true, LogY: true, Band: dpnb.BandSD,
	})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	png, err := dpnb.PNGBytes(p)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(bytes.HasPrefix(png, []byte("\x89PNG")))
	// Output: true
}

func ExamplePaperVsRun() {
	fmt.Print(dpnb.PaperVsRun([]dpnb.Comparison{
		{Quantity: "test accuracy, ε = 1", Paper: 0.80, Ours: 0.78, Note: "5 seeds"},
	}))
	// Output:
	// | Quantity | Paper | This run | Rel. diff | Verdict | Note |
	// |---|---:|---:|---:|---|---|
	// | test accuracy, ε = 1 | 0.8 | 0.78 | -2.50% | agrees (±10%) | 5 seeds |
}

// RunFigure runs a registered figure and returns a Result that renders
// itself as a table, a plot and a markdown report.
func ExampleRunFigure() {
	fig, _ := experiments.Lookup("accounting-eps-vs-steps")
	r, err := dpnb.RunFigure(context.Background(), fig, experiments.Quick, experiments.Env{Workers: 2}, nil)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, c := range r.Comparisons() {
		fmt.Printf("%s: paper %.5f, ours %.5f\n", c.Quantity, c.Paper, c.Ours)
	}
	// Output:
	// R1: ε, z=1.5, q=0.04, T=2250, improved: paper 7.32911, ours 7.32911
	// R1: ε, z=1.5, q=0.04, T=2250, classic: paper 8.07385, ours 8.07385
}

func ExampleSummaryMarkdown() {
	sums := []experiments.Summary{
		{Method: "DP", X: 1, Metric: "accuracy", Mean: 0.71, SD: 0.02},
		{Method: "DP", X: 4, Metric: "accuracy", Mean: 0.78, SD: 0.01},
		{Method: "NonPrivate", X: 1, Metric: "accuracy", Mean: 0.8},
	}
	fmt.Print(dpnb.SummaryMarkdown(sums, "accuracy", "ε"))
	// Output:
	// | ε | DP | NonPrivate |
	// |---:|---:|---:|
	// | 1 | 0.710 ± 0.020 | 0.800 ± 0.000 |
	// | 4 | 0.780 ± 0.010 | – |
}
