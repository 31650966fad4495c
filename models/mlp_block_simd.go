//go:build goexperiment.simd && amd64

package models

import (
	"math"
	"simd/archsimd"
)

func init() {
	if archsimd.X86.AVX2() && archsimd.X86.FMA() {
		mlpBlockKernel = mlpBlockSIMD
	}
}

// vlog1p is blockLog1p on four lanes.
func vlog1p(e f64x4) f64x4 {
	zero, one := bc(0), bc(1)
	big := e.Greater(bc(math.Sqrt2 - 1))
	num := e.Sub(one).Merge(e, big)
	den := e.Add(bc(3)).Merge(e.Add(bc(2)), big)
	add := bc(bexpLn2).Merge(zero, big)
	s := num.Div(den)
	s2 := s.Mul(s)
	q := bc(blog1pC[0])
	for _, c := range blog1pC[1:] {
		q = q.MulAdd(s2, bc(c))
	}
	return s.Add(s).MulAdd(q, add)
}

// vsoftplus is blockSoftplus on four lanes.
func vsoftplus(a f64x4) (h, dh f64x4) {
	zero, one := bc(0), bc(1)
	neg := zero.Sub(a)
	t := neg.Merge(a, a.GreaterEqual(neg)).Max(bc(bexpMin))
	e := vexp(t)
	r := one.Div(one.Add(e))
	pos := a.Merge(zero, a.Greater(zero))
	h = pos.Add(vlog1p(e))
	dh = r.Merge(e.Mul(r), a.GreaterEqual(zero))
	return h, dh
}

// mlpBlockSIMD is mlpBlockPortable with the four lanes in one AVX2
// register.
func mlpBlockSIMD(x, y []float64, n, d, H int, th, g, hs, ds []float64) {
	const L = mlpLanes
	oB1, oW2, oB2 := d*H, d*H+H, d*H+2*H
	two := bc(2)
	for i := range n {
		row := x[i*d : i*d+d]
		for u := range H {
			a := ld(th[(oB1+u)*L:])
			for j, xv := range row {
				a = bc(xv).MulAdd(ld(th[(j*H+u)*L:]), a)
			}
			h, dh := vsoftplus(a)
			h.StoreSlice(hs[u*L:])
			dh.StoreSlice(ds[u*L:])
		}
		o := ld(th[oB2*L:])
		for u := range H {
			o = ld(hs[u*L:]).MulAdd(ld(th[(oW2+u)*L:]), o)
		}
		del := o.Sub(bc(y[i])).Mul(two)
		ld(g[oB2*L:]).Add(del).StoreSlice(g[oB2*L:])
		for u := range H {
			w2 := ld(th[(oW2+u)*L:])
			ld(hs[u*L:]).MulAdd(del, ld(g[(oW2+u)*L:])).StoreSlice(g[(oW2+u)*L:])
			d1 := ld(ds[u*L:]).Mul(w2.Mul(del))
			ld(g[(oB1+u)*L:]).Add(d1).StoreSlice(g[(oB1+u)*L:])
			for j, xv := range row {
				k := (j*H + u) * L
				bc(xv).MulAdd(d1, ld(g[k:])).StoreSlice(g[k:])
			}
		}
	}
}
