package fdp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

// fdpInvariants checks the feature-DP accounting at one point: the Thm 4
// attribute-inference bound lies in [Ball, 1] and grows with ε, δ and Ball;
// the GDP bound agrees with the trade-off function of the equivalent μ;
// EpsilonFromPower of the Gaussian power curve never reports less than the
// exact GDP ε (accounting.GDPEpsilon).
func fdpInvariants(eps, delta, ball, mu float64) string {
	b, err := AttributeInferenceBound(eps, delta, ball)
	if err != nil || !(b >= ball-1e-15 && b <= 1) {
		return "bound outside [Ball, 1]"
	}
	for _, nx := range [][3]float64{{eps * 1.2, delta, ball}, {eps, math.Min(0.5, delta*2), ball}, {eps, delta, math.Min(1, ball*1.3)}} {
		if b2, _ := AttributeInferenceBound(nx[0], nx[1], nx[2]); b2 < b-1e-15 {
			return "bound decreases in ε, δ or Ball"
		}
	}
	g, err := AttributeInferenceBoundGDP(mu, ball)
	if err != nil || !(g >= ball-1e-15 && g <= 1+1e-15) {
		return "GDP bound outside [Ball, 1]"
	}
	if g2, _ := AttributeInferenceBoundGDP(mu*1.2, ball); g2 < g-1e-15 {
		return "GDP bound decreases in μ"
	}
	exact, err := accounting.GDPEpsilon(mu, delta)
	if err != nil {
		return "GDPEpsilon: " + err.Error()
	}
	viaPower, err := EpsilonFromPower(func(a float64) float64 { p, _ := GaussianPower(mu, a); return p }, delta)
	if err != nil {
		return "EpsilonFromPower: " + err.Error()
	}
	if viaPower < exact*(1-1e-6)-1e-9 {
		return "EpsilonFromPower below the exact GDP ε"
	}
	return ""
}

func TestFDPAccountingInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for i := 0; i < 200; i++ {
		eps, delta := 0.01+10*rng.Float64(), math.Pow(10, -1-10*rng.Float64())
		ball, mu := math.Pow(10, -6*rng.Float64()), 0.05+5*rng.Float64()
		if msg := fdpInvariants(eps, delta, ball, mu); msg != "" {
			t.Errorf("ε=%v δ=%v Ball=%v μ=%v: %s", eps, delta, ball, mu, msg)
		}
	}
}

func FuzzFDPAccountingInvariants(f *testing.F) {
	f.Add(1.0, 5.0, 3.0, 1.0)
	f.Fuzz(func(t *testing.T, e, d, b, m float64) {
		fold := func(x, lo, hi float64) float64 {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return lo
			}
			return lo + math.Mod(math.Abs(x), hi-lo)
		}
		eps, delta, ball, mu := fold(e, 0.01, 10), math.Pow(10, -fold(d, 1, 11)), math.Pow(10, -fold(b, 0, 6)), fold(m, 0.05, 5)
		if msg := fdpInvariants(eps, delta, ball, mu); msg != "" {
			t.Errorf("ε=%v δ=%v Ball=%v μ=%v: %s", eps, delta, ball, mu, msg)
		}
	})
}
