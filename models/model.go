// Package models holds differentiable models with exact per-example
// gradients: linear / ridge regression, logistic regression, softmax
// regression and a one-hidden-layer MLP. It contains no privacy logic:
// clipping and noise live in package mechanisms.
//
// All models share one data layout (Data: a row-major feature matrix and a
// label vector) and one parameter layout convention: a flat []float64 whose
// layout each model documents, so that noise plans can address individual
// parameters (for example "the first-layer weights of input feature i").
package models

import (
	"errors"
	"fmt"
	"math"
)

// Data is a dense dataset: N rows of D features stored row-major in X
// (X[i*D+j] is feature j of row i), and one label per row in Y.
//
// Label conventions: regression models read Y as real targets; logistic
// regression reads Y ∈ {0, 1}; softmax and classification MLPs read Y as a
// class index 0..K-1 stored as a float64.
type Data struct {
	X    []float64
	Y    []float64
	N, D int
}

// NewData validates and wraps a row-major matrix and a label vector.
// It returns an error for empty data, mismatched lengths, or NaN/Inf values.
func NewData(x []float64, y []float64, n, d int) (*Data, error) {
	if n <= 0 || d <= 0 {
		return nil, fmt.Errorf("models: empty data (n=%d, d=%d)", n, d)
	}
	if len(x) != n*d {
		return nil, fmt.Errorf("models: feature matrix has %d values, want n*d = %d*%d = %d", len(x), n, d, n*d)
	}
	if len(y) != n {
		return nil, fmt.Errorf("models: %d labels for %d rows", len(y), n)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("models: feature matrix has non-finite value %v at row %d, column %d", v, i/d, i%d)
		}
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("models: label %d is non-finite (%v)", i, v)
		}
	}
	return &Data{X: x, Y: y, N: n, D: d}, nil
}

// Row returns row i of the feature matrix (a slice into X, not a copy).
func (d *Data) Row(i int) []float64 { return d.X[i*d.D : (i+1)*d.D] }

// ErrShape reports parameters or buffers of the wrong length.
var ErrShape = errors.New("models: wrong length")

// Model is a differentiable loss ℓ(θ; x, y) over a flat parameter vector θ.
//
// Implementations must be safe for concurrent use by several goroutines on
// distinct parameter and output buffers (they hold no mutable state).
type Model interface {
	// NumParams is the length of θ.
	NumParams() int
	// NumFeatures is the number of input features D the model expects.
	NumFeatures() int
	// Loss returns the mean loss over the rows idx (all rows if idx is nil).
	Loss(theta []float64, data *Data, idx []int) float64
	// GradSum adds Σ_{i∈idx} ∇θ ℓ(θ; x_i, y_i) into out (len NumParams).
	// idx nil means all rows.
	GradSum(theta []float64, data *Data, idx []int, out []float64)
	// PerExampleGrads writes ∇θ ℓ(θ; x_i, y_i) for i = idx[k] into
	// out[k*P:(k+1)*P], P = NumParams(). len(out) must be len(idx)*P.
	PerExampleGrads(theta []float64, data *Data, idx []int, out []float64)
	// FeatureParams returns the indices in θ of the parameters that
	// multiply input feature j directly (for linear models the single
	// weight of j; for an MLP the first-layer weights leaving input j).
	FeatureParams(j int) []int
}

// Metrics are evaluation results on a dataset. Fields that do not apply to a
// model are NaN (Accuracy for regression, MSE for classification).
type Metrics struct {
	Loss     float64
	Accuracy float64
	MSE      float64
}

// Evaluator is implemented by every model in this package.
type Evaluator interface {
	// Evaluate computes metrics over all rows of data.
	Evaluate(theta []float64, data *Data) Metrics
}
