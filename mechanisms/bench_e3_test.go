package mechanisms

import (
	"context"
	"testing"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
)

// e3Data is a seeded Purchase-like set: n rows of 600 binary features
// (density about 1/4) with 100 classes, and its public view with the last
// 500 columns replaced by Gaussian noise (the padding of the feature-DP
// experiments).
func e3Data(tb testing.TB, n int) (priv, pub *design.Data) {
	tb.Helper()
	const d, k = 600, 100
	rng := NewStreams(7).Rand("bench-e3")
	x, xp, y := make([]float64, n*d), make([]float64, n*d), make([]float64, n)
	for i := range n {
		for j := range d {
			if rng.Float64() < 0.25 {
				x[i*d+j] = 1
			}
			xp[i*d+j] = x[i*d+j]
			if j >= 100 {
				xp[i*d+j] = rng.NormFloat64()
			}
		}
		y[i] = float64(rng.IntN(k))
	}
	return mustData(tb, x, y, n, d), mustData(tb, xp, y, n, d)
}

// BenchmarkDPSGDStepE3 times the steady-state training step of the
// feature-DP E3 model (MLP 600→128→100, tanh, softmax cross-entropy) on a
// Poisson batch of about 12,300 rows (q = 1/4 of 49,331 rows; the batch of
// n = 197,324 at q = 1/16): DP is DP-SGD with ghost-norm per-example
// clipping, Gaussian noise and the update; FDP-Alg1 is Algorithm 1 of the
// feature-DP paper (clipping of ∇ℓ − ∇ℓ_pub with rank-2 ghost norms, plus
// the public gradient on an independent batch of the same size); the
// -float32 variants run the MLP's Float32 mode. Set-up
// (data, model, first step) is excluded; ns/op is one step. tools/bench_numpy.py
// runs the same DP step in numpy for comparison (BENCHMARKS.md).
func BenchmarkDPSGDStepE3(b *testing.B) {
	const n, q = 49331, 0.25
	priv, pub := e3Data(b, n)
	mlp, err := models.NewMLP(600, 128, 100, models.Tanh, models.HeadSoftmaxCE)
	if err != nil {
		b.Fatal(err)
	}
	diff, err := models.NewLossDiff(mlp, mlp, pub)
	if err != nil {
		b.Fatal(err)
	}
	mlp32 := *mlp
	mlp32.Float32 = true
	diff32, err := models.NewLossDiff(&mlp32, &mlp32, pub)
	if err != nil {
		b.Fatal(err)
	}
	m := q * n
	for _, c := range []struct {
		name   string
		model  models.Model
		public *PublicTerm
	}{
		{"DP", mlp, nil},
		{"FDP-Alg1", diff, &PublicTerm{Model: mlp, Data: pub, Alpha: 10}},
		{"DP-float32", &mlp32, nil},
		{"FDP-Alg1-float32", diff32, &PublicTerm{Model: &mlp32, Data: pub, Alpha: 10}},
	} {
		b.Run(c.name, func(b *testing.B) {
			plan, err := DPSGD(mlp.NumParams(), 1, 0.01, m)
			if err != nil {
				b.Fatal(err)
			}
			cfg := Config{Model: c.model, Data: priv, Steps: b.N + 1, Sampler: Poisson{Rate: q},
				Clip: ClipPerExample, ClipNorm: 0.01, Noise: plan, Public: c.public,
				Optimizer: Momentum{LR: 0.1, Beta: 0.9}, Seed: 1}
			var batch float64
			cfg.OnStep = func(t int, _ []float64) {
				if t == 1 {
					b.ResetTimer()
				}
			}
			res, err := Train(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			for _, s := range res.BatchSizes[1:] {
				batch += float64(s)
			}
			b.ReportMetric(batch/float64(b.N), "rows/step")
		})
	}
}
