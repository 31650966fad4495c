package models

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/featuredp/featuredp/design"
)

// LossDiff is the private part of the feature-DP loss split:
//
//	ℓ_priv(θ; i) = ℓ(θ; x_i, y_i) − ℓ_pub(θ; Ψ(x_i), y_i),
//
// where Full is ℓ evaluated on the data passed to each method and Pub is
// ℓ_pub evaluated on row i of PubData (Ψ(X), or the padded g(Ψ(X)) of
// a padded view g(Ψ(X)): same rows, same order). Both models share θ. Used as
// mechanisms.Config.Model of Algorithm 1 it gives the engine per-example
// norms of ∇ℓ_priv without materialising gradients: the rank-2 ghost norm
// when both are *MLP of the same shape, else
// materialised per-example gradients; WeightedGradSum is
// Full.WeightedGradSum(w) − Pub.WeightedGradSum(w). Evaluate with Full, not
// with LossDiff.
type LossDiff struct {
	Full, Pub Model
	PubData   *design.Data

	mu   sync.Mutex
	memo *diffMemo // last MLP norm pass, reused by WeightedGradSum
}

// NewLossDiff validates and returns the difference model. Errors: nil
// models or data, different parameter counts, PubData not matching Pub's
// features, or models lacking WeightedGradSummer.
func NewLossDiff(full, pub Model, pubData *design.Data) (*LossDiff, error) {
	if full == nil || pub == nil {
		return nil, errors.New("models: LossDiff: nil model")
	}
	if pubData == nil || pubData.N <= 0 {
		return nil, errors.New("models: LossDiff: nil or empty public data")
	}
	if full.NumParams() != pub.NumParams() {
		return nil, fmt.Errorf("models: LossDiff: full model has %d parameters, public model %d", full.NumParams(), pub.NumParams())
	}
	if pubData.D != pub.NumFeatures() {
		return nil, fmt.Errorf("models: LossDiff: public data has %d features, public model expects %d", pubData.D, pub.NumFeatures())
	}
	if _, ok := full.(WeightedGradSummer); !ok {
		return nil, fmt.Errorf("models: LossDiff: %T has no WeightedGradSum", full)
	}
	if _, ok := pub.(WeightedGradSummer); !ok {
		return nil, fmt.Errorf("models: LossDiff: %T has no WeightedGradSum", pub)
	}
	if lc, ok := pub.(LabelChecker); ok {
		if err := lc.CheckLabels(pubData); err != nil {
			return nil, fmt.Errorf("models: LossDiff: public data: %w", err)
		}
	}
	return &LossDiff{Full: full, Pub: pub, PubData: pubData}, nil
}

// NumParams returns the shared parameter count.
func (m *LossDiff) NumParams() int { return m.Full.NumParams() }

// NumFeatures returns Full's feature count.
func (m *LossDiff) NumFeatures() int { return m.Full.NumFeatures() }

// FeatureParams returns Full's.
func (m *LossDiff) FeatureParams(j int) []int { return m.Full.FeatureParams(j) }

// Init delegates to Full (zeros if it has no Initializer).
func (m *LossDiff) Init(theta []float64, rng *rand.Rand) {
	if in, ok := m.Full.(Initializer); ok {
		in.Init(theta, rng)
		return
	}
	clear(theta)
}

// CheckLabels checks data against Full and that PubData has as many rows.
func (m *LossDiff) CheckLabels(data *design.Data) error {
	if m == nil {
		return errNilModel("LossDiff", "NewLossDiff")
	}
	if data == nil {
		return errors.New("models: LossDiff: nil data")
	}
	if data.N != m.PubData.N {
		return fmt.Errorf("models: LossDiff: data has %d rows, public data %d (Ψ(X) must have the same rows)", data.N, m.PubData.N)
	}
	if lc, ok := m.Full.(LabelChecker); ok {
		return lc.CheckLabels(data)
	}
	return nil
}

func (m *LossDiff) checkRows(method string, data *design.Data) {
	if data == nil || data.N != m.PubData.N {
		panic(fmt.Errorf("%w: LossDiff.%s: data rows do not match the public data's %d", ErrShape, method, m.PubData.N))
	}
}

// Loss returns mean ℓ − mean ℓ_pub over the rows idx.
func (m *LossDiff) Loss(theta []float64, data *design.Data, idx []int) float64 {
	m.checkRows("Loss", data)
	return m.Full.Loss(theta, data, idx) - m.Pub.Loss(theta, m.PubData, idx)
}

// GradSum adds Σ ∇ℓ_priv into out.
func (m *LossDiff) GradSum(theta []float64, data *design.Data, idx []int, out []float64) {
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
func (m *LossDiff) WeightedGradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	m.checkRows("WeightedGradSum", data)
	checkLen("LossDiff.WeightedGradSum", "w", len(w), numRows(data, idx))
	if f, p, ok := m.mlpPair(); ok {
		m.mu.Lock()
		memo := m.memo
		m.memo = nil
		m.mu.Unlock()
		if memo.matches(theta, data, idx) {
			checkLen("LossDiff.WeightedGradSum", "out", len(out), f.NumParams())
			diffWeightedSum(f, p, data, m.PubData, idx, w, out, memo)
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
func (m *LossDiff) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
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
func (m *LossDiff) PerExampleGradNorms(theta []float64, data *design.Data, idx []int, out []float64) {
	m.checkRows("PerExampleGradNorms", data)
	n := numRows(data, idx)
	checkLen("LossDiff.PerExampleGradNorms", "out", len(out), n)
	if f, p, ok := m.mlpPair(); ok {
		checkModel("LossDiff", "PerExampleGradNorms", theta, f.NumParams(), data, f.D)
		checkData("LossDiff.PerExampleGradNorms", m.PubData, p.D)
		m.mu.Lock()
		memo := m.memo
		m.memo = nil
		m.mu.Unlock()
		if memo == nil {
			memo = &diffMemo{}
		}
		diffNorms(f, p, theta, data, m.PubData, idx, out, memo)
		m.mu.Lock()
		m.memo = memo
		m.mu.Unlock()
		return
	}
	if f, ok := m.Full.(DiffGradNormer); ok && f.DiffGradNorms(m.Pub, theta, data, m.PubData, idx, out) {
		return
	}
	if f, ok := m.Full.(*EmbedLogistic); ok {
		if p, ok := m.Pub.(*EmbedLogistic); ok {
			checkModel("LossDiff", "PerExampleGradNorms", theta, f.NumParams(), data, f.NumFeatures())
			checkData("LossDiff.PerExampleGradNorms", m.PubData, p.NumFeatures())
			if f.diffNorms(p, theta, data, m.PubData, idx, out) {
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

// ClippedGradSum writes the norms and weights of ∇ℓ_priv and adds the
// weighted sum into out (ClippedGradSummer): in one fused pass when Full
// is a DiffClippedGradSummer that handles Pub, else PerExampleGradNorms
// followed by WeightedGradSum (the same bits as calling them in turn).
func (m *LossDiff) ClippedGradSum(theta []float64, data *design.Data, idx []int, weight func(float64) float64, norms, weights, out []float64) {
	m.checkRows("ClippedGradSum", data)
	if f, ok := m.Full.(DiffClippedGradSummer); ok && f.DiffClippedGradSum(m.Pub, theta, data, m.PubData, idx, weight, norms, weights, out) {
		return
	}
	m.PerExampleGradNorms(theta, data, idx, norms)
	checkLen("LossDiff.ClippedGradSum", "weights", len(weights), len(norms))
	for k, v := range norms {
		weights[k] = weight(v)
	}
	m.WeightedGradSum(theta, data, idx, weights, out)
}

// WithKey returns the difference of Full and Pub each with the same key
// (the shared draw of ℓ(x) − ℓ_pub(Ψ(x))); a loss that is not Stochastic
// is kept. Without a Stochastic loss it returns m itself.
func (m *LossDiff) WithKey(key uint64) Model {
	if !IsStochastic(m) {
		return m
	}
	withKey := func(l Model) Model {
		if s, ok := l.(Stochastic); ok {
			return s.WithKey(key)
		}
		return l
	}
	return &LossDiff{Full: withKey(m.Full), Pub: withKey(m.Pub), PubData: m.PubData}
}

// ReadsRowCount reports whether Full or Pub reads the data's row count
// (RowCountReader).
func (m *LossDiff) ReadsRowCount() bool { return ReadsRowCount(m.Full) || ReadsRowCount(m.Pub) }

// mlpPair returns Full and Pub as MLPs of the same shape, if they are.
func (m *LossDiff) mlpPair() (*MLP, *MLP, bool) {
	f, ok1 := m.Full.(*MLP)
	p, ok2 := m.Pub.(*MLP)
	if ok1 && ok2 && f.D == p.D && f.H == p.H && f.K == p.K {
		return f, p, true
	}
	return nil, nil, false
}

var (
	_ Model              = (*LossDiff)(nil)
	_ GradNormer         = (*LossDiff)(nil)
	_ WeightedGradSummer = (*LossDiff)(nil)
	_ ClippedGradSummer  = (*LossDiff)(nil)
	_ RowCountReader     = (*LossDiff)(nil)
	_ RowCountReader     = (*Linear)(nil)
)
