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
//   - where Φ(b) and e^ε are comfortably in range, as
//     [Φ(a) − Φ(b)] − expm1(ε)·Φ(b), with Φ(a) − Φ(b) from erf or erfc
//     differences on one side of 0 (accurate for small μ and small ε,
//     where the direct formula cancels);
//   - otherwise in log space, log Φ(a) + log(−expm1(ε + log Φ(b) − log Φ(a))),
//     which neither overflows for large ε nor underflows in the far tail.
//
// μ > 0 finite and ε >= 0 finite are the caller's responsibility. -Inf
// means δ is below what float64 arithmetic resolves.
func logGaussDelta(mu, eps float64) float64 {
	a := mu/2 - eps/mu
	b := -mu/2 - eps/mu
	if eps < 700 && b > -37 {
		if d := normDiff(a, b) - math.Expm1(eps)*numeric.NormCDF(b); d > 1e-290 {
			return math.Log(d)
		}
	}
	la := numeric.LogNormCDF(a)
	d := eps + numeric.LogNormCDF(b) - la
	if !(d < 0) {
		return math.Inf(-1)
	}
	return la + math.Log(-math.Expm1(d))
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
// ε = +Inf.
func gaussDelta(mu, eps float64) float64 {
	switch {
	case mu == 0 || math.IsInf(eps, 1):
		return 0
	case math.IsInf(mu, 1):
		return 1
	}
	return math.Exp(logGaussDelta(mu, eps))
}

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
// sampling. It is computed in log space, accurate to about 1e-15 absolute
// and to a few ulps relative unless δ is many orders below Φ(Δ/(2σ) − εσ/Δ).
//
// σ = +Inf or ε = +Inf give 0. Errors: σ NaN or <= 0, ε NaN or negative,
// sens NaN, <= 0 or infinite.
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
	return gaussDelta(sens/sigma, eps), nil
}

// gaussMuForDelta returns the largest μ = Δ/σ with δ_μ(ε) ≤ delta (δ_μ is
// increasing in μ), found by Brent's method on log δ to 1e-14 relative.
func gaussMuForDelta(eps, delta float64) float64 {
	ld := math.Log(delta)
	g := func(mu float64) float64 { return ld - logGaussDelta(mu, eps) } // decreasing in μ
	lo, hi := 1.0, 1.0
	glo := g(lo)
	ghi := glo
	if glo > 0 {
		for ghi > 0 {
			lo, glo = hi, ghi
			hi *= 2
			ghi = g(hi)
		}
	} else {
		for glo <= 0 {
			hi, ghi = lo, glo
			lo /= 2
			glo = g(lo)
		}
	}
	lo, _ = numeric.BrentDecreasing(g, lo, hi, glo, ghi, 1e-14)
	return lo
}

// AnalyticGaussianSigma returns the smallest noise standard deviation σ for
// which the Gaussian mechanism on a query of L2 sensitivity sens is
// (ε, δ)-DP, i.e. the σ solving AnalyticGaussianDelta(σ, ε, sens) = δ
// (Balle & Wang 2018, Alg. 1, solved here by Brent's method on
// log δ(Δ/σ) to about 1e-14 relative rather than by their bisection). The
// returned σ satisfies AnalyticGaussianDelta(σ, ε, sens) ≤ δ. Neighbouring
// relation: whatever relation sens is the L2 sensitivity for. One release,
// no sampling. Example: (ε, δ, sens) = (0.5, 1e-10, 10) gives 114.3624…;
// (1, 1e-5, 1) gives 3.730632….
//
// Errors: ε NaN, negative or infinite; δ not in (0, 1); sens NaN, <= 0 or
// infinite.
func AnalyticGaussianSigma(eps, delta, sens float64) (float64, error) {
	if err := ValidateEpsilon(eps); err != nil {
		return 0, err
	}
	if math.IsInf(eps, 1) {
		return 0, fmt.Errorf("accounting: epsilon is +Inf")
	}
	if err := ValidateDelta(delta); err != nil {
		return 0, err
	}
	if err := ValidateSensitivity(sens); err != nil {
		return 0, err
	}
	sigma := sens / gaussMuForDelta(eps, delta)
	// sens/μ rounds, and δ recomputed from σ carries rounding noise of a
	// few 1e-12 relative, so it may exceed the target (found by the
	// invariant tests: 5e-12 relative at ε = 0.0154, δ = 1e-9). Raise σ by
	// geometrically growing steps (1e-15, 2e-15, …) until the promise
	// δ(σ) ≤ δ holds as computed.
	step := 1e-15
	for i := 0; i < 60; i++ {
		if d, _ := AnalyticGaussianDelta(sigma, eps, sens); d <= delta {
			return sigma, nil
		}
		sigma *= 1 + step
		step *= 2
	}
	return 0, fmt.Errorf("accounting: AnalyticGaussianSigma: no σ reaches δ = %v at ε = %v", delta, eps)
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
	return sens * math.Sqrt(2*math.Log(1.25/delta)) / eps, nil
}
