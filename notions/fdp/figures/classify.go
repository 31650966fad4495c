package figures

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
	"github.com/featuredp/featuredp/notions/fdp"
)

// ClassConfig are the training settings of E3: the
// paper's q = 1/16, z = 1, C = 0.01 for the private part of Algorithm 1,
// SGD with lr 0.1 and momentum 0.9; α and the DP clip are our choices (tuned).
type ClassConfig struct {
	Hidden        int     // MLP hidden units (tanh)
	Rate          float64 // q
	Multiplier    float64 // z
	Clip          float64 // C of ∇ℓ_priv (FDP-Alg1)
	DPClip        float64 // C of ∇ℓ (DP, FDP-DPSGD)
	Alpha         float64 // α
	LR, Momentum  float64
	PretrainEpoch float64 // public pre-training epochs (FDP-DPSGD, FDP-Alg1)
	Delta         float64
	// Surrogate selects the public view: SurrogateGaussian ("" too) or
	// SurrogateMean.
	Surrogate string
	// Float32 runs the MLP's products in single precision
	// (models.MLP.Float32); clipping, noise and accounting stay float64.
	Float32 bool
}

// DefaultClassConfig returns the E3 defaults: hidden 128, q = 1/16,
// z = 1, C = 0.01, DP clip 0.1, α = 30, lr 0.1, momentum 0.9, 5 public
// pre-training epochs, δ = 1e-5.
func DefaultClassConfig() ClassConfig {
	return ClassConfig{Hidden: 128, Rate: 1.0 / 16, Multiplier: 1, Clip: 0.01, DPClip: 0.1, Alpha: 30,
		LR: 0.1, Momentum: 0.9, PretrainEpoch: 5, Delta: 1e-5}
}

// ClassRun trains method on the problem for the number of steps that
// spends (ε, δ) (MaxSteps with the config's q and z; NonPrivate and
// Public train for the same number of steps) and returns the test accuracy
// and the spent ε (+Inf for NonPrivate, 0 for Public). It is
// ClassRunEps with one ε.
func ClassRun(ctx context.Context, p *ClassProblem, method fdp.Method, eps float64, cfg ClassConfig, seed uint64) (acc, spent float64, err error) {
	accs, spents, err := ClassRunEps(ctx, p, method, []float64{eps}, cfg, seed)
	if err != nil {
		return 0, 0, err
	}
	return accs[0], spents[0], nil
}

// ClassRunEps returns, for every ε of epss, the test accuracy and spent ε
// of the run ClassRun(ctx, p, method, ε, cfg, seed), from one training
// run: with q and z fixed, ε only sets the number of private steps T(ε)
// (MaxSteps), and a run of T steps is the first T steps of a longer run
// with the same seed (constant learning rate, per-step draws from the
// seeded streams), so the model is evaluated at step T(ε) of a run for
// max T(ε). The results are bit-identical to separate runs (tested).
func ClassRunEps(ctx context.Context, p *ClassProblem, method fdp.Method, epss []float64, cfg ClassConfig, seed uint64) (acc, spent []float64, err error) {
	if p == nil {
		return nil, nil, errors.New("fdp: ClassRun: nil problem")
	}
	steps, maxT, err := checkpointSteps(epss, cfg)
	if err != nil {
		return nil, nil, err
	}
	mlp, s, offset, err := classSetup(p, method, cfg, maxT, seed)
	if err != nil {
		return nil, nil, err
	}
	// Snapshot θ at the global step of every checkpoint.
	snaps := make(map[int][]float64, len(steps))
	for _, t := range steps {
		snaps[offset+t] = nil
	}
	s.OnStep = func(t int, theta []float64) {
		if v, ok := snaps[t]; ok && v == nil {
			snaps[t] = append([]float64(nil), theta...)
		}
	}
	res, err := fdp.Train(ctx, method, s)
	if err != nil {
		return nil, nil, err
	}
	if len(res.Phases) > 0 && (len(res.Phases) != 1 || res.Phases[0].Steps != maxT) {
		return nil, nil, fmt.Errorf("fdp: ClassRun %s: unexpected privacy phases %v", method, res.Phases)
	}
	acc, spent = make([]float64, len(epss)), make([]float64, len(epss))
	for i, t := range steps {
		theta := snaps[offset+t]
		if theta == nil {
			return nil, nil, fmt.Errorf("fdp: ClassRun %s: no parameters recorded at step %d", method, offset+t)
		}
		if spent[i], err = prefixEpsilon(method, s, res, t, cfg.Delta); err != nil {
			return nil, nil, err
		}
		acc[i] = mlp.Evaluate(theta, p.Test).Accuracy
	}
	return acc, spent, nil
}

// checkpointSteps returns the private step count T(ε) = MaxSteps(ε, q, z, δ)
// of every ε and their maximum.
func checkpointSteps(epss []float64, cfg ClassConfig) (steps []int, maxT int, err error) {
	if len(epss) == 0 {
		return nil, 0, errors.New("fdp: ClassRun: no ε given")
	}
	steps = make([]int, len(epss))
	for i, eps := range epss {
		t, err := fdp.MaxSteps(eps, cfg.Rate, cfg.Multiplier, cfg.Delta)
		if err != nil {
			return nil, 0, err
		}
		if t == 0 {
			return nil, 0, fmt.Errorf("fdp: ClassRun: ε = %v allows no step at q = %v, z = %v", eps, cfg.Rate, cfg.Multiplier)
		}
		steps[i], maxT = t, max(maxT, t)
	}
	return steps, maxT, nil
}

// classSetup returns the MLP and the Setup of a ClassRunEps run of maxT
// private steps, and the global step number of private step 0 (the public
// pre-training steps come first).
func classSetup(p *ClassProblem, method fdp.Method, cfg ClassConfig, maxT int, seed uint64) (*models.MLP, fdp.Setup, int, error) {
	mlp, err := models.NewMLP(p.Train.D, cfg.Hidden, p.Classes, models.Tanh, models.HeadSoftmaxCE)
	if err != nil {
		return nil, fdp.Setup{}, 0, err
	}
	mlp.Float32 = cfg.Float32
	m := cfg.Rate * float64(p.Train.N)
	pre := int(math.Round(cfg.PretrainEpoch * float64(p.Train.N) / math.Max(1, math.Round(m))))
	var pub *design.Data
	switch cfg.Surrogate {
	case "", SurrogateGaussian:
		pub = p.Padded
	case SurrogateMean:
		pub = p.Masked
	default:
		return nil, fdp.Setup{}, 0, fmt.Errorf("fdp: ClassRun: unknown surrogate %q", cfg.Surrogate)
	}
	s := fdp.Setup{Model: mlp, Data: p.Train, PubData: pub, Rate: cfg.Rate, Multiplier: cfg.Multiplier,
		Clip: cfg.Clip, DPClip: cfg.DPClip, Steps: maxT, Alpha: cfg.Alpha,
		Optimizer: mechanisms.Momentum{LR: cfg.LR, Beta: cfg.Momentum}, Seed: seed}
	offset := 0
	switch method {
	case fdp.DPSGD, fdp.Alg1, fdp.SingleBatch:
		s.PretrainSteps, offset = pre, pre
	case fdp.PublicOnly:
		s.NonPrivateSteps = pre + maxT
		offset = pre
	}
	return mlp, s, offset, nil
}

// prefixEpsilon is the ε at δ of the first t private steps of the run res
// of s: the run's phase with T = t.
func prefixEpsilon(method fdp.Method, s fdp.Setup, res *mechanisms.Result, t int, delta float64) (float64, error) {
	st, rt := s, *res
	st.Steps = t
	if len(res.Phases) == 1 {
		ph := res.Phases[0]
		ph.Steps = t
		rt.Phases = []accounting.Phase{ph}
	}
	return fdp.Epsilon(method, st, &rt, delta)
}
