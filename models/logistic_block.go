package models

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"

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
	// splitRows: the rows have no binary patterns and are many enough
	// (N ≥ 4·splitChunk) that a group whose cores would otherwise idle
	// is split by rows (see GradSums and split).
	splitRows bool
	scratch   []laneScratch
	groups    []laneGroup // the lane groups of the last GradSums call (reused)
	// lastWorkers is the number of goroutines of the last GradSums call
	// (read by the tests).
	lastWorkers int
}

// laneScratch holds one lane group's packed buffers, lane l of L at
// offset l: th and g are len(cont) × L parameters and gradient sums, c and
// s are np × L pattern offsets and residual sums, tb one lane's binary
// parameters (pack), r the residuals of the row split's chunks (allocated
// on first use).
type laneScratch struct {
	L                  int
	th, g, c, s, tb, r []float64
}

// laneGroup is lanes g0 … g0+n−1 of a GradSums call, run by the L-lane
// kernel (n ≤ L).
type laneGroup struct{ g0, n, L int }

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
	b.splitRows = len(b.bin) == 0 && n >= 4*splitChunk
	b.xc = make([]float64, n*dc)
	for i := range n {
		for k, j := range b.cont {
			b.xc[i*dc+k] = data.X[i*d+j]
		}
	}
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
// The lanes run in groups of blockLanes (a last group of at most
// blockLanesSmall on the narrow kernel), each group one fused pass over
// the rows with its residuals in registers. GradSums claims helpers on the
// cores its callers leave idle (internal/cores: none inside a worker pool
// that keeps every core busy, GOMAXPROCS − 1 when called alone) and runs
// the groups in parallel. When that leaves a core without a group, it
// splits each group's rows over the cores (see split) if the data have
// no binary patterns, and otherwise uses narrow groups of blockLanesSmall
// lanes (see laneGroups): with patterns, each group's pack and unpack run
// on one goroutine, and on the 2-core AMD EPYC the split was 1.2–1.3×
// slower than narrow groups there, 0.6–0.8× of them on data without
// (BENCHMARKS.md). A lane's arithmetic is the same in every group, kernel
// and split, so the bits depend neither on the grouping nor on the number
// of cores.
func (b *LogisticBlock) GradSums(thetas, outs [][]float64) error {
	if b == nil {
		return fmt.Errorf("models: LogisticBlock.GradSums: %w", errNilModel("LogisticBlock", "NewLogisticBlock"))
	}
	if err := b.checkLanes(thetas, outs); err != nil {
		return err
	}
	w := 1
	if tasks := b.parallelTasks(len(thetas)); tasks > 1 {
		w = claimWorkers(tasks)
		defer cores.Release(w - 1)
	}
	split := b.splitRows && w > 1 && (len(thetas)+blockLanes-1)/blockLanes < w
	b.groups = laneGroups(b.groups[:0], len(thetas), w, split)
	for len(b.scratch) < len(b.groups) {
		b.scratch = append(b.scratch, laneScratch{})
	}
	if split {
		b.lastWorkers = w
		for k := range b.groups {
			b.runGroup(k, w, thetas, outs)
		}
		return nil
	}
	b.lastWorkers = min(w, len(b.groups))
	forEach(len(b.groups), w, func(k int) { b.runGroup(k, 1, thetas, outs) })
	return nil
}

// checkLanes checks that b was made by NewLogisticBlock, that there are
// as many outputs as parameter vectors and that every one has
// NumParams() entries.
func (b *LogisticBlock) checkLanes(thetas, outs [][]float64) error {
	if b == nil || b.m == nil {
		return fmt.Errorf("models: LogisticBlock.GradSums: nil or zero LogisticBlock (make one with NewLogisticBlock)")
	}
	if len(thetas) != len(outs) {
		return fmt.Errorf("models: LogisticBlock.GradSums: %d parameter vectors, %d outputs", len(thetas), len(outs))
	}
	p := b.m.NumParams()
	for r := range thetas {
		if len(thetas[r]) != p || len(outs[r]) != p {
			return fmt.Errorf("models: LogisticBlock.GradSums: lane %d has %d parameters and %d outputs, want %d", r, len(thetas[r]), len(outs[r]), p)
		}
	}
	return nil
}

// runGroup computes the sums of lane group k of the call (b.groups[k],
// scratch b.scratch[k]): pack, the fused kernel (w = 1) or the row split
// on w goroutines, unpack.
func (b *LogisticBlock) runGroup(k, w int, thetas, outs [][]float64) {
	gr, sc := b.groups[k], &b.scratch[k]
	th, out := thetas[gr.g0:gr.g0+gr.n], outs[gr.g0:gr.g0+gr.n]
	b.pack(sc, th, gr.L)
	if w > 1 {
		b.split(sc, w)
	} else {
		logisticBlockKernel.fused(b.xc, b.data.Y, b.pat, b.data.N, len(b.cont), gr.L, sc.th, sc.c, sc.g, sc.s)
	}
	b.unpack(sc, out, th)
}

// parallelTasks is the number of independent tasks of a GradSums call of
// r lanes, the most goroutines it can use: every core when its rows may
// be split, else one per narrow group.
func (b *LogisticBlock) parallelTasks(r int) int {
	switch {
	case b.splitRows:
		return runtime.GOMAXPROCS(0)
	case r > blockLanesSmall:
		return (r + blockLanesSmall - 1) / blockLanesSmall
	}
	return 1
}

// laneGroups appends to gs the groups of r lanes for one GradSums call on
// w goroutines: groups of blockLanes, a last group of at most
// blockLanesSmall lanes on the narrow kernel; but when w > 1, there are
// fewer wide groups than goroutines and the rows are not split, groups
// of blockLanesSmall, so that every goroutine has work. The wide kernel
// costs less per lane (on the 2-core AMD EPYC,
// BenchmarkLogisticBlockGradSums/adult: 1.98 ms for 16 lanes against
// 0.64 ms for 4), so narrow groups are used only to fill idle cores.
func laneGroups(gs []laneGroup, r, w int, split bool) []laneGroup {
	if wide := (r + blockLanes - 1) / blockLanes; !split && w > 1 && wide < w && r > blockLanesSmall {
		for g0 := 0; g0 < r; g0 += blockLanesSmall {
			gs = append(gs, laneGroup{g0, min(blockLanesSmall, r-g0), blockLanesSmall})
		}
		return gs
	}
	for g0 := 0; g0 < r; g0 += blockLanes {
		n := min(blockLanes, r-g0)
		L := blockLanes
		if n <= blockLanesSmall {
			L = blockLanesSmall
		}
		gs = append(gs, laneGroup{g0, n, L})
	}
	return gs
}

// splitChunk is the number of rows of one chunk of split.
const splitChunk = 1024

// split runs the kernel of one packed lane group on w goroutines in two
// passes over chunks of splitChunk rows: the residuals
// r_i = σ(z_i) − y_i of a chunk's rows (rows independent of each other;
// any goroutine, any order) into one of the slots of sc.r, and the sums
// g_j += x_ij r_i and S_p += r_i (the caller, chunk after chunk, each sum
// a chain in row order), which frees the slot. A goroutine takes a free
// slot before it claims the next chunk, so at most len(slots) chunks are
// claimed and not yet summed, and chunk c's slot, c mod slots, is free.
// The caller computes residuals itself while the next chunk's are not
// ready. The operations and their order are those of the fused kernel,
// so the bits are the same.
func (b *LogisticBlock) split(sc *laneScratch, w int) {
	n, dc, L, k := b.data.N, len(b.cont), sc.L, logisticBlockKernel
	chunks, slots := (n+splitChunk-1)/splitChunk, 2*w+2
	if len(sc.r) < slots*splitChunk*L {
		sc.r = make([]float64, slots*splitChunk*L)
	}
	rows := func(c int) (int, int, []float64) {
		return c * splitChunk, min(n, (c+1)*splitChunk), sc.r[c%slots*splitChunk*L:]
	}
	free, ready := make(chan struct{}, slots), make(chan int, slots)
	for range slots {
		free <- struct{}{}
	}
	var next atomic.Int64
	// resid claims the next chunk (its caller holds a free slot) and
	// computes its residuals; it returns false, and the slot, when every
	// chunk is claimed.
	resid := func() bool {
		c := int(next.Add(1) - 1)
		if c >= chunks {
			free <- struct{}{}
			return false
		}
		i0, i1, r := rows(c)
		k.resid(b.xc, b.data.Y, b.pat, i0, i1, dc, L, sc.th, sc.c, r)
		ready <- c
		return true
	}
	var wg sync.WaitGroup
	for range w - 1 {
		wg.Go(func() {
			for <-free; resid(); <-free {
			}
		})
	}
	done := make([]bool, chunks)
	for c := range chunks {
		for !done[c] {
			select {
			case r := <-ready:
				done[r] = true
				continue
			default:
			}
			select {
			case <-free:
				if !resid() {
					done[<-ready] = true
				}
			case r := <-ready:
				done[r] = true
			}
		}
		i0, i1, r := rows(c)
		k.sums(b.xc, b.pat, i0, i1, dc, L, r, sc.g, sc.s)
		free <- struct{}{}
	}
	wg.Wait()
}

// pack sizes sc for L lanes, clears its sums and writes the continuous
// parameters and the pattern offsets c_p of every lane (lane l at offset
// l of L; lanes past len(thetas) keep c = 0): c_pl = FMA chain over the
// binary columns in column order from the lane's intercept, four
// patterns' chains side by side in registers.
func (b *LogisticBlock) pack(sc *laneScratch, thetas [][]float64, L int) {
	dc, nb, np, d := max(len(b.cont), 1), len(b.bin), b.np, b.m.D
	if sc.L != L {
		*sc = laneScratch{L: L, th: make([]float64, dc*L), g: make([]float64, dc*L),
			c: make([]float64, np*L), s: make([]float64, np*L), tb: make([]float64, nb)}
	}
	clear(sc.th)
	clear(sc.g)
	clear(sc.c)
	clear(sc.s)
	pats := b.pats
	for l, th := range thetas {
		for k, j := range b.cont {
			sc.th[k*L+l] = th[j]
		}
		tb := sc.tb
		for k, j := range b.bin {
			tb[k] = th[j]
		}
		var bias float64
		if b.m.Intercept {
			bias = th[d]
		}
		q := 0
		for ; q+4 <= np; q += 4 {
			p0, p1, p2, p3 := pats[q*nb:q*nb+nb], pats[(q+1)*nb:(q+2)*nb], pats[(q+2)*nb:(q+3)*nb], pats[(q+3)*nb:(q+4)*nb]
			p0, p1, p2, p3 = p0[:len(tb)], p1[:len(tb)], p2[:len(tb)], p3[:len(tb)]
			c0, c1, c2, c3 := bias, bias, bias, bias
			for k, t := range tb {
				c0 = math.FMA(p0[k], t, c0)
				c1 = math.FMA(p1[k], t, c1)
				c2 = math.FMA(p2[k], t, c2)
				c3 = math.FMA(p3[k], t, c3)
			}
			sc.c[q*L+l], sc.c[(q+1)*L+l], sc.c[(q+2)*L+l], sc.c[(q+3)*L+l] = c0, c1, c2, c3
		}
		for ; q < np; q++ {
			c := bias
			for k, t := range tb {
				c = math.FMA(pats[q*nb+k], t, c)
			}
			sc.c[q*L+l] = c
		}
	}
}

// unpack writes the gradient sum of lane l to outs[l] for every lane of
// the group: the continuous columns, the binary columns Σ_p x_pj S_pl
// (FMA chain in pattern order, four columns' chains side by side in
// registers) and the intercept Σ_p S_pl from the pattern sums, + N·λ·θ.
func (b *LogisticBlock) unpack(sc *laneScratch, outs, thetas [][]float64) {
	nb, np, d, nf, L := len(b.bin), b.np, b.m.D, float64(b.data.N), sc.L
	pats, s := b.pats, sc.s
	for l, out := range outs[:len(thetas)] {
		for k, j := range b.cont {
			out[j] = sc.g[k*L+l]
		}
		k := 0
		for ; k+4 <= nb; k += 4 {
			var v0, v1, v2, v3 float64
			for q := range np {
				p, sv := pats[q*nb+k:q*nb+k+4], s[q*L+l]
				v0 = math.FMA(p[0], sv, v0)
				v1 = math.FMA(p[1], sv, v1)
				v2 = math.FMA(p[2], sv, v2)
				v3 = math.FMA(p[3], sv, v3)
			}
			out[b.bin[k]], out[b.bin[k+1]], out[b.bin[k+2]], out[b.bin[k+3]] = v0, v1, v2, v3
		}
		for ; k < nb; k++ {
			var v float64
			for q := range np {
				v = math.FMA(pats[q*nb+k], s[q*L+l], v)
			}
			out[b.bin[k]] = v
		}
		if b.m.L2 != 0 {
			for j := range d {
				out[j] += nf * b.m.L2 * thetas[l][j]
			}
		}
		if b.m.Intercept {
			var v float64
			for q := range np {
				v += s[q*L+l]
			}
			out[d] = v
		}
	}
}

// logisticKernels are the kernels of a lane group. fused runs rows
// 0 … n−1 in row order: z_il = c_{p(i)l} + Σ_j x_ij·th_jl (FMA chain in
// column order), r_il = σ(z_il) − y_i, then g_jl = fma(x_ij, r_il, g_jl)
// for every column j < d and S_{p(i)l} += r_il, for every lane l < L (x
// is n×d, th and g are d×L, c and s patterns×L, lane-minor). resid and
// sums are its two halves for rows i0 … i1−1, with the residuals in r
// (r[(i−i0)·L+l]): the same operations in the same order.
type logisticKernels struct {
	fused func(x, y []float64, pat []int32, n, d, L int, th, c, g, s []float64)
	resid func(x, y []float64, pat []int32, i0, i1, d, L int, th, c, r []float64)
	sums  func(x []float64, pat []int32, i0, i1, d, L int, r, g, s []float64)
}

// logisticPortable are the portable kernels.
var logisticPortable = logisticKernels{logisticFusedPortable, logisticResidPortable, logisticSumsPortable}

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

// logisticResidPortable and logisticSumsPortable are the row kernels: the
// two halves of the kernel for rows i0 … i1−1 (the row split), the scalar
// twins of the SIMD row kernels.
//
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
// the row kernels for the last row: with those calls the compiled
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
