package smoothdp

// Non-private pre-processing with sensitivities:
// r-approximate deduplication and quantization, mean / median / trimmed-mean /
// linear-regression imputation (NaN-aware) and PCA (dimension and rank
// reduction). Each pre-processing π is fitted on a dataset S (giving π_S) and
// applied point-wise; it reports its theoretical sensitivity (k_π, η_π) of
// Definition 4 (replace-one neighbours, conditional on a collection described
// by Collection) and can measure an empirical lower bound on a pair of
// neighbouring datasets (EmpiricalSensitivity). The closed forms of η
// live in package accounting (Eta…), each with its confidence label.
//
// A dataset is a slice of rows (n points in R^d, ‖x‖₂ ≤ R); NaN marks a
// missing value (imputation only).

import (
	"errors"
	"fmt"
	"math"
)

// Collection describes the dataset collection 𝒮 over which a
// theoretical sensitivity holds: the quantities are maxima or
// minima over every dataset of the collection. Use Describe on each dataset
// and Merge the results (sensitivities are monotone in 𝒮, Definition 4).
//
// The guarantee is conditional: it holds for neighbouring datasets that
// both lie in 𝒮. A Collection described from the private dataset alone is
// a statistic of that data (its eigengap, missing count, order statistics),
// which no ε accounts for and which says nothing about the neighbours;
// state 𝒮 from public knowledge (e.g. a public bound on the number of
// missing values or on the eigengap), or use PTR (Algorithm 1), whose
// guarantee is unconditional.
type Collection struct {
	N          int     // dataset size n (fixed)
	D          int     // dimension d
	R          float64 // radius of the instance ball
	MaxCluster int     // largest good cluster (dedup / quantization)
	Missing    int     // m: maximum number of points with a missing value
	// ZLo and ZHi are the extreme order statistics of the median and
	// trimmed-mean rows of Table 3 [D].
	ZLo, ZHi float64
	// LamMin and LamMax are the extreme eigenvalues of XᵀX over predictor
	// submatrices (linear-regression imputation) [D].
	LamMin, LamMax float64
	// GMin is the minimum eigengap λ_s − λ_{s+1} (PCA).
	GMin float64
}

// Merge returns the collection covering both c and o (maxima of the maxima,
// minima of the minima). Zero-valued fields of an empty collection are
// neutral.
func (c Collection) Merge(o Collection) Collection {
	if c.N == 0 {
		return o
	}
	out := c
	out.N = max(c.N, o.N)
	out.D = max(c.D, o.D)
	out.R = math.Max(c.R, o.R)
	out.MaxCluster = max(c.MaxCluster, o.MaxCluster)
	out.Missing = max(c.Missing, o.Missing)
	out.ZLo = math.Min(c.ZLo, o.ZLo)
	out.ZHi = math.Max(c.ZHi, o.ZHi)
	out.LamMin = math.Min(c.LamMin, o.LamMin)
	out.LamMax = math.Max(c.LamMax, o.LamMax)
	out.GMin = math.Min(c.GMin, o.GMin)
	return out
}

// Fitted is a fitted pre-processing function π_S : X → X (or R^s).
type Fitted interface {
	// Apply returns π_S(x) (a new slice); ok = false means x is removed
	// (deduplication's ⊥).
	Apply(x []float64) (y []float64, ok bool)
}

// Preprocessor is a deterministic pre-processing algorithm π
// (Definition 4: fitted on S, applied point-wise).
type Preprocessor interface {
	// Name describes the pre-processing.
	Name() string
	// Fit returns π_S.
	Fit(S [][]float64) (Fitted, error)
	// Describe returns the collection quantities of one dataset (not
	// private: see Collection).
	Describe(S [][]float64) (Collection, error)
	// Theory returns the theoretical (k_π, η_π) over collection c
	// (replace-one, Definition 4), with the confidence label of the bound.
	Theory(c Collection) (k int, eta float64, err error)
}

// CheckDataset validates a dataset: n ≥ 2 rows of equal length d ≥ 1,
// no ±Inf, NaN only if allowNaN, and every row (ignoring NaN) in the ball of
// radius R (if R > 0; a relative slack of 1e-9 is allowed).
func CheckDataset(S [][]float64, radius float64, allowNaN bool) (n, d int, err error) {
	n = len(S)
	if n < 2 {
		return 0, 0, fmt.Errorf("smoothdp: need at least 2 rows, got %d", n)
	}
	d = len(S[0])
	if d < 1 {
		return 0, 0, errors.New("smoothdp: rows have no columns")
	}
	for i, x := range S {
		if len(x) != d {
			return 0, 0, fmt.Errorf("smoothdp: row %d has %d columns, row 0 has %d", i, len(x), d)
		}
		s := 0.0
		for j, v := range x {
			if math.IsNaN(v) {
				if !allowNaN {
					return 0, 0, fmt.Errorf("smoothdp: row %d column %d is NaN (only imputation accepts missing values)", i, j)
				}
				continue
			}
			if math.IsInf(v, 0) {
				return 0, 0, fmt.Errorf("smoothdp: row %d column %d is infinite", i, j)
			}
			s += v * v
		}
		if radius > 0 && math.Sqrt(s) > radius*(1+1e-9) {
			return 0, 0, fmt.Errorf("smoothdp: row %d has norm %g > R = %g", i, math.Sqrt(s), radius)
		}
	}
	return n, d, nil
}

func dist(a, b []float64) float64 {
	s := 0.0
	for j := range a {
		d := a[j] - b[j]
		s += d * d
	}
	return math.Sqrt(s)
}
