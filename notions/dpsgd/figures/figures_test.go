package figures

import (
	"context"
	"math"
	"testing"

	"github.com/featuredp/featuredp/experiments"
)

func TestAccountingEpsVsSteps(t *testing.T) {
	f, ok := experiments.Lookup("accounting-eps-vs-steps")
	if !ok {
		t.Fatal("figure not registered")
	}
	res, err := f.Execute(context.Background(), experiments.Quick, experiments.Env{Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sums := experiments.Summarize(res)
	tol := map[string]float64{"improved": 1e-9, "classic": 1e-5}
	for i, pv := range f.PaperValues {
		got, ok := pv.Ours(sums)
		if !ok {
			t.Fatalf("paper value %q: no matching summary", pv.Quantity)
		}
		rel := math.Abs(got-pv.Value) / pv.Value
		if lim := tol[[]string{"improved", "classic"}[i]]; rel > lim {
			t.Errorf("%s: got %.12g, want %.12g (rel %.2g > %g)", pv.Quantity, got, pv.Value, rel, lim)
		}
	}
	// ε grows with T and the classic conversion is never tighter.
	prev := map[string]float64{}
	for _, s := range sums {
		if s.Mean < prev[s.Method] {
			t.Errorf("%s: ε decreases at T=%g", s.Method, s.X)
		}
		prev[s.Method] = s.Mean
	}
	for _, row := range res.Rows {
		if !hasNumber(row, "order") || row.Extra["conversion"] == "" {
			t.Fatalf("row lacks extra columns: %+v", row)
		}
	}
	for _, p := range []experiments.Profile{experiments.Quick, experiments.Full} {
		xs := epsVsStepsGrid(p)
		if xs[0] != 10 || !containsFloat(xs, 2250) {
			t.Errorf("%s grid %v", p, xs)
		}
	}
	if xs := epsVsStepsGrid(experiments.Full); xs[len(xs)-1] != 1e5 {
		t.Errorf("full grid ends at %g", xs[len(xs)-1])
	}
}

func containsFloat(xs []float64, v float64) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}

func TestAccountingCalibration(t *testing.T) {
	f, ok := experiments.Lookup("accounting-calibration")
	if !ok {
		t.Fatal("figure not registered")
	}
	res, err := f.Execute(context.Background(), experiments.Quick, experiments.Env{Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sums := experiments.Summarize(res)
	pv := f.PaperValues[0]
	if got, ok := pv.Ours(sums); !ok || got != pv.Value {
		t.Errorf("%s: got %v (%v), want %v", pv.Quantity, got, ok, pv.Value)
	}
	// The tight calibration reaches the target; Opacus' stays within 0.01 below it.
	for _, s := range sums {
		if s.Metric != "epsilon_achieved" {
			continue
		}
		if s.Mean > s.X*(1+1e-9) || s.Mean < s.X-0.0100001 {
			t.Errorf("%s at target %g: achieved ε %v", s.Method, s.X, s.Mean)
		}
	}
}

func hasNumber(row experiments.Row, key string) bool {
	_, ok := row.Number(key)
	return ok
}
