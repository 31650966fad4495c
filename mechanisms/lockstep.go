package mechanisms

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
)

// BlockGrad computes full-batch gradient sums Σ_i ∇ℓ(θ_r; x_i, y_i) for
// several parameter vectors at once, writing outs[r] for thetas[r] (for
// example models.LogisticBlock.GradSums). The result for one θ must not
// depend on the other vectors of the call.
type BlockGrad func(thetas, outs [][]float64) error

// TrainLockstep runs every configuration as Train does, with the full-batch
// gradients of all runs computed together: each step, once every run still
// going has asked for its gradient, one grad call serves them all, so the
// runs share each pass over the data (one X·Θ for the block instead of one
// X·θ per run). Every configuration must use the FullBatch sampler, no
// per-example clipping and no FullGrad of its own; noise, optimizer,
// streams and everything else are per run and exactly those of Train, so a
// run's result does not depend on which runs share its block or on
// scheduling, provided grad's result for a vector depends on that vector
// alone.
//
// It returns one Result per configuration (nil where that run failed) and
// the grad error if any, else the first run's error, wrapped with the run's
// index.
func TrainLockstep(ctx context.Context, cfgs []Config, grad BlockGrad) ([]*Result, error) {
	if grad == nil {
		return nil, errors.New("mechanisms: TrainLockstep: nil BlockGrad")
	}
	for r, cfg := range cfgs {
		switch cfg.Sampler.(type) {
		case nil, FullBatch, *FullBatch:
		default:
			return nil, fmt.Errorf("mechanisms: TrainLockstep: run %d: sampler %T, want FullBatch", r, cfg.Sampler)
		}
		if cfg.Clip == ClipPerExample {
			return nil, fmt.Errorf("mechanisms: TrainLockstep: run %d: per-example clipping has no full-batch gradient", r)
		}
		if cfg.FullGrad != nil {
			return nil, fmt.Errorf("mechanisms: TrainLockstep: run %d already has a FullGrad", r)
		}
	}
	ls := &lockstep{grad: grad, active: len(cfgs), th: make([][]float64, len(cfgs)), out: make([][]float64, len(cfgs))}
	ls.cond = sync.NewCond(&ls.mu)
	res := make([]*Result, len(cfgs))
	errs := make([]error, len(cfgs))
	var wg sync.WaitGroup
	for r := range cfgs {
		cfg := cfgs[r]
		cfg.FullGrad = func(theta, out []float64) { ls.call(r, theta, out) }
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer ls.leave()
			res[r], errs[r] = Train(ctx, cfg)
		}()
	}
	wg.Wait()
	if ls.err != nil {
		return res, fmt.Errorf("mechanisms: TrainLockstep: block gradient: %w", ls.err)
	}
	for r, err := range errs {
		if err != nil {
			return res, fmt.Errorf("mechanisms: TrainLockstep: run %d: %w", r, err)
		}
	}
	return res, nil
}

// lockstep is the barrier behind TrainLockstep: runs deposit θ and wait;
// the last one to arrive computes every gradient and wakes the others.
type lockstep struct {
	mu      sync.Mutex
	cond    *sync.Cond
	grad    BlockGrad
	active  int   // runs not yet finished
	waiting []int // runs that have deposited θ this round
	gen     uint64
	th, out [][]float64 // per run: the θ and gradient buffers deposited
	bth     [][]float64 // the waiting runs' θ, reused every round
	bout    [][]float64
	err     error
}

func (ls *lockstep) call(r int, theta, out []float64) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.th[r], ls.out[r] = theta, out
	ls.waiting = append(ls.waiting, r)
	gen := ls.gen
	if len(ls.waiting) == ls.active {
		ls.flush()
		return
	}
	for gen == ls.gen {
		ls.cond.Wait()
	}
}

func (ls *lockstep) leave() {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.active--
	if len(ls.waiting) > 0 && len(ls.waiting) == ls.active {
		ls.flush()
	}
}

// flush computes the gradients of the waiting runs (in run order) and
// releases them. A grad error is kept (TrainLockstep returns it) and the
// gradients of that round are set to NaN.
func (ls *lockstep) flush() {
	sort.Ints(ls.waiting)
	th, out := ls.bth[:0], ls.bout[:0]
	for _, r := range ls.waiting {
		th, out = append(th, ls.th[r]), append(out, ls.out[r])
	}
	ls.bth, ls.bout = th, out
	if err := ls.grad(th, out); err != nil {
		if ls.err == nil {
			ls.err = err
		}
		for _, o := range out {
			for j := range o {
				o[j] = math.NaN()
			}
		}
	}
	ls.waiting = ls.waiting[:0]
	ls.gen++
	ls.cond.Broadcast()
}
