package fdp

import "testing"

// TestSingleBatchEpsilonAchievesDelta checks the inversion of
// SingleBatchDelta: the ε returned for δ must reach it, δ(ε) ≤ δ, and be
// tight, δ(ε·(1 − 1e-6)) > δ, including when δ(0) exceeds δ by less than 2×
// (a shortcut to ε = 0 there, or returning the lower end of the bisection,
// would under-report ε).
func TestSingleBatchEpsilonAchievesDelta(t *testing.T) {
	for _, c := range []struct {
		q, z  float64
		steps int
		ratio float64 // δ = ratio·δ(0)
	}{
		{1.0 / 16, 1, 286, 0.75},
		{1.0 / 16, 1, 286, 1e-3},
		{0.01, 2, 1000, 0.6},
		{1, 3, 4, 0.9},
		{0.5, 5, 10, 0.51},
	} {
		d0, err := SingleBatchDelta(c.q, c.z, c.steps, 0)
		if err != nil {
			t.Fatal(err)
		}
		delta := c.ratio * d0
		eps, err := SingleBatchEpsilon(c.q, c.z, c.steps, delta)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		at, _ := SingleBatchDelta(c.q, c.z, c.steps, eps)
		below, _ := SingleBatchDelta(c.q, c.z, c.steps, eps*(1-1e-6))
		if !(eps > 0) || at > delta || !(below > delta) {
			t.Errorf("%+v: δ(0) = %v, δ = %v: ε = %v gives δ(ε) = %v and δ(ε(1 − 1e-6)) = %v; want δ(ε) ≤ δ < δ(ε(1 − 1e-6))",
				c, d0, delta, eps, at, below)
		}
	}
}
