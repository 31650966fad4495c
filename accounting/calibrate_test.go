package accounting

import (
	"errors"
	"testing"
)

func TestNoiseMultiplierTight(t *testing.T) {
	for _, tc := range []struct {
		target, delta, q float64
		steps            int
		orders           []float64
		conv             Conversion
	}{
		{8, 1e-5, 0.04, 2250, nil, ConversionImproved},
		{1, 1e-5, 0.01, 10000, nil, ConversionImproved},
		{0.5, 1e-6, 0.0025, 6000, OrdersTFP(), ConversionClassic},
		{3, 1e-5, 1, 1, OrdersDPAccounting(), ConversionImproved},
		{50, 1e-5, 0.5, 10, nil, ConversionImproved},
	} {
		z, err := NoiseMultiplier(tc.target, tc.delta, tc.q, tc.steps, tc.orders, tc.conv)
		if err != nil {
			t.Fatal(err)
		}
		eps, _, err := Epsilon([]Phase{{tc.q, z, tc.steps}}, tc.delta, tc.orders, tc.conv)
		if err != nil {
			t.Fatal(err)
		}
		if eps > tc.target || !near(eps, tc.target, 1e-9, 0) {
			t.Errorf("%+v: z=%v gives eps %.15g, want %v (<=, rel 1e-9)", tc, z, eps, tc.target)
		}
		// Tight: a slightly smaller z exceeds the target.
		epsLess, _, _ := Epsilon([]Phase{{tc.q, z * (1 - 1e-9), tc.steps}}, tc.delta, tc.orders, tc.conv)
		if !(epsLess > tc.target) {
			t.Errorf("%+v: z(1-1e-9) gives eps %v, not above the target", tc, epsLess)
		}
	}
}

// The Opacus bisection is conservative: its z is at least the tight one
// and its ε within the 0.01 tolerance of the target.
func TestNoiseMultiplierOpacusVsTight(t *testing.T) {
	for _, steps := range []int{100, 2000, 2250} {
		zo, err := NoiseMultiplierOpacus(8, 1e-5, 0.04, steps)
		if err != nil {
			t.Fatal(err)
		}
		zt, err := NoiseMultiplier(8, 1e-5, 0.04, steps, nil, ConversionImproved)
		if err != nil {
			t.Fatal(err)
		}
		if zo < zt {
			t.Errorf("T=%d: Opacus z %v below tight z %v", steps, zo, zt)
		}
		eps, _, _ := Epsilon([]Phase{{0.04, zo, steps}}, 1e-5, nil, ConversionImproved)
		if eps > 8 || 8-eps > OpacusEpsilonTolerance {
			t.Errorf("T=%d: Opacus z %v gives eps %v", steps, zo, eps)
		}
	}
}

// Targets so large that Opacus' 0.01 tolerance is below the float64
// spacing near them: the bisection stops with a valid z (ε(z) ≤ target)
// instead of failing "did not converge".
func TestNoiseMultiplierOpacusHugeTarget(t *testing.T) {
	for _, target := range []float64{1e14, 1e200} {
		z, err := NoiseMultiplierOpacus(target, 1e-5, 0.5, 1)
		if err != nil {
			t.Fatalf("target %g: %v", target, err)
		}
		eps, _, _ := Epsilon([]Phase{{0.5, z, 1}}, 1e-5, nil, ConversionImproved)
		if !(eps <= target) {
			t.Errorf("target %g: z %v gives ε %v", target, z, eps)
		}
	}
}

func TestNoiseMultiplierUnreachable(t *testing.T) {
	// Below the floor that the log-δ terms of the conversion leave at large z.
	if _, err := NoiseMultiplierOpacus(0.01, 1e-10, 0.04, 2250); !errors.Is(err, ErrUnreachable) {
		t.Errorf("Opacus: err = %v, want ErrUnreachable", err)
	}
	if _, err := NoiseMultiplier(0.01, 1e-10, 0.04, 2250, nil, ConversionImproved); !errors.Is(err, ErrUnreachable) {
		t.Errorf("tight: err = %v, want ErrUnreachable", err)
	}
}
