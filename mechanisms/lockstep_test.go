package mechanisms

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
)

func lockstepSetup(t *testing.T) (*models.Logistic, *design.Data) {
	t.Helper()
	rng := rand.New(rand.NewPCG(4, 4))
	n, d := 150, 5
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x[i*d+j] = rng.NormFloat64()
			if j >= 3 {
				x[i*d+j] = float64(rng.IntN(2))
			}
		}
		if x[i*d]+0.5*x[i*d+1]+rng.NormFloat64() > 0 {
			y[i] = 1
		}
	}
	data, err := design.NewData(x, y, n, d)
	if err != nil {
		t.Fatal(err)
	}
	m, err := models.NewLogistic(d, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, data
}

func lockstepCfg(t *testing.T, m *models.Logistic, data *design.Data, sigma float64, steps int, seed uint64) Config {
	t.Helper()
	cfg := Config{Model: m, Data: data, Steps: steps, Optimizer: SGD{LR: 0.1}, Seed: seed, Init: make([]float64, m.NumParams())}
	if sigma > 0 {
		plan, err := Standard(m.NumParams(), sigma)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Noise = plan
	}
	return cfg
}

// Each lock-step run is bit-identical to the same run trained alone with
// the block gradient, whatever the other runs (different σ, seeds and T).
func TestTrainLockstepMatchesTrain(t *testing.T) {
	m, data := lockstepSetup(t)
	blk, err := models.NewLogisticBlock(m, data)
	if err != nil {
		t.Fatal(err)
	}
	var cfgs []Config
	for r := range 7 {
		cfgs = append(cfgs, lockstepCfg(t, m, data, float64(r)*0.5, 20+3*r, uint64(r)))
	}
	res, err := TrainLockstep(context.Background(), cfgs, blk.GradSums)
	if err != nil {
		t.Fatal(err)
	}
	for r, cfg := range cfgs {
		alone := cfg
		alone.FullGrad = func(theta, out []float64) {
			if err := blk.GradSums([][]float64{theta}, [][]float64{out}); err != nil {
				t.Error(err)
			}
		}
		want, err := Train(context.Background(), alone)
		if err != nil {
			t.Fatal(err)
		}
		for j := range want.Theta {
			if math.Float64bits(want.Theta[j]) != math.Float64bits(res[r].Theta[j]) {
				t.Fatalf("run %d θ[%d]: lock-step %.17g, alone %.17g", r, j, res[r].Theta[j], want.Theta[j])
			}
		}
		// And close to the engine's own gradient path.
		plain, err := Train(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		for j := range plain.Theta {
			if math.Abs(plain.Theta[j]-res[r].Theta[j]) > 1e-9*(1+math.Abs(plain.Theta[j])) {
				t.Errorf("run %d θ[%d]: lock-step %.17g, GradSum path %.17g", r, j, res[r].Theta[j], plain.Theta[j])
			}
		}
	}
}

func TestTrainLockstepErrors(t *testing.T) {
	m, data := lockstepSetup(t)
	blk, _ := models.NewLogisticBlock(m, data)
	good := lockstepCfg(t, m, data, 1, 5, 1)
	withSampler := good
	withSampler.Sampler = Poisson{Rate: 0.5}
	perEx := good
	perEx.Clip, perEx.ClipNorm = ClipPerExample, 1
	withGrad := good
	withGrad.FullGrad = func(theta, out []float64) {}
	bad := good
	bad.Steps = -1
	for _, tc := range []struct {
		name string
		cfgs []Config
		grad BlockGrad
		want string
	}{
		{"nil grad", []Config{good}, nil, "nil BlockGrad"},
		{"poisson", []Config{good, withSampler}, blk.GradSums, "want FullBatch"},
		{"per-example", []Config{perEx}, blk.GradSums, "per-example"},
		{"own FullGrad", []Config{withGrad}, blk.GradSums, "already has a FullGrad"},
		{"invalid run", []Config{good, bad, good}, blk.GradSums, "run 1"},
		{"grad error", []Config{good, good}, func(th, out [][]float64) error { return errors.New("boom") }, "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TrainLockstep(context.Background(), tc.cfgs, tc.grad)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	// A cancelled context ends every run.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := TrainLockstep(ctx, []Config{good, good}, blk.GradSums); err == nil {
		t.Error("cancelled context: no error")
	}
}

// TestTrainLockstepStatesNoPhase: the block gradient is not probed
// (docs/dp-sgd.md), which is sound only because a lock-step run, without
// per-example clipping, never states a phase, even with a DP-SGD plan:
// a BlockGrad that reads other rows or the row count cannot get one.
func TestTrainLockstepStatesNoPhase(t *testing.T) {
	m, data := lockstepSetup(t)
	blk, err := models.NewLogisticBlock(m, data)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := DPSGD(m.NumParams(), 1, 1, float64(data.N))
	if err != nil {
		t.Fatal(err)
	}
	var cfgs []Config
	for _, clip := range []ClipMode{ClipNone, ClipBatch} {
		cfg := lockstepCfg(t, m, data, 0, 2, 1)
		cfg.Noise, cfg.Clip = plan, clip
		if clip == ClipBatch {
			cfg.ClipNorm = 1
		}
		cfgs = append(cfgs, cfg)
	}
	res, err := TrainLockstep(context.Background(), cfgs, blk.GradSums)
	if err != nil {
		t.Fatal(err)
	}
	for r, x := range res {
		if len(x.Phases) > 0 || !strings.Contains(x.PhasesNote, "per-example clipping") {
			t.Errorf("run %d: phases %+v, note %q; want none, with a note on clipping", r, x.Phases, x.PhasesNote)
		}
	}
}
