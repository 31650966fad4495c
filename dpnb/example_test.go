package dpnb_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/dpnb"
	"github.com/featuredp/featuredp/experiments"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
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

// FeatureDPvsDP trains a classifier four ways on a table whose "smoker"
// column is sensitive and "age" public, and reports the calibrated noise
// multiplier per ε and the attribute-inference bound of "smoker".
func ExampleFeatureDPvsDP() {
	df, schema := exampleSmokers(1000, 3, 4)
	res, err := dpnb.FeatureDPvsDP(context.Background(), df, schema, dpnb.FeatureDPOptions{
		Encode: data.EncodeOptions{DropFirst: true, Scale: data.MinMax, Bounds: map[string]data.Range{"age": {Lo: 20, Hi: 80}}},
		Eps:    []float64{0.5, 4}, Seeds: 2,
		Ball: map[string]float64{"smoker": 0.5}, // the best guess of smoker from age and the label: public knowledge, stated
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for k, e := range res.Eps {
		fmt.Printf("ε = %g: z = %.2f\n", e, res.Multipliers[k])
	}
	b := res.Bounds[0]
	fmt.Printf("%s: any guess succeeds with probability ≤ %.3f at ε = %g (prior mass %.1f)\n", b.Column, b.Bound, b.Eps, b.Ball)
	fmt.Println(res.Table().Nrow(), "rows: 4 methods × 2 ε")
	// Output:
	// ε = 0.5: z = 35.50
	// ε = 4: z = 5.46
	// smoker: any guess succeeds with probability ≤ 0.824 at ε = 0.5 (prior mass 0.5)
	// 8 rows: 4 methods × 2 ε
}

// CorrDPvsSemiVsStandard estimates how much the public columns reveal of
// the sensitive ones (their TV) and compares correlation-aware noise with
// Semi and Standard.
func ExampleCorrDPvsSemiVsStandard() {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 500
	region, smoker, y := make([]string, n), make([]string, n), make([]string, n)
	age := make([]float64, n)
	for i := range n {
		north := rng.IntN(2) == 0
		region[i], age[i] = map[bool]string{true: "north", false: "south"}[north], 20+60*rng.Float64()
		s := rng.Float64() < map[bool]float64{true: 0.5, false: 0.2}[north] // region drives smoking
		smoker[i], y[i] = map[bool]string{true: "yes", false: "no"}[s], "no"
		if -2+0.04*age[i]+map[bool]float64{true: 1.5}[s] > 0.3*rng.NormFloat64() {
			y[i] = "yes"
		}
	}
	df := dataframe.New(series.New(region, series.String, "region"), series.New(age, series.Float, "age"),
		series.New(smoker, series.String, "smoker"), series.New(y, series.String, "y"))
	schema := data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "region", Role: data.Public, Kind: data.Categorical, Levels: []string{"north", "south"}},
		{Name: "age", Role: data.Public, Kind: data.Continuous},
		{Name: "smoker", Role: data.Sensitive, Kind: data.Categorical, Levels: []string{"no", "yes"}},
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"no", "yes"}},
	}}
	res, err := dpnb.CorrDPvsSemiVsStandard(context.Background(), df, schema, dpnb.CorrDPOptions{
		Eps: []float64{1}, Seeds: 1, Steps: 100, C: 0.01, Workers: 1,
		Encode: data.EncodeOptions{Scale: data.MinMax, Bounds: map[string]data.Range{"age": {Lo: 20, Hi: 80}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("plug-in TV of region: %.2f\n", res.TVReport.Features[0].TV)
	fmt.Println(len(res.Results.Rows), "rows: CorrDP, Semi, Standard, NonPrivate at ε = 1")
	// Output:
	// plug-in TV of region: 0.35
	// 4 rows: CorrDP, Semi, Standard, NonPrivate at ε = 1
}

// BCDPMeanEstimation allocates an ε-LDP budget across columns so that the
// sensitive ones get their stronger level, and compares the error with the
// baseline that gives every column the strictest level.
func ExampleBCDPMeanEstimation() {
	rng := rand.New(rand.NewPCG(7, 1))
	n := 2000
	hiv, age := make([]float64, n), make([]float64, n)
	for i := range n {
		hiv[i] = map[bool]float64{true: 1, false: -1}[rng.Float64() < 0.1] // coded ±1
		age[i] = 18 + 70*rng.Float64()
	}
	df := dataframe.New(series.New(hiv, series.Float, "hiv"), series.New(age, series.Float, "age"))
	schema := data.Schema{Task: data.Unsupervised, Columns: []data.Column{
		{Name: "hiv", Role: data.Sensitive}, {Name: "age", Role: data.Public},
	}}
	r, err := dpnb.BCDPMeanEstimation(context.Background(), df, schema, dpnb.BCDPMeanOptions{
		Levels: map[string]float64{"hiv": 0.5}, Eps: 3, Q: 0.01, Trials: 50, Seed: 1,
		Bounds: map[string]data.Range{"hiv": {Lo: -1, Hi: 1}, "age": {Lo: 18, Hi: 88}}, // public ranges
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("levels c = %.2f, baseline %.2f on every column\n", r.C, r.Baseline)
	fmt.Println("columns:", r.Columns)
	// Output:
	// levels c = [0.33 3.00], baseline 0.50 on every column
	// columns: [hiv age]
}
