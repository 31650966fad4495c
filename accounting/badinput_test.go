package accounting

import (
	"math"
	"testing"
)

// Every exported function rejects meaningless input with an error and
// without panicking.
func TestBadInputs(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ok := []float64{2, 3}
	okRDP := []float64{0.1, 0.2}
	acc, err := NewAccountant(ok)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]func() error{
		"ValidateOrders": {
			func() error { return ValidateOrders(nil) },
			func() error { return ValidateOrders([]float64{}) },
			func() error { return ValidateOrders([]float64{2, 1}) },
			func() error { return ValidateOrders([]float64{0.5}) },
			func() error { return ValidateOrders([]float64{nan}) },
			func() error { return ValidateOrders([]float64{-inf}) },
			func() error { return ValidateOrders([]float64{-3}) },
		},
		"ParseOrders": {
			func() error { _, err := ParseOrders(""); return err },
			func() error { _, err := ParseOrders("opacuss"); return err },
			func() error { _, err := ParseOrders("2,,3"); return err },
			func() error { _, err := ParseOrders("2,1"); return err },
			func() error { _, err := ParseOrders("2,nan"); return err },
		},
		"RDPGaussian": {
			func() error { _, err := RDPGaussian(nan, 2); return err },
			func() error { _, err := RDPGaussian(-1, 2); return err },
			func() error { _, err := RDPGaussian(1, 1); return err },
			func() error { _, err := RDPGaussian(1, nan); return err },
			func() error { _, err := RDPGaussian(1, -inf); return err },
		},
		"RDPSubsampledGaussian": {
			func() error { _, err := RDPSubsampledGaussian(nan, 1, 2); return err },
			func() error { _, err := RDPSubsampledGaussian(-0.1, 1, 2); return err },
			func() error { _, err := RDPSubsampledGaussian(1.1, 1, 2); return err },
			func() error { _, err := RDPSubsampledGaussian(inf, 1, 2); return err },
			func() error { _, err := RDPSubsampledGaussian(0.1, nan, 2); return err },
			func() error { _, err := RDPSubsampledGaussian(0.1, -1, 2); return err },
			func() error { _, err := RDPSubsampledGaussian(0.1, 1, 0.5); return err },
			func() error { _, err := RDPSubsampledGaussian(0.1, 1, nan); return err },
		},
		"ComputeRDP": {
			func() error { _, err := ComputeRDP(0.1, 1, -1, ok); return err },
			func() error { _, err := ComputeRDP(0.1, 1, 1, nil); return err },
			func() error { _, err := ComputeRDP(0.1, 1, 1, []float64{1}); return err },
			func() error { _, err := ComputeRDP(nan, 1, 1, ok); return err },
			func() error { _, err := ComputeRDP(0.1, -inf, 1, ok); return err },
		},
		"ParseConversion": {
			func() error { _, err := ParseConversion(""); return err },
			func() error { _, err := ParseConversion("tight"); return err },
		},
		"EpsilonFromRDP": {
			func() error { _, _, err := EpsilonFromRDP(ok, okRDP, 0, ConversionImproved); return err },
			func() error { _, _, err := EpsilonFromRDP(ok, okRDP, 1, ConversionImproved); return err },
			func() error { _, _, err := EpsilonFromRDP(ok, okRDP, -1e-5, ConversionImproved); return err },
			func() error { _, _, err := EpsilonFromRDP(ok, okRDP, nan, ConversionImproved); return err },
			func() error { _, _, err := EpsilonFromRDP(ok, okRDP, inf, ConversionImproved); return err },
			func() error { _, _, err := EpsilonFromRDP(ok, okRDP, 1e-5, Conversion(9)); return err },
			func() error { _, _, err := EpsilonFromRDP(ok, []float64{1}, 1e-5, ConversionImproved); return err },
			func() error { _, _, err := EpsilonFromRDP(nil, nil, 1e-5, ConversionImproved); return err },
			func() error { _, _, err := EpsilonFromRDP(ok, []float64{nan, 1}, 1e-5, ConversionImproved); return err },
			func() error { _, _, err := EpsilonFromRDP(ok, []float64{-1, 1}, 1e-5, ConversionImproved); return err },
		},
		"DeltaFromRDP": {
			func() error { _, _, err := DeltaFromRDP(ok, okRDP, -1, ConversionImproved); return err },
			func() error { _, _, err := DeltaFromRDP(ok, okRDP, nan, ConversionImproved); return err },
			func() error { _, _, err := DeltaFromRDP(ok, okRDP, inf, ConversionImproved); return err },
			func() error { _, _, err := DeltaFromRDP(ok, okRDP, 1, Conversion(-1)); return err },
			func() error { _, _, err := DeltaFromRDP([]float64{}, nil, 1, ConversionImproved); return err },
			func() error { _, _, err := DeltaFromRDP(ok, []float64{0.1, nan}, 1, ConversionImproved); return err },
		},
		"GaussianEpsilonRealOrder": {
			func() error { _, _, err := GaussianEpsilonRealOrder(nan, 1, 1e-5); return err },
			func() error { _, _, err := GaussianEpsilonRealOrder(-1, 1, 1e-5); return err },
			func() error { _, _, err := GaussianEpsilonRealOrder(1, -1, 1e-5); return err },
			func() error { _, _, err := GaussianEpsilonRealOrder(1, 1, 0); return err },
			func() error { _, _, err := GaussianEpsilonRealOrder(1, 1, 1.5); return err },
		},
		"Phase.Validate": {
			func() error { return Phase{nan, 1, 1}.Validate() },
			func() error { return Phase{0.1, nan, 1}.Validate() },
			func() error { return Phase{0.1, 1, -1}.Validate() },
			func() error { return Phase{2, 1, 1}.Validate() },
		},
		"NewAccountant": {
			func() error { _, err := NewAccountant([]float64{}); return err },
			func() error { _, err := NewAccountant([]float64{1}); return err },
			func() error { _, err := NewAccountant([]float64{2, nan}); return err },
		},
		"Accountant.Add": {
			func() error { return acc.Add(Phase{-1, 1, 1}) },
			func() error { return acc.Add(Phase{0.1, -1, 1}) },
			func() error { return acc.Add(Phase{0.1, 1, -5}) },
		},
		"Accountant.AddRDP": {
			func() error { return acc.AddRDP([]float64{1}) },
			func() error { return acc.AddRDP([]float64{1, nan}) },
			func() error { return acc.AddRDP([]float64{-1, 1}) },
		},
		"Accountant.Epsilon": {
			func() error { _, _, err := acc.Epsilon(0, ConversionImproved); return err },
			func() error { _, _, err := acc.Epsilon(nan, ConversionClassic); return err },
			func() error { _, _, err := acc.Epsilon(1e-5, Conversion(3)); return err },
		},
		"Accountant.Delta": {
			func() error { _, _, err := acc.Delta(-1, ConversionImproved); return err },
			func() error { _, _, err := acc.Delta(nan, ConversionImproved); return err },
		},
		"Epsilon": {
			func() error { _, _, err := Epsilon([]Phase{{0.1, 1, -1}}, 1e-5, nil, ConversionImproved); return err },
			func() error { _, _, err := Epsilon(nil, 1e-5, []float64{}, ConversionImproved); return err },
			func() error { _, _, err := Epsilon(nil, 2, nil, ConversionImproved); return err },
		},
		"NoiseMultiplierOpacus": {
			func() error { _, err := NoiseMultiplierOpacus(0, 1e-5, 0.1, 10); return err },
			func() error { _, err := NoiseMultiplierOpacus(-1, 1e-5, 0.1, 10); return err },
			func() error { _, err := NoiseMultiplierOpacus(nan, 1e-5, 0.1, 10); return err },
			func() error { _, err := NoiseMultiplierOpacus(inf, 1e-5, 0.1, 10); return err },
			func() error { _, err := NoiseMultiplierOpacus(1, 0, 0.1, 10); return err },
			func() error { _, err := NoiseMultiplierOpacus(1, 1, 0.1, 10); return err },
			func() error { _, err := NoiseMultiplierOpacus(1, 1e-5, 0, 10); return err },
			func() error { _, err := NoiseMultiplierOpacus(1, 1e-5, 1.5, 10); return err },
			func() error { _, err := NoiseMultiplierOpacus(1, 1e-5, nan, 10); return err },
			func() error { _, err := NoiseMultiplierOpacus(1, 1e-5, 0.1, 0); return err },
		},
		"NoiseMultiplier": {
			func() error { _, err := NoiseMultiplier(0, 1e-5, 0.1, 10, nil, ConversionImproved); return err },
			func() error { _, err := NoiseMultiplier(1, -1, 0.1, 10, nil, ConversionImproved); return err },
			func() error { _, err := NoiseMultiplier(1, 1e-5, -0.1, 10, nil, ConversionImproved); return err },
			func() error { _, err := NoiseMultiplier(1, 1e-5, 0.1, -3, nil, ConversionImproved); return err },
			func() error { _, err := NoiseMultiplier(1, 1e-5, 0.1, 10, []float64{}, ConversionImproved); return err },
			func() error { _, err := NoiseMultiplier(1, 1e-5, 0.1, 10, nil, Conversion(5)); return err },
		},
		"AnalyticGaussianDelta": {
			func() error { _, err := AnalyticGaussianDelta(0, 1, 1); return err },
			func() error { _, err := AnalyticGaussianDelta(-1, 1, 1); return err },
			func() error { _, err := AnalyticGaussianDelta(nan, 1, 1); return err },
			func() error { _, err := AnalyticGaussianDelta(1, -1, 1); return err },
			func() error { _, err := AnalyticGaussianDelta(1, nan, 1); return err },
			func() error { _, err := AnalyticGaussianDelta(1, 1, 0); return err },
			func() error { _, err := AnalyticGaussianDelta(1, 1, inf); return err },
			func() error { _, err := AnalyticGaussianDelta(1, 1, nan); return err },
		},
		"AnalyticGaussianSigma": {
			func() error { _, err := AnalyticGaussianSigma(-1, 1e-5, 1); return err },
			func() error { _, err := AnalyticGaussianSigma(nan, 1e-5, 1); return err },
			func() error { _, err := AnalyticGaussianSigma(inf, 1e-5, 1); return err },
			func() error { _, err := AnalyticGaussianSigma(1, 0, 1); return err },
			func() error { _, err := AnalyticGaussianSigma(1, 1, 1); return err },
			func() error { _, err := AnalyticGaussianSigma(1, nan, 1); return err },
			func() error { _, err := AnalyticGaussianSigma(1, 1e-5, -1); return err },
			func() error { _, err := AnalyticGaussianSigma(1, 1e-5, 0); return err },
		},
		"ClassicGaussianSigma": {
			func() error { _, err := ClassicGaussianSigma(0, 1e-5, 1); return err },
			func() error { _, err := ClassicGaussianSigma(1.5, 1e-5, 1); return err },
			func() error { _, err := ClassicGaussianSigma(nan, 1e-5, 1); return err },
			func() error { _, err := ClassicGaussianSigma(0.5, 0, 1); return err },
			func() error { _, err := ClassicGaussianSigma(0.5, 1e-5, nan); return err },
		},
		"GDPDelta": {
			func() error { _, err := GDPDelta(-1, 1); return err },
			func() error { _, err := GDPDelta(nan, 1); return err },
			func() error { _, err := GDPDelta(1, -1); return err },
			func() error { _, err := GDPDelta(1, nan); return err },
		},
		"GDPEpsilon": {
			func() error { _, err := GDPEpsilon(-1, 1e-5); return err },
			func() error { _, err := GDPEpsilon(nan, 1e-5); return err },
			func() error { _, err := GDPEpsilon(1, 0); return err },
			func() error { _, err := GDPEpsilon(1, 1); return err },
			func() error { _, err := GDPEpsilon(1, nan); return err },
		},
		"ComposeGDP": {
			func() error { _, err := ComposeGDP(1, -1); return err },
			func() error { _, err := ComposeGDP(nan); return err },
		},
		"PoissonCLTMu": {
			func() error { _, err := PoissonCLTMu(-0.1, 1, 1); return err },
			func() error { _, err := PoissonCLTMu(nan, 1, 1); return err },
			func() error { _, err := PoissonCLTMu(0.1, -1, 1); return err },
			func() error { _, err := PoissonCLTMu(0.1, nan, 1); return err },
			func() error { _, err := PoissonCLTMu(0.1, 1, -1); return err },
		},
		"SubsampledGaussianDelta": {
			func() error { _, err := SubsampledGaussianDelta(1.5, 1, 1); return err },
			func() error { _, err := SubsampledGaussianDelta(nan, 1, 1); return err },
			func() error { _, err := SubsampledGaussianDelta(0.1, -1, 1); return err },
			func() error { _, err := SubsampledGaussianDelta(0.1, 1, -1); return err },
			func() error { _, err := SubsampledGaussianDelta(0.1, 1, nan); return err },
		},
	}
	for name, fns := range cases {
		for i, f := range fns {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s case %d panicked: %v", name, i, r)
					}
				}()
				if err := f(); err == nil {
					t.Errorf("%s case %d: no error", name, i)
				}
			}()
		}
	}
	// Failed Adds left the accountant untouched.
	if r := acc.RDP(); r[0] != 0 || r[1] != 0 || len(acc.Phases()) != 0 {
		t.Errorf("failed Add/AddRDP modified the accountant: %v %v", r, acc.Phases())
	}
	if s := Conversion(7).String(); s != "Conversion(7)" {
		t.Errorf("String of an invalid conversion: %q", s)
	}
}
