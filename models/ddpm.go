package models

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/design"
)

// DDPM is the training loss of a denoising diffusion probabilistic model
// with ε-prediction (Ho, Jain and Abbeel 2020, "Denoising Diffusion
// Probabilistic Models", Eq. 14) and an MLP denoiser:
//
//	ℓ(θ; x₀, c) = (1/P)‖ε − f_θ(√ᾱ_t·x₀ + √(1−ᾱ_t)·ε, t, c)‖²,
//	t ~ U{0, …, T−1},  ε ~ N(0, I_P),  ᾱ_t = Π_{s≤t}(1 − β_s),
//	β_t linear from BetaMin to BetaMax,
//	f_θ(u) = W₃ s(W₂ s(W₁u + b₁) + b₂ + C₂[c]) + b₃,  u = [x_t, emb(t), onehot(c)],
//
// with s the SiLU a·σ(a), emb(t) the sinusoidal embedding of Vaswani et
// al. (E/2 sines and E/2 cosines of t·10000^(−2j/E)) and onehot(c) the
// class (absent when Classes = 0: unconditional). The one-hot input is a
// learned bias per class on the first hidden layer; with ClassEveryLayer
// the second hidden layer gets its own, the row C₂[c] of a Classes×H
// matrix (absent otherwise), so that the class reaches every hidden layer
// as the class embedding reaches every block of a class-conditional U-Net.
// A data row is x₀ (P pixels, scaled to [−1, 1]) and its label c.
//
// The draw (t, ε) of a row is the loss's own randomness: it is a function
// of Key and the row's index in the data (a PCG stream seeded by both), so
// every method evaluates the same ℓ for a given key, the same row of a
// public view Ψ(X) gets the same (t, ε) (the shared draw of the feature-DP
// loss difference ℓ(x) − ℓ_pub(Ψ(x))), and results do not depend on how
// rows are split across goroutines. The training engine gives the model a
// fresh key every step (Stochastic.WithKey). The draw is not privacy noise:
// clipping bounds every per-example gradient whatever (t, ε) is.
//
// Parameter layout: W₁ (H×Din, row-major, Din = P+E+Classes), b₁ (H), W₂
// (H×H), b₂ (H), C₂ (Classes×H, row-major; only with ClassEveryLayer and
// Classes > 0), W₃ (P×H), b₃ (P).
type DDPM struct {
	// P is the number of pixels, Classes the number of classes (0:
	// unconditional), Hidden the width H of both hidden layers, Embed the
	// even dimension E of the time embedding and Steps the number T of
	// diffusion steps.
	P, Classes, Hidden, Embed, Steps int
	// ClassEveryLayer adds the class bias C₂[c] to the second hidden layer
	// (see the type comment; it has no effect when Classes = 0). It changes
	// the parameter layout: set it before NumParams, Init or training.
	ClassEveryLayer bool
	// Key fixes the draws (t, ε) of every row (see WithKey).
	Key uint64

	betas, alphaBar []float64 // β_t and ᾱ_t, t = 0..T−1
	emb             []float64 // T×E sinusoidal embeddings
}

// NewDDPM returns the DDPM loss for images of p pixels, the given classes
// (0: unconditional), hidden width, time-embedding dimension (even) and
// diffusion steps, with β linear from betaMin to betaMax (0 < betaMin ≤
// betaMax < 1). The feature-DP paper's stand-in uses
// NewDDPM(196, 10, 256, 32, 200, 1e-4, 0.02).
func NewDDPM(p, classes, hidden, embed, steps int, betaMin, betaMax float64) (*DDPM, error) {
	switch {
	case p <= 0 || hidden <= 0 || steps <= 0:
		return nil, fmt.Errorf("models: NewDDPM: pixels %d, hidden %d and steps %d must be ≥ 1", p, hidden, steps)
	case classes < 0:
		return nil, fmt.Errorf("models: NewDDPM: %d classes, want ≥ 0 (0 = unconditional)", classes)
	case embed < 0 || embed%2 != 0:
		return nil, fmt.Errorf("models: NewDDPM: time embedding dimension %d, want even ≥ 0", embed)
	case !(betaMin > 0 && betaMin <= betaMax && betaMax < 1):
		return nil, fmt.Errorf("models: NewDDPM: β from %v to %v, want 0 < βmin ≤ βmax < 1", betaMin, betaMax)
	}
	m := &DDPM{P: p, Classes: classes, Hidden: hidden, Embed: embed, Steps: steps}
	m.betas = make([]float64, steps)
	m.alphaBar = make([]float64, steps)
	prod := 1.0
	for t := range steps {
		b := betaMin
		if steps > 1 {
			b += (betaMax - betaMin) * float64(t) / float64(steps-1)
		}
		prod *= 1 - b
		m.betas[t], m.alphaBar[t] = b, prod
	}
	m.emb = make([]float64, steps*embed)
	half := embed / 2
	for t := range steps {
		for j := range half {
			f := math.Exp(-math.Log(10000) * float64(j) / float64(max(half, 1)))
			m.emb[t*embed+j] = math.Sin(float64(t) * f)
			m.emb[t*embed+half+j] = math.Cos(float64(t) * f)
		}
	}
	return m, nil
}

// Beta returns β_t, t = 0..Steps−1.
func (m *DDPM) Beta(t int) float64 { return m.betas[t] }

// AlphaBar returns ᾱ_t = Π_{s≤t}(1 − β_s), t = 0..Steps−1.
func (m *DDPM) AlphaBar(t int) float64 { return m.alphaBar[t] }

// WithKey returns a copy of the model whose draws (t, ε) are fixed by key
// (Stochastic). The copy shares the schedule (read-only).
func (m *DDPM) WithKey(key uint64) Model {
	c := *m
	c.Key = key
	return &c
}

// Draw returns the diffusion step t and writes the noise ε (len P) of data
// row i under the model's key.
func (m *DDPM) Draw(i int, eps []float64) int {
	checkLen("DDPM.Draw", "eps", len(eps), m.P)
	r := rand.New(rand.NewPCG(m.Key, uint64(i)))
	t := r.IntN(m.Steps)
	for j := range eps {
		eps[j] = r.NormFloat64()
	}
	return t
}

// inDim is the denoiser's input width P + E + Classes.
func (m *DDPM) inDim() int { return m.P + m.Embed + m.Classes }

// classBias reports whether the model has the second-layer class bias C₂.
func (m *DDPM) classBias() bool { return m.ClassEveryLayer && m.Classes > 0 }

// classBiasLen is the length of C₂: Classes·H with ClassEveryLayer, else 0.
func (m *DDPM) classBiasLen() int {
	if m.classBias() {
		return m.Classes * m.Hidden
	}
	return 0
}

// NumParams returns H·Din + H + H² + H + P·H + P, plus Classes·H with
// ClassEveryLayer.
func (m *DDPM) NumParams() int {
	h := m.Hidden
	return h*m.inDim() + h + h*h + h + m.classBiasLen() + m.P*h + m.P
}

// NumFeatures returns P: a data row is the clean image x₀.
func (m *DDPM) NumFeatures() int { return m.P }

// FeatureParams returns the first-layer weights of input pixel j (column j
// of W₁).
func (m *DDPM) FeatureParams(j int) []int {
	if j < 0 || j >= m.P {
		return nil
	}
	din := m.inDim()
	out := make([]int, m.Hidden)
	for h := range out {
		out[h] = h*din + j
	}
	return out
}

// ddpmParams are the parameter blocks of θ.
type ddpmParams struct{ w1, b1, w2, b2, c2, w3, b3 []float64 }

// split returns the blocks of theta (or of a gradient) in the layout of
// the type comment.
func (m *DDPM) split(theta []float64) ddpmParams {
	h, din, p := m.Hidden, m.inDim(), m.P
	var q ddpmParams
	o := 0
	next := func(n int) []float64 { s := theta[o : o+n : o+n]; o += n; return s }
	q.w1, q.b1 = next(h*din), next(h)
	q.w2, q.b2, q.c2 = next(h*h), next(h), next(m.classBiasLen())
	q.w3, q.b3 = next(p*h), next(p)
	return q
}

// CheckLabels checks the pixel count and, for a class-conditional model,
// that every label is a class index in [0, Classes).
func (m *DDPM) CheckLabels(data *design.Data) error {
	if m == nil {
		return errNilModel("DDPM", "NewDDPM")
	}
	if err := checkDataErr("DDPM", data, m.P); err != nil {
		return err
	}
	if m.Classes == 0 {
		return nil
	}
	return checkClassLabels("DDPM", data, m.Classes)
}

// Init draws W₁, W₂, W₃ with N(0, 1/fan-in) entries (W₃ scaled by 0.1, so
// that the first predictions are small) and zero biases (C₂ included).
func (m *DDPM) Init(theta []float64, rng *rand.Rand) {
	checkLen("DDPM.Init", "theta", len(theta), m.NumParams())
	q := m.split(theta)
	fill := func(w []float64, fanIn int, scale float64) {
		s := scale / math.Sqrt(float64(fanIn))
		for j := range w {
			w[j] = s * rng.NormFloat64()
		}
	}
	fill(q.w1, m.inDim(), 1)
	fill(q.w2, m.Hidden, 1)
	fill(q.w3, m.Hidden, 0.1)
	clear(q.b1)
	clear(q.b2)
	clear(q.c2)
	clear(q.b3)
}

// Loss returns the mean of ℓ over the rows idx (all rows if idx is nil).
func (m *DDPM) Loss(theta []float64, data *design.Data, idx []int) float64 {
	checkModel("DDPM", "Loss", theta, m.NumParams(), data, m.P)
	n := numRows(data, idx)
	if n == 0 {
		return 0
	}
	var sum float64
	m.chunks(data, idx, func(ps *ddpmPass) {
		m.forward(theta, ps)
		for k := range ps.n {
			sum += ps.loss(k)
		}
	})
	return sum / float64(n)
}

// GradSum adds Σ_{i∈idx} ∇ℓ_i into out.
func (m *DDPM) GradSum(theta []float64, data *design.Data, idx []int, out []float64) {
	checkModel("DDPM", "GradSum", theta, m.NumParams(), data, m.P)
	checkLen("DDPM.GradSum", "out", len(out), m.NumParams())
	m.chunks(data, idx, func(ps *ddpmPass) {
		m.forward(theta, ps)
		m.backward(theta, ps)
		m.accumulate(ps, nil, out)
	})
}

// WeightedGradSum adds Σ_k w[k] ∇ℓ_{idx[k]} into out.
func (m *DDPM) WeightedGradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	checkModel("DDPM", "WeightedGradSum", theta, m.NumParams(), data, m.P)
	checkLen("DDPM.WeightedGradSum", "w", len(w), numRows(data, idx))
	checkLen("DDPM.WeightedGradSum", "out", len(out), m.NumParams())
	m.chunks(data, idx, func(ps *ddpmPass) {
		m.forward(theta, ps)
		m.backward(theta, ps)
		m.accumulate(ps, w[ps.start:ps.start+ps.n], out)
	})
}

// PerExampleGradNorms writes ‖∇ℓ_i‖ from the ghost-norm identity
// ‖δ aᵀ‖_F = ‖δ‖‖a‖ of each dense layer (the bias adds ‖δ‖²).
func (m *DDPM) PerExampleGradNorms(theta []float64, data *design.Data, idx []int, out []float64) {
	checkModel("DDPM", "PerExampleGradNorms", theta, m.NumParams(), data, m.P)
	checkLen("DDPM.PerExampleGradNorms", "out", len(out), numRows(data, idx))
	m.chunks(data, idx, func(ps *ddpmPass) {
		m.forward(theta, ps)
		m.backward(theta, ps)
		for k := range ps.n {
			out[ps.start+k] = math.Sqrt(ps.normSq(k))
		}
	})
}

// ClippedGradSum writes the ghost norms and weight(norm) of every row and
// adds Σ_k weights[k] ∇ℓ_{idx[k]} into out, with one forward and backward
// pass per chunk of rows (ClippedGradSummer).
func (m *DDPM) ClippedGradSum(theta []float64, data *design.Data, idx []int, weight func(float64) float64, norms, weights, out []float64) {
	checkModel("DDPM", "ClippedGradSum", theta, m.NumParams(), data, m.P)
	n := numRows(data, idx)
	checkLen("DDPM.ClippedGradSum", "norms", len(norms), n)
	checkLen("DDPM.ClippedGradSum", "weights", len(weights), n)
	checkLen("DDPM.ClippedGradSum", "out", len(out), m.NumParams())
	m.chunks(data, idx, func(ps *ddpmPass) {
		m.forward(theta, ps)
		m.backward(theta, ps)
		for k := range ps.n {
			norms[ps.start+k] = math.Sqrt(ps.normSq(k))
			weights[ps.start+k] = weight(norms[ps.start+k])
		}
		m.accumulate(ps, weights[ps.start:ps.start+ps.n], out)
	})
}

// PerExampleGrads writes ∇ℓ_{idx[k]} into out[k·NumParams():(k+1)·NumParams()].
func (m *DDPM) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	checkModel("DDPM", "PerExampleGrads", theta, m.NumParams(), data, m.P)
	np := m.NumParams()
	checkLen("DDPM.PerExampleGrads", "out", len(out), numRows(data, idx)*np)
	m.chunks(data, idx, func(ps *ddpmPass) {
		m.forward(theta, ps)
		m.backward(theta, ps)
		for k := range ps.n {
			g := m.split(out[(ps.start+k)*np : (ps.start+k+1)*np])
			ps.exampleGrad(k, g)
		}
	})
}

// DiffGradNorms writes ‖∇ℓ(θ; x_i) − ∇ℓ_pub(θ; Ψ(x_i))‖ for the rows idx of
// data and pubData when pub is a DDPM of the same shape and key (the same
// draw (t, ε) for x_i and Ψ(x_i)): per dense layer the rank-2 identity
// ‖δaᵀ − δ'a'ᵀ‖² = ‖δ‖²‖a‖² + ‖δ'‖²‖a'‖² − 2(δ·δ')(a·a'), the bias adding
// ‖δ − δ'‖². It reports false (and writes nothing) for another pub.
func (m *DDPM) DiffGradNorms(pub Model, theta []float64, data, pubData *design.Data, idx []int, out []float64) bool {
	p, ok := pub.(*DDPM)
	if !ok || !m.sameShape(p) || p.Key != m.Key {
		return false
	}
	checkModel("DDPM", "DiffGradNorms", theta, m.NumParams(), data, m.P)
	checkData("DDPM.DiffGradNorms", pubData, m.P)
	checkLen("DDPM.DiffGradNorms", "out", len(out), numRows(data, idx))
	var other ddpmPass
	m.chunks(data, idx, func(ps *ddpmPass) {
		other.fill(m, pubData, idx, ps.start, ps.n)
		for _, q := range []*ddpmPass{ps, &other} {
			m.forward(theta, q)
			m.backward(theta, q)
		}
		for k := range ps.n {
			out[ps.start+k] = math.Sqrt(max(0, diffNormSq(ps, &other, k)))
		}
	})
	return true
}

// DiffClippedGradSum is DiffGradNorms fused with the clipped sum: it writes
// the rank-2 norms of ∇ℓ(θ; x_i) − ∇ℓ_pub(θ; Ψ(x_i)) and weights[k] =
// weight(norms[k]), and adds Σ_k weights[k](∇ℓ(θ; x_i) − ∇ℓ_pub(θ; Ψ(x_i)))
// into out, from one forward and backward pass on each view
// (DiffClippedGradSummer). It reports false for another pub.
func (m *DDPM) DiffClippedGradSum(pub Model, theta []float64, data, pubData *design.Data, idx []int, weight func(float64) float64, norms, weights, out []float64) bool {
	p, ok := pub.(*DDPM)
	if !ok || !m.sameShape(p) || p.Key != m.Key {
		return false
	}
	checkModel("DDPM", "DiffClippedGradSum", theta, m.NumParams(), data, m.P)
	checkData("DDPM.DiffClippedGradSum", pubData, m.P)
	n := numRows(data, idx)
	checkLen("DDPM.DiffClippedGradSum", "norms", len(norms), n)
	checkLen("DDPM.DiffClippedGradSum", "weights", len(weights), n)
	checkLen("DDPM.DiffClippedGradSum", "out", len(out), m.NumParams())
	var other ddpmPass
	neg := make([]float64, min(n, ddpmChunk))
	m.chunks(data, idx, func(ps *ddpmPass) {
		other.fill(m, pubData, idx, ps.start, ps.n)
		for _, q := range []*ddpmPass{ps, &other} {
			m.forward(theta, q)
			m.backward(theta, q)
		}
		w := weights[ps.start : ps.start+ps.n]
		for k := range ps.n {
			norms[ps.start+k] = math.Sqrt(max(0, diffNormSq(ps, &other, k)))
			w[k] = weight(norms[ps.start+k])
			neg[k] = -w[k]
		}
		m.accumulate(ps, w, out)
		m.accumulate(&other, neg[:ps.n], out)
	})
	return true
}

// sameShape reports whether o has m's architecture and schedule length.
func (m *DDPM) sameShape(o *DDPM) bool {
	return m.P == o.P && m.Classes == o.Classes && m.Hidden == o.Hidden && m.Embed == o.Embed && m.Steps == o.Steps &&
		m.classBias() == o.classBias()
}

// ErrDDPMSample reports bad arguments of DDPM.Sample.
var ErrDDPMSample = errors.New("models: DDPM.Sample")

var (
	_ fullModelNoEval       = (*DDPM)(nil)
	_ ClippedGradSummer     = (*DDPM)(nil)
	_ Stochastic            = (*DDPM)(nil)
	_ DiffGradNormer        = (*DDPM)(nil)
	_ DiffClippedGradSummer = (*DDPM)(nil)
)

// fullModelNoEval is fullModel without Evaluator (a generative loss has
// no accuracy).
type fullModelNoEval interface {
	Model
	LabelChecker
	Initializer
	GradNormer
	WeightedGradSummer
}
