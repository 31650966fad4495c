package mechanisms

import (
	"fmt"
	"math"
)

// This file holds one noisy step: sampling, per-example clipping, the
// private and public gradients.

// projectL2 projects v onto {‖v‖₂ ≤ r}: v ← v·min(1, r/‖v‖).
func projectL2(v []float64, r float64) {
	n := norm2(v)
	if n > r {
		f := r / n
		for j := range v {
			v[j] *= f
		}
	}
}

// norm2 is the Euclidean norm, scaled to avoid overflow for huge entries.
func norm2(v []float64) float64 {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	if !math.IsInf(ss, 1) {
		return math.Sqrt(ss)
	}
	var scale float64
	for _, x := range v {
		scale = max(scale, math.Abs(x))
	}
	ss = 0
	for _, x := range v {
		y := x / scale
		ss += y * y
	}
	return scale * math.Sqrt(ss)
}

// clipFactor returns min(1, c/‖v‖) (1 for a zero vector).
func clipFactor(norm, c float64) float64 {
	if norm > c {
		return c / norm
	}
	return 1
}

// sample draws the private batch and checks its indices.
func (t *trainer) sample() ([]int, error) {
	if t.full {
		return t.all, nil
	}
	idx, err := t.sampler.Sample(t.rngS, t.n, t.idx[:0])
	if err != nil {
		return nil, err
	}
	for _, i := range idx {
		if i < 0 || i >= t.n {
			return nil, fmt.Errorf("sampler %T returned row %d outside [0, %d)", t.sampler, i, t.n)
		}
	}
	t.idx = idx
	return idx, nil
}

// concurrentNoiseMin is the number of parameters from which a step draws
// its normals on a second goroutine while the gradient is computed (below
// it the goroutine costs more than it saves; the values are the same).
var concurrentNoiseMin = 4096

// drawNormals fills t.normals from the noise stream (exactly len(std)
// normals, in order, as addGaussian draws them).
func (t *trainer) drawNormals() {
	defer t.noiseWG.Done()
	for j := range t.normals {
		t.normals[j] = t.rngN.NormFloat64()
	}
}

// privateGrad writes the normalised, clipped, noisy private gradient g̃ into
// t.grad and returns the realised batch size.
func (t *trainer) privateGrad() (int, error) {
	idx, err := t.sample()
	if err != nil {
		return 0, err
	}
	// The step's normals do not depend on the gradient: draw them from the
	// noise stream while the gradient is computed (same stream, same order,
	// same g_j + σ_j·z_j as drawing them afterwards).
	concurrent := len(t.std) >= concurrentNoiseMin
	if concurrent {
		t.normals = grow(t.normals, len(t.std))
		t.noiseWG.Add(1)
		go t.drawNormals()
	}
	t.batch = idx
	g := t.grad
	clear(g)
	var rows []int // nil = all rows, for the models' full-data fast paths
	if !t.full {
		rows = idx
	}
	b := len(idx)
	switch {
	case b == 0:
	case t.cfg.Clip == ClipPerExample && t.fast.bound():
		t.norms = grow(t.norms, b)
		t.weights = grow(t.weights, b)
		t.fast.clippedSum(t.theta, t.data, rows, t.clipWeight, t.norms, t.weights, g)
	case t.cfg.Clip == ClipPerExample:
		t.clippedSum(idx)
	default:
		if t.full && t.cfg.FullGrad != nil {
			t.cfg.FullGrad(t.theta, g)
		} else {
			t.model.GradSum(t.theta, t.data, rows, g)
		}
		if t.subtract {
			pg := t.pe2[:t.p]
			clear(pg)
			t.pubModel.GradSum(t.theta, t.pubData, rows, pg)
			for j := range g {
				g[j] -= pg[j]
			}
		}
	}
	div := t.div
	if t.cfg.Normalize == NormalizeRealised {
		div = float64(b)
	}
	if b > 0 {
		inv := 1 / div
		for j := range g {
			g[j] *= inv
		}
	}
	if t.cfg.Clip == ClipBatch {
		if f := clipFactor(norm2(g), t.cfg.ClipNorm); f < 1 {
			for j := range g {
				g[j] *= f
			}
		}
	}
	switch {
	case concurrent:
		t.noiseWG.Wait()
		for j, z := range t.normals {
			g[j] += t.std[j] * z
		}
	case t.std != nil:
		addGaussian(t.rngN, g, t.std)
	}
	return b, nil
}

// clippedSum adds Σ_{i∈idx} clip_C(a_i) into t.grad, materialising
// exampleChunk per-example gradients at a time.
func (t *trainer) clippedSum(idx []int) {
	p, c := t.p, t.cfg.ClipNorm
	g := t.grad
	for start := 0; start < len(idx); start += exampleChunk {
		sub := idx[start:min(start+exampleChunk, len(idx))]
		pe := t.pe[:len(sub)*p]
		t.model.PerExampleGrads(t.theta, t.data, sub, pe)
		if t.subtract {
			pe2 := t.pe2[:len(sub)*p]
			t.pubModel.PerExampleGrads(t.theta, t.pubData, sub, pe2)
			for j := range pe {
				pe[j] -= pe2[j]
			}
		}
		addClipped(g, pe, p, c)
	}
}

// addClipped adds Σ_k clip_c(a_k) = Σ_k min(1, c/‖a_k‖)·a_k into g, a_k the
// consecutive rows of p entries of pe.
func addClipped(g, pe []float64, p int, c float64) {
	for k := 0; k < len(pe); k += p {
		a := pe[k : k+p]
		f := clipFactor(norm2(a), c)
		for j, v := range a {
			g[j] += f * v
		}
	}
}

// publicGrad writes g_pub = (1/m') Σ_{i∈B_pub} ∇ℓ_pub(θ; Ψ(x_i)) into
// t.pubGrad, B_pub uniform of size m' from the public stream.
func (t *trainer) publicGrad() {
	t.pubIdx = UniformSubset{Size: t.pubM}.sample(t.rngP, t.n, t.pubIdx[:0])
	pg := t.pubGrad
	clear(pg)
	t.pubModel.GradSum(t.theta, t.pubData, t.pubIdx, pg)
	inv := 1 / float64(t.pubM)
	for j := range pg {
		pg[j] *= inv
	}
}

// sameBatchPublicGrad writes g_pub = (1/m) Σ_{i∈B_priv} ∇ℓ_pub(θ; Ψ(x_i))
// into t.pubGrad (PublicTerm.SameBatch).
func (t *trainer) sameBatchPublicGrad() {
	pg := t.pubGrad
	clear(pg)
	if len(t.batch) == 0 {
		return
	}
	rows := t.batch
	if t.full {
		rows = nil
	}
	t.pubModel.GradSum(t.theta, t.pubData, rows, pg)
	div := t.div // the private term's divisor: the two terms share one scale
	if t.cfg.Normalize == NormalizeRealised {
		div = float64(len(t.batch))
	}
	inv := 1 / div
	for j := range pg {
		pg[j] *= inv
	}
}

// grow returns s resized to length n, reallocating if needed.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n, n+n/4)
	}
	return s[:n]
}
