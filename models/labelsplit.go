package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/design"
)

// LossPart selects which part of the label-DP split of the softmax loss
// a LabelSplitSoftmax computes (docs/feature-dp.md, label-DP case study).
type LossPart int

const (
	// PartFull is the cross-entropy ℓ(W; x, y) = lse(Wᵀx) − w_yᵀx,
	// ∇ = x(p − e_y)ᵀ, ‖∇‖_F ≤ √2‖x‖.
	PartFull LossPart = iota
	// PartPublic is ℓ_pub(W; x) = lse(Wᵀx), which does not read the label:
	// ∇ = x pᵀ, p = softmax(Wᵀx).
	PartPublic
	// PartPrivate is ℓ_priv(W; x, y) = ℓ − ℓ_pub = −w_yᵀx: ∇ = −x e_yᵀ,
	// independent of W, ‖∇‖_F = ‖x‖.
	PartPrivate
)

// String names the part.
func (p LossPart) String() string {
	switch p {
	case PartFull:
		return "full"
	case PartPublic:
		return "public"
	case PartPrivate:
		return "private"
	}
	return fmt.Sprintf("LossPart(%d)", int(p))
}

// LabelSplitSoftmax is bias-free softmax regression W ∈ R^{D×K} (layout: row
// j of W at θ[j·K:(j+1)·K], as Softmax without the bias) with the label-DP
// loss split of the paper's logistic case study (docs/feature-dp.md; label DP is
// feature DP with Ψ(x, y) = x):
//
//	ℓ      = lse(Wᵀx) − w_yᵀx          (Part = PartFull)
//	ℓ_pub  = lse(Wᵀx)                   (Part = PartPublic, label not read)
//	ℓ_priv = −w_yᵀx                     (Part = PartPrivate)
//
// so ℓ_pub + ℓ_priv = ℓ exactly, and with ‖x‖ ≤ 1 the private gradient has
// norm ≤ 1 while the full one has norm ≤ √2. There is no bias,
// so that these Lipschitz constants are the paper's. Labels are class indices
// 0..K−1. It is immutable and safe for concurrent use.
type LabelSplitSoftmax struct {
	D, K int
	Part LossPart
	// L2 is λ ≥ 0: the Full and Public parts carry (λ/2)‖W‖²_F per example
	// (it reads no private data, so it belongs to ℓ_pub and ℓ_priv is
	// unchanged); the objective is then λ-strongly convex (Thm 6, second
	// form). NewLabelSplitSoftmax sets 0.
	L2 float64
}

// NewLabelSplitSoftmax returns the model, or an error if d ≤ 0, k < 2 or the
// part is unknown.
func NewLabelSplitSoftmax(d, k int, part LossPart) (*LabelSplitSoftmax, error) {
	if d <= 0 || k < 2 {
		return nil, fmt.Errorf("models: LabelSplitSoftmax: d = %d, k = %d, want d > 0, k ≥ 2", d, k)
	}
	if part < PartFull || part > PartPrivate {
		return nil, fmt.Errorf("models: LabelSplitSoftmax: unknown part %v", part)
	}
	return &LabelSplitSoftmax{D: d, K: k, Part: part}, nil
}

// NumParams returns D·K.
func (m *LabelSplitSoftmax) NumParams() int { return m.D * m.K }

// NumFeatures returns D.
func (m *LabelSplitSoftmax) NumFeatures() int { return m.D }

// FeatureParams returns the K indices of W[j, :].
func (m *LabelSplitSoftmax) FeatureParams(j int) []int {
	if j < 0 || j >= m.D {
		panic(fmt.Sprintf("models: LabelSplitSoftmax.FeatureParams: feature %d out of range [0, %d)", j, m.D))
	}
	return seq(j*m.K, m.K)
}

// Init sets θ = 0 (rng unused).
func (m *LabelSplitSoftmax) Init(theta []float64, _ *rand.Rand) {
	checkLen("LabelSplitSoftmax.Init", "theta", len(theta), m.NumParams())
	clear(theta)
}

// CheckLabels returns an error unless data has D features and class labels
// in [0, K).
func (m *LabelSplitSoftmax) CheckLabels(data *design.Data) error {
	if m == nil {
		return errNilModel("LabelSplitSoftmax", "NewLabelSplitSoftmax")
	}
	if err := checkDataErr("LabelSplitSoftmax", data, m.D); err != nil {
		return err
	}
	return checkClassLabels("LabelSplitSoftmax", data, m.K)
}

// logits writes z = Wᵀx into z.
func (m *LabelSplitSoftmax) logits(theta, x, z []float64) {
	clear(z)
	k := m.K
	for j, v := range x {
		if v != 0 {
			w := theta[j*k : (j+1)*k]
			for c := range z {
				z[c] += v * w[c]
			}
		}
	}
}

// l2Term returns (λ/2)‖W‖² for the Full and Public parts (0 otherwise).
func (m *LabelSplitSoftmax) l2Term(theta []float64) float64 {
	if m.L2 == 0 || m.Part == PartPrivate {
		return 0
	}
	return 0.5 * m.L2 * sumSq(theta)
}

// addL2 adds c·λ·W into out for the Full and Public parts.
func (m *LabelSplitSoftmax) addL2(theta, out []float64, c float64) {
	if m.L2 == 0 || m.Part == PartPrivate || c == 0 {
		return
	}
	axpy(c*m.L2, theta, out)
}

// term computes the loss of row i (without the L2 term) and, into z, the
// output error δ with ∇ = x δᵀ (+ λW).
func (m *LabelSplitSoftmax) term(theta []float64, data *design.Data, i int, z []float64) float64 {
	x := data.Row(i)
	var c int
	if m.Part != PartPublic {
		c = classOf(data.Y[i], m.K, i)
	}
	if m.Part == PartPrivate {
		var zy float64
		for j, v := range x {
			zy += v * theta[j*m.K+c]
		}
		clear(z)
		z[c] = -1
		return -zy
	}
	m.logits(theta, x, z)
	zy := z[c]
	lse := softmaxInPlace(z)
	if m.Part == PartPublic {
		return lse
	}
	z[c]--
	return lse - zy
}

// Loss returns the mean loss of the part over the rows idx.
func (m *LabelSplitSoftmax) Loss(theta []float64, data *design.Data, idx []int) float64 {
	checkModel("LabelSplitSoftmax", "Loss", theta, m.NumParams(), data, m.D)
	n := numRows(data, idx)
	if n == 0 {
		return math.NaN()
	}
	z := make([]float64, m.K)
	var s float64
	for k := range n {
		s += m.term(theta, data, rowIndex(idx, k), z)
	}
	return s/float64(n) + m.l2Term(theta)
}

// GradSum adds Σ ∇ℓ_i into out.
func (m *LabelSplitSoftmax) GradSum(theta []float64, data *design.Data, idx []int, out []float64) {
	m.WeightedGradSum(theta, data, idx, nil, out)
}

// WeightedGradSum adds Σ_k w_k x_i δ_iᵀ into out (w nil: all ones).
func (m *LabelSplitSoftmax) WeightedGradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	checkModel("LabelSplitSoftmax", "WeightedGradSum", theta, m.NumParams(), data, m.D)
	checkLen("LabelSplitSoftmax.WeightedGradSum", "out", len(out), m.NumParams())
	n := numRows(data, idx)
	if w != nil {
		checkLen("LabelSplitSoftmax.WeightedGradSum", "w", len(w), n)
	}
	if m.batched(n) {
		m.batchedWeightedGradSum(theta, data, idx, w, out)
		return
	}
	z := make([]float64, m.K)
	for k := range n {
		i := rowIndex(idx, k)
		m.term(theta, data, i, z)
		wk := 1.0
		if w != nil {
			wk = w[k]
		}
		m.addL2(theta, out, wk)
		for j, v := range data.Row(i) {
			if v != 0 {
				a := wk * v
				o := out[j*m.K : (j+1)*m.K]
				for c, zc := range z {
					o[c] += a * zc
				}
			}
		}
	}
}

// PerExampleGrads writes vec(x_i δ_iᵀ) for each selected row.
func (m *LabelSplitSoftmax) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	checkModel("LabelSplitSoftmax", "PerExampleGrads", theta, m.NumParams(), data, m.D)
	p, n := m.NumParams(), numRows(data, idx)
	checkLen("LabelSplitSoftmax.PerExampleGrads", "out", len(out), n*p)
	z := make([]float64, m.K)
	for k := range n {
		i := rowIndex(idx, k)
		m.term(theta, data, i, z)
		g := out[k*p : (k+1)*p]
		for j, v := range data.Row(i) {
			for c, dc := range z {
				g[j*m.K+c] = v * dc
			}
		}
		m.addL2(theta, g, 1)
	}
}

// PerExampleGradNorms writes ‖x_i δ_iᵀ (+ λW)‖ (ghost norm; with L2 > 0
// ‖xδᵀ + λW‖² = ‖x‖²‖δ‖² + 2λ xᵀWδ + λ²‖W‖²).
func (m *LabelSplitSoftmax) PerExampleGradNorms(theta []float64, data *design.Data, idx []int, out []float64) {
	checkModel("LabelSplitSoftmax", "PerExampleGradNorms", theta, m.NumParams(), data, m.D)
	n := numRows(data, idx)
	checkLen("LabelSplitSoftmax.PerExampleGradNorms", "out", len(out), n)
	z := make([]float64, m.K)
	lam := m.L2
	if m.Part == PartPrivate {
		lam = 0
	}
	ww := sumSq(theta)
	for k := range n {
		i := rowIndex(idx, k)
		m.term(theta, data, i, z)
		x := data.Row(i)
		ss := sumSq(x) * sumSq(z)
		if lam != 0 {
			var xwd float64
			for j, v := range x {
				xwd += v * dot(theta[j*m.K:(j+1)*m.K], z)
			}
			ss += 2*lam*xwd + lam*lam*ww
		}
		out[k] = math.Sqrt(math.Max(ss, 0))
	}
}

// Evaluate returns the mean cross-entropy (whatever the Part: the metric is
// always the full loss) and the argmax accuracy.
func (m *LabelSplitSoftmax) Evaluate(theta []float64, data *design.Data) Metrics {
	checkModel("LabelSplitSoftmax", "Evaluate", theta, m.NumParams(), data, m.D)
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
	return Metrics{Loss: s / float64(data.N), Accuracy: float64(correct) / float64(data.N), MSE: math.NaN()}
}

// ReadsPublicPartOnly reports Part == PartPublic: ℓ_pub = lse(Wᵀx) never
// reads the label (PublicPart; label DP's public part is x).
func (m *LabelSplitSoftmax) ReadsPublicPartOnly() bool { return m.Part == PartPublic }

var (
	_ fullModel  = (*LabelSplitSoftmax)(nil)
	_ PublicPart = (*LabelSplitSoftmax)(nil)
)
