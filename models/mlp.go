package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/valid"
)

// Activation is the hidden-layer nonlinearity φ of an MLP.
type Activation int

const (
	// Softplus is φ(a) = log(1 + e^{a}), φ'(a) = σ(a) (the CorrDP paper's
	// choice), evaluated stably as max(a,0) + log1p(e^{−|a|}).
	Softplus Activation = iota
	// ReLU is φ(a) = max(a, 0), φ'(a) = [a > 0] (0 at the kink a = 0).
	ReLU
	// Tanh is φ(a) = tanh(a), φ'(a) = 1 − tanh²(a).
	Tanh
	// SiLU is φ(a) = a·σ(a), φ'(a) = σ(a)(1 + a(1 − σ(a))).
	SiLU
)

// String returns the activation's name.
func (act Activation) String() string {
	switch act {
	case Softplus:
		return "Softplus"
	case ReLU:
		return "ReLU"
	case Tanh:
		return "Tanh"
	case SiLU:
		return "SiLU"
	}
	return fmt.Sprintf("Activation(%d)", int(act))
}

// eval returns φ(a) and φ'(a) (sharing one exponential where possible).
func (act Activation) eval(a float64) (h, dh float64) {
	switch act {
	case Softplus:
		// e = e^{−|a|}: softplus(a) = max(a,0) + log1p(e), σ(a) from e.
		e := math.Exp(-math.Abs(a))
		if a >= 0 {
			return a + log1pSmall(e), 1 / (1 + e)
		}
		return log1pSmall(e), e / (1 + e)
	case ReLU:
		if a > 0 {
			return a, 1
		}
		return 0, 0
	case Tanh:
		h = math.Tanh(a)
		return h, 1 - h*h
	default: // SiLU
		s := sigmoid(a)
		return a * s, s * (1 + a*(1-s))
	}
}

// Head is the output layer and loss of an MLP.
type Head int

const (
	// HeadSoftmaxCE is a softmax over K ≥ 2 classes with cross-entropy
	// loss ℓ = log Σ_k e^{o_k} − o_y; labels are class indices 0..K−1.
	HeadSoftmaxCE Head = iota
	// HeadMSE is a single linear output (K = 1) with squared-error loss
	// ℓ = (o − y)²; labels are real targets.
	HeadMSE
)

// String returns the head's name.
func (h Head) String() string {
	switch h {
	case HeadSoftmaxCE:
		return "SoftmaxCE"
	case HeadMSE:
		return "MSE"
	}
	return fmt.Sprintf("Head(%d)", int(h))
}

// MLP is a one-hidden-layer perceptron with H hidden units, activation φ
// and either a softmax/cross-entropy head over K classes or a linear
// squared-error head (K = 1):
//
//	a = W1ᵀx + b1 (H),   h = φ(a),   o = W2ᵀh + b2 (K),
//	ℓ = lse(o) − o_y   (HeadSoftmaxCE)   or   ℓ = (o − y)²   (HeadMSE).
//
// Parameter layout (P = D·H + H + H·K + K), all matrices row-major:
//
//	θ[0 : D·H]                 W1 (D×H); input feature j owns W1[j, :] = θ[j·H : (j+1)·H]
//	θ[D·H : D·H+H]             b1 (H)
//	θ[D·H+H : D·H+H+H·K]       W2 (H×K); hidden unit u owns W2[u, :]
//	θ[D·H+H+H·K : P]           b2 (K)
//
// Per-example gradient (hand-written backprop), with δ2 = softmax(o) − e_y
// (HeadSoftmaxCE) or δ2 = 2(o − y) (HeadMSE) and δ1 = φ'(a) ⊙ (W2 δ2):
//
//	∇W1 = x δ1ᵀ,   ∇b1 = δ1,   ∇W2 = h δ2ᵀ,   ∇b2 = δ2.
//
// There is no regularisation term. An MLP is immutable after construction
// and safe for concurrent use.
type MLP struct {
	// D is the number of inputs, H the number of hidden units and K the
	// number of outputs (classes for HeadSoftmaxCE, 1 for HeadMSE).
	D, H, K int
	// Act is the hidden activation φ.
	Act Activation
	// Head is the output layer and loss.
	Head Head
	// Float32 computes the matrix products of the batched passes (batches
	// of more than 32 rows: X·W1, H·W2, δ2·W2ᵀ and the weight gradients
	// Xᵀδ1, Hᵀδ2) in single precision with fused multiply–adds, about
	// 1.2–1.3× faster per step on AVX-512. Everything else (activations,
	// softmax and loss, per-example norms, clipping weights, the bias
	// gradients, the sums across chunks of 1,024 rows, noise, updates and the
	// accountant) stays float64. The
	// gradients then differ from the default float64 ones by float32
	// rounding (about 1e-7 relative per product, 1e-5 after a 1,024-row
	// sum), so runs are reproducible but not bit-identical to float64 runs;
	// BENCHMARKS.md gives the speed and what it changes. The clipping is
	// applied to the norms of the gradients actually summed, up to that
	// rounding.
	Float32 bool
}

// NewMLP returns a one-hidden-layer MLP with d inputs, h hidden units and k
// outputs. It returns an error if d ≤ 0, h ≤ 0, act or head is unknown,
// k < 2 with HeadSoftmaxCE, k ≠ 1 with HeadMSE, or more than MaxParams
// parameters.
func NewMLP(d, h, k int, act Activation, head Head) (*MLP, error) {
	m := &MLP{D: d, H: h, K: k, Act: act, Head: head}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// Validate returns an error if the model's fields are invalid (see NewMLP).
func (m *MLP) Validate() error {
	if m == nil {
		return errNilModel("MLP", "NewMLP")
	}
	if m.D <= 0 {
		return fmt.Errorf("models: MLP: number of inputs d = %d, want > 0", m.D)
	}
	if m.H <= 0 {
		return fmt.Errorf("models: MLP: number of hidden units h = %d, want > 0", m.H)
	}
	if m.Act < Softplus || m.Act > SiLU {
		return fmt.Errorf("models: MLP: unknown activation %v", m.Act)
	}
	switch m.Head {
	case HeadSoftmaxCE:
		if m.K < 2 {
			return fmt.Errorf("models: MLP: softmax head needs k ≥ 2 classes, got %d", m.K)
		}
	case HeadMSE:
		if m.K != 1 {
			return fmt.Errorf("models: MLP: MSE head needs k = 1 output, got %d", m.K)
		}
	default:
		return fmt.Errorf("models: MLP: unknown head %v", m.Head)
	}
	if m.D > MaxParams || m.K > MaxParams || !paramsFit(m.H, m.D+1+m.K, m.K) {
		return fmt.Errorf("models: MLP: d = %d, h = %d, k = %d give more than MaxParams = 2^40 parameters", m.D, m.H, m.K)
	}
	return nil
}

// Parameter offsets.
func (m *MLP) offB1() int { return m.D * m.H }
func (m *MLP) offW2() int { return m.D*m.H + m.H }
func (m *MLP) offB2() int { return m.D*m.H + m.H + m.H*m.K }

// NumParams returns P = D·H + H + H·K + K.
func (m *MLP) NumParams() int { return m.offB2() + m.K }

// NumFeatures returns D.
func (m *MLP) NumFeatures() int { return m.D }

// FeatureParams returns the H indices j·H, …, j·H+H−1 of W1[j, :], the
// first-layer weights leaving input feature j. It panics if j is not in
// [0, D).
func (m *MLP) FeatureParams(j int) []int {
	if j < 0 || j >= m.D {
		panic(fmt.Sprintf("models: MLP.FeatureParams: feature %d out of range [0, %d)", j, m.D))
	}
	return seq(j*m.H, m.H)
}

// FirstLayerBiasParams returns the H indices D·H, …, D·H+H−1 of b1.
func (m *MLP) FirstLayerBiasParams() []int { return seq(m.offB1(), m.H) }

// SecondLayerParams returns the H·K + K indices of W2 and b2 (the
// parameters that do not touch the input directly), D·H+H, …, P−1.
func (m *MLP) SecondLayerParams() []int { return seq(m.offW2(), m.H*m.K+m.K) }

// Init draws θ with PyTorch's default nn.Linear initialisation: every
// weight and bias of a layer with fan-in f is uniform on (−1/√f, 1/√f),
// with f = D for W1 and b1 and f = H for W2 and b2. Draws are taken in
// layout order (W1, b1, W2, b2), one rng.Float64() each, so the result is
// a deterministic function of the rng state (not bitwise PyTorch's, whose
// draw order differs). It panics if rng is nil.
func (m *MLP) Init(theta []float64, rng *rand.Rand) {
	checkLen("MLP.Init", "theta", len(theta), m.NumParams())
	if rng == nil {
		panic("models: MLP.Init: nil rng")
	}
	b1 := 1 / math.Sqrt(float64(m.D))
	b2 := 1 / math.Sqrt(float64(m.H))
	for i := range theta {
		bound := b1
		if i >= m.offW2() {
			bound = b2
		}
		theta[i] = bound * (2*rng.Float64() - 1)
	}
}

// CheckLabels returns an error if data does not have D features, or a
// label is not an integer in [0, K) (HeadSoftmaxCE) or not finite
// (HeadMSE).
func (m *MLP) CheckLabels(data *design.Data) error {
	if m == nil {
		return errNilModel("MLP", "NewMLP")
	}
	if err := checkDataErr("MLP", data, m.D); err != nil {
		return err
	}
	if m.Head == HeadSoftmaxCE {
		return checkClassLabels("MLP", data, m.K)
	}
	if i := valid.FirstNonFinite(data.Y); i >= 0 {
		return fmt.Errorf("models: MLP: label %v at row %d is not finite", data.Y[i], i)
	}
	return nil
}

// mlpScratch holds the per-row activations of one forward/backward pass.
type mlpScratch struct {
	a, h, dh, d1 []float64 // H: pre-activation, φ(a), φ'(a), δ1
	o            []float64 // K: outputs, then δ2
}

func (m *MLP) newScratch() *mlpScratch {
	hh := m.H
	buf := make([]float64, 4*hh+m.K)
	return &mlpScratch{a: buf[:hh], h: buf[hh : 2*hh], dh: buf[2*hh : 3*hh], d1: buf[3*hh : 4*hh], o: buf[4*hh:]}
}

// forward computes a, h = φ(a), φ'(a) and o for input x.
func (m *MLP) forward(theta, x []float64, s *mlpScratch) {
	hh, kk := m.H, m.K
	copy(s.a, theta[m.offB1():m.offB1()+hh])
	for j, v := range x {
		if v != 0 {
			axpy(v, theta[j*hh:j*hh+hh], s.a)
		}
	}
	for u, a := range s.a {
		s.h[u], s.dh[u] = m.Act.eval(a)
	}
	copy(s.o, theta[m.offB2():m.offB2()+kk])
	w2 := theta[m.offW2():m.offB2()]
	if kk == 1 {
		s.o[0] += dot(s.h, w2)
		return
	}
	for u, hu := range s.h {
		wu := w2[u*kk : u*kk+kk]
		for c := range s.o {
			s.o[c] += hu * wu[c]
		}
	}
}

// lossTerm returns ℓ from the outputs s.o for label y of row i.
func (m *MLP) lossTerm(s *mlpScratch, y float64, i int) float64 {
	return m.lossOf(s.o, y, i)
}

// lossOf returns ℓ from the outputs o for label y of row i.
func (m *MLP) lossOf(o []float64, y float64, i int) float64 {
	if m.Head == HeadMSE {
		r := o[0] - y
		return r * r
	}
	return logSumExp(o) - o[classOf(y, m.K, i)]
}

// mlpRowLoopMax is the largest number of rows handled by the per-row loops;
// larger batches use the batched matrix products of mlp_batched.go.
const mlpRowLoopMax = 32

// backward runs the forward pass on row i, overwrites s.o with δ2 and s.d1
// with δ1, and returns ℓ.
func (m *MLP) backward(theta []float64, data *design.Data, i int, s *mlpScratch) float64 {
	m.forward(theta, data.Row(i), s)
	y := data.Y[i]
	var loss float64
	if m.Head == HeadMSE {
		r := s.o[0] - y
		loss = r * r
		s.o[0] = 2 * r
	} else {
		c := classOf(y, m.K, i)
		oy := s.o[c]
		lse := softmaxInPlace(s.o)
		loss = lse - oy
		s.o[c]--
	}
	kk := m.K
	w2 := theta[m.offW2():m.offB2()]
	for u := range s.d1 {
		var g float64
		if kk == 1 {
			g = w2[u] * s.o[0]
		} else {
			wu := w2[u*kk : u*kk+kk]
			for c, dc := range s.o {
				g += wu[c] * dc
			}
		}
		s.d1[u] = s.dh[u] * g
	}
	return loss
}

// Predict writes the model output for one feature vector x (len D) into
// out (len K): class probabilities softmax(o) for HeadSoftmaxCE, the
// prediction o for HeadMSE.
func (m *MLP) Predict(theta, x, out []float64) {
	checkLen("MLP.Predict", "theta", len(theta), m.NumParams())
	checkLen("MLP.Predict", "x", len(x), m.D)
	checkLen("MLP.Predict", "out", len(out), m.K)
	s := m.newScratch()
	m.forward(theta, x, s)
	copy(out, s.o)
	if m.Head == HeadSoftmaxCE {
		softmaxInPlace(out)
	}
}

// HiddenFeatures writes the hidden activations φ(W₁ᵀx + b₁) of one
// feature vector x (len D) into out (len H): the penultimate-layer
// features (e.g. of a classifier used as a feature map for a Fréchet
// distance).
func (m *MLP) HiddenFeatures(theta, x, out []float64) {
	checkLen("MLP.HiddenFeatures", "theta", len(theta), m.NumParams())
	checkLen("MLP.HiddenFeatures", "x", len(x), m.D)
	checkLen("MLP.HiddenFeatures", "out", len(out), m.H)
	s := m.newScratch()
	m.forward(theta, x, s)
	copy(out, s.h)
}

func (m *MLP) check(method string, theta []float64, data *design.Data) {
	checkModel("MLP", method, theta, m.NumParams(), data, m.D)
}

// Loss returns (1/|idx|) Σ_{i∈idx} ℓ_i (idx nil: all rows). An empty
// non-nil idx gives NaN.
func (m *MLP) Loss(theta []float64, data *design.Data, idx []int) float64 {
	m.check("Loss", theta, data)
	n := numRows(data, idx)
	if n == 0 {
		return math.NaN()
	}
	if n > mlpRowLoopMax {
		var sum float64
		m.batchedForEachOutput(theta, data, idx, func(_, i int, o []float64) { sum += m.lossOf(o, data.Y[i], i) })
		return sum / float64(n)
	}
	s := m.newScratch()
	var sum float64
	for k := range n {
		i := rowIndex(idx, k)
		m.forward(theta, data.Row(i), s)
		sum += m.lossTerm(s, data.Y[i], i)
	}
	return sum / float64(n)
}

// GradSum adds Σ_{i∈idx} ∇ℓ_i into out (len P).
func (m *MLP) GradSum(theta []float64, data *design.Data, idx []int, out []float64) {
	m.check("GradSum", theta, data)
	checkLen("MLP.GradSum", "out", len(out), m.NumParams())
	m.gradSum(theta, data, idx, nil, out)
}

// WeightedGradSum adds Σ_k w_k ∇ℓ_{idx[k]} into out (len(w) = number of
// rows selected). With w_k = min(1, C/‖g_k‖) from PerExampleGradNorms this
// is the clipped DP-SGD sum without materialising per-example gradients.
func (m *MLP) WeightedGradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	m.check("WeightedGradSum", theta, data)
	checkLen("MLP.WeightedGradSum", "out", len(out), m.NumParams())
	checkLen("MLP.WeightedGradSum", "w", len(w), numRows(data, idx))
	m.gradSum(theta, data, idx, w, out)
}

// gradSum adds Σ_k w_k ∇ℓ_{idx[k]} into out; w nil means all weights 1.
// Batches of more than mlpRowLoopMax rows use the batched matrix products of
// mlp_batched.go; smaller ones the row loop below (same values up to rounding).
func (m *MLP) gradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	if numRows(data, idx) > mlpRowLoopMax {
		m.batchedGradSum(theta, data, idx, w, out)
		return
	}
	hh, kk := m.H, m.K
	n := numRows(data, idx)
	s := m.newScratch()
	gB1 := out[m.offB1():m.offW2()]
	gW2 := out[m.offW2():m.offB2()]
	gB2 := out[m.offB2():]
	for k := range n {
		i := rowIndex(idx, k)
		m.backward(theta, data, i, s)
		if w != nil {
			wk := w[k]
			for c := range s.o {
				s.o[c] *= wk
			}
			for u := range s.d1 {
				s.d1[u] *= wk
			}
		}
		for j, v := range data.Row(i) {
			if v != 0 {
				axpy(v, s.d1, out[j*hh:j*hh+hh])
			}
		}
		axpy(1, s.d1, gB1)
		if kk == 1 {
			axpy(s.o[0], s.h, gW2)
		} else {
			for u, hu := range s.h {
				g := gW2[u*kk : u*kk+kk]
				for c, dc := range s.o {
					g[c] += hu * dc
				}
			}
		}
		for c, dc := range s.o {
			gB2[c] += dc
		}
	}
}

// PerExampleGrads writes ∇ℓ_i = [vec(x_i δ1ᵀ); δ1; vec(h δ2ᵀ); δ2] for
// i = idx[k] into out[k*P:(k+1)*P].
func (m *MLP) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	m.check("PerExampleGrads", theta, data)
	p, hh, kk := m.NumParams(), m.H, m.K
	n := numRows(data, idx)
	checkLen("MLP.PerExampleGrads", "out", len(out), n*p)
	s := m.newScratch()
	for k := range n {
		i := rowIndex(idx, k)
		m.backward(theta, data, i, s)
		g := out[k*p : (k+1)*p]
		for j, v := range data.Row(i) {
			gj := g[j*hh : j*hh+hh]
			for u, du := range s.d1 {
				gj[u] = v * du
			}
		}
		copy(g[m.offB1():m.offW2()], s.d1)
		gW2 := g[m.offW2():m.offB2()]
		for u, hu := range s.h {
			gu := gW2[u*kk : u*kk+kk]
			for c, dc := range s.o {
				gu[c] = hu * dc
			}
		}
		copy(g[m.offB2():], s.o)
	}
}

// PerExampleGradNorms writes ‖∇ℓ_i‖₂ for i = idx[k] into out[k] with the
// ghost-norm identity ‖x δᵀ‖²_F = ‖x‖²‖δ‖²:
//
//	‖∇ℓ‖² = (‖x‖² + 1)‖δ1‖² + (‖h‖² + 1)‖δ2‖²,
//
// in O(forward pass) per row, without forming the P-vector.
func (m *MLP) PerExampleGradNorms(theta []float64, data *design.Data, idx []int, out []float64) {
	m.check("PerExampleGradNorms", theta, data)
	n := numRows(data, idx)
	checkLen("MLP.PerExampleGradNorms", "out", len(out), n)
	if n > mlpRowLoopMax {
		m.batchedGradNorms(theta, data, idx, out)
		return
	}
	s := m.newScratch()
	for k := range n {
		i := rowIndex(idx, k)
		m.backward(theta, data, i, s)
		ss := (sumSq(data.Row(i))+1)*sumSq(s.d1) + (sumSq(s.h)+1)*sumSq(s.o)
		out[k] = math.Sqrt(ss)
	}
}

// ClippedGradSum writes the per-example gradient norms and weights
// weight(norm) and adds the weighted gradient sum into out
// (ClippedGradSummer): PerExampleGradNorms then WeightedGradSum in one
// pass.
func (m *MLP) ClippedGradSum(theta []float64, data *design.Data, idx []int, weight func(float64) float64, norms, weights, out []float64) {
	m.check("ClippedGradSum", theta, data)
	n := numRows(data, idx)
	checkLen("MLP.ClippedGradSum", "out", len(out), m.NumParams())
	checkLen("MLP.ClippedGradSum", "norms", len(norms), n)
	checkLen("MLP.ClippedGradSum", "weights", len(weights), n)
	if n > mlpRowLoopMax {
		m.batchedClippedSum(theta, data, idx, weight, norms, weights, out)
		return
	}
	m.PerExampleGradNorms(theta, data, idx, norms)
	for k, v := range norms {
		weights[k] = weight(v)
	}
	m.gradSum(theta, data, idx, weights, out)
}

// Evaluate returns, over all rows: for HeadSoftmaxCE, Loss = mean
// cross-entropy, Accuracy = fraction of rows whose largest output
// (smallest index on ties) is the label, MSE = NaN; for HeadMSE, Loss =
// MSE = (1/N)Σ(o_i − y_i)², Accuracy = NaN.
func (m *MLP) Evaluate(theta []float64, data *design.Data) Metrics {
	m.check("Evaluate", theta, data)
	var sum float64
	correct := 0
	if data.N > mlpRowLoopMax {
		m.batchedForEachOutput(theta, data, nil, func(_, i int, o []float64) {
			y := data.Y[i]
			sum += m.lossOf(o, y, i)
			if m.Head == HeadSoftmaxCE && argmax(o) == int(y) {
				correct++
			}
		})
	} else {
		s := m.newScratch()
		for i := range data.N {
			m.forward(theta, data.Row(i), s)
			y := data.Y[i]
			sum += m.lossTerm(s, y, i)
			if m.Head == HeadSoftmaxCE && argmax(s.o) == int(y) {
				correct++
			}
		}
	}
	loss := sum / float64(data.N)
	if m.Head == HeadMSE {
		return Metrics{Loss: loss, Accuracy: math.NaN(), MSE: loss}
	}
	return Metrics{Loss: loss, Accuracy: float64(correct) / float64(data.N), MSE: math.NaN()}
}
