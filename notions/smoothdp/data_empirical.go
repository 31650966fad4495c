package smoothdp

// Empirical sensitivity.

import (
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/internal/valid"
)

// Empirical is a measured lower bound on (k_π, η_π).
type Empirical struct {
	K   int     // max #{i : π_S(x_i) ≠ π_{S'}(x_i)} over the bases S and S'
	Eta float64 // max Σ_i ‖π_S(x_i) − π_{S'}(x_i)‖₂ (⊥ at distance 2R)
	// MaxPoint is max_i ‖π_S(x_i) − π_{S'}(x_i)‖₂: on the hybrid pair
	// (π_S(S), π_{S'}(S)) it checks the inverse point-wise distance ω of
	// Definition 7 (MaxPoint ≤ ω·η).
	MaxPoint float64
}

// EmpiricalSensitivity measures the pre-processing sensitivity of
// Definition 4 on one pair of neighbouring datasets: π_S and π_{S'} are
// fitted, then applied to every point of S and of S'; the larger
// count and sum are returned. ⊥ vs a point counts 2R, ⊥ vs ⊥ zero. With
// align (PCA dimension reduction only) π_{S'}'s basis is Procrustes-aligned
// to π_S's first. Differences below tol (absolute, per point) are ignored.
func EmpiricalSensitivity(p Preprocessor, S, S2 [][]float64, radius float64, align bool, tol float64) (Empirical, error) {
	if valid.IsNil(p) {
		return Empirical{}, errors.New("smoothdp: EmpiricalSensitivity: nil pre-processor")
	}
	if len(S) != len(S2) {
		return Empirical{}, fmt.Errorf("smoothdp: neighbours must have the same size (%d vs %d)", len(S), len(S2))
	}
	f1, err := p.Fit(S)
	if err != nil {
		return Empirical{}, fmt.Errorf("fit on S: %w", err)
	}
	f2, err := p.Fit(S2)
	if err != nil {
		return Empirical{}, fmt.Errorf("fit on S': %w", err)
	}
	if align {
		a, ok1 := f1.(*PCAFit)
		b, ok2 := f2.(*PCAFit)
		if !ok1 || !ok2 {
			return Empirical{}, errors.New("smoothdp: alignment applies to PCA only")
		}
		if f2, err = b.AlignedTo(a); err != nil {
			return Empirical{}, err
		}
	}
	var out Empirical
	for _, base := range [][][]float64{S, S2} {
		k, eta := 0, 0.0
		for _, x := range base {
			y1, ok1 := f1.Apply(x)
			y2, ok2 := f2.Apply(x)
			var d float64
			switch {
			case ok1 && ok2:
				d = dist(y1, y2)
			case ok1 != ok2:
				d = 2 * radius
			}
			if d > tol {
				k++
				eta += d
			}
			out.MaxPoint = math.Max(out.MaxPoint, d)
		}
		out.K = max(out.K, k)
		out.Eta = math.Max(out.Eta, eta)
	}
	return out, nil
}

// Replace returns a copy of S with row i replaced by x (a replace-one
// neighbour). It panics with an index error unless 0 ≤ i < len(S), a
// programmer error (the rows of S are shared with the copy, row i is not).
func Replace(S [][]float64, i int, x []float64) [][]float64 {
	out := make([][]float64, len(S))
	copy(out, S)
	out[i] = append([]float64(nil), x...)
	return out
}
