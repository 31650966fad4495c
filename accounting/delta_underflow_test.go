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
