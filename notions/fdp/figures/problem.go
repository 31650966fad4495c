package figures

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/notions/fdp"
)

// ClassProblem is a feature-DP classification problem: training and test
// rows (features standardised with public constants), the public columns (Ψ
// keeps them and the label), and two public views of the training rows:
// Padded = g(Ψ(X)), the private columns filled with N(0, 1) draws (the
// paper's Gaussian padding), and Masked, the private columns
// set to 0 = their public mean after standardisation (mean imputation, the
// zero masking the paper uses for Criteo, Sec. 6.2).
type ClassProblem struct {
	Name           string
	Train, Test    *design.Data
	Public         []int
	Padded, Masked *design.Data
	Classes        int
}

// Public surrogates of ClassConfig.Surrogate.
const (
	// SurrogateGaussian is the paper's Gaussian padding (default).
	SurrogateGaussian = "gaussian"
	// SurrogateMean sets the private columns to their public mean (ours).
	SurrogateMean = "mean"
)

// NewClassProblem pads the training rows (Gaussian padding of the
// private columns) with a stream derived from seed.
func NewClassProblem(name string, train, test *design.Data, public []int, classes int, seed uint64) (*ClassProblem, error) {
	if train == nil || test == nil || train.D != test.D {
		return nil, errors.New("fdp: ClassProblem: missing or mismatched train/test data")
	}
	pad, err := fdp.GaussianPadding(train, public, mechanisms.NewStreams(seed).Rand("fdp-padding"))
	if err != nil {
		return nil, fmt.Errorf("fdp: ClassProblem %s: %w", name, err)
	}
	masked, err := fdp.ZeroMasking(train, public)
	if err != nil {
		return nil, fmt.Errorf("fdp: ClassProblem %s: %w", name, err)
	}
	return &ClassProblem{Name: name, Train: train, Test: test, Public: public, Padded: pad, Masked: masked, Classes: classes}, nil
}

// PurchaseProblem returns the Purchase-like E3 problem with n rows (80/20
// split), k classes (0: the paper's 100), public columns 0..99 and the
// label; data and padding from fixed seeds, so every call with the same
// (n, k) returns the same problem (shared through memo; nil memo: built
// afresh).
func PurchaseProblem(memo *experiments.Memo, n, k int) (*ClassProblem, error) {
	if k == 0 {
		k = 100
	}
	v, err := memo.Do(fmt.Sprintf("fdp/purchase/%d/%d", n, k), func() (any, error) {
		rng := mechanisms.NewStreams(20250101).Rand("fdp-purchase-like")
		d, err := PurchaseLike(PurchaseOptions{N: n, K: k}, rng)
		if err != nil {
			return nil, err
		}
		train, test, err := Split(d, n/5, rng)
		if err != nil {
			return nil, err
		}
		// The paper describes Purchase100's features as real valued; the N(0, 1)
		// padding only matches standardised features. Standardise with the
		// generator's global Bernoulli mean 1/9 (Beta(0.5, 4)), a public constant.
		standardize(train, 1.0/9, math.Sqrt(1.0/9*8.0/9))
		standardize(test, 1.0/9, math.Sqrt(1.0/9*8.0/9))
		public := make([]int, 100)
		for j := range public {
			public[j] = j
		}
		return NewClassProblem("purchase-like", train, test, public, k, 1)
	})
	if err != nil {
		return nil, err
	}
	return v.(*ClassProblem), nil
}

// fashionOptions are the data options that find Fashion-MNIST: dataDir
// (or its fashion-mnist sub-directory), $FEATUREDP_DATA, the cache or the
// Debian package's directory (data.OpenFashionMNIST), without downloading.
func fashionOptions(dataDir string) data.Options {
	return data.Options{Dir: dataDir, Offline: true}
}

// fashionAvailable reports whether the four Fashion-MNIST files are
// present (not yet verified: loading verifies them).
func fashionAvailable(dataDir string) bool {
	for _, name := range data.FashionMNISTFiles {
		if _, ok := data.Locate(name, fashionOptions(dataDir)); !ok {
			return false
		}
	}
	return true
}

// FashionProblem returns the Fashion-MNIST tabular E3 problem: the first
// nTrain / nTest images (0 = all), pixels in [0, 1], a fixed random 1/6 of
// the pixels (131) and the label public (shared through memo; nil memo:
// built afresh).
func FashionProblem(memo *experiments.Memo, dataDir string, nTrain, nTest int) (*ClassProblem, error) {
	v, err := memo.Do(fmt.Sprintf("fdp/fashion/%s/%d/%d", dataDir, nTrain, nTest), func() (any, error) {
		fm, err := data.OpenFashionMNIST(fashionOptions(dataDir))
		if err != nil {
			return nil, err
		}
		train, test, public, err := FashionTabular(fm, nTrain, nTest, 1.0/6, rand.New(rand.NewPCG(6, 6)))
		if err != nil {
			return nil, err
		}
		// Standardise with the published Fashion-MNIST pixel mean and sd
		// (0.2860, 0.3530; public constants) so that the N(0, 1) padding has
		// the scale of the data.
		standardize(train, 0.2860, 0.3530)
		standardize(test, 0.2860, 0.3530)
		return NewClassProblem("fashion-mnist", train, test, public, 10, 2)
	})
	if err != nil {
		return nil, err
	}
	return v.(*ClassProblem), nil
}

// standardize maps every feature value x to (x − mean)/sd in place.
func standardize(d *design.Data, mean, sd float64) {
	for i, v := range d.X {
		d.X[i] = (v - mean) / sd
	}
}
