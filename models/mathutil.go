package models

import (
	"math"
	"math/bits"

	"gonum.org/v1/gonum/floats"
)

// sigmoid returns σ(z) = 1/(1+e^{−z}), evaluated without overflow for any z.
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// softplus returns log(1+e^{z}) = max(z,0) + log1p(e^{−|z|}), which is
// finite for every finite z.
func softplus(z float64) float64 {
	return math.Max(z, 0) + log1pSmall(math.Exp(-math.Abs(z)))
}

// log1pSmall returns log(1+x) for x ∈ [0, 1] to a few ulps, with one
// (assembly) math.Log instead of the slower math.Log1p: with u = fl(1+x),
// log(1+x) ≈ log(u)·x/(u−1) corrects the rounding of 1+x (Goldberg 1991,
// "What every computer scientist should know about floating-point
// arithmetic", Theorem 4).
func log1pSmall(x float64) float64 {
	u := 1 + x
	if u == 1 {
		return x
	}
	return math.Log(u) * x / (u - 1)
}

// logSumExp returns log Σ_k e^{z_k} = m + log Σ_k e^{z_k − m}, m = max z.
func logSumExp(z []float64) float64 {
	m := math.Inf(-1)
	for _, v := range z {
		if v > m {
			m = v
		}
	}
	if math.IsInf(m, 0) {
		return m
	}
	return m + math.Log(sumExpShift(z, m))
}

// softmaxInPlace overwrites z with softmax(z)_k = e^{z_k − lse(z)} and
// returns lse(z).
func softmaxInPlace(z []float64) float64 {
	lse := logSumExp(z)
	expShift(z, z, lse)
	return lse
}

// argmax returns the index of the largest value (the smallest such index
// on ties).
func argmax(z []float64) int {
	best := 0
	for k := 1; k < len(z); k++ {
		if z[k] > z[best] {
			best = k
		}
	}
	return best
}

// dot returns Σ_j a_j b_j (len(a) == len(b)); gonum's assembly kernel.
func dot(a, b []float64) float64 { return floats.Dot(a, b) }

// axpy performs y += alpha·x (len(x) == len(y)); gonum's assembly kernel.
func axpy(alpha float64, x, y []float64) { floats.AddScaled(y, alpha, x) }

// sumSq returns Σ_j a_j².
func sumSq(a []float64) float64 { return floats.Dot(a, a) }

// MaxParams caps a model's parameter count P: far above any model this
// library trains (2^40 float64 values are 8 TiB), and low enough that P's
// formula never overflows int. Validate refuses a shape with more (a
// model file's shape is untrusted input).
const MaxParams = 1 << 40

// paramsFit reports whether a·b + c ≤ MaxParams for a, b, c ≥ 0, without
// overflowing.
func paramsFit(a, b, c int) bool {
	if a < 0 || b < 0 || c < 0 || c > MaxParams {
		return false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return hi == 0 && lo <= MaxParams-uint64(c)
}
