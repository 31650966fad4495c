package audit

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
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
	if lb := EpsilonLB(same0, same1, 0, 0.95); lb > 0.2 {
		t.Errorf("identical distributions: ε_lb = %v", lb)
	}
	lb := EpsilonLB(far0, far1, 0, 0.95)
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
