package mechanisms

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/internal/valid"
	"gonum.org/v1/gonum/mat"
)

// BCDPLeastSquares is Algorithm 3 of the paper (spec §2.6): private least
// squares with the label in the LAST coordinate of each record x = [z; l] ∈
// [−1,1]^d. Each user sends two independent releases of Mechanism 1 at half
// the levels, c/2 (each (c/2)-CDP and (c_d/2)-LDP; together c-CDP and
// c_d-LDP, hence δ-BCDP by Theorem 3's argument — BCDP itself does not
// compose, so the budget is halved at the level of c). The server forms the
// unbiased quadratic
//
//	f̂(θ) = ½ θᵀĤθ − θᵀĝ,  Ĥ = (1/n) Σ_i sym(ẑ^(i,1) ẑ^(i,2)ᵀ),  ĝ = (1/n) Σ_i l̂^(i,1) ẑ^(i,2),
//
// (E f̂(θ) = f(θ) − (1/2n)Σ l²) and minimises it exactly over the ℓ2 ball of
// radius Radius (BCDPTrustRegion; Ĥ may be indefinite).
type BCDPLeastSquares struct {
	m      *BCDPMean // Mechanism 1 at c/2; each user draws two independent releases
	d      int
	h      []float64 // (d−1)² running Σ sym(ẑ1 ẑ2ᵀ)
	g      []float64 // d−1 running Σ l̂1 ẑ2
	n      int
	nu1    []float64
	nu2    []float64
	s1, s2 *BCDPMeanSums
}

// NewBCDPLeastSquares builds Algorithm 3 for full levels c (caller's order,
// label last; c is halved internally). d ≥ 2.
func NewBCDPLeastSquares(c []float64, o BCDPMeanOptions) (*BCDPLeastSquares, error) {
	if len(c) < 2 {
		return nil, fmt.Errorf("mechanisms: BCDP least squares: need d ≥ 2 (features and a label), got %d", len(c))
	}
	half := make([]float64, len(c))
	for i, v := range c {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("mechanisms: BCDP least squares: c[%d] = %v must be finite and > 0 (a zero level leaves its coordinate without an estimate)", i, v)
		}
		half[i] = v / 2
	}
	m, err := NewBCDPMean(half, o)
	if err != nil {
		return nil, fmt.Errorf("mechanisms: BCDP least squares: %w", err)
	}
	d := len(c)
	return &BCDPLeastSquares{m: m, d: d, h: make([]float64, (d-1)*(d-1)), g: make([]float64, d-1),
		nu1: make([]float64, d), nu2: make([]float64, d), s1: m.NewSums(), s2: m.NewSums()}, nil
}

// Add privatises one user's record (two independent releases) and adds its
// terms to Ĥ and ĝ.
func (ls *BCDPLeastSquares) Add(rng *rand.Rand, x []float64) error {
	if rng == nil {
		return errors.New("mechanisms: BCDP least squares: nil random source")
	}
	if err := bcdpCheckRecord(x, ls.d); err != nil {
		return fmt.Errorf("mechanisms: BCDP least squares: %w", err)
	}
	ls.AddUnchecked(rng, x)
	return nil
}

// AddUnchecked is Add without validation.
func (ls *BCDPLeastSquares) AddUnchecked(rng *rand.Rand, x []float64) {
	ls.s1.Reset()
	ls.s1.AddUnchecked(rng, x)
	ls.s1.estimateInto(ls.nu1)
	ls.s2.Reset()
	ls.s2.AddUnchecked(rng, x)
	ls.s2.estimateInto(ls.nu2)
	p := ls.d - 1
	z1, z2 := ls.nu1[:p], ls.nu2[:p]
	l1 := ls.nu1[p]
	for i := 0; i < p; i++ {
		ls.g[i] += l1 * z2[i]
		for j := 0; j < p; j++ {
			ls.h[i*p+j] += 0.5 * (z1[i]*z2[j] + z2[i]*z1[j])
		}
	}
	ls.n++
}

// estimateInto writes the unprojected estimate (caller's order) of the
// accumulated sums into out; the mechanism has positive weight everywhere.
func (s *BCDPMeanSums) estimateInto(out []float64) {
	m := s.m
	inv := 1 / float64(s.N)
	for i := 0; i < m.d; i++ {
		v := 0.0
		for ri, r := range m.rounds {
			if r.k > i {
				break
			}
			v += r.w * s.sums[ri][i-r.k]
		}
		out[m.perm[i]] = v * inv / m.cum[i]
	}
}

// Objective returns (Ĥ, ĝ) of the users added so far.
func (ls *BCDPLeastSquares) Objective() (*mat.SymDense, []float64, error) {
	if ls.n == 0 {
		return nil, nil, errors.New("mechanisms: BCDP least squares: no users added")
	}
	p := ls.d - 1
	h := mat.NewSymDense(p, nil)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			h.SetSym(i, j, ls.h[i*p+j]/float64(ls.n))
		}
	}
	g := make([]float64, p)
	for i := range g {
		g[i] = ls.g[i] / float64(ls.n)
	}
	return h, g, nil
}

// Solve returns θ̂ = argmin_{‖θ‖ ≤ radius} f̂(θ) (exact global minimiser).
func (ls *BCDPLeastSquares) Solve(radius float64) ([]float64, error) {
	h, g, err := ls.Objective()
	if err != nil {
		return nil, err
	}
	return BCDPTrustRegion(h, g, radius)
}

// BCDPTrustRegion returns the global minimiser of ½θᵀHθ − gᵀθ over ‖θ‖₂ ≤ R
// for any symmetric H (possibly indefinite): eigen-decompose H = QΛQᵀ; if H ≻
// 0 and ‖H⁻¹g‖ ≤ R the interior Newton point; otherwise θ(λ) = (H+λI)⁻¹g
// with λ ≥ max(0, −λ_min) chosen by bisection so that ‖θ(λ)‖ = R, and, in the
// "hard case" (g orthogonal to the bottom eigenspace), θ(−λ_min) plus the
// bottom eigenvector scaled to reach the boundary (Moré & Sorensen 1983).
func BCDPTrustRegion(h mat.Symmetric, g []float64, radius float64) ([]float64, error) {
	p := h.SymmetricDim()
	if len(g) != p || p == 0 {
		return nil, fmt.Errorf("mechanisms: trust region: H is %d×%d but g has %d entries", p, p, len(g))
	}
	if !valid.Finite(radius) || radius <= 0 {
		return nil, fmt.Errorf("mechanisms: trust region: radius %v must be finite and > 0", radius)
	}
	for i := 0; i < p; i++ {
		if !valid.Finite(g[i]) {
			return nil, fmt.Errorf("mechanisms: trust region: g[%d] = %v is not finite", i, g[i])
		}
		for j := 0; j < p; j++ {
			if !valid.Finite(h.At(i, j)) {
				return nil, fmt.Errorf("mechanisms: trust region: H[%d,%d] = %v is not finite", i, j, h.At(i, j))
			}
		}
	}
	lam, q := bcdpJacobiEigen(h)
	gq := make([]float64, p) // Qᵀg
	for j := 0; j < p; j++ {
		for i := 0; i < p; i++ {
			gq[j] += q[i*p+j] * g[i]
		}
	}
	norm := func(l float64) float64 {
		s := 0.0
		for j := range gq {
			t := gq[j] / (lam[j] + l)
			s += t * t
		}
		return math.Sqrt(s)
	}
	back := func(coef []float64) []float64 {
		th := make([]float64, p)
		for j := 0; j < p; j++ {
			for i := 0; i < p; i++ {
				th[i] += q[i*p+j] * coef[j]
			}
		}
		return th
	}
	coefAt := func(l float64) []float64 {
		c := make([]float64, p)
		for j := range c {
			c[j] = gq[j] / (lam[j] + l)
		}
		return c
	}
	lmin := lam[0]
	scale := 0.0
	for _, v := range lam {
		scale = math.Max(scale, math.Abs(v))
	}
	tol := 1e-12 * math.Max(scale, 1)
	if lmin > tol && norm(0) <= radius {
		return back(coefAt(0)), nil
	}
	lo := math.Max(0, -lmin)
	// hard case: g has (numerically) no component on the bottom eigenspace
	// and even λ = −λ_min stays inside the ball.
	gn := 0.0
	for _, v := range gq {
		gn += v * v
	}
	gn = math.Sqrt(gn)
	bottom := 0.0
	for j := range gq {
		if lam[j]-lmin <= tol {
			bottom += gq[j] * gq[j]
		}
	}
	if math.Sqrt(bottom) <= 1e-12*math.Max(gn, 1) && lo == -lmin {
		c := make([]float64, p)
		s := 0.0
		for j := range gq {
			if lam[j]-lmin > tol {
				c[j] = gq[j] / (lam[j] - lmin)
				s += c[j] * c[j]
			}
		}
		if math.Sqrt(s) <= radius {
			c[0] += math.Sqrt(math.Max(radius*radius-s, 0))
			return back(c), nil
		}
	}
	if norm(lo) <= radius && lo == 0 { // H ⪰ 0 singular-ish, interior
		return back(coefAt(0)), nil
	}
	hi := lo + gn/radius + scale + 1
	for norm(hi) > radius {
		hi = 2*hi + 1
	}
	lo2 := lo
	for it := 0; it < 200; it++ {
		mid := (lo2 + hi) / 2
		if mid == lo2 || mid == hi {
			break
		}
		if norm(mid) > radius {
			lo2 = mid
		} else {
			hi = mid
		}
	}
	return back(coefAt(hi)), nil
}

// BCDPQuadratic evaluates ½θᵀHθ − gᵀθ.
func BCDPQuadratic(h mat.Symmetric, g, theta []float64) float64 {
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

// bcdpJacobiEigen returns the eigenvalues of the symmetric matrix h in
// ascending order and the eigenvectors as the columns of a row-major p×p
// matrix, by the cyclic Jacobi method (pure Go and deterministic: the result
// does not depend on memory alignment, unlike assembly BLAS kernels).
func bcdpJacobiEigen(h mat.Symmetric) ([]float64, []float64) {
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
