package smoothdp

// Imputation.

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/featuredp/featuredp/internal/valid"
	"gonum.org/v1/gonum/mat"
)

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
	// mean-imputed first.
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
	if err := valid.Positive("ball radius R", p.R); err != nil {
		return nil, fmt.Errorf("smoothdp: %w", err)
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
		if f.fill[j], err = p.fillValue(j, v); err != nil {
			return nil, err
		}
	}
	if p.Method == ImputeLR {
		if f.beta, err = regressionCoefficients(S, d); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// fillValue is the constant imputed for feature j from its observed values
// v (mean, lower median or trimmed mean; the mean for linear regression,
// used when a predictor is missing too). v may be reordered.
func (p Impute) fillValue(j int, v []float64) (float64, error) {
	switch p.Method {
	case ImputeMean, ImputeLR:
		s := 0.0
		for _, x := range v {
			s += x
		}
		return s / float64(len(v)), nil
	case ImputeMedian:
		sort.Float64s(v)
		return v[(len(v)+1)/2-1], nil // lower median, rank ⌈n_j/2⌉
	case ImputeTrimmed:
		if len(v) <= 2*p.Trim {
			return 0, fmt.Errorf("smoothdp: feature %d has %d observed values, ≤ 2t = %d", j, len(v), 2*p.Trim)
		}
		sort.Float64s(v)
		s := 0.0
		for _, x := range v[p.Trim : len(v)-p.Trim] {
			s += x
		}
		return s / float64(len(v)-2*p.Trim), nil
	}
	return 0, fmt.Errorf("smoothdp: unknown imputation method %d", int(p.Method))
}

// regressionCoefficients fits, for every feature j, the least-squares
// regression of x_j on the other features over the complete rows of S
// (beta[j][j] = 0).
func regressionCoefficients(S [][]float64, d int) ([][]float64, error) {
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
	beta := make([][]float64, d)
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
		beta[j] = make([]float64, d)
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
				beta[j][l] = sol.AtVec(c)
				c++
			}
		}
	}
	return beta, nil
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
