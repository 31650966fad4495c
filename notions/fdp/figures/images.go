package figures

// Images, the public view Ψ (Gaussian blur), the sharpness filter and the
// Fréchet distance of the diffusion study (E5, docs/feature-dp.md
// "Private image generation").

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/valid"
)

// DiffusionSide is the side of the study's images: Fashion-MNIST's 28×28
// averaged over 2×2 blocks.
const DiffusionSide = 14

// DiffusionImages returns the first n images of set (0: all) as 14×14
// images (2×2 block means) scaled to [−1, 1], one row per image, with Y
// the class index.
func DiffusionImages(set *data.ImageSet, n int) (*design.Data, error) {
	if set == nil || set.N == 0 {
		return nil, errors.New("fdp: DiffusionImages: no images")
	}
	if set.Rows != 2*DiffusionSide || set.Cols != 2*DiffusionSide {
		return nil, fmt.Errorf("fdp: DiffusionImages: %d×%d images, want 28×28", set.Rows, set.Cols)
	}
	if n <= 0 || n > set.N {
		n = set.N
	}
	const s = DiffusionSide
	x := make([]float64, n*s*s)
	y := make([]float64, n)
	for i := range n {
		img := set.Image(i)
		for r := range s {
			for c := range s {
				sum := int(img[2*r*28+2*c]) + int(img[2*r*28+2*c+1]) + int(img[(2*r+1)*28+2*c]) + int(img[(2*r+1)*28+2*c+1])
				x[i*s*s+r*s+c] = float64(sum)/(2*255) - 1
			}
		}
		y[i] = float64(set.Labels[i])
	}
	return design.NewData(x, y, n, s*s)
}

// Blur returns Ψ(img): the side×side image convolved with a Gaussian of
// standard deviation sigma pixels (separable, kernel radius ⌈3σ⌉, weights
// normalised to sum 1, borders replicated). sigma = 0 returns a copy.
func Blur(img []float64, side int, sigma float64) ([]float64, error) {
	if side <= 0 || len(img) != side*side {
		return nil, fmt.Errorf("fdp: Blur: %d values for a %d×%d image", len(img), side, side)
	}
	if err := valid.NonNegative("σ", sigma); err != nil {
		return nil, fmt.Errorf("fdp: Blur: %w", err)
	}
	if sigma == 0 {
		return slices.Clone(img), nil
	}
	rad := int(math.Ceil(3 * sigma))
	k := make([]float64, 2*rad+1)
	var sum float64
	for j := range k {
		d := float64(j - rad)
		k[j] = math.Exp(-d * d / (2 * sigma * sigma))
		sum += k[j]
	}
	for j := range k {
		k[j] /= sum
	}
	clamp := func(v int) int { return min(side-1, max(0, v)) }
	tmp := make([]float64, len(img))
	for r := range side {
		for c := range side {
			var v float64
			for j, w := range k {
				v += w * img[r*side+clamp(c+j-rad)]
			}
			tmp[r*side+c] = v
		}
	}
	out := make([]float64, len(img))
	for r := range side {
		for c := range side {
			var v float64
			for j, w := range k {
				v += w * tmp[clamp(r+j-rad)*side+c]
			}
			out[r*side+c] = v
		}
	}
	return out, nil
}

// BlurData returns Ψ(X): every row of d (a side×side image) blurred with
// sigma, labels kept.
func BlurData(d *design.Data, side int, sigma float64) (*design.Data, error) {
	if d == nil || d.N == 0 {
		return nil, errors.New("fdp: BlurData: no images")
	}
	p := side * side
	if d.D != p {
		return nil, fmt.Errorf("fdp: BlurData: rows of %d values for %d×%d images", d.D, side, side)
	}
	x := make([]float64, len(d.X))
	for i := range d.N {
		b, err := Blur(d.X[i*p:(i+1)*p], side, sigma)
		if err != nil {
			return nil, err
		}
		copy(x[i*p:], b)
	}
	return design.NewData(x, slices.Clone(d.Y), d.N, p)
}

// Sharpness is the variance of the discrete Laplacian
// L = x[r−1,c] + x[r+1,c] + x[r,c−1] + x[r,c+1] − 4x[r,c] over the interior
// pixels of a side×side image (side ≥ 3): the focus measure of Pech-Pacheco
// et al. (2000), large for sharp images and small for blurred ones.
func Sharpness(img []float64, side int) (float64, error) {
	if side < 3 || len(img) != side*side {
		return 0, fmt.Errorf("fdp: Sharpness: %d values for a %d×%d image (side ≥ 3)", len(img), side, side)
	}
	var s, s2 float64
	n := float64((side - 2) * (side - 2))
	for r := 1; r < side-1; r++ {
		for c := 1; c < side-1; c++ {
			l := img[(r-1)*side+c] + img[(r+1)*side+c] + img[r*side+c-1] + img[r*side+c+1] - 4*img[r*side+c]
			s += l
			s2 += l * l
		}
	}
	m := s / n
	return max(0, s2/n-m*m), nil
}

// FilterThreshold is the sharpness rejection filter's threshold: the
// median Sharpness of the blurred public images Ψ(X) (one per row of
// public). Only public data enter it; samples whose sharpness is at least
// the threshold are kept.
func FilterThreshold(public *design.Data, side int) (float64, error) {
	if public == nil || public.N == 0 {
		return 0, errors.New("fdp: FilterThreshold: no public images")
	}
	p := side * side
	if public.D != p {
		return 0, fmt.Errorf("fdp: FilterThreshold: rows of %d values for %d×%d images", public.D, side, side)
	}
	v := make([]float64, public.N)
	for i := range v {
		var err error
		if v[i], err = Sharpness(public.X[i*p:(i+1)*p], side); err != nil {
			return 0, err
		}
	}
	slices.Sort(v)
	if n := len(v); n%2 == 1 {
		return v[n/2], nil
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, nil
}

// FrechetDistance returns the Fréchet distance between Gaussians fitted to
// two sets of d-dimensional points (row-major a: na×d, b: nb×d; sample
// covariances with divisor n−1):
//
//	FD = ‖μ_a − μ_b‖² + tr Σ_a + tr Σ_b − 2·tr (Σ_a^{1/2} Σ_b Σ_a^{1/2})^{1/2}
//
// (Dowson and Landau 1982; the FID of Heusel et al. 2017 on Inception
// features). Square roots use symmetric eigendecompositions with negative
// round-off eigenvalues set to 0. Both sets need at least 2 points.
func FrechetDistance(a []float64, na int, b []float64, nb, d int) (float64, error) {
	if d <= 0 || na < 2 || nb < 2 || len(a) != na*d || len(b) != nb*d {
		return 0, fmt.Errorf("fdp: FrechetDistance: %d and %d values for %d and %d points of dimension %d (≥ 2 points each)", len(a), len(b), na, nb, d)
	}
	for _, v := range [][]float64{a, b} {
		for _, x := range v {
			if !valid.Finite(x) {
				return 0, errors.New("fdp: FrechetDistance: non-finite value")
			}
		}
	}
	ma, ca := meanCov(a, na, d)
	mb, cb := meanCov(b, nb, d)
	var dm float64
	for j := range ma {
		dm += (ma[j] - mb[j]) * (ma[j] - mb[j])
	}
	sa, err := sqrtSym(ca)
	if err != nil {
		return 0, err
	}
	var m mat.Dense
	m.Product(sa, cb, sa)
	ms := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			ms.SetSym(i, j, (m.At(i, j)+m.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(ms, false) {
		return 0, errors.New("fdp: FrechetDistance: eigendecomposition failed")
	}
	var trSqrt float64
	for _, l := range eig.Values(nil) {
		trSqrt += math.Sqrt(max(0, l))
	}
	return max(0, dm+mat.Trace(ca)+mat.Trace(cb)-2*trSqrt), nil
}

// meanCov returns the mean and the sample covariance of n rows of x.
func meanCov(x []float64, n, d int) ([]float64, *mat.SymDense) {
	mu := make([]float64, d)
	for i := range n {
		for j, v := range x[i*d : (i+1)*d] {
			mu[j] += v
		}
	}
	for j := range mu {
		mu[j] /= float64(n)
	}
	c := make([]float64, n*d)
	for i := range n {
		for j, v := range x[i*d : (i+1)*d] {
			c[i*d+j] = v - mu[j]
		}
	}
	xc := mat.NewDense(n, d, c)
	cov := mat.NewSymDense(d, nil)
	cov.SymOuterK(1/float64(n-1), xc.T())
	return mu, cov
}

// sqrtSym returns the PSD square root of a symmetric matrix (negative
// eigenvalues set to 0).
func sqrtSym(s *mat.SymDense) (*mat.Dense, error) {
	var eig mat.EigenSym
	if !eig.Factorize(s, true) {
		return nil, errors.New("fdp: FrechetDistance: eigendecomposition failed")
	}
	var v mat.Dense
	eig.VectorsTo(&v)
	vals := eig.Values(nil)
	d := len(vals)
	var scaled mat.Dense
	scaled.CloneFrom(&v)
	for j, l := range vals {
		r := math.Sqrt(max(0, l))
		for i := range d {
			scaled.Set(i, j, scaled.At(i, j)*r)
		}
	}
	var out mat.Dense
	out.Mul(&scaled, v.T())
	return &out, nil
}
