package bcdp

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/featuredp/featuredp/internal/valid"
	"gonum.org/v1/gonum/mat"
)

// LeastSquares is Algorithm 3 of the paper: private least
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
// radius Radius (TrustRegion; Ĥ may be indefinite).
type LeastSquares struct {
	m      *Mean // Mechanism 1 at c/2; each user draws two independent releases
	d      int
	h      []float64 // (d−1)² running Σ sym(ẑ1 ẑ2ᵀ)
	g      []float64 // d−1 running Σ l̂1 ẑ2
	n      int
	nu1    []float64
	nu2    []float64
	s1, s2 *MeanSums
}

// NewLeastSquares builds Algorithm 3 for full levels c (caller's order,
// label last; c is halved internally). d ≥ 2.
func NewLeastSquares(c []float64, o MeanOptions) (*LeastSquares, error) {
	if len(c) < 2 {
		return nil, fmt.Errorf("bcdp: least squares: need d ≥ 2 (features and a label), got %d", len(c))
	}
	half := make([]float64, len(c))
	for i, v := range c {
		if err := valid.Positive(fmt.Sprintf("c[%d]", i), v); err != nil {
			return nil, fmt.Errorf("bcdp: least squares: %w (a zero level leaves its coordinate without an estimate)", err)
		}
		half[i] = v / 2
	}
	m, err := NewMean(half, o)
	if err != nil {
		return nil, fmt.Errorf("bcdp: least squares: %w", err)
	}
	d := len(c)
	return &LeastSquares{m: m, d: d, h: make([]float64, (d-1)*(d-1)), g: make([]float64, d-1),
		nu1: make([]float64, d), nu2: make([]float64, d), s1: m.NewSums(), s2: m.NewSums()}, nil
}

// Add privatises one user's record (two independent releases) and adds its
// terms to Ĥ and ĝ.
func (ls *LeastSquares) Add(rng *rand.Rand, x []float64) error {
	if ls == nil {
		return errNil("least squares", "LeastSquares", "NewLeastSquares")
	}
	if rng == nil {
		return errors.New("bcdp: least squares: nil random source")
	}
	if err := checkRecord(x, ls.d); err != nil {
		return fmt.Errorf("bcdp: least squares: %w", err)
	}
	ls.AddUnchecked(rng, x)
	return nil
}

// AddUnchecked is Add without validation: it checks nothing, so it panics
// on a nil receiver or a record of the wrong length (use Add for checks).
func (ls *LeastSquares) AddUnchecked(rng *rand.Rand, x []float64) {
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
func (s *MeanSums) estimateInto(out []float64) {
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
func (ls *LeastSquares) Objective() (*mat.SymDense, []float64, error) {
	if ls == nil {
		return nil, nil, errNil("least squares", "LeastSquares", "NewLeastSquares")
	}
	if ls.n == 0 {
		return nil, nil, errors.New("bcdp: least squares: no users added")
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
func (ls *LeastSquares) Solve(radius float64) ([]float64, error) {
	h, g, err := ls.Objective()
	if err != nil {
		return nil, err
	}
	return TrustRegion(h, g, radius)
}
