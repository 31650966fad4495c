package mechanisms

import (
	"context"
	"strconv"
	"testing"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
)

// BenchmarkDDPMStepE5 times the steady-state step of the feature-DP
// diffusion stand-in (models.DDPM 238 → 256 → 256 → 196, 177,348
// parameters) on Poisson batches of about 256 rows (setting A) and 4,096
// rows (setting B) of 14×14 images: DP is DP-SGD with ghost-norm clipping,
// noise and an Adam update; FDP-Alg1 clips the difference of the DDPM losses
// on x and its public view with the same draw (rank-2 norms) and adds the
// public gradient of an independent batch.
func BenchmarkDDPMStepE5(b *testing.B) {
	const n = 20000
	rng := NewStreams(5).Rand("bench-e5")
	x, xp, y := make([]float64, n*196), make([]float64, n*196), make([]float64, n)
	for i := range n {
		y[i] = float64(i % 10)
		for j := range 196 {
			x[i*196+j] = 2*rng.Float64() - 1
			xp[i*196+j] = 0.5 * x[i*196+j]
		}
	}
	priv, pub := mustData(b, x, y, n, 196), mustData(b, xp, y, n, 196)
	m, err := models.NewDDPM(196, 10, 256, 32, 200, 1e-4, 0.02)
	if err != nil {
		b.Fatal(err)
	}
	diff, err := models.NewLossDiff(m, m, pub)
	if err != nil {
		b.Fatal(err)
	}
	for _, batch := range []int{256, 4096} {
		for _, c := range []struct {
			name   string
			model  models.Model
			public *PublicTerm
		}{
			{"DP", m, nil},
			{"FDP-Alg1", diff, &PublicTerm{Model: m, Data: pub, Alpha: 1}},
		} {
			b.Run(c.name+"/batch="+strconv.Itoa(batch), func(b *testing.B) { benchDDPMStep(b, c.model, c.public, priv, float64(batch)/n) })
		}
	}
}

// benchDDPMStep times b.N steps after the first.
func benchDDPMStep(b *testing.B, model models.Model, public *PublicTerm, priv *design.Data, q float64) {
	plan, err := DPSGD(model.NumParams(), 1, 0.1, q*float64(priv.N))
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{Model: model, Data: priv, Steps: b.N + 1, Sampler: Poisson{Rate: q}, Clip: ClipPerExample, ClipNorm: 0.1,
		Noise: plan, Public: public, Optimizer: Adam{LR: 1e-3}, Seed: 1}
	cfg.OnStep = func(t int, _ []float64) {
		if t == 1 {
			b.ResetTimer()
		}
	}
	if _, err := Train(context.Background(), cfg); err != nil {
		b.Fatal(err)
	}
}
