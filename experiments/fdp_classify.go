package experiments

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
)

// FDPClassProblem is a feature-DP classification problem: training and test
// rows (features standardised with public constants), the public columns (Ψ
// keeps them and the label), and two public views of the training rows:
// Padded = g(Ψ(X)), the private columns filled with N(0, 1) draws (the
// paper's Gaussian padding, fdp.md §3.2), and Masked, the private columns
// set to 0 = their public mean after standardisation (mean imputation, the
// zero masking the paper uses for Criteo, §3.3).
type FDPClassProblem struct {
	Name           string
	Train, Test    *design.Data
	Public         []int
	Padded, Masked *design.Data
	Classes        int
}

// Public surrogates of FDPClassConfig.Surrogate.
const (
	// FDPSurrogateGaussian is the paper's Gaussian padding (default).
	FDPSurrogateGaussian = "gaussian"
	// FDPSurrogateMean sets the private columns to their public mean [ext].
	FDPSurrogateMean = "mean"
)

// NewFDPClassProblem pads the training rows (Gaussian padding of the
// private columns, fdp.md §3.2) with a stream derived from seed.
func NewFDPClassProblem(name string, train, test *design.Data, public []int, classes int, seed uint64) (*FDPClassProblem, error) {
	if train == nil || test == nil || train.D != test.D {
		return nil, errors.New("experiments: FDPClassProblem: missing or mismatched train/test data")
	}
	pad, err := models.FDPGaussianPadding(train, public, mechanisms.NewStreams(seed).Rand("fdp-padding"))
	if err != nil {
		return nil, fmt.Errorf("experiments: FDPClassProblem %s: %w", name, err)
	}
	masked, err := models.FDPZeroMasking(train, public)
	if err != nil {
		return nil, fmt.Errorf("experiments: FDPClassProblem %s: %w", name, err)
	}
	return &FDPClassProblem{Name: name, Train: train, Test: test, Public: public, Padded: pad, Masked: masked, Classes: classes}, nil
}

// FDPClassConfig are the training settings of E3 (fdp.md §3.2, §4.3): the
// paper's q = 1/16, z = 1, C = 0.01 for the private part of Algorithm 1,
// SGD with lr 0.1 and momentum 0.9; α and the DP clip are the [ext] choices.
type FDPClassConfig struct {
	Hidden        int     // MLP hidden units (tanh)
	Rate          float64 // q
	Multiplier    float64 // z
	Clip          float64 // C of ∇ℓ_priv (FDP-Alg1)
	DPClip        float64 // C of ∇ℓ (DP, FDP-DPSGD)
	Alpha         float64 // α
	LR, Momentum  float64
	PretrainEpoch float64 // public pre-training epochs (FDP-DPSGD, FDP-Alg1)
	Delta         float64
	// Surrogate selects the public view: FDPSurrogateGaussian ("" too) or
	// FDPSurrogateMean.
	Surrogate string
}

// FDPDefaultClassConfig returns the E3 defaults: hidden 128, q = 1/16,
// z = 1, C = 0.01, DP clip 0.1, α = 30, lr 0.1, momentum 0.9, 5 public
// pre-training epochs, δ = 1e-5.
func FDPDefaultClassConfig() FDPClassConfig {
	return FDPClassConfig{Hidden: 128, Rate: 1.0 / 16, Multiplier: 1, Clip: 0.01, DPClip: 0.1, Alpha: 30,
		LR: 0.1, Momentum: 0.9, PretrainEpoch: 5, Delta: 1e-5}
}

// FDPClassRun trains method on the problem for the number of steps that
// spends (ε, δ) (FDPMaxSteps with the config's q and z; NonPrivate and
// Public train for the same number of steps) and returns the test accuracy
// and the spent ε (+Inf for NonPrivate, 0 for Public). It is
// FDPClassRunEps with one ε.
func FDPClassRun(ctx context.Context, p *FDPClassProblem, method mechanisms.FDPMethod, eps float64, cfg FDPClassConfig, seed uint64) (acc, spent float64, err error) {
	accs, spents, err := FDPClassRunEps(ctx, p, method, []float64{eps}, cfg, seed)
	if err != nil {
		return 0, 0, err
	}
	return accs[0], spents[0], nil
}

// FDPClassRunEps returns, for every ε of epss, the test accuracy and spent ε
// of the run FDPClassRun(ctx, p, method, ε, cfg, seed), from one training
// run: with q and z fixed, ε only sets the number of private steps T(ε)
// (FDPMaxSteps), and a run of T steps is the first T steps of a longer run
// with the same seed (constant learning rate, per-step draws from the
// seeded streams), so the model is evaluated at step T(ε) of a run for
// max T(ε). The results are bit-identical to separate runs (tested).
func FDPClassRunEps(ctx context.Context, p *FDPClassProblem, method mechanisms.FDPMethod, epss []float64, cfg FDPClassConfig, seed uint64) (acc, spent []float64, err error) {
	if p == nil {
		return nil, nil, errors.New("experiments: FDPClassRun: nil problem")
	}
	if len(epss) == 0 {
		return nil, nil, errors.New("experiments: FDPClassRun: no ε given")
	}
	steps := make([]int, len(epss))
	maxT := 0
	for i, eps := range epss {
		t, err := accounting.FDPMaxSteps(eps, cfg.Rate, cfg.Multiplier, cfg.Delta)
		if err != nil {
			return nil, nil, err
		}
		if t == 0 {
			return nil, nil, fmt.Errorf("experiments: FDPClassRun: ε = %v allows no step at q = %v, z = %v", eps, cfg.Rate, cfg.Multiplier)
		}
		steps[i], maxT = t, max(maxT, t)
	}
	mlp, err := models.NewMLP(p.Train.D, cfg.Hidden, p.Classes, models.Tanh, models.HeadSoftmaxCE)
	if err != nil {
		return nil, nil, err
	}
	m := cfg.Rate * float64(p.Train.N)
	pre := int(math.Round(cfg.PretrainEpoch * float64(p.Train.N) / math.Max(1, math.Round(m))))
	opt := mechanisms.Momentum{LR: cfg.LR, Beta: cfg.Momentum}
	pub := p.Padded
	switch cfg.Surrogate {
	case "", FDPSurrogateGaussian:
	case FDPSurrogateMean:
		pub = p.Masked
	default:
		return nil, nil, fmt.Errorf("experiments: FDPClassRun: unknown surrogate %q", cfg.Surrogate)
	}
	s := mechanisms.FDPSetup{Model: mlp, Data: p.Train, PubData: pub, Rate: cfg.Rate, Multiplier: cfg.Multiplier,
		Clip: cfg.Clip, DPClip: cfg.DPClip, Steps: maxT, Alpha: cfg.Alpha, Optimizer: opt, Seed: seed}
	offset := 0 // global step number of private step 0
	switch method {
	case mechanisms.FDPDPSGD, mechanisms.FDPAlg1, mechanisms.FDPSingleBatch:
		s.PretrainSteps, offset = pre, pre
	case mechanisms.FDPPublicOnly:
		s.NonPrivateSteps = pre + maxT
		offset = pre
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
	res, err := mechanisms.FDPTrain(ctx, method, s)
	if err != nil {
		return nil, nil, err
	}
	if len(res.Phases) > 0 && (len(res.Phases) != 1 || res.Phases[0].Steps != maxT) {
		return nil, nil, fmt.Errorf("experiments: FDPClassRun %s: unexpected privacy phases %v", method, res.Phases)
	}
	acc, spent = make([]float64, len(epss)), make([]float64, len(epss))
	for i, t := range steps {
		theta := snaps[offset+t]
		if theta == nil {
			return nil, nil, fmt.Errorf("experiments: FDPClassRun %s: no parameters recorded at step %d", method, offset+t)
		}
		// Account the first t private steps: the run's phase with T = t.
		st, rt := s, *res
		st.Steps = t
		if len(res.Phases) == 1 {
			ph := res.Phases[0]
			ph.Steps = t
			rt.Phases = []accounting.Phase{ph}
		}
		if spent[i], err = mechanisms.FDPEpsilon(method, st, &rt, cfg.Delta); err != nil {
			return nil, nil, err
		}
		acc[i] = mlp.Evaluate(theta, p.Test).Accuracy
	}
	return acc, spent, nil
}

// fdpCacheEntry memoises one expensive, deterministic value (a generated
// dataset) shared by the cells of a run.
type fdpCacheEntry struct {
	once sync.Once
	val  any
	err  error
}

var fdpCache sync.Map

// fdpCached returns the value for key, computing it once.
func fdpCached(key string, f func() (any, error)) (any, error) {
	e, _ := fdpCache.LoadOrStore(key, &fdpCacheEntry{})
	ent := e.(*fdpCacheEntry)
	ent.once.Do(func() { ent.val, ent.err = f() })
	return ent.val, ent.err
}

// FDPPurchaseProblem returns the Purchase-like E3 problem with n rows (80/20
// split), k classes (0: the paper's 100), public columns 0..99 and the
// label; data and padding from fixed seeds, so every call with the same
// (n, k) returns the same (cached) problem.
func FDPPurchaseProblem(n, k int) (*FDPClassProblem, error) {
	if k == 0 {
		k = 100
	}
	v, err := fdpCached(fmt.Sprintf("purchase/%d/%d", n, k), func() (any, error) {
		rng := mechanisms.NewStreams(20250101).Rand("fdp-purchase-like")
		d, err := data.FDPPurchaseLike(data.FDPPurchaseOptions{N: n, K: k}, rng)
		if err != nil {
			return nil, err
		}
		train, test, err := data.FDPSplit(d, n/5, rng)
		if err != nil {
			return nil, err
		}
		// The paper describes Purchase100's features as real valued; the N(0, 1)
		// padding only matches standardised features. Standardise with the
		// generator's global Bernoulli mean 1/9 (Beta(0.5, 4)), a public constant.
		fdpStandardize(train, 1.0/9, math.Sqrt(1.0/9*8.0/9))
		fdpStandardize(test, 1.0/9, math.Sqrt(1.0/9*8.0/9))
		public := make([]int, 100)
		for j := range public {
			public[j] = j
		}
		return NewFDPClassProblem("purchase-like", train, test, public, k, 1)
	})
	if err != nil {
		return nil, err
	}
	return v.(*FDPClassProblem), nil
}

// fdpFashionDir returns the directory holding Fashion-MNIST: dataDir/
// fashion-mnist if it exists, else data.FashionMNISTDir.
func fdpFashionDir(dataDir string) string {
	if dataDir != "" {
		d := filepath.Join(dataDir, "fashion-mnist")
		if _, err := os.Stat(filepath.Join(d, "t10k-labels-idx1-ubyte.gz")); err == nil {
			return d
		}
	}
	return data.FashionMNISTDir
}

// fdpFashionAvailable reports whether the Fashion-MNIST files are present.
func fdpFashionAvailable(dataDir string) bool {
	_, err := os.Stat(filepath.Join(fdpFashionDir(dataDir), "t10k-labels-idx1-ubyte.gz"))
	return err == nil
}

// FDPFashionProblem returns the Fashion-MNIST tabular E3 problem: the first
// nTrain / nTest images (0 = all), pixels in [0, 1], a fixed random 1/6 of
// the pixels (131) and the label public.
func FDPFashionProblem(dataDir string, nTrain, nTest int) (*FDPClassProblem, error) {
	v, err := fdpCached(fmt.Sprintf("fashion/%d/%d", nTrain, nTest), func() (any, error) {
		fm, err := data.LoadFashionMNIST(fdpFashionDir(dataDir))
		if err != nil {
			return nil, err
		}
		train, test, public, err := data.FDPFashionTabular(fm, nTrain, nTest, 1.0/6, rand.New(rand.NewPCG(6, 6)))
		if err != nil {
			return nil, err
		}
		// Standardise with the published Fashion-MNIST pixel mean and sd
		// (0.2860, 0.3530; public constants) so that the N(0, 1) padding has
		// the scale of the data.
		fdpStandardize(train, 0.2860, 0.3530)
		fdpStandardize(test, 0.2860, 0.3530)
		return NewFDPClassProblem("fashion-mnist", train, test, public, 10, 2)
	})
	if err != nil {
		return nil, err
	}
	return v.(*FDPClassProblem), nil
}

// FDPTunePoint is one grid point of the E3 validation search: a method
// (FDP-Alg1 over surrogate × α, DP over the DP clip), its config and its
// validation accuracy at every ε of the search.
type FDPTunePoint struct {
	Method   mechanisms.FDPMethod
	Config   FDPClassConfig
	Accuracy []float64 // per ε, in the order of the search's epss
}

// FDPTuneGrid runs the E3 validation search (fdp.md §4.3 E3: α ∈ {1, 3, 10,
// 30, 100}, DP clip ∈ {0.01, 0.1, 1} in the spec; the grids are arguments):
// the training rows are split 80/20 into a tuning-training and a validation
// part (the test rows are never used), and every grid point — FDP-Alg1 for
// each public surrogate (Gaussian padding, mean imputation) × α, DP for each
// DP clip — is one run (FDPClassRunEps, seed 777) evaluated on the
// validation rows at every ε of epss. The runs are spread over GOMAXPROCS
// goroutines (Parallel); the points come back in grid order whatever their number.
// The result is cached per (problem, grids, epss, base) and shared: do not
// modify it.
func FDPTuneGrid(ctx context.Context, p *FDPClassProblem, base FDPClassConfig, alphas, clips, epss []float64) ([]FDPTunePoint, error) {
	if p == nil {
		return nil, errors.New("experiments: FDPTuneGrid: nil problem")
	}
	if len(alphas) == 0 || len(clips) == 0 || len(epss) == 0 {
		return nil, errors.New("experiments: FDPTuneGrid: empty α, clip or ε grid")
	}
	key := fmt.Sprintf("tune/%s/%d/%d/%v/%v/%v/%+v", p.Name, p.Train.N, p.Classes, alphas, clips, epss, base)
	v, err := fdpCached(key, func() (any, error) {
		rng := rand.New(rand.NewPCG(99, uint64(p.Train.N)))
		tr, val, err := data.FDPSplit(p.Train, p.Train.N/5, rng)
		if err != nil {
			return nil, err
		}
		tp, err := NewFDPClassProblem(p.Name+"/tune", tr, val, p.Public, p.Classes, 3)
		if err != nil {
			return nil, err
		}
		var pts []FDPTunePoint
		for _, sur := range []string{FDPSurrogateGaussian, FDPSurrogateMean} {
			for _, a := range alphas {
				c := base
				c.Alpha, c.Surrogate = a, sur
				pts = append(pts, FDPTunePoint{Method: mechanisms.FDPAlg1, Config: c})
			}
		}
		for _, cl := range clips {
			c := base
			c.DPClip = cl
			pts = append(pts, FDPTunePoint{Method: mechanisms.FDPDP, Config: c})
		}
		err = Parallel(ctx, len(pts), 0, func(ctx context.Context, i int) error {
			var err error
			if pts[i].Accuracy, _, err = FDPClassRunEps(ctx, tp, pts[i].Method, epss, pts[i].Config, 777); err != nil {
				return fmt.Errorf("experiments: FDPTuneGrid %s %s %+v: %w", p.Name, pts[i].Method, pts[i].Config, err)
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
	return v.([]FDPTunePoint), nil
}

// FDPTuneClassConfig returns, for every ε of epss, base with the choice of
// FDPTuneGrid at that ε: the public surrogate and α of the FDP-Alg1 point
// and the DP clip of the DP point with the best validation accuracy (the
// first in grid order on ties). DP and FDP-DPSGD use the DP clip, FDP-Alg1
// the surrogate and α (FDP-DPSGD pre-trains on the chosen surrogate).
func FDPTuneClassConfig(ctx context.Context, p *FDPClassProblem, base FDPClassConfig, alphas, clips, epss []float64) ([]FDPClassConfig, error) {
	pts, err := FDPTuneGrid(ctx, p, base, alphas, clips, epss)
	if err != nil {
		return nil, err
	}
	out := make([]FDPClassConfig, len(epss))
	for i := range epss {
		cfg := base
		bestAlg1, bestDP := -1.0, -1.0
		for _, pt := range pts {
			switch {
			case pt.Method == mechanisms.FDPAlg1 && pt.Accuracy[i] > bestAlg1:
				bestAlg1, cfg.Alpha, cfg.Surrogate = pt.Accuracy[i], pt.Config.Alpha, pt.Config.Surrogate
			case pt.Method == mechanisms.FDPDP && pt.Accuracy[i] > bestDP:
				bestDP, cfg.DPClip = pt.Accuracy[i], pt.Config.DPClip
			}
		}
		out[i] = cfg
	}
	return out, nil
}

// fdpStandardize maps every feature value x to (x − mean)/sd in place.
func fdpStandardize(d *design.Data, mean, sd float64) {
	for i, v := range d.X {
		d.X[i] = (v - mean) / sd
	}
}
