package accounting

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Invariants of the analytic Gaussian and GDP accountants and of the
// one-step subsampled Gaussian curve, checked on seeded random points (in
// the suite) and by FuzzGaussianInvariants (make fuzz):
//   - δ(σ, ε) ∈ [0, 1], non-increasing in ε and in σ;
//   - the calibrated σ is never too small: δ(σ_cal, ε) ≤ δ target, and
//     tight (δ(0.999·σ_cal, ε) > δ target);
//   - analytic σ ≤ classic σ = Δ√(2 ln(1.25/δ))/ε (ε < 1);
//   - GDP: δ_μ(ε) = the analytic Gaussian's δ with σ = Δ/μ; GDPEpsilon
//     inverts it from above; ComposeGDP of μ's = √Σμ²;
//   - subsampled curve: q = 1 gives the analytic Gaussian, δ non-decreasing
//     in q, and ε from the RDP accountant for one step (q = 1) is never
//     below the tight analytic ε.

// gaussianInvariants checks one point; it returns a description of the
// first violation, or "".
func gaussianInvariants(sigma, eps, delta, q float64) string {
	d, err := AnalyticGaussianDelta(sigma, eps, 1)
	if err != nil || !(d >= 0 && d <= 1) {
		return "δ(σ, ε) not in [0, 1]"
	}
	if d2, _ := AnalyticGaussianDelta(sigma, eps*1.1+0.01, 1); d2 > d {
		return "δ increases with ε"
	}
	if d3, _ := AnalyticGaussianDelta(sigma*1.1, eps, 1); d3 > d {
		return "δ increases with σ"
	}
	s, err := AnalyticGaussianSigma(eps, delta, 1)
	if err != nil {
		return "calibration failed: " + err.Error()
	}
	if dc, _ := AnalyticGaussianDelta(s, eps, 1); dc > delta {
		return "calibrated σ too small: δ(σ_cal) > δ"
	}
	if dt, _ := AnalyticGaussianDelta(s*0.999, eps, 1); dt <= delta {
		return "calibrated σ not tight"
	}
	if eps < 1 {
		if c, _ := ClassicGaussianSigma(eps, delta, 1); s > c*(1+1e-12) {
			return "analytic σ above the classic σ"
		}
	}
	mu := 1 / sigma
	if g, _ := GDPDelta(mu, eps); math.Abs(g-d) > 1e-12*math.Max(d, 1e-300)+1e-300 {
		return "GDP δ differs from the analytic Gaussian's"
	}
	if e, _ := GDPEpsilon(mu, delta); e > 0 {
		if g, _ := GDPDelta(mu, e); g > delta*(1+1e-9) {
			return "GDPEpsilon below the true ε"
		}
	}
	if c, _ := ComposeGDP(mu, 2*mu, 2*mu); math.Abs(c-3*mu) > 1e-12*3*mu {
		return "ComposeGDP is not √Σμ²"
	}
	return subsampledInvariants(sigma, eps, delta, q, d)
}

// subsampledInvariants checks the one-step subsampled curve and the RDP
// accountant against the tight analytic bound.
func subsampledInvariants(sigma, eps, delta, q, d float64) string {
	if s1, _ := SubsampledGaussianDelta(1, sigma, eps); math.Abs(s1-d) > 1e-9*math.Max(d, 1e-300)+1e-300 {
		return "subsampled δ at q = 1 differs from the analytic Gaussian"
	}
	a, _ := SubsampledGaussianDelta(q, sigma, eps)
	if b, _ := SubsampledGaussianDelta(math.Min(1, q*1.5), sigma, eps); b < a*(1-1e-9) { // rounding in log1p/expm1 at δ ~ 1e-72 is ~1e-11 relative
		return "subsampled δ decreases with q"
	}
	rdpEps, _, err := Epsilon([]Phase{{SampleRate: 1, NoiseMultiplier: sigma, Steps: 1}}, delta, OrdersOpacus(), ConversionImproved)
	if err != nil {
		return "RDP accountant failed: " + err.Error()
	}
	if tight, _ := AnalyticGaussianDelta(sigma, rdpEps, 1); tight > delta*(1+1e-9) {
		return "RDP ε below the tight analytic ε"
	}
	return ""
}

// randomGaussianPoint draws σ ∈ [0.3, 50], ε ∈ [0.01, 10], δ ∈ [1e-12, 0.1]
// (log-uniform) and q ∈ [1e-4, 1].
func randomGaussianPoint(rng *rand.Rand) (sigma, eps, delta, q float64) {
	lu := func(lo, hi float64) float64 {
		return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
	}
	return lu(0.3, 50), lu(0.01, 10), lu(1e-12, 0.1), lu(1e-4, 1)
}

func TestGaussianInvariantsSeeded(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 34))
	for i := 0; i < 300; i++ {
		s, e, d, q := randomGaussianPoint(rng)
		if msg := gaussianInvariants(s, e, d, q); msg != "" {
			t.Errorf("σ=%v ε=%v δ=%v q=%v: %s", s, e, d, q, msg)
		}
	}
}

func FuzzGaussianInvariants(f *testing.F) {
	f.Add(1.0, 1.0, 1e-5, 0.01)
	f.Add(0.5, 0.1, 1e-10, 1.0)
	f.Add(40.0, 8.0, 0.05, 0.3)
	f.Fuzz(func(t *testing.T, sigma, eps, delta, q float64) {
		// Fold any finite input into the ranges (log scale for δ, q).
		fold := func(x, lo, hi float64) float64 {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return lo
			}
			return lo + math.Mod(math.Abs(x), hi-lo)
		}
		sigma, eps = fold(sigma, 0.3, 50), fold(eps, 0.01, 10)
		delta, q = math.Pow(10, -fold(delta, 1, 12)), math.Pow(10, -fold(q, 0, 4))
		if msg := gaussianInvariants(sigma, eps, delta, q); msg != "" {
			t.Errorf("σ=%v ε=%v δ=%v q=%v: %s", sigma, eps, delta, q, msg)
		}
	})
}

// Regression: the calibrated σ = Δ/μ rounded so that δ(σ) exceeded the
// target by 2.5e-12 relative (found by TestGaussianInvariantsSeeded).
func TestAnalyticGaussianSigmaRounding(t *testing.T) {
	for _, c := range [][2]float64{{0.01531710850738943, 9.528426435291714e-10}, {0.015357142857142857, 9.998560987864602e-10}} {
		checkSigmaRounding(t, c[0], c[1])
	}
}

func checkSigmaRounding(t *testing.T, eps, delta float64) {
	t.Helper()
	for _, sens := range []float64{1, 0.1, 7} {
		s, err := AnalyticGaussianSigma(eps, delta, sens)
		if err != nil {
			t.Fatal(err)
		}
		if d, _ := AnalyticGaussianDelta(s, eps, sens); d > delta {
			t.Errorf("sens %v: δ(σ_cal) = %v > δ = %v", sens, d, delta)
		}
	}
}
