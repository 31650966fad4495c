//go:build goexperiment.simd && amd64

package models

import (
	"math"
	"simd/archsimd"
)

func init() {
	if archsimd.X86.AVX2() && archsimd.X86.FMA() {
		softplusK = newSoftplusConsts()
		mlpBlockKernel = mlpBlockSIMD
	}
}

// softplusConsts are the constants of vsoftplus, broadcast once
// (softplusK).
type softplusConsts struct {
	*sigConsts
	two, three, cut, ln2 f64x4
	q                    [len(blog1pC)]f64x4
}

// softplusK are the broadcast constants, set at init where AVX2 is
// supported.
var softplusK *softplusConsts

func newSoftplusConsts() *softplusConsts {
	k := &softplusConsts{sigConsts: newSigConsts(), two: bc(2), three: bc(3), cut: bc(math.Sqrt2 - 1), ln2: bc(bexpLn2)}
	for i, v := range blog1pC {
		k.q[i] = bc(v)
	}
	archsimd.ClearAVXUpperBits()
	return k
}

// vlog1p is blockLog1p on four lanes.
func (k *softplusConsts) vlog1p(e f64x4) f64x4 {
	big := e.Greater(k.cut)
	num := e.Sub(k.one).Merge(e, big)
	den := e.Add(k.three).Merge(e.Add(k.two), big)
	add := k.ln2.Merge(k.zero, big)
	s := num.Div(den)
	s2 := s.Mul(s)
	q := k.q[0]
	for i := 1; i < len(k.q); i++ {
		q = q.MulAdd(s2, k.q[i])
	}
	return s.Add(s).MulAdd(q, add)
}

// vsoftplus is blockSoftplus on four lanes.
func (k *softplusConsts) vsoftplus(a f64x4) (h, dh f64x4) {
	e := k.vexp(k.negAbs(a))
	r := k.one.Div(k.one.Add(e))
	pos := a.Merge(k.zero, a.Greater(k.zero))
	h = pos.Add(k.vlog1p(e))
	dh = r.Merge(e.Mul(r), a.GreaterEqual(k.zero))
	return h, dh
}

// mlpBlockSIMD is mlpBlockPortable with the four lanes in one AVX2
// register; it ends with VZEROUPPER (see logisticResid4).
func mlpBlockSIMD(x, y []float64, n, d, H int, th, g, hs, ds []float64) {
	const L = mlpLanes
	oB1, oW2, oB2 := d*H, d*H+H, d*H+2*H
	k := softplusK
	for i := range n {
		row := x[i*d : i*d+d]
		for u := range H {
			a := ld(th[(oB1+u)*L:])
			for j, xv := range row {
				a = bc(xv).MulAdd(ld(th[(j*H+u)*L:]), a)
			}
			h, dh := k.vsoftplus(a)
			h.StoreSlice(hs[u*L:])
			dh.StoreSlice(ds[u*L:])
		}
		o := ld(th[oB2*L:])
		for u := range H {
			o = ld(hs[u*L:]).MulAdd(ld(th[(oW2+u)*L:]), o)
		}
		del := o.Sub(bc(y[i])).Mul(k.two)
		ld(g[oB2*L:]).Add(del).StoreSlice(g[oB2*L:])
		for u := range H {
			w2 := ld(th[(oW2+u)*L:])
			ld(hs[u*L:]).MulAdd(del, ld(g[(oW2+u)*L:])).StoreSlice(g[(oW2+u)*L:])
			d1 := ld(ds[u*L:]).Mul(w2.Mul(del))
			ld(g[(oB1+u)*L:]).Add(d1).StoreSlice(g[(oB1+u)*L:])
			for j, xv := range row {
				kk := (j*H + u) * L
				bc(xv).MulAdd(d1, ld(g[kk:])).StoreSlice(g[kk:])
			}
		}
	}
	archsimd.ClearAVXUpperBits()
}
