package experiments_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/featuredp/featuredp/experiments"
)

// A figure's cells are evaluated in parallel; each cell draws randomness only
// from its own seed, so the table is the same for any number of workers.
func ExampleRun() {
	cells := experiments.Grid("demo", 42, []string{"uniform"}, []float64{1, 10}, 3)
	res, err := experiments.Run(context.Background(), cells,
		func(_ context.Context, c experiments.Cell) ([]experiments.Measurement, error) {
			rng := rand.New(rand.NewPCG(c.Seed, 1))
			return []experiments.Measurement{{Metric: "draw", Value: c.X * rng.Float64()}}, nil
		},
		experiments.RunOptions{Workers: 2, Figure: "demo"})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(len(res.Rows), "rows; columns:", experiments.CoreColumns)
	fmt.Println(res.Rows[0].Method, res.Rows[0].X, res.Rows[0].Metric)
	// Output:
	// 6 rows; columns: [figure method x seed metric value]
	// uniform 1 draw
}

func ExampleSummarize() {
	res := &experiments.Results{}
	for i, v := range []float64{4, 1, 3, 2} {
		res.Rows = append(res.Rows, experiments.Row{Method: "m", X: 1, Seed: uint64(i), Metric: "mse", Value: v})
	}
	for _, s := range experiments.Summarize(res) {
		fmt.Printf("%s x=%g %s: n=%d mean=%.2f sd=%.3f median=%.2f IQR=[%.2f, %.2f]\n",
			s.Method, s.X, s.Metric, s.N, s.Mean, s.SD, s.Median, s.Q25, s.Q75)
	}
	// Output:
	// m x=1 mse: n=4 mean=2.50 sd=1.291 median=2.50 IQR=[1.75, 3.25]
}

func ExampleCellSeed() {
	a := experiments.CellSeed(1, "bcdp-fig3", "BCDP", 0.1, 0)
	b := experiments.CellSeed(1, "bcdp-fig3", "BCDP", 0.1, 1)
	fmt.Println(a == experiments.CellSeed(1, "bcdp-fig3", "BCDP", 0.1, 0), a != b)
	// Output: true true
}
