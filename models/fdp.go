package models

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/featuredp/featuredp/design"
)

// FDPLossPart selects which part of the label-DP split of the softmax loss
// an FDPLabelSoftmax computes (fdp.md §2.7, label-DP case study).
type FDPLossPart int

const (
	// FDPFull is the cross-entropy ℓ(W; x, y) = lse(Wᵀx) − w_yᵀx,
	// ∇ = x(p − e_y)ᵀ, ‖∇‖_F ≤ √2‖x‖.
	FDPFull FDPLossPart = iota
	// FDPPublic is ℓ_pub(W; x) = lse(Wᵀx), which does not read the label:
	// ∇ = x pᵀ, p = softmax(Wᵀx).
	FDPPublic
	// FDPPrivate is ℓ_priv(W; x, y) = ℓ − ℓ_pub = −w_yᵀx: ∇ = −x e_yᵀ,
	// independent of W, ‖∇‖_F = ‖x‖.
	FDPPrivate
)

// String names the part.
func (p FDPLossPart) String() string {
	switch p {
	case FDPFull:
		return "full"
	case FDPPublic:
		return "public"
	case FDPPrivate:
		return "private"
	}
	return fmt.Sprintf("FDPLossPart(%d)", int(p))
}

// FDPLabelSoftmax is bias-free softmax regression W ∈ R^{D×K} (layout: row
// j of W at θ[j·K:(j+1)·K], as Softmax without the bias) with the label-DP
// loss split of the paper's logistic case study (fdp.md §2.7; label DP is
// feature DP with Ψ(x, y) = x):
//
//	ℓ      = lse(Wᵀx) − w_yᵀx          (Part = FDPFull)
//	ℓ_pub  = lse(Wᵀx)                   (Part = FDPPublic, label not read)
//	ℓ_priv = −w_yᵀx                     (Part = FDPPrivate)
//
// so ℓ_pub + ℓ_priv = ℓ exactly, and with ‖x‖ ≤ 1 the private gradient has
// norm ≤ 1 while the full one has norm ≤ √2 (check A6). There is no bias,
// so that these Lipschitz constants are the paper's. Labels are class indices
// 0..K−1. It is immutable and safe for concurrent use.
type FDPLabelSoftmax struct {
	D, K int
	Part FDPLossPart
	// L2 is λ ≥ 0: the Full and Public parts carry (λ/2)‖W‖²_F per example
	// (it reads no private data, so it belongs to ℓ_pub and ℓ_priv is
	// unchanged); the objective is then λ-strongly convex (Thm 6, second
	// form). NewFDPLabelSoftmax sets 0.
	L2 float64
}

// NewFDPLabelSoftmax returns the model, or an error if d ≤ 0, k < 2 or the
// part is unknown.
func NewFDPLabelSoftmax(d, k int, part FDPLossPart) (*FDPLabelSoftmax, error) {
	if d <= 0 || k < 2 {
		return nil, fmt.Errorf("models: FDPLabelSoftmax: d = %d, k = %d, want d > 0, k ≥ 2", d, k)
	}
	if part < FDPFull || part > FDPPrivate {
		return nil, fmt.Errorf("models: FDPLabelSoftmax: unknown part %v", part)
	}
	return &FDPLabelSoftmax{D: d, K: k, Part: part}, nil
}

// NumParams returns D·K.
func (m *FDPLabelSoftmax) NumParams() int { return m.D * m.K }

// NumFeatures returns D.
func (m *FDPLabelSoftmax) NumFeatures() int { return m.D }

// FeatureParams returns the K indices of W[j, :].
func (m *FDPLabelSoftmax) FeatureParams(j int) []int {
	if j < 0 || j >= m.D {
		panic(fmt.Sprintf("models: FDPLabelSoftmax.FeatureParams: feature %d out of range [0, %d)", j, m.D))
	}
	return seq(j*m.K, m.K)
}

// Init sets θ = 0 (rng unused).
func (m *FDPLabelSoftmax) Init(theta []float64, _ *rand.Rand) {
	checkLen("FDPLabelSoftmax.Init", "theta", len(theta), m.NumParams())
	clear(theta)
}

// CheckLabels returns an error unless data has D features and class labels
// in [0, K).
func (m *FDPLabelSoftmax) CheckLabels(data *design.Data) error {
	if err := checkDataErr("FDPLabelSoftmax", data, m.D); err != nil {
		return err
	}
	return checkClassLabels("FDPLabelSoftmax", data, m.K)
}

// logits writes z = Wᵀx into z.
func (m *FDPLabelSoftmax) logits(theta, x, z []float64) {
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
func (m *FDPLabelSoftmax) l2Term(theta []float64) float64 {
	if m.L2 == 0 || m.Part == FDPPrivate {
		return 0
	}
	return 0.5 * m.L2 * sumSq(theta)
}

// addL2 adds c·λ·W into out for the Full and Public parts.
func (m *FDPLabelSoftmax) addL2(theta, out []float64, c float64) {
	if m.L2 == 0 || m.Part == FDPPrivate || c == 0 {
		return
	}
	axpy(c*m.L2, theta, out)
}

// term computes the loss of row i (without the L2 term) and, into z, the
// output error δ with ∇ = x δᵀ (+ λW).
func (m *FDPLabelSoftmax) term(theta []float64, data *design.Data, i int, z []float64) float64 {
	x := data.Row(i)
	var c int
	if m.Part != FDPPublic {
		c = classOf(data.Y[i], m.K, i)
	}
	if m.Part == FDPPrivate {
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
	if m.Part == FDPPublic {
		return lse
	}
	z[c]--
	return lse - zy
}

// Loss returns the mean loss of the part over the rows idx.
func (m *FDPLabelSoftmax) Loss(theta []float64, data *design.Data, idx []int) float64 {
	checkModel("FDPLabelSoftmax", "Loss", theta, m.NumParams(), data, m.D)
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
func (m *FDPLabelSoftmax) GradSum(theta []float64, data *design.Data, idx []int, out []float64) {
	m.WeightedGradSum(theta, data, idx, nil, out)
}

// WeightedGradSum adds Σ_k w_k x_i δ_iᵀ into out (w nil: all ones).
func (m *FDPLabelSoftmax) WeightedGradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	checkModel("FDPLabelSoftmax", "WeightedGradSum", theta, m.NumParams(), data, m.D)
	checkLen("FDPLabelSoftmax.WeightedGradSum", "out", len(out), m.NumParams())
	n := numRows(data, idx)
	if w != nil {
		checkLen("FDPLabelSoftmax.WeightedGradSum", "w", len(w), n)
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
func (m *FDPLabelSoftmax) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	checkModel("FDPLabelSoftmax", "PerExampleGrads", theta, m.NumParams(), data, m.D)
	p, n := m.NumParams(), numRows(data, idx)
	checkLen("FDPLabelSoftmax.PerExampleGrads", "out", len(out), n*p)
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
func (m *FDPLabelSoftmax) PerExampleGradNorms(theta []float64, data *design.Data, idx []int, out []float64) {
	checkModel("FDPLabelSoftmax", "PerExampleGradNorms", theta, m.NumParams(), data, m.D)
	n := numRows(data, idx)
	checkLen("FDPLabelSoftmax.PerExampleGradNorms", "out", len(out), n)
	z := make([]float64, m.K)
	lam := m.L2
	if m.Part == FDPPrivate {
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
func (m *FDPLabelSoftmax) Evaluate(theta []float64, data *design.Data) Metrics {
	checkModel("FDPLabelSoftmax", "Evaluate", theta, m.NumParams(), data, m.D)
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

// FDPDiff is the private part of the feature-DP loss split (fdp.md §2.1):
//
//	ℓ_priv(θ; i) = ℓ(θ; x_i, y_i) − ℓ_pub(θ; Ψ(x_i), y_i),
//
// where Full is ℓ evaluated on the data passed to each method and Pub is
// ℓ_pub evaluated on row i of PubData (Ψ(X), or the padded g(Ψ(X)) of
// FDPGaussianPadding: same rows, same order). Both models share θ. Used as
// mechanisms.Config.Model of Algorithm 1 it gives the engine per-example
// norms of ∇ℓ_priv without materialising gradients: the rank-2 ghost norm
// when both are *MLP of the same shape (fdp.md §4.2 item 4), else
// materialised per-example gradients; WeightedGradSum is
// Full.WeightedGradSum(w) − Pub.WeightedGradSum(w). Evaluate with Full, not
// with FDPDiff.
type FDPDiff struct {
	Full, Pub Model
	PubData   *design.Data

	mu   sync.Mutex
	memo *fdpDiffMemo // last MLP norm pass, reused by WeightedGradSum
}

// NewFDPDiff validates and returns the difference model. Errors: nil
// models or data, different parameter counts, PubData not matching Pub's
// features, or models lacking WeightedGradSummer.
func NewFDPDiff(full, pub Model, pubData *design.Data) (*FDPDiff, error) {
	if full == nil || pub == nil {
		return nil, errors.New("models: FDPDiff: nil model")
	}
	if pubData == nil || pubData.N <= 0 {
		return nil, errors.New("models: FDPDiff: nil or empty public data")
	}
	if full.NumParams() != pub.NumParams() {
		return nil, fmt.Errorf("models: FDPDiff: full model has %d parameters, public model %d", full.NumParams(), pub.NumParams())
	}
	if pubData.D != pub.NumFeatures() {
		return nil, fmt.Errorf("models: FDPDiff: public data has %d features, public model expects %d", pubData.D, pub.NumFeatures())
	}
	if _, ok := full.(WeightedGradSummer); !ok {
		return nil, fmt.Errorf("models: FDPDiff: %T has no WeightedGradSum", full)
	}
	if _, ok := pub.(WeightedGradSummer); !ok {
		return nil, fmt.Errorf("models: FDPDiff: %T has no WeightedGradSum", pub)
	}
	if lc, ok := pub.(LabelChecker); ok {
		if err := lc.CheckLabels(pubData); err != nil {
			return nil, fmt.Errorf("models: FDPDiff: public data: %w", err)
		}
	}
	return &FDPDiff{Full: full, Pub: pub, PubData: pubData}, nil
}

// NumParams returns the shared parameter count.
func (m *FDPDiff) NumParams() int { return m.Full.NumParams() }

// NumFeatures returns Full's feature count.
func (m *FDPDiff) NumFeatures() int { return m.Full.NumFeatures() }

// FeatureParams returns Full's.
func (m *FDPDiff) FeatureParams(j int) []int { return m.Full.FeatureParams(j) }

// Init delegates to Full (zeros if it has no Initializer).
func (m *FDPDiff) Init(theta []float64, rng *rand.Rand) {
	if in, ok := m.Full.(Initializer); ok {
		in.Init(theta, rng)
		return
	}
	clear(theta)
}

// CheckLabels checks data against Full and that PubData has as many rows.
func (m *FDPDiff) CheckLabels(data *design.Data) error {
	if data == nil {
		return errors.New("models: FDPDiff: nil data")
	}
	if data.N != m.PubData.N {
		return fmt.Errorf("models: FDPDiff: data has %d rows, public data %d (Ψ(X) must have the same rows)", data.N, m.PubData.N)
	}
	if lc, ok := m.Full.(LabelChecker); ok {
		return lc.CheckLabels(data)
	}
	return nil
}

func (m *FDPDiff) checkRows(method string, data *design.Data) {
	if data == nil || data.N != m.PubData.N {
		panic(fmt.Errorf("%w: FDPDiff.%s: data rows do not match the public data's %d", ErrShape, method, m.PubData.N))
	}
}

// Loss returns mean ℓ − mean ℓ_pub over the rows idx.
func (m *FDPDiff) Loss(theta []float64, data *design.Data, idx []int) float64 {
	m.checkRows("Loss", data)
	return m.Full.Loss(theta, data, idx) - m.Pub.Loss(theta, m.PubData, idx)
}

// GradSum adds Σ ∇ℓ_priv into out.
func (m *FDPDiff) GradSum(theta []float64, data *design.Data, idx []int, out []float64) {
	m.checkRows("GradSum", data)
	n := numRows(data, idx)
	neg := make([]float64, n)
	for k := range neg {
		neg[k] = -1
	}
	m.Full.GradSum(theta, data, idx, out)
	m.Pub.(WeightedGradSummer).WeightedGradSum(theta, m.PubData, idx, neg, out)
}

// WeightedGradSum adds Σ_k w_k ∇ℓ_priv(θ; i_k) into out.
func (m *FDPDiff) WeightedGradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	m.checkRows("WeightedGradSum", data)
	checkLen("FDPDiff.WeightedGradSum", "w", len(w), numRows(data, idx))
	if f, p, ok := m.mlpPair(); ok {
		m.mu.Lock()
		memo := m.memo
		m.memo = nil
		m.mu.Unlock()
		if memo.matches(theta, idx) {
			checkLen("FDPDiff.WeightedGradSum", "out", len(out), f.NumParams())
			fdpDiffWeightedSum(f, p, data, m.PubData, idx, w, out, memo)
			m.mu.Lock()
			if m.memo == nil {
				m.memo = memo
			}
			m.mu.Unlock()
			return
		}
	}
	neg := make([]float64, len(w))
	for k, v := range w {
		neg[k] = -v
	}
	m.Full.(WeightedGradSummer).WeightedGradSum(theta, data, idx, w, out)
	m.Pub.(WeightedGradSummer).WeightedGradSum(theta, m.PubData, idx, neg, out)
}

// PerExampleGrads writes ∇ℓ(θ; x_i) − ∇ℓ_pub(θ; Ψ(x_i)).
func (m *FDPDiff) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	m.checkRows("PerExampleGrads", data)
	m.Full.PerExampleGrads(theta, data, idx, out)
	tmp := make([]float64, len(out))
	m.Pub.PerExampleGrads(theta, m.PubData, idx, tmp)
	for j, v := range tmp {
		out[j] -= v
	}
}

// PerExampleGradNorms writes ‖∇ℓ_priv(θ; i)‖: the rank-2 ghost norm for two
// MLPs of the same shape, else from materialised gradients (64 rows at a
// time).
func (m *FDPDiff) PerExampleGradNorms(theta []float64, data *design.Data, idx []int, out []float64) {
	m.checkRows("PerExampleGradNorms", data)
	n := numRows(data, idx)
	checkLen("FDPDiff.PerExampleGradNorms", "out", len(out), n)
	if f, p, ok := m.mlpPair(); ok {
		checkModel("FDPDiff", "PerExampleGradNorms", theta, f.NumParams(), data, f.D)
		checkData("FDPDiff.PerExampleGradNorms", m.PubData, p.D)
		m.mu.Lock()
		memo := m.memo
		m.memo = nil
		m.mu.Unlock()
		if memo == nil {
			memo = &fdpDiffMemo{}
		}
		fdpDiffNorms(f, p, theta, data, m.PubData, idx, out, memo)
		m.mu.Lock()
		m.memo = memo
		m.mu.Unlock()
		return
	}
	if f, ok := m.Full.(*FDPEmbedLogistic); ok {
		if p, ok := m.Pub.(*FDPEmbedLogistic); ok {
			checkModel("FDPDiff", "PerExampleGradNorms", theta, f.NumParams(), data, f.NumFeatures())
			checkData("FDPDiff.PerExampleGradNorms", m.PubData, p.NumFeatures())
			if f.fdpDiffNorms(p, theta, data, m.PubData, idx, out) {
				return
			}
		}
	}
	const chunk = 64
	np := m.NumParams()
	buf := make([]float64, min(n, chunk)*np)
	sub := make([]int, 0, chunk)
	for start := 0; start < n; start += chunk {
		sub = sub[:0]
		for k := start; k < min(n, start+chunk); k++ {
			sub = append(sub, rowIndex(idx, k))
		}
		g := buf[:len(sub)*np]
		m.PerExampleGrads(theta, data, sub, g)
		for r := range sub {
			out[start+r] = math.Sqrt(sumSq(g[r*np : (r+1)*np]))
		}
	}
}

// mlpPair returns Full and Pub as MLPs of the same shape, if they are.
func (m *FDPDiff) mlpPair() (*MLP, *MLP, bool) {
	f, ok1 := m.Full.(*MLP)
	p, ok2 := m.Pub.(*MLP)
	if ok1 && ok2 && f.D == p.D && f.H == p.H && f.K == p.K {
		return f, p, true
	}
	return nil, nil, false
}

// FDPGaussianPadding builds the padded public surrogate input of the
// paper's Purchase100 experiment (fdp.md §3.2): g(Ψ(x)) keeps the public
// columns of each row and fills every other column with an independent
// N(0, 1) draw from rng (one fixed draw per row and column, so that
// ℓ_pub + ℓ_priv = ℓ exactly for each row — check A6; the paper does not say
// whether the padding is redrawn, see fdp.md §6 item 4). The noise is
// independent of the private data, so the padded matrix is public. Labels
// are copied (the label is public in the Purchase100 setting).
//
// Errors: nil data or rng, a public column out of range or repeated.
func FDPGaussianPadding(data *design.Data, public []int, rng *rand.Rand) (*design.Data, error) {
	if rng == nil {
		return nil, errors.New("models: FDPGaussianPadding: nil rng")
	}
	return fdpSurrogate("FDPGaussianPadding", data, public, rng.NormFloat64)
}

// FDPZeroMasking is the zero-masking public surrogate input of the Criteo
// experiment (fdp.md §3.3): the public columns are kept and every other
// column is set to 0. Errors as FDPGaussianPadding (no rng needed).
func FDPZeroMasking(data *design.Data, public []int) (*design.Data, error) {
	return fdpSurrogate("FDPZeroMasking", data, public, func() float64 { return 0 })
}

// fdpSurrogate validates the public column set (in range, no repeats) and
// returns a copy of data whose public columns are kept and whose other
// columns are filled by fill(), drawn in row-major order.
func fdpSurrogate(name string, data *design.Data, public []int, fill func() float64) (*design.Data, error) {
	if data == nil || data.N <= 0 || data.D <= 0 {
		return nil, fmt.Errorf("models: %s: nil or empty data", name)
	}
	keep := make([]bool, data.D)
	for _, j := range public {
		if j < 0 || j >= data.D {
			return nil, fmt.Errorf("models: %s: public column %d out of range [0, %d)", name, j, data.D)
		}
		if keep[j] {
			return nil, fmt.Errorf("models: %s: public column %d repeated", name, j)
		}
		keep[j] = true
	}
	x := make([]float64, len(data.X))
	for i := range data.N {
		for j := range data.D {
			if keep[j] {
				x[i*data.D+j] = data.X[i*data.D+j]
			} else {
				x[i*data.D+j] = fill()
			}
		}
	}
	return &design.Data{X: x, Y: append([]float64(nil), data.Y...), N: data.N, D: data.D}, nil
}

var (
	_ fullModel          = (*FDPLabelSoftmax)(nil)
	_ Model              = (*FDPDiff)(nil)
	_ GradNormer         = (*FDPDiff)(nil)
	_ WeightedGradSummer = (*FDPDiff)(nil)
)
