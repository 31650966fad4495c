package figures

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/corrdp"
)

func realReps(spec RealSpec, p experiments.Profile) int {
	nn := strings.HasPrefix(spec.Kind, "mlp")
	switch {
	case p == experiments.Full && nn:
		return 20
	case p == experiments.Full:
		return 10
	case nn:
		return 3
	}
	return 2
}

func realEps(p experiments.Profile) []float64 {
	if p == experiments.Full {
		return EpsGrid
	}
	return []float64{0.2, 1, 5}
}

// runMemoSize bounds the per-state memo of training runs: every run of a
// full-profile figure (20 seeds × 8 ε × 4 noise allocations) fits.
const runMemoSize = 4096

// realState is the per-(dataset, profile) state shared by the cells: the
// prepared data, the noise constant, the Partial metric and a memo of the
// training runs (scoped to the state, so runs of one figure never evict
// the prepared data of the run's memo).
type realState struct {
	prep    *RealPrep
	c       float64
	partial float64
	runs    *experiments.Memo
}

func newRealState(prep *RealPrep, c float64) *realState {
	return &realState{prep: prep, c: c, partial: math.NaN(), runs: experiments.NewMemo(runMemoSize)}
}

// realStateCached returns the state of a registered real-data figure
// (prepared data, calibrated C, Partial metric), kept in env.Memo.
func realStateCached(ctx context.Context, spec RealSpec, env experiments.Env) (*realState, error) {
	prof := env.Profile
	if prof == "" {
		prof = experiments.Quick
	}
	if prof != experiments.Full {
		spec.Rows = spec.quickRows()
	}
	v, err := env.Memo.Do("corrdp-state|"+spec.Name+"|"+env.DataDir+"|"+string(prof), func() (any, error) {
		prep, err := realPrepCached(env.Memo, spec, env.DataDir)
		if err != nil {
			return nil, err
		}
		// The calibration and the Partial run are independent: they
		// train side by side.
		steps := spec.StepsFor(prof)
		c, partial, tasks := 0.0, math.NaN(), 1
		if spec.Partial {
			tasks = 2
		}
		err = experiments.Parallel(ctx, tasks, 0, func(ctx context.Context, k int) error {
			var err error
			if k == 0 {
				c, err = prep.CalibrateC(ctx, steps)
			} else {
				partial, err = prep.PartialMetric(ctx, steps)
			}
			return err
		}, nil)
		if err != nil {
			return nil, err
		}
		st := newRealState(prep, c)
		st.partial = partial
		return st, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*realState), nil
}

// runKey identifies a training run by what determines its θ: runs whose
// per-feature variance weights coincide (e.g. CorrDP with every TV~ = 1
// and Standard) are bit-identical under common random numbers.
func (s *realState) runKey(r trainRun) (string, error) {
	meth, ok := r.variant.Allocation()
	if !ok {
		if r.variant == VariantNonPrivate {
			return fmt.Sprintf("nonprivate|%d|%d", r.seed, r.steps), nil
		}
		return "", fmt.Errorf("variant %v does not train on the full data", r.variant)
	}
	w, err := corrdp.NoiseWeights(meth, s.prep.Sensitive, r.tv, false)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%v|%d|%d|%v", r.eps, r.seed, r.steps, w), nil
}

// metric trains one noisy run alone and returns its metric, computed once
// per run key and shared.
func (s *realState) metric(ctx context.Context, r trainRun) (float64, error) {
	key, err := s.runKey(r)
	if err != nil {
		return 0, err
	}
	v, err := s.runs.Do("run|"+key, func() (any, error) {
		th, err := s.prep.Train(ctx, r.variant, r.eps, s.c, r.tv, r.steps, r.seed)
		if err != nil {
			return nil, err
		}
		return s.prep.Metric(th), nil
	})
	if err != nil {
		return 0, err
	}
	return v.(float64), nil
}

// blockMetric returns the metric of want, training it together with every
// run of its replicate (all ε, methods and TV modes of the figure) in one
// lock-step block, cached per replicate; runs with equal keys are trained
// once. Used for the models with a lock-step gradient (RealPrep.blockGrad:
// logistic regression, the full-batch Softplus network), whose runs share
// each pass over X.
func (s *realState) blockMetric(ctx context.Context, blockKey string, runs []trainRun, want trainRun) (float64, error) {
	v, err := s.runs.Do("block|"+blockKey, func() (any, error) {
		idx := map[string]int{}
		var uniq []trainRun
		for _, r := range runs {
			k, err := s.runKey(r)
			if err != nil {
				return nil, err
			}
			if _, ok := idx[k]; !ok {
				idx[k] = len(uniq)
				uniq = append(uniq, r)
			} else {
				// Progress counts every run of the block (Figure.Work):
				// a run equal to another is done with it.
				experiments.WorkFrom(ctx).Add(r.steps)
			}
		}
		th, err := s.prep.trainMany(ctx, uniq)
		if err != nil {
			return nil, err
		}
		vals := map[string]float64{}
		for k, i := range idx {
			vals[k] = s.prep.Metric(th[i])
		}
		return vals, nil
	})
	if err != nil {
		return 0, err
	}
	k, err := s.runKey(want)
	if err != nil {
		return 0, err
	}
	val, ok := v.(map[string]float64)[k]
	if !ok {
		return 0, fmt.Errorf("run %v/ε=%v is not in its replicate's block", want.variant, want.eps)
	}
	return val, nil
}

// nonPrivate returns the NonPrivate metric for a seed (deterministic for
// GLMs: full batch from 0; NN: the seed's init and batches).
func (s *realState) nonPrivate(ctx context.Context, steps int, seed uint64) (float64, error) {
	if !strings.HasPrefix(s.prep.Spec.Kind, "mlp") {
		seed = 0
	}
	v, err := s.runs.Do(fmt.Sprintf("nonprivate-alone|%d|%d", seed, steps), func() (any, error) {
		th, err := s.prep.Train(ctx, VariantNonPrivate, 1, 1, nil, steps, seed)
		if err != nil {
			return nil, err
		}
		return s.prep.Metric(th), nil
	})
	if err != nil {
		return 0, err
	}
	return v.(float64), nil
}
