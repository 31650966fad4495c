//go:build goexperiment.simd && amd64

package models

import (
	"math"
	"simd/archsimd"
)

func init() {
	// math.Exp takes its FMA path on every CPU with AVX-512 (which implies
	// FMA); the twins below follow that path.
	if archsimd.X86.AVX512() && archsimd.X86.FMA() {
		expK = newExpConsts()
		sumExpShift, expShift, tanhInPlace = sumExpShift8, expShift8, tanhInPlace8
		siluRows, siluBack = siluRows8, siluBack8
	}
	if archsimd.X86.AVX512() {
		toFloat32 = toFloat32x8
	}
}

// toFloat32x8 is toFloat32 on 8 lanes: VCVTPD2PS rounds to nearest even
// under the default MXCSR, as Go's float32 conversion does.
func toFloat32x8(dst []float32, src []float64) {
	n := len(dst)
	src = src[:n]
	j := 0
	for ; j+8 <= n; j += 8 {
		archsimd.LoadFloat64x8Slice(src[j:]).ConvertToFloat32().StoreSlice(dst[j:])
	}
	archsimd.ClearAVXUpperBits()
	for ; j < n; j++ {
		dst[j] = float32(src[j])
	}
}

type f64x8 = archsimd.Float64x8

func bc8(x float64) f64x8 { return archsimd.BroadcastFloat64x8(x) }

// Constants of math.Exp's amd64 assembly (Shibata's method, from SLEEF).
const (
	expLog2e = 1.4426950408889634073599246810018920
	expLn2U  = 0.69314718055966295651160180568695068359375
	expLn2L  = 0.28235290563031577122588448175013436025525412068e-12
)

var expTaylor = [...]float64{
	2.4801587301587301587e-5, 1.9841269841269841270e-4, 1.3888888888888888889e-3,
	8.3333333333333333333e-3, 4.1666666666666666667e-2, 1.6666666666666666667e-1, 0.5, 1.0,
}

// expConsts are mexp8's constants, broadcast once (expK) instead of at
// every call.
type expConsts struct {
	lo, hi, log2e, ln2U, ln2L, sixteenth, one, two f64x8
	taylor                                         [len(expTaylor)]f64x8
	bias                                           archsimd.Int64x8
}

// expK are the broadcast constants, set at init where AVX-512 is
// supported.
var expK *expConsts

func newExpConsts() *expConsts {
	k := &expConsts{lo: bc8(-700), hi: bc8(700), log2e: bc8(expLog2e), ln2U: bc8(-expLn2U), ln2L: bc8(-expLn2L),
		sixteenth: bc8(0.0625), one: bc8(1), two: bc8(2), bias: archsimd.BroadcastInt64x8(1023)}
	for i, v := range expTaylor {
		k.taylor[i] = bc8(v)
	}
	archsimd.ClearAVXUpperBits()
	return k
}

// mexp8 returns e^x on 8 lanes with the bits of math.Exp, and ok = false
// when a lane is outside [−700, 700] (or NaN), where the caller must use
// math.Exp (the assembly's overflow, underflow and subnormal branches).
func mexp8(x f64x8) (f64x8, bool) {
	k := expK
	in := x.GreaterEqual(k.lo).And(x.LessEqual(k.hi))
	if in.ToBits() != 0xff {
		return x, false
	}
	ef := x.Mul(k.log2e).RoundToEvenScaled(0)
	r := ef.MulAdd(k.ln2U, x)
	r = ef.MulAdd(k.ln2L, r)
	r = r.Mul(k.sixteenth)
	p := k.taylor[0]
	for i := 1; i < len(k.taylor); i++ {
		p = p.MulAdd(r, k.taylor[i])
	}
	r = r.Mul(p)
	for range 3 {
		r = r.Mul(r.Add(k.two))
	}
	r = r.MulAdd(r.Add(k.two), k.one)
	scale := ef.ConvertToInt64().Add(k.bias).ShiftAllLeft(52).AsFloat64x8()
	return r.Mul(scale), true
}

func sumExpShift8(z []float64, m float64) float64 {
	var s float64
	var t [8]float64
	k := 0
	for ; k+8 <= len(z); k += 8 {
		e, ok := mexp8(archsimd.LoadFloat64x8Slice(z[k : k+8]).Sub(bc8(m)))
		if !ok {
			break
		}
		e.Store(&t)
		archsimd.ClearAVXUpperBits() // the scalar sum below
		s += t[0]
		s += t[1]
		s += t[2]
		s += t[3]
		s += t[4]
		s += t[5]
		s += t[6]
		s += t[7]
	}
	if rest := z[k:]; len(rest) > 0 && len(rest) < 8 {
		if e, ok := mexp8(tailLanes(rest, m)); ok {
			e.Store(&t)
			archsimd.ClearAVXUpperBits()
			for _, v := range t[:len(rest)] {
				s += v
			}
			return s
		}
	}
	archsimd.ClearAVXUpperBits() // math.Exp below
	for _, v := range z[k:] {
		s += math.Exp(v - m)
	}
	return s
}

// tailLanes loads the w < 8 values of s minus m into the first w lanes,
// the other lanes 0 (whose exponential is discarded).
func tailLanes(s []float64, m float64) f64x8 {
	mask := archsimd.Mask64x8FromBits(uint8(0xff >> (8 - len(s))))
	return archsimd.LoadFloat64x8SlicePart(s).Sub(bc8(m)).Merge(bc8(0), mask)
}

func expShift8(dst, src []float64, m float64) {
	k := 0
	for ; k+8 <= len(dst); k += 8 {
		e, ok := mexp8(archsimd.LoadFloat64x8Slice(src[k : k+8]).Sub(bc8(m)))
		if !ok {
			break
		}
		e.StoreSlice(dst[k : k+8])
	}
	if rest := len(dst) - k; rest > 0 && rest < 8 {
		if e, ok := mexp8(tailLanes(src[k:len(dst)], m)); ok {
			e.StoreSlicePart(dst[k:])
			archsimd.ClearAVXUpperBits()
			return
		}
	}
	archsimd.ClearAVXUpperBits() // math.Exp below
	for ; k < len(dst); k++ {
		dst[k] = math.Exp(src[k] - m)
	}
}

// math.Tanh's constants.
var (
	tanhP = [...]float64{-9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3}
	tanhQ = [...]float64{1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3}
)

// mtanh8 is math.Tanh on 8 lanes; ok = false when a lane is not finite.
func mtanh8(x f64x8) (f64x8, bool) {
	const maxlog = 8.8029691931113054295988e+01
	zero, one := bc8(0), bc8(1)
	neg := x.Less(zero)
	z := x.Merge(zero.Sub(x), x.GreaterEqual(zero)) // |x| (−0 → +0 is irrelevant below)
	fin := z.LessEqual(bc8(math.MaxFloat64))
	if fin.ToBits() != 0xff {
		return x, false
	}
	// |x| ≥ 0.625: 1 − 2/(e^{2|x|}+1), sign restored.
	big := z.GreaterEqual(bc8(0.625))
	var hb f64x8
	if big.ToBits() != 0 {
		e, ok := mexp8(z.Mul(bc8(2)).Min(bc8(700)))
		if !ok {
			return x, false
		}
		hb = one.Sub(bc8(2).Div(e.Add(one)))
		hb = zero.Sub(hb).Merge(hb, neg)
		sat := one.Merge(zero.Sub(one), x.GreaterEqual(zero)) // ±1 beyond maxlog/2
		hb = sat.Merge(hb, z.Greater(bc8(0.5*maxlog)))
	}
	// |x| < 0.625: x + x·s·P(s)/Q(s), s = x² (x = ±0 returns x).
	s := x.Mul(x)
	pn := bc8(tanhP[0]).Mul(s).Add(bc8(tanhP[1])).Mul(s).Add(bc8(tanhP[2]))
	qd := s.Add(bc8(tanhQ[0])).Mul(s).Add(bc8(tanhQ[1])).Mul(s).Add(bc8(tanhQ[2]))
	hs := x.Add(x.Mul(s).Mul(pn).Div(qd))
	hs = x.Merge(hs, x.Equal(zero))
	return hb.Merge(hs, big), true
}

func tanhInPlace8(h, dh []float64) {
	one := bc8(1)
	j := 0
	for ; j+8 <= len(h); j += 8 {
		t, ok := mtanh8(archsimd.LoadFloat64x8Slice(h[j : j+8]))
		if !ok {
			break
		}
		t.StoreSlice(h[j : j+8])
		one.Sub(t.Mul(t)).StoreSlice(dh[j : j+8])
	}
	archsimd.ClearAVXUpperBits() // math.Tanh below
	for ; j < len(h); j++ {
		t := math.Tanh(h[j])
		h[j], dh[j] = t, 1-t*t
	}
}

// msigmoid8 is sigmoid on 8 lanes with its bits: 1/(1+e^{−z}) for z ≥ 0,
// e^z/(1+e^z) below, both from e^{−|z|}; ok = false when a lane has
// |z| > 700 or is NaN (the caller uses sigmoid).
func msigmoid8(z f64x8) (f64x8, bool) {
	zero, one := bc8(0), bc8(1)
	pos := z.GreaterEqual(zero)
	e, ok := mexp8(zero.Sub(z).Merge(z, pos))
	if !ok {
		return z, false
	}
	d := one.Add(e)
	return one.Div(d).Merge(e.Div(d), pos), true
}

// siluLanes calls vec(j, z[j:j+8], σ) for every 8-lane block of z that
// msigmoid8 covers and one(k, z_k, sigmoid(z_k)) for the other indices,
// clearing the upper register halves before the scalar calls and at the
// end.
func siluLanes(z []float64, vec func(j int, v, s f64x8), one func(k int, v, s float64)) {
	j := 0
	for ; j+8 <= len(z); j += 8 {
		v := archsimd.LoadFloat64x8Slice(z[j : j+8])
		if s, ok := msigmoid8(v); ok {
			vec(j, v, s)
			continue
		}
		archsimd.ClearAVXUpperBits() // sigmoid's math.Exp below
		for k := j; k < j+8; k++ {
			one(k, z[k], sigmoid(z[k]))
		}
	}
	archsimd.ClearAVXUpperBits()
	for ; j < len(z); j++ {
		one(j, z[j], sigmoid(z[j]))
	}
}

func siluRows8(z, a []float64) {
	a = a[:len(z)]
	siluLanes(z, func(j int, v, s f64x8) { v.Mul(s).StoreSlice(a[j : j+8]) },
		func(k int, v, s float64) { a[k] = v * s })
}

func siluBack8(z, d []float64) {
	d = d[:len(z)]
	one := bc8(1)
	siluLanes(z, func(j int, v, s f64x8) {
		f := s.Mul(one.Add(v.Mul(one.Sub(s))))
		archsimd.LoadFloat64x8Slice(d[j : j+8]).Mul(f).StoreSlice(d[j : j+8])
	}, func(k int, v, s float64) { d[k] *= s * (1 + v*(1-s)) })
}
