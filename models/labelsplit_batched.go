package models

import (
	"sync"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/gemm"
)

// Batched gradient sums of LabelSplitSoftmax (Full and Public parts without
// L2): chunks of batchChunk rows, logits Z = X·W and the sum Xᵀ·Δ by the
// matrix products of internal/gemm, which add the terms in the row order of
// the row loop, so the result has its bits (a zero feature adds ±0, which
// leaves the sum unchanged).

// lsBatchMin is the number of rows from which the batched path is used.
const lsBatchMin = 64

type lsBatch struct {
	x, z []float64
}

var lsBatchPool sync.Pool

// batched reports whether WeightedGradSum over n rows takes the batched
// path.
func (m *LabelSplitSoftmax) batched(n int) bool {
	return n >= lsBatchMin && m.Part != PartPrivate && m.L2 == 0
}

// batchedWeightedGradSum adds Σ_k w_k x_i δ_iᵀ into out (w nil: all ones)
// chunk by chunk.
func (m *LabelSplitSoftmax) batchedWeightedGradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64) {
	n := numRows(data, idx)
	d, k := m.D, m.K
	bt, _ := lsBatchPool.Get().(*lsBatch)
	if bt == nil {
		bt = &lsBatch{}
	}
	defer lsBatchPool.Put(bt)
	c := min(n, batchChunk)
	bt.x, bt.z = growTo(bt.x, c*d), growTo(bt.z, c*k)
	for start := 0; start < n; start += batchChunk {
		b := min(batchChunk, n-start)
		x, z := bt.x[:b*d], bt.z[:b*k]
		gemm.ParallelRows(b, d*k, func(r0, r1 int) {
			for r := r0; r < r1; r++ {
				copy(x[r*d:(r+1)*d], data.Row(rowIndex(idx, start+r)))
			}
			clear(z[r0*k : r1*k])
			gemm.NNPart(r0, r1, b, k, d, x, d, theta, k, z, k)
			for r := r0; r < r1; r++ {
				m.rowError(data, rowIndex(idx, start+r), z[r*k:(r+1)*k])
				if w != nil {
					wr := w[start+r]
					for j := r * d; j < (r+1)*d; j++ {
						x[j] *= wr // (w·x)·δ, the row loop's order
					}
				}
			}
		})
		gemm.TN(d, k, b, x, d, z, k, out, k)
	}
}

// rowError turns the logits z of row i into the output error δ of term.
func (m *LabelSplitSoftmax) rowError(data *design.Data, i int, z []float64) {
	if m.Part == PartPublic {
		softmaxInPlace(z)
		return
	}
	c := classOf(data.Y[i], m.K, i)
	softmaxInPlace(z)
	z[c]--
}
