package mechanisms

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/internal/valid"
)

// Floating-point-safe noise: exact samplers of the discrete Laplace and the
// discrete Gaussian (Canonne, Kamath & Steinke, "The Discrete Gaussian for
// Differential Privacy", NeurIPS 2020, Algorithms 1–3), using only integer
// and rational arithmetic and uniform integers from the generator, and the
// release mechanisms built on them (LaplaceRelease and GaussianRelease choose
// the grid in Secure mode): the value is rounded to a grid, integer
// noise is added in grid units, and the output is a multiple of the grid.
// Unlike x + float noise, whose low-order bits depend on x (Mironov, "On
// significance of the least significant bits for differential privacy",
// CCS 2012), every output is reachable from every input. Use them with a
// CSPRNG-backed generator (Secure mode) for a private release.

// uniformBig returns a uniform integer in [0, n), n > 0, by rejection on
// n.BitLen() random bits.
func uniformBig(rng *rand.Rand, n *big.Int) *big.Int {
	bits := n.BitLen()
	words := (bits + 63) / 64
	buf := make([]byte, 8*words)
	v := new(big.Int)
	for {
		for w := 0; w < words; w++ {
			u := rng.Uint64()
			for b := 0; b < 8; b++ {
				buf[8*w+b] = byte(u >> (8 * b))
			}
		}
		v.SetBytes(buf)
		v.Rsh(v, uint(8*len(buf)-bits)) // keep the top `bits` bits
		if v.Cmp(n) < 0 {
			return v
		}
	}
}

// bernoulliRat returns true with probability p ∈ [0, 1] (exact rational).
func bernoulliRat(rng *rand.Rand, p *big.Rat) bool {
	return uniformBig(rng, p.Denom()).Cmp(p.Num()) < 0
}

// BernoulliExp returns true with probability exp(−γ) for a rational γ ≥ 0
// (CKS 2020, Algorithm 1): for γ ≤ 1, draw A_k ~ Bernoulli(γ/k) for
// k = 1, 2, … until the first A_k = 0 and return whether that k is odd; for
// γ > 1, exp(−γ) = exp(−1)^⌊γ⌋·exp(−(γ − ⌊γ⌋)). It panics if γ < 0 (a
// programmer error: exp(−γ) > 1 is no probability).
func BernoulliExp(rng *rand.Rand, gamma *big.Rat) bool {
	if gamma.Sign() < 0 {
		panic(fmt.Sprintf("mechanisms: BernoulliExp: γ = %v, want ≥ 0", gamma))
	}
	one := big.NewRat(1, 1)
	for gamma.Cmp(one) > 0 {
		if !BernoulliExp(rng, one) {
			return false
		}
		gamma = new(big.Rat).Sub(gamma, one)
	}
	k := int64(1)
	for {
		p := new(big.Rat).Quo(gamma, big.NewRat(k, 1))
		if !bernoulliRat(rng, p) {
			return k%2 == 1
		}
		k++
	}
}

// DiscreteLaplace returns a sample of the discrete Laplace distribution of
// scale t/s (s, t > 0 integers), P[Y = y] ∝ exp(−|y|·s/t) on the integers
// (CKS 2020, Algorithm 2). It panics if s or t is not > 0 (a programmer
// error: there is no such distribution, and t ≤ 0 would never return).
func DiscreteLaplace(rng *rand.Rand, s, t *big.Int) *big.Int {
	if s.Sign() <= 0 || t.Sign() <= 0 {
		panic(fmt.Sprintf("mechanisms: DiscreteLaplace: s = %v, t = %v, want integers > 0 (scale t/s)", s, t))
	}
	for {
		u := uniformBig(rng, t)
		if !BernoulliExp(rng, new(big.Rat).SetFrac(u, t)) {
			continue
		}
		v := int64(0)
		for BernoulliExp(rng, big.NewRat(1, 1)) {
			v++
		}
		x := new(big.Int).Add(u, new(big.Int).Mul(t, big.NewInt(v)))
		y := x.Quo(x, s)
		neg := rng.Uint64()&1 == 1
		if neg && y.Sign() == 0 {
			continue
		}
		if neg {
			y.Neg(y)
		}
		return y
	}
}

// DiscreteGaussian returns a sample of the discrete Gaussian N_Z(0, σ²),
// P[Y = y] ∝ exp(−y²/(2σ²)) on the integers, for a rational σ² > 0 (CKS
// 2020, Algorithm 3): a discrete Laplace proposal of scale τ = ⌊σ⌋ + 1,
// accepted with probability exp(−(|Y| − σ²/τ)²/(2σ²)). τ is computed
// exactly, ⌊σ⌋ = ⌊√⌊σ²⌋⌋, for any σ (no int64 or float64 on the way). It
// panics if σ² ≤ 0 (a programmer error).
func DiscreteGaussian(rng *rand.Rand, sigma2 *big.Rat) *big.Int {
	if sigma2.Sign() <= 0 {
		panic(fmt.Sprintf("mechanisms: DiscreteGaussian: σ² = %v, want > 0", sigma2))
	}
	tau := new(big.Int).Quo(sigma2.Num(), sigma2.Denom()) // ⌊σ²⌋ (σ² > 0)
	tau.Sqrt(tau)
	tau.Add(tau, big.NewInt(1))
	for {
		y := DiscreteLaplace(rng, big.NewInt(1), tau)
		a := new(big.Rat).SetInt(new(big.Int).Abs(y))
		a.Sub(a, new(big.Rat).Quo(sigma2, new(big.Rat).SetInt(tau)))
		g := new(big.Rat).Mul(a, a)
		g.Quo(g, new(big.Rat).Mul(big.NewRat(2, 1), sigma2))
		if BernoulliExp(rng, g) {
			return y
		}
	}
}

// checkRelease validates the common arguments of the discrete releases.
func checkRelease(fn string, rng *rand.Rand, value []float64, grid float64) error {
	switch {
	case rng == nil:
		return fmt.Errorf("mechanisms: %s: nil random source", fn)
	case len(value) == 0:
		return fmt.Errorf("mechanisms: %s: empty value", fn)
	}
	if err := valid.Positive("grid", grid); err != nil {
		return fmt.Errorf("mechanisms: %s: %w", fn, err)
	}
	for i, v := range value {
		if !valid.Finite(v) || math.Abs(v/grid) > 1<<52 {
			return fmt.Errorf("mechanisms: %s: value[%d] = %v is not finite or too large for grid %v", fn, i, v, grid)
		}
	}
	return nil
}

// DiscreteLaplaceRelease releases value with pure ε-DP for neighbours whose
// values differ by at most l1Sens in ℓ1 norm, floating-point-safely: each
// coordinate is rounded to the nearest multiple of grid, integer discrete
// Laplace noise of scale b = Δ'/ε grid units is added (b rounded up to a
// multiple of 2⁻²⁰), and the result is returned in the original units.
// Rounding moves each coordinate by at most half a grid step, so the
// sensitivity in grid units is Δ' = l1Sens/grid + d (d coordinates), and the
// discrete Laplace of scale b is (Δ'/b)-DP for integer shifts of ℓ1 norm
// Δ' (the ratio of its probabilities is at most exp(|shift|/b); CKS 2020). It returns the output and the scale b used;
// DiscreteLaplaceLoss turns b into the release's loss for the ledger.
func DiscreteLaplaceRelease(rng *rand.Rand, value []float64, grid, l1Sens, eps float64) ([]float64, float64, error) {
	if err := checkRelease("DiscreteLaplaceRelease", rng, value, grid); err != nil {
		return nil, 0, err
	}
	if err := errors.Join(valid.Positive("sensitivity", l1Sens), valid.Positive("ε", eps)); err != nil {
		return nil, 0, fmt.Errorf("mechanisms: DiscreteLaplaceRelease: sensitivity and ε must be finite and > 0: %w", err)
	}
	dPrime := l1Sens/grid + float64(len(value))
	const den = 1 << 20
	num := math.Ceil(dPrime / eps * den)
	if num > 1<<62 {
		return nil, 0, errors.New("mechanisms: DiscreteLaplaceRelease: scale too large for the grid (use a coarser grid)")
	}
	s, t := big.NewInt(den), big.NewInt(int64(num))
	out := make([]float64, len(value))
	for i, v := range value {
		y, _ := new(big.Float).SetInt(DiscreteLaplace(rng, s, t)).Float64()
		out[i] = (math.Round(v/grid) + y) * grid
	}
	return out, num / den, nil
}

// DiscreteGaussianRelease releases value with the discrete Gaussian of
// standard deviation sigma (original units), floating-point-safely: each
// coordinate is rounded to the nearest multiple of grid and integer noise
// N_Z(0, (sigma/grid)²) is added; sigma/grid must be at most 2⁴⁶, so that
// the integer noise stays below 2⁵³ (exact in float64) except with
// probability below exp(−2¹²), as in the Secure releases (maxGridNoise).
// For neighbours whose values differ by at most l2Sens in ℓ2 norm it is
// ρ-zCDP with
//
//	ρ = (l2Sens + grid·√d)² / (2σ²)
//
// (rounding moves the ℓ2 distance by at most grid·√d; the multivariate
// discrete Gaussian is ½(Δ/σ)²-zCDP for an integer-valued shift of ℓ2 norm
// Δ, as the continuous one: CKS 2020, multivariate discrete Gaussian); its
// loss for the ledger is DiscreteGaussianLoss.
func DiscreteGaussianRelease(rng *rand.Rand, value []float64, grid, sigma float64) ([]float64, error) {
	if err := checkRelease("DiscreteGaussianRelease", rng, value, grid); err != nil {
		return nil, err
	}
	if err := valid.Positive("σ", sigma); err != nil {
		return nil, fmt.Errorf("mechanisms: DiscreteGaussianRelease: %w", err)
	}
	s := sigma / grid
	switch {
	case s > maxGridNoise(GaussianNoise):
		return nil, fmt.Errorf("mechanisms: DiscreteGaussianRelease: σ/grid = %v/%v = %.3g grid steps, more than 2⁴⁶: the noise would reach 2⁵³ grid steps, where float64 rounds it (use a coarser grid, at least σ/2⁴⁶)", sigma, grid, s)
	case s == 0:
		return nil, fmt.Errorf("mechanisms: DiscreteGaussianRelease: σ/grid = %v/%v underflows to 0 (use a finer grid)", sigma, grid)
	}
	var sigma2 big.Rat // (σ/grid)², exactly (no underflow of s·s)
	sigma2.SetFloat64(s)
	sigma2.Mul(&sigma2, &sigma2)
	out := make([]float64, len(value))
	for i, v := range value {
		y, _ := new(big.Float).SetInt(DiscreteGaussian(rng, &sigma2)).Float64()
		out[i] = (math.Round(v/grid) + y) * grid
	}
	return out, nil
}

// DiscreteGaussianRho is the zCDP parameter ρ = (l2Sens + grid·√d)²/(2σ²)
// of DiscreteGaussianRelease on d coordinates: the ρ of
// DiscreteGaussianLoss (rounded up, so never below the exact value).
func DiscreteGaussianRho(l2Sens, sigma, grid float64, d int) (float64, error) {
	l, err := DiscreteGaussianLoss(l2Sens, sigma, grid, d, accounting.RelationAddRemove)
	if err != nil {
		return 0, fmt.Errorf("mechanisms: DiscreteGaussianRho: %w", err)
	}
	rho, _ := l.Rho()
	return rho, nil
}

// DiscreteGaussianLoss is the privacy loss of DiscreteGaussianRelease with
// standard deviation sigma and grid on d coordinates, for neighbours (under
// rel) whose values differ by at most l2Sens in ℓ2 norm: ρ-zCDP with
//
//	ρ = (l2Sens + grid·√d)² / (2σ²)
//
// (rounding to the grid moves the ℓ2 distance by at most grid·√d; the
// multivariate discrete Gaussian is ½(Δ/σ)²-zCDP for an integer-valued
// shift of ℓ2 norm Δ, as the continuous one: Canonne, Kamath & Steinke
// 2020, Thm 4 and Thm 14). ρ is computed with 6 rounded float64
// operations and raised by 10 units in the last place, so it is never
// below the exact value. It is an accounting.ZCDPLoss under rel for the
// ledger (accounting.Ledger), whose conversions give (ε, δ).
//
// Errors: l2Sens, sigma or grid not finite and > 0, or d < 1.
func DiscreteGaussianLoss(l2Sens, sigma, grid float64, d int, rel accounting.Relation) (accounting.Loss, error) {
	if err := errors.Join(valid.Positive("sensitivity", l2Sens), valid.Positive("σ", sigma), valid.Positive("grid", grid), valid.AtLeast("d", float64(d), 1)); err != nil {
		return accounting.Loss{}, fmt.Errorf("mechanisms: DiscreteGaussianLoss: %w", err)
	}
	a := l2Sens + grid*math.Sqrt(float64(d))
	rho := roundUp(a*a/(2*sigma*sigma), 10)
	l, err := accounting.ZCDPLoss(rho, rel)
	if err != nil {
		return accounting.Loss{}, fmt.Errorf("mechanisms: DiscreteGaussianLoss: %w", err)
	}
	return l.WithName(fmt.Sprintf("discrete Gaussian: zcdp ρ=%g", rho)), nil
}

// DiscreteLaplaceLoss is the privacy loss of DiscreteLaplaceRelease on d
// coordinates with grid, for neighbours (under rel) whose values differ by
// at most l1Sens in ℓ1 norm, given the scale b it returned: pure ε-DP with
//
//	ε = Δ′/b,  Δ′ = l1Sens/grid + d
//
// (Δ′ the sensitivity in grid units after rounding; the discrete Laplace of
// scale b is (Δ′/b)-DP for integer shifts of ℓ1 norm Δ′: Canonne, Kamath &
// Steinke 2020; Ghosh, Roughgarden & Sundararajan 2012). b is at least
// Δ′/ε for the ε asked of the release, so ε here is at most that ε up to
// rounding; it is computed with 3 rounded operations and raised by 4 units
// in the last place, so never below the exact value. It is an
// accounting.PureLoss under rel.
//
// Errors: l1Sens, grid or scale not finite and > 0, or d < 1.
func DiscreteLaplaceLoss(l1Sens, grid, scale float64, d int, rel accounting.Relation) (accounting.Loss, error) {
	if err := errors.Join(valid.Positive("sensitivity", l1Sens), valid.Positive("grid", grid), valid.Positive("scale", scale), valid.AtLeast("d", float64(d), 1)); err != nil {
		return accounting.Loss{}, fmt.Errorf("mechanisms: DiscreteLaplaceLoss: %w", err)
	}
	eps := roundUp((l1Sens/grid+float64(d))/scale, 4)
	l, err := accounting.PureLoss(eps, rel)
	if err != nil {
		return accounting.Loss{}, fmt.Errorf("mechanisms: DiscreteLaplaceLoss: %w", err)
	}
	return l.WithName(fmt.Sprintf("discrete Laplace: pure ε=%g", eps)), nil
}

// ZCDPEpsilon converts ρ-zCDP to (ε, δ)-DP with ε = ρ + 2√(ρ·log(1/δ))
// (Bun & Steinke 2016, Prop. 1.3), a valid upper bound (CKS 2020 give a
// tighter conversion). It is accounting.ZCDPEpsilon, the module's one
// implementation of the formula.
func ZCDPEpsilon(rho, delta float64) (float64, error) {
	if err := errors.Join(valid.NonNegative("ρ", rho), valid.Open01("δ", delta)); err != nil {
		return 0, fmt.Errorf("mechanisms: ZCDPEpsilon: %w", err)
	}
	eps, err := accounting.ZCDPEpsilon(rho, delta)
	if err != nil {
		return 0, fmt.Errorf("mechanisms: ZCDPEpsilon: %w", err)
	}
	return eps, nil
}
