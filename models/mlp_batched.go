package models

import (
	"math"
	"sync"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/gemm"
)

// Batched (matrix-product) forward/backward passes of the MLP, used by
// MLP.GradSum / WeightedGradSum / PerExampleGradNorms and by the feature-DP
// difference model LossDiff. Rows are processed in chunks
// of batchChunk; within a chunk the passes are matrix products of
// internal/gemm (SIMD kernels that give the bits of gonum's Dgemm), whose
// result does not depend on GOMAXPROCS (each output element is reduced in
// one fixed order along the inner dimension), so results stay bitwise
// reproducible.

// batchChunk is the number of rows per batched pass.
const batchChunk = 1024

// mlpBatch holds the activations of one chunk of rows.
type mlpBatch struct {
	b     int       // rows in the chunk
	x     []float64 // b×D inputs
	h, dh []float64 // b×H: φ(a), φ'(a); h holds a before activation
	d1    []float64 // b×H: δ1
	o     []float64 // b×K: outputs, then δ2
	loss  []float64 // b
	// Float32 mode: x, W1, the hidden layer (pre-activations, then
	// activations), δ1, the outputs/δ2, W2 and W2ᵀ, and the chunk's W1 and
	// W2 gradients in single precision.
	x32, w32, a32, d32, g32 []float32
	o32, v32, vt32, g232    []float32
}

var mlpBatchPool sync.Pool

// getBatch returns a batch with buffers for up to n rows of m.
func (m *MLP) getBatch(n int) *mlpBatch {
	bt, _ := mlpBatchPool.Get().(*mlpBatch)
	if bt == nil {
		bt = &mlpBatch{}
	}
	bt.x = growTo(bt.x, n*m.D)
	bt.h = growTo(bt.h, n*m.H)
	bt.dh = growTo(bt.dh, n*m.H)
	bt.d1 = growTo(bt.d1, n*m.H)
	bt.o = growTo(bt.o, n*m.K)
	bt.loss = growTo(bt.loss, n)
	if m.Float32 {
		bt.x32 = growTo32(bt.x32, n*m.D)
		bt.w32 = growTo32(bt.w32, m.D*m.H)
		bt.a32 = growTo32(bt.a32, n*m.H)
		bt.d32 = growTo32(bt.d32, n*m.H)
		bt.g32 = growTo32(bt.g32, m.D*m.H)
		bt.o32 = growTo32(bt.o32, n*m.K)
		bt.v32 = growTo32(bt.v32, m.H*m.K)
		bt.vt32 = growTo32(bt.vt32, m.H*m.K)
		bt.g232 = growTo32(bt.g232, m.H*m.K)
	}
	return bt
}

func growTo32(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// toFloat32 writes dst[j] = float32(src[j]) (round to nearest even); the
// SIMD build replaces it by an 8-lane twin with the same bits.
var toFloat32 = func(dst []float32, src []float64) {
	for j, v := range src[:len(dst)] {
		dst[j] = float32(v)
	}
}

func growTo(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// batchPass runs the forward pass on rows idx[start:start+b] (idx nil: rows
// start..start+b−1) and, with backward, δ2 (into bt.o) and δ1 (into bt.d1)
// and the per-row losses. Every row's values depend on that row alone, so
// the rows are split across goroutines.
func (m *MLP) batchPass(theta []float64, data *design.Data, idx []int, start, b int, bt *mlpBatch, backward bool) {
	bt.b = b
	if m.Float32 {
		toFloat32(bt.w32, theta[:m.D*m.H])
		w2 := theta[m.offW2():m.offB2()]
		toFloat32(bt.v32, w2)
		for u := range m.H {
			for c := range m.K {
				bt.vt32[c*m.H+u] = float32(w2[u*m.K+c])
			}
		}
	}
	gemm.ParallelRows(b, m.D*m.H, func(r0, r1 int) {
		m.passRows(theta, data, idx, start, b, r0, r1, bt, backward)
	})
}

// firstLayer computes rows r0..r1−1 of a = X·W1 + b1 into h (b1 already
// there), in float32 (also filling x32) when m.Float32.
func (m *MLP) firstLayer(theta []float64, b, r0, r1 int, bt *mlpBatch) {
	d, hh := m.D, m.H
	x, h := bt.x[:b*d], bt.h[:b*hh]
	if !m.Float32 {
		gemm.NNPart(r0, r1, b, hh, d, x, d, theta[:d*hh], hh, h, hh)
		return
	}
	rowsProduct32(r0, r1, b, hh, d, x, bt.x32, bt.w32, h, bt.a32)
}

// rowsProduct32 computes rows r0..r1−1 of C += A·W in float32 for the
// float64 b×k matrix A and b×n matrix C: their rows are converted into a32
// and c32, multiplied with w32 (k×n), and C's rows written back.
func rowsProduct32(r0, r1, b, n, k int, a []float64, a32, w32 []float32, c []float64, c32 []float32) {
	toFloat32(a32[r0*k:r1*k], a[r0*k:r1*k])
	toFloat32(c32[r0*n:r1*n], c[r0*n:r1*n])
	gemm.NN32Part(r0, r1, b, n, k, a32[:b*k], k, w32, n, c32[:b*n], n)
	for j := r0 * n; j < r1*n; j++ {
		c[j] = float64(c32[j])
	}
}

// passRows is batchPass on rows r0..r1−1 of the chunk of b rows.
func (m *MLP) passRows(theta []float64, data *design.Data, idx []int, start, b, r0, r1 int, bt *mlpBatch, backward bool) {
	d, hh, kk := m.D, m.H, m.K
	x, h, o := bt.x[:b*d], bt.h[:b*hh], bt.o[:b*kk]
	b1 := theta[m.offB1():m.offW2()]
	w2 := theta[m.offW2():m.offB2()]
	b2 := theta[m.offB2():]
	for r := r0; r < r1; r++ {
		copy(x[r*d:(r+1)*d], data.Row(rowIndex(idx, start+r)))
		copy(h[r*hh:(r+1)*hh], b1)
		copy(o[r*kk:(r+1)*kk], b2)
	}
	// a = X·W1 + b1.
	m.firstLayer(theta, b, r0, r1, bt)
	dh := bt.dh[:b*hh]
	if m.Act == Tanh {
		tanhInPlace(h[r0*hh:r1*hh], dh[r0*hh:r1*hh])
	} else {
		for j := r0 * hh; j < r1*hh; j++ {
			h[j], dh[j] = m.Act.eval(h[j])
		}
	}
	// o = H·W2 + b2.
	m.outputLayer(w2, b, r0, r1, bt)
	if !backward {
		return
	}
	m.lossRows(data, idx, start, r0, r1, bt)
	// δ1 = φ'(a) ⊙ (δ2·W2ᵀ).
	m.backLayer(w2, b, r0, r1, bt)
}

// outputLayer computes rows r0..r1−1 of o = H·W2 + b2 (b2 already in o),
// in float32 when m.Float32.
func (m *MLP) outputLayer(w2 []float64, b, r0, r1 int, bt *mlpBatch) {
	hh, kk := m.H, m.K
	h, o := bt.h[:b*hh], bt.o[:b*kk]
	if !m.Float32 {
		gemm.NNPart(r0, r1, b, kk, hh, h, hh, w2, kk, o, kk)
		return
	}
	rowsProduct32(r0, r1, b, kk, hh, h, bt.a32, bt.v32, o, bt.o32)
}

// backLayer computes rows r0..r1−1 of δ1 = φ'(a) ⊙ (δ2·W2ᵀ) (δ2 in o), in
// float32 when m.Float32.
func (m *MLP) backLayer(w2 []float64, b, r0, r1 int, bt *mlpBatch) {
	hh, kk := m.H, m.K
	d1, dh, o := bt.d1[:b*hh], bt.dh[:b*hh], bt.o[:b*kk]
	clear(d1[r0*hh : r1*hh])
	if m.Float32 {
		rowsProduct32(r0, r1, b, hh, kk, o, bt.o32, bt.vt32, d1, bt.d32)
	} else {
		gemm.NTPart(r0, r1, b, hh, kk, o, kk, w2, kk, d1, hh)
	}
	for j := r0 * hh; j < r1*hh; j++ {
		d1[j] *= dh[j]
	}
}

// lossRows writes the losses of rows r0..r1−1 and replaces their outputs
// by δ2 = ∂ℓ/∂o.
func (m *MLP) lossRows(data *design.Data, idx []int, start, r0, r1 int, bt *mlpBatch) {
	kk := m.K
	for r := r0; r < r1; r++ {
		i := rowIndex(idx, start+r)
		or := bt.o[r*kk : (r+1)*kk]
		y := data.Y[i]
		if m.Head == HeadMSE {
			res := or[0] - y
			bt.loss[r] = res * res
			or[0] = 2 * res
			continue
		}
		c := classOf(y, kk, i)
		oy := or[c]
		lse := softmaxInPlace(or)
		bt.loss[r] = lse - oy
		or[c]--
	}
}

// batchAccumulate adds the (already weighted) gradient of a chunk into out:
// ∇W1 += Xᵀδ1, ∇b1 += Σδ1, ∇W2 += Hᵀδ2, ∇b2 += Σδ2.
func (m *MLP) batchAccumulate(bt *mlpBatch, out []float64) {
	d, hh, kk, b := m.D, m.H, m.K, bt.b
	x, h, d1, o := bt.x[:b*d], bt.h[:b*hh], bt.d1[:b*hh], bt.o[:b*kk]
	if m.Float32 {
		m.accumulate32(bt, out)
	} else {
		gemm.TN(d, hh, b, x, d, d1, hh, out[:d*hh], hh)
		gemm.TN(hh, kk, b, h, hh, o, kk, out[m.offW2():m.offB2()], kk)
	}
	gB1 := out[m.offB1():m.offW2()]
	gB2 := out[m.offB2():]
	for r := 0; r < b; r++ {
		axpy(1, d1[r*hh:(r+1)*hh], gB1)
		axpy(1, o[r*kk:(r+1)*kk], gB2)
	}
}

// accumulate32 adds the chunk's ∇W1 = Xᵀδ1 and ∇W2 = Hᵀδ2, computed in
// float32 (x32 filled by the pass or the caller; H, δ1 and δ2 converted
// from the float64 buffers, which hold the weighted errors), to out in
// float64.
func (m *MLP) accumulate32(bt *mlpBatch, out []float64) {
	d, hh, kk, b := m.D, m.H, m.K, bt.b
	d32, g32, h32, o32, g2 := bt.d32[:b*hh], bt.g32[:d*hh], bt.a32[:b*hh], bt.o32[:b*kk], bt.g232[:hh*kk]
	toFloat32(d32, bt.d1[:b*hh])
	toFloat32(h32, bt.h[:b*hh])
	toFloat32(o32, bt.o[:b*kk])
	clear(g32)
	clear(g2)
	gemm.TN32(d, hh, b, bt.x32[:b*d], d, d32, hh, g32, hh)
	gemm.TN32(hh, kk, b, h32, hh, o32, kk, g2, kk)
	for j, v := range g32 {
		out[j] += float64(v)
	}
	w2 := out[m.offW2():m.offB2()]
	for j, v := range g2 {
		w2[j] += float64(v)
	}
}

// batchScaleRows multiplies δ1 and δ2 of row r by w[r].
func (m *MLP) batchScaleRows(bt *mlpBatch, w []float64) {
	hh, kk := m.H, m.K
	for r := 0; r < bt.b; r++ {
		wr := w[r]
		for j := r * hh; j < (r+1)*hh; j++ {
			bt.d1[j] *= wr
		}
		for j := r * kk; j < (r+1)*kk; j++ {
			bt.o[j] *= wr
		}
	}
}

// batchedGradSum adds Σ_k w_k ∇ℓ_{idx[k]} into out (w nil: all ones) with
// batched passes.
func (m *MLP) batchedGradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	n := numRows(data, idx)
	bt := m.getBatch(min(n, batchChunk))
	defer mlpBatchPool.Put(bt)
	for start := 0; start < n; start += batchChunk {
		b := min(batchChunk, n-start)
		m.batchPass(theta, data, idx, start, b, bt, true)
		if w != nil {
			m.batchScaleRows(bt, w[start:start+b])
		}
		m.batchAccumulate(bt, out)
	}
}

// batchedGradNorms writes the ghost norms ‖∇ℓ_i‖ = √((‖x‖²+1)‖δ1‖² + (‖h‖²+1)‖δ2‖²)
// with batched passes.
func (m *MLP) batchedGradNorms(theta []float64, data *design.Data, idx []int, out []float64) {
	n := numRows(data, idx)
	bt := m.getBatch(min(n, batchChunk))
	defer mlpBatchPool.Put(bt)
	for start := 0; start < n; start += batchChunk {
		b := min(batchChunk, n-start)
		m.batchPass(theta, data, idx, start, b, bt, true)
		m.batchNorms(bt, out[start:start+b])
	}
}

// batchNorms writes the ghost norms of the chunk's rows into out.
func (m *MLP) batchNorms(bt *mlpBatch, out []float64) {
	d, hh, kk := m.D, m.H, m.K
	for r := range bt.b {
		ss := (sumSq(bt.x[r*d:(r+1)*d])+1)*sumSq(bt.d1[r*hh:(r+1)*hh]) +
			(sumSq(bt.h[r*hh:(r+1)*hh])+1)*sumSq(bt.o[r*kk:(r+1)*kk])
		out[r] = math.Sqrt(ss)
	}
}

// batchedClippedSum is ClippedGradSum with batched passes: each chunk's
// norms, weights and weighted gradient from one pass (the chunks are
// accumulated in the order batchedGradSum uses, so the sum has its bits).
func (m *MLP) batchedClippedSum(theta []float64, data *design.Data, idx []int, weight func(float64) float64, norms, weights, out []float64) {
	n := numRows(data, idx)
	bt := m.getBatch(min(n, batchChunk))
	defer mlpBatchPool.Put(bt)
	for start := 0; start < n; start += batchChunk {
		b := min(batchChunk, n-start)
		m.batchPass(theta, data, idx, start, b, bt, true)
		m.batchNorms(bt, norms[start:start+b])
		for r, v := range norms[start : start+b] {
			weights[start+r] = weight(v)
		}
		m.batchScaleRows(bt, weights[start:start+b])
		m.batchAccumulate(bt, out)
	}
}

// diffNorms writes the norms of the per-example gradients of
// ℓ_priv = ℓ(θ; x_i) − ℓ_pub(θ; x'_i), both MLPs of the same shape (m on
// data, pub on pubData, same row indices), with the rank-2 ghost norm (ours): for a
// dense layer with inputs (x, x') and
// back-propagated errors (δ, δ'),
//
//	‖δxᵀ − δ'x'ᵀ‖²_F = ‖δ‖²‖x‖² + ‖δ'‖²‖x'‖² − 2(δ·δ')(x·x'),
//
// and the bias adds ‖δ − δ'‖².
//
// If memo is non-nil it receives the back-propagated errors and hidden
// activations of both passes, so that a following weighted sum at the same
// θ and rows (the engine's ghost clipping) need not run the passes again.
func diffNorms(m, pub *MLP, theta []float64, data, pubData *design.Data, idx []int, out []float64, memo *diffMemo) {
	n := numRows(data, idx)
	d, hh, kk := m.D, m.H, m.K
	c := min(n, batchChunk)
	bt, bp := m.getBatch(c), pub.getBatch(c)
	defer mlpBatchPool.Put(bt)
	defer mlpBatchPool.Put(bp)
	if memo != nil {
		memo.reset(theta, data, idx, n, hh, kk)
	}
	for start := 0; start < n; start += batchChunk {
		b := min(batchChunk, n-start)
		m.batchPass(theta, data, idx, start, b, bt, true)
		pub.batchPass(theta, pubData, idx, start, b, bp, true)
		if memo != nil {
			copy(memo.d1[start*hh:], bt.d1[:b*hh])
			copy(memo.d1p[start*hh:], bp.d1[:b*hh])
			copy(memo.h[start*hh:], bt.h[:b*hh])
			copy(memo.hp[start*hh:], bp.h[:b*hh])
			copy(memo.o[start*kk:], bt.o[:b*kk])
			copy(memo.op[start*kk:], bp.o[:b*kk])
		}
		for r := 0; r < b; r++ {
			x, xp := bt.x[r*d:(r+1)*d], bp.x[r*d:(r+1)*d]
			e1, e1p := bt.d1[r*hh:(r+1)*hh], bp.d1[r*hh:(r+1)*hh]
			h, hp := bt.h[r*hh:(r+1)*hh], bp.h[r*hh:(r+1)*hh]
			e2, e2p := bt.o[r*kk:(r+1)*kk], bp.o[r*kk:(r+1)*kk]
			s1, s1p, c1 := sumSq(e1), sumSq(e1p), dot(e1, e1p)
			s2, s2p, c2 := sumSq(e2), sumSq(e2p), dot(e2, e2p)
			ss := s1*sumSq(x) + s1p*sumSq(xp) - 2*c1*dot(x, xp) // W1
			ss += s1 + s1p - 2*c1                               // b1
			ss += s2*sumSq(h) + s2p*sumSq(hp) - 2*c2*dot(h, hp) // W2
			ss += s2 + s2p - 2*c2                               // b2
			out[start+r] = math.Sqrt(math.Max(ss, 0))
		}
	}
}

// batchedForEachOutput runs batched forward passes over the rows idx and calls
// fn(k, i, o) with the outputs o (len K, not softmaxed) of the k-th selected
// row i, in order.
func (m *MLP) batchedForEachOutput(theta []float64, data *design.Data, idx []int, fn func(k, i int, o []float64)) {
	n := numRows(data, idx)
	kk := m.K
	bt := m.getBatch(min(n, batchChunk))
	defer mlpBatchPool.Put(bt)
	for start := 0; start < n; start += batchChunk {
		b := min(batchChunk, n-start)
		m.batchPass(theta, data, idx, start, b, bt, false)
		for r := 0; r < b; r++ {
			fn(start+r, rowIndex(idx, start+r), bt.o[r*kk:(r+1)*kk])
		}
	}
}

// diffMemo keeps the per-row errors and hidden activations of the last
// diffNorms call (θ and rows copied, the data's identity kept, for an exact
// match test).
type diffMemo struct {
	data                  *design.Data // the rows' source: a memo never serves other data
	theta                 []float64
	idx                   []int
	all                   bool // idx was nil
	n                     int
	d1, d1p, h, hp, o, op []float64
}

func (mm *diffMemo) reset(theta []float64, data *design.Data, idx []int, n, hh, kk int) {
	mm.data = data
	mm.theta = append(mm.theta[:0], theta...)
	mm.idx = append(mm.idx[:0], idx...)
	mm.all = idx == nil
	mm.n = n
	mm.d1, mm.d1p = growTo(mm.d1, n*hh), growTo(mm.d1p, n*hh)
	mm.h, mm.hp = growTo(mm.h, n*hh), growTo(mm.hp, n*hh)
	mm.o, mm.op = growTo(mm.o, n*kk), growTo(mm.op, n*kk)
}

// matches reports whether the memo was computed at exactly θ and rows idx
// of the same data.
func (mm *diffMemo) matches(theta []float64, data *design.Data, idx []int) bool {
	if mm == nil || mm.data != data || len(mm.theta) != len(theta) || mm.all != (idx == nil) || len(mm.idx) != len(idx) {
		return false
	}
	for k, i := range idx {
		if mm.idx[k] != i {
			return false
		}
	}
	for j, v := range theta {
		if math.Float64bits(mm.theta[j]) != math.Float64bits(v) {
			return false
		}
	}
	return true
}

// diffWeightedSum adds Σ_k w_k (∇ℓ(θ; x_k) − ∇ℓ_pub(θ; x'_k)) into out from
// the memo (same θ and rows as the diffNorms call that filled it).
func diffWeightedSum(m, pub *MLP, data, pubData *design.Data, idx []int, w []float64, out []float64, mm *diffMemo) {
	n := mm.n
	hh, kk := m.H, m.K
	c := min(n, batchChunk)
	bt := m.getBatch(c)
	defer mlpBatchPool.Put(bt)
	for pass := range 2 {
		src, d1, h, o := data, mm.d1, mm.h, mm.o
		sign := 1.0
		if pass == 1 {
			src, d1, h, o, sign = pubData, mm.d1p, mm.hp, mm.op, -1
		}
		for start := 0; start < n; start += batchChunk {
			b := min(batchChunk, n-start)
			bt.b = b
			gemm.ParallelRows(b, m.D+2*hh+kk, func(r0, r1 int) {
				for r := r0; r < r1; r++ {
					copy(bt.x[r*m.D:(r+1)*m.D], src.Row(rowIndex(idx, start+r)))
					if m.Float32 {
						toFloat32(bt.x32[r*m.D:(r+1)*m.D], bt.x[r*m.D:(r+1)*m.D])
					}
					wr := sign * w[start+r]
					for j := range hh {
						bt.d1[r*hh+j] = wr * d1[(start+r)*hh+j]
					}
					for j := range kk {
						bt.o[r*kk+j] = wr * o[(start+r)*kk+j]
					}
				}
				copy(bt.h[r0*hh:r1*hh], h[(start+r0)*hh:(start+r1)*hh])
			})
			m.batchAccumulate(bt, out)
		}
	}
}
