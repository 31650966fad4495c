package accounting

import (
	"fmt"
	"math"

	"github.com/featuredp/featuredp/internal/numeric"
)

// ValidateMu returns an error unless the GDP parameter mu is >= 0 and not
// NaN (+Inf is allowed).
func ValidateMu(mu float64) error {
	if math.IsNaN(mu) || mu < 0 {
		return fmt.Errorf("accounting: GDP mu %v is not >= 0", mu)
	}
	return nil
}

// GDPDelta returns the privacy curve of μ-Gaussian differential privacy
// (Dong, Roth & Su 2019, Cor. 2.13):
//
//	δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2),
//
// i.e. a μ-GDP mechanism is (ε, δ_μ(ε))-DP for every ε >= 0 (under the
// neighbouring relation its GDP guarantee is for). It is the analytic
// Gaussian curve with μ = Δ/σ and is computed the same stable way. μ = 0 or
// ε = +Inf give 0; μ = +Inf gives 1; otherwise a δ below the float64 range
// is reported as the smallest positive float64, never 0.
//
// Errors: μ NaN or negative, ε NaN or negative.
func GDPDelta(mu, eps float64) (float64, error) {
	if err := ValidateMu(mu); err != nil {
		return 0, err
	}
	if err := ValidateEpsilon(eps); err != nil {
		return 0, err
	}
	return gaussDelta(mu, eps), nil
}

// GDPEpsilon is the inverse of GDPDelta in ε: the smallest ε >= 0 with
// δ_μ(ε) ≤ δ, found by Brent's method on log δ_μ (δ_μ is decreasing in ε)
// and then certified like AnalyticGaussianSigma: ε is raised by
// geometrically growing steps until δ_μ(ε) ≤ δ as computed and
// δ_μ(ε) ≤ δ·(1 + 1e-12) by the independent evaluation logDeltaErfcx.
// Both evaluations are accurate to about 1e-13 relative in δ for every
// μ > 0 (the difference route cost 8e-7 relative in ε at μ = 1e-8 before
// it was restricted), so ε is never below the exact ε for δ·(1 + 1e-12),
// and at most about 1e-12 relative above the exact ε for δ (tolerances in
// docs/accounting.md). It returns 0 when δ_μ(0) ≤ δ
// already (μ = 0 included) and +Inf for μ = +Inf.
//
// Errors: μ NaN or negative, δ not in (0, 1), an ε above
// MaxAnalyticEpsilon (μ above about 1.4e8).
func GDPEpsilon(mu, delta float64) (float64, error) {
	if err := ValidateMu(mu); err != nil {
		return 0, err
	}
	if err := ValidateDelta(delta); err != nil {
		return 0, err
	}
	switch {
	case mu == 0:
		return 0, nil
	case math.IsInf(mu, 1):
		return math.Inf(1), nil
	}
	ld := numeric.Log(delta)
	g := func(eps float64) float64 { return logGaussDelta(mu, eps) - ld } // decreasing in ε
	g0 := g(0)
	if g0 <= 0 {
		return certifyGDPEpsilon(mu, 0, ld, delta)
	}
	lo, hi := 0.0, 1.0
	glo, ghi := g0, g(1)
	for ghi > 0 {
		lo, glo = hi, ghi
		hi *= 2
		if hi > 2*MaxAnalyticEpsilon {
			return 0, fmt.Errorf("accounting: GDPEpsilon: ε for μ = %v, δ = %v is above %g, the usable range of the Gaussian curve (see docs/accounting.md)", mu, delta, float64(MaxAnalyticEpsilon))
		}
		ghi = g(hi)
	}
	_, hi = numeric.BrentDecreasing(g, lo, hi, glo, ghi, 1e-14)
	return certifyGDPEpsilon(mu, hi, ld, delta)
}

// gdpCheck reports whether δ_μ(ε) ≤ exp(ld)·(1 + checkTol) by logDeltaErfcx with a
// from double-double arithmetic (independent of the route logGaussDelta
// took).
func gdpCheck(mu, eps, ld float64) bool {
	q, r := divDD(eps, mu)
	return logDeltaErfcx(mu/2-q, -r, mu, ulpBound(q, mu)) <= ld+checkTol
}

// certifyGDPEpsilon raises ε until δ_μ(ε) ≤ δ by both evaluations, by
// steps of 1e-15, 2e-15, … relative (and absolute from 0), at most a 1e-9
// relative total, then reports failure rather than a low ε.
func certifyGDPEpsilon(mu, eps, ld, delta float64) (float64, error) {
	if e, ok := raiseUntil(eps, 20, true, func(e float64) bool {
		return logGaussDelta(mu, e) <= ld && gdpCheck(mu, e, ld)
	}); ok {
		return e, nil
	}
	return 0, fmt.Errorf("accounting: GDPEpsilon: no ε reaches δ = %v at μ = %v by two independent evaluations", delta, mu)
}

// ComposeGDP returns the GDP parameter of the composition of mechanisms that
// are μ_i-GDP: sqrt(Σ μ_i²) (Dong, Roth & Su 2019, Cor. 3.3), computed
// without intermediate overflow. No arguments gives 0 (nothing released);
// any +Inf gives +Inf.
//
// Errors: any μ NaN or negative.
func ComposeGDP(mus ...float64) (float64, error) {
	scale := 0.0
	for _, m := range mus {
		if err := ValidateMu(m); err != nil {
			return 0, err
		}
		scale = math.Max(scale, m)
	}
	if scale == 0 || math.IsInf(scale, 1) {
		return scale, nil
	}
	s := 0.0
	for _, m := range mus {
		r := m / scale
		s += r * r
	}
	return scale * math.Sqrt(s), nil
}

// PoissonCLTMu returns the μ of the central-limit GDP approximation of steps
// steps of the Poisson-subsampled Gaussian mechanism with rate q and noise
// multiplier z (Bu, Dong, Long & Su 2020, "Deep learning with Gaussian
// differential privacy", Thm 5; add/remove-one neighbours):
//
//	μ = q·sqrt(T·(e^{1/z²} − 1)).
//
// It is an asymptotic approximation (T → ∞ with q√T fixed), not an upper
// bound; it tends to under-state ε for small T or large q. Tiny z gives
// +Inf rather than overflowing to NaN; q = 0, T = 0 or z = +Inf give 0; z = 0
// with q > 0 and T > 0 gives +Inf.
//
// Errors: q NaN or not in [0, 1], z NaN or negative, steps negative.
func PoissonCLTMu(q, z float64, steps int) (float64, error) {
	if err := ValidateSampleRate(q); err != nil {
		return 0, err
	}
	if err := ValidateNoiseMultiplier(z); err != nil {
		return 0, err
	}
	if err := ValidateSteps(steps); err != nil {
		return 0, err
	}
	switch {
	case q == 0 || steps == 0 || math.IsInf(z, 1):
		return 0, nil
	case z == 0:
		return math.Inf(1), nil
	}
	x := 1 / (z * z)
	t := float64(steps)
	if x < 700 {
		return q * math.Sqrt(t*math.Expm1(x)), nil
	}
	// log μ = log q + (log T + x + log1p(−e^{−x}))/2; e^{−x} is negligible.
	return math.Exp(math.Log(q) + 0.5*(math.Log(t)+x)), nil
}

// SubsampledGaussianDelta returns the exact δ(ε) of ONE step of the
// Poisson-subsampled Gaussian mechanism with rate q and noise multiplier z
// under add/remove-one neighbours: the maximum over the two directions of
// the hockey-stick divergence H_{e^ε} between
//
//	P = (1−q)·N(0, z²) + q·N(1, z²)   (the record present)   and   Q = N(0, z²),
//
// (clip norm 1). Both directions reduce to the Gaussian curve gaussDelta
// (with μ = 1/z) at a shifted ε:
//
//	H(P‖Q) = q·δ_{1/z}(log(1 + (e^ε − 1)/q)),
//	H(Q‖P) = (1 − e^ε(1−q))·δ_{1/z}(−log(1 + (e^{−ε} − 1)/q))  if e^{−ε} > 1−q, else 0.
//
// This is the one-step privacy curve used by the Feature-DP paper's exact
// per-step statements; for T > 1 steps use the RDP Accountant (the exact
// T-fold curve needs a privacy-loss-distribution accountant). q = 1 gives
// AnalyticGaussianDelta(z, ε, 1); q = 0 or z = +Inf give 0; z = 0 gives q
// (the sampled record is revealed with probability q); otherwise a δ below
// the float64 range is reported as the smallest positive float64, never 0.
//
// Errors: q NaN or not in [0, 1], z NaN or negative, ε NaN or negative.
func SubsampledGaussianDelta(q, z, eps float64) (float64, error) {
	if err := ValidateSampleRate(q); err != nil {
		return 0, err
	}
	if err := ValidateNoiseMultiplier(z); err != nil {
		return 0, err
	}
	if err := ValidateEpsilon(eps); err != nil {
		return 0, err
	}
	switch {
	case q == 0 || math.IsInf(z, 1) || math.IsInf(eps, 1):
		return 0, nil
	case z == 0:
		return q, nil
	}
	mu := 1 / z
	// Direction 1: remove (P over Q).
	eps1 := math.Log1p(math.Expm1(eps) / q)
	if math.IsInf(eps1, 1) {
		// (e^ε − 1)/q overflows (ε > 709): log(1 + (e^ε − 1)/q) =
		// ε − log q + log1p(−(1−q)e^{−ε}), the last term below 1e-300.
		eps1 = eps - numeric.Log(q)
	}
	d1 := q * gaussDelta(mu, eps1)
	// Direction 2: add (Q over P); non-zero only when e^{−ε} > 1 − q.
	d2 := 0.0
	if q == 1 || -eps > math.Log1p(-q) {
		eps2 := -math.Log1p(math.Expm1(-eps) / q)
		pre := -math.Expm1(eps + math.Log1p(-q)) // 1 − e^ε(1−q)
		d2 = pre * gaussDelta(mu, eps2)
	}
	return minPositiveDelta(math.Max(d1, d2)), nil
}
