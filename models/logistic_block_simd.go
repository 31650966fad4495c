//go:build goexperiment.simd && amd64

package models

import "simd/archsimd"

func init() {
	if archsimd.X86.AVX2() && archsimd.X86.FMA() {
		sigK = newSigConsts()
		logisticBlockKernel = logisticKernels{logisticFusedSIMD, logisticResidSIMD, logisticSumsSIMD}
	}
}

// The kernels below end with archsimd.ClearAVXUpperBits (VZEROUPPER):
// Go does not insert it, and scalar (legacy SSE) code after 256-bit code
// with dirty upper halves pays a transition or false-dependency penalty
// on Intel (issue #30). Helpers that take or return vectors leave that to
// their callers. internal/avxstate checks the compiled code.

// logisticResidSIMD, the row kernel of the residuals (the row split and
// the fused kernels' last rows), dispatches on the lane count.
func logisticResidSIMD(x, y []float64, pat []int32, i0, i1, d, L int, th, c, r []float64) {
	switch L {
	case 16:
		logisticResid16(x, y, pat, i0, i1, d, th, c, r)
	case 4:
		logisticResid4(x, y, pat, i0, i1, d, th, c, r)
	default:
		logisticResidPortable(x, y, pat, i0, i1, d, L, th, c, r)
	}
}

type f64x4 = archsimd.Float64x4

func bc(v float64) f64x4 { return archsimd.BroadcastFloat64x4(v) }

func ld(s []float64) f64x4 { return archsimd.LoadFloat64x4Slice(s) }

// sigConsts are the constants of vsigmoidMinus, broadcast once (sigK)
// instead of once per use in the row loop.
type sigConsts struct {
	zero, one, lo, l2e, sh, hi, lo2 f64x4
	c                               [len(bexpC)]f64x4
}

// sigK are the broadcast constants, set at init where AVX2 is supported.
var sigK *sigConsts

// newSigConsts broadcasts the constants of blockSigmoid and blockExp.
func newSigConsts() *sigConsts {
	k := &sigConsts{zero: bc(0), one: bc(1), lo: bc(bexpMin), l2e: bc(bexpLog2e), sh: bc(bexpShifter),
		hi: bc(-bexpLn2Hi), lo2: bc(-bexpLn2Lo)}
	for i, v := range bexpC {
		k.c[i] = bc(v)
	}
	archsimd.ClearAVXUpperBits()
	return k
}

// vexp is blockExp on four lanes, operation for operation.
func (k *sigConsts) vexp(t f64x4) f64x4 {
	kd := t.MulAdd(k.l2e, k.sh)
	f := kd.Sub(k.sh)
	r := f.MulAdd(k.hi, t)
	r = f.MulAdd(k.lo2, r)
	p := k.c[0]
	for i := 1; i < len(k.c); i++ {
		p = p.MulAdd(r, k.c[i])
	}
	return p.AsInt64x4().Add(kd.AsInt64x4().ShiftAllLeft(52)).AsFloat64x4()
}

// negAbs is max(min(z, 0 − z), −708), the argument of the exponential.
func (k *sigConsts) negAbs(z f64x4) f64x4 {
	neg := k.zero.Sub(z)
	return neg.Merge(z, z.GreaterEqual(neg)).Max(k.lo) // z < neg ? z : neg
}

// sigmoidMinus is blockSigmoid(z) − y on four lanes, e = vexp(negAbs(z)).
func (k *sigConsts) sigmoidMinus(z, e, y f64x4) f64x4 {
	a := k.one.Div(k.one.Add(e))
	return a.Merge(e.Mul(a), z.GreaterEqual(k.zero)).Sub(y)
}

// vsigmoidMinus is blockSigmoid(z) − y on four lanes.
func (k *sigConsts) vsigmoidMinus(z, y f64x4) f64x4 {
	return k.sigmoidMinus(z, k.vexp(k.negAbs(z)), y)
}

// vsigmoidMinus4 is vsigmoidMinus on four vectors, the four dependency
// chains interleaved so that they overlap in the pipeline.
func (k *sigConsts) vsigmoidMinus4(z0, z1, z2, z3, y0, y1, y2, y3 f64x4) (f64x4, f64x4, f64x4, f64x4) {
	t0, t1, t2, t3 := k.negAbs(z0), k.negAbs(z1), k.negAbs(z2), k.negAbs(z3)
	k0 := t0.MulAdd(k.l2e, k.sh)
	k1 := t1.MulAdd(k.l2e, k.sh)
	k2 := t2.MulAdd(k.l2e, k.sh)
	k3 := t3.MulAdd(k.l2e, k.sh)
	f0, f1, f2, f3 := k0.Sub(k.sh), k1.Sub(k.sh), k2.Sub(k.sh), k3.Sub(k.sh)
	r0 := f0.MulAdd(k.lo2, f0.MulAdd(k.hi, t0))
	r1 := f1.MulAdd(k.lo2, f1.MulAdd(k.hi, t1))
	r2 := f2.MulAdd(k.lo2, f2.MulAdd(k.hi, t2))
	r3 := f3.MulAdd(k.lo2, f3.MulAdd(k.hi, t3))
	p0, p1, p2, p3 := k.c[0], k.c[0], k.c[0], k.c[0]
	for i := 1; i < len(k.c); i++ {
		c := k.c[i]
		p0, p1, p2, p3 = p0.MulAdd(r0, c), p1.MulAdd(r1, c), p2.MulAdd(r2, c), p3.MulAdd(r3, c)
	}
	e0 := p0.AsInt64x4().Add(k0.AsInt64x4().ShiftAllLeft(52)).AsFloat64x4()
	e1 := p1.AsInt64x4().Add(k1.AsInt64x4().ShiftAllLeft(52)).AsFloat64x4()
	e2 := p2.AsInt64x4().Add(k2.AsInt64x4().ShiftAllLeft(52)).AsFloat64x4()
	e3 := p3.AsInt64x4().Add(k3.AsInt64x4().ShiftAllLeft(52)).AsFloat64x4()
	return k.sigmoidMinus(z0, e0, y0), k.sigmoidMinus(z1, e1, y1), k.sigmoidMinus(z2, e2, y2), k.sigmoidMinus(z3, e3, y3)
}

// rows4 returns rows i … i+3 of the N×d matrix x, of one length.
func rows4(x []float64, i, d int) (x0, x1, x2, x3 []float64) {
	x0 = x[i*d : i*d+d]
	x1, x2, x3 = x[(i+1)*d:(i+1)*d+d], x[(i+2)*d:(i+2)*d+d], x[(i+3)*d:(i+3)*d+d]
	return x0, x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
}

// store16 stores four vectors to s[0:16].
func store16(s []float64, a0, a1, a2, a3 f64x4) {
	s = s[:16]
	a0.StoreSlice(s[0:4])
	a1.StoreSlice(s[4:8])
	a2.StoreSlice(s[8:12])
	a3.StoreSlice(s[12:16])
}

// logisticResid4 is logisticResidPortable with four lanes in one AVX2
// register, four rows at a time (four independent chains).
func logisticResid4(x, y []float64, pat []int32, i0, i1, d int, th, c, r []float64) {
	const L = 4
	k := sigK
	th = th[:d*L]
	i := i0
	for ; i+4 <= i1; i += 4 {
		x0 := x[i*d : i*d+d]
		x1, x2, x3 := x[(i+1)*d:(i+1)*d+d], x[(i+2)*d:(i+2)*d+d], x[(i+3)*d:(i+3)*d+d]
		x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
		p := pat[i : i+4]
		a0, a1 := ld(c[int(p[0])*L:int(p[0])*L+L]), ld(c[int(p[1])*L:int(p[1])*L+L])
		a2, a3 := ld(c[int(p[2])*L:int(p[2])*L+L]), ld(c[int(p[3])*L:int(p[3])*L+L])
		tj := th
		for j := range x0 {
			t := ld(tj[0:4])
			tj = tj[L:]
			a0, a1 = bc(x0[j]).MulAdd(t, a0), bc(x1[j]).MulAdd(t, a1)
			a2, a3 = bc(x2[j]).MulAdd(t, a2), bc(x3[j]).MulAdd(t, a3)
		}
		yi := y[i : i+4]
		a0, a1, a2, a3 = k.vsigmoidMinus4(a0, a1, a2, a3, bc(yi[0]), bc(yi[1]), bc(yi[2]), bc(yi[3]))
		store16(r[(i-i0)*L:], a0, a1, a2, a3)
	}
	for ; i < i1; i++ {
		r0 := x[i*d : i*d+d]
		p0 := int(pat[i]) * L
		a := ld(c[p0 : p0+L])
		for j := range r0 {
			a = bc(r0[j]).MulAdd(ld(th[j*L:j*L+L]), a)
		}
		k.vsigmoidMinus(a, bc(y[i])).StoreSlice(r[(i-i0)*L : (i-i0+1)*L])
	}
	archsimd.ClearAVXUpperBits()
}

// logisticResid16 is logisticResidPortable with sixteen lanes in four
// AVX2 registers, two rows at a time.
func logisticResid16(x, y []float64, pat []int32, i0, i1, d int, th, c, r []float64) {
	const L = blockLanes
	k := sigK
	th = th[:d*L]
	i := i0
	for ; i+2 <= i1; i += 2 {
		r0 := x[i*d : i*d+d]
		r1 := x[(i+1)*d : (i+1)*d+d]
		r1 = r1[:len(r0)]
		p0, p1 := int(pat[i])*L, int(pat[i+1])*L
		c0, c1 := c[p0:p0+L], c[p1:p1+L]
		a0, a1, a2, a3 := ld(c0[0:4]), ld(c0[4:8]), ld(c0[8:12]), ld(c0[12:16])
		b0, b1, b2, b3 := ld(c1[0:4]), ld(c1[4:8]), ld(c1[8:12]), ld(c1[12:16])
		tj := th
		for j := range r0 {
			t0, t1, t2, t3 := ld(tj[0:4]), ld(tj[4:8]), ld(tj[8:12]), ld(tj[12:16])
			tj = tj[L:]
			x0, x1 := bc(r0[j]), bc(r1[j])
			a0, a1, a2, a3 = x0.MulAdd(t0, a0), x0.MulAdd(t1, a1), x0.MulAdd(t2, a2), x0.MulAdd(t3, a3)
			b0, b1, b2, b3 = x1.MulAdd(t0, b0), x1.MulAdd(t1, b1), x1.MulAdd(t2, b2), x1.MulAdd(t3, b3)
		}
		y0, y1 := bc(y[i]), bc(y[i+1])
		a0, a1, a2, a3 = k.vsigmoidMinus4(a0, a1, a2, a3, y0, y0, y0, y0)
		store16(r[(i-i0)*L:], a0, a1, a2, a3)
		b0, b1, b2, b3 = k.vsigmoidMinus4(b0, b1, b2, b3, y1, y1, y1, y1)
		store16(r[(i-i0+1)*L:], b0, b1, b2, b3)
	}
	for ; i < i1; i++ {
		r0 := x[i*d : i*d+d]
		p0 := int(pat[i]) * L
		c0 := c[p0 : p0+L]
		a0, a1, a2, a3 := ld(c0[0:4]), ld(c0[4:8]), ld(c0[8:12]), ld(c0[12:16])
		tj := th
		for j := range r0 {
			x0 := bc(r0[j])
			a0, a1, a2, a3 = x0.MulAdd(ld(tj[0:4]), a0), x0.MulAdd(ld(tj[4:8]), a1), x0.MulAdd(ld(tj[8:12]), a2), x0.MulAdd(ld(tj[12:16]), a3)
			tj = tj[L:]
		}
		y0 := bc(y[i])
		a0, a1, a2, a3 = k.vsigmoidMinus4(a0, a1, a2, a3, y0, y0, y0, y0)
		store16(r[(i-i0)*L:], a0, a1, a2, a3)
	}
	archsimd.ClearAVXUpperBits()
}

// logisticSumsSIMD, the row kernel of the sums (the row split and the
// fused kernels' last rows), is logisticSumsPortable with the lanes in
// AVX2 registers, rows in pairs: it dispatches on the lane count.
func logisticSumsSIMD(x []float64, pat []int32, i0, i1, d, L int, r, g, s []float64) {
	switch L {
	case blockLanes:
		patternSums(pat, i0, i1, L, r, s)
		columnSums16(x, i0, i1, d, r, g)
	case blockLanesSmall:
		patternSums(pat, i0, i1, L, r, s)
		columnSums4(x, i0, i1, d, r, g)
	default:
		logisticSumsPortable(x, pat, i0, i1, d, L, r, g, s)
	}
}

// patternSums adds r_i to S_{p(i)} for rows i0 … i1−1 in row order.
func patternSums(pat []int32, i0, i1, L int, r, s []float64) {
	for i := i0; i < i1; i++ {
		p, ri := int(pat[i])*L, r[(i-i0)*L:(i-i0+1)*L]
		for l := 0; l+4 <= L; l += 4 {
			ld(s[p+l : p+l+4]).Add(ld(ri[l : l+4])).StoreSlice(s[p+l : p+l+4])
		}
	}
	archsimd.ClearAVXUpperBits()
}

// columnSums16 adds x_ij·r_i to g_j (16 lanes) for every column and rows
// i0 … i1−1, two rows at a time: g_j = fma(x_{i+1,j}, r_{i+1},
// fma(x_ij, r_i, g_j)).
func columnSums16(x []float64, i0, i1, d int, r, g []float64) {
	const L = blockLanes
	g = g[:d*L]
	i := i0
	for ; i+2 <= i1; i += 2 {
		r0, r1 := r[(i-i0)*L:(i-i0+1)*L], r[(i-i0+1)*L:(i-i0+2)*L]
		a0, a1, a2, a3 := ld(r0[0:4]), ld(r0[4:8]), ld(r0[8:12]), ld(r0[12:16])
		b0, b1, b2, b3 := ld(r1[0:4]), ld(r1[4:8]), ld(r1[8:12]), ld(r1[12:16])
		x0, x1 := x[i*d:i*d+d], x[(i+1)*d:(i+1)*d+d]
		x1 = x1[:len(x0)]
		gj := g
		for j := range x0 {
			v0, v1 := bc(x0[j]), bc(x1[j])
			v1.MulAdd(b0, v0.MulAdd(a0, ld(gj[0:4]))).StoreSlice(gj[0:4])
			v1.MulAdd(b1, v0.MulAdd(a1, ld(gj[4:8]))).StoreSlice(gj[4:8])
			v1.MulAdd(b2, v0.MulAdd(a2, ld(gj[8:12]))).StoreSlice(gj[8:12])
			v1.MulAdd(b3, v0.MulAdd(a3, ld(gj[12:16]))).StoreSlice(gj[12:16])
			gj = gj[L:]
		}
	}
	for ; i < i1; i++ {
		r0 := r[(i-i0)*L : (i-i0+1)*L]
		a0, a1, a2, a3 := ld(r0[0:4]), ld(r0[4:8]), ld(r0[8:12]), ld(r0[12:16])
		gj := g
		for _, xv := range x[i*d : i*d+d] {
			v0 := bc(xv)
			v0.MulAdd(a0, ld(gj[0:4])).StoreSlice(gj[0:4])
			v0.MulAdd(a1, ld(gj[4:8])).StoreSlice(gj[4:8])
			v0.MulAdd(a2, ld(gj[8:12])).StoreSlice(gj[8:12])
			v0.MulAdd(a3, ld(gj[12:16])).StoreSlice(gj[12:16])
			gj = gj[L:]
		}
	}
	archsimd.ClearAVXUpperBits()
}

// columnSums4 is columnSums16 on four lanes.
func columnSums4(x []float64, i0, i1, d int, r, g []float64) {
	const L = blockLanesSmall
	g = g[:d*L]
	i := i0
	for ; i+2 <= i1; i += 2 {
		a, b := ld(r[(i-i0)*L:(i-i0+1)*L]), ld(r[(i-i0+1)*L:(i-i0+2)*L])
		x0, x1 := x[i*d:i*d+d], x[(i+1)*d:(i+1)*d+d]
		x1 = x1[:len(x0)]
		gj := g
		for j := range x0 {
			bc(x1[j]).MulAdd(b, bc(x0[j]).MulAdd(a, ld(gj[0:4]))).StoreSlice(gj[0:4])
			gj = gj[L:]
		}
	}
	for ; i < i1; i++ {
		a := ld(r[(i-i0)*L : (i-i0+1)*L])
		gj := g
		for _, xv := range x[i*d : i*d+d] {
			bc(xv).MulAdd(a, ld(gj[0:4])).StoreSlice(gj[0:4])
			gj = gj[L:]
		}
	}
	archsimd.ClearAVXUpperBits()
}

// logisticFusedSIMD dispatches on the lane count.
func logisticFusedSIMD(x, y []float64, pat []int32, n, d, L int, th, c, g, s []float64) {
	switch L {
	case blockLanes:
		logisticFused16(x, y, pat, n, d, th, c, g, s)
	case blockLanesSmall:
		logisticFused4(x, y, pat, n, d, th, c, g, s)
	default:
		logisticFusedPortable(x, y, pat, n, d, L, th, c, g, s)
	}
}

// addTo adds four vectors to s[0:16].
func addTo(s []float64, a0, a1, a2, a3 f64x4) {
	s = s[:16]
	ld(s[0:4]).Add(a0).StoreSlice(s[0:4])
	ld(s[4:8]).Add(a1).StoreSlice(s[4:8])
	ld(s[8:12]).Add(a2).StoreSlice(s[8:12])
	ld(s[12:16]).Add(a3).StoreSlice(s[12:16])
}

// logisticFused16 is logisticFusedPortable with sixteen lanes in four
// AVX2 registers, two rows at a time with their residuals in registers;
// a last odd row goes through the row kernels (same operations).
// The dot products repeat logisticResid16's inline on purpose: a helper
// for both returned its eight vectors through memory, 4–7 % slower on
// adult/R=32 (likewise logisticResid4's in logisticFused4).
func logisticFused16(x, y []float64, pat []int32, n, d int, th, c, g, s []float64) {
	const L = blockLanes
	k := sigK
	th, g = th[:d*L], g[:d*L]
	i := 0
	for ; i+2 <= n; i += 2 {
		r0, r1 := x[i*d:i*d+d], x[(i+1)*d:(i+1)*d+d]
		r1 = r1[:len(r0)]
		p0, p1 := int(pat[i])*L, int(pat[i+1])*L
		c0, c1 := c[p0:p0+L], c[p1:p1+L]
		a0, a1, a2, a3 := ld(c0[0:4]), ld(c0[4:8]), ld(c0[8:12]), ld(c0[12:16])
		b0, b1, b2, b3 := ld(c1[0:4]), ld(c1[4:8]), ld(c1[8:12]), ld(c1[12:16])
		tj := th
		for j := range r0 {
			t0, t1, t2, t3 := ld(tj[0:4]), ld(tj[4:8]), ld(tj[8:12]), ld(tj[12:16])
			tj = tj[L:]
			x0, x1 := bc(r0[j]), bc(r1[j])
			a0, a1, a2, a3 = x0.MulAdd(t0, a0), x0.MulAdd(t1, a1), x0.MulAdd(t2, a2), x0.MulAdd(t3, a3)
			b0, b1, b2, b3 = x1.MulAdd(t0, b0), x1.MulAdd(t1, b1), x1.MulAdd(t2, b2), x1.MulAdd(t3, b3)
		}
		y0, y1 := bc(y[i]), bc(y[i+1])
		a0, a1, a2, a3 = k.vsigmoidMinus4(a0, a1, a2, a3, y0, y0, y0, y0)
		b0, b1, b2, b3 = k.vsigmoidMinus4(b0, b1, b2, b3, y1, y1, y1, y1)
		addTo(s[p0:], a0, a1, a2, a3)
		addTo(s[p1:], b0, b1, b2, b3)
		gj := g
		for j := range r0 {
			x0, x1 := bc(r0[j]), bc(r1[j])
			x1.MulAdd(b0, x0.MulAdd(a0, ld(gj[0:4]))).StoreSlice(gj[0:4])
			x1.MulAdd(b1, x0.MulAdd(a1, ld(gj[4:8]))).StoreSlice(gj[4:8])
			x1.MulAdd(b2, x0.MulAdd(a2, ld(gj[8:12]))).StoreSlice(gj[8:12])
			x1.MulAdd(b3, x0.MulAdd(a3, ld(gj[12:16]))).StoreSlice(gj[12:16])
			gj = gj[L:]
		}
	}
	archsimd.ClearAVXUpperBits()
	logisticFusedLast(x, y, pat, i, n, d, L, th, c, g, s)
}

// logisticFused4 is logisticFusedPortable with four lanes in one AVX2
// register, four rows at a time with their residuals in registers (four
// interleaved σ chains); the last rows go through the row kernels (same
// operations).
func logisticFused4(x, y []float64, pat []int32, n, d int, th, c, g, s []float64) {
	const L = blockLanesSmall
	k := sigK
	th, g = th[:d*L], g[:d*L]
	i := 0
	for ; i+4 <= n; i += 4 {
		x0, x1, x2, x3 := rows4(x, i, d)
		p0, p1, p2, p3 := int(pat[i])*L, int(pat[i+1])*L, int(pat[i+2])*L, int(pat[i+3])*L
		a0, a1, a2, a3 := ld(c[p0:p0+L]), ld(c[p1:p1+L]), ld(c[p2:p2+L]), ld(c[p3:p3+L])
		tj := th
		for j := range x0 {
			t := ld(tj[0:4])
			tj = tj[L:]
			a0, a1 = bc(x0[j]).MulAdd(t, a0), bc(x1[j]).MulAdd(t, a1)
			a2, a3 = bc(x2[j]).MulAdd(t, a2), bc(x3[j]).MulAdd(t, a3)
		}
		yi := y[i : i+4]
		a0, a1, a2, a3 = k.vsigmoidMinus4(a0, a1, a2, a3, bc(yi[0]), bc(yi[1]), bc(yi[2]), bc(yi[3]))
		ld(s[p0 : p0+L]).Add(a0).StoreSlice(s[p0 : p0+L])
		ld(s[p1 : p1+L]).Add(a1).StoreSlice(s[p1 : p1+L])
		ld(s[p2 : p2+L]).Add(a2).StoreSlice(s[p2 : p2+L])
		ld(s[p3 : p3+L]).Add(a3).StoreSlice(s[p3 : p3+L])
		gj := g
		for j := range x0 {
			v := bc(x1[j]).MulAdd(a1, bc(x0[j]).MulAdd(a0, ld(gj[0:4])))
			bc(x3[j]).MulAdd(a3, bc(x2[j]).MulAdd(a2, v)).StoreSlice(gj[0:4])
			gj = gj[L:]
		}
	}
	archsimd.ClearAVXUpperBits()
	logisticFusedLast(x, y, pat, i, n, d, L, th, c, g, s)
}

// logisticFusedLast runs rows i … n−1 (at most three rows of four lanes
// or one row of sixteen) through the row kernels with the residuals
// on the stack.
func logisticFusedLast(x, y []float64, pat []int32, i, n, d, L int, th, c, g, s []float64) {
	if i >= n {
		return
	}
	var r [blockLanes]float64 // 16 ≥ 3 rows × 4 lanes
	logisticResidSIMD(x, y, pat, i, n, d, L, th, c, r[:])
	logisticSumsSIMD(x, pat, i, n, d, L, r[:], g, s)
}
