package audit

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// Every registered audit at a fixed seed: ε_lb ≤ claimed ε for the real
// mechanism, and the broken control flagged.
func TestRegisteredAudits(t *testing.T) {
	specs := All()
	if len(specs) < 3 {
		t.Fatalf("%d audits registered", len(specs))
	}
	for _, s := range specs {
		t.Run(s.Name, func(t *testing.T) {
			r, err := Run(context.Background(), s, Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: claimed ε %.3f, ε_lb %.3f, control ε_lb %.3f, inconclusive %v", s.Name, r.ClaimedEpsilon, r.EpsilonLB, r.ControlEpsilonLB, r.Inconclusive)
			if r.Inconclusive != (r.ClaimedEpsilon >= r.MaxDetectable) || !(r.EpsilonLB <= r.MaxDetectable) {
				t.Errorf("claimed %v, ε_lb %v, MaxDetectable %v: inconclusive %v", r.ClaimedEpsilon, r.EpsilonLB, r.MaxDetectable, r.Inconclusive)
			}
			if r.EpsilonLB > r.ClaimedEpsilon {
				t.Errorf("ε_lb %.3f > claimed %.3f", r.EpsilonLB, r.ClaimedEpsilon)
			}
			if !r.ControlFlagged {
				t.Errorf("control (%s) not flagged: ε_lb %.3f ≤ claimed %.3f", s.Broken, r.ControlEpsilonLB, r.ClaimedEpsilon)
			}
		})
	}
}

// EpsilonLB on exact samples: two identical distributions give 0; two
// well-separated ones give a bound that grows with the sample size, and
// never exceeds log(n) (the resolution of n trials).
func TestEpsilonLB(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	same0, same1, far0, far1 := make([]float64, 4000), make([]float64, 4000), make([]float64, 4000), make([]float64, 4000)
	for i := range same0 {
		same0[i], same1[i] = rng.NormFloat64(), rng.NormFloat64()
		far0[i], far1[i] = rng.NormFloat64(), 20+rng.NormFloat64()
	}
	if lb, err := EpsilonLB(same0, same1, 0, 0.95); err != nil || lb > 0.2 {
		t.Errorf("identical distributions: ε_lb = %v", lb)
	}
	lb, err := EpsilonLB(far0, far1, 0, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if lb < 5 || lb > math.Log(2000) {
		t.Errorf("separated distributions: ε_lb = %v, want in [5, log 2000]", lb)
	}
	// Perfect separation is the most these trials can show: MaxDetectable.
	if most := MaxDetectable(4000, 0, 0.95); math.Abs(lb-most) > 1e-12 {
		t.Errorf("separated distributions: ε_lb = %v, MaxDetectable = %v", lb, most)
	}
	if got := cpUpper(0, 100, 0.025); math.Abs(got-(1-math.Pow(0.025, 0.01))) > 1e-9 {
		t.Errorf("Clopper–Pearson upper bound for 0/100: %v", got)
	}
}

// EpsilonLB accounts for δ: a mechanism that reveals the input with
// probability δ and otherwise outputs the same uniform draw on both inputs
// is (0, δ)-DP, so no sound lower bound exceeds 0. The threshold above 1
// catches the reveal with FPR 0 and FNR 1 − δ; a bound that dropped δ
// from 1 − δ − FNR turned that into ε_lb ≈ 3 (a mutant that no other
// test saw). The bound exceeds the true ε with probability at most
// 1 − confidence = 0.1% (Clopper–Pearson); the seed is fixed.
func TestEpsilonLBDelta(t *testing.T) {
	const n, delta = 4000, 0.1
	rng := rand.New(rand.NewPCG(3, 4))
	s0, s1 := make([]float64, n), make([]float64, n)
	for i := range s0 {
		s0[i], s1[i] = rng.Float64(), rng.Float64()
		if rng.Float64() < delta {
			s1[i] = 2 // the reveal
		}
	}
	if lb, err := EpsilonLB(s0, s1, delta, 0.999); err != nil || lb != 0 {
		t.Errorf("(0, %v)-DP reveal: ε_lb = %v, %v; want 0", delta, lb, err)
	}
}

// EpsilonLB on a discrete statistic: ties at the threshold count as a
// guess of D′ (v ≥ τ) for the false-positive rate, as the false-negative
// rate counts v < τ; two identical 0/1 distributions give 0. A bound that
// counted v > τ as positives left the ties out of both rates (ε_lb 4.8 on
// identical inputs, a mutant no other test saw). False failure: at most
// 1 − confidence = 0.1%; the seed is fixed.
func TestEpsilonLBTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s0, s1 := make([]float64, 4000), make([]float64, 4000)
	for i := range s0 {
		s0[i], s1[i] = float64(rng.IntN(2)), float64(rng.IntN(2))
	}
	if lb, err := EpsilonLB(s0, s1, 0, 0.999); err != nil || lb != 0 {
		t.Errorf("identical 0/1 statistics: ε_lb = %v, %v; want 0", lb, err)
	}
}

// A Run flags its control only if the control's ε_lb exceeds the claim, and
// is inconclusive when the claim is at or above what its trials can show:
// with an honest control (the real mechanism) nothing is flagged and the
// record is not OK (false failure: the honest ε_lb exceeds the claim with
// probability at most 1 − confidence = 0.1%; the seed is fixed); with a
// claim of 20 at 200 trials (MaxDetectable ≈ 3.3) the record says
// inconclusive. Mutants that flagged every control, or never said
// inconclusive, survived every other test.
func TestRunFlagsAndInconclusive(t *testing.T) {
	honest := laplaceSpec()
	honest.Name, honest.Control, honest.Broken = "laplace-honest-control", honest.Real, "none (the real mechanism)"
	r, err := Run(context.Background(), honest, Options{Seed: 3, Trials: 2000, Confidence: 0.999})
	if err != nil {
		t.Fatal(err)
	}
	if r.ControlFlagged || r.OK() {
		t.Errorf("honest control: control ε_lb %v against claimed %v, flagged %v, OK %v; want not flagged, not OK", r.ControlEpsilonLB, r.ControlClaimedEpsilon, r.ControlFlagged, r.OK())
	}
	big := laplaceSpec()
	big.Name, big.Claimed = "laplace-claim-20", 20
	if r, err = Run(context.Background(), big, Options{Seed: 3, Trials: 200}); err != nil {
		t.Fatal(err)
	}
	if !r.Inconclusive || r.MaxDetectable > big.Claimed {
		t.Errorf("claim 20 at 200 trials: MaxDetectable %v, inconclusive %v; want inconclusive", r.MaxDetectable, r.Inconclusive)
	}
}

func TestRunBadOptions(t *testing.T) {
	s := laplaceSpec()
	// Trials beyond MaxTrials used to be allocated (2·Trials statistics):
	// 10⁹ reached 7.9 GB in 8 s. They are refused before any allocation.
	for _, o := range []Options{{Trials: 10}, {Trials: -5}, {Trials: MaxTrials + 1}, {Trials: 1_000_000_000}, {Confidence: 1}, {Confidence: -1},
		{Workers: MaxWorkers + 1}} {
		if _, err := Run(context.Background(), s, o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// A spec without trial functions, or with a bad claim, used to reach the
// workers: a nil Real crashed the process from a goroutine (no recover
// possible). Run now refuses it with an error naming what is missing.
func TestRunBadSpec(t *testing.T) {
	good := laplaceSpec()
	noReal, noCtrl, badEps, badDelta := good, good, good, good
	noReal.Real, noCtrl.Control, badEps.Claimed, badDelta.Delta = nil, nil, math.NaN(), 1
	for _, s := range []Spec{{}, noReal, noCtrl, badEps, badDelta} {
		if _, err := Run(context.Background(), s, Options{}); err == nil {
			t.Errorf("spec %q (claimed %v, delta %v) accepted", s.Name, s.Claimed, s.Delta)
		}
	}
}

// A failing trial function used to have every one of its 2·Trials errors
// joined (errors.Join copies, so quadratic): at 200,000 trials Run took
// 9 minutes and returned a 2 MB message. Now the first failing trial
// stops the dispatch and is the error, whatever the worker count.
func TestRunFailingTrial(t *testing.T) {
	s := laplaceSpec()
	s.Real = func(_ *rand.Rand, present bool) (float64, error) {
		if present {
			return 0, errors.New("boom")
		}
		return 0, nil
	}
	for _, w := range []int{1, 2, 7} {
		start := time.Now()
		_, err := Run(context.Background(), s, Options{Trials: 200_000, Workers: w})
		if err == nil || !strings.Contains(err.Error(), "trial 200000: boom") || len(err.Error()) > 200 {
			t.Fatalf("workers %d: err = %.300v", w, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("workers %d: a failing mechanism took %v", w, d)
		}
	}
}

// EpsilonLB used to index an empty pool (panic) on samples of one value,
// and pass NaN statistics or a confidence outside (0, 1) to the
// quantile; each is now an error.
func TestEpsilonLBBadInput(t *testing.T) {
	two := []float64{0, 1}
	for _, c := range []struct {
		s0, s1       []float64
		delta, confi float64
	}{{nil, two, 0, 0.95}, {[]float64{1}, []float64{2}, 0, 0.95}, {two, two, -1, 0.95}, {two, two, 1, 0.95},
		{two, two, 0, 1}, {two, two, 0, math.NaN()}, {[]float64{0, math.NaN()}, two, 0, 0.95}} {
		if lb, err := EpsilonLB(c.s0, c.s1, c.delta, c.confi); err == nil {
			t.Errorf("EpsilonLB(%v, %v, %v, %v) = %v, want an error", c.s0, c.s1, c.delta, c.confi, lb)
		}
	}
}

// The result is the same for any worker count: every trial has its own
// stream.
func TestRunWorkersIndependent(t *testing.T) {
	var first Record
	for i, w := range []int{1, 2, 7} {
		r, err := Run(context.Background(), laplaceSpec(), Options{Seed: 5, Trials: 2000, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = r
		} else if r != first {
			t.Errorf("workers %d: %+v, workers 1: %+v", w, r, first)
		}
	}
}

// A panicking trial function used to crash the process from a worker
// goroutine (no recover possible by the caller, e.g. a notebook kernel
// running dpnb.Audit); it is now the error of that trial.
func TestRunPanickingTrial(t *testing.T) {
	s := laplaceSpec()
	s.Control = func(*rand.Rand, bool) (float64, error) {
		var m map[string]int
		m["x"]++
		return 0, nil
	}
	_, err := Run(context.Background(), s, Options{Trials: MinTrials})
	if err == nil || !strings.Contains(err.Error(), "(control): trial 0: panic: assignment to entry in nil map") {
		t.Fatalf("err = %.300v", err)
	}
}
