package smoothdp

// Test helpers. The synthetic generators live in the reproduction layer
// (notions/smoothdp/figures), which the library never imports: the tests
// keep private copies of the two they draw from.

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// delta5 is the δ of the reference values of the tests.
const delta5 = 1e-5

// uniformBall draws a point uniformly from the d-ball of radius R.
func uniformBall(rng *rand.Rand, d int, radius float64) []float64 {
	x := make([]float64, d)
	s := 0.0
	for j := range x {
		x[j] = rng.NormFloat64()
		s += x[j] * x[j]
	}
	scale := radius * math.Pow(rng.Float64(), 1/float64(d)) / math.Sqrt(s)
	for j := range x {
		x[j] *= scale
	}
	return x
}

// lowRank draws n centred rows in R^d with covariance spectrum
// (top[0], …, top[s−1], tail/(d−s), …) in a random orthonormal basis
// (Gaussian rows, centred, then rows with ‖x‖ > R rescaled to norm R). It also returns the basis (d×d, columns = eigen-directions).
func lowRank(rng *rand.Rand, n, d int, top []float64, tail, radius float64) ([][]float64, *mat.Dense, error) {
	s := len(top)
	if rng == nil || n < 2 || d < 2 || s < 1 || s >= d || tail < 0 || !(radius > 0) {
		return nil, nil, fmt.Errorf("smoothdp: invalid low-rank parameters n=%d d=%d s=%d tail=%g R=%g", n, d, s, tail, radius)
	}
	g := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	sd := make([]float64, d)
	for k := 0; k < d; k++ {
		if k < s {
			sd[k] = math.Sqrt(top[k])
		} else {
			sd[k] = math.Sqrt(tail / float64(d-s))
		}
	}
	z := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for k := 0; k < d; k++ {
			z.Set(i, k, sd[k]*rng.NormFloat64())
		}
	}
	var x mat.Dense
	x.Mul(z, q.T())
	mu := make([]float64, d)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			mu[j] += x.At(i, j) / float64(n)
		}
	}
	S := make([][]float64, n)
	for i := 0; i < n; i++ {
		row := make([]float64, d)
		nn := 0.0
		for j := 0; j < d; j++ {
			row[j] = x.At(i, j) - mu[j]
			nn += row[j] * row[j]
		}
		if nn = math.Sqrt(nn); nn > radius {
			for j := range row {
				row[j] *= radius / nn
			}
		}
		S[i] = row
	}
	return S, &q, nil
}
