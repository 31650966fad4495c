package bcdp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// allocationInvariants checks the Theorem 2 allocation at one point: levels
// in [0, δ̃_k], c_d ≤ ε, the sorted levels non-decreasing, the leakage
// shift log(1 + q(e^{c_d} − 1)) ≤ ζ·δ̃_1, and every coordinate below c_d
// meeting its demand: c_k + shift ≤ δ̃_k (Prop. 4 part 2 under
// Assumption 1).
func allocationInvariants(delta []float64, eps, q, zeta float64) string {
	a, err := Allocate(delta, eps, q, zeta)
	if err != nil {
		return "Allocate: " + err.Error()
	}
	d := len(delta)
	tol := func(x float64) float64 { return x * (1 + 1e-12) }
	if a.LDP > tol(eps) || a.LDP != a.Sorted[d-1] {
		return "c_d above ε or not the last level"
	}
	shift := math.Log1p(q * math.Expm1(a.LDP))
	if q > 0 && shift > tol(zeta*a.DeltaTilde[0]) {
		return "leakage shift above ζ·δ̃_1"
	}
	for k := 0; k < d; k++ {
		c, dt := a.Sorted[k], a.DeltaTilde[k]
		if c < 0 || c > tol(dt) {
			return "a level outside [0, δ̃_k]"
		}
		if k > 0 && c < a.Sorted[k-1]*(1-1e-12) {
			return "sorted levels decrease"
		}
		if c < a.LDP && c+shift > tol(dt) {
			return "a coordinate's demand not met: c_k + shift > δ̃_k"
		}
	}
	return ""
}

func randomAllocationPoint(rng *rand.Rand) ([]float64, float64, float64, float64) {
	d := 1 + rng.IntN(6)
	delta := make([]float64, d)
	for i := range delta {
		delta[i] = math.Pow(10, -2+2.5*rng.Float64())
		if rng.IntN(4) == 0 {
			delta[i] = math.Inf(1) // a public coordinate
		}
	}
	return delta, 0.05 + 5*rng.Float64(), []float64{0, 1e-4, 0.01, 0.1, 0.5, 1}[rng.IntN(6)] * rng.Float64(), 0.05 + 0.95*rng.Float64()
}

func TestAllocationInvariantsSeeded(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 500; i++ {
		delta, eps, q, zeta := randomAllocationPoint(rng)
		if msg := allocationInvariants(delta, eps, q, zeta); msg != "" {
			t.Errorf("δ=%v ε=%v q=%v ζ=%v: %s", delta, eps, q, zeta, msg)
		}
	}
}

func FuzzAllocationInvariants(f *testing.F) {
	f.Add(0.3, 0.5, 4.0, 3.0, 0.02, 0.51)
	f.Fuzz(func(t *testing.T, d1, d2, d3, e, q, z float64) {
		fold := func(x, lo, hi float64) float64 {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return lo
			}
			return lo + math.Mod(math.Abs(x), hi-lo)
		}
		delta := []float64{fold(d1, 0.01, 5), fold(d2, 0.01, 5), fold(d3, 0.01, 5)}
		eps, qq, zeta := fold(e, 0.05, 8), fold(q, 0, 1), fold(z, 0.05, 1)
		if msg := allocationInvariants(delta, eps, qq, zeta); msg != "" {
			t.Errorf("δ=%v ε=%v q=%v ζ=%v: %s", delta, eps, qq, zeta, msg)
		}
	})
}
