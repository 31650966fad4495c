package models

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/design"
)

// EmbedLogistic is the Criteo model of the Feature-DP paper
// (Sec. 6.2): logistic regression in which each categorical feature is a
// sparse embedding of dimension 1 (one scalar weight per category), plus numeric
// weights and a bias (ours):
//
//	z = b + Σ_j w_j x_j + Σ_c e_c[x_c],   ℓ = log(1 + e^z) − y·z,   y ∈ {0, 1}.
//
// Row layout: Numeric values, then one column per categorical feature
// holding the category index (0..Vocab[c]−1) as a float64. Parameter layout:
// w (Numeric), then e_0 (Vocab[0]), e_1, …, then b. With PublicOnly the
// categorical terms are dropped ("zero masking": ℓ_pub(θ; x) =
// logistic(w·x_n + b, y), the paper's public loss); LossDiff of a full and a
// PublicOnly model is then ℓ_priv = ℓ − ℓ_pub with ghost norm
// (r − r')²(‖x_n‖² + 1) + r²·C, r = σ(z) − y, r' = σ(z') − y.
// It is immutable and safe for concurrent use.
type EmbedLogistic struct {
	Numeric    int
	Vocab      []int
	PublicOnly bool
	offs       []int
	p          int
}

// NewEmbedLogistic returns the model. Errors: negative Numeric, a
// vocabulary size < 1, or no feature at all.
func NewEmbedLogistic(numeric int, vocab []int, publicOnly bool) (*EmbedLogistic, error) {
	if numeric < 0 || numeric+len(vocab) == 0 {
		return nil, fmt.Errorf("models: EmbedLogistic: %d numeric and %d categorical features", numeric, len(vocab))
	}
	m := &EmbedLogistic{Numeric: numeric, Vocab: append([]int(nil), vocab...), PublicOnly: publicOnly}
	off := numeric
	for c, v := range vocab {
		if v < 1 {
			return nil, fmt.Errorf("models: EmbedLogistic: vocabulary %d has size %d", c, v)
		}
		m.offs = append(m.offs, off)
		off += v
	}
	m.p = off + 1
	return m, nil
}

// NumParams returns Numeric + Σ Vocab + 1.
func (m *EmbedLogistic) NumParams() int { return m.p }

// NumFeatures returns Numeric + len(Vocab).
func (m *EmbedLogistic) NumFeatures() int { return m.Numeric + len(m.Vocab) }

// FeatureParams returns the weight of numeric feature j, or all embedding
// weights of categorical feature j − Numeric.
func (m *EmbedLogistic) FeatureParams(j int) []int {
	if j < 0 || j >= m.NumFeatures() {
		panic(fmt.Sprintf("models: EmbedLogistic.FeatureParams: feature %d out of range", j))
	}
	if j < m.Numeric {
		return []int{j}
	}
	c := j - m.Numeric
	return seq(m.offs[c], m.Vocab[c])
}

// Init sets θ = 0.
func (m *EmbedLogistic) Init(theta []float64, _ *rand.Rand) {
	checkLen("EmbedLogistic.Init", "theta", len(theta), m.p)
	clear(theta)
}

// CheckLabels checks the feature count, 0/1 labels and category indices.
func (m *EmbedLogistic) CheckLabels(data *design.Data) error {
	if m == nil {
		return errNilModel("EmbedLogistic", "NewEmbedLogistic")
	}
	if err := checkDataErr("EmbedLogistic", data, m.NumFeatures()); err != nil {
		return err
	}
	for i, y := range data.Y {
		if y != 0 && y != 1 {
			return fmt.Errorf("models: EmbedLogistic: label %v at row %d, want 0 or 1", y, i)
		}
		row := data.Row(i)
		for c, v := range m.Vocab {
			k := row[m.Numeric+c]
			if !(k >= 0 && k < float64(v)) || k != math.Trunc(k) {
				return fmt.Errorf("models: EmbedLogistic: row %d, categorical %d: index %v outside [0, %d)", i, c, k, v)
			}
		}
	}
	return nil
}

// logit returns z for row x.
func (m *EmbedLogistic) logit(theta, x []float64) float64 {
	z := theta[m.p-1]
	for j := range m.Numeric {
		z += theta[j] * x[j]
	}
	if !m.PublicOnly {
		for c, off := range m.offs {
			z += theta[off+int(x[m.Numeric+c])]
		}
	}
	return z
}

// resid returns r = σ(z) − y and the loss of row i.
func (m *EmbedLogistic) resid(theta []float64, data *design.Data, i int) (float64, float64) {
	z := m.logit(theta, data.Row(i))
	y := data.Y[i]
	return sigmoid(z) - y, softplus(z) - y*z
}

// Loss returns the mean logistic loss over idx.
func (m *EmbedLogistic) Loss(theta []float64, data *design.Data, idx []int) float64 {
	checkModel("EmbedLogistic", "Loss", theta, m.p, data, m.NumFeatures())
	n := numRows(data, idx)
	if n == 0 {
		return math.NaN()
	}
	var s float64
	for k := range n {
		_, l := m.resid(theta, data, rowIndex(idx, k))
		s += l
	}
	return s / float64(n)
}

// residual returns r = σ(z) − y of row i (resid without the loss).
func (m *EmbedLogistic) residual(theta []float64, data *design.Data, i int) float64 {
	return sigmoid(m.logit(theta, data.Row(i))) - data.Y[i]
}

// addGrad adds w·∇ℓ_i into out.
func (m *EmbedLogistic) addGrad(theta []float64, data *design.Data, i int, w float64, out []float64) {
	m.addResid(data, i, w*m.residual(theta, data, i), out)
}

// addResid adds r·(x_n, e_cats, 1), the gradient of row i with residual r,
// into out.
func (m *EmbedLogistic) addResid(data *design.Data, i int, r float64, out []float64) {
	x := data.Row(i)
	for j := range m.Numeric {
		out[j] += r * x[j]
	}
	if !m.PublicOnly {
		for c, off := range m.offs {
			out[off+int(x[m.Numeric+c])] += r
		}
	}
	out[m.p-1] += r
}

// GradSum adds Σ ∇ℓ_i into out.
func (m *EmbedLogistic) GradSum(theta []float64, data *design.Data, idx []int, out []float64) {
	checkModel("EmbedLogistic", "GradSum", theta, m.p, data, m.NumFeatures())
	checkLen("EmbedLogistic.GradSum", "out", len(out), m.p)
	for k := range numRows(data, idx) {
		m.addGrad(theta, data, rowIndex(idx, k), 1, out)
	}
}

// WeightedGradSum adds Σ_k w_k ∇ℓ_{idx[k]} into out.
func (m *EmbedLogistic) WeightedGradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	checkModel("EmbedLogistic", "WeightedGradSum", theta, m.p, data, m.NumFeatures())
	checkLen("EmbedLogistic.WeightedGradSum", "out", len(out), m.p)
	checkLen("EmbedLogistic.WeightedGradSum", "w", len(w), numRows(data, idx))
	for k, wk := range w {
		m.addGrad(theta, data, rowIndex(idx, k), wk, out)
	}
}

// PerExampleGrads writes each ∇ℓ_i (dense, P values per row).
func (m *EmbedLogistic) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	checkModel("EmbedLogistic", "PerExampleGrads", theta, m.p, data, m.NumFeatures())
	n := numRows(data, idx)
	checkLen("EmbedLogistic.PerExampleGrads", "out", len(out), n*m.p)
	clear(out)
	for k := range n {
		m.addGrad(theta, data, rowIndex(idx, k), 1, out[k*m.p:(k+1)*m.p])
	}
}

// numCats is the number of categorical terms in the logit.
func (m *EmbedLogistic) numCats() float64 {
	if m.PublicOnly {
		return 0
	}
	return float64(len(m.Vocab))
}

// PerExampleGradNorms writes |r_i|·√(‖x_n‖² + C + 1) (ghost norm; C = the
// number of categorical terms).
func (m *EmbedLogistic) PerExampleGradNorms(theta []float64, data *design.Data, idx []int, out []float64) {
	checkModel("EmbedLogistic", "PerExampleGradNorms", theta, m.p, data, m.NumFeatures())
	n := numRows(data, idx)
	checkLen("EmbedLogistic.PerExampleGradNorms", "out", len(out), n)
	for k := range n {
		i := rowIndex(idx, k)
		out[k] = m.ghostNorm(data, i, m.residual(theta, data, i))
	}
}

// ghostNorm is ‖∇ℓ_i‖ = |r|·√(‖x_n‖² + C + 1) for residual r.
func (m *EmbedLogistic) ghostNorm(data *design.Data, i int, r float64) float64 {
	return math.Abs(r) * math.Sqrt(sumSq(data.Row(i)[:m.Numeric])+m.numCats()+1)
}

// ClippedGradSum writes the per-example gradient norms and weights
// weight(norm) and adds the weighted gradient sum into out
// (ClippedGradSummer): PerExampleGradNorms then WeightedGradSum, each row's
// residual computed once.
func (m *EmbedLogistic) ClippedGradSum(theta []float64, data *design.Data, idx []int, weight func(float64) float64, norms, weights, out []float64) {
	checkModel("EmbedLogistic", "ClippedGradSum", theta, m.p, data, m.NumFeatures())
	n := numRows(data, idx)
	checkLen("EmbedLogistic.ClippedGradSum", "out", len(out), m.p)
	checkLen("EmbedLogistic.ClippedGradSum", "norms", len(norms), n)
	checkLen("EmbedLogistic.ClippedGradSum", "weights", len(weights), n)
	for k := range n {
		i := rowIndex(idx, k)
		r := m.residual(theta, data, i)
		norms[k] = m.ghostNorm(data, i, r)
		weights[k] = weight(norms[k])
		m.addResid(data, i, weights[k]*r, out)
	}
}

// diffNorms writes ‖∇ℓ(θ; x_i) − ∇ℓ_pub(θ; x'_i)‖ for two embedding
// models with the same layout (Full = m, Pub = pub); false if the layouts
// differ. The numeric part of the two rows must be equal (zero masking
// keeps the public numeric columns), which it checks per row.
func (m *EmbedLogistic) diffNorms(pub *EmbedLogistic, theta []float64, data, pubData *design.Data, idx []int, out []float64) bool {
	if m.Numeric != pub.Numeric || len(m.Vocab) != len(pub.Vocab) || m.p != pub.p {
		return false
	}
	for c, v := range m.Vocab {
		if pub.Vocab[c] != v {
			return false
		}
	}
	for k := range numRows(data, idx) {
		i := rowIndex(idx, k)
		x, xp := data.Row(i), pubData.Row(i)
		for j := range m.Numeric {
			if x[j] != xp[j] {
				return false
			}
		}
		if !pub.PublicOnly && !m.PublicOnly {
			for c := range m.Vocab {
				if x[m.Numeric+c] != xp[m.Numeric+c] {
					return false
				}
			}
		}
	}
	for k := range numRows(data, idx) {
		i := rowIndex(idx, k)
		r := m.residual(theta, data, i)
		rp := pub.residual(theta, pubData, i)
		a, ap := r, rp
		if m.PublicOnly {
			a = 0
		}
		if pub.PublicOnly {
			ap = 0
		}
		ss := (r-rp)*(r-rp)*(sumSq(data.Row(i)[:m.Numeric])+1) + (a-ap)*(a-ap)*float64(len(m.Vocab))
		out[k] = math.Sqrt(ss)
	}
	return true
}

// Evaluate returns the mean logistic loss and the 0.5-threshold accuracy.
func (m *EmbedLogistic) Evaluate(theta []float64, data *design.Data) Metrics {
	checkModel("EmbedLogistic", "Evaluate", theta, m.p, data, m.NumFeatures())
	var s float64
	correct := 0
	for i := range data.N {
		z := m.logit(theta, data.Row(i))
		y := data.Y[i]
		s += softplus(z) - y*z
		if (z > 0) == (y == 1) {
			correct++
		}
	}
	return Metrics{Loss: s / float64(data.N), Accuracy: float64(correct) / float64(data.N), MSE: math.NaN()}
}

// ReadsPublicPartOnly reports PublicOnly: the model then reads the numeric
// features and the label, never the categorical ones (PublicPart).
func (m *EmbedLogistic) ReadsPublicPartOnly() bool { return m.PublicOnly }

var (
	_ fullModel  = (*EmbedLogistic)(nil)
	_ PublicPart = (*EmbedLogistic)(nil)
)
