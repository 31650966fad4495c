package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/valid"
)

// Softmax is multinomial logistic (softmax) regression over K ≥ 2 classes
// with labels y ∈ {0, …, K−1} (stored as float64) and an optional L2
// penalty on the weights.
//
// Parameter layout (P = D·K + K): the weight matrix W (D×K, row-major, so
// input feature j owns θ[j·K:(j+1)·K] = W[j, :]), then the bias b (K) at
// θ[D·K:D·K+K].
//
// Per-example loss, with logits z = Wᵀx + b (z_k = Σ_j x_j W[j,k] + b_k) and
// λ = L2:
//
//	ℓ(θ; x, y) = log Σ_k e^{z_k} − z_y + (λ/2)‖W‖²_F
//
// (the log-sum-exp is evaluated stably as m + log Σ_k e^{z_k − m}, m =
// max z). The L2 term is added in full to every example, as in Logistic.
// The per-example gradient is
//
//	∇_W ℓ = x δᵀ + λW,   ∇_b ℓ = δ,   δ = softmax(z) − e_y.
//
// A Softmax is immutable after construction and safe for concurrent use.
type Softmax struct {
	// D is the number of input features, K the number of classes.
	D, K int
	// L2 is λ ≥ 0; every example's loss carries (λ/2)‖W‖²_F. NewSoftmax
	// sets 0; set it before use (Validate checks it).
	L2 float64
}

// NewSoftmax returns a softmax-regression model over d features and k
// classes (L2 = 0). It returns an error if d ≤ 0, k < 2 or the model has
// more than MaxParams parameters.
func NewSoftmax(d, k int) (*Softmax, error) {
	m := &Softmax{D: d, K: k}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// Validate returns an error if the model's fields are invalid (D ≤ 0,
// K < 2, more than MaxParams parameters, L2 < 0 or not finite).
func (m *Softmax) Validate() error {
	if m == nil {
		return errNilModel("Softmax", "NewSoftmax")
	}
	if m.D <= 0 {
		return fmt.Errorf("models: Softmax: number of features d = %d, want > 0", m.D)
	}
	if m.K < 2 {
		return fmt.Errorf("models: Softmax: number of classes k = %d, want ≥ 2", m.K)
	}
	if m.D > MaxParams || !paramsFit(m.K, m.D+1, 0) {
		return fmt.Errorf("models: Softmax: d = %d features and k = %d classes give more than MaxParams = 2^40 parameters", m.D, m.K)
	}
	if err := valid.NonNegative("L2 coefficient λ", m.L2); err != nil {
		return fmt.Errorf("models: Softmax: %w", err)
	}
	return nil
}

// NumParams returns P = D·K + K.
func (m *Softmax) NumParams() int { return m.D*m.K + m.K }

// NumFeatures returns D.
func (m *Softmax) NumFeatures() int { return m.D }

// FeatureParams returns the K indices j·K, …, j·K+K−1 of W[j, :]. It panics
// if j is not in [0, D).
func (m *Softmax) FeatureParams(j int) []int {
	if j < 0 || j >= m.D {
		panic(fmt.Sprintf("models: Softmax.FeatureParams: feature %d out of range [0, %d)", j, m.D))
	}
	return seq(j*m.K, m.K)
}

// BiasParams returns the K indices D·K, …, D·K+K−1 of the bias b.
func (m *Softmax) BiasParams() []int { return seq(m.D*m.K, m.K) }

// Init sets θ = 0 (rng is unused and may be nil).
func (m *Softmax) Init(theta []float64, rng *rand.Rand) {
	checkLen("Softmax.Init", "theta", len(theta), m.NumParams())
	clear(theta)
}

// CheckLabels returns an error if data does not have D features or a label
// is not an integer in [0, K).
func (m *Softmax) CheckLabels(data *design.Data) error {
	if m == nil {
		return errNilModel("Softmax", "NewSoftmax")
	}
	if err := checkDataErr("Softmax", data, m.D); err != nil {
		return err
	}
	return checkClassLabels("Softmax", data, m.K)
}

// Predict writes the class probabilities softmax(Wᵀx + b) for one feature
// vector x (len D) into out (len K).
func (m *Softmax) Predict(theta, x, out []float64) {
	checkLen("Softmax.Predict", "theta", len(theta), m.NumParams())
	checkLen("Softmax.Predict", "x", len(x), m.D)
	checkLen("Softmax.Predict", "out", len(out), m.K)
	m.logits(theta, x, out)
	softmaxInPlace(out)
}

// logits writes z = Wᵀx + b into z (len K).
func (m *Softmax) logits(theta, x, z []float64) {
	k := m.K
	copy(z, theta[m.D*k:m.D*k+k])
	for j, v := range x {
		if v == 0 {
			continue
		}
		w := theta[j*k : j*k+k]
		for c := range z {
			z[c] += v * w[c]
		}
	}
}

func (m *Softmax) check(method string, theta []float64, data *design.Data) {
	checkModel("Softmax", method, theta, m.NumParams(), data, m.D)
}

// Loss returns (1/|idx|) Σ_{i∈idx} [lse(z_i) − z_{i,y_i}] + (λ/2)‖W‖²_F
// (idx nil: all rows). An empty non-nil idx gives NaN.
func (m *Softmax) Loss(theta []float64, data *design.Data, idx []int) float64 {
	m.check("Loss", theta, data)
	n := numRows(data, idx)
	if n == 0 {
		return math.NaN()
	}
	z := make([]float64, m.K)
	var s float64
	for k := range n {
		i := rowIndex(idx, k)
		m.logits(theta, data.Row(i), z)
		s += logSumExp(z) - z[classOf(data.Y[i], m.K, i)]
	}
	return s/float64(n) + 0.5*m.L2*sumSq(theta[:m.D*m.K])
}

// delta writes δ = softmax(z) − e_y for row i into z (which holds scratch)
// and returns the loss term lse(z) − z_y.
func (m *Softmax) delta(theta []float64, data *design.Data, i int, z []float64) float64 {
	m.logits(theta, data.Row(i), z)
	c := classOf(data.Y[i], m.K, i)
	zy := z[c]
	lse := softmaxInPlace(z)
	z[c]--
	return lse - zy
}

// GradSum adds Σ_{i∈idx} ∇ℓ_i into out (len P).
func (m *Softmax) GradSum(theta []float64, data *design.Data, idx []int, out []float64) {
	m.check("GradSum", theta, data)
	checkLen("Softmax.GradSum", "out", len(out), m.NumParams())
	m.gradSum(theta, data, idx, nil, out)
}

// WeightedGradSum adds Σ_k w_k ∇ℓ_{idx[k]} into out (len(w) = number of
// rows selected).
func (m *Softmax) WeightedGradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	m.check("WeightedGradSum", theta, data)
	checkLen("Softmax.WeightedGradSum", "out", len(out), m.NumParams())
	checkLen("Softmax.WeightedGradSum", "w", len(w), numRows(data, idx))
	m.gradSum(theta, data, idx, w, out)
}

// gradSum adds Σ_k w_k ∇ℓ_{idx[k]} into out; w nil means all weights 1.
func (m *Softmax) gradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	kk, dk := m.K, m.D*m.K
	n := numRows(data, idx)
	z := make([]float64, kk)
	outB := out[dk : dk+kk]
	var sumW float64
	for k := range n {
		i := rowIndex(idx, k)
		m.delta(theta, data, i, z)
		wk := 1.0
		if w != nil {
			wk = w[k]
			for c := range z {
				z[c] *= wk
			}
		}
		sumW += wk
		for j, v := range data.Row(i) {
			if v == 0 {
				continue
			}
			g := out[j*kk : j*kk+kk]
			for c, dc := range z {
				g[c] += v * dc
			}
		}
		for c, dc := range z {
			outB[c] += dc
		}
	}
	if m.L2 != 0 {
		axpy(sumW*m.L2, theta[:dk], out[:dk])
	}
}

// PerExampleGrads writes ∇ℓ_i = [vec(x_i δ_iᵀ + λW); δ_i] for i = idx[k]
// into out[k*P:(k+1)*P].
func (m *Softmax) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	m.check("PerExampleGrads", theta, data)
	p, kk, dk := m.NumParams(), m.K, m.D*m.K
	n := numRows(data, idx)
	checkLen("Softmax.PerExampleGrads", "out", len(out), n*p)
	z := make([]float64, kk)
	for k := range n {
		i := rowIndex(idx, k)
		m.delta(theta, data, i, z)
		g := out[k*p : (k+1)*p]
		for j, v := range data.Row(i) {
			gj := g[j*kk : j*kk+kk]
			wj := theta[j*kk : j*kk+kk]
			for c, dc := range z {
				gj[c] = v*dc + m.L2*wj[c]
			}
		}
		copy(g[dk:], z)
	}
}

// PerExampleGradNorms writes ‖∇ℓ_i‖₂ for i = idx[k] into out[k]. Without
// L2 it uses ‖x δᵀ‖²_F + ‖δ‖² = (‖x‖² + 1)‖δ‖² in O(D + K).
func (m *Softmax) PerExampleGradNorms(theta []float64, data *design.Data, idx []int, out []float64) {
	m.check("PerExampleGradNorms", theta, data)
	kk := m.K
	n := numRows(data, idx)
	checkLen("Softmax.PerExampleGradNorms", "out", len(out), n)
	z := make([]float64, kk)
	for k := range n {
		i := rowIndex(idx, k)
		m.delta(theta, data, i, z)
		dd := sumSq(z)
		x := data.Row(i)
		var ss float64
		if m.L2 == 0 {
			ss = (sumSq(x) + 1) * dd
		} else {
			for j, v := range x {
				wj := theta[j*kk : j*kk+kk]
				for c, dc := range z {
					g := v*dc + m.L2*wj[c]
					ss += g * g
				}
			}
			ss += dd
		}
		out[k] = math.Sqrt(ss)
	}
}

// Evaluate returns Loss = F(θ) (mean cross-entropy plus (λ/2)‖W‖²_F),
// Accuracy = fraction of rows whose largest logit (smallest index on ties)
// is the label, and MSE = NaN.
func (m *Softmax) Evaluate(theta []float64, data *design.Data) Metrics {
	m.check("Evaluate", theta, data)
	z := make([]float64, m.K)
	var s float64
	correct := 0
	for i := range data.N {
		m.logits(theta, data.Row(i), z)
		c := classOf(data.Y[i], m.K, i)
		s += logSumExp(z) - z[c]
		if argmax(z) == c {
			correct++
		}
	}
	return Metrics{
		Loss:     s/float64(data.N) + 0.5*m.L2*sumSq(theta[:m.D*m.K]),
		Accuracy: float64(correct) / float64(data.N),
		MSE:      math.NaN(),
	}
}

// seq returns [start, start+1, …, start+n−1].
func seq(start, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = start + i
	}
	return s
}
