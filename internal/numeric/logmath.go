package numeric

import "math"

// This file holds the log-space helpers shared by the accountants.

const (
	ln2   = math.Ln2
	sqrt2 = math.Sqrt2
)

// LogAdd returns log(exp(a) + exp(b)) without overflow. -Inf encodes 0.
func LogAdd(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(b, -1) {
		return a
	}
	if math.IsInf(a, 1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// erfcxAsymCoef are the coefficients (−1)^k (2k−1)!! of the asymptotic
// series Erfcx(x) = 1/(x√π) · Σ_k (−1)^k (2k−1)!! / (2x²)^k, k = 0..14.
var erfcxAsymCoef = [...]float64{
	1, -1, 3, -15, 105, -945, 10395, -135135, 2027025, -34459425,
	654729075, -13749310575, 316234143225, -7905853580625, 213458046676875,
}

// erfcxAsymMin is where Erfcx switches to its asymptotic series: at x = 10
// the first omitted term is 29!!/200^15 ≈ 2e-19 relative.
const erfcxAsymMin = 10.0

// expSquare returns exp(x²) with the rounding error of x² compensated
// (x² = hi + lo exactly, exp(hi + lo) ≈ exp(hi)·(1 + lo)).
func expSquare(x float64) float64 {
	hi := x * x
	lo := math.FMA(x, x, -hi)
	return math.Exp(hi) * (1 + lo)
}

// Erfcx returns the scaled complementary error function exp(x²)·erfc(x),
// accurate to a few ulps; it never underflows for finite x and overflows
// (+Inf) only below x ≈ −26.6.
func Erfcx(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x >= erfcxAsymMin:
		if math.IsInf(x, 1) {
			return 0
		}
		u := 1 / (2 * x * x)
		n := len(erfcxAsymCoef)
		if x >= 26 {
			n = 8 // first omitted term 15!!/1352^8 < 1e-18
		}
		s := 0.0
		for k := n - 1; k >= 0; k-- {
			s = s*u + erfcxAsymCoef[k]
		}
		return s / (x * math.SqrtPi)
	case x >= 0:
		return expSquare(x) * math.Erfc(x)
	case x < -26.7:
		return math.Inf(1)
	}
	return 2*expSquare(x) - Erfcx(-x)
}

// LogErfcx returns log(Erfcx(x)) = x² + log(erfc(x)) for every real x
// without overflow (it is +Inf only for x = −Inf).
func LogErfcx(x float64) float64 {
	if x >= 0 || math.IsNaN(x) {
		return math.Log(Erfcx(x))
	}
	hi := x * x
	lo := math.FMA(x, x, -hi)
	return hi + (lo + math.Log(math.Erfc(x)))
}

// LogErfc returns log(erfc(x)) accurately for every real x, including large
// positive x where erfc(x) underflows (x > 26.5): there it is
// log(Erfcx(x)) − x², with Erfcx from its asymptotic series.
func LogErfc(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x < 26:
		return math.Log(math.Erfc(x))
	case math.IsInf(x, 1):
		return math.Inf(-1)
	}
	return math.Log(Erfcx(x)) - x*x
}

// LogNormCDF returns log Φ(x) for the standard normal CDF Φ, accurate in the
// far lower tail (Φ(−40) ≈ 4e-350 is below the float64 range, its log is
// not).
func LogNormCDF(x float64) float64 {
	if x > 5 {
		// Φ(x) = 1 − Φ(−x); log1p keeps the tiny upper-tail mass.
		return math.Log1p(-0.5 * math.Erfc(x/sqrt2))
	}
	return -ln2 + LogErfc(-x/sqrt2)
}

// NormCDF returns Φ(x), accurate to full relative precision in the lower tail
// until it underflows.
func NormCDF(x float64) float64 { return 0.5 * math.Erfc(-x/sqrt2) }

// NormQuantile returns Φ⁻¹(p), the standard normal quantile, accurate to a
// few ulps in relative terms also in the far lower tail (down to the
// smallest denormal p), where −√2·Erfcinv(2p) fails: Go's Erfcinv(x) is
// Erfinv(1 − x), and 1 − x rounds to 1 for x < 1e-16. It starts from
// Erfcinv (or, below 1e-15, the asymptotic x ≈ −√(t − log t − log 2π),
// t = −2 log p) and refines by Newton steps on log Φ(x) = log p. p ≤ 0
// gives −Inf, p ≥ 1 +Inf, NaN NaN; p > ½ uses Φ⁻¹(p) = −Φ⁻¹(1 − p).
func NormQuantile(p float64) float64 {
	switch {
	case math.IsNaN(p):
		return math.NaN()
	case p <= 0:
		return math.Inf(-1)
	case p >= 1:
		return math.Inf(1)
	case p > 0.5:
		return -NormQuantile(1 - p)
	}
	var x float64
	if p > 1e-15 {
		x = -sqrt2 * math.Erfcinv(2*p)
	} else {
		t := -2 * math.Log(p)
		x = -math.Sqrt(t - math.Log(t) - math.Log(2*math.Pi))
	}
	lp := math.Log(p)
	for i := 0; i < 60; i++ {
		lc := LogNormCDF(x)
		f := lc - lp
		if math.Abs(f) <= 1e-15*math.Max(1, math.Abs(lp)) {
			break
		}
		d := math.Exp(-x*x/2 - 0.5*math.Log(2*math.Pi) - lc) // (log Φ)'(x) = φ(x)/Φ(x)
		x -= f / d
	}
	return x
}

// Log returns the natural logarithm of x, exact to rounding also for
// subnormal x (0 < x < 2^-1022). math.Log on amd64 (its assembly kernel)
// reads the exponent field of a subnormal as the minimum exponent and
// returns about −709.09 for every subnormal (true values go down to
// −744.44 at 5e-324): a log of a tiny probability that is too large. Here a
// subnormal x is written x = f·2^k (math.Frexp, f ∈ [½, 1)) and
// log x = log f + k·ln 2, with ln 2 split in two parts so that k·ln2Hi is
// exact. Normal, zero, negative, infinite and NaN arguments give exactly
// math.Log(x).
func Log(x float64) float64 {
	if !(x > 0 && x < minNormal) {
		return math.Log(x)
	}
	f, k := math.Frexp(x)
	fk := float64(k)
	return fk*ln2Hi + (math.Log(f) + fk*ln2Lo)
}

const (
	// minNormal is the smallest normal float64, 2^-1022.
	minNormal = 0x1p-1022
	// ln2Hi + ln2Lo = ln 2 (fdlibm's split: ln2Hi has 32 trailing zero
	// bits, so k·ln2Hi is exact for |k| < 2^20).
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
)

// erfcxNegDeriv returns −Erfcx'(t) = 2/√π − 2t·Erfcx(t), positive for
// every t (Erfcx is decreasing). For t ≥ erfcxAsymMin it uses the
// derivative of Erfcx's asymptotic series,
// (1/(√π t²)) Σ_k (2k+1)(−1)^k (2k−1)!! / (2t²)^k, which avoids the
// cancellation of the two terms.
func erfcxNegDeriv(t float64) float64 {
	if t < erfcxAsymMin {
		return 2/math.SqrtPi - 2*t*Erfcx(t)
	}
	u := 1 / (2 * t * t)
	s := 0.0
	for k := len(erfcxAsymCoef) - 1; k >= 0; k-- {
		s = s*u + float64(2*k+1)*erfcxAsymCoef[k]
	}
	return s / (math.SqrtPi * t * t)
}

// erfcxDiffSimpson: below this value of h·max(1, |x|, |x+h|), ErfcxDiff
// integrates −Erfcx' by Simpson's rule instead of subtracting.
const erfcxDiffSimpson = 1e-2

// ErfcxDiff returns Erfcx(x) − Erfcx(x+h) for h ≥ 0 and x > −26 (where
// Erfcx(x) is finite), accurate to about 1e-11 relative also when h is tiny
// and the two values nearly cancel. Erfcx is decreasing and convex, so the
// difference is the integral of −Erfcx' over [x, x+h]; when
// h·max(1, |x|, |x+h|) < 1e-2 it is Simpson's rule on that integral
// (relative error ≲ (h·scale)⁴/2880 < 4e-12), otherwise the plain
// difference (condition number ≲ 100·max(1, x²) there, a loss of at most
// ~1e-11 relative for |x| ≤ 27, which is where the callers need it).
func ErfcxDiff(x, h float64) float64 {
	y := x + h
	scale := math.Max(1, math.Max(math.Abs(x), math.Abs(y)))
	if h*scale >= erfcxDiffSimpson {
		return Erfcx(x) - Erfcx(y)
	}
	m := x + h/2
	return h / 6 * (erfcxNegDeriv(x) + 4*erfcxNegDeriv(m) + erfcxNegDeriv(y))
}
