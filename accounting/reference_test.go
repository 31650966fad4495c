package accounting

import (
	"math"
	"testing"
)

// The reference values R1–R9 (published by
// Opacus, TF Privacy, dp_accounting, PipelineDP and recomputed there). The
// tolerance is 1e-9 relative unless the reference states another one or
// gives fewer digits, in which case it is half a unit of the last digit
// given.

func near(got, want, rel, abs float64) bool {
	if math.IsInf(want, 0) {
		return got == want
	}
	d := math.Abs(got - want)
	return d <= abs || d <= rel*math.Abs(want)
}

func TestReferenceEpsilon(t *testing.T) {
	tests := []struct {
		id        string
		q, z      float64
		steps     int
		delta     float64
		orders    []float64
		conv      Conversion
		wantEps   float64
		rel, abs  float64
		wantOrder float64
	}{
		{"R1 improved", 0.04, 1.5, 2250, 1e-5, OrdersOpacus(), ConversionImproved, 7.32911117143, 1e-9, 0, 3.9},
		{"R1 classic", 0.04, 1.5, 2250, 1e-5, OrdersOpacus(), ConversionClassic, 8.07385, 0, 5e-6, 4.1},
		{"R3 improved", 0.0025, 1.3, 6000, 1e-5, OrdersTFP(), ConversionImproved, 0.7242234026109595, 1e-9, 0, 19},
		{"R3 classic", 0.0025, 1.3, 6000, 1e-5, OrdersTFP(), ConversionClassic, 0.941870567, 1e-9, 5e-10, 19},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			// Through the Accountant …
			acc, err := NewAccountant(tc.orders)
			if err != nil {
				t.Fatal(err)
			}
			if err := acc.Add(Phase{SampleRate: tc.q, NoiseMultiplier: tc.z, Steps: tc.steps}); err != nil {
				t.Fatal(err)
			}
			eps, order, err := acc.Epsilon(tc.delta, tc.conv)
			if err != nil {
				t.Fatal(err)
			}
			if !near(eps, tc.wantEps, tc.rel, tc.abs) {
				t.Errorf("eps = %.15g, want %.15g (rel %g, abs %g)", eps, tc.wantEps, tc.rel, tc.abs)
			}
			if order != tc.wantOrder {
				t.Errorf("optimal order = %v, want %v", order, tc.wantOrder)
			}
			// … and through ComputeRDP + EpsilonFromRDP.
			rdp, err := ComputeRDP(tc.q, tc.z, tc.steps, tc.orders)
			if err != nil {
				t.Fatal(err)
			}
			eps2, order2, err := EpsilonFromRDP(tc.orders, rdp, tc.delta, tc.conv)
			if err != nil || eps2 != eps || order2 != order {
				t.Errorf("EpsilonFromRDP = %v, %v, %v; Accountant gave %v, %v", eps2, order2, err, eps, order)
			}
		})
	}
}

// R2: Opacus' get_noise_multiplier bisection.
func TestReferenceR2NoiseMultiplierOpacus(t *testing.T) {
	for _, tc := range []struct {
		steps int
		want  float64
	}{{2250, 1.416015625}, {2000, 1.356201171875}} {
		got, err := NoiseMultiplierOpacus(8, 1e-5, 0.04, tc.steps)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("T=%d: noise multiplier %.15g, want %.15g", tc.steps, got, tc.want)
		}
	}
}

// R4: the conversion alone.
func TestReferenceR4Conversion(t *testing.T) {
	var orders, rdp []float64
	for a := 2; a <= 32; a++ {
		orders = append(orders, float64(a))
		rdp = append(rdp, 1.1)
	}
	eps, order, err := EpsilonFromRDP(orders, rdp, 1e-5, ConversionImproved)
	if err != nil {
		t.Fatal(err)
	}
	if !near(eps, 1.32783806176, 1e-9, 0) || order != 32 {
		t.Errorf("improved: eps %.15g order %v, want 1.32783806176 at 32", eps, order)
	}
	eps, _, err = EpsilonFromRDP(orders, rdp, 1e-5, ConversionClassic)
	if err != nil {
		t.Fatal(err)
	}
	if !near(eps, 1.47138, 0, 5e-6) {
		t.Errorf("classic: eps %.15g, want 1.47138", eps)
	}
}

// R5: per-order RDP of the subsampled Gaussian, T = 50, rtol 1e-4.
func TestReferenceR5RDP(t *testing.T) {
	orders := []float64{1.5, 2.5, 5, 50, 100, math.Inf(1)}
	want := []float64{6.5007e-4, 1.0854e-3, 2.1808e-3, 2.3846e-2, 1.6742e2, math.Inf(1)}
	got, err := ComputeRDP(0.01, 2.5, 50, orders)
	if err != nil {
		t.Fatal(err)
	}
	for k := range orders {
		if !near(got[k], want[k], 1e-4, 0) {
			t.Errorf("order %v: RDP %.6g, want %.6g", orders[k], got[k], want[k])
		}
	}
}

// R6: one scalar RDP value (5 decimal places).
func TestReferenceR6ScalarRDP(t *testing.T) {
	r, err := RDPSubsampledGaussian(0.1, 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	if got := 10 * r; !near(got, 0.07737, 0, 5e-6) {
		t.Errorf("RDP = %.8g, want 0.07737", got)
	}
}

// R7: analytic Gaussian delta, abs 1e-10.
func TestReferenceR7AnalyticGaussianDelta(t *testing.T) {
	for _, tc := range []struct{ sigma, eps, sens, want float64 }{
		{10, 0.1, 1, 0.008751768145810},
		{0.5, 0, 1, 0.6826894921370859},
		{1, math.Log(3), 1, 0.10985556344445052},
		{10, math.Log(3), 5, 0.004159742234000802},
	} {
		got, err := AnalyticGaussianDelta(tc.sigma, tc.eps, tc.sens)
		if err != nil {
			t.Fatal(err)
		}
		if !near(got, tc.want, 0, 1e-10) {
			t.Errorf("delta(sigma=%v, eps=%v, sens=%v) = %.16g, want %.16g", tc.sigma, tc.eps, tc.sens, got, tc.want)
		}
	}
}

// R8: tight analytic-Gaussian sigma (values given to 7 significant digits).
func TestReferenceR8AnalyticGaussianSigma(t *testing.T) {
	for _, tc := range []struct{ eps, delta, sens, want, abs float64 }{
		{0.5, 1e-10, 10, 114.3624, 5e-5},
		{1, 1e-5, 1, 3.730632, 5e-7},
		{0.5, 1e-5, 1, 7.031827, 5e-7},
		{2, 1e-5, 1, 1.993812, 5e-7},
	} {
		got, err := AnalyticGaussianSigma(tc.eps, tc.delta, tc.sens)
		if err != nil {
			t.Fatal(err)
		}
		if !near(got, tc.want, 0, tc.abs) {
			t.Errorf("sigma(eps=%v, delta=%v, sens=%v) = %.10g, want %v", tc.eps, tc.delta, tc.sens, got, tc.want)
		}
		// PipelineDP's binary search returns 114.375, an upper-side value:
		// the tight sigma must be below it.
		if tc.sens == 10 && !(got < 114.375) {
			t.Errorf("sigma %v not below PipelineDP's 114.375", got)
		}
	}
}

// R9: pure Gaussian RDP, classic conversion, minimised over real orders.
func TestReferenceR9RealOrder(t *testing.T) {
	eps, order, err := GaussianEpsilonRealOrder(1, 1, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if !near(eps, 5.298526, 0, 5e-7) {
		t.Errorf("eps = %.10g, want 5.298526", eps)
	}
	wantOrder := 1 + math.Sqrt(2*math.Log(1e5))
	if !near(order, wantOrder, 1e-12, 0) {
		t.Errorf("order = %v, want %v", order, wantOrder)
	}
	// It is the minimum over real orders: no grid order does better.
	orders := OrdersOpacus()
	rdp := make([]float64, len(orders))
	for k, a := range orders {
		rdp[k], _ = RDPGaussian(1, a)
	}
	gridEps, _, _ := EpsilonFromRDP(orders, rdp, 1e-5, ConversionClassic)
	if gridEps < eps-1e-12 {
		t.Errorf("grid eps %v below the real-order minimum %v", gridEps, eps)
	}
}
