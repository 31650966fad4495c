package smoothdp

// Randomised property tests of the accounting (kept out of the accounting*
// files, which must be deterministic).

import (
	"math/rand/v2"
	"testing"
)

// C8: weak triangle inequality on Gaussians, 10⁵ random draws.
func TestWeakTriangle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	viol := 0
	for i := 0; i < 100000; i++ {
		a := 1 + 20*rng.Float64()
		if a == 1 {
			continue
		}
		p := 1 + 5*rng.Float64()
		if p == 1 {
			continue
		}
		x, y := -3+6*rng.Float64(), -3+6*rng.Float64()
		c, a1, a2, err := WeakTriangle(a, p)
		if err != nil {
			t.Fatal(err)
		}
		lhs := a * y * y / 2
		rhs := c*a1*x*x/2 + a2*(y-x)*(y-x)/2
		if lhs > rhs*(1+1e-12)+1e-12 {
			viol++
		}
	}
	if viol != 0 {
		t.Errorf("C8: %d violations", viol)
	}
	if _, _, _, err := WeakTriangle(1, 2); err == nil {
		t.Error("α = 1 accepted")
	}
}
