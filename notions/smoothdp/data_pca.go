package smoothdp

// PCA.

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// PCA is PCA pre-processing with target rank s (Proposition 5): the
// covariance Σ_S = (1/n)Σ(x_i − μ)(x_i − μ)ᵀ, V_s its top-s eigenvectors
// (gonum EigenSym, sorted descending); rank reduction π_S(x) = V_sV_sᵀx ∈ R^d,
// dimension reduction (Dim) π_S(x) = V_sᵀx ∈ R^s. The data are not
// re-centred in π. k = n [V]; η_rank = 12R³/g_min when
// n > 24R²/g_min (Zwald–Blanchard), else the unconditional 12√2·R³/g_min;
// η_dim = 12√2·R³/g_min for Procrustes-aligned bases [R].
type PCA struct {
	// Rank is s ≥ 1 (< d).
	Rank int
	// Dim selects dimension reduction instead of rank reduction.
	Dim bool
	// R is the radius of the instance ball.
	R float64
}

// Name describes the pre-processing.
func (p PCA) Name() string {
	if p.Dim {
		return fmt.Sprintf("PCA dimension reduction s=%d", p.Rank)
	}
	return fmt.Sprintf("PCA rank reduction s=%d", p.Rank)
}

// PCAFit is a fitted PCA: the top-s eigenvectors V (d×s) and the
// eigenvalues (descending).
type PCAFit struct {
	V      *mat.Dense
	Values []float64
	Dim    bool
}

// errNilPCAFit is the error (Apply: the panic value) of a nil *PCAFit.
var errNilPCAFit = errors.New("nil *PCAFit (or nil V): use the fit returned by AnalyzeGauss, AnalyzeGaussRelease or PCA.FitPCA and check its error")

// Apply returns V Vᵀx (rank) or Vᵀx (dimension), and true (the
// projection keeps every record). Like gonum/mat, it panics with
// mat.ErrShape unless len(x) is the number of rows of V (the d of the fit),
// and with a message naming the fix on a nil *PCAFit or a nil V.
func (f *PCAFit) Apply(x []float64) ([]float64, bool) {
	if f == nil || f.V == nil {
		panic(fmt.Errorf("smoothdp: PCAFit.Apply: %w", errNilPCAFit))
	}
	xv := mat.NewVecDense(len(x), append([]float64(nil), x...))
	var z mat.VecDense
	z.MulVec(f.V.T(), xv)
	if f.Dim {
		return append([]float64(nil), z.RawVector().Data...), true
	}
	var y mat.VecDense
	y.MulVec(f.V, &z)
	return append([]float64(nil), y.RawVector().Data...), true
}

// AlignedTo returns a copy of f whose basis is rotated by the orthogonal
// Procrustes solution Q = argmin ‖V Q − ref.V‖_F (Q = UWᵀ from the SVD
// Vᵀ ref.V = UΣWᵀ), removing the sign / rotation ambiguity of V_s before
// comparing dimension-reduction outputs. A nil fit (f or ref, or its V)
// is an error.
func (f *PCAFit) AlignedTo(ref *PCAFit) (*PCAFit, error) {
	if f == nil || f.V == nil || ref == nil || ref.V == nil {
		return nil, fmt.Errorf("smoothdp: AlignedTo: %w", errNilPCAFit)
	}
	var m mat.Dense
	m.Mul(f.V.T(), ref.V)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDThin) {
		return nil, errors.New("smoothdp: Procrustes SVD failed")
	}
	var u, w, q mat.Dense
	svd.UTo(&u)
	svd.VTo(&w)
	q.Mul(&u, w.T())
	var v mat.Dense
	v.Mul(f.V, &q)
	return &PCAFit{V: &v, Values: f.Values, Dim: f.Dim}, nil
}

// Covariance returns Σ_S = (1/n)Σ(x_i − μ)(x_i − μ)ᵀ and its
// eigenvalues and eigenvectors in descending order.
func Covariance(S [][]float64) (*mat.SymDense, []float64, *mat.Dense, error) {
	n, d, err := CheckDataset(S, 0, false)
	if err != nil {
		return nil, nil, nil, err
	}
	mu := make([]float64, d)
	for _, x := range S {
		for j, v := range x {
			mu[j] += v / float64(n)
		}
	}
	xc := mat.NewDense(n, d, nil)
	for i, x := range S {
		for j, v := range x {
			xc.Set(i, j, v-mu[j])
		}
	}
	cov := mat.NewSymDense(d, nil)
	cov.SymOuterK(1/float64(n), xc.T())
	var es mat.EigenSym
	if !es.Factorize(cov, true) {
		return nil, nil, nil, errors.New("smoothdp: eigen-decomposition of the covariance failed")
	}
	asc := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	vals := make([]float64, d)
	out := mat.NewDense(d, d, nil)
	for k := 0; k < d; k++ {
		vals[k] = asc[d-1-k]
		for j := 0; j < d; j++ {
			out.Set(j, k, vecs.At(j, d-1-k))
		}
	}
	return cov, vals, out, nil
}

// Eigengap returns λ_s − λ_{s+1} of S's covariance.
func Eigengap(S [][]float64, s int) (float64, error) {
	_, vals, _, err := Covariance(S)
	if err != nil {
		return 0, err
	}
	if s < 1 || s >= len(vals) {
		return 0, fmt.Errorf("smoothdp: rank s = %d must be in [1, d−1 = %d]", s, len(vals)-1)
	}
	return vals[s-1] - vals[s], nil
}

// Fit returns π_S (*PCAFit).
func (p PCA) Fit(S [][]float64) (Fitted, error) {
	return p.FitPCA(S)
}

// FitPCA is Fit with the concrete type.
func (p PCA) FitPCA(S [][]float64) (*PCAFit, error) {
	if _, _, err := CheckDataset(S, p.R, false); err != nil {
		return nil, err
	}
	_, vals, vecs, err := Covariance(S)
	if err != nil {
		return nil, err
	}
	d := len(vals)
	if p.Rank < 1 || p.Rank >= d {
		return nil, fmt.Errorf("smoothdp: PCA rank s = %d must be in [1, d−1 = %d]", p.Rank, d-1)
	}
	v := mat.DenseCopyOf(vecs.Slice(0, d, 0, p.Rank))
	return &PCAFit{V: v, Values: vals, Dim: p.Dim}, nil
}

// Describe returns the eigengap of S.
func (p PCA) Describe(S [][]float64) (Collection, error) {
	n, d, err := CheckDataset(S, p.R, false)
	if err != nil {
		return Collection{}, err
	}
	g, err := Eigengap(S, p.Rank)
	if err != nil {
		return Collection{}, err
	}
	return Collection{N: n, D: d, R: p.R, GMin: g, ZLo: math.Inf(1), ZHi: math.Inf(-1), LamMin: math.Inf(1)}, nil
}

// Theory returns k = n and η (see PCA).
func (p PCA) Theory(c Collection) (int, float64, error) {
	if !(c.GMin > 0) {
		return c.N, math.Inf(1), nil
	}
	if p.Dim || !(float64(c.N) > 24*p.R*p.R/c.GMin) {
		return c.N, EtaPCADim(p.R, c.GMin), nil
	}
	return c.N, EtaPCARank(p.R, c.GMin), nil
}
