package accounting

import (
	"math"
	"math/big"
	"testing"
)

// Tests added by the mutation audit of the accounting package (see the
// commit message): each kills a mutation of the non-test code that the
// other tests let survive.

// bigLogExact returns log x of a positive big.Float to about bigPrec bits,
// by Newton's method y ← y + 2(x − e^y)/(x + e^y) from the float64 log.
func bigLogExact(x *big.Float) *big.Float {
	prec := uint(bigPrec + 32)
	y := new(big.Float).SetPrec(prec).SetFloat64(bigLog(x))
	for i := 0; i < 7; i++ {
		e := bigExp(y)
		num := new(big.Float).SetPrec(prec).Sub(x, e)
		den := new(big.Float).SetPrec(prec).Add(x, e)
		num.Quo(num, den)
		y.Add(y, num.Mul(num, new(big.Float).SetPrec(prec).SetInt64(2)))
	}
	return y
}

// refPureRDP returns the Rényi divergence of order α of randomized
// response with ratio e^ε, log((e^{αε} + e^{−(α−1)ε})/(1 + e^ε))/(α−1), in
// 640-bit arithmetic from the exact products αε and (α−1)ε.
func refPureRDP(eps, alpha float64) float64 {
	prec := uint(bigPrec + 32)
	be := new(big.Float).SetPrec(prec).SetFloat64(eps)
	ba := new(big.Float).SetPrec(prec).SetFloat64(alpha)
	am1 := new(big.Float).SetPrec(prec).Sub(ba, big.NewFloat(1))
	num := bigExp(new(big.Float).SetPrec(prec).Mul(ba, be))
	num.Add(num, bigExp(new(big.Float).SetPrec(prec).Neg(new(big.Float).SetPrec(prec).Mul(am1, be))))
	den := bigExp(be)
	den.Add(den, big.NewFloat(1))
	d := bigLogExact(num)
	d.Sub(d, bigLogExact(den))
	d.Quo(d, am1)
	r, _ := d.Float64()
	return r
}

// PureRDP is an upper bound: never below the 640-bit value of the
// randomized-response divergence (its 2^-44 rounding allowance covers
// the roundings of the closed form).
func TestPureRDPNotBelowExact(t *testing.T) {
	for _, eps := range []float64{1e-12, 1e-6, 1e-3, 0.01, 0.1, 0.3, 1, 2.5, 10, 50} {
		for _, a := range []float64{1 + 1e-9, 1.001, 1.1, 1.5, 2, 3.7, 10, 64, 1000, 1e5} {
			if a*eps > 2000 {
				continue // far in the ε regime: the value is ε up to e^{-2000}
			}
			got, ref := PureRDP(eps, a), refPureRDP(eps, a)
			if got < ref {
				t.Errorf("UNDER-REPORT PureRDP(%v, %v) = %.17g below the exact %.17g (rel %.3g)", eps, a, got, ref, got/ref-1)
			}
		}
	}
}

// The independent evaluations that certify AnalyticGaussianSigma and
// GDPEpsilon resolve a δ 1e-6 relative too high (the size of the
// difference route's cancellation errors they are there to catch): they
// reject a point whose exact δ (by the quadrature) exceeds the target by
// that much and accept it at the exact δ.
func TestCertificationResolution(t *testing.T) {
	for _, c := range []struct{ mu, eps float64 }{{0.5, 0.3}, {1, 1}, {3, 8}, {1e-3, 1e-4}} {
		ld := gaussianMixture(c.mu).logDelta(c.eps)
		if gdpCheck(c.mu, c.eps, ld-1e-6) {
			t.Errorf("gdpCheck(μ=%v, ε=%v) accepts a δ target 1e-6 below the exact δ", c.mu, c.eps)
		}
		if !gdpCheck(c.mu, c.eps, ld+1e-11) {
			t.Errorf("gdpCheck(μ=%v, ε=%v) rejects the exact δ", c.mu, c.eps)
		}
		sigma := 1 / c.mu
		if logGaussDeltaSigma(1, sigma, c.eps) > ld+1e-11 {
			t.Errorf("logGaussDeltaSigma(1, %v, %v) above the exact δ", sigma, c.eps)
		}
	}
}

// Whatever the work budget, a fractional order's value is an upper bound:
// a series cut short by the budget (here just past its first alternating
// term) keeps its tail in the slack. Orders above 200 take the log-space
// series.
func TestRDPBudgetCutNotBelow(t *testing.T) {
	for _, c := range []struct{ q, z, a float64 }{{0.5, 5, 300.5}, {1e-3, 20, 250.25}, {0.9, 50, 201.5}, {0.5, 2, 1.5}} {
		ref, _ := rdpReference(c.q, c.z, c.a)
		first := int(math.Ceil(c.a))
		for _, extra := range []int{0, 2, 10, 100, 1000} {
			s := newSGMBudget(c.q, c.z, &workBudget{left: int64(3*first + 64 + extra)})
			got, note := s.rdp(c.a)
			if got < ref*(1-rdpRefTol) {
				t.Errorf("UNDER-REPORT q=%v z=%v α=%v budget +%d: RDP %.17g below the reference %.17g (%v)", c.q, c.z, c.a, extra, got, ref, note)
			}
		}
	}
}

// A fractional order is evaluated on its fraction table's grid at most
// 1e-13 ABOVE the order asked and never below it (RDP is non-decreasing in
// the order, so only rounding up keeps the value an upper bound).
func TestFractionTableRoundsUp(t *testing.T) {
	c := newSGM(0.5, 1)
	for _, f := range []float64{0.5 + 5e-14, 0.1, 1.0 / 3, 0.7 + 1e-15, 1e-14, 0.9999999999999, math.Nextafter(1, 0), 0x1p-40} {
		tb := c.table(f)
		if tb.f < f || tb.f-f > 1e-13 || tb.f >= 1 {
			t.Errorf("table(%v) evaluates at fraction %v: want within [f, f + 1e-13] and below 1", f, tb.f)
		}
	}
}
