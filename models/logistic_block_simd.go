//go:build goexperiment.simd && amd64

package models

import "simd/archsimd"

func init() {
	if archsimd.X86.AVX2() && archsimd.X86.FMA() {
		logisticBlockKernel = logisticBlockSIMD
	}
}

// logisticBlockSIMD dispatches on the lane count.
func logisticBlockSIMD(x, y []float64, pat []int32, n, d, L int, th, c, g, s []float64) {
	switch L {
	case 16:
		logisticBlockSIMD16(x, y, pat, n, d, th, c, g, s)
	case 4:
		logisticBlockSIMD4(x, y, pat, n, d, th, c, g, s)
	default:
		logisticBlockPortable(x, y, pat, n, d, L, th, c, g, s)
	}
}

type f64x4 = archsimd.Float64x4

func bc(v float64) f64x4 { return archsimd.BroadcastFloat64x4(v) }

// vexp is blockExp on four lanes, operation for operation.
func vexp(t f64x4) f64x4 {
	kd := t.MulAdd(bc(bexpLog2e), bc(bexpShifter))
	k := kd.Sub(bc(bexpShifter))
	r := k.MulAdd(bc(-bexpLn2Hi), t)
	r = k.MulAdd(bc(-bexpLn2Lo), r)
	p := bc(bexpC[0])
	for _, c := range bexpC[1:] {
		p = p.MulAdd(r, bc(c))
	}
	return p.AsInt64x4().Add(kd.AsInt64x4().ShiftAllLeft(52)).AsFloat64x4()
}

// vsigmoidMinus is blockSigmoid(z) − y on four lanes.
func vsigmoidMinus(z f64x4, y float64) f64x4 {
	zero, one := bc(0), bc(1)
	neg := zero.Sub(z)
	t := neg.Merge(z, z.GreaterEqual(neg)) // z < neg ? z : neg
	t = t.Max(bc(bexpMin))
	e := vexp(t)
	den := one.Add(e)
	a := one.Div(den)
	return a.Merge(e.Mul(a), z.GreaterEqual(zero)).Sub(bc(y))
}

func ld(s []float64) f64x4 { return archsimd.LoadFloat64x4Slice(s) }

// vsigmoidMinus4 is vsigmoidMinus on four vectors with one y, the four
// dependency chains interleaved so that they overlap in the pipeline.
func vsigmoidMinus4(z0, z1, z2, z3 f64x4, y float64) (f64x4, f64x4, f64x4, f64x4) {
	zero, one, lo := bc(0), bc(1), bc(bexpMin)
	t0 := zero.Sub(z0)
	t1 := zero.Sub(z1)
	t2 := zero.Sub(z2)
	t3 := zero.Sub(z3)
	t0 = t0.Merge(z0, z0.GreaterEqual(t0)).Max(lo)
	t1 = t1.Merge(z1, z1.GreaterEqual(t1)).Max(lo)
	t2 = t2.Merge(z2, z2.GreaterEqual(t2)).Max(lo)
	t3 = t3.Merge(z3, z3.GreaterEqual(t3)).Max(lo)
	l2e, sh, h, l := bc(bexpLog2e), bc(bexpShifter), bc(-bexpLn2Hi), bc(-bexpLn2Lo)
	k0 := t0.MulAdd(l2e, sh)
	k1 := t1.MulAdd(l2e, sh)
	k2 := t2.MulAdd(l2e, sh)
	k3 := t3.MulAdd(l2e, sh)
	f0, f1, f2, f3 := k0.Sub(sh), k1.Sub(sh), k2.Sub(sh), k3.Sub(sh)
	r0 := f0.MulAdd(l, f0.MulAdd(h, t0))
	r1 := f1.MulAdd(l, f1.MulAdd(h, t1))
	r2 := f2.MulAdd(l, f2.MulAdd(h, t2))
	r3 := f3.MulAdd(l, f3.MulAdd(h, t3))
	c := bc(bexpC[0])
	p0, p1, p2, p3 := c, c, c, c
	for _, cv := range bexpC[1:] {
		c = bc(cv)
		p0, p1, p2, p3 = p0.MulAdd(r0, c), p1.MulAdd(r1, c), p2.MulAdd(r2, c), p3.MulAdd(r3, c)
	}
	e0 := p0.AsInt64x4().Add(k0.AsInt64x4().ShiftAllLeft(52)).AsFloat64x4()
	e1 := p1.AsInt64x4().Add(k1.AsInt64x4().ShiftAllLeft(52)).AsFloat64x4()
	e2 := p2.AsInt64x4().Add(k2.AsInt64x4().ShiftAllLeft(52)).AsFloat64x4()
	e3 := p3.AsInt64x4().Add(k3.AsInt64x4().ShiftAllLeft(52)).AsFloat64x4()
	a0, a1, a2, a3 := one.Div(one.Add(e0)), one.Div(one.Add(e1)), one.Div(one.Add(e2)), one.Div(one.Add(e3))
	yv := bc(y)
	return a0.Merge(e0.Mul(a0), z0.GreaterEqual(zero)).Sub(yv),
		a1.Merge(e1.Mul(a1), z1.GreaterEqual(zero)).Sub(yv),
		a2.Merge(e2.Mul(a2), z2.GreaterEqual(zero)).Sub(yv),
		a3.Merge(e3.Mul(a3), z3.GreaterEqual(zero)).Sub(yv)
}

func addTo(s []float64, a0, a1, a2, a3 f64x4) {
	s = s[:16]
	ld(s[0:4]).Add(a0).StoreSlice(s[0:4])
	ld(s[4:8]).Add(a1).StoreSlice(s[4:8])
	ld(s[8:12]).Add(a2).StoreSlice(s[8:12])
	ld(s[12:16]).Add(a3).StoreSlice(s[12:16])
}

// logisticBlockSIMD4 is logisticBlockPortable with four lanes in one AVX2
// register.
func logisticBlockSIMD4(x, y []float64, pat []int32, n, d int, th, c, g, s []float64) {
	const L = 4
	th, g = th[:d*L], g[:d*L]
	i := 0
	for ; i+2 <= n; i += 2 {
		r0 := x[i*d : i*d+d]
		r1 := x[(i+1)*d : (i+1)*d+d]
		r1 = r1[:len(r0)]
		p0, p1 := int(pat[i])*L, int(pat[i+1])*L
		a, b := ld(c[p0:p0+L]), ld(c[p1:p1+L])
		tj := th
		for j := range r0 {
			t := ld(tj[0:4])
			tj = tj[L:]
			a, b = bc(r0[j]).MulAdd(t, a), bc(r1[j]).MulAdd(t, b)
		}
		a, b = vsigmoidMinus(a, y[i]), vsigmoidMinus(b, y[i+1])
		ld(s[p0 : p0+L]).Add(a).StoreSlice(s[p0 : p0+L])
		ld(s[p1 : p1+L]).Add(b).StoreSlice(s[p1 : p1+L])
		gj := g
		for j := range r0 {
			bc(r1[j]).MulAdd(b, bc(r0[j]).MulAdd(a, ld(gj[0:4]))).StoreSlice(gj[0:4])
			gj = gj[L:]
		}
	}
	for ; i < n; i++ {
		r0 := x[i*d : i*d+d]
		p0 := int(pat[i]) * L
		a := ld(c[p0 : p0+L])
		for j := range r0 {
			a = bc(r0[j]).MulAdd(ld(th[j*L:j*L+L]), a)
		}
		a = vsigmoidMinus(a, y[i])
		ld(s[p0 : p0+L]).Add(a).StoreSlice(s[p0 : p0+L])
		for j := range r0 {
			bc(r0[j]).MulAdd(a, ld(g[j*L:j*L+L])).StoreSlice(g[j*L : j*L+L])
		}
	}
}

// logisticBlockSIMD16 is logisticBlockPortable with sixteen lanes in four
// AVX2 registers.
func logisticBlockSIMD16(x, y []float64, pat []int32, n, d int, th, c, g, s []float64) {
	const L = blockLanes
	th, g = th[:d*L], g[:d*L]
	i := 0
	for ; i+2 <= n; i += 2 {
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
		y0, y1 := y[i], y[i+1]
		a0, a1, a2, a3 = vsigmoidMinus4(a0, a1, a2, a3, y0)
		b0, b1, b2, b3 = vsigmoidMinus4(b0, b1, b2, b3, y1)
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
	for ; i < n; i++ {
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
		y0 := y[i]
		a0, a1, a2, a3 = vsigmoidMinus4(a0, a1, a2, a3, y0)
		addTo(s[p0:], a0, a1, a2, a3)
		gj := g
		for j := range r0 {
			x0 := bc(r0[j])
			x0.MulAdd(a0, ld(gj[0:4])).StoreSlice(gj[0:4])
			x0.MulAdd(a1, ld(gj[4:8])).StoreSlice(gj[4:8])
			x0.MulAdd(a2, ld(gj[8:12])).StoreSlice(gj[8:12])
			x0.MulAdd(a3, ld(gj[12:16])).StoreSlice(gj[12:16])
			gj = gj[L:]
		}
	}
}
