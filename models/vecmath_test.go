package models

import (
	"math"
	"math/rand/v2"
	"testing"
)

// vecInputs are values across the ranges the passes meet, the branch
// boundaries of math.Exp and math.Tanh, and special values.
func vecInputs() []float64 {
	rng := rand.New(rand.NewPCG(11, 12))
	xs := []float64{0, math.Copysign(0, -1), 0.625, -0.625, math.Nextafter(0.625, 0), 44.01, -44.01,
		700, -700, 700.5, -700.5, 709.7, 710, -745, -746, 1e-310, -1e-310, 1, -1,
		math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, -math.MaxFloat64}
	for range 20000 {
		switch rng.IntN(4) {
		case 0:
			xs = append(xs, rng.NormFloat64())
		case 1:
			xs = append(xs, 30*rng.NormFloat64())
		case 2:
			xs = append(xs, (rng.Float64()-0.5)*1500)
		default:
			xs = append(xs, rng.NormFloat64()*math.Exp(10*rng.NormFloat64()))
		}
	}
	return xs
}

func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// TestVecMathBits: the vectorised exp, softmax pieces, tanh and SiLU give
// the bits of math.Exp, math.Tanh and the scalar SiLU element by element
// (and the sums in order), whichever implementation the build uses.
func TestVecMathBits(t *testing.T) {
	xs := vecInputs()
	for _, shift := range []float64{0, 3.5, -20, 650} {
		got := make([]float64, len(xs))
		expShift(got, xs, shift)
		var want float64
		for k, v := range xs {
			e := math.Exp(v - shift)
			if !sameFloat(got[k], e) {
				t.Fatalf("expShift(%v − %v) = %v, math.Exp %v", v, shift, got[k], e)
			}
			if !math.IsNaN(v) {
				want += e
			}
		}
		fin := make([]float64, 0, len(xs))
		for _, v := range xs {
			if !math.IsNaN(v) {
				fin = append(fin, v)
			}
		}
		if s := sumExpShift(fin, shift); !sameFloat(s, want) {
			t.Fatalf("sumExpShift shift %v = %v, want %v", shift, s, want)
		}
	}
	// Short rows (the softmax of a few classes) take the masked tail.
	for w := 1; w <= 20; w++ {
		row := xs[100 : 100+w]
		got := make([]float64, w)
		expShift(got, row, 0.25)
		var want float64
		for k, v := range row {
			e := math.Exp(v - 0.25)
			want += e
			if !sameFloat(got[k], e) {
				t.Fatalf("width %d: expShift[%d] = %v, math.Exp %v", w, k, got[k], e)
			}
		}
		if s := sumExpShift(row, 0.25); !sameFloat(s, want) {
			t.Fatalf("width %d: sumExpShift = %v, want %v", w, s, want)
		}
	}
	a := make([]float64, len(xs))
	d := make([]float64, len(xs))
	for k := range d {
		d[k] = xs[len(xs)-1-k]
	}
	siluRows(xs, a)
	siluBack(xs, d)
	for k, v := range xs {
		s := sigmoid(v)
		ds := xs[len(xs)-1-k] * (s * (1 + v*(1-s)))
		if !sameFloat(a[k], v*s) || !sameFloat(d[k], ds) {
			t.Fatalf("silu(%v) = %v, %v; scalar %v, %v", v, a[k], d[k], v*s, ds)
		}
	}
	h := append([]float64(nil), xs...)
	dh := make([]float64, len(xs))
	tanhInPlace(h, dh)
	for k, v := range xs {
		w := math.Tanh(v)
		if !sameFloat(h[k], w) || !sameFloat(dh[k], 1-w*w) {
			t.Fatalf("tanh(%v) = %v, %v; math.Tanh %v", v, h[k], dh[k], w)
		}
	}
}

func BenchmarkVecMath(b *testing.B) {
	xs := make([]float64, 1280)
	rng := rand.New(rand.NewPCG(1, 1))
	for k := range xs {
		xs[k] = rng.NormFloat64() * 3
	}
	dst := make([]float64, len(xs))
	b.Run("expShift", func(b *testing.B) {
		for b.Loop() {
			expShift(dst, xs, 1)
		}
	})
	b.Run("math.Exp", func(b *testing.B) {
		for b.Loop() {
			for k, v := range xs {
				dst[k] = math.Exp(v - 1)
			}
		}
	})
	dh := make([]float64, len(xs))
	b.Run("tanh", func(b *testing.B) {
		for b.Loop() {
			copy(dst, xs)
			tanhInPlace(dst, dh)
		}
	})
	b.Run("math.Tanh", func(b *testing.B) {
		for b.Loop() {
			for k, v := range xs {
				dst[k] = math.Tanh(v)
				dh[k] = 1 - dst[k]*dst[k]
			}
		}
	})
}

// TestToFloat32Bits checks the float32 conversion (SIMD twin in the simd
// build) against Go's conversion on awkward values: ties, subnormals,
// overflow, ±0, ±Inf, NaN, and lengths with tails.
func TestToFloat32Bits(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 1 + 0x1p-24, 1 + 0x1p-23 + 0x1p-24, 0x1p-149, 0x1p-150, 0x1.8p-150,
		math.MaxFloat32, math.MaxFloat32 * 1.0000001, 1e300, -1e300, math.Inf(1), math.Inf(-1), math.NaN(), 3.14159, -2.71828e-20}
	r := rand.New(rand.NewPCG(8, 9))
	for range 101 {
		vals = append(vals, r.NormFloat64()*math.Pow(10, float64(r.IntN(60)-30)))
	}
	for n := range len(vals) + 1 {
		dst := make([]float32, n)
		toFloat32(dst, vals)
		for j, v := range vals[:n] {
			if w := float32(v); math.Float32bits(dst[j]) != math.Float32bits(w) && !(w != w && dst[j] != dst[j]) {
				t.Fatalf("n = %d: float32(%v) = %v, want %v", n, v, dst[j], w)
			}
		}
	}
}
