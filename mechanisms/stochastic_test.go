package mechanisms

import (
	"context"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
)

// keyRecorder is a Stochastic linear model that records the keys it is
// given.
type keyRecorder struct {
	*models.Linear
	key  uint64
	keys *[]uint64
}

func (k keyRecorder) WithKey(key uint64) models.Model {
	*k.keys = append(*k.keys, key)
	k.key = key
	return k
}

// TestStochasticKeys checks that a Stochastic model gets a fresh key at
// every step (pre-training included), the same keys for the same seed, and
// that a plain model's run does not depend on the model stream.
func TestStochasticKeys(t *testing.T) {
	d, _ := regression(t, 40, 3, 1)
	run := func(seed uint64) []uint64 {
		var keys []uint64
		m := keyRecorder{Linear: &models.Linear{D: d.D}, keys: &keys}
		cfg := Config{Model: m, Data: d, Steps: 5, Sampler: Poisson{Rate: 0.5}, Optimizer: SGD{LR: 0.1},
			Public: &PublicTerm{Alpha: 1, PretrainOnly: true}, PublicPretrainSteps: 3, Seed: seed}
		if _, err := Train(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		return keys
	}
	a := run(1)
	// 3 public steps (public key only) + 5 private steps (private key; the
	// public model is rekeyed too).
	if len(a) < 8 {
		t.Fatalf("%d keys for 8 steps", len(a))
	}
	seen := map[uint64]bool{}
	for _, k := range a {
		if seen[k] {
			t.Errorf("key %x given twice", k)
		}
		seen[k] = true
	}
	if !slices.Equal(a, run(1)) {
		t.Error("same seed, different keys")
	}
	if slices.Equal(a, run(2)) {
		t.Error("another seed, same keys")
	}
}

// TestDDPMTrainDeterministic trains a small DDPM with Algorithm 1 (public
// pre-training, ℓ − ℓ_pub through LossDiff, clipping, noise) and checks
// bit-identical θ for GOMAXPROCS 1 and 2.
func TestDDPMTrainDeterministic(t *testing.T) {
	m, err := models.NewDDPM(8, 2, 6, 4, 20, 1e-3, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	n := 300
	x, px, y := make([]float64, n*8), make([]float64, n*8), make([]float64, n)
	for i := range n {
		y[i] = float64(i % 2)
		for j := range 8 {
			x[i*8+j] = 2*r.Float64() - 1
			px[i*8+j] = 0.5 * x[i*8+j]
		}
	}
	d, _ := design.NewData(x, y, n, 8)
	pub, _ := design.NewData(px, slices.Clone(y), n, 8)
	diff, err := models.NewLossDiff(m, m, pub)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := DPSGD(m.NumParams(), 1, 0.1, 0.2*float64(n))
	if err != nil {
		t.Fatal(err)
	}
	train := func(procs int) []float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		cfg := Config{Model: diff, Data: d, Steps: 6, Sampler: Poisson{Rate: 0.2}, Clip: ClipPerExample, ClipNorm: 0.1,
			Noise: plan, Optimizer: Adam{LR: 1e-3}, Public: &PublicTerm{Model: m, Data: pub, Alpha: 1},
			PublicPretrainSteps: 2, Seed: 9}
		res, err := Train(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return res.Theta
	}
	if a, b := train(1), train(2); !slices.Equal(a, b) {
		t.Error("θ differs between GOMAXPROCS 1 and 2")
	}
}

// TestTrainStreamPurposes: in Reproducible mode Train reads each purpose
// from its own stream of NewStreams(Seed): the noise of the private steps is
// the sequence of NormFloat64 of Noise() (P per step, in order) and the
// keys of a Stochastic model the Uint64 sequence of Rand(PurposeModel),
// whatever the sampler draws from Sampling(). On zero data the gradient is
// 0, so θ_t = θ_{t−1} − σ·z_t exactly (SGD with η = 1). Reading the noise
// from the sampling stream (two generators of one sequence: the batches
// and the noise would be correlated) or the keys from the noise stream
// fails here; no other test saw either.
func TestTrainStreamPurposes(t *testing.T) {
	const n, steps, seed, sigma = 40, 4, 21, 0.75
	zero := mustData(t, make([]float64, n*3), make([]float64, n), n, 3)
	var keys []uint64
	m := keyRecorder{Linear: &models.Linear{D: 3}, keys: &keys}
	plan, err := Standard(m.NumParams(), sigma)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]float64
	mustTrain(t, Config{Model: m, Data: zero, Init: make([]float64, m.NumParams()), Steps: steps, Optimizer: SGD{LR: 1},
		Sampler: Poisson{Rate: 0.5}, Clip: ClipPerExample, ClipNorm: 1, Noise: plan, Seed: seed,
		OnStep: func(_ int, th []float64) { got = append(got, append([]float64(nil), th...)) }})
	noise, model := NewStreams(seed).Rand(PurposeNoise), NewStreams(seed).Rand(PurposeModel)
	want := make([]float64, m.NumParams())
	for s := range steps {
		for j := range want {
			want[j] -= sigma * noise.NormFloat64()
		}
		if !sameBits(got[s], want) {
			t.Fatalf("step %d: θ = %v, want θ − σ·(normals of the noise stream) = %v", s+1, got[s], want)
		}
	}
	keys = slices.DeleteFunc(keys, func(k uint64) bool { return k == probeKey }) // the probe's evaluations
	if len(keys) != steps {
		t.Fatalf("%d keys for %d steps", len(keys), steps)
	}
	for s, k := range keys {
		if w := model.Uint64(); k != w {
			t.Errorf("step %d: key %x, want %x of the model stream", s+1, k, w)
		}
	}
}
