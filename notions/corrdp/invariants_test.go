package corrdp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

// corrdpInvariants checks the CorrDP accounting at one point: CorrDP's
// noise weights lie between Semi's (0 on insensitive coordinates) and
// Standard's (1), and grow with the TV; the Thm 3.9 rate is at most its
// upper bound and at most the standard-DP rate; the Thm 3.12 lower bound is
// in [0, 1] with TV_(1)² ≤ M ≤ Σ TV, and never above the rate's bound
// (up to the omitted constants: the lower bound's middle term is at most
// the sum in the rate); the paper-mode σ0² falls as ε grows.
func corrdpInvariants(ms int, tv []float64, eps, delta float64, n int) string {
	sens := make([]bool, ms+len(tv))
	all := make([]float64, len(sens))
	for i := 0; i < ms; i++ {
		sens[i] = true
	}
	copy(all[ms:], tv)
	w, err := NoiseWeights(Corr, sens, all, false)
	if err != nil {
		return err.Error()
	}
	for i := ms; i < len(w); i++ {
		if w[i] < 0 || w[i] > 1 || math.Abs(w[i]-tv[i-ms]) > 1e-15 {
			return "CorrDP weight of an insensitive coordinate is not its TV in [0, 1]"
		}
	}
	rate, bound, std, err := UtilityRate(ms, tv, eps, delta, n)
	if err != nil {
		return err.Error()
	}
	if rate > bound*(1+1e-12) && ms > 0 || rate > std*(1+1e-12) {
		return "Thm 3.9 rate above its bound or above the standard rate"
	}
	lb, mid, err := LowerBound(ms, tv, eps, n)
	if err != nil {
		return err.Error()
	}
	sum, top := 0.0, 0.0
	for _, v := range tv {
		sum += v
		top = math.Max(top, v)
	}
	if lb < 0 || lb > 1 || mid < top*top-1e-15 || mid > sum+1e-12 {
		return "Thm 3.12 lower bound outside [0, 1] or its middle term outside [TV_(1)², Σ TV]"
	}
	s1, _ := Sigma0Sq(1, eps, delta)
	if s2, _ := Sigma0Sq(1, eps*1.5, delta); s2 > s1 {
		return "σ0² grows with ε"
	}
	return honestyInvariants(sens, w, s1, eps, delta, n)
}

// honestyInvariants checks Honesty on the paper-mode noise σ² = σ0²·w:
// every ε equals ρ + 2√(ρ log(1/δ)) with ρ = Δ²/(2σ²) written out (to
// 1e-12 relative: the ledger takes −log δ, this log(1/δ)), is at least the
// ledger's best route for the same loss (reading the zCDP route never
// reports less than the ledger certifies), and, since the variance scales
// with TV, an insensitive change costs at most ε_S/TV.
func honestyInvariants(sens []bool, w []float64, s0, eps, delta float64, n int) string {
	sigma2 := make([]float64, len(w))
	for i := range w {
		sigma2[i] = s0 * w[i]
	}
	tv := append([]float64(nil), w...)
	rows, err := Honesty(sigma2, sens, tv, 1, n, 1, eps, delta, accounting.RelationReplaceOne, false)
	if err != nil {
		return err.Error()
	}
	sensEps := math.NaN()
	for _, r := range rows {
		if math.IsInf(r.Eps, 1) {
			if sigma2[max(r.Coord, 0)] != 0 {
				return "an infinite honest ε with noise on the moved coordinate"
			}
			continue
		}
		d := 2 / float64(n)
		rho := d * d / (2 * sigma2[max(r.Coord, 0)])
		want := rho + 2*math.Sqrt(rho*math.Log(1/delta))
		if math.Abs(r.Eps-want) > 1e-12*want {
			return "honest ε differs from ρ + 2√(ρ log(1/δ))"
		}
		l, err := accounting.ZCDPLoss(r.Rho, accounting.RelationReplaceOne)
		if err != nil {
			return err.Error()
		}
		led, _ := accounting.NewLedger(accounting.RelationReplaceOne, nil)
		if err := led.Add(l); err != nil {
			return err.Error()
		}
		rep, err := led.Epsilon(delta, accounting.DefaultConversion)
		if err != nil {
			return err.Error()
		}
		if r.Eps < rep.Epsilon {
			return "honest ε below the ledger's best route"
		}
		if r.Coord < 0 {
			sensEps = r.Eps
		} else if !math.IsNaN(sensEps) && r.TV > 0 && r.Eps > sensEps/r.TV*(1+1e-12) {
			return "an insensitive change costs more than ε_S/TV"
		}
	}
	return ""
}

func TestCorrDPAccountingInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for i := 0; i < 300; i++ {
		ms := rng.IntN(6)
		tv := make([]float64, 1+rng.IntN(8))
		for j := range tv {
			tv[j] = rng.Float64() * []float64{0.01, 0.3, 1}[rng.IntN(3)]
		}
		eps, delta, n := 0.05+5*rng.Float64(), math.Pow(10, -2-8*rng.Float64()), 10+rng.IntN(100000)
		if msg := corrdpInvariants(ms, tv, eps, delta, n); msg != "" {
			t.Errorf("m_s=%d TV=%v ε=%v δ=%v n=%d: %s", ms, tv, eps, delta, n, msg)
		}
	}
}

func FuzzCorrDPAccountingInvariants(f *testing.F) {
	f.Add(uint8(3), 0.2, 0.9, 0.0, 1.0, 5.0, uint32(1000))
	f.Fuzz(func(t *testing.T, m uint8, t1, t2, t3, e, d float64, n uint32) {
		fold := func(x, lo, hi float64) float64 {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return lo
			}
			return lo + math.Mod(math.Abs(x), hi-lo)
		}
		tv := []float64{fold(t1, 0, 1), fold(t2, 0, 1), fold(t3, 0, 1)}
		if msg := corrdpInvariants(int(m%8), tv, fold(e, 0.05, 5), math.Pow(10, -fold(d, 2, 10)), 1+int(n%1000000)); msg != "" {
			t.Error(msg)
		}
	})
}
