// Package design holds the dense design matrix shared by the data readers,
// the models and the training engine. It is a leaf: it imports nothing of
// featuredp, so that data (which builds design matrices) and models (which
// read them) do not depend on each other.
package design

import (
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

// Row returns row i of the feature matrix (a slice into X, not a copy). As
// slice indexing does, it panics for i outside [0, N) and on a nil *Data:
// it is called per row, so it checks nothing (use Check first).
func (d *Data) Row(i int) []float64 { return d.X[i*d.D : (i+1)*d.D] }

// Check returns an error naming what (e.g. "training data") if d is nil,
// empty, of inconsistent shape, or holds a NaN or infinite value. The
// messages start with "mechanisms:" (the engine is its main caller).
func (d *Data) Check(what string) error {
	if d == nil {
		return fmt.Errorf("mechanisms: %s is nil (a nil *Data: build it with design.NewData)", what)
	}
	if d.N <= 0 || d.D <= 0 {
		return fmt.Errorf("mechanisms: %s is empty (N=%d, D=%d)", what, d.N, d.D)
	}
	if len(d.X) != d.N*d.D || len(d.Y) != d.N {
		return fmt.Errorf("mechanisms: %s has %d feature values and %d labels, want N·D = %d and N = %d", what, len(d.X), len(d.Y), d.N*d.D, d.N)
	}
	for i, v := range d.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("mechanisms: %s: feature value %v at row %d, column %d", what, v, i/d.D, i%d.D)
		}
	}
	for i, v := range d.Y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("mechanisms: %s: label %v at row %d", what, v, i)
		}
	}
	return nil
}
