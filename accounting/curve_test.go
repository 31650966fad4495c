package accounting

import (
	"errors"
	"math"
	"testing"
)

// A Curve of the subsampled Gaussian gives the accountant's ε on the same
// grid, for both conversions.
func TestCurveMatchesAccountant(t *testing.T) {
	const q, z, steps, delta = 0.04, 1.5, 2250, 1e-5
	c := Curve(func(a float64) (float64, error) {
		v, err := RDPSubsampledGaussian(q, z, a)
		return steps * v, err
	})
	for _, conv := range []Conversion{ConversionImproved, ConversionClassic} {
		want, wantOrder, err := Epsilon([]Phase{{SampleRate: q, NoiseMultiplier: z, Steps: steps}}, delta, OrdersOpacus(), conv)
		if err != nil {
			t.Fatal(err)
		}
		got, order, err := c.Epsilon(OrdersOpacus(), delta, conv)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-12*want || order != wantOrder {
			t.Errorf("%v: curve ε %v at α %v, accountant %v at α %v", conv, got, order, want, wantOrder)
		}
		d, dOrder, err := c.Delta(OrdersOpacus(), got, conv)
		if err != nil || math.Abs(d-delta) > 1e-9*delta || dOrder != order {
			t.Errorf("%v: Delta(ε) = %v at α %v (err %v), want %v at α %v", conv, d, dOrder, err, delta, order)
		}
	}
}

// The classic conversion of the Gaussian curve on a fine grid approaches
// the real-order optimum from above.
func TestCurveGaussianClassic(t *testing.T) {
	const z, delta = 1.0, 1e-5
	c := Curve(func(a float64) (float64, error) { return a / (2 * z * z), nil })
	var orders []float64
	for a := 1.001; a < 20; a += 0.001 {
		orders = append(orders, a)
	}
	got, _, err := c.Epsilon(orders, delta, ConversionClassic)
	if err != nil {
		t.Fatal(err)
	}
	want, _, _ := GaussianEpsilonRealOrder(z, 1, delta)
	if got < want || got > want*(1+1e-7) {
		t.Errorf("grid ε %v, real-order optimum %v", got, want)
	}
}

// +Inf marks orders without a guarantee; NaN, negative values, errors, a
// nil curve, bad grids and bad δ are errors.
func TestCurveConventions(t *testing.T) {
	valid := Curve(func(a float64) (float64, error) {
		if a > 3 {
			return math.Inf(1), nil
		}
		return a, nil
	})
	eps, order, err := valid.Epsilon([]float64{2, 3, 4, math.Inf(1)}, 1e-5, ConversionClassic)
	if err != nil || order > 3 || math.IsInf(eps, 1) {
		t.Errorf("validity interval: ε %v at α %v (err %v)", eps, order, err)
	}
	none := Curve(func(float64) (float64, error) { return math.Inf(1), nil })
	if eps, _, err := none.Epsilon(OrdersOpacus(), 1e-5, ConversionImproved); err != nil || !math.IsInf(eps, 1) {
		t.Errorf("no guarantee anywhere: ε %v (err %v)", eps, err)
	}
	called := false
	spy := Curve(func(float64) (float64, error) { called = true; return 1, nil })
	boom := errors.New("boom")
	for name, f := range map[string]func() error{
		"NaN": func() error {
			_, _, err := Curve(func(float64) (float64, error) { return math.NaN(), nil }).Epsilon([]float64{2}, 1e-5, ConversionClassic)
			return err
		},
		"negative": func() error {
			_, err := Curve(func(float64) (float64, error) { return -1, nil }).RDP([]float64{2})
			return err
		},
		"curve error": func() error {
			_, _, err := Curve(func(float64) (float64, error) { return 0, boom }).Epsilon([]float64{2}, 1e-5, ConversionClassic)
			return err
		},
		"nil":          func() error { _, err := Curve(nil).RDP([]float64{2}); return err },
		"order ≤ 1":    func() error { _, _, err := spy.Epsilon([]float64{1}, 1e-5, ConversionClassic); return err },
		"empty grid":   func() error { _, err := spy.RDP(nil); return err },
		"δ = 0":        func() error { _, _, err := spy.Epsilon([]float64{2}, 0, ConversionClassic); return err },
		"conversion":   func() error { _, _, err := spy.Epsilon([]float64{2}, 1e-5, Conversion(7)); return err },
		"ε = +Inf":     func() error { _, _, err := spy.Delta([]float64{2}, math.Inf(1), ConversionClassic); return err },
		"Delta errors": func() error { _, _, err := Curve(nil).Delta([]float64{2}, 1, ConversionClassic); return err },
	} {
		if err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if called {
		t.Error("the curve was called although the grid, δ or conversion was invalid")
	}
	if _, _, err := Curve(func(float64) (float64, error) { return 0, boom }).Epsilon([]float64{2}, 1e-5, ConversionClassic); !errors.Is(err, boom) {
		t.Errorf("curve error not wrapped: %v", err)
	}
}
