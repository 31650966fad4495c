package mechanisms

import (
	"context"
	"testing"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
)

// logisticData is a seeded n×d binary classification set.
func logisticData(tb testing.TB, n, d int) *design.Data {
	tb.Helper()
	rng := NewStreams(99).Rand("bench-data")
	x, y := make([]float64, n*d), make([]float64, n)
	for i := range n {
		var z float64
		for j := range d {
			x[i*d+j] = rng.NormFloat64()
			z += x[i*d+j]
		}
		if z > 0 {
			y[i] = 1
		}
	}
	return mustData(tb, x, y, n, d)
}

func dpsgdConfig(tb testing.TB, model models.Model, data *design.Data, steps int) Config {
	q := 256 / float64(data.N)
	plan, err := DPSGD(model.NumParams(), 1, 1, 256)
	if err != nil {
		tb.Fatal(err)
	}
	return Config{Model: model, Data: data, Steps: steps, Sampler: Poisson{Rate: q},
		Clip: ClipPerExample, ClipNorm: 1, Noise: plan, Optimizer: SGD{LR: 0.1}, Seed: 1}
}

// TestTrainAllocations: the step loop does not allocate (buffers are
// preallocated), so 1000 steps allocate about as much as 10.
func TestTrainAllocations(t *testing.T) {
	data := logisticData(t, 2000, 10)
	lg, _ := models.NewLogistic(10, true, 0)
	for name, m := range map[string]models.Model{"ghost": lg, "materialised": struct{ models.Model }{lg}} {
		allocs := func(steps int) float64 {
			cfg := dpsgdConfig(t, m, data, steps)
			return testing.AllocsPerRun(3, func() {
				if _, err := Train(context.Background(), cfg); err != nil {
					t.Fatal(err)
				}
			})
		}
		if few, many := allocs(10), allocs(1000); many-few > 10 {
			t.Errorf("%s: %v allocations for 1000 steps vs %v for 10", name, many, few)
		}
	}
}

// BenchmarkTrainDPSGDStep times one DP-SGD step (Poisson batch of expected
// size 256 out of 10,000, per-example clipping, noise) of logistic
// regression with 20 features; ns/op is per step (setup excluded).
func BenchmarkTrainDPSGDStep(b *testing.B) {
	data := logisticData(b, 10000, 20)
	lg, _ := models.NewLogistic(20, true, 0)
	mlp, _ := models.NewMLP(20, 16, 2, models.ReLU, models.HeadSoftmaxCE)
	for _, c := range []struct {
		name string
		m    models.Model
	}{
		{"logistic-ghost", lg},
		{"logistic-materialised", struct{ models.Model }{lg}},
		{"mlp16-ghost", mlp},
		{"mlp16-materialised", struct{ models.Model }{mlp}},
		{"lsq-materialised", lsq{d: 20}},
	} {
		b.Run(c.name, func(b *testing.B) {
			cfg := dpsgdConfig(b, c.m, data, b.N+1)
			cfg.OnStep = func(t int, _ []float64) {
				if t == 1 {
					b.ResetTimer()
				}
			}
			b.ReportAllocs()
			if _, err := Train(context.Background(), cfg); err != nil {
				b.Fatal(err)
			}
		})
	}
}

func BenchmarkPoissonSampler(b *testing.B) {
	for _, c := range []struct {
		name string
		q    float64
	}{{"n1e5-q0.01-geometric", 0.01}, {"n1e5-q0.3-bernoulli", 0.3}} {
		b.Run(c.name, func(b *testing.B) {
			rng := NewStreams(1).Sampling()
			p := Poisson{Rate: c.q}
			buf := make([]int, 0, 40000)
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = p.Sample(rng, 100000, buf)
			}
		})
	}
}

func BenchmarkUniformSubset(b *testing.B) {
	for _, c := range []struct {
		name string
		m    int
	}{{"n1e5-m256-floyd", 256}, {"n1e5-m20000-selection", 20000}} {
		b.Run(c.name, func(b *testing.B) {
			rng := NewStreams(1).PublicSampling()
			u := UniformSubset{Size: c.m}
			buf := make([]int, 0, c.m)
			b.ReportAllocs()
			for b.Loop() {
				buf, _ = u.Sample(rng, 100000, buf)
			}
		})
	}
}

// BenchmarkAddGaussian adds heterogeneous Gaussian noise to 10,000
// coordinates.
func BenchmarkAddGaussian(b *testing.B) {
	v := make([]float64, 10000)
	std := make([]float64, 10000)
	for j := range std {
		std[j] = 0.5
	}
	rng := NewStreams(1).Noise()
	b.ReportAllocs()
	for b.Loop() {
		if err := AddGaussian(rng, v, std); err != nil {
			b.Fatal(err)
		}
	}
}
