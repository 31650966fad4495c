package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/valid"
)

// Logistic is binary logistic regression with labels y ∈ {0, 1}, an
// optional (unpenalised) intercept and an optional L2 penalty.
//
// Parameter layout (P = NumParams): θ[0:D] are the weights w (θ[j]
// multiplies feature j); if Intercept, θ[D] is the intercept b (else b ≡ 0
// and P = D).
//
// Per-example loss, with z = wᵀx + b and λ = L2:
//
//	ℓ(θ; x, y) = log(1 + e^{z}) − y·z + (λ/2)‖w‖²
//
// (the cross-entropy −[y log σ(z) + (1−y) log(1−σ(z))], the CorrDP paper's
// Ex. 3.6 loss when λ = 0), evaluated stably as softplus(z) − y·z with
// softplus(z) = max(z,0) + log1p(e^{−|z|}). Unlike Linear.Ridge, the L2
// term is added in full to every example, so the mean objective is
// F(θ) = (1/N)Σ[softplus(z_i) − y_i z_i] + (λ/2)‖w‖², which is λ-strongly
// convex in w. The per-example gradient is
//
//	∇_w ℓ = (σ(z) − y)·x + λ·w,   ∂ℓ/∂b = σ(z) − y.
//
// The hot-path methods accept any real y (soft labels give the
// cross-entropy against a Bernoulli(y) target); CheckLabels insists on
// {0, 1}. A Logistic is immutable after construction and safe for
// concurrent use.
type Logistic struct {
	// D is the number of input features.
	D int
	// Intercept adds the unpenalised intercept b at θ[D].
	Intercept bool
	// L2 is λ ≥ 0; every example's loss carries (λ/2)‖w‖².
	L2 float64
}

// NewLogistic returns a logistic-regression model over d features with
// per-example L2 term (l2/2)‖w‖². It returns an error if d ≤ 0 (or above
// MaxParams − 1) or l2 is negative or not finite.
func NewLogistic(d int, intercept bool, l2 float64) (*Logistic, error) {
	m := &Logistic{D: d, Intercept: intercept, L2: l2}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// Validate returns an error if the model's fields are invalid (D ≤ 0,
// L2 < 0 or not finite).
func (m *Logistic) Validate() error {
	if m == nil {
		return errNilModel("Logistic", "NewLogistic")
	}
	if m.D <= 0 {
		return fmt.Errorf("models: Logistic: number of features d = %d, want > 0", m.D)
	}
	if !paramsFit(1, m.D, 1) {
		return fmt.Errorf("models: Logistic: d = %d features give more than MaxParams = 2^40 parameters", m.D)
	}
	if err := valid.NonNegative("L2 coefficient λ", m.L2); err != nil {
		return fmt.Errorf("models: Logistic: %w", err)
	}
	return nil
}

// NumParams returns P = D, plus 1 with an intercept.
func (m *Logistic) NumParams() int {
	if m.Intercept {
		return m.D + 1
	}
	return m.D
}

// NumFeatures returns D.
func (m *Logistic) NumFeatures() int { return m.D }

// FeatureParams returns []int{j}: the weight w_j is θ[j]. It panics if j is
// not in [0, D).
func (m *Logistic) FeatureParams(j int) []int {
	if j < 0 || j >= m.D {
		panic(fmt.Sprintf("models: Logistic.FeatureParams: feature %d out of range [0, %d)", j, m.D))
	}
	return []int{j}
}

// Init sets θ = 0 (rng is unused and may be nil).
func (m *Logistic) Init(theta []float64, rng *rand.Rand) {
	checkLen("Logistic.Init", "theta", len(theta), m.NumParams())
	clear(theta)
}

// CheckLabels returns an error if data does not have D features or a label
// is not 0 or 1.
func (m *Logistic) CheckLabels(data *design.Data) error {
	if m == nil {
		return errNilModel("Logistic", "NewLogistic")
	}
	if err := checkDataErr("Logistic", data, m.D); err != nil {
		return err
	}
	for i, y := range data.Y {
		if y != 0 && y != 1 {
			return fmt.Errorf("models: Logistic: label %v at row %d is not 0 or 1", y, i)
		}
	}
	return nil
}

// Predict returns P(y = 1 | x) = σ(wᵀx + b) for one feature vector x
// (len D).
func (m *Logistic) Predict(theta, x []float64) float64 {
	checkLen("Logistic.Predict", "theta", len(theta), m.NumParams())
	checkLen("Logistic.Predict", "x", len(x), m.D)
	return sigmoid(m.logit(theta, x))
}

// logit returns z = wᵀx + b.
func (m *Logistic) logit(theta, x []float64) float64 {
	z := dot(x, theta[:m.D])
	if m.Intercept {
		z += theta[m.D]
	}
	return z
}

func (m *Logistic) check(method string, theta []float64, data *design.Data) {
	checkModel("Logistic", method, theta, m.NumParams(), data, m.D)
}

// Loss returns (1/|idx|) Σ_{i∈idx} [softplus(z_i) − y_i z_i] + (λ/2)‖w‖²
// (idx nil: all rows). An empty non-nil idx gives NaN.
func (m *Logistic) Loss(theta []float64, data *design.Data, idx []int) float64 {
	m.check("Loss", theta, data)
	n := numRows(data, idx)
	if n == 0 {
		return math.NaN()
	}
	var s float64
	for k := range n {
		i := rowIndex(idx, k)
		z := m.logit(theta, data.Row(i))
		s += softplus(z) - data.Y[i]*z
	}
	return s/float64(n) + 0.5*m.L2*sumSq(theta[:m.D])
}

// GradSum adds Σ_{i∈idx} ∇ℓ_i = Σ (σ(z_i) − y_i)x̃_i + |idx|·λ[w; 0] into
// out. The rows are summed sequentially in idx order (deterministic; one
// full-batch gradient on 45,175 × 31 takes about 2 ms on one core).
func (m *Logistic) GradSum(theta []float64, data *design.Data, idx []int, out []float64) {
	m.check("GradSum", theta, data)
	checkLen("Logistic.GradSum", "out", len(out), m.NumParams())
	m.gradSum(theta, data, idx, nil, out)
}

// WeightedGradSum adds Σ_k w_k ∇ℓ_{idx[k]} into out (len(w) = number of
// rows selected).
func (m *Logistic) WeightedGradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	m.check("WeightedGradSum", theta, data)
	checkLen("Logistic.WeightedGradSum", "out", len(out), m.NumParams())
	checkLen("Logistic.WeightedGradSum", "w", len(w), numRows(data, idx))
	m.gradSum(theta, data, idx, w, out)
}

// gradSum adds Σ_k w_k ∇ℓ_{idx[k]} into out; w nil means all weights 1.
func (m *Logistic) gradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	d := m.D
	n := numRows(data, idx)
	wt := theta[:d]
	outW := out[:d]
	var b float64
	if m.Intercept {
		b = theta[d]
	}
	x, y := data.X, data.Y
	var sumS, sumW float64
	if idx == nil && w == nil {
		// Full-batch fast path: contiguous rows, no weights.
		for i := range n {
			row := x[i*d : i*d+d]
			s := sigmoid(dot(row, wt)+b) - y[i]
			sumS += s
			axpy(s, row, outW)
		}
		sumW = float64(n)
	} else {
		for k := range n {
			i := rowIndex(idx, k)
			row := x[i*d : i*d+d]
			s := sigmoid(dot(row, wt)+b) - y[i]
			wk := 1.0
			if w != nil {
				wk = w[k]
				s *= wk
			}
			sumW += wk
			sumS += s
			axpy(s, row, outW)
		}
	}
	if m.Intercept {
		out[d] += sumS
	}
	if m.L2 != 0 {
		axpy(sumW*m.L2, wt, outW)
	}
}

// PerExampleGrads writes ∇ℓ_i = [(σ(z_i) − y_i)x_i + λw; σ(z_i) − y_i] for
// i = idx[k] into out[k*P:(k+1)*P].
func (m *Logistic) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	m.check("PerExampleGrads", theta, data)
	p, d := m.NumParams(), m.D
	n := numRows(data, idx)
	checkLen("Logistic.PerExampleGrads", "out", len(out), n*p)
	wt := theta[:d]
	for k := range n {
		i := rowIndex(idx, k)
		x := data.Row(i)
		s := sigmoid(m.logit(theta, x)) - data.Y[i]
		g := out[k*p : (k+1)*p]
		for j, v := range x {
			g[j] = s*v + m.L2*wt[j]
		}
		if m.Intercept {
			g[d] = s
		}
	}
}

// PerExampleGradNorms writes ‖∇ℓ_i‖₂ for i = idx[k] into out[k].
func (m *Logistic) PerExampleGradNorms(theta []float64, data *design.Data, idx []int, out []float64) {
	m.check("PerExampleGradNorms", theta, data)
	n := numRows(data, idx)
	checkLen("Logistic.PerExampleGradNorms", "out", len(out), n)
	wt := theta[:m.D]
	for k := range n {
		i := rowIndex(idx, k)
		x := data.Row(i)
		s := sigmoid(m.logit(theta, x)) - data.Y[i]
		var ss float64
		if m.L2 == 0 {
			ss = s * s * sumSq(x)
		} else {
			for j, v := range x {
				g := s*v + m.L2*wt[j]
				ss += g * g
			}
		}
		if m.Intercept {
			ss += s * s
		}
		out[k] = math.Sqrt(ss)
	}
}

// Evaluate returns Loss = F(θ) (mean cross-entropy plus (λ/2)‖w‖²),
// Accuracy = fraction of rows with [σ(z_i) ≥ 0.5] = y_i (i.e. predict 1
// iff z_i ≥ 0) and MSE = NaN.
func (m *Logistic) Evaluate(theta []float64, data *design.Data) Metrics {
	m.check("Evaluate", theta, data)
	var s float64
	correct := 0
	for i := range data.N {
		z := m.logit(theta, data.Row(i))
		y := data.Y[i]
		s += softplus(z) - y*z
		pred := 0.0
		if z >= 0 {
			pred = 1
		}
		if pred == y {
			correct++
		}
	}
	return Metrics{
		Loss:     s/float64(data.N) + 0.5*m.L2*sumSq(theta[:m.D]),
		Accuracy: float64(correct) / float64(data.N),
		MSE:      math.NaN(),
	}
}
