package figures

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/fdp"
)

// TunePoint is one grid point of the E3 validation search: a method
// (FDP-Alg1 over surrogate × α, DP over the DP clip), its config and its
// validation accuracy at every ε of the search.
type TunePoint struct {
	Method   fdp.Method
	Config   ClassConfig
	Accuracy []float64 // per ε, in the order of the search's epss
}

// TuneGrid runs the E3 validation search (docs/feature-dp.md, 'Where we differ';
// the grids are arguments):
// the training rows are split 80/20 into a tuning-training and a validation
// part (the test rows are never used), and every grid point — FDP-Alg1 for
// each public surrogate (Gaussian padding, mean imputation) × α, DP for each
// DP clip — is one run (ClassRunEps, seed 777) evaluated on the
// validation rows at every ε of epss. The runs are spread over GOMAXPROCS
// goroutines (experiments.Parallel); the points come back in grid order
// whatever their number. The result is cached in memo per (problem, grids,
// epss, base) and shared: do not modify it. A nil memo runs the search
// afresh.
func TuneGrid(ctx context.Context, memo *experiments.Memo, p *ClassProblem, base ClassConfig, alphas, clips, epss []float64) ([]TunePoint, error) {
	if p == nil {
		return nil, errors.New("fdp: TuneGrid: nil problem")
	}
	if len(alphas) == 0 || len(clips) == 0 || len(epss) == 0 {
		return nil, errors.New("fdp: TuneGrid: empty α, clip or ε grid")
	}
	key := fmt.Sprintf("fdp/tune/%s/%d/%d/%v/%v/%v/%+v", p.Name, p.Train.N, p.Classes, alphas, clips, epss, base)
	v, err := memo.Do(key, func() (any, error) {
		rng := rand.New(rand.NewPCG(99, uint64(p.Train.N)))
		tr, val, err := Split(p.Train, p.Train.N/5, rng)
		if err != nil {
			return nil, err
		}
		tp, err := NewClassProblem(p.Name+"/tune", tr, val, p.Public, p.Classes, 3)
		if err != nil {
			return nil, err
		}
		pts := tunePoints(base, alphas, clips)
		err = experiments.Parallel(ctx, len(pts), 0, func(ctx context.Context, i int) error {
			var err error
			if pts[i].Accuracy, _, err = ClassRunEps(ctx, tp, pts[i].Method, epss, pts[i].Config, 777); err != nil {
				return fmt.Errorf("fdp: TuneGrid %s %s %+v: %w", p.Name, pts[i].Method, pts[i].Config, err)
			}
			return nil
		}, nil)
		if err != nil {
			return nil, err
		}
		return pts, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]TunePoint), nil
}

// tunePoints lists the grid points of TuneGrid in grid order (accuracies
// not yet set): FDP-Alg1 for each surrogate × α, then DP for each clip.
func tunePoints(base ClassConfig, alphas, clips []float64) []TunePoint {
	var pts []TunePoint
	for _, sur := range []string{SurrogateGaussian, SurrogateMean} {
		for _, a := range alphas {
			c := base
			c.Alpha, c.Surrogate = a, sur
			pts = append(pts, TunePoint{Method: fdp.Alg1, Config: c})
		}
	}
	for _, cl := range clips {
		c := base
		c.DPClip = cl
		pts = append(pts, TunePoint{Method: fdp.DP, Config: c})
	}
	return pts
}

// TuneClassConfig returns, for every ε of epss, base with the choice of
// TuneGrid at that ε: the public surrogate and α of the FDP-Alg1 point
// and the DP clip of the DP point with the best validation accuracy (the
// first in grid order on ties). DP and FDP-DPSGD use the DP clip, FDP-Alg1
// the surrogate and α (FDP-DPSGD pre-trains on the chosen surrogate).
func TuneClassConfig(ctx context.Context, memo *experiments.Memo, p *ClassProblem, base ClassConfig, alphas, clips, epss []float64) ([]ClassConfig, error) {
	pts, err := TuneGrid(ctx, memo, p, base, alphas, clips, epss)
	if err != nil {
		return nil, err
	}
	out := make([]ClassConfig, len(epss))
	for i := range epss {
		cfg := base
		bestAlg1, bestDP := -1.0, -1.0
		for _, pt := range pts {
			switch {
			case pt.Method == fdp.Alg1 && pt.Accuracy[i] > bestAlg1:
				bestAlg1, cfg.Alpha, cfg.Surrogate = pt.Accuracy[i], pt.Config.Alpha, pt.Config.Surrogate
			case pt.Method == fdp.DP && pt.Accuracy[i] > bestDP:
				bestDP, cfg.DPClip = pt.Accuracy[i], pt.Config.DPClip
			}
		}
		out[i] = cfg
	}
	return out, nil
}
