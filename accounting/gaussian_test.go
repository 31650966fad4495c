package accounting

import (
	"math"
	"testing"
)

// δ(ε(δ)) = δ for the analytic Gaussian mechanism, and the tight σ is below
// the classic one wherever the classic one is valid.
func TestAnalyticGaussianRoundTrip(t *testing.T) {
	for _, eps := range []float64{0, 0.01, 0.1, 0.5, 0.99, 1, 2, 5, 10, 30} {
		for _, delta := range []float64{0.5, 1e-2, 1e-5, 1e-10, 1e-20, 1e-100} {
			for _, sens := range []float64{0.1, 1, 10} {
				sigma, err := AnalyticGaussianSigma(eps, delta, sens)
				if err != nil {
					t.Fatalf("eps=%v δ=%v: %v", eps, delta, err)
				}
				d, err := AnalyticGaussianDelta(sigma, eps, sens)
				if err != nil {
					t.Fatal(err)
				}
				// δ(σ) is ill-conditioned in the far tail (δ = 1e-100: the
				// rounding of σ alone moves δ by ~1e-9 relative).
				tol := 1e-9
				if delta < 1e-50 {
					tol = 1e-7
				}
				if !near(d, delta, tol, 0) {
					t.Errorf("eps=%v δ=%v sens=%v: σ=%v gives δ=%v", eps, delta, sens, sigma, d)
				}
				if eps > 0 && eps < 1 {
					classic, err := ClassicGaussianSigma(eps, delta, sens)
					if err != nil {
						t.Fatal(err)
					}
					if sigma > classic {
						t.Errorf("eps=%v δ=%v: analytic σ %v above classic %v", eps, delta, sigma, classic)
					}
				}
			}
		}
	}
}

func TestAnalyticGaussianDeltaProperties(t *testing.T) {
	// Decreasing in σ and in ε; scale invariant in (σ, sens).
	prev := 1.0
	for _, s := range []float64{0.1, 0.5, 1, 2, 5, 20} {
		d, _ := AnalyticGaussianDelta(s, 0.5, 1)
		if !(d < prev) {
			t.Errorf("not decreasing in σ at %v: %v", s, d)
		}
		prev = d
		d2, _ := AnalyticGaussianDelta(7*s, 0.5, 7)
		if !near(d, d2, 1e-13, 1e-300) {
			t.Errorf("not scale invariant: %v vs %v", d, d2)
		}
	}
	if d, _ := AnalyticGaussianDelta(math.Inf(1), 1, 1); d != 0 {
		t.Errorf("σ=Inf: %v", d)
	}
	if d, _ := AnalyticGaussianDelta(1, math.Inf(1), 1); d != 0 {
		t.Errorf("ε=Inf: %v", d)
	}
	// Far tail: tiny but positive, never NaN.
	d, _ := AnalyticGaussianDelta(1, 50, 1)
	if math.IsNaN(d) || d < 0 || d > 1e-200 {
		t.Errorf("tail δ = %v", d)
	}
}

func TestClassicGaussianSigma(t *testing.T) {
	s, err := ClassicGaussianSigma(0.5, 1e-5, 2)
	want := 2 * math.Sqrt(2*math.Log(1.25e5)) / 0.5
	if err != nil || !near(s, want, 1e-15, 0) {
		t.Errorf("ClassicGaussianSigma = %v, %v; want %v", s, err, want)
	}
	if _, err := ClassicGaussianSigma(1, 1e-5, 1); err == nil {
		t.Error("eps = 1 accepted; the classic bound needs eps < 1")
	}
}

func TestGDP(t *testing.T) {
	// GDPDelta is the analytic-Gaussian curve with μ = Δ/σ.
	for _, mu := range []float64{0.1, 0.5, 1, 2, 5} {
		for _, eps := range []float64{0, 0.3, 1, 4} {
			g, _ := GDPDelta(mu, eps)
			a, _ := AnalyticGaussianDelta(1/mu, eps, 1)
			if !near(g, a, 1e-13, 1e-300) {
				t.Errorf("μ=%v ε=%v: GDP %v, analytic %v", mu, eps, g, a)
			}
		}
		// δ(ε(δ)) = δ.
		for _, delta := range []float64{1e-2, 1e-5, 1e-10, 1e-30} {
			eps, err := GDPEpsilon(mu, delta)
			if err != nil {
				t.Fatal(err)
			}
			d, _ := GDPDelta(mu, eps)
			if eps > 0 && (!near(d, delta, 1e-9, 0) || d > delta*(1+1e-12)) {
				t.Errorf("μ=%v δ=%v: ε=%v gives δ=%v", mu, delta, eps, d)
			}
			if eps == 0 {
				if d0, _ := GDPDelta(mu, 0); d0 > delta {
					t.Errorf("μ=%v δ=%v: ε=0 but δ(0)=%v", mu, delta, d0)
				}
			}
		}
	}
	// Large δ: ε = 0 suffices.
	if eps, _ := GDPEpsilon(0.1, 0.5); eps != 0 {
		t.Errorf("GDPEpsilon(0.1, 0.5) = %v, want 0", eps)
	}
	if eps, _ := GDPEpsilon(math.Inf(1), 1e-5); !math.IsInf(eps, 1) {
		t.Errorf("GDPEpsilon(Inf) = %v", eps)
	}
	if d, _ := GDPDelta(0, 1); d != 0 {
		t.Errorf("GDPDelta(0) = %v", d)
	}
	if d, _ := GDPDelta(math.Inf(1), 1); d != 1 {
		t.Errorf("GDPDelta(Inf) = %v", d)
	}
	// Composition.
	if m, _ := ComposeGDP(3, 4); !near(m, 5, 1e-15, 0) {
		t.Errorf("ComposeGDP(3,4) = %v", m)
	}
	if m, _ := ComposeGDP(); m != 0 {
		t.Errorf("ComposeGDP() = %v", m)
	}
	if m, _ := ComposeGDP(1e200, 1e200); !near(m, math.Sqrt2*1e200, 1e-15, 0) {
		t.Errorf("ComposeGDP overflow: %v", m)
	}
	if m, _ := ComposeGDP(1, math.Inf(1)); !math.IsInf(m, 1) {
		t.Errorf("ComposeGDP(Inf) = %v", m)
	}
	// Composing k μ-GDP mechanisms is √k μ-GDP.
	m1, _ := ComposeGDP(0.5, 0.5, 0.5, 0.5)
	if !near(m1, 1, 1e-15, 0) {
		t.Errorf("ComposeGDP(0.5 x4) = %v", m1)
	}
}

func TestPoissonCLTMu(t *testing.T) {
	mu, err := PoissonCLTMu(0.01, 1, 10000)
	want := 0.01 * math.Sqrt(10000*(math.E-1))
	if err != nil || !near(mu, want, 1e-14, 0) {
		t.Errorf("PoissonCLTMu = %v, %v; want %v", mu, err, want)
	}
	for _, tc := range []struct {
		q, z  float64
		steps int
		want  float64
	}{
		{0, 1, 10, 0}, {0.1, math.Inf(1), 10, 0}, {0.1, 1, 0, 0}, {0.1, 0, 10, math.Inf(1)},
		{0.1, 1e-3, 10, math.Inf(1)}, {0, 1e-3, 10, 0},
	} {
		got, err := PoissonCLTMu(tc.q, tc.z, tc.steps)
		if err != nil || got != tc.want {
			t.Errorf("PoissonCLTMu(%v, %v, %v) = %v, %v; want %v", tc.q, tc.z, tc.steps, got, err, tc.want)
		}
	}
	// Tiny z near the overflow threshold: finite or +Inf, not NaN.
	for _, z := range []float64{0.1, 0.0378, 0.0377, 0.03, 0.01} {
		got, _ := PoissonCLTMu(0.5, z, 1000000)
		if math.IsNaN(got) || got <= 0 {
			t.Errorf("z=%v: μ = %v", z, got)
		}
	}
}

// SubsampledGaussianDelta against a direct numerical integration of the
// hockey-stick divergence in both directions.
func TestSubsampledGaussianDelta(t *testing.T) {
	phi := func(x, m, s float64) float64 { return math.Exp(-(x-m)*(x-m)/(2*s*s)) / (s * math.Sqrt(2*math.Pi)) }
	hockey := func(q, z, eps float64) float64 {
		lo, hi := -40*z, 1+40*z
		n := 400000
		h := (hi - lo) / float64(n)
		var s1, s2 float64
		for i := 0; i <= n; i++ {
			x := lo + float64(i)*h
			p := (1-q)*phi(x, 0, z) + q*phi(x, 1, z)
			qq := phi(x, 0, z)
			w := h
			if i == 0 || i == n {
				w = h / 2
			}
			s1 += w * math.Max(0, p-math.Exp(eps)*qq)
			s2 += w * math.Max(0, qq-math.Exp(eps)*p)
		}
		return math.Max(s1, s2)
	}
	for _, tc := range []struct{ q, z, eps float64 }{
		{0.1, 1, 0.05}, {0.1, 1, 0.5}, {0.5, 0.7, 0.2}, {0.01, 0.5, 1}, {1, 2, 0.3}, {0.3, 2, 0}, {0.9, 1, 0.01},
	} {
		got, err := SubsampledGaussianDelta(tc.q, tc.z, tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		want := hockey(tc.q, tc.z, tc.eps)
		if !near(got, want, 1e-6, 1e-12) {
			t.Errorf("q=%v z=%v ε=%v: δ %v, numerical %v", tc.q, tc.z, tc.eps, got, want)
		}
	}
	// q = 1 is the analytic Gaussian mechanism.
	d1, _ := SubsampledGaussianDelta(1, 1.3, 0.7)
	d2, _ := AnalyticGaussianDelta(1.3, 0.7, 1)
	if !near(d1, d2, 1e-14, 0) {
		t.Errorf("q=1: %v vs %v", d1, d2)
	}
	for _, tc := range []struct{ q, z, eps, want float64 }{
		{0, 1, 1, 0}, {0.2, math.Inf(1), 1, 0}, {0.2, 0, 3, 0.2}, {0.2, 1, math.Inf(1), 0},
	} {
		if got, err := SubsampledGaussianDelta(tc.q, tc.z, tc.eps); err != nil || got != tc.want {
			t.Errorf("SubsampledGaussianDelta(%v, %v, %v) = %v, %v; want %v", tc.q, tc.z, tc.eps, got, err, tc.want)
		}
	}
}
