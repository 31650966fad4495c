package models

import (
	"fmt"
	"math"
	"sort"

	"github.com/featuredp/featuredp/design"
)

// LogisticBlock computes the full-batch logistic gradient sums of many
// parameter vectors ("lanes", one per training run) over the same data in
// one pass: Z = X·Θ for a block of runs, then Xᵀ(σ(Z) − y). Runs that step
// in lock-step (for example the seeds, methods and ε values of one CorrDP
// figure) share every pass over X, which is what makes the CorrDP full
// profile fast (issue 4).
//
// The arithmetic of one lane is fixed and independent of the other lanes,
// of how many lanes share a call and of the code path: the dot products and
// the gradient sums are chains of fused multiply–adds in row and column
// order, and σ uses the block exponential blockExp (range reduction
// t = k·ln2 + r, degree-12 Taylor polynomial in r, relative error below
// 5e-16 (2 ulp) on [−708, 0]). The portable Go path and the SIMD path (built with
// GOEXPERIMENT=simd on amd64 with AVX2 and FMA) therefore give
// bit-identical results. They differ from Logistic.GradSum in the last
// bits (another summation order and exponential), so every run of one
// experiment should use the same path.
//
// The result for lane r is Σ_i (σ(x_iᵀw_r + b_r) − y_i)·[x_i; 1] + N·λ·[w_r; 0],
// the same quantity as Logistic.GradSum over all rows.
type LogisticBlock struct {
	m    *Logistic
	data *design.Data
	// Column split: bin are the columns whose every value is 0 or 1, cont
	// the others. When the rows have few distinct binary patterns (fewer
	// than N/4) the binary part of x_iᵀw is computed once per pattern;
	// otherwise every column is treated as continuous and there is one
	// empty pattern.
	bin, cont []int
	xc        []float64 // N × len(cont), row-major
	pat       []int32   // pattern of each row
	pats      []float64 // patterns × len(bin), 0/1
	np        int       // number of patterns
	th, g     []float64 // packed len(cont) × blockLanes parameters / gradient sums
	c, s      []float64 // packed np × blockLanes pattern offsets / residual sums
}

// blockLanes is the number of lanes one kernel call processes;
// groups of at most blockLanesSmall lanes use a narrower kernel (same
// per-lane arithmetic).
const (
	blockLanes      = 16
	blockLanesSmall = 4
)

// NewLogisticBlock returns a LogisticBlock for model m over data. It
// returns an error if m is invalid or the data do not have m.D columns.
// A LogisticBlock holds scratch space: use one per goroutine.
func NewLogisticBlock(m *Logistic, data *design.Data) (*LogisticBlock, error) {
	if m == nil || data == nil {
		return nil, fmt.Errorf("models: NewLogisticBlock: nil model or data")
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if data.D != m.D {
		return nil, fmt.Errorf("models: NewLogisticBlock: data have %d columns, model %d features", data.D, m.D)
	}
	n, d := data.N, m.D
	if n <= 0 || len(data.X) != n*d || len(data.Y) != n {
		return nil, fmt.Errorf("models: NewLogisticBlock: empty or malformed data (n = %d)", n)
	}
	b := &LogisticBlock{m: m, data: data}
	for j := range d {
		binary := true
		for i := range n {
			if v := data.X[i*d+j]; v != 0 && v != 1 {
				binary = false
				break
			}
		}
		if binary {
			b.bin = append(b.bin, j)
		} else {
			b.cont = append(b.cont, j)
		}
	}
	b.pat = make([]int32, n)
	if len(b.bin) > 0 {
		index := map[string]int32{}
		key := make([]byte, len(b.bin))
		for i := range n {
			for k, j := range b.bin {
				key[k] = byte(data.X[i*d+j])
			}
			p, ok := index[string(key)]
			if !ok {
				p = int32(len(index))
				index[string(key)] = p
				for _, v := range key {
					b.pats = append(b.pats, float64(v))
				}
			}
			b.pat[i] = p
		}
		if len(index) > n/4 {
			b.cont = append(b.cont, b.bin...)
			sort.Ints(b.cont)
			b.bin, b.pats = nil, nil
			clear(b.pat)
		}
	}
	b.np = 1
	if len(b.bin) > 0 {
		b.np = len(b.pats) / len(b.bin)
	}
	dc := len(b.cont)
	b.xc = make([]float64, n*dc)
	for i := range n {
		for k, j := range b.cont {
			b.xc[i*dc+k] = data.X[i*d+j]
		}
	}
	b.th = make([]float64, max(dc, 1)*blockLanes)
	b.g = make([]float64, max(dc, 1)*blockLanes)
	b.c = make([]float64, b.np*blockLanes)
	b.s = make([]float64, b.np*blockLanes)
	return b, nil
}

// GradSums writes the full-batch gradient sum of thetas[r] into outs[r]
// for every r (overwriting outs[r]). Every θ and out must have
// NumParams() entries.
//
// Per lane: the pattern offsets c_p = b + Σ_{j binary} x_pj w_j (FMA chain
// in column order), z_i = c_{p(i)} + Σ_{j continuous} x_ij w_j (FMA chain),
// s_i = σ(z_i) − y_i; S_p = Σ_{i in p} s_i and the continuous gradient
// Σ_i x_ij s_i in row order; the binary gradient Σ_p x_pj S_p and the
// intercept Σ_p S_p in pattern order; then + N·λ·w.
func (b *LogisticBlock) GradSums(thetas, outs [][]float64) error {
	if len(thetas) != len(outs) {
		return fmt.Errorf("models: LogisticBlock.GradSums: %d parameter vectors, %d outputs", len(thetas), len(outs))
	}
	p, d := b.m.NumParams(), b.m.D
	for r := range thetas {
		if len(thetas[r]) != p || len(outs[r]) != p {
			return fmt.Errorf("models: LogisticBlock.GradSums: lane %d has %d parameters and %d outputs, want %d", r, len(thetas[r]), len(outs[r]), p)
		}
	}
	nf := float64(b.data.N)
	nb, dc := len(b.bin), len(b.cont)
	for g0 := 0; g0 < len(thetas); g0 += blockLanes {
		lanes := min(blockLanes, len(thetas)-g0)
		L := blockLanes
		if lanes <= blockLanesSmall {
			L = blockLanesSmall
		}
		clear(b.th)
		clear(b.g)
		clear(b.c)
		clear(b.s)
		for l := range lanes {
			th := thetas[g0+l]
			for k, j := range b.cont {
				b.th[k*L+l] = th[j]
			}
			var bias float64
			if b.m.Intercept {
				bias = th[d]
			}
			for q := range b.np {
				c := bias
				for k, j := range b.bin {
					c = math.FMA(b.pats[q*nb+k], th[j], c)
				}
				b.c[q*L+l] = c
			}
		}
		logisticBlockKernel(b.xc, b.data.Y, b.pat, b.data.N, dc, L, b.th, b.c, b.g, b.s)
		for l := range lanes {
			out, th := outs[g0+l], thetas[g0+l]
			for k, j := range b.cont {
				out[j] = b.g[k*L+l]
			}
			for k, j := range b.bin {
				var v float64
				for q := range b.np {
					v = math.FMA(b.pats[q*nb+k], b.s[q*L+l], v)
				}
				out[j] = v
			}
			if b.m.L2 != 0 {
				for j := range d {
					out[j] += nf * b.m.L2 * th[j]
				}
			}
			if b.m.Intercept {
				var v float64
				for q := range b.np {
					v += b.s[q*L+l]
				}
				out[d] = v
			}
		}
	}
	return nil
}

// logisticBlockKernel is the kernel used by GradSums: the portable one,
// replaced at init by the SIMD one where it is built and supported.
var logisticBlockKernel = logisticBlockPortable

// Constants of blockExp.
const (
	bexpLog2e   = 1.44269504088896338700e+00
	bexpShifter = 6755399441055744.0 // 1.5·2^52: adding it rounds to an integer
	bexpLn2Hi   = 6.93147180369123816490e-01
	bexpLn2Lo   = 1.90821492927058770002e-10
	bexpMin     = -708.0 // exp(−708) ≈ 3.3e-308 is still normal
)

// bexpC are the Taylor coefficients 1/k! of e^r, k = 12 … 0 (Horner order).
var bexpC = [13]float64{
	1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800, 1.0 / 362880, 1.0 / 40320,
	1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 1.0 / 2, 1, 1,
}

// blockExp returns e^t for t ∈ [−708, 0] (callers clamp): k = round(t·log2 e)
// by the 1.5·2^52 shifter, r = t − k·ln2 (two FMAs, Cody–Waite split of
// ln2), e^r by Horner's rule with FMAs, and 2^k added to the exponent bits.
// It is the scalar twin of the SIMD lane code, operation for operation.
func blockExp(t float64) float64 {
	kd := math.FMA(t, bexpLog2e, bexpShifter)
	k := kd - bexpShifter
	r := math.FMA(k, -bexpLn2Hi, t)
	r = math.FMA(k, -bexpLn2Lo, r)
	p := bexpC[0]
	for _, c := range bexpC[1:] {
		p = math.FMA(p, r, c)
	}
	return math.Float64frombits(math.Float64bits(p) + math.Float64bits(kd)<<52)
}

// blockExpNegAbs returns e^{max(−|z|, −708)}, the exponential behind σ
// and softplus, with −|z| taken as min(z, 0 − z) like the SIMD lanes.
func blockExpNegAbs(z float64) float64 {
	neg := 0 - z
	t := neg
	if z < neg {
		t = z
	}
	if t < bexpMin {
		t = bexpMin
	}
	return blockExp(t)
}

// blockSigmoid returns σ(z) with e = blockExpNegAbs(z) and a = 1/(1+e):
// a for z ≥ 0 and e·a otherwise.
func blockSigmoid(z float64) float64 {
	e := blockExpNegAbs(z)
	den := 1 + e
	a := 1 / den
	if z >= 0 {
		return a
	}
	return e * a
}

// logisticBlockPortable processes one group of blockLanes lanes over the
// continuous columns: x is N×d, th and g are d×blockLanes (lane-minor),
// c and s are patterns×blockLanes (the pattern offsets z starts from, and
// the residual sums per pattern). Rows are taken two at a time, then one
// at a time; the operation order is the SIMD kernel's: for each lane,
// z = FMA chain over j from c_{p(i)}, s = σ(z) − y, S_{p(i)} += s row by
// row, and g_j = fma(x_ij, s_i, g_j) row by row.
func logisticBlockPortable(x, y []float64, pat []int32, n, d, L int, th, c, g, s []float64) {
	z0, z1 := make([]float64, L), make([]float64, L)
	i := 0
	for ; i+2 <= n; i += 2 {
		r0, r1 := x[i*d:i*d+d], x[(i+1)*d:(i+1)*d+d]
		p0, p1 := int(pat[i])*L, int(pat[i+1])*L
		copy(z0, c[p0:p0+L])
		copy(z1, c[p1:p1+L])
		for j := range d {
			t := th[j*L : j*L+L]
			for l := range L {
				z0[l] = math.FMA(r0[j], t[l], z0[l])
				z1[l] = math.FMA(r1[j], t[l], z1[l])
			}
		}
		for l := range L {
			z0[l] = blockSigmoid(z0[l]) - y[i]
			z1[l] = blockSigmoid(z1[l]) - y[i+1]
			s[p0+l] += z0[l]
		}
		for l := range L {
			s[p1+l] += z1[l]
		}
		for j := range d {
			gj := g[j*L : j*L+L]
			for l := range L {
				gj[l] = math.FMA(r1[j], z1[l], math.FMA(r0[j], z0[l], gj[l]))
			}
		}
	}
	for ; i < n; i++ {
		r0 := x[i*d : i*d+d]
		p0 := int(pat[i]) * L
		copy(z0, c[p0:p0+L])
		for j := range d {
			for l := range L {
				z0[l] = math.FMA(r0[j], th[j*L+l], z0[l])
			}
		}
		for l := range L {
			z0[l] = blockSigmoid(z0[l]) - y[i]
			s[p0+l] += z0[l]
		}
		for j := range d {
			for l := range L {
				g[j*L+l] = math.FMA(r0[j], z0[l], g[j*L+l])
			}
		}
	}
}
