package figures

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/fdp"
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
		for _, m := range []fdp.Method{fdp.DP, fdp.Alg1, fdp.SingleBatch} {
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

// Theorem 6 overlay of fdp-labeldp: at every n of the quick profile the
// mean excess risk of Algorithm 1 run with the theorem's step size is
// below the bound the figure draws, and the runs used the step scale c* of
// the bound rows; thm6's c* minimises the bound over c.
func TestLabelDPThm6Bound(t *testing.T) {
	f, _ := experiments.Lookup("fdp-labeldp")
	res, err := f.Execute(context.Background(), experiments.Quick, experiments.Env{Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mean, bound, stepRun, stepBound := map[float64]float64{}, map[float64]float64{}, map[float64]float64{}, map[float64]float64{}
	for _, r := range res.Rows {
		switch r.Method {
		case labelDPThm6Run:
			mean[r.X] += r.Value / 5
			stepRun[r.X], _ = r.Number("step_c")
		case labelDPThm6Bound:
			bound[r.X] = r.Value
			stepBound[r.X], _ = r.Number("step_c")
		}
	}
	if len(bound) != len(e2Ns(experiments.Quick)) || len(mean) != len(bound) {
		t.Fatalf("overlay rows: %d bounds, %d runs", len(bound), len(mean))
	}
	for n, b := range bound {
		if !(mean[n] >= 0 && mean[n] <= b) || !(b > 0) || math.IsInf(b, 0) {
			t.Errorf("n = %v: mean excess risk %v, Thm 6 bound %v", n, mean[n], b)
		}
		if stepRun[n] != stepBound[n] || !(stepRun[n] > 0) {
			t.Errorf("n = %v: runs used c = %v, bound computed with c = %v", n, stepRun[n], stepBound[n])
		}
	}
	// The bound formula: c* minimises M²/c + c·G², so the bound at c* is at
	// most the bound at c*·2 and c*/2 (same T).
	_, c, b := thm6(1)
	g2 := 2 + float64(e2.d*e2.k)*(1/e2.m)*(1/e2.m)
	m := 2 * e2.radius
	at := func(c float64) float64 {
		return (m*m/c + c*g2) * (2 + math.Log(float64(e2.steps))) / math.Sqrt(float64(e2.steps))
	}
	if math.Abs(b-at(c)) > 1e-12*b || at(2*c) < b || at(c/2) < b {
		t.Errorf("thm6 bound %v at c* = %v; at 2c* %v, at c*/2 %v", b, c, at(2*c), at(c/2))
	}
}

// CriteoSignal: on the quick E4 data every non-private model beats the
// majority class, and all features are at least as good as either part
// (up to a point of noise) — the ordering behind the paper's 74% / 75%.
func TestCriteoSignal(t *testing.T) {
	lv, err := CriteoSignal(context.Background(), experiments.Quick)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", lv)
	if !(lv.All > lv.Majority && lv.Categorical > lv.Majority && lv.Numeric >= lv.Majority-0.01) {
		t.Errorf("levels %+v: a model does not beat the majority class", lv)
	}
	if lv.All < lv.Categorical-0.01 || lv.All < lv.Numeric-0.01 {
		t.Errorf("levels %+v: all features below a part", lv)
	}
}

// A12: Prop. 3 toy — no amplification by subsampling for FDP.
func TestProp3NoAmplification(t *testing.T) {
	for _, p := range []float64{0.001, 0.01, 0.1, 0.5} {
		got, s, amp, err := Prop3Toy(1, p)
		if err != nil {
			t.Fatal(err)
		}
		if got != 1 || rel(s, p*math.E/(1+math.Exp(2))) > 1e-12 {
			t.Errorf("A12 p=%v: simulator ε' = %v (s=%v), want exactly 1", p, got, s)
		}
		if !(amp < 1) {
			t.Errorf("A12 p=%v: DP amplification %v should be < 1", p, amp)
		}
	}
	p0, _ := Prop3MaxRate(1)
	p05, _ := Prop3MaxRate(0.5)
	if math.Abs(p0-0.830) > 1e-3 || math.Abs(p05-0.851) > 1e-3 {
		t.Errorf("A12 p₀(1) = %v, p₀(0.5) = %v", p0, p05)
	}
	// Above p₀ the best simulator is worse than ε, never better.
	got, _, _, _ := Prop3Toy(1, 0.95)
	if !(got > 1) {
		t.Errorf("A12 p=0.95: ε' = %v, want > 1", got)
	}
}

// A13 Monte Carlo: the histogram attack's empirical success matches the
// exact integral (not the bound) within Monte Carlo error, and stays below
// the Thm 4 bound.
func TestHistogramAttack(t *testing.T) {
	for _, c := range []struct {
		k      int
		mu     float64
		trials int
	}{{2, 1, 100000}, {100, 2, 20000}} {
		got, err := HistogramAttack(rand.New(rand.NewChaCha8([32]byte{byte(c.k)})), c.k, c.mu, c.trials)
		if err != nil {
			t.Fatal(err)
		}
		exact, _ := fdp.GaussianArgmaxSuccess(c.k, c.mu)
		bound, _ := fdp.AttributeInferenceBoundGDP(c.mu, 1/float64(c.k))
		se := math.Sqrt(exact * (1 - exact) / float64(c.trials))
		if math.Abs(got-exact) > 4*se || exact > bound {
			t.Errorf("A13 MC (K=%d, μ=%v): %v vs exact %v ± %v (bound %v)", c.k, c.mu, got, exact, se, bound)
		}
	}
}

// The reproduction's helpers refuse bad input with an error.
func TestFiguresBadInput(t *testing.T) {
	nan := math.NaN()
	for name, f := range map[string]func() error{
		"Prop3Toy ε = 0":        func() error { _, _, _, err := Prop3Toy(0, 0.1); return err },
		"Prop3Toy p = 1":        func() error { _, _, _, err := Prop3Toy(1, 1); return err },
		"Prop3MaxRate NaN":      func() error { _, err := Prop3MaxRate(nan); return err },
		"HistogramAttack nil":   func() error { _, err := HistogramAttack(nil, 2, 1, 10); return err },
		"HistogramAttack NaN μ": func() error { _, err := HistogramAttack(rand.New(rand.NewPCG(1, 1)), 2, nan, 10); return err },
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// rel returns |got − want| / |want|.
func rel(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }
