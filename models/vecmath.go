package models

import "math"

// Vectorised elementwise functions of the batched passes. Each has a
// portable definition here; with GOEXPERIMENT=simd on AVX-512 machines
// vecmath_simd.go replaces them with 8-lane twins that return the same bits
// (math.Exp's algorithm and operation order, math.Tanh's branches), checked
// by TestVecMathBits.

// sumExpShift returns Σ_k e^{z_k − m}, summed in the order of k.
var sumExpShift = func(z []float64, m float64) float64 {
	var s float64
	for _, v := range z {
		s += math.Exp(v - m)
	}
	return s
}

// expShift writes dst[k] = e^{src[k] − m} (dst may be src).
var expShift = func(dst, src []float64, m float64) {
	for k, v := range src[:len(dst)] {
		dst[k] = math.Exp(v - m)
	}
}

// tanhInPlace replaces h[j] by tanh(h[j]) and writes dh[j] = 1 − tanh²(h[j]).
var tanhInPlace = func(h, dh []float64) {
	for j, a := range h {
		t := math.Tanh(a)
		h[j], dh[j] = t, 1-t*t
	}
}
