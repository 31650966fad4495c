package accounting

import (
	"math"
	"testing"
)

// TestDeltaNeverUnderflowsToZero: DeltaFromRDP (and Accountant.Delta,
// Curve.Delta) report δ = 0 only for an order +Inf whose RDP is below ε
// (a pure-DP guarantee, D_∞ < ε); a finite order's exp(log δ) below the
// float64 range is reported as the smallest positive δ, since a Gaussian
// release is never (ε, 0)-DP.
func TestDeltaNeverUnderflowsToZero(t *testing.T) {
	acc, err := NewAccountant(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := acc.Add(Phase{SampleRate: 1, NoiseMultiplier: 1, Steps: 1}); err != nil {
		t.Fatal(err)
	}
	gauss := Curve(func(a float64) (float64, error) { return a / 2, nil })
	for _, eps := range []float64{50, 1000, 1e6} {
		for _, conv := range []Conversion{ConversionImproved, ConversionClassic} {
			if d, _, err := acc.Delta(eps, conv); err != nil || !(d > 0) {
				t.Errorf("Accountant.Delta(ε = %v, %v) = %v, %v: a Gaussian release is not (ε, 0)-DP", eps, conv, d, err)
			}
			if d, _, err := gauss.Delta(OrdersTFP(), eps, conv); err != nil || !(d > 0) {
				t.Errorf("Curve.Delta(ε = %v, %v) = %v, %v: want > 0", eps, conv, d, err)
			}
		}
	}
	// An order +Inf with RDP below ε is a pure-DP guarantee: δ = 0 there.
	d, order, err := DeltaFromRDP([]float64{2, math.Inf(1)}, []float64{1, 0.5}, 1, ConversionImproved)
	if err != nil || d != 0 || !math.IsInf(order, 1) {
		t.Errorf("DeltaFromRDP with D_∞ = 0.5 < ε = 1: δ = %v at order %v (%v), want 0 at +Inf", d, order, err)
	}
}

// TestDeltaLargeFiniteOrderNotZero: a finite order never certifies δ = 0,
// even where (α − 1)(r − ε) overflows to −Inf. A Gaussian release with
// z = 1e160 has RDP α/(2z²) = 5e-13 at α = 1e308, and at ε = 5 its log δ
// bound −5e308 overflowed: DeltaFromRDP reported (5, 0)-DP, a pure-DP
// statement no Gaussian release satisfies. The smallest positive δ is
// reported instead; only an order +Inf with RDP below ε gives 0, wherever
// it sits in the grid.
func TestDeltaLargeFiniteOrderNotZero(t *testing.T) {
	const a, z, eps = 1e308, 1e160, 5.0
	r := a / (2 * z * z)
	for _, conv := range []Conversion{ConversionImproved, ConversionClassic} {
		d, order, err := DeltaFromRDP([]float64{2, a}, []float64{2 / (2 * z * z), r}, eps, conv)
		if err != nil || !(d > 0) || order != a {
			t.Errorf("%v: δ = %v at order %v (%v), want the smallest positive δ at order %v", conv, d, order, err, a)
		}
		// An order +Inf below ε after the overflowing finite one: pure DP.
		d, order, err = DeltaFromRDP([]float64{a, math.Inf(1)}, []float64{r, 1}, eps, conv)
		if err != nil || d != 0 || !math.IsInf(order, 1) {
			t.Errorf("%v: with D_∞ = 1 < ε: δ = %v at order %v (%v), want 0 at +Inf", conv, d, order, err)
		}
	}
}

// TestAnalyticDeltaNeverZero: the closed-form δ(ε) of a Gaussian (GDPDelta,
// AnalyticGaussianDelta, SubsampledGaussianDelta) is positive for every
// finite ε, as DeltaFromRDP's now is: at ε = 50, z = 1 the exact δ is about
// 1e-550, below the float64 range, and each returned 0, i.e. (50, 0)-DP, a
// pure-DP statement no Gaussian satisfies. The smallest positive float64 is
// reported instead; 0 stays for the inputs that are (ε, 0)-DP (μ = 0,
// σ = +Inf, q = 0, ε = +Inf).
func TestAnalyticDeltaNeverZero(t *testing.T) {
	for _, eps := range []float64{50, 1000, 1e6} {
		for name, f := range map[string]func() (float64, error){
			"GDPDelta(1, ε)":                        func() (float64, error) { return GDPDelta(1, eps) },
			"AnalyticGaussianDelta(1, ε, 1)":        func() (float64, error) { return AnalyticGaussianDelta(1, eps, 1) },
			"SubsampledGaussianDelta(0.01, 1, ε)":   func() (float64, error) { return SubsampledGaussianDelta(0.01, 1, eps) },
			"SubsampledGaussianDelta(1, 1, ε)":      func() (float64, error) { return SubsampledGaussianDelta(1, 1, eps) },
			"SubsampledGaussianDelta(1e-9, 0.5, ε)": func() (float64, error) { return SubsampledGaussianDelta(1e-9, 0.5, eps) },
		} {
			if d, err := f(); err != nil || !(d > 0) {
				t.Errorf("%s at ε = %v: δ = %v (%v), want > 0", name, eps, d, err)
			}
		}
	}
	inf := math.Inf(1)
	for name, f := range map[string]func() (float64, error){
		"GDPDelta(0, 1)":                        func() (float64, error) { return GDPDelta(0, 1) },
		"GDPDelta(1, +Inf)":                     func() (float64, error) { return GDPDelta(1, inf) },
		"AnalyticGaussianDelta(+Inf, 1, 1)":     func() (float64, error) { return AnalyticGaussianDelta(inf, 1, 1) },
		"SubsampledGaussianDelta(0, 1, 1)":      func() (float64, error) { return SubsampledGaussianDelta(0, 1, 1) },
		"SubsampledGaussianDelta(0.1, +Inf, 1)": func() (float64, error) { return SubsampledGaussianDelta(0.1, inf, 1) },
	} {
		if d, err := f(); err != nil || d != 0 {
			t.Errorf("%s: δ = %v (%v), want 0", name, d, err)
		}
	}
}
