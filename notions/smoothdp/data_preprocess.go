package smoothdp

// Non-private pre-processing with sensitivities (specs/smoothdp.md §5, §7.3):
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
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Collection describes the dataset collection 𝒮 over which a
// theoretical sensitivity holds (spec §5): the quantities are maxima or
// minima over every dataset of the collection. Use Describe on each dataset
// and Merge the results (sensitivities are monotone in 𝒮, spec D5).
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

// Preprocessor is a deterministic pre-processing algorithm π (spec D4).
type Preprocessor interface {
	// Name describes the pre-processing.
	Name() string
	// Fit returns π_S.
	Fit(S [][]float64) (Fitted, error)
	// Describe returns the collection quantities of one dataset.
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

// ---------------------------------------------------------------------------
// Deduplication and quantization (spec §5.1).

// Dedup is r-approximate deduplication (or quantization with Quantize)
// [V/R]: a good cluster is B(x, r) = {y ∈ S : ‖y − x‖ ≤ r} with B(x, r) =
// B(x, Outer·r) and at least 2 points; good clusters are taken in order of
// size (descending, ties by index), each claiming its members; π_S(x) = x if
// no representative c has ‖x − c‖ ≤ r or x equals the representative, else ⊥
// (removed; distance 2R to any point) or, for quantization, c. Ties and the
// first matching representative are decided by that order (spec §12 A5).
//
// Apply is value-based: every exact copy of a representative is kept (use
// Transform for the dataset-level rule keeping exactly one copy).
type Dedup struct {
	// Radius is r > 0.
	Radius float64
	// Outer is the outer factor of the good-cluster rule; 0 means 3 (spec
	// §12 A5(ii)).
	Outer float64
	// Quantize maps near-duplicates to the representative instead of
	// removing them.
	Quantize bool
	// R is the radius of the instance ball (η of dedup is 2Rk).
	R float64
	// DoubledQuantEta uses η = 2rk instead of rk (spec §12 A6).
	DoubledQuantEta bool
}

func (p Dedup) outer() float64 {
	if p.Outer == 0 {
		return 3
	}
	return p.Outer
}

// Name describes the pre-processing.
func (p Dedup) Name() string {
	if p.Quantize {
		return fmt.Sprintf("quantization r=%g", p.Radius)
	}
	return fmt.Sprintf("deduplication r=%g", p.Radius)
}

func (p Dedup) check() error {
	if !(p.Radius > 0) || math.IsInf(p.Radius, 0) {
		return fmt.Errorf("smoothdp: dedup radius r = %v must be finite and > 0", p.Radius)
	}
	if !(p.outer() >= 1) || math.IsInf(p.outer(), 0) {
		return fmt.Errorf("smoothdp: outer factor %v must be ≥ 1", p.Outer)
	}
	if !(p.R > 0) || math.IsInf(p.R, 0) {
		return fmt.Errorf("smoothdp: ball radius R = %v must be finite and > 0", p.R)
	}
	return nil
}

// GoodClusters returns the good clusters of S (member indices, each
// sorted; the centre first in Centres) in claiming order, with their
// centres. Clusters claimed by a larger one are dropped.
func (p Dedup) GoodClusters(S [][]float64) (clusters [][]int, centres []int, err error) {
	if err := p.check(); err != nil {
		return nil, nil, err
	}
	n, _, err := CheckDataset(S, p.R, false)
	if err != nil {
		return nil, nil, err
	}
	r, o := p.Radius, p.outer()*p.Radius
	type cand struct {
		i   int
		mem []int
	}
	var good []cand
	for i := 0; i < n; i++ {
		var in []int
		outer := 0
		for j := 0; j < n; j++ {
			d := dist(S[i], S[j])
			if d <= r {
				in = append(in, j)
			}
			if d <= o {
				outer++
			}
		}
		if len(in) >= 2 && len(in) == outer {
			good = append(good, cand{i, in})
		}
	}
	sort.SliceStable(good, func(a, b int) bool {
		if len(good[a].mem) != len(good[b].mem) {
			return len(good[a].mem) > len(good[b].mem)
		}
		return good[a].i < good[b].i
	})
	claimed := make([]bool, n)
	for _, g := range good {
		if claimed[g.i] {
			continue
		}
		for _, j := range g.mem {
			claimed[j] = true
		}
		clusters = append(clusters, g.mem)
		centres = append(centres, g.i)
	}
	return clusters, centres, nil
}

type dedupFit struct {
	reps     [][]float64
	r        float64
	quantize bool
}

func (f *dedupFit) Apply(x []float64) ([]float64, bool) {
	for _, c := range f.reps {
		if dist(x, c) <= f.r {
			if f.quantize {
				return append([]float64(nil), c...), true
			}
			same := true
			for j := range x {
				if x[j] != c[j] {
					same = false
					break
				}
			}
			if same {
				return append([]float64(nil), x...), true
			}
			return nil, false
		}
	}
	return append([]float64(nil), x...), true
}

// Fit returns π_S.
func (p Dedup) Fit(S [][]float64) (Fitted, error) {
	_, centres, err := p.GoodClusters(S)
	if err != nil {
		return nil, err
	}
	f := &dedupFit{r: p.Radius, quantize: p.Quantize}
	for _, c := range centres {
		f.reps = append(f.reps, append([]float64(nil), S[c]...))
	}
	return f, nil
}

// Transform applies π_S to S at the dataset level: for deduplication it keeps
// exactly one copy of each representative (the first) and marks the other
// removed rows; quantization replaces rows by their representative.
func (p Dedup) Transform(S [][]float64) (out [][]float64, removed []bool, err error) {
	clusters, centres, err := p.GoodClusters(S)
	if err != nil {
		return nil, nil, err
	}
	f := &dedupFit{r: p.Radius, quantize: p.Quantize}
	for _, c := range centres {
		f.reps = append(f.reps, S[c])
	}
	_ = clusters
	out = make([][]float64, len(S))
	removed = make([]bool, len(S))
	keptRep := map[int]bool{}
	for i, x := range S {
		y, ok := f.Apply(x)
		if ok && !p.Quantize {
			// x equals a representative value: keep the first copy only.
			for ri, c := range f.reps {
				if dist(x, c) <= p.Radius {
					if keptRep[ri] {
						ok = false
					}
					keptRep[ri] = true
					break
				}
			}
		}
		out[i], removed[i] = y, !ok
		if !ok {
			out[i] = nil
		}
	}
	return out, removed, nil
}

// Describe returns N, D, R and the largest good cluster of S.
func (p Dedup) Describe(S [][]float64) (Collection, error) {
	cl, _, err := p.GoodClusters(S)
	if err != nil {
		return Collection{}, err
	}
	mc := 0
	for _, c := range cl {
		mc = max(mc, len(c))
	}
	return Collection{N: len(S), D: len(S[0]), R: p.R, MaxCluster: mc, GMin: math.Inf(1), ZLo: math.Inf(1), ZHi: math.Inf(-1), LamMin: math.Inf(1)}, nil
}

// Theory returns k = 2·max cluster (Proposition 3) [V/R] and η = 2Rk
// (dedup) or rk (quantization) [R].
func (p Dedup) Theory(c Collection) (int, float64, error) {
	if err := p.check(); err != nil {
		return 0, 0, err
	}
	k := KDedup(c.MaxCluster, ReplaceOne)
	if p.Quantize {
		return k, EtaQuant(p.Radius, k, p.DoubledQuantEta), nil
	}
	return k, EtaDedup(p.R, k), nil
}

// ---------------------------------------------------------------------------
// Imputation (spec §5.2).

// ImputeMethod selects the imputation model.
type ImputeMethod int

const (
	// ImputeMean fills the per-feature mean of the observed values.
	ImputeMean ImputeMethod = iota
	// ImputeMedian fills the lower median of the observed values.
	ImputeMedian
	// ImputeTrimmed fills the t-trimmed mean.
	ImputeTrimmed
	// ImputeLR fills an OLS prediction (no intercept) from the other
	// features, fitted on the complete rows; missing predictors are
	// mean-imputed first (spec §12 A7).
	ImputeLR
)

// String names the method.
func (m ImputeMethod) String() string {
	switch m {
	case ImputeMean:
		return "mean"
	case ImputeMedian:
		return "median"
	case ImputeTrimmed:
		return "trimmed mean"
	case ImputeLR:
		return "linear regression"
	}
	return fmt.Sprintf("ImputeMethod(%d)", int(m))
}

// Impute is model-based imputation (Corollary 4, Proposition 15, Table
// 3): π_S fills every missing coordinate j of x with h_S^{(j)}(x); observed
// coordinates are never changed. k = m (points with at least one missing
// value) [V/R]; η: mean 2Rm/(n − m) [R], median, trimmed mean and linear
// regression as in Table 3 [D] (Eta…Impute).
type Impute struct {
	Method ImputeMethod
	// Trim is t ≥ 0 values dropped at each end (trimmed mean).
	Trim int
	// R is the radius of the instance ball.
	R float64
}

// Name describes the pre-processing.
func (p Impute) Name() string {
	if p.Method == ImputeTrimmed {
		return fmt.Sprintf("trimmed-mean imputation t=%d", p.Trim)
	}
	return p.Method.String() + " imputation"
}

type imputeFit struct {
	fill []float64   // per-feature fill (mean / median / trimmed mean)
	beta [][]float64 // LR: per target j, coefficients over all d features (β_j[j] = 0)
}

func (f *imputeFit) Apply(x []float64) ([]float64, bool) {
	y := append([]float64(nil), x...)
	if f.beta == nil {
		for j, v := range y {
			if math.IsNaN(v) {
				y[j] = f.fill[j]
			}
		}
		return y, true
	}
	z := append([]float64(nil), x...)
	for j, v := range z {
		if math.IsNaN(v) {
			z[j] = f.fill[j]
		}
	}
	for j, v := range x {
		if math.IsNaN(v) {
			s := 0.0
			for l, b := range f.beta[j] {
				if l != j {
					s += b * z[l]
				}
			}
			y[j] = s
		}
	}
	return y, true
}

func observed(S [][]float64, j int) []float64 {
	var v []float64
	for _, x := range S {
		if !math.IsNaN(x[j]) {
			v = append(v, x[j])
		}
	}
	return v
}

// Fit returns π_S. Every feature needs at least one observed value (and
// more than 2t for the trimmed mean).
func (p Impute) Fit(S [][]float64) (Fitted, error) {
	if !(p.R > 0) || math.IsInf(p.R, 0) {
		return nil, fmt.Errorf("smoothdp: ball radius R = %v must be finite and > 0", p.R)
	}
	if p.Trim < 0 {
		return nil, fmt.Errorf("smoothdp: trim t = %d must be ≥ 0", p.Trim)
	}
	_, d, err := CheckDataset(S, p.R, true)
	if err != nil {
		return nil, err
	}
	f := &imputeFit{fill: make([]float64, d)}
	for j := 0; j < d; j++ {
		v := observed(S, j)
		if len(v) == 0 {
			return nil, fmt.Errorf("smoothdp: feature %d has no observed value", j)
		}
		switch p.Method {
		case ImputeMean, ImputeLR:
			s := 0.0
			for _, x := range v {
				s += x
			}
			f.fill[j] = s / float64(len(v))
		case ImputeMedian:
			sort.Float64s(v)
			f.fill[j] = v[(len(v)+1)/2-1] // lower median, rank ⌈n_j/2⌉
		case ImputeTrimmed:
			if len(v) <= 2*p.Trim {
				return nil, fmt.Errorf("smoothdp: feature %d has %d observed values, ≤ 2t = %d", j, len(v), 2*p.Trim)
			}
			sort.Float64s(v)
			s := 0.0
			for _, x := range v[p.Trim : len(v)-p.Trim] {
				s += x
			}
			f.fill[j] = s / float64(len(v)-2*p.Trim)
		default:
			return nil, fmt.Errorf("smoothdp: unknown imputation method %d", int(p.Method))
		}
	}
	if p.Method == ImputeLR {
		var rows [][]float64
		for _, x := range S {
			ok := true
			for _, v := range x {
				if math.IsNaN(v) {
					ok = false
					break
				}
			}
			if ok {
				rows = append(rows, x)
			}
		}
		if len(rows) < d {
			return nil, fmt.Errorf("smoothdp: linear-regression imputation needs ≥ d = %d complete rows, got %d", d, len(rows))
		}
		f.beta = make([][]float64, d)
		for j := 0; j < d; j++ {
			A := mat.NewDense(len(rows), d-1, nil)
			b := mat.NewVecDense(len(rows), nil)
			for i, x := range rows {
				c := 0
				for l := 0; l < d; l++ {
					if l != j {
						A.Set(i, c, x[l])
						c++
					}
				}
				b.SetVec(i, x[j])
			}
			f.beta[j] = make([]float64, d)
			if d == 1 {
				continue
			}
			var sol mat.VecDense
			if err := sol.SolveVec(A, b); err != nil {
				return nil, fmt.Errorf("smoothdp: linear-regression imputation of feature %d: %w", j, err)
			}
			c := 0
			for l := 0; l < d; l++ {
				if l != j {
					f.beta[j][l] = sol.AtVec(c)
					c++
				}
			}
		}
	}
	return f, nil
}

// Describe returns m, the Table 3 order statistics and the XᵀX eigenvalues
// of S.
func (p Impute) Describe(S [][]float64) (Collection, error) {
	n, d, err := CheckDataset(S, p.R, true)
	if err != nil {
		return Collection{}, err
	}
	c := Collection{N: n, D: d, R: p.R, GMin: math.Inf(1), ZLo: math.Inf(1), ZHi: math.Inf(-1), LamMin: math.Inf(1)}
	var complete [][]float64
	for _, x := range S {
		miss := false
		for _, v := range x {
			if math.IsNaN(v) {
				miss = true
			}
		}
		if miss {
			c.Missing++
		} else {
			complete = append(complete, x)
		}
	}
	for j := 0; j < d; j++ {
		v := observed(S, j)
		sort.Float64s(v)
		nj := len(v)
		at := func(rank int) float64 { // 1-based, clamped
			return v[min(max(rank, 1), nj)-1]
		}
		if nj == 0 {
			continue
		}
		switch p.Method {
		case ImputeMedian:
			c.ZLo = math.Min(c.ZLo, at((nj+1)/2-1))
			c.ZHi = math.Max(c.ZHi, at((nj+1)/2+1))
		case ImputeTrimmed:
			c.ZLo = math.Min(c.ZLo, at(p.Trim))
			c.ZHi = math.Max(c.ZHi, at(nj-p.Trim+1))
		}
	}
	if p.Method == ImputeLR && len(complete) > 0 && d > 1 {
		// Extreme eigenvalues over the predictor submatrices (drop one
		// feature each); interlacing bounds them by the full XᵀX.
		X := mat.NewDense(len(complete), d, nil)
		for i, x := range complete {
			X.SetRow(i, x)
		}
		for j := 0; j < d; j++ {
			cols := make([]int, 0, d-1)
			for l := 0; l < d; l++ {
				if l != j {
					cols = append(cols, l)
				}
			}
			A := mat.NewSymDense(d-1, nil)
			for a, ca := range cols {
				for b, cb := range cols[:a+1] {
					s := 0.0
					for i := range complete {
						s += X.At(i, ca) * X.At(i, cb)
					}
					A.SetSym(a, b, s)
				}
			}
			var es mat.EigenSym
			if !es.Factorize(A, false) {
				return Collection{}, errors.New("smoothdp: eigen-decomposition of XᵀX failed")
			}
			vals := es.Values(nil)
			c.LamMin = math.Min(c.LamMin, vals[0])
			c.LamMax = math.Max(c.LamMax, vals[len(vals)-1])
		}
	}
	return c, nil
}

// Theory returns k = m and the Table 3 η of the method.
func (p Impute) Theory(c Collection) (int, float64, error) {
	m := c.Missing
	switch p.Method {
	case ImputeMean:
		return m, EtaMeanImpute(p.R, m, c.N), nil
	case ImputeMedian:
		return m, EtaMedianImpute(m, c.D, c.ZLo, c.ZHi), nil
	case ImputeTrimmed:
		return m, EtaTrimmedImpute(m, c.D, c.N, p.Trim, c.ZLo, c.ZHi), nil
	case ImputeLR:
		return m, EtaLRImpute(m, c.D, c.N, p.R, c.LamMax, c.LamMin), nil
	}
	return 0, 0, fmt.Errorf("smoothdp: unknown imputation method %d", int(p.Method))
}

// ---------------------------------------------------------------------------
// PCA (spec §5.3).

// PCA is PCA pre-processing with target rank s (Proposition 5): the
// covariance Σ_S = (1/n)Σ(x_i − μ)(x_i − μ)ᵀ, V_s its top-s eigenvectors
// (gonum EigenSym, sorted descending); rank reduction π_S(x) = V_sV_sᵀx ∈ R^d,
// dimension reduction (Dim) π_S(x) = V_sᵀx ∈ R^s. The data are not
// re-centred in π (spec §12 A8). k = n [V]; η_rank = 12R³/g_min when
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

// Apply returns V Vᵀx (rank) or Vᵀx (dimension).
func (f *PCAFit) Apply(x []float64) ([]float64, bool) {
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
// comparing dimension-reduction outputs (spec §12 A8).
func (f *PCAFit) AlignedTo(ref *PCAFit) (*PCAFit, error) {
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

// ---------------------------------------------------------------------------
// Empirical sensitivity (spec §7.3).

// Empirical is a measured lower bound on (k_π, η_π).
type Empirical struct {
	K   int     // max #{i : π_S(x_i) ≠ π_{S'}(x_i)} over the bases S and S'
	Eta float64 // max Σ_i ‖π_S(x_i) − π_{S'}(x_i)‖₂ (⊥ at distance 2R)
	// MaxPoint is max_i ‖π_S(x_i) − π_{S'}(x_i)‖₂: on the hybrid pair
	// (π_S(S), π_{S'}(S)) it checks the inverse point-wise distance ω of
	// Definition 7 (MaxPoint ≤ ω·η; spec §12 A21).
	MaxPoint float64
}

// EmpiricalSensitivity measures the pre-processing sensitivity of
// Definition 4 on one pair of neighbouring datasets: π_S and π_{S'} are
// fitted, then applied to every point of S and of S' (spec §7.3); the larger
// count and sum are returned. ⊥ vs a point counts 2R, ⊥ vs ⊥ zero. With
// align (PCA dimension reduction only) π_{S'}'s basis is Procrustes-aligned
// to π_S's first. Differences below tol (absolute, per point) are ignored.
func EmpiricalSensitivity(p Preprocessor, S, S2 [][]float64, radius float64, align bool, tol float64) (Empirical, error) {
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
// neighbour).
func Replace(S [][]float64, i int, x []float64) [][]float64 {
	out := make([][]float64, len(S))
	copy(out, S)
	out[i] = append([]float64(nil), x...)
	return out
}
