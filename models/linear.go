package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/valid"
	"gonum.org/v1/gonum/mat"
)

// Linear is least-squares regression with an optional ridge penalty and an
// optional (unpenalised) intercept.
//
// Parameter layout (P = NumParams): θ[0:D] are the weights w (θ[j] multiplies
// feature j); if Intercept, θ[D] is the intercept b (else b ≡ 0 and P = D).
//
// Per-example loss on a dataset of N rows, with λ = Ridge:
//
//	ℓ(θ; x, y) = (wᵀx + b − y)² + (λ/N)‖w‖²
//
// The ridge term is split equally over the N rows of the dataset (N is
// data.N, whatever rows idx selects), so the mean over all rows of the
// per-example losses is the objective
//
//	F(θ) = (1/N)‖Xw + b·1 − y‖² + (λ/N)‖w‖²,   ∇F = (2/N)(X̃ᵀX̃θ − X̃ᵀy + λ[w; 0]),
//
// with X̃ = [X 1] when there is an intercept. With λ = 1 and no intercept
// this is the CorrDP paper's ridge loss (y − θᵀx)² + (1/n)‖θ‖² (Sec. 5.1); with
// λ = 0 it is its OLS loss (θᵀx − y)². The mean over a minibatch is an
// unbiased estimate of F. The per-example gradient is
//
//	∇_w ℓ = 2r·x + (2λ/N)·w,   ∂ℓ/∂b = 2r,   r = wᵀx + b − y.
//
// The closed-form minimiser of F is θ̂ = (X̃ᵀX̃ + λ diag(1,…,1,0))⁻¹ X̃ᵀy
// (Solve). A Linear is immutable after construction and safe for
// concurrent use.
type Linear struct {
	// D is the number of input features.
	D int
	// Intercept adds the unpenalised intercept b at θ[D].
	Intercept bool
	// Ridge is λ ≥ 0, the coefficient of ‖w‖² in N·F(θ).
	Ridge float64
}

// NewLinear returns a least-squares model over d features; ridge is λ of
// the objective F(θ) = (1/N)(‖Xw + b − y‖² + λ‖w‖²). It returns an error if
// d ≤ 0 (or above MaxParams − 1) or ridge is negative or not finite.
func NewLinear(d int, intercept bool, ridge float64) (*Linear, error) {
	m := &Linear{D: d, Intercept: intercept, Ridge: ridge}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// Validate returns an error if the model's fields are invalid (D ≤ 0,
// Ridge < 0 or not finite).
func (m *Linear) Validate() error {
	if m == nil {
		return errNilModel("Linear", "NewLinear")
	}
	if m.D <= 0 {
		return fmt.Errorf("models: Linear: number of features d = %d, want > 0", m.D)
	}
	if !paramsFit(1, m.D, 1) {
		return fmt.Errorf("models: Linear: d = %d features give more than MaxParams = 2^40 parameters", m.D)
	}
	if err := valid.NonNegative("ridge λ", m.Ridge); err != nil {
		return fmt.Errorf("models: Linear: %w", err)
	}
	return nil
}

// NumParams returns P = D, plus 1 with an intercept.
func (m *Linear) NumParams() int {
	if m.Intercept {
		return m.D + 1
	}
	return m.D
}

// NumFeatures returns D.
func (m *Linear) NumFeatures() int { return m.D }

// FeatureParams returns []int{j}: the weight w_j is θ[j]. It panics if j is
// not in [0, D).
func (m *Linear) FeatureParams(j int) []int {
	if j < 0 || j >= m.D {
		panic(fmt.Sprintf("models: Linear.FeatureParams: feature %d out of range [0, %d)", j, m.D))
	}
	return []int{j}
}

// Init sets θ = 0 (rng is unused and may be nil).
func (m *Linear) Init(theta []float64, rng *rand.Rand) {
	checkLen("Linear.Init", "theta", len(theta), m.NumParams())
	clear(theta)
}

// CheckLabels returns an error if data does not have D features or a label
// is not finite.
func (m *Linear) CheckLabels(data *design.Data) error {
	if m == nil {
		return errNilModel("Linear", "NewLinear")
	}
	if err := checkDataErr("Linear", data, m.D); err != nil {
		return err
	}
	if i := valid.FirstNonFinite(data.Y); i >= 0 {
		return fmt.Errorf("models: Linear: label %v at row %d is not finite", data.Y[i], i)
	}
	return nil
}

// Predict returns the prediction wᵀx + b for one feature vector x (len D).
func (m *Linear) Predict(theta, x []float64) float64 {
	checkLen("Linear.Predict", "theta", len(theta), m.NumParams())
	checkLen("Linear.Predict", "x", len(x), m.D)
	return m.predict(theta, x)
}

func (m *Linear) predict(theta, x []float64) float64 {
	z := dot(x, theta[:m.D])
	if m.Intercept {
		z += theta[m.D]
	}
	return z
}

func (m *Linear) check(method string, theta []float64, data *design.Data) {
	checkModel("Linear", method, theta, m.NumParams(), data, m.D)
}

// ReadsRowCount reports Ridge ≠ 0: the per-example ridge term (λ/N)‖w‖²
// reads the data's row count N (RowCountReader).
func (m *Linear) ReadsRowCount() bool { return m.Ridge != 0 }

// regCoef returns c = 2λ/N, the per-example ridge gradient coefficient
// (∇_w of (λ/N)‖w‖² is c·w).
func (m *Linear) regCoef(data *design.Data) float64 { return 2 * m.Ridge / float64(data.N) }

// Loss returns (1/|idx|) Σ_{i∈idx} (wᵀx_i + b − y_i)² + (λ/N)‖w‖² (idx nil:
// all rows, giving F(θ)). An empty non-nil idx gives NaN.
func (m *Linear) Loss(theta []float64, data *design.Data, idx []int) float64 {
	m.check("Loss", theta, data)
	n := numRows(data, idx)
	if n == 0 {
		return math.NaN()
	}
	var s float64
	for k := range n {
		i := rowIndex(idx, k)
		r := m.predict(theta, data.Row(i)) - data.Y[i]
		s += r * r
	}
	return s/float64(n) + m.Ridge/float64(data.N)*sumSq(theta[:m.D])
}

// GradSum adds Σ_{i∈idx} ∇ℓ_i = Σ 2r_i x̃_i + |idx|·(2λ/N)[w; 0] into out.
func (m *Linear) GradSum(theta []float64, data *design.Data, idx []int, out []float64) {
	m.check("GradSum", theta, data)
	checkLen("Linear.GradSum", "out", len(out), m.NumParams())
	m.gradSum(theta, data, idx, nil, out)
}

// WeightedGradSum adds Σ_k w_k ∇ℓ_{idx[k]} into out (len(w) = number of
// rows selected).
func (m *Linear) WeightedGradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	m.check("WeightedGradSum", theta, data)
	checkLen("Linear.WeightedGradSum", "out", len(out), m.NumParams())
	checkLen("Linear.WeightedGradSum", "w", len(w), numRows(data, idx))
	m.gradSum(theta, data, idx, w, out)
}

// gradSum adds Σ_k w_k ∇ℓ_{idx[k]} into out; w nil means all weights 1.
func (m *Linear) gradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	d := m.D
	n := numRows(data, idx)
	outW := out[:d]
	var sumS, sumW float64
	for k := range n {
		i := rowIndex(idx, k)
		x := data.Row(i)
		s := 2 * (m.predict(theta, x) - data.Y[i])
		wk := 1.0
		if w != nil {
			wk = w[k]
			s *= wk
		}
		sumW += wk
		sumS += s
		axpy(s, x, outW)
	}
	if m.Intercept {
		out[d] += sumS
	}
	if m.Ridge != 0 {
		axpy(sumW*m.regCoef(data), theta[:d], outW)
	}
}

// PerExampleGrads writes ∇ℓ_i = [2r_i x_i + (2λ/N)w; 2r_i] for i = idx[k]
// into out[k*P:(k+1)*P].
func (m *Linear) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	m.check("PerExampleGrads", theta, data)
	p, d := m.NumParams(), m.D
	n := numRows(data, idx)
	checkLen("Linear.PerExampleGrads", "out", len(out), n*p)
	c := m.regCoef(data)
	wt := theta[:d]
	for k := range n {
		i := rowIndex(idx, k)
		x := data.Row(i)
		s := 2 * (m.predict(theta, x) - data.Y[i])
		g := out[k*p : (k+1)*p]
		for j, v := range x {
			g[j] = s*v + c*wt[j]
		}
		if m.Intercept {
			g[d] = s
		}
	}
}

// PerExampleGradNorms writes ‖∇ℓ_i‖₂ for i = idx[k] into out[k].
func (m *Linear) PerExampleGradNorms(theta []float64, data *design.Data, idx []int, out []float64) {
	m.check("PerExampleGradNorms", theta, data)
	n := numRows(data, idx)
	checkLen("Linear.PerExampleGradNorms", "out", len(out), n)
	c := m.regCoef(data)
	wt := theta[:m.D]
	for k := range n {
		i := rowIndex(idx, k)
		x := data.Row(i)
		s := 2 * (m.predict(theta, x) - data.Y[i])
		var ss float64
		for j, v := range x {
			g := s*v + c*wt[j]
			ss += g * g
		}
		if m.Intercept {
			ss += s * s
		}
		out[k] = math.Sqrt(ss)
	}
}

// Evaluate returns Loss = F(θ) (including the ridge term), MSE =
// (1/N)Σ(wᵀx_i + b − y_i)² and Accuracy = NaN.
func (m *Linear) Evaluate(theta []float64, data *design.Data) Metrics {
	m.check("Evaluate", theta, data)
	var s float64
	for i := range data.N {
		r := m.predict(theta, data.Row(i)) - data.Y[i]
		s += r * r
	}
	mse := s / float64(data.N)
	return Metrics{
		Loss:     mse + m.Ridge/float64(data.N)*sumSq(theta[:m.D]),
		Accuracy: math.NaN(),
		MSE:      mse,
	}
}

// Solve returns the exact minimiser θ̂ = (X̃ᵀX̃ + λ diag(1,…,1,0))⁻¹ X̃ᵀy
// of F (a Cholesky solve on the sufficient statistics). It returns an
// error if the system is singular or numerically so (for example OLS with
// collinear features; use Ridge > 0).
func (m *Linear) Solve(data *design.Data) ([]float64, error) {
	if m == nil {
		return nil, fmt.Errorf("models: Linear.Solve: %w", errNilModel("Linear", "NewLinear"))
	}
	if err := m.CheckLabels(data); err != nil {
		return nil, fmt.Errorf("models: Linear.Solve: %w", err)
	}
	s, err := NewLinearStats(data)
	if err != nil {
		return nil, fmt.Errorf("models: Linear.Solve: %w", err)
	}
	return s.Solve(m)
}

// LinearStats are the sufficient statistics of a dataset for least squares:
// with X̃ = [X 1] (an all-ones intercept column appended, Dim = D+1),
//
//	G = X̃ᵀX̃ (Dim×Dim, row-major),   XtY = X̃ᵀy,   YtY = yᵀy.
//
// They give the full-batch loss and gradient of a Linear model in O(P²)
// instead of O(N·P) (for a model without intercept only the leading D×D
// block and the first D entries are used):
//
//	Σ_i ∇ℓ_i = 2(Gθ − X̃ᵀy) + 2λ[w; 0],   F(θ) = (θᵀGθ − 2θᵀX̃ᵀy + yᵀy)/N + (λ/N)‖w‖².
//
// As a model's kernels, GradSum, Grad and Loss panic on a nil
// *LinearStats; Solve returns an error naming NewLinearStats.
type LinearStats struct {
	// N is the number of rows, D the number of features.
	N, D int
	// G is X̃ᵀX̃, (D+1)×(D+1) row-major.
	G []float64
	// XtY is X̃ᵀy (length D+1; the last entry is Σ y_i).
	XtY []float64
	// YtY is yᵀy.
	YtY float64
}

// NewLinearStats computes G = X̃ᵀX̃, X̃ᵀy and yᵀy of data in one pass
// (O(N·D²)). It returns an error for nil or inconsistent data.
func NewLinearStats(data *design.Data) (*LinearStats, error) {
	if data == nil {
		return nil, fmt.Errorf("models: NewLinearStats: nil data")
	}
	if data.N <= 0 || data.D <= 0 || len(data.X) != data.N*data.D || len(data.Y) != data.N {
		return nil, fmt.Errorf("models: NewLinearStats: inconsistent data (n=%d, d=%d, %d values, %d labels)", data.N, data.D, len(data.X), len(data.Y))
	}
	d := data.D
	q := d + 1
	s := &LinearStats{N: data.N, D: d, G: make([]float64, q*q), XtY: make([]float64, q)}
	for i := range data.N {
		x := data.Row(i)
		y := data.Y[i]
		// Upper triangle of x̃x̃ᵀ, row j: G[j, j:d] += x_j·x[j:d].
		for j, v := range x {
			axpy(v, x[j:], s.G[j*q+j:j*q+d])
			s.G[j*q+d] += v
		}
		axpy(y, x, s.XtY[:d])
		s.XtY[d] += y
		s.YtY += y * y
	}
	s.G[d*q+d] = float64(data.N)
	for j := range q {
		for k := j + 1; k < q; k++ {
			s.G[k*q+j] = s.G[j*q+k]
		}
	}
	return s, nil
}

func (s *LinearStats) check(method string, m *Linear, theta []float64) {
	if m.D != s.D {
		panic(fmt.Errorf("%w: LinearStats.%s: statistics have %d features, model expects %d", ErrShape, method, s.D, m.D))
	}
	if len(theta) != m.NumParams() {
		checkLen("LinearStats."+method, "theta", len(theta), m.NumParams())
	}
}

// GradSum adds the full-batch gradient sum Σ_{i=1}^N ∇ℓ_i(θ) =
// 2(Gθ − X̃ᵀy) + 2λ[w; 0] of model m into out (len m.NumParams()); it
// equals m.GradSum(theta, data, nil, out) up to rounding, in O(P²).
func (s *LinearStats) GradSum(m *Linear, theta []float64, out []float64) {
	s.check("GradSum", m, theta)
	p := m.NumParams()
	checkLen("LinearStats.GradSum", "out", len(out), p)
	q := s.D + 1
	for j := range p {
		g := dot(s.G[j*q:j*q+p], theta) - s.XtY[j]
		if j < m.D {
			g += m.Ridge * theta[j]
		}
		out[j] += 2 * g
	}
}

// Grad writes the full-batch gradient ∇F(θ) = (2/N)(Gθ − X̃ᵀy + λ[w; 0])
// of model m into out (overwriting it).
func (s *LinearStats) Grad(m *Linear, theta []float64, out []float64) {
	checkLen("LinearStats.Grad", "out", len(out), m.NumParams())
	clear(out)
	s.GradSum(m, theta, out)
	inv := 1 / float64(s.N)
	for j := range out {
		out[j] *= inv
	}
}

// Loss returns F(θ) = (θᵀGθ − 2θᵀX̃ᵀy + yᵀy)/N + (λ/N)‖w‖² for model m. The
// expanded quadratic loses relative precision when the residuals are tiny
// compared with ‖y‖; the residual sum of squares is clamped at 0.
func (s *LinearStats) Loss(m *Linear, theta []float64) float64 {
	s.check("Loss", m, theta)
	p := m.NumParams()
	q := s.D + 1
	var quad, lin float64
	for j := range p {
		quad += theta[j] * dot(s.G[j*q:j*q+p], theta)
		lin += theta[j] * s.XtY[j]
	}
	rss := math.Max(quad-2*lin+s.YtY, 0)
	return rss/float64(s.N) + m.Ridge/float64(s.N)*sumSq(theta[:m.D])
}

// Solve returns θ̂ = (G_P + λ diag(1,…,1,0))⁻¹ X̃ᵀy, the exact minimiser of
// F for model m (G_P is the leading P×P block of G), by Cholesky
// factorisation (gonum mat). It returns an error if the matrix is not
// positive definite or its condition number exceeds 1e15.
func (s *LinearStats) Solve(m *Linear) ([]float64, error) {
	if s == nil {
		return nil, fmt.Errorf("models: LinearStats.Solve: %w", errNilModel("LinearStats", "NewLinearStats"))
	}
	if m.D != s.D {
		return nil, fmt.Errorf("models: LinearStats.Solve: statistics have %d features, model expects %d", s.D, m.D)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("models: LinearStats.Solve: %w", err)
	}
	p := m.NumParams()
	q := s.D + 1
	a := mat.NewSymDense(p, nil)
	for j := range p {
		for k := j; k < p; k++ {
			a.SetSym(j, k, s.G[j*q+k])
		}
		if j < m.D {
			a.SetSym(j, j, a.At(j, j)+m.Ridge)
		}
	}
	var chol mat.Cholesky
	if ok := chol.Factorize(a); !ok {
		return nil, fmt.Errorf("models: LinearStats.Solve: X̃ᵀX̃ + λI is not positive definite (collinear features or too few rows; use Ridge > 0)")
	}
	if c := chol.Cond(); c > 1e15 {
		return nil, fmt.Errorf("models: LinearStats.Solve: X̃ᵀX̃ + λI is numerically singular (condition number %.3g; use Ridge > 0)", c)
	}
	var dst mat.VecDense
	if err := chol.SolveVecTo(&dst, mat.NewVecDense(p, append([]float64(nil), s.XtY[:p]...))); err != nil {
		return nil, fmt.Errorf("models: LinearStats.Solve: %w", err)
	}
	theta := make([]float64, p)
	for j := range theta {
		theta[j] = dst.AtVec(j)
	}
	return theta, nil
}
