package figures

import (
	"context"
	"fmt"
	"slices"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
	"github.com/featuredp/featuredp/notions/corrdp"
)

func (p *RealPrep) config(steps int, seed uint64) (mechanisms.Config, error) {
	cfg := mechanisms.Config{Model: p.Model, Data: p.Data, Steps: steps, Optimizer: mechanisms.SGD{LR: p.Spec.Alpha}, Seed: seed}
	if p.Spec.Adam {
		cfg.Optimizer = mechanisms.Adam{LR: p.Spec.Alpha}
	}
	switch p.Spec.Kind {
	case "logistic", "linear":
		cfg.Init = make([]float64, p.Model.NumParams())
		if p.Stats != nil {
			lin := p.Model.(*models.Linear)
			cfg.FullGrad = func(theta, out []float64) { p.Stats.GradSum(lin, theta, out) }
		}

	default:
		if p.Spec.Batch > 0 && p.Spec.Batch < p.Data.N {
			s, err := mechanisms.NewShuffledEpochs(p.Spec.Batch)
			if err != nil {
				return cfg, err
			}
			cfg.Sampler = s
		}
		cfg.Clip, cfg.ClipNorm = mechanisms.ClipBatch, p.Spec.Clip
	}
	return cfg, nil
}

// trainRun is one training run of a real-data experiment.
type trainRun struct {
	variant Variant // CorrDP, Semi, Standard or NonPrivate
	eps, c  float64
	tv      []float64
	steps   int
	seed    uint64
}

// runConfig returns the Train configuration of one run.
func (p *RealPrep) runConfig(r trainRun) (mechanisms.Config, error) {
	cfg, err := p.config(r.steps, r.seed)
	if err != nil {
		return cfg, err
	}
	if r.variant != VariantNonPrivate {
		meth, ok := r.variant.Allocation()
		if !ok {
			return cfg, fmt.Errorf("variant %v does not train on the full data", r.variant)
		}
		s0, err := paperSigma0(r.c, r.eps, p.Spec.Delta)
		if err != nil {
			return cfg, err
		}
		if cfg.Noise, err = corrdp.Plan(p.Model, meth, p.Sensitive, r.tv, s0, corrdp.PlanOptions{}); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// Train runs one variant (CorrDP, Semi, Standard, NonPrivate) with C at ε.
// Logistic models train through the lock-step block gradient
// (models.LogisticBlock), alone or with other runs: the result is the same.
func (p *RealPrep) Train(ctx context.Context, v Variant, eps, c float64, tv []float64, steps int, seed uint64) ([]float64, error) {
	th, err := p.trainMany(ctx, []trainRun{{variant: v, eps: eps, c: c, tv: tv, steps: steps, seed: seed}})
	if err != nil {
		return nil, err
	}
	return th[0], nil
}

// trainMany trains every run and returns their final θ. Logistic runs go
// through mechanisms.TrainLockstep in chunks of 16 (one kernel group),
// the chunks in parallel up to GOMAXPROCS; a run's θ does not depend on
// the chunking. Other models train one run at a time.
func (p *RealPrep) trainMany(ctx context.Context, runs []trainRun) ([][]float64, error) {
	cfgs := make([]mechanisms.Config, len(runs))
	for k, r := range runs {
		var err error
		if cfgs[k], err = p.runConfig(r); err != nil {
			return nil, err
		}
	}
	out := make([][]float64, len(runs))
	if newGrad := p.blockGrad(p.Data); newGrad != nil {
		return out, trainLockstep(ctx, newGrad, cfgs, out)
	}
	for k, cfg := range cfgs {
		res, err := mechanisms.Train(ctx, cfg)
		if err != nil {
			return nil, err
		}
		out[k] = res.Theta
	}
	return out, nil
}

// blockGrad returns a constructor of the lock-step gradient for the
// prepared model over data, or nil when the runs must train one at a time:
// logistic regression (models.LogisticBlock) and the full-batch Softplus
// MSE network (models.MLPBlock) train in lock-step; linear regression
// (sufficient statistics) and minibatch networks do not.
func (p *RealPrep) blockGrad(data *design.Data) func() (mechanisms.BlockGrad, error) {
	if p.Stats != nil || (p.Spec.Batch > 0 && p.Spec.Batch < data.N) {
		return nil
	}
	return newBlockGrad(p.Model, data)
}

// newBlockGrad returns a constructor of the block gradient of model over
// data (models.LogisticBlock, or models.MLPBlock for a Softplus MSE
// network), or nil for other models.
func newBlockGrad(model models.Model, data *design.Data) func() (mechanisms.BlockGrad, error) {
	switch m := model.(type) {
	case *models.Logistic:
		return func() (mechanisms.BlockGrad, error) {
			b, err := models.NewLogisticBlock(m, data)
			if err != nil {
				return nil, err
			}
			return b.GradSums, nil
		}
	case *models.MLP:
		if m.Act != models.Softplus || m.Head != models.HeadMSE {
			return nil
		}
		return func() (mechanisms.BlockGrad, error) {
			b, err := models.NewMLPBlock(m, data)
			if err != nil {
				return nil, err
			}
			return b.GradSums, nil
		}
	}
	return nil
}

// lockstepChunk is the number of lock-step runs per TrainLockstep call.
const lockstepChunk = 16

// trainLockstep trains configurations in lock-step chunks of lockstepChunk
// runs (the chunks in parallel up to GOMAXPROCS), writing the final θ of
// cfgs[k] to out[k]. A run's θ does not depend on the chunking. Every
// step of every run is counted in the Work of ctx (experiments.WorkFrom),
// if any: the progress of a figure whose cells share lock-step blocks.
func trainLockstep(ctx context.Context, newGrad func() (mechanisms.BlockGrad, error), cfgs []mechanisms.Config, out [][]float64) error {
	if work := experiments.WorkFrom(ctx); work != nil {
		cfgs = slices.Clone(cfgs)
		for k := range cfgs {
			cfgs[k].OnStep = countStep(work, cfgs[k].OnStep)
		}
	}
	nChunks := (len(cfgs) + lockstepChunk - 1) / lockstepChunk
	return experiments.Parallel(ctx, nChunks, 0, func(ctx context.Context, ch int) error {
		lo, hi := ch*lockstepChunk, min(len(cfgs), (ch+1)*lockstepChunk)
		grad, err := newGrad()
		if err != nil {
			return err
		}
		res, err := mechanisms.TrainLockstep(ctx, cfgs[lo:hi], grad)
		if err != nil {
			return err
		}
		for k, r := range res {
			out[lo+k] = r.Theta
		}
		return nil
	}, nil)
}

// countStep returns an OnStep that adds one step to work (an atomic
// add) and then calls next, if any.
func countStep(work *experiments.Work, next func(int, []float64)) func(int, []float64) {
	return func(t int, theta []float64) {
		work.Add(1)
		if next != nil {
			next(t, theta)
		}
	}
}

// Metric evaluates θ: accuracy (classification), F(θ) − F(θ̂) (linear) or
// the training MSE (NN regression; the gap is taken by the caller).
func (p *RealPrep) Metric(theta []float64) float64 {
	switch p.Spec.Kind {
	case "linear":
		return p.Stats.Loss(p.Model.(*models.Linear), theta) - p.Ref
	}
	ev := p.Model.(models.Evaluator).Evaluate(theta, p.Data)
	if p.Spec.Kind == "mlp-reg" {
		return ev.MSE
	}
	return ev.Accuracy
}

// PartialMetric returns the accuracy of the non-private model on the insensitive columns.
func (p *RealPrep) PartialMetric(ctx context.Context, steps int) (float64, error) {
	var keep []int
	for j, s := range p.Sensitive {
		if !s {
			keep = append(keep, j)
		}
	}
	du, err := corrdp.Columns(p.Data, keep)
	if err != nil {
		return 0, err
	}
	m, err := models.NewLogistic(len(keep), false, 0)
	if err != nil {
		return 0, err
	}
	th := make([][]float64, 1)
	cfg := mechanisms.Config{Model: m, Data: du, Init: make([]float64, len(keep)), Steps: steps, Optimizer: mechanisms.SGD{LR: p.Spec.Alpha}}
	if err := trainLockstep(ctx, newBlockGrad(m, du), []mechanisms.Config{cfg}, th); err != nil {
		return 0, err
	}
	return m.Evaluate(th[0], du).Accuracy, nil
}

// CalibrateC applies the Standard-only rule of docs/corrdp.md: the largest C in
// {1, 0.3, 0.1, …, 1e-4} for which Standard at ε = 5 (one seed) stays within
// 2 accuracy points of the non-private run (classification) or within 10%
// of its loss (regression: F(θ_Standard) ≤ 1.1·F(θ_NonPrivate), the
// training MSE for the NN). CorrDP is never consulted.
func (p *RealPrep) CalibrateC(ctx context.Context, steps int) (float64, error) {
	seed := experiments.CellSeed(seedBase, "corrdp-calibrate-"+p.Spec.Name, "crn", 5, 0)
	// Lock-step models train the non-private run and the whole grid
	// together (a run's θ does not depend on its block); others train
	// the grid one C at a time, stopping at the first that qualifies.
	runs := []trainRun{{variant: VariantNonPrivate, eps: 5, c: 1, steps: steps, seed: seed}}
	if p.blockGrad(p.Data) != nil {
		for _, c := range cGrid {
			runs = append(runs, trainRun{variant: VariantStandard, eps: 5, c: c, steps: steps, seed: seed})
		}
	}
	trained, err := p.trainMany(ctx, runs)
	if err != nil {
		return 0, err
	}
	base, grid := p.Metric(trained[0]), trained[1:]
	for k, c := range cGrid {
		var th []float64
		if k < len(grid) {
			th = grid[k]
		} else if th, err = p.Train(ctx, VariantStandard, 5, c, nil, steps, seed); err != nil {
			return 0, err
		}
		v := p.Metric(th)
		var ok bool
		switch p.Spec.Kind {
		case "linear":
			// F_std ≤ 1.1·F_np with F = gap + F(θ̂).
			ok = v+p.Ref <= 1.1*(base+p.Ref)
		case "mlp-reg":
			ok = v <= 1.1*base
		default:
			ok = v >= base-0.02
		}
		if ok {
			return c, nil
		}
	}
	return cGrid[len(cGrid)-1], nil
}
