package dpnb

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"
	bcdpseries "github.com/go-gota/gota/series"
)

// bcdpTestFrame: n users, two sensitive ±1 columns and three others in
// [0, 10], correlated through a shared bit with probability q.
func bcdpTestFrame(n int, q float64) dataframe.DataFrame {
	rng := rand.New(rand.NewPCG(4, 2))
	cols := make([][]float64, 5)
	for j := range cols {
		cols[j] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		shared := rng.Float64() < q
		b := float64(2*rng.IntN(2) - 1)
		for j := range cols {
			v := b
			if !shared {
				v = float64(2*rng.IntN(2) - 1)
			}
			if j >= 2 {
				v = 5 + 5*v*rng.Float64()
			}
			cols[j][i] = v
		}
	}
	return dataframe.New(
		bcdpseries.New(cols[0], bcdpseries.Float, "hiv"), bcdpseries.New(cols[1], bcdpseries.Float, "smoker"),
		bcdpseries.New(cols[2], bcdpseries.Float, "age"), bcdpseries.New(cols[3], bcdpseries.Float, "bmi"),
		bcdpseries.New(cols[4], bcdpseries.Float, "income"))
}

func bcdpTestConfig() BCDPMeanConfig {
	return BCDPMeanConfig{
		Levels: map[string]float64{"hiv": 0.2, "smoker": 0.2, "age": 2, "bmi": 2, "income": 2},
		Eps:    2, Q: 0.01, Trials: 60, Seed: 1,
		Bounds: map[string][2]float64{"age": {0, 10}, "bmi": {0, 10}, "income": {0, 10}},
	}
}

func TestBCDPMeanEstimation(t *testing.T) {
	df := bcdpTestFrame(4000, 0.01)
	r, err := BCDPMeanEstimation(df, bcdpTestConfig())
	if err != nil {
		t.Fatal(err)
	}
	if r.Columns[0] != "hiv" || r.C[0] > 0.2 || r.LDPLevel > 2 || r.Baseline != 0.2 {
		t.Errorf("allocation %v, LDP %v, baseline %v", r.C, r.LDPLevel, r.Baseline)
	}
	// Predicted (unprojected) vs Monte Carlo (box-projected): same order of
	// magnitude, and BCDP beats the baseline at small q.
	pb, pl, mb, ml := bcdpSum(r.Predicted), bcdpSum(r.PredictedBaseline), bcdpSum(r.MC), bcdpSum(r.MCBaseline)
	if !(pb < pl && mb < ml) {
		t.Errorf("BCDP should beat the baseline at q = 0.01: predicted %v vs %v, MC %v vs %v", pb, pl, mb, ml)
	}
	if mb > 1.5*pb || mb < pb/5 {
		t.Errorf("MC %v far from predicted %v", mb, pb)
	}
	if tb := r.Table(); tb.Nrow() != 5 || tb.Ncol() != 10 {
		t.Errorf("table %d×%d", tb.Nrow(), tb.Ncol())
	}
	if _, err := r.Plot(); err != nil {
		t.Error(err)
	}
	if md := r.Markdown(); !strings.Contains(md, "Allocation") {
		t.Error(md)
	}
	r2, _ := BCDPMeanEstimation(df, bcdpTestConfig())
	for j := range r.MC {
		if r.MC[j] != r2.MC[j] {
			t.Fatal("not deterministic")
		}
	}
	// Bad input.
	bad := []func(c *BCDPMeanConfig){
		func(c *BCDPMeanConfig) { c.Levels = nil },
		func(c *BCDPMeanConfig) { c.Levels = map[string]float64{"nope": 1} },
		func(c *BCDPMeanConfig) { c.Eps = 0 },
		func(c *BCDPMeanConfig) { c.Q = 2 },
		func(c *BCDPMeanConfig) { delete(c.Bounds, "age") }, // age is outside [−1, 1]
		func(c *BCDPMeanConfig) { c.Bounds["age"] = [2]float64{3, 1} },
		func(c *BCDPMeanConfig) { c.Trials = -1 },
	}
	for i, f := range bad {
		c := bcdpTestConfig()
		f(&c)
		if _, err := BCDPMeanEstimation(df, c); err == nil {
			t.Errorf("bad config %d accepted", i)
		}
	}
	nan := dataframe.New(bcdpseries.New([]float64{0.5, math.NaN()}, bcdpseries.Float, "hiv"))
	if _, err := BCDPMeanEstimation(nan, BCDPMeanConfig{Levels: map[string]float64{"hiv": 1}, Eps: 1}); err == nil {
		t.Error("NaN accepted")
	}
}

func ExampleBCDPMeanEstimation() {
	df := bcdpTestFrame(2000, 0.01)
	r, err := BCDPMeanEstimation(df, BCDPMeanConfig{
		Levels: map[string]float64{"hiv": 0.2, "smoker": 0.2, "age": 2, "bmi": 2, "income": 2},
		Eps:    2, Q: 0.01, Trials: 20, Seed: 1,
		Bounds: map[string][2]float64{"age": {0, 10}, "bmi": {0, 10}, "income": {0, 10}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("c = %.3f\n", r.C)
	fmt.Printf("BCDP beats the min-δ baseline: %v\n", bcdpSum(r.MC) < bcdpSum(r.MCBaseline))
	// Output:
	// c = [0.138 0.138 2.000 2.000 2.000]
	// BCDP beats the min-δ baseline: true
}
