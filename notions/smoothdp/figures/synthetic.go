package figures

// Synthetic generators of the smoothdp figures (docs/smooth-rdp.md,
// 'Reconstruction choices', figure parameters): clustered data for
// deduplication, missing values for imputation, approximately-low-rank data
// for PCA and the pathological deduplication dataset of the paper's Sec. 5.1.

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/notions/smoothdp"
	"gonum.org/v1/gonum/mat"
)

// UniformBall draws a point uniformly from the d-ball of radius R.
func UniformBall(rng *rand.Rand, d int, radius float64) []float64 {
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

// Clustered draws n points in the d-ball of radius R: nClusters
// clusters of clusterSize points within r/2 of a centre (centres in the ball
// of radius R/2), the rest uniform in the ball. It returns an error unless
// nClusters·clusterSize ≤ n and the sizes are positive.
func Clustered(rng *rand.Rand, n, d, nClusters, clusterSize int, r, radius float64) ([][]float64, error) {
	if rng == nil {
		return nil, fmt.Errorf("smoothdp: nil rng")
	}
	if n < 1 || d < 1 || nClusters < 0 || clusterSize < 1 || nClusters*clusterSize > n || !(r > 0) || !(radius > 0) {
		return nil, fmt.Errorf("smoothdp: invalid clustered-data parameters n=%d d=%d clusters=%d×%d r=%g R=%g", n, d, nClusters, clusterSize, r, radius)
	}
	S := make([][]float64, 0, n)
	for c := 0; c < nClusters; c++ {
		centre := UniformBall(rng, d, radius/2)
		for k := 0; k < clusterSize; k++ {
			off := UniformBall(rng, d, r/2)
			x := make([]float64, d)
			for j := range x {
				x[j] = centre[j] + off[j]
			}
			S = append(S, x)
		}
	}
	for len(S) < n {
		S = append(S, UniformBall(rng, d, radius))
	}
	rng.Shuffle(len(S), func(i, j int) { S[i], S[j] = S[j], S[i] })
	return S, nil
}

// WithMissing returns a copy of S in which m distinct random rows each
// lose between 1 and d−1 random coordinates (set to NaN), so every row keeps
// at least one observed value.
func WithMissing(rng *rand.Rand, S [][]float64, m int) ([][]float64, error) {
	if rng == nil {
		return nil, fmt.Errorf("smoothdp: nil rng")
	}
	if m < 0 || m > len(S) || len(S) == 0 || len(S[0]) < 2 {
		return nil, fmt.Errorf("smoothdp: cannot blank %d of %d rows (d must be ≥ 2)", m, len(S))
	}
	out := make([][]float64, len(S))
	for i, x := range S {
		out[i] = append([]float64(nil), x...)
	}
	d := len(S[0])
	for _, i := range rng.Perm(len(S))[:m] {
		k := 1 + rng.IntN(d-1)
		for _, j := range rng.Perm(d)[:k] {
			out[i][j] = math.NaN()
		}
	}
	return out, nil
}

// LowRank draws n centred rows in R^d with covariance spectrum
// (top[0], …, top[s−1], tail/(d−s), …) in a random orthonormal basis
// (Gaussian rows, centred, then rows with ‖x‖ > R rescaled to norm R). It also returns the basis (d×d, columns = eigen-directions).
func LowRank(rng *rand.Rand, n, d int, top []float64, tail, radius float64) ([][]float64, *mat.Dense, error) {
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

// PathologicalDedup builds the Sec. 5.1 attack on deduplication: points
// x0 + r(1−10⁻⁹)·e_i (i = 1..n−1, x0 = 0; pairwise ≈ r√2 apart, all within r
// of x0) plus one far point far·e_d. S has no good cluster; its neighbour S'
// (far point replaced by x0, returned second) has one good cluster of size n,
// so deduplication removes n − 1 points: empirical ℓ0 = n − 1. Needs d ≥ n.
func PathologicalDedup(n, d int, r, far float64) (S, S2 [][]float64, err error) {
	if n < 3 || d < n || !(r > 0) || !(far > 4*r) {
		return nil, nil, fmt.Errorf("smoothdp: pathological dedup needs n ≥ 3, d ≥ n, r > 0, far > 4r (n=%d d=%d r=%g far=%g)", n, d, r, far)
	}
	S = make([][]float64, n)
	for i := 0; i < n-1; i++ {
		S[i] = make([]float64, d)
		S[i][i] = r * (1 - 1e-9)
	}
	S[n-1] = make([]float64, d)
	S[n-1][d-1] = far
	S2 = smoothdp.Replace(S, n-1, make([]float64, d))
	return S, S2, nil
}
