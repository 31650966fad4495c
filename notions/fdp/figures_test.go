package fdp

import (
	"context"
	"math"
	"testing"

	"github.com/featuredp/featuredp/experiments"
)

func TestFiguresRegistered(t *testing.T) {
	for _, id := range []string{"fdp-table1", "fdp-theory", "fdp-labeldp", "fdp-fig4", "fdp-fig5"} {
		f, ok := experiments.Lookup(id)
		if !ok {
			t.Fatalf("%s not registered", id)
		}
		if err := f.Validate(); err != nil {
			t.Errorf("%s: %v", id, err)
		}
		for _, p := range []experiments.Profile{experiments.Quick, experiments.Full} {
			cells, err := f.Cells(p)
			if err != nil || len(cells) == 0 {
				t.Errorf("%s %s: %d cells, %v", id, p, len(cells), err)
			}
		}
	}
}

// P5, P6, P8 through the registered figure: Table I's ε and Opacus noise
// multipliers, and the theory figure's A12–A14 values.
func TestTable1AndTheoryFigures(t *testing.T) {
	for _, id := range []string{"fdp-table1", "fdp-theory"} {
		f, _ := experiments.Lookup(id)
		cells, _ := f.Cells(experiments.Quick)
		res, err := experiments.Run(context.Background(), cells, func(ctx context.Context, c experiments.Cell) ([]experiments.Measurement, error) {
			return f.Run(ctx, c, experiments.Env{Profile: experiments.Quick})
		}, experiments.RunOptions{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		sums := experiments.Summarize(res)
		for _, pv := range f.PaperValues {
			ours, ok := pv.Ours(sums)
			if !ok {
				t.Fatalf("%s: no value for %q", id, pv.Quantity)
			}
			tol := 1e-3
			if pv.Metric == "epsilon" && pv.Value >= 8 || pv.Value == 0.5 || pv.Value == 15.6 {
				tol = 0.02 // Table I prints targets / rounded multipliers
			}
			if math.Abs(ours-pv.Value) > tol*math.Abs(pv.Value) {
				t.Errorf("%s %q: ours %v, paper %v", id, pv.Quantity, ours, pv.Value)
			}
		}
	}
}

// A16 (E2, smoke scale): FDP-Alg1's excess risk is below DP's, and the
// single batch is worst; A8: the noise variances differ by exactly 2.
func TestLabelDPOrdering(t *testing.T) {
	f, _ := experiments.Lookup("fdp-labeldp")
	mean := map[string]float64{}
	vars := map[string]float64{}
	env := experiments.Env{Profile: experiments.Quick, Memo: experiments.NewMemo(0)}
	for rep := range 5 {
		for _, m := range []Method{DP, Alg1, SingleBatch} {
			c := experiments.Cell{Method: string(m), X: 1000, Rep: rep, Seed: experiments.CellSeed(0, "fdp-labeldp", "", 1000, rep),
				Config: labelDPCell{Method: m}}
			ms, err := f.Run(context.Background(), c, env)
			if err != nil {
				t.Fatal(err)
			}
			mean[string(m)] += ms[0].Value / 5
			vars[string(m)] = ms[0].Num["noise_var"]
		}
	}
	if !(mean["FDP-Alg1"] < mean["DP"] && mean["DP"] < mean["FDP-SingleBatch"]) {
		t.Errorf("A16 E2 ordering: %v", mean)
	}
	if r := vars["DP"] / vars["FDP-Alg1"]; math.Abs(r-2) > 1e-12 {
		t.Errorf("A8: noise variance ratio %v, want 2", r)
	}
}
