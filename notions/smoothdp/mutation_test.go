package smoothdp

import (
	"math"
	"testing"
)

// Tests from the notions mutation audit: each pins a stated privacy quantity
// (docs/smooth-rdp.md, Tables 1 and 3) that the rest of the suite left free.

// TestSGDSubRDPConstant checks DP-SGD-sub's RDP coefficient c·TL²/(n²σ²)
// with c = 8n/(n−1) and its validity α − 1 ≤ (σ/2L)² ln(2Ln/σ)
// (docs/smooth-rdp.md, Table 1, derivation 5), computed here from the
// table's formula.
func TestSGDSubRDPConstant(t *testing.T) {
	for _, c := range []struct {
		n, steps int
		l, sigma float64
	}{
		{1000, 100, 1, 2},
		{50, 7, 0.5, 1.5},
		{20000, 1, 2, 10},
	} {
		f, err := SGDSubRDP(c.n, c.steps, c.l, c.sigma)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		n := float64(c.n)
		coef := 8 * n / (n - 1) * float64(c.steps) * c.l * c.l / (n * n * c.sigma * c.sigma)
		amax := 1 + c.sigma*c.sigma/(4*c.l*c.l)*math.Log(2*c.l*n/c.sigma)
		if relDiff(f.AlphaMax, amax) > 1e-12 {
			t.Errorf("%+v: α_max = %v, want %v", c, f.AlphaMax, amax)
		}
		for _, a := range []float64{1.5, 2, amax} {
			if got, want := f.At(a), a*coef; relDiff(got, want) > 1e-12 {
				t.Errorf("%+v: ε(%v) = %v, want c·αTL²/(n²σ²) = %v", c, a, got, want)
			}
		}
	}
}

// TestPreprocessingSensitivities pins the covariance perturbation 6R²/n
// (Eqs. 38–41) and the trimmed-mean imputation sensitivity
// m√d(z_hi − z_lo)/(n − m − 2t) (Table 3), each computed from its formula; a
// smaller value would under-state η and with it the SRDP ε.
func TestPreprocessingSensitivities(t *testing.T) {
	for _, c := range []struct {
		r float64
		n int
	}{{1, 10}, {2.5, 1000}, {0.3, 7}} {
		if got, want := CovPerturbation(c.r, c.n), 6*c.r*c.r/float64(c.n); relDiff(got, want) > 1e-15 {
			t.Errorf("CovPerturbation(%v, %d) = %v, want 6R²/n = %v", c.r, c.n, got, want)
		}
	}
	for _, c := range []struct {
		m, d, n, t int
		lo, hi     float64
	}{
		{5, 4, 100, 10, -1, 2},
		{1, 1, 10, 0, 0, 1},
		{3, 9, 50, 20, -0.5, 0.5},
		{3, 9, 46, 21, -0.5, 0.5}, // n − m − 2t = 1
	} {
		want := float64(c.m) * math.Sqrt(float64(c.d)) * (c.hi - c.lo) / float64(c.n-c.m-2*c.t)
		if got := EtaTrimmedImpute(c.m, c.d, c.n, c.t, c.lo, c.hi); relDiff(got, want) > 1e-15 {
			t.Errorf("EtaTrimmedImpute%+v = %v, want m√d(z_hi − z_lo)/(n − m − 2t) = %v", c, got, want)
		}
	}
	if got := EtaTrimmedImpute(3, 9, 45, 21, 0, 1); !math.IsInf(got, 1) {
		t.Errorf("EtaTrimmedImpute with n − m − 2t = 0: %v, want +Inf", got)
	}
}

// TestSubsampleSRDPValues pins Lemma 2's derived form (docs/smooth-rdp.md)
//
//	ε̃'(α, η) = min_t 2[ε̃(α, (t−1)d + mη/τ) + C(m, t)(τ/n)^t ε̃(α, m·d)],
//	d = min(2R, η),
//
// on the Gaussian SRDP ε̃(2, η) = L²η²/σ² (α = 2), hand-computed: with m = 5,
// τ = 2 the terms are near_t = ((t−1)d + 5η/2)²/σ², far = (5d)²/σ² and
// w_t = C(5, t)(2/n)^t. The minimum is at t = 1 in the first two cases and at
// t = 2 in the third; the second has η > R, where d = 1.5 (not R = 1).
func TestSubsampleSRDPValues(t *testing.T) {
	for _, c := range []struct {
		name      string
		sigma     float64
		n         int
		eta, want float64
	}{
		{"t=1", 1, 100, 0.1, 2 * (0.0625 + 0.1*0.25)},             // 0.175
		{"t=1, η > R", 10, 100, 1.5, 2 * (0.140625 + 0.1*0.5625)}, // 0.39375
		{"t=2", 10, 20, 0.1, 2 * (0.001225 + 10*0.01*0.0025)},     // 0.00295
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := SubsampleSRDP(must(GaussianSRDP(1, c.sigma)), c.n, 5, 0.5, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.At(2, c.eta); relDiff(got, c.want) > 1e-12 {
				t.Errorf("ε̃'(2, %v) = %v, want %v", c.eta, got, c.want)
			}
		})
	}
}
