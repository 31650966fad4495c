package accounting

import (
	"fmt"
	"math"

	"github.com/featuredp/featuredp/internal/numeric"
)

// logGaussDelta returns log δ for the Gaussian privacy curve with
// μ = Δ/σ (sensitivity over noise standard deviation):
//
//	δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ),
//
// the hockey-stick divergence between N(μ, 1) and N(0, 1) (Balle & Wang 2018
// Thm 8; Dong, Roth & Su 2019 Cor. 2.13). With a = μ/2 − ε/μ and b = a − μ:
//
//   - where Φ(b) and e^ε are comfortably in range and the cancellation is
//     mild (see linearMaxCancel), as
//     [Φ(a) − Φ(b)] − expm1(ε)·Φ(b), with Φ(a) − Φ(b) from erf or erfc
//     differences on one side of 0 (accurate for small μ and small ε);
//   - else, where its rounding is small enough (see logPhiLogDelta), as
//     log Φ(a) + log(−expm1(ε + log Φ(b) − log Φ(a)));
//   - otherwise by logDeltaErfcx, which uses ε − b²/2 = −a²/2 exactly
//     instead of adding ε to log Φ(b) (that sum cancels catastrophically
//     for large ε: at ε = 1e17 its rounding error alone is about 10).
//
// μ > 0 finite and ε >= 0 finite are the caller's responsibility. -Inf
// means δ is below the smallest float64.
func logGaussDelta(mu, eps float64) float64 {
	if ld, ok := linearLogDelta(mu, eps); ok {
		return ld
	}
	if ld, ok := logPhiLogDelta(mu, eps); ok {
		return ld
	}
	q, r := divDD(eps, mu)
	return logDeltaErfcx(mu/2-q, -r, mu, ulpBound(q, mu))
}

// linearLogDelta is the difference route of logGaussDelta; ok is false
// where it does not apply or would cancel too much.
func linearLogDelta(mu, eps float64) (float64, bool) {
	a := mu/2 - eps/mu
	b := -mu/2 - eps/mu
	if eps < 700 && b > -37 {
		nd := normDiff(a, b)
		// Φ(a) and Φ(b) carry relative errors of about (b² + 2)·2^-53 from
		// the rounding of a and b, amplified by Φ(a)/δ in the result.
		if d := nd - math.Expm1(eps)*numeric.NormCDF(b); d > 1e-290 && d*linearMaxCancel >= numeric.NormCDF(a)*(b*b+2) {
			return math.Log(d), true
		}
	}
	return 0, false
}

// logPhiLogDelta is the log-space route of logGaussDelta,
// log Φ(a) + log(−expm1(ε + log Φ(b) − log Φ(a))); ok is false where the
// rounding of the sum d = ε + log Φ(b) − log Φ(a), about
// 2^-52·(ε + |log Φ(b)| + |log Φ(a)|), would exceed 2^-40 of
// −expm1(d)/e^d, the relative error it causes in δ (large ε, or d near 0).
func logPhiLogDelta(mu, eps float64) (float64, bool) {
	a := mu/2 - eps/mu
	b := -mu/2 - eps/mu
	la, lb := numeric.LogNormCDF(a), numeric.LogNormCDF(b)
	d := eps + lb - la
	errD := 0x1p-52 * (eps + math.Abs(lb) + math.Abs(la))
	if !(d < 0) || errD > 0x1p-40*-math.Expm1(d)*math.Exp(-d) {
		return 0, false
	}
	return la + math.Log(-math.Expm1(d)), true
}

// linearMaxCancel: the difference route of logGaussDelta is used only
// where δ ≥ Φ(a)·(b² + 2)/linearMaxCancel, i.e. where its error bound
// 2^-52·(b² + 2)·Φ(a)/δ is below 2^-32 ≈ 2e-10 relative. Elsewhere (small
// μ in the tail: 2.5e-6 relative at μ = 1e-8, ε = 6.8e-8) another route
// is used. (A tighter limit would move the paper figures' last digits.)
const linearMaxCancel = 1 << 20

// divDD returns x/y as an unevaluated sum q + r (double-double): q =
// fl(x/y) and r = (x − q·y)/y, the residual x − q·y being exact (an FMA).
// An infinite q gives r = 0.
func divDD(x, y float64) (q, r float64) {
	q = x / y
	if math.IsInf(q, 0) || q == 0 {
		return q, 0
	}
	return q, math.FMA(-q, y, x) / y
}

// ulpBound returns a bound on the error of a double-double combination of
// terms of magnitudes |s| and |t|: 2^-100·(|s| + |t|) (a few times the
// u² = 2^-106 rounding of the low parts, plus the final additions).
func ulpBound(s, t float64) float64 {
	return 0x1p-100 * (math.Abs(s) + math.Abs(t))
}

// logDeltaErfcx returns an upper bound on log δ(ε) of the Gaussian curve
// from a = hi + lo (a double-double value of μ/2 − ε/μ known to within
// errA) and μ, through the identities (erfcx(x) = e^{x²} erfc(x))
//
//	Φ(a) = ½ e^{−a²/2} erfcx(−a/√2),
//	e^ε Φ(b) = ½ e^{−a²/2} erfcx(−b/√2)   (ε − b²/2 = −a²/2, b = a − μ),
//
// so δ = ½ e^{−a²/2} [erfcx(−a/√2) − erfcx(−a/√2 + μ/√2)], the difference
// by numeric.ErfcxDiff (no cancellation for small μ either). δ is
// increasing in a at fixed μ (∂δ/∂a = μ e^ε Φ(b) > 0), so evaluating at
// a + errA makes the error of the double-double a (up to 2^-100·ε/μ,
// decisive for ε ≫ 1e16) err upward; what remains is the rounding of a's
// leading part and the few-ulp errors of erfc, erfcx and exp, about
// (a² + 4)·2^-53 relative in δ. For a > 37,
// e^{−a²/2} < 1e-297 and δ = 1 − ½erfc(a/√2) − ½e^{−a²/2} erfcx(−b/√2).
func logDeltaErfcx(hi, lo, mu, errA float64) float64 {
	a := hi + (lo + errA)
	switch {
	case math.IsNaN(a):
		return a
	case math.IsInf(a, -1):
		return a
	}
	y := (mu - a) / sqrt2 // −b/√2 > 0
	if a > 37 {
		s := 0.5*math.Erfc(a/sqrt2) + 0.5*math.Exp(-a*a/2)*numeric.Erfcx(y)
		return math.Log1p(-s)
	}
	d := numeric.ErfcxDiff(-a/sqrt2, mu/sqrt2)
	sq := a * a
	sqLo := math.FMA(a, a, -sq)
	return -0.5*sq - (0.5*sqLo + ln2) + numeric.Log(d)
}

// logGaussDeltaSigma is the independent route for the δ of the analytic
// Gaussian mechanism with noise σ on a query of sensitivity Δ:
// logDeltaErfcx with a = Δ/(2σ) − εσ/Δ evaluated in double-double
// arithmetic directly from (Δ, σ, ε), never through the rounded μ = Δ/σ
// (whose rounding moves a by about μ·2^-53, up to 0.02 at ε = 1e16). It
// is an upper bound on the exact δ up to the few-ulp errors of erfc, erfcx
// and exp. Returns 0 (δ = 1) where Δ/σ overflows.
func logGaussDeltaSigma(sens, sigma, eps float64) float64 {
	m, mr := divDD(sens, sigma) // μ = m + mr
	if math.IsInf(m, 1) {
		return 0 // σ below the resolution of Δ/σ: δ = 1
	}
	// εσ/Δ = q + qr with ε = fe·2^k scaled out, so that εσ cannot
	// overflow (ε = 1e300, σ = 1e10) where εσ/Δ is finite.
	fe, k := math.Frexp(eps)
	p := fe * sigma
	pl := math.FMA(fe, sigma, -p) // fe·σ = p + pl exactly
	q := p / sens
	qr := (math.FMA(-q, sens, p) + pl) / sens
	q, qr = math.Ldexp(q, k), math.Ldexp(qr, k)
	if math.IsInf(q, 1) {
		return math.Inf(-1) // εσ/Δ overflows while Δ/(2σ) is finite: δ = 0
	}
	return logDeltaErfcx(m/2-q, mr/2-qr, m+mr, ulpBound(m, q))
}

// normDiff returns Φ(a) − Φ(b) for a > b without cancelling two values near
// 1 or near 1/2.
func normDiff(a, b float64) float64 {
	switch {
	case b >= 0:
		return 0.5 * (math.Erfc(b/sqrt2) - math.Erfc(a/sqrt2))
	case a <= 0:
		return 0.5 * (math.Erfc(-a/sqrt2) - math.Erfc(-b/sqrt2))
	}
	return 0.5 * (math.Erf(a/sqrt2) - math.Erf(b/sqrt2))
}

// gaussDelta is exp(logGaussDelta) with the edge cases μ ∈ {0, +Inf},
// ε = +Inf; for finite μ > 0 and finite ε it is never 0 (minPositiveDelta).
func gaussDelta(mu, eps float64) float64 {
	switch {
	case mu == 0 || math.IsInf(eps, 1):
		return 0
	case math.IsInf(mu, 1):
		return 1
	}
	return minPositiveDelta(math.Exp(logGaussDelta(mu, eps)))
}

// minPositiveDelta returns d, or the smallest positive float64 if d is 0: the
// δ of a Gaussian at finite ε is positive (no Gaussian is (ε, 0)-DP), so a 0
// is an exp below the float64 range, as in DeltaFromRDP.
func minPositiveDelta(d float64) float64 { return math.Max(d, math.SmallestNonzeroFloat64) }

// ValidateEpsilon returns an error unless eps is >= 0 and not NaN (+Inf is
// allowed: no guarantee).
func ValidateEpsilon(eps float64) error {
	if math.IsNaN(eps) || eps < 0 {
		return fmt.Errorf("accounting: epsilon %v is not >= 0", eps)
	}
	return nil
}

// ValidateSensitivity returns an error unless s is finite and > 0.
func ValidateSensitivity(s float64) error {
	if math.IsNaN(s) || !(s > 0) || math.IsInf(s, 1) {
		return fmt.Errorf("accounting: sensitivity %v is not finite and > 0", s)
	}
	return nil
}

// AnalyticGaussianDelta returns the exact δ(ε) of the Gaussian mechanism
// that adds N(0, σ²) noise to a query of L2 sensitivity sens (Balle & Wang
// 2018, "Improving the Gaussian mechanism for differential privacy", Thm 8):
//
//	δ = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ),   Δ = sens.
//
// It is the smallest δ for which the mechanism is (ε, δ)-DP, for any
// neighbouring relation under which the query's L2 sensitivity is sens (for
// add/remove-one with per-record clipping to C, sens = C). One release, no
// sampling. It is computed by the routes of logGaussDelta, accurate to
// about 1e-13 relative (2e-10 where the difference route is used) down to
// δ = 5e-324; outside the difference route a = Δ/(2σ) − εσ/Δ is formed in
// double-double arithmetic from sens, σ and ε (logGaussDeltaSigma), never
// through the rounded Δ/σ, and any remaining error in a errs upward.
//
// σ = +Inf or ε = +Inf give 0; otherwise a δ below the float64 range is
// reported as the smallest positive float64, never 0 (no Gaussian is
// (ε, 0)-DP). Errors: σ NaN or <= 0, ε NaN or negative, sens NaN, <= 0 or
// infinite.
func AnalyticGaussianDelta(sigma, eps, sens float64) (float64, error) {
	if math.IsNaN(sigma) || !(sigma > 0) {
		return 0, fmt.Errorf("accounting: sigma %v is not > 0", sigma)
	}
	if err := ValidateEpsilon(eps); err != nil {
		return 0, err
	}
	if err := ValidateSensitivity(sens); err != nil {
		return 0, err
	}
	if math.IsInf(sigma, 1) || math.IsInf(eps, 1) {
		return 0, nil
	}
	if ld, ok := linearLogDelta(sens/sigma, eps); ok {
		return minPositiveDelta(math.Exp(ld)), nil
	}
	return minPositiveDelta(math.Exp(logGaussDeltaSigma(sens, sigma, eps))), nil
}

// MaxAnalyticEpsilon is the largest ε for which AnalyticGaussianSigma and
// GDPEpsilon work. Near the calibrated σ, δ changes by a relative
// |a|·√(2ε)·2^-53 (a = Δ/(2σ) − εσ/Δ, |a| < 39 for δ ≥ 5e-324) from one
// float64 σ to the next: 6e-7 at ε = 1e16, 6e-5 at ε = 1e20, so beyond
// 1e16 no float64 σ is tight (see docs/accounting.md).
const MaxAnalyticEpsilon = 1e16

// maxBracketSteps bounds the doubling and halving that bracket a root in
// μ or ε: 2^±1100 covers every positive float64.
const maxBracketSteps = 1100

// gaussMuForDelta returns the largest μ = Δ/σ with δ_μ(ε) ≤ delta (δ_μ is
// increasing in μ), found by Brent's method on log δ to 1e-14 relative.
// ε ∈ [0, MaxAnalyticEpsilon], δ ∈ (0, 1). The bracket is found by at most
// maxBracketSteps doublings or halvings; ok is false when it is not (μ
// would leave the float64 range).
func gaussMuForDelta(eps, delta float64) (float64, bool) {
	ld := numeric.Log(delta)
	g := func(mu float64) float64 { return ld - logGaussDelta(mu, eps) } // decreasing in μ
	lo, hi := 1.0, 1.0
	glo := g(lo)
	ghi := glo
	for i := 0; ; i++ {
		if i > maxBracketSteps || lo == 0 || math.IsInf(hi, 1) || math.IsNaN(glo) || math.IsNaN(ghi) {
			return 0, false
		}
		switch {
		case ghi > 0:
			lo, glo = hi, ghi
			hi *= 2
			ghi = g(hi)
			continue
		case glo <= 0:
			hi, ghi = lo, glo
			lo /= 2
			glo = g(lo)
			continue
		}
		break
	}
	lo, _ = numeric.BrentDecreasing(g, lo, hi, glo, ghi, 1e-14)
	return lo, true
}

// AnalyticGaussianSigma returns the smallest noise standard deviation σ for
// which the Gaussian mechanism on a query of L2 sensitivity sens is
// (ε, δ)-DP, i.e. the σ solving AnalyticGaussianDelta(σ, ε, sens) = δ
// (Balle & Wang 2018, Alg. 1, solved here by Brent's method on
// log δ(Δ/σ) to about 1e-14 relative rather than by their bisection). The
// returned σ satisfies AnalyticGaussianDelta(σ, ε, sens) ≤ δ, and δ(σ) ≤ δ
// also by an independent evaluation (logGaussDeltaSigma: a computed from
// Δ, σ and ε in double-double arithmetic, the second term through erfcx;
// an upper bound up to the ulps of erfc and exp). σ is tight: δ(σ) is
// within about 1e-6 of δ relative for every ε ≤ MaxAnalyticEpsilon, δ down
// to the smallest subnormal. Neighbouring relation: whatever relation sens
// is the L2 sensitivity for. One release, no sampling. Example:
// (ε, δ, sens) = (0.5, 1e-10, 10) gives 114.3624…; (1, 1e-5, 1) gives
// 3.730632….
//
// Errors: ε NaN, negative or above MaxAnalyticEpsilon (no float64 σ is
// tight there); δ not in (0, 1); sens NaN, <= 0 or infinite; a σ above
// the float64 range (δ far below 1e-300 with ε near 0 and a large sens).
func AnalyticGaussianSigma(eps, delta, sens float64) (float64, error) {
	if err := ValidateEpsilon(eps); err != nil {
		return 0, err
	}
	if !(eps <= MaxAnalyticEpsilon) {
		return 0, fmt.Errorf("accounting: epsilon %v is above %g, the largest for which a float64 σ of the analytic Gaussian mechanism is tight (see docs/accounting.md); use a smaller --epsilon", eps, float64(MaxAnalyticEpsilon))
	}
	if err := ValidateDelta(delta); err != nil {
		return 0, err
	}
	if err := ValidateSensitivity(sens); err != nil {
		return 0, err
	}
	mu, ok := gaussMuForDelta(eps, delta)
	sigma := sens / mu
	if !ok || math.IsInf(sigma, 1) || !(sigma > 0) {
		return 0, fmt.Errorf("accounting: AnalyticGaussianSigma: σ for ε = %v, δ = %v, sensitivity %v is outside the float64 range; use a larger delta or a smaller sensitivity", eps, delta, sens)
	}
	return certifySigma(sigma, eps, delta, sens)
}

// checkTol is the tolerance, in log δ, of the independent evaluations
// that certify AnalyticGaussianSigma and GDPEpsilon: 2^-40 ≈ 9e-13, a few
// times their own rounding error ((a² + 4)·2^-53 for |a| < 39). They
// catch a wrong route (a δ off by orders of magnitude, or the 1e-6
// relative errors of a cancelling difference), not the last ulps.
const checkTol = 0x1p-40

// certifySigma raises σ until δ(σ) ≤ δ by AnalyticGaussianDelta and
// δ(σ) ≤ δ·(1 + checkTol) by logGaussDeltaSigma: sens/μ
// rounds, and δ recomputed from σ carries rounding noise of a few 1e-12
// relative (found by the invariant tests: 5e-12 relative at ε = 0.0154,
// δ = 1e-9). The steps grow geometrically (1e-15, 2e-15, …) and stop
// after a total raise of about 0.1%; beyond that the calibration is
// reported as failed rather than returning a loose or unsafe σ.
func certifySigma(sigma, eps, delta, sens float64) (float64, error) {
	ld := numeric.Log(delta)
	if s, ok := raiseUntil(sigma, 40, false, func(s float64) bool {
		d, _ := AnalyticGaussianDelta(s, eps, sens)
		return d <= delta && logGaussDeltaSigma(sens, s, eps) <= ld+checkTol
	}); ok {
		return s, nil
	}
	return 0, fmt.Errorf("accounting: AnalyticGaussianSigma: no σ reaches δ = %v at ε = %v by two independent evaluations", delta, eps)
}

// raiseUntil returns the first x that ok accepts among x, x(1 + 1e-15),
// then x(1 + 2e-15)… (steps doubling, tries values in all); absFloor also
// makes each step at least its absolute size (so that x = 0 moves). ok is
// false when none is accepted. It is the certification loop of
// AnalyticGaussianSigma and GDPEpsilon.
func raiseUntil(x float64, tries int, absFloor bool, ok func(float64) bool) (float64, bool) {
	step := 1e-15
	for i := 0; i < tries; i++ {
		if ok(x) {
			return x, true
		}
		x *= 1 + step
		if absFloor {
			x = math.Max(x, step)
		}
		step *= 2
	}
	return 0, false
}

// ClassicGaussianSigma returns the noise standard deviation of the classic
// Gaussian mechanism, σ = Δ·sqrt(2 ln(1.25/δ))/ε with Δ = sens (Dwork & Roth
// 2014, Thm A.1). That theorem only holds for ε < 1, so larger ε are an
// error here; AnalyticGaussianSigma is tight for every ε and always
// smaller. Neighbouring relation: whatever relation sens is the L2
// sensitivity for.
//
// Errors: ε NaN or not in (0, 1); δ not in (0, 1); sens NaN, <= 0 or
// infinite.
func ClassicGaussianSigma(eps, delta, sens float64) (float64, error) {
	if math.IsNaN(eps) || !(eps > 0 && eps < 1) {
		return 0, fmt.Errorf("accounting: epsilon %v not in (0, 1) (the classic Gaussian mechanism bound needs epsilon < 1)", eps)
	}
	if err := ValidateDelta(delta); err != nil {
		return 0, err
	}
	if err := ValidateSensitivity(sens); err != nil {
		return 0, err
	}
	l := math.Log(1.25 / delta)
	if delta < 0x1p-1022 { // 1.25/δ overflows, and math.Log of a subnormal is wrong
		l = math.Log(1.25) - numeric.Log(delta)
	}
	return sens * math.Sqrt(2*l) / eps, nil
}
