package bcdp

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/featuredp/featuredp/internal/valid"
)

// ZetaHeuristic is the paper's heuristic ζ = (1+q)/2 (App. B.1), used in Figures 3–4 and the authors' code.
func ZetaHeuristic(q float64) float64 { return (1 + q) / 2 }

// ZetaHalf is the ζ = 1/2 of Corollary 1.
const ZetaHalf = 0.5

// ZetaStar returns ζ* = log(1 + q(e^{δ̃_1} − 1))/δ̃_1, the ζ at which the
// Theorem 2 rule returns the min-δ baseline c = δ̃_1·1 (our derivation)
// (δ̃_1 = min(δ_1, ε) > 0 is the smallest demanded level). It is 0 at q = 0
// (where ζ does not matter) and 1 at q = 1. The logarithm is allocShift's,
// so a δ̃_1 beyond e^x's range (≈ 709.78) gives the finite limit, not NaN.
func ZetaStar(delta1 float64, q float64) (float64, error) {
	if err := valid.Positive("δ̃_1", delta1); err != nil {
		return 0, fmt.Errorf("bcdp: ζ*: %w", err)
	}
	if err := valid.Unit("q", q); err != nil {
		return 0, fmt.Errorf("bcdp: %w", err)
	}
	return allocShift(q, delta1) / delta1, nil
}

// Allocation is the result of the Theorem 2 allocation rule.
type Allocation struct {
	// C are the per-coordinate CDP levels in the caller's coordinate order.
	C []float64
	// Sorted are the levels in the sorted order (δ non-decreasing, most
	// sensitive first), the order Mechanism 1 runs in: Sorted[k] = C[Perm[k]].
	Sorted []float64
	// Perm maps sorted position k to the caller's coordinate Perm[k].
	Perm []int
	// DeltaTilde are min(δ_i, ε) in the sorted order.
	DeltaTilde   []float64
	Eps, Q, Zeta float64
	// LDP is c_d, the LDP level of Mechanism 1 with this allocation (≤ ε).
	LDP float64
}

// Allocate is the allocation rule of Theorem 2: given demanded
// BCDP levels δ (any order; +Inf allowed = no coordinate-specific demand), an
// LDP level ε > 0, the correlation bound q ∈ [0,1] of Assumption 1 and ζ ∈
// (0,1], it sorts δ non-decreasingly (stable), sets δ̃ = min(δ, ε) and
//
//	c_d = δ̃_d                                           if q = 0 (the limit),
//	c_d = min( log((e^{ζ δ̃_1} + q − 1)/q), δ̃_d )        otherwise,
//	c_i = c_d                                 if c_d ≤ δ̃_i,
//	c_i = δ̃_i − log(1 + q(e^{c_d} − 1))       otherwise   (i < d).
//
// Mechanism 1 with these c is c-CDP, c_d-LDP (c_d ≤ ε) and, by Prop. 4 part 2
// with ε := c_d under Assumption 1 with q, δ-BCDP. Returns the levels in both
// orders. Use ZetaHeuristic(q) for the paper's figures, ZetaHalf
// for Corollary 1.
func Allocate(delta []float64, eps, q, zeta float64) (Allocation, error) {
	if err := checkVector("δ", delta, true, true); err != nil {
		return Allocation{}, err
	}
	if err := valid.Positive("ε", eps); err != nil {
		return Allocation{}, fmt.Errorf("bcdp: allocation: %w", err)
	}
	if err := valid.Unit("q", q); err != nil {
		return Allocation{}, fmt.Errorf("bcdp: %w", err)
	}
	if err := valid.Probability("ζ", zeta); err != nil {
		return Allocation{}, fmt.Errorf("bcdp: allocation: %w", err)
	}
	d := len(delta)
	perm := make([]int, d)
	for i := range perm {
		perm[i] = i
	}
	sort.SliceStable(perm, func(a, b int) bool { return delta[perm[a]] < delta[perm[b]] })
	dt := make([]float64, d)
	for k, i := range perm {
		dt[k] = math.Min(delta[i], eps)
	}
	c := make([]float64, d)
	var cd float64
	if q == 0 {
		cd = dt[d-1]
	} else {
		cd = math.Min(math.Log((math.Exp(zeta*dt[0])+q-1)/q), dt[d-1])
	}
	// Round-off snap: a c_d a few ulps above some δ̃_k (e.g. at ζ = ζ*, where
	// c_d = δ̃_1 exactly in real arithmetic) is lowered to δ̃_k. Lowering c_d
	// only spends less budget, so the guarantee is unaffected.
	for k := 0; k < d; k++ {
		if cd > dt[k] && cd <= dt[k]*(1+1e-12) {
			cd = dt[k]
			break
		}
	}
	c[d-1] = cd
	shift := allocShift(q, cd)
	for k := 0; k < d-1; k++ {
		if cd <= dt[k] {
			c[k] = cd
		} else {
			c[k] = math.Max(dt[k]-shift, 0)
		}
	}
	orig := make([]float64, d)
	for k, i := range perm {
		orig[i] = c[k]
	}
	return Allocation{C: orig, Sorted: c, Perm: perm, DeltaTilde: dt, Eps: eps, Q: q, Zeta: zeta, LDP: cd}, nil
}

// UniformAllocation returns the min-δ LDP baseline as an allocation: c =
// min_i min(δ_i, ε)·1 (Prop. 3: an ε-LDP mechanism is (ε·1)-BCDP for every
// prior), with the same sorting as Allocate.
func UniformAllocation(delta []float64, eps float64) (Allocation, error) {
	a, err := Allocate(delta, eps, 1, 1)
	if err != nil {
		return Allocation{}, err
	}
	for k := range a.Sorted {
		a.Sorted[k] = a.DeltaTilde[0]
		a.C[a.Perm[k]] = a.DeltaTilde[0]
	}
	a.LDP, a.Q, a.Zeta = a.DeltaTilde[0], math.NaN(), math.NaN()
	return a, nil
}

// Weights selects the per-round combination weights of Mechanism 1.
type Weights int

const (
	// WeightsSquaredLevel are the weights of the paper's Mechanism 1,
	// w_k = (c_k − c_{k−1})²/(d−k+1) = α_k²/D_k (the default; inverse
	// variances only for small α).
	WeightsSquaredLevel Weights = iota
	// WeightsInverseVariance are the data-free w_k = D_k/B_k², the exact
	// inverse of the per-coordinate second moment B_k²/D_k of round k
	// (ours, not in the paper).
	WeightsInverseVariance
)

// String names the weights.
func (w Weights) String() string {
	switch w {
	case WeightsSquaredLevel:
		return "paper"
	case WeightsInverseVariance:
		return "inverse-variance"
	}
	return fmt.Sprintf("Weights(%d)", int(w))
}

// DuchiB returns the radius B of the Duchi–Jordan–Wainwright ℓ2-ball
// channel (Mechanism 2) in dimension D ≥ 1, input radius r > 0 and
// level α > 0:
//
//	B = r · coth(α/2) · (√π/2) · D · Γ((D+1)/2) / Γ(D/2 + 1)   (unbiased: E[Z] = v),
//
// or, with paperConstant, the value printed in the paper (no 1/2), which is
// exactly twice as large and makes E[Z] = 2v. coth(α/2) =
// (e^α+1)/(e^α−1). Reference: D=10, r=√10, α=0.2 gives 122.6492. An α so
// small that B is not a finite float64 is an error ("α too small").
func DuchiB(D int, r, alpha float64, paperConstant bool) (float64, error) {
	if D < 1 {
		return 0, fmt.Errorf("bcdp: Duchi B: dimension %d must be ≥ 1", D)
	}
	if err := valid.Positive("radius r", r); err != nil {
		return 0, fmt.Errorf("bcdp: Duchi B: %w", err)
	}
	if err := valid.Positive("α", alpha); err != nil {
		return 0, fmt.Errorf("bcdp: Duchi B: %w (α = 0 means infinite noise)", err)
	}
	lg1, _ := math.Lgamma(float64(D+1) / 2)
	lg2, _ := math.Lgamma(float64(D)/2 + 1)
	coth := 1 / math.Tanh(alpha/2)
	b := r * coth * math.Sqrt(math.Pi) / 2 * float64(D) * math.Exp(lg1-lg2)
	if paperConstant {
		b *= 2
	}
	if !valid.Finite(b) {
		return 0, fmt.Errorf("bcdp: Duchi B: α too small: the channel's radius B overflows (α = %g, D = %d, r = %g); "+
			"B grows like 2/α, so raise the level (ε or δ) that gives this round its budget", alpha, D, r)
	}
	return b, nil
}

// MSEOptions configures PredictedMSE.
type MSEOptions struct {
	PaperConstant bool    // Duchi radius as printed (2×, biased), see DuchiB
	Weights       Weights // combination weights (default: the paper's)
	// SecondMoment[i] is the average over users of x_i² in the SORTED
	// coordinate order (nil means ±1 data: all ones).
	SecondMoment []float64
}

// RoundWeights returns, for the sorted levels c (non-decreasing, ≥ 0),
// the per-round budgets α_k = c_k − c_{k−1} (c_0 = 0), dimensions D_k = d−k+1,
// Duchi radii B_k (r = √D_k; 0 when α_k = 0: the round is skipped) and
// weights w_k (0 when α_k = 0).
func RoundWeights(c []float64, paperConstant bool, w Weights) (alpha, B, wt []float64, err error) {
	if err = checkVector("c", c, false, false); err != nil {
		return nil, nil, nil, err
	}
	d := len(c)
	alpha, B, wt = make([]float64, d), make([]float64, d), make([]float64, d)
	prev := 0.0
	for k := 0; k < d; k++ {
		if c[k] < prev-1e-15 {
			return nil, nil, nil, fmt.Errorf("bcdp: sorted levels must be non-decreasing, c[%d] = %v < c[%d] = %v", k, c[k], k-1, prev)
		}
		a := c[k] - prev
		prev = math.Max(prev, c[k])
		if a <= 0 {
			continue
		}
		D := d - k
		b, e := DuchiB(D, math.Sqrt(float64(D)), a, paperConstant)
		if e != nil {
			return nil, nil, nil, e
		}
		alpha[k], B[k] = a, b
		switch w {
		case WeightsSquaredLevel:
			wt[k] = a * a / float64(D)
		case WeightsInverseVariance:
			wt[k] = float64(D) / (b * b)
		default:
			return nil, nil, nil, fmt.Errorf("bcdp: unknown weights %v", w)
		}
	}
	return alpha, B, wt, nil
}

// PredictedMSE returns the exact expected squared error of the
// UNPROJECTED server mean ν̄ = (1/n)Σ_j ν̂^(j) of Mechanism 1 with sorted
// levels c, per coordinate (sorted order) and in total (our derivation;
// docs/bcdp.md, 'Mechanisms'):
//
//	E(ν̄_i − x̄_i)² = (1/n) Σ_{k≤i} (w_k/W_i)² (B_k²/D_k − m_i),  W_i = Σ_{k≤i} w_k,
//
// where m_i is the users' average of x_i² (1 for ±1 data). It uses E[ZZᵀ] =
// (B²/D) I of the Duchi channel. With the paper constant the estimate is
// biased (E[Z] = 2v, so E ν̄ = 2x̄): the function then returns the variance
// around 2x̄, (1/n) Σ_k (w_k/W_i)² (B_k²/D_k − 4 m_i); the full MSE adds the
// squared bias Σ_i x̄_i², which needs the data.
// A coordinate with W_i = 0 (c_i = 0) has infinite error.
func PredictedMSE(c []float64, n int, o MSEOptions) (total float64, perCoord []float64, err error) {
	if n < 1 {
		return 0, nil, fmt.Errorf("bcdp: predicted MSE: n = %d must be ≥ 1", n)
	}
	_, B, w, err := RoundWeights(c, o.PaperConstant, o.Weights)
	if err != nil {
		return 0, nil, err
	}
	d := len(c)
	if o.SecondMoment != nil && len(o.SecondMoment) != d {
		return 0, nil, fmt.Errorf("bcdp: predicted MSE: %d second moments, want %d", len(o.SecondMoment), d)
	}
	perCoord = make([]float64, d)
	bias := 1.0 // E[Z] = bias·v
	if o.PaperConstant {
		bias = 2
	}
	W := 0.0
	for i := 0; i < d; i++ {
		W += w[i]
		if W == 0 {
			perCoord[i] = math.Inf(1)
			total = math.Inf(1)
			continue
		}
		m := 1.0
		if o.SecondMoment != nil {
			m = o.SecondMoment[i]
			if err := valid.Unit(fmt.Sprintf("second moment of coordinate %d", i), m); err != nil {
				return 0, nil, fmt.Errorf("bcdp: predicted MSE: %w", err)
			}
		}
		s := 0.0
		for k := 0; k <= i; k++ {
			if w[k] == 0 {
				continue
			}
			D := float64(d - k)
			r := w[k] / W
			s += r * r * (B[k]*B[k]/D - bias*bias*m)
		}
		perCoord[i] = s / float64(n)
		total += perCoord[i]
	}
	return total, perCoord, nil
}

// ErrorProxy returns S(c) = Σ_i 1/Σ_{k≤i} (c_k − c_{k−1})²/(d−k+1), the
// quantity of Theorem 2's bound (17) without the 1/n, the O(1) and the ∧ d.
// +Inf if some c_i = 0.
func ErrorProxy(c []float64) (float64, error) {
	if err := checkVector("c", c, false, false); err != nil {
		return 0, err
	}
	d := len(c)
	s, acc, prev := 0.0, 0.0, 0.0
	for i := 0; i < d; i++ {
		a := c[i] - prev
		if a < -1e-15 {
			return 0, errors.New("bcdp: Thm 2 proxy: levels must be sorted non-decreasing")
		}
		prev = c[i]
		acc += a * a / float64(d-i)
		if acc == 0 {
			return math.Inf(1), nil
		}
		s += 1 / acc
	}
	return s, nil
}

// TwoLevelRate returns the Corollary 1 rate without its O(1): with k coordinates at level δ, d−k at ε > 2δ and ζ = 1/2, q* =
// (e^{δ/2}−1)/(e^ε−1);
//
//	q ≤ q*: (1/n)(dk/δ² + (d−k)²/ε²)                               (18)
//	q > q*: (1/n)(dk/δ² + (d−k)²/(((d−k)/d)δ² + (c_d − δ/2)²)),     (19)
//
// with c_d = log((e^{δ/2}+q−1)/q).
func TwoLevelRate(d, k, n int, delta, eps, q float64) (float64, error) {
	if d < 1 || k < 0 || k > d || n < 1 {
		return 0, fmt.Errorf("bcdp: Corollary 1: need d ≥ 1, 0 ≤ k ≤ d, n ≥ 1 (got %d, %d, %d)", d, k, n)
	}
	if err := valid.Positive("δ", delta); err != nil {
		return 0, fmt.Errorf("bcdp: Corollary 1: %w", err)
	}
	if err := valid.Above("ε", eps, 2*delta); err != nil {
		return 0, fmt.Errorf("bcdp: Corollary 1: %w (2δ)", err)
	}
	if err := valid.Unit("q", q); err != nil {
		return 0, fmt.Errorf("bcdp: %w", err)
	}
	fd, fk := float64(d), float64(k)
	qs := math.Expm1(delta/2) / math.Expm1(eps)
	if q <= qs {
		return (fd*fk/(delta*delta) + (fd-fk)*(fd-fk)/(eps*eps)) / float64(n), nil
	}
	cd := math.Log((math.Exp(delta/2) + q - 1) / q)
	den := (fd-fk)/fd*delta*delta + (cd-delta/2)*(cd-delta/2)
	return (fd*fk/(delta*delta) + (fd-fk)*(fd-fk)/den) / float64(n), nil
}

// ZetaOptimal is OUR extension (not in the paper; docs/bcdp.md,
// 'Where we differ'): it
// picks ζ ∈ (0, 1] minimising the exact predicted unprojected MSE
// (PredictedMSE, ±1 data) of Mechanism 1 over a grid of `grid` points,
// the paper's heuristic (1+q)/2, Corollary 1's 1/2 and ζ* (which recovers the
// min-δ baseline), and returns the best allocation. It uses only public
// quantities (δ, ε, q, n), so it costs no privacy; because ζ* is a
// candidate it is never worse than the baseline in predicted MSE. The grid
// has 1 to MaxZetaGrid points (each costs an allocation and an O(d²)
// prediction; the figures use 200).
func ZetaOptimal(delta []float64, eps, q float64, n, grid int, o MSEOptions) (Allocation, float64, error) {
	if grid < 1 || grid > MaxZetaGrid {
		return Allocation{}, 0, fmt.Errorf("bcdp: ζ-opt: grid = %d, want 1 to %d", grid, MaxZetaGrid)
	}
	base, err := Allocate(delta, eps, q, 1)
	if err != nil {
		return Allocation{}, 0, err
	}
	cands := []float64{ZetaHeuristic(q), ZetaHalf}
	if zs, err := ZetaStar(base.DeltaTilde[0], q); err == nil && zs > 0 {
		cands = append(cands, math.Min(zs, 1))
	}
	for g := 1; g <= grid; g++ {
		cands = append(cands, float64(g)/float64(grid))
	}
	var best Allocation
	bestMSE := math.Inf(1)
	for _, z := range cands {
		a, err := Allocate(delta, eps, q, z)
		if err != nil {
			return Allocation{}, 0, err
		}
		mse, _, err := PredictedMSE(a.Sorted, n, o)
		if err != nil {
			return Allocation{}, 0, err
		}
		if mse < bestMSE || best.C == nil {
			best, bestMSE = a, mse
		}
	}
	return best, bestMSE, nil
}

// MaxZetaGrid caps ZetaOptimal's grid (2¹⁶ points).
const MaxZetaGrid = 1 << 16

// allocShift is log(1 + q(e^c − 1)), the budget the correlated columns
// take from the others (Theorem 2): 0 at q = 0 (where q·(e^c − 1) would be
// 0·∞ = NaN for c ≳ 710), and c + log q + log1p((1 − q)e^{−c}/q) once
// e^c − 1 overflows.
func allocShift(q, c float64) float64 {
	if q == 0 {
		return 0
	}
	if e := math.Expm1(c); !math.IsInf(e, 1) {
		return math.Log1p(q * e)
	}
	return c + math.Log(q) + math.Log1p((1-q)*math.Exp(-c)/q)
}
