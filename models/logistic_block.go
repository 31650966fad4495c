package models

import (
	"fmt"
	"math"
	"sort"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/cores"
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
	r         []float64 // 2 chunks × blockRowChunk × blockLanes residuals σ(z) − y
	// lastWorkers is the number of goroutines the last GradSums call
	// split the rows over (1: the fused single pass).
	lastWorkers int
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
	b.r = make([]float64, 2*blockRowChunk*blockLanes)
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
//
// The path: GradSums claims helpers on the cores its callers leave idle
// (internal/cores: none inside a worker pool that keeps every core busy,
// GOMAXPROCS − 1 when called alone). With no helper, or when the data
// fit in one row chunk (N ≤ blockRowChunk), one fused pass over the rows
// (the residuals stay in registers); otherwise the rows and lanes are
// split over the caller and its helpers in tasks of fixed size (see
// group), each sum owned by one task. Both paths compute every sum in the
// same row order with the same operations, so the bits depend neither on
// the path nor on the number of cores.
func (b *LogisticBlock) GradSums(thetas, outs [][]float64) error {
	if len(thetas) != len(outs) {
		return fmt.Errorf("models: LogisticBlock.GradSums: %d parameter vectors, %d outputs", len(thetas), len(outs))
	}
	p := b.m.NumParams()
	for r := range thetas {
		if len(thetas[r]) != p || len(outs[r]) != p {
			return fmt.Errorf("models: LogisticBlock.GradSums: lane %d has %d parameters and %d outputs, want %d", r, len(thetas[r]), len(outs[r]), p)
		}
	}
	split, lanesPar := b.data.N > blockRowChunk, b.np*len(b.bin) >= lanesParallelWork
	w := 1
	if split || lanesPar {
		w = claimWorkers(len(thetas) * b.data.N)
		defer cores.Release(w - 1)
	}
	wl := 1 // goroutines for packing and unpacking the lanes
	if lanesPar {
		wl = w
	}
	for g0 := 0; g0 < len(thetas); g0 += blockLanes {
		lanes := min(blockLanes, len(thetas)-g0)
		L := blockLanes
		if lanes <= blockLanesSmall {
			L = blockLanesSmall
		}
		b.pack(thetas[g0:g0+lanes], L, wl)
		b.lastWorkers = 1
		if split && w > 1 {
			b.lastWorkers = w
			b.group(L, w)
		} else {
			// One goroutine, or one row chunk: the split into two
			// passes would only add a round trip of the residuals
			// through memory.
			logisticBlockKernel.fused(b.xc, b.data.Y, b.pat, b.data.N, len(b.cont), L, b.th, b.c, b.g, b.s)
		}
		forEach(lanes, wl, func(l int) {
			b.unpack(outs[g0+l], thetas[g0+l], l, L)
		})
	}
	return nil
}

// lanesParallelWork is the number of pattern × binary-column terms per
// lane above which GradSums packs and unpacks the lanes in parallel.
const lanesParallelWork = 1 << 14

// pack clears the group's buffers and writes the continuous parameters
// and the pattern offsets c_p of every lane (lane l at offset l of L), on
// up to w goroutines.
func (b *LogisticBlock) pack(thetas [][]float64, L, w int) {
	clear(b.th)
	clear(b.g)
	clear(b.c)
	clear(b.s)
	nb, d := len(b.bin), b.m.D
	forEach(len(thetas), w, func(l int) {
		th := thetas[l]
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
	})
}

// unpack writes lane l's gradient sum to out: the continuous columns,
// the binary columns and the intercept from the pattern sums, + N·λ·θ.
func (b *LogisticBlock) unpack(out, th []float64, l, L int) {
	nb, d, nf := len(b.bin), b.m.D, float64(b.data.N)
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

// blockRowChunk is the number of rows of one chunk of group and
// residRows the rows of one residual task: constants, so that the tasks
// do not depend on the number of cores (the bits do not either: no two
// tasks share a sum). 4,096 rows (1 MiB of residuals for 16 lanes) keep a
// chunk's residuals in cache while paying few synchronisations: on the
// idle 2-core AMD EPYC, 1,024-row chunks made the dense SIMD case 1.15×
// slower than the fused single pass, 4,096 make it 0.74× (BENCHMARKS.md).
const (
	blockRowChunk = 4096
	residRows     = 256
)

// group runs the two passes of one lane group over the continuous
// columns, chunk by chunk of blockRowChunk rows: the residuals
// r_i = σ(z_i) − y_i of the chunk's rows (tasks of residRows rows), then
// the sums g_j += x_ij r_i and S_p += r_i of its rows (one task), each a
// chain in row order. Chunk k−1's sums and chunk k's residuals run as one
// batch of parallel tasks (r holds two chunks), so the sums of one chunk
// overlap the residuals of the next. The tasks run on w goroutines; the
// result does not depend on w.
func (b *LogisticBlock) group(L, w int) {
	n, dc, k := b.data.N, len(b.cont), logisticBlockKernel
	chunks := (n + blockRowChunk - 1) / blockRowChunk
	rows := func(c int) (int, int, []float64) {
		return c * blockRowChunk, min(n, (c+1)*blockRowChunk), b.r[c%2*blockRowChunk*L:]
	}
	for c := 0; c <= chunks; c++ {
		ns, nr := 0, 0
		if c > 0 {
			ns = 1
		}
		if c < chunks {
			i0, i1, _ := rows(c)
			nr = (i1 - i0 + residRows - 1) / residRows
		}
		forEach(ns+nr, w, func(t int) {
			if t < ns {
				i0, i1, r := rows(c - 1)
				k.sums(b.xc, b.pat, i0, i1, dc, L, r, b.g, b.s)
				return
			}
			t -= ns
			i0, i1, r := rows(c)
			j0 := i0 + t*residRows
			k.resid(b.xc, b.data.Y, b.pat, j0, min(i1, j0+residRows), dc, L, b.th, b.c, r[t*residRows*L:])
		})
	}
}

// logisticKernels are the kernels of a lane group. The two passes of
// group: resid writes r[(i−i0)*L+l] = σ(z_il) − y_i for rows i0 … i1−1,
// and sums adds, for rows i0 … i1−1 (r[(i−i0)*L+l] is row i) in row
// order, x_ij·r_il to g_jl (fused) for every column j < d and r_il to
// S_{p(i)l}, for every lane l < L. fused does both for all n rows in one
// pass, row by row: the same operations in the same order.
type logisticKernels struct {
	resid func(x, y []float64, pat []int32, i0, i1, d, L int, th, c, r []float64)
	sums  func(x []float64, pat []int32, i0, i1, d, L int, r, g, s []float64)
	fused func(x, y []float64, pat []int32, n, d, L int, th, c, g, s []float64)
}

// logisticPortable are the portable kernels.
var logisticPortable = logisticKernels{logisticResidPortable, logisticSumsPortable, logisticFusedPortable}

// logisticBlockKernel are the kernels used by GradSums: the portable ones,
// replaced at init by the SIMD ones where they are built and supported.
var logisticBlockKernel = logisticPortable

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

// logisticResidPortable writes the residuals of rows i0 … i1−1: x is
// N×d, th is d×L (lane-minor), c is patterns×L (the pattern offsets z
// starts from). For each lane, z = FMA chain over j from c_{p(i)} and
// r = σ(z) − y, the SIMD kernels' operation order.
func logisticResidPortable(x, y []float64, pat []int32, i0, i1, d, L int, th, c, r []float64) {
	for i := i0; i < i1; i++ {
		row, z := x[i*d:i*d+d], r[(i-i0)*L:(i-i0+1)*L]
		copy(z, c[int(pat[i])*L:])
		for j, xv := range row {
			t := th[j*L : j*L+L]
			for l := range z {
				z[l] = math.FMA(xv, t[l], z[l])
			}
		}
		for l := range z {
			z[l] = blockSigmoid(z[l]) - y[i]
		}
	}
}

// logisticSumsPortable adds the rows' terms in row order:
// g_jl = fma(x_ij, r_il, g_jl) and S_{p(i)l} += r_il.
func logisticSumsPortable(x []float64, pat []int32, i0, i1, d, L int, r, g, s []float64) {
	for i := i0; i < i1; i++ {
		ri := r[(i-i0)*L : (i-i0+1)*L]
		sp := s[int(pat[i])*L:]
		for l, v := range ri {
			sp[l] += v
		}
		for j, xv := range x[i*d : i*d+d] {
			gj := g[j*L : j*L+L]
			for l, v := range ri {
				gj[l] = math.FMA(xv, v, gj[l])
			}
		}
	}
}

// logisticFusedPortable is logisticResidPortable and logisticSumsPortable
// in one pass over rows 0 … n−1, two rows at a time with the residuals
// in z0 and z1, then a last odd row: S_{p(i)} += s_i and
// g_j = fma(x_ij, s_i, g_j) row by row. (Written out rather than calling
// the two-pass kernels for the last row: with those calls the compiled
// row-pair loop ran 20 % slower, measured on dense/R=16.)
func logisticFusedPortable(x, y []float64, pat []int32, n, d, L int, th, c, g, s []float64) {
	z0, z1 := make([]float64, L), make([]float64, L) // len known to be L: no bounds checks below
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
