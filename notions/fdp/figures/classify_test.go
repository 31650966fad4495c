package figures

import (
	"context"
	"slices"
	"testing"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/fdp"
)

// ClassRunEps evaluates one run at the step counts of several ε; every
// (accuracy, ε) pair must equal that of a separate run at that ε.
func TestClassRunEpsMatchesSeparateRuns(t *testing.T) {
	p, err := PurchaseProblem(nil, 800, 5)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultClassConfig()
	cfg.Hidden, cfg.PretrainEpoch, cfg.Alpha, cfg.DPClip = 8, 1, 10, 1
	epss := []float64{4, 3} // unsorted on purpose
	for _, m := range []fdp.Method{fdp.NonPrivate, fdp.PublicOnly, fdp.DP,
		fdp.DPSGD, fdp.Alg1, fdp.SingleBatch} {
		accs, spent, err := ClassRunEps(context.Background(), p, m, epss, cfg, 42)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		for i, eps := range epss {
			a, e, err := ClassRun(context.Background(), p, m, eps, cfg, 42)
			if err != nil {
				t.Fatalf("%s ε = %v: %v", m, eps, err)
			}
			if a != accs[i] || !(e == spent[i] || e > 1e300 && spent[i] > 1e300) {
				t.Errorf("%s ε = %v: separate run (acc %v, ε %v), checkpoint (acc %v, ε %v)", m, eps, a, e, accs[i], spent[i])
			}
			if m == fdp.DP && !(e <= eps && e > eps-0.5) {
				t.Errorf("DP ε = %v: spent %v", eps, e)
			}
		}
	}
	if _, _, err := ClassRunEps(context.Background(), p, fdp.DP, nil, cfg, 1); err == nil {
		t.Error("no ε: want an error")
	}
	if _, _, err := ClassRunEps(context.Background(), p, fdp.DP, []float64{0.01}, cfg, 1); err == nil {
		t.Error("ε allowing no step: want an error")
	}
}

// TuneClassConfig returns one config per ε, each from the grids, and
// rejects empty grids.
func TestTuneClassConfigPerEpsilon(t *testing.T) {
	p, err := PurchaseProblem(nil, 800, 5)
	if err != nil {
		t.Fatal(err)
	}
	base := DefaultClassConfig()
	base.Hidden, base.PretrainEpoch = 8, 1
	memo := experiments.NewMemo(0) // TuneGrid below reuses TuneClassConfig's search
	alphas, clips, epss := []float64{1, 100}, []float64{0.1, 10}, []float64{3, 8}
	cfgs, err := TuneClassConfig(context.Background(), memo, p, base, alphas, clips, epss)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfgs) != len(epss) {
		t.Fatalf("%d configs for %d ε", len(cfgs), len(epss))
	}
	for i, c := range cfgs {
		if !slices.Contains(alphas, c.Alpha) || !slices.Contains(clips, c.DPClip) ||
			(c.Surrogate != SurrogateGaussian && c.Surrogate != SurrogateMean) {
			t.Errorf("ε = %v: config off the grid: %+v", epss[i], c)
		}
		if c.Hidden != base.Hidden || c.Clip != base.Clip || c.Rate != base.Rate {
			t.Errorf("ε = %v: tuning changed a fixed setting: %+v", epss[i], c)
		}
	}
	// The choice is the argmax of the validation grid at each ε.
	pts, err := TuneGrid(context.Background(), memo, p, base, alphas, clips, epss)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2*len(alphas)+len(clips) {
		t.Fatalf("%d grid points, want %d", len(pts), 2*len(alphas)+len(clips))
	}
	for i := range epss {
		bestAlg1, bestDP := -1.0, -1.0
		for _, pt := range pts {
			if len(pt.Accuracy) != len(epss) || pt.Accuracy[i] < 0 || pt.Accuracy[i] > 1 {
				t.Fatalf("grid point %+v: accuracies %v", pt.Config, pt.Accuracy)
			}
			if pt.Method == fdp.Alg1 {
				bestAlg1 = max(bestAlg1, pt.Accuracy[i])
			} else {
				bestDP = max(bestDP, pt.Accuracy[i])
			}
		}
		for _, pt := range pts {
			c := cfgs[i]
			if pt.Method == fdp.Alg1 && pt.Config.Alpha == c.Alpha && pt.Config.Surrogate == c.Surrogate && pt.Accuracy[i] != bestAlg1 {
				t.Errorf("ε = %v: chose α = %v (%s) with validation accuracy %v < best %v", epss[i], c.Alpha, c.Surrogate, pt.Accuracy[i], bestAlg1)
			}
			if pt.Method == fdp.DP && pt.Config.DPClip == c.DPClip && pt.Accuracy[i] != bestDP {
				t.Errorf("ε = %v: chose DP clip %v with validation accuracy %v < best %v", epss[i], c.DPClip, pt.Accuracy[i], bestDP)
			}
		}
	}
	if _, err := TuneClassConfig(context.Background(), memo, p, base, nil, clips, epss); err == nil {
		t.Error("empty α grid: want an error")
	}
}
