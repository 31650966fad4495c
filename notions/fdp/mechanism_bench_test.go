package fdp

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
)

// BenchmarkAlg1Step is one Algorithm 1 step of the Purchase-sized
// model (600 binary features, 100 classes), 600→128→100 tanh MLP, with per-example clipping of ∇ℓ − ∇ℓ_pub
// (rank-2 ghost norms, batched matrix products) on a Poisson batch of about
// 12,300 rows plus a public batch of the same size. The batch size is what
// matters: n = 49,331 at q = 1/4 gives the batch of n = 197,324 at q = 1/16
// with a quarter of the memory.
func BenchmarkAlg1Step(b *testing.B) {
	const n, q = 49331, 0.25
	rng := rand.New(rand.NewPCG(1, 2))
	d, err := binaryRows(n, 600, 100, rng)
	if err != nil {
		b.Fatal(err)
	}
	public := make([]int, 100)
	for j := range public {
		public[j] = j
	}
	pad, err := GaussianPadding(d, public, rng)
	if err != nil {
		b.Fatal(err)
	}
	mlp, _ := models.NewMLP(600, 128, 100, models.Tanh, models.HeadSoftmaxCE)
	s := Setup{Model: mlp, Data: d, PubData: pad, Rate: q, Multiplier: 1, Clip: 0.01, Steps: 1, Alpha: 10,
		Optimizer: mechanisms.Momentum{LR: 0.1, Beta: 0.9}}
	for _, m := range []Method{Alg1, DP} {
		b.Run(string(m), func(b *testing.B) {
			cfg, err := EngineConfig(m, s)
			if err != nil {
				b.Fatal(err)
			}
			var batch float64
			for i := 0; i < b.N; i++ {
				cfg.Seed = uint64(i)
				res, err := mechanisms.Train(context.Background(), cfg)
				if err != nil {
					b.Fatal(err)
				}
				batch += res.MeanBatchSize
			}
			b.ReportMetric(batch/float64(b.N), "batch")
		})
	}
}

// binaryRows draws n rows of d independent Bernoulli(1/9) features and a
// uniform label among k classes: the shape (not the structure) of the
// Purchase100 data, for timing.
func binaryRows(n, d, k int, rng *rand.Rand) (*design.Data, error) {
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			if rng.IntN(9) == 0 {
				x[i*d+j] = 1
			}
		}
		y[i] = float64(rng.IntN(k))
	}
	return design.NewData(x, y, n, d)
}
