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
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
)

// FDPClassProblem is a feature-DP classification problem: training and test
// rows, the public columns (Ψ keeps them and the label), and the padded
// public view g(Ψ(X)) of the training rows (fdp.md §3.2).
type FDPClassProblem struct {
	Name        string
	Train, Test *models.Data
	Public      []int
	Padded      *models.Data
	Classes     int
}

// NewFDPClassProblem pads the training rows (Gaussian padding of the
// private columns, fdp.md §3.2) with a stream derived from seed.
func NewFDPClassProblem(name string, train, test *models.Data, public []int, classes int, seed uint64) (*FDPClassProblem, error) {
	if train == nil || test == nil || train.D != test.D {
		return nil, errors.New("experiments: FDPClassProblem: missing or mismatched train/test data")
	}
	pad, err := models.FDPGaussianPadding(train, public, mechanisms.NewStreams(seed).Rand("fdp-padding"))
	if err != nil {
		return nil, fmt.Errorf("experiments: FDPClassProblem %s: %w", name, err)
	}
	return &FDPClassProblem{Name: name, Train: train, Test: test, Public: public, Padded: pad, Classes: classes}, nil
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
// and the spent ε (+Inf for NonPrivate, 0 for Public).
func FDPClassRun(ctx context.Context, p *FDPClassProblem, method mechanisms.FDPMethod, eps float64, cfg FDPClassConfig, seed uint64) (acc, spent float64, err error) {
	if p == nil {
		return 0, 0, errors.New("experiments: FDPClassRun: nil problem")
	}
	steps, err := accounting.FDPMaxSteps(eps, cfg.Rate, cfg.Multiplier, cfg.Delta)
	if err != nil {
		return 0, 0, err
	}
	if steps == 0 {
		return 0, 0, fmt.Errorf("experiments: FDPClassRun: ε = %v allows no step at q = %v, z = %v", eps, cfg.Rate, cfg.Multiplier)
	}
	mlp, err := models.NewMLP(p.Train.D, cfg.Hidden, p.Classes, models.Tanh, models.HeadSoftmaxCE)
	if err != nil {
		return 0, 0, err
	}
	m := cfg.Rate * float64(p.Train.N)
	pre := int(math.Round(cfg.PretrainEpoch * float64(p.Train.N) / math.Max(1, math.Round(m))))
	opt := mechanisms.Momentum{LR: cfg.LR, Beta: cfg.Momentum}
	s := mechanisms.FDPSetup{Model: mlp, Data: p.Train, PubData: p.Padded, Rate: cfg.Rate, Multiplier: cfg.Multiplier,
		Clip: cfg.Clip, DPClip: cfg.DPClip, Steps: steps, Alpha: cfg.Alpha, Optimizer: opt, Seed: seed}
	switch method {
	case mechanisms.FDPDPSGD, mechanisms.FDPAlg1, mechanisms.FDPSingleBatch:
		s.PretrainSteps = pre
	case mechanisms.FDPPublicOnly:
		s.NonPrivateSteps = pre + steps
	}
	res, err := mechanisms.FDPTrain(ctx, method, s)
	if err != nil {
		return 0, 0, err
	}
	spent, err = mechanisms.FDPEpsilon(method, s, res, cfg.Delta)
	if err != nil {
		return 0, 0, err
	}
	return mlp.Evaluate(res.Theta, p.Test).Accuracy, spent, nil
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
// split), public columns 0..99 and the label; data and padding from fixed
// seeds, so every call with the same n returns the same (cached) problem.
func FDPPurchaseProblem(n int) (*FDPClassProblem, error) {
	v, err := fdpCached(fmt.Sprintf("purchase/%d", n), func() (any, error) {
		rng := mechanisms.NewStreams(20250101).Rand("fdp-purchase-like")
		d, err := data.FDPPurchaseLike(data.FDPPurchaseOptions{N: n}, rng)
		if err != nil {
			return nil, err
		}
		train, test, err := data.FDPSplit(d, n/5, rng)
		if err != nil {
			return nil, err
		}
		public := make([]int, 100)
		for j := range public {
			public[j] = j
		}
		return NewFDPClassProblem("purchase-like", train, test, public, 100, 1)
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
		return NewFDPClassProblem("fashion-mnist", train, test, public, 10, 2)
	})
	if err != nil {
		return nil, err
	}
	return v.(*FDPClassProblem), nil
}
