package mechanisms

import (
	"context"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/models"
)

// This file holds Train and its loop: the order of steps, the update and
// the projection.

// Train runs noisy gradient descent as configured (see Config, PublicTerm
// and NoisePlan). Each private step t = 1..T:
//
//  1. B_t ← Sampler (stream PurposeSampling);
//  2. s = Σ_{i∈B_t} clip_C(a_i), a_i = ∇ℓ(θ; x_i) [− ∇ℓ_pub(θ; Ψ(x_i))],
//     with per-example clipping, else the plain gradient sum (GradSum,
//     FullGrad, or ghost clipping when the model supports it);
//  3. g̃ = s/m (m expected or realised batch size); with ClipBatch,
//     g̃ ← g̃·min(1, C/‖g̃‖);
//  4. g̃ ← g̃ + b, b ~ N(0, diag σ²) (stream PurposeNoise; exactly P
//     normals per step, even where σ_j = 0);
//  5. with a public term, g = g_pub + α·g̃ (public batch from stream
//     PurposePublicSampling); else g = g̃;
//  6. θ ← Optimizer step with learning-rate multiplier Schedule(t), then
//     projection onto the L2 ball of ProjectRadius.
//
// A models.Stochastic loss (DDPM) gets a fresh key before every step, from
// the stream PurposeModel (LossDiff gives ℓ and ℓ_pub the same key; the
// public batch's loss gets a salted one). Public pre-training steps
// (g = g_pub) run first. The context is checked
// before every step; on cancellation Train returns an error wrapping
// ctx.Err(). A non-finite θ (divergence) or schedule value stops training
// with an error. The same Config gives bit-identical results on every run,
// whatever GOMAXPROCS is, in Reproducible mode; Secure mode draws every
// random number from the OS CSPRNG (Config.Mode).
func Train(ctx context.Context, cfg Config) (*Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	t, err := newTrainer(cfg)
	if err != nil {
		return nil, err
	}
	streams, err := cfg.streams()
	if err != nil {
		return nil, err
	}
	t.rngS, t.rngP, t.rngN = streams.Sampling(), streams.PublicSampling(), streams.Noise()
	if t.stochastic {
		t.rngK = streams.Rand(PurposeModel)
	}
	t.alloc()
	if err := t.init(streams); err != nil {
		return nil, err
	}
	return t.run(ctx)
}

// alloc preallocates the per-run buffers.
func (t *trainer) alloc() {
	p := t.p
	t.theta = make([]float64, p)
	t.grad = make([]float64, p)
	capB := int(math.Min(float64(t.n), t.m+6*math.Sqrt(t.m)+16))
	t.idx = make([]int, 0, capB)
	if t.full {
		t.all = make([]int, t.n)
		for i := range t.all {
			t.all[i] = i
		}
	}
	if t.cfg.Clip == ClipPerExample {
		if t.fast.bound() {
			t.norms = make([]float64, 0, capB)
			t.weights = make([]float64, 0, capB)
		} else {
			t.pe = make([]float64, exampleChunk*p)
		}
	}
	if t.subtract {
		t.pe2 = make([]float64, max(exampleChunk*p, p))
	}
	if t.pub {
		t.pubGrad = make([]float64, p)
		t.pubIdx = make([]int, 0, t.pubM)
	}
}

// init sets θ₀.
func (t *trainer) init(streams *Streams) error {
	switch {
	case t.cfg.Init != nil:
		copy(t.theta, t.cfg.Init)
		return nil
	default:
		in, ok := t.model.(models.Initializer)
		if !ok {
			return nil // zeros
		}
		in.Init(t.theta, streams.Init())
		for j, v := range t.theta {
			if !valid.Finite(v) {
				return fmt.Errorf("mechanisms: model Init produced θ[%d] = %v", j, v)
			}
		}
		return nil
	}
}

// run executes the pre-training and private steps.
func (t *trainer) run(ctx context.Context) (*Result, error) {
	cfg := t.cfg
	res := &Result{
		BatchSizes:        make([]int, 0, min(cfg.Steps, 1<<20)),
		ExpectedBatchSize: t.m,
		Phases:            t.phases,
		PhasesRelation:    t.phasesRel,
		PhasesNote:        t.note,
		Mode:              cfg.Mode,
	}
	if t.pub {
		res.PublicBatchSize = t.pubM
	}
	var avg []float64
	if cfg.Average {
		avg = make([]float64, t.p)
	}
	total := cfg.PublicPretrainSteps + cfg.Steps
	trace := func(step int) {
		if cfg.TraceEvery > 0 && (step%cfg.TraceEvery == 0 || step == total) {
			res.Trace = append(res.Trace, TracePoint{Step: step, Loss: t.model.Loss(t.theta, t.data, nil)})
		}
	}
	trace(0)

	if err := t.pretrain(ctx, trace); err != nil {
		return nil, err
	}
	sumB, err := t.privateSteps(ctx, res, avg, trace)
	if err != nil {
		return nil, err
	}
	res.MeanBatchSize = sumB / float64(cfg.Steps)
	if avg != nil {
		inv := 1 / float64(cfg.Steps)
		for j := range avg {
			avg[j] *= inv
		}
		res.Average = avg
	}
	res.Theta = t.theta
	return res, nil
}

// pretrain runs the public pre-training steps (g = g_pub), each with its
// own optimizer state.
func (t *trainer) pretrain(ctx context.Context, trace func(int)) error {
	cfg := t.cfg
	if cfg.PublicPretrainSteps == 0 {
		return nil
	}
	opt := cfg.Optimizer.NewState(t.p)
	for s := 1; s <= cfg.PublicPretrainSteps; s++ {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("mechanisms: training cancelled before public step %d: %w", s, err)
		}
		t.rekey()
		t.publicGrad()
		if err := t.update(opt, t.pubGrad, s, s); err != nil {
			return err
		}
		if cfg.OnStep != nil {
			cfg.OnStep(s, t.theta)
		}
		trace(s)
	}
	return nil
}

// privateSteps runs the private steps, recording batch sizes in res and
// adding θ to avg (when averaging); it returns the sum of the batch sizes.
func (t *trainer) privateSteps(ctx context.Context, res *Result, avg []float64, trace func(int)) (float64, error) {
	cfg := t.cfg
	opt := cfg.Optimizer.NewState(t.p)
	var sumB float64
	for s := 1; s <= cfg.Steps; s++ {
		global := cfg.PublicPretrainSteps + s
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("mechanisms: training cancelled before step %d: %w", global, err)
		}
		t.rekey()
		b, err := t.privateGrad()
		if err != nil {
			return 0, fmt.Errorf("mechanisms: step %d: %w", global, err)
		}
		res.BatchSizes = append(res.BatchSizes, b)
		sumB += float64(b)
		if err := t.update(opt, t.stepGrad(), s, global); err != nil {
			return 0, err
		}
		for j, v := range t.theta[:len(avg)] {
			avg[j] += v
		}
		if cfg.OnStep != nil {
			cfg.OnStep(global, t.theta)
		}
		trace(global)
	}
	return sumB, nil
}

// stepGrad returns the gradient of a private step: the noisy private
// gradient g̃, or g_pub + α·g̃ with a public term (on the private batch
// itself with SameBatch).
func (t *trainer) stepGrad() []float64 {
	g := t.grad
	if !t.pubPriv {
		return g
	}
	if t.same {
		t.sameBatchPublicGrad()
	} else {
		t.publicGrad()
	}
	for j := range g {
		t.pubGrad[j] += t.alpha * g[j]
	}
	return t.pubGrad
}

// update applies one optimizer step with schedule value at local step s,
// projects, and checks for divergence.
func (t *trainer) update(opt OptimizerState, g []float64, s, global int) error {
	lr := t.sched(s)
	if !valid.Finite(lr) || lr < 0 {
		return fmt.Errorf("mechanisms: step %d: schedule value %v, want finite ≥ 0", global, lr)
	}
	opt.Step(t.theta, g, lr)
	if t.radius > 0 {
		projectL2(t.theta, t.radius)
	}
	if j := valid.FirstNonFinite(t.theta); j >= 0 {
		return fmt.Errorf("mechanisms: step %d: θ[%d] = %v (training diverged; lower the learning rate or clip)", global, j, t.theta[j])
	}
	return nil
}
