package accounting

import "testing"

var benchSink float64

// Target: <= 100 µs for one (q, z, T) over the Opacus grid.
func BenchmarkEpsilonOpacusGrid(b *testing.B) {
	phases := []Phase{{SampleRate: 0.04, NoiseMultiplier: 1.5, Steps: 2250}}
	orders := OrdersOpacus()
	b.ReportAllocs()
	for b.Loop() {
		eps, _, err := Epsilon(phases, 1e-5, orders, ConversionImproved)
		if err != nil {
			b.Fatal(err)
		}
		benchSink = eps
	}
}

// The RDP curve alone, small noise (log-space fallbacks at high orders).
func BenchmarkComputeRDPSmallNoise(b *testing.B) {
	orders := OrdersOpacus()
	for b.Loop() {
		r, _ := ComputeRDP(0.01, 0.7, 1000, orders)
		benchSink = r[0]
	}
}

// Target: <= 5 ms.
func BenchmarkNoiseMultiplierOpacus(b *testing.B) {
	for b.Loop() {
		z, err := NoiseMultiplierOpacus(8, 1e-5, 0.04, 2250)
		if err != nil {
			b.Fatal(err)
		}
		benchSink = z
	}
}

func BenchmarkNoiseMultiplierTight(b *testing.B) {
	for b.Loop() {
		z, err := NoiseMultiplier(8, 1e-5, 0.04, 2250, nil, ConversionImproved)
		if err != nil {
			b.Fatal(err)
		}
		benchSink = z
	}
}

func BenchmarkAnalyticGaussianSigma(b *testing.B) {
	for b.Loop() {
		s, _ := AnalyticGaussianSigma(0.5, 1e-10, 10)
		benchSink = s
	}
}
