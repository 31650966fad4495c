package smoothdp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

// theorem2Invariants checks Theorem 2 for the Gaussian mechanism (ℓ2
// sensitivity Δ, Lipschitz L, noise σ) after a pre-processing step of
// sensitivity η at order α: the tight bound equals the closed form
// α(√a + √b)² (a = Δ²/2σ², b = L²η²/2σ²), never exceeds the paper-style
// relaxation, grows with η, and at η = 0 is the mechanism's own ε(α).
func theorem2Invariants(sens, l, sigma, eta, alpha float64) string {
	rdp, err := GaussianRDP(sens, sigma, accounting.RelationReplaceOne)
	if err != nil {
		return err.Error()
	}
	srdp, err := GaussianSRDP(l, sigma)
	if err != nil {
		return err.Error()
	}
	tight, _, err := Theorem2Tight(rdp, srdp, eta, alpha)
	if err != nil {
		return err.Error()
	}
	a, b := sens*sens/(2*sigma*sigma), l*l*eta*eta/(2*sigma*sigma)
	closed := alpha * math.Pow(math.Sqrt(a)+math.Sqrt(b), 2)
	if math.Abs(tight-closed) > 1e-6*closed+1e-12 {
		return "tight bound differs from α(√a+√b)²"
	}
	if tight < closed*(1-1e-9) {
		return "tight bound below the closed form (under-reports)"
	}
	if paper, err := Theorem2Conservative(rdp, srdp, eta, alpha); err == nil && tight > paper*(1+1e-9) {
		return "tight bound above the paper-style relaxation"
	}
	if more, _, _ := Theorem2Tight(rdp, srdp, eta*1.5+0.01, alpha); more < tight*(1-1e-9) {
		return "bound decreases as η grows"
	}
	if zero, _, _ := Theorem2Tight(rdp, srdp, 0, alpha); math.Abs(zero-alpha*a) > 1e-6*alpha*a+1e-12 {
		return "η = 0 does not give the mechanism's own ε(α)"
	}
	return ""
}

func TestTheorem2InvariantsSeeded(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for i := 0; i < 200; i++ {
		sens, l, sigma := 0.1+2*rng.Float64(), 0.1+2*rng.Float64(), 0.5+20*rng.Float64()
		eta, alpha := 5*rng.Float64(), 1.5+60*rng.Float64()
		if msg := theorem2Invariants(sens, l, sigma, eta, alpha); msg != "" {
			t.Errorf("Δ=%v L=%v σ=%v η=%v α=%v: %s", sens, l, sigma, eta, alpha, msg)
		}
	}
}

func FuzzTheorem2Invariants(f *testing.F) {
	f.Add(1.0, 1.0, 5.0, 0.5, 8.0)
	f.Fuzz(func(t *testing.T, s, l, sg, e, a float64) {
		fold := func(x, lo, hi float64) float64 {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return lo
			}
			return lo + math.Mod(math.Abs(x), hi-lo)
		}
		if msg := theorem2Invariants(fold(s, 0.1, 2), fold(l, 0.1, 2), fold(sg, 0.5, 20), fold(e, 0, 5), fold(a, 1.5, 60)); msg != "" {
			t.Error(msg)
		}
	})
}
