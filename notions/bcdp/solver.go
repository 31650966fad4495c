package bcdp

import (
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/internal/valid"
	"gonum.org/v1/gonum/mat"
)

// The exact trust-region solver of the least-squares estimator: the global
// minimiser of a possibly indefinite quadratic over an ℓ2 ball. It is
// optimisation, not randomness: it draws nothing.

// TrustRegion returns the global minimiser of ½θᵀHθ − gᵀθ over ‖θ‖₂ ≤ R
// for any symmetric H (possibly indefinite): eigen-decompose H = QΛQᵀ; if H ≻
// 0 and ‖H⁻¹g‖ ≤ R the interior Newton point; otherwise θ(λ) = (H+λI)⁻¹g
// with λ ≥ max(0, −λ_min) chosen by bisection so that ‖θ(λ)‖ = R, and, in the
// "hard case" (g orthogonal to the bottom eigenspace), θ(−λ_min) plus the
// bottom eigenvector scaled to reach the boundary (Moré & Sorensen 1983).
func TrustRegion(h mat.Symmetric, g []float64, radius float64) ([]float64, error) {
	if err := checkTrustRegion(h, g, radius); err != nil {
		return nil, err
	}
	e := newEigenQuadratic(h, g)
	lmin := e.lam[0]
	scale := 0.0
	for _, v := range e.lam {
		scale = math.Max(scale, math.Abs(v))
	}
	tol := 1e-12 * math.Max(scale, 1)
	if lmin > tol && e.norm(0) <= radius {
		return e.back(e.coefAt(0)), nil
	}
	lo := math.Max(0, -lmin)
	gn := 0.0
	for _, v := range e.gq {
		gn += v * v
	}
	gn = math.Sqrt(gn)
	if th, ok := e.hardCase(radius, tol, gn, lo); ok {
		return th, nil
	}
	if e.norm(lo) <= radius && lo == 0 { // H ⪰ 0 singular-ish, interior
		return e.back(e.coefAt(0)), nil
	}
	hi := lo + gn/radius + scale + 1
	for e.norm(hi) > radius {
		hi = 2*hi + 1
	}
	lo2 := lo
	for it := 0; it < 200; it++ {
		mid := (lo2 + hi) / 2
		if mid == lo2 || mid == hi {
			break
		}
		if e.norm(mid) > radius {
			lo2 = mid
		} else {
			hi = mid
		}
	}
	return e.back(e.coefAt(hi)), nil
}

// checkTrustRegion validates the inputs of TrustRegion.
func checkTrustRegion(h mat.Symmetric, g []float64, radius float64) error {
	if h == nil {
		return errors.New("bcdp: trust region: nil H")
	}
	p := h.SymmetricDim()
	if len(g) != p || p == 0 {
		return fmt.Errorf("bcdp: trust region: H is %d×%d but g has %d entries", p, p, len(g))
	}
	if !valid.Finite(radius) || radius <= 0 {
		return fmt.Errorf("bcdp: trust region: radius %v must be finite and > 0", radius)
	}
	for i := 0; i < p; i++ {
		if !valid.Finite(g[i]) {
			return fmt.Errorf("bcdp: trust region: g[%d] = %v is not finite", i, g[i])
		}
		for j := 0; j < p; j++ {
			if !valid.Finite(h.At(i, j)) {
				return fmt.Errorf("bcdp: trust region: H[%d,%d] = %v is not finite", i, j, h.At(i, j))
			}
		}
	}
	return nil
}

// eigenQuadratic is ½θᵀHθ − gᵀθ in the eigenbasis of H = QΛQᵀ: lam are
// the eigenvalues (ascending), q the eigenvectors (columns, row-major
// p×p) and gq = Qᵀg.
type eigenQuadratic struct {
	p          int
	lam, q, gq []float64
}

func newEigenQuadratic(h mat.Symmetric, g []float64) eigenQuadratic {
	p := h.SymmetricDim()
	lam, q := jacobiEigen(h)
	gq := make([]float64, p) // Qᵀg
	for j := 0; j < p; j++ {
		for i := 0; i < p; i++ {
			gq[j] += q[i*p+j] * g[i]
		}
	}
	return eigenQuadratic{p: p, lam: lam, q: q, gq: gq}
}

// norm returns ‖(H+lI)⁻¹g‖.
func (e eigenQuadratic) norm(l float64) float64 {
	s := 0.0
	for j := range e.gq {
		t := e.gq[j] / (e.lam[j] + l)
		s += t * t
	}
	return math.Sqrt(s)
}

// back returns Q·coef.
func (e eigenQuadratic) back(coef []float64) []float64 {
	th := make([]float64, e.p)
	for j := 0; j < e.p; j++ {
		for i := 0; i < e.p; i++ {
			th[i] += e.q[i*e.p+j] * coef[j]
		}
	}
	return th
}

// coefAt returns the coefficients of (H+lI)⁻¹g in the eigenbasis.
func (e eigenQuadratic) coefAt(l float64) []float64 {
	c := make([]float64, e.p)
	for j := range c {
		c[j] = e.gq[j] / (e.lam[j] + l)
	}
	return c
}

// hardCase handles the "hard case": g has (numerically) no component on
// the bottom eigenspace and even λ = −λ_min stays inside the ball; it
// returns θ(−λ_min) plus the bottom eigenvector scaled to reach the
// boundary, and false when the case does not apply.
func (e eigenQuadratic) hardCase(radius, tol, gn, lo float64) ([]float64, bool) {
	lmin := e.lam[0]
	bottom := 0.0
	for j := range e.gq {
		if e.lam[j]-lmin <= tol {
			bottom += e.gq[j] * e.gq[j]
		}
	}
	if !(math.Sqrt(bottom) <= 1e-12*math.Max(gn, 1) && lo == -lmin) {
		return nil, false
	}
	c := make([]float64, e.p)
	s := 0.0
	for j := range e.gq {
		if e.lam[j]-lmin > tol {
			c[j] = e.gq[j] / (e.lam[j] - lmin)
			s += c[j] * c[j]
		}
	}
	if math.Sqrt(s) > radius {
		return nil, false
	}
	c[0] += math.Sqrt(math.Max(radius*radius-s, 0))
	return e.back(c), true
}

// Quadratic evaluates ½θᵀHθ − gᵀθ. Like gonum/mat, it treats mismatched
// sizes as a programmer error: it panics unless len(g) = len(θ) = the
// order of H (check them first when they come from user input).
func Quadratic(h mat.Symmetric, g, theta []float64) float64 {
	p := len(theta)
	v := 0.0
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			v += 0.5 * theta[i] * h.At(i, j) * theta[j]
		}
		v -= g[i] * theta[i]
	}
	return v
}

// jacobiEigen returns the eigenvalues of the symmetric matrix h in
// ascending order and the eigenvectors as the columns of a row-major p×p
// matrix, by the cyclic Jacobi method (pure Go and deterministic: the result
// does not depend on memory alignment, unlike assembly BLAS kernels).
func jacobiEigen(h mat.Symmetric) ([]float64, []float64) {
	p := h.SymmetricDim()
	a := make([]float64, p*p)
	v := make([]float64, p*p)
	for i := 0; i < p; i++ {
		for j := 0; j < p; j++ {
			a[i*p+j] = 0.5 * (h.At(i, j) + h.At(j, i))
		}
		v[i*p+i] = 1
	}
	for sweep := 0; sweep < 100; sweep++ {
		off, tot := 0.0, 0.0
		for i := 0; i < p; i++ {
			for j := 0; j < p; j++ {
				tot += a[i*p+j] * a[i*p+j]
				if i != j {
					off += a[i*p+j] * a[i*p+j]
				}
			}
		}
		if off <= 1e-30*tot || off == 0 {
			break
		}
		for k := 0; k < p-1; k++ {
			for l := k + 1; l < p; l++ {
				akl := a[k*p+l]
				if akl == 0 {
					continue
				}
				theta := (a[l*p+l] - a[k*p+k]) / (2 * akl)
				t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				if theta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for i := 0; i < p; i++ { // columns k, l
					aik, ail := a[i*p+k], a[i*p+l]
					a[i*p+k] = c*aik - s*ail
					a[i*p+l] = s*aik + c*ail
				}
				for j := 0; j < p; j++ { // rows k, l
					akj, alj := a[k*p+j], a[l*p+j]
					a[k*p+j] = c*akj - s*alj
					a[l*p+j] = s*akj + c*alj
				}
				for i := 0; i < p; i++ {
					vik, vil := v[i*p+k], v[i*p+l]
					v[i*p+k] = c*vik - s*vil
					v[i*p+l] = s*vik + c*vil
				}
			}
		}
	}
	idx := make([]int, p)
	for i := range idx {
		idx[i] = i
	}
	for i := 1; i < p; i++ { // insertion sort by eigenvalue (stable)
		for j := i; j > 0 && a[idx[j]*p+idx[j]] < a[idx[j-1]*p+idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	lam := make([]float64, p)
	q := make([]float64, p*p)
	for jj, j := range idx {
		lam[jj] = a[j*p+j]
		for i := 0; i < p; i++ {
			q[i*p+jj] = v[i*p+j]
		}
	}
	return lam, q
}
