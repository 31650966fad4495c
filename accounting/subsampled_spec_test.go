package accounting

// Checks P1–P4, P8, P12 and P13 of the feature-DP spec (fdp.md §5): values of
// the Poisson-subsampled Gaussian accountant that Algorithm 1 of the
// feature-DP paper uses unchanged (notions/fdp tests the rest).

import (
	"math"
	"testing"
)

// specRel returns |got − want| / |want|.
func specRel(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// P1, P2, P3: per-step RDP of the subsampled Gaussian.
func TestSpecPerStepRDP(t *testing.T) {
	cases := []struct {
		name        string
		q, z, alpha float64
		want        float64
		tol         float64
	}{
		{"P1 (0.01,1)", 0.01, 1, 2, 1.7181342207e-4, 1e-9},
		{"P1 (0.1,2)", 0.1, 2, 2, 2.836228266e-3, 1e-9},
		{"P1 (1/16,1)", 1.0 / 16, 1, 2, 6.689612954e-3, 1e-9},
		{"P2 q=1", 1, 2, 10, 1.25, 1e-12},
		{"P3 α=3", 0.01, 1, 3, 2.6463757458e-4, 1e-9},
		{"P3 α=1.5", 0.01, 1, 1.5, 1.2725374351e-4, 1e-8},
		{"P3 α=10", 0.01, 1, 10, 3.827041889e-2, 1e-8},
		{"P3 α=2.5", 1.0 / 16, 1, 2.5, 8.956472120e-3, 1e-8},
		{"P3 α=10 q=1/16", 1.0 / 16, 1, 10, 1.921431404, 1e-8},
	}
	for _, c := range cases {
		got, err := RDPSubsampledGaussian(c.q, c.z, c.alpha)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if specRel(got, c.want) > c.tol {
			t.Errorf("%s: RDP = %.12g, want %.12g", c.name, got, c.want)
		}
	}
	// P1 closed form log(1 + q²(e^{1/z²} − 1)).
	for _, qz := range [][2]float64{{0.01, 1}, {0.1, 2}, {1.0 / 16, 1}} {
		got, _ := RDPSubsampledGaussian(qz[0], qz[1], 2)
		want := math.Log1p(qz[0] * qz[0] * math.Expm1(1/(qz[1]*qz[1])))
		if specRel(got, want) > 1e-12 {
			t.Errorf("P1 closed form (%v): %v vs %v", qz, got, want)
		}
	}
}

// P4: the fractional-order path at (nearly) integer α agrees with the
// integer path.
func TestSpecFractionalPathMatchesInteger(t *testing.T) {
	for _, qz := range [][2]float64{{0.01, 1}, {1.0 / 16, 1}, {0.1, 2}} {
		for _, a := range []float64{2, 3, 5, 10} {
			c := newSGM(qz[0], qz[1])
			ser, _ := c.fracSeries(a)
			frac, _ := ser.upper()
			integer := c.logAInt(int(a))
			if math.Abs(frac-integer) > 1e-9*math.Max(1e-300, math.Abs(integer)) {
				t.Errorf("P4 (q,z)=%v α=%v: frac %v vs int %v", qz, a, frac, integer)
			}
		}
	}
}

// P8: calibration, Opacus bisection and the exact root.
func TestSpecCalibration(t *testing.T) {
	if testing.Short() {
		t.Skip("calibration takes a few seconds")
	}
	cases := []struct {
		name         string
		q            float64
		steps        int
		delta, eps   float64
		root, opacus float64
		rootTol      float64
	}{
		{"AFHQ", 128.0 / 14630, 11430, 1.0 / 29260, 8, 0.8597, 0.8599853515625, 1e-4},
		{"LSUN", 16384.0 / 3033042, 92561, 1.0 / 6066084, 0.5, 15.48, 15.625, 5e-3},
		{"q=0.01 ε=1", 0.01, 2000, 1e-5, 1, 1.981, 1.9921875, 1e-3},
		{"q=0.01 ε=8", 0.01, 2000, 1e-5, 8, 0.671, 0.67169189453125, 1e-3},
	}
	for _, c := range cases {
		op, err := NoiseMultiplierOpacus(c.eps, c.delta, c.q, c.steps)
		if err != nil {
			t.Fatal(err)
		}
		if op != c.opacus {
			t.Errorf("P8 %s: Opacus z = %.13g, want %.13g", c.name, op, c.opacus)
		}
		root, err := NoiseMultiplier(c.eps, c.delta, c.q, c.steps, OrdersOpacus(), ConversionImproved)
		if err != nil {
			t.Fatal(err)
		}
		if specRel(root, c.root) > c.rootTol {
			t.Errorf("P8 %s: root z = %.6f, want %.4g", c.name, root, c.root)
		}
	}
}

// P12: the exact one-step subsampled-Gaussian δ(ε) (reused
// SubsampledGaussianDelta), with the spec's closed form, and RDP(T=1) ≥ it.
func TestSpecOneStepExact(t *testing.T) {
	phi := func(x float64) float64 { return 0.5 * math.Erfc(x/math.Sqrt2) } // Φ̄
	cases := []struct{ q, z, eps, rdp float64 }{
		{0.01, 1, 0.199450, 0.956}, {0.1, 1, 1.684544, 2.133}, {0.01, 0.5, 3.025358, 4.395}, {0.5, 2, 1.353573, 1.523},
	}
	for _, c := range cases {
		d, err := SubsampledGaussianDelta(c.q, c.z, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		if specRel(d, 1e-5) > 1e-4 {
			t.Errorf("P12 (%v,%v): δ(%v) = %v, want 1e-5", c.q, c.z, c.eps, d)
		}
		xs := c.z*c.z*math.Log((math.Exp(c.eps)-1+c.q)/c.q) + 0.5
		closed := (1-c.q)*phi(xs/c.z) + c.q*phi((xs-1)/c.z) - math.Exp(c.eps)*phi(xs/c.z)
		if specRel(closed, d) > 1e-6 {
			t.Errorf("P12 closed form %v vs %v", closed, d)
		}
		r, _, _ := Epsilon([]Phase{{SampleRate: c.q, NoiseMultiplier: c.z, Steps: 1}}, 1e-5, OrdersOpacus(), ConversionImproved)
		if r < c.eps || math.Abs(r-c.rdp) > 2e-3 {
			t.Errorf("P12 RDP(T=1) (%v,%v) = %v, want ≈ %v ≥ %v", c.q, c.z, r, c.rdp, c.eps)
		}
	}
}

// P13: CLT μ (loose agreement only).
func TestSpecCLT(t *testing.T) {
	mu, err := PoissonCLTMu(128.0/14630, 0.86, 11430)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := GDPEpsilon(mu, 1.0/29260)
	if math.Abs(mu-1.5834) > 1e-3 || math.Abs(e-7.06) > 0.02 {
		t.Errorf("P13 AFHQ μ = %v, ε_CLT = %v", mu, e)
	}
}
