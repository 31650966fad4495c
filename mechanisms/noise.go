package mechanisms

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/internal/valid"
)

// ErrNilRand is returned when a function that draws randomness is given a
// nil generator.
var ErrNilRand = errors.New("mechanisms: nil random generator")

// checkScale returns an error unless s is finite and ≥ 0.
func checkScale(what string, s float64) error {
	if !valid.Finite(s) || s < 0 {
		return fmt.Errorf("mechanisms: %s = %v, want finite ≥ 0", what, s)
	}
	return nil
}

// laplaceFromBits maps 64 random bits to a Laplace(0, b) variate by the
// inverse CDF. Bit 63 is the sign; the low 53 bits k give the uniform
// u = (k + ½)/2⁵³ ∈ (0, 1), never 0 or 1, and |X| = −b·log(u) is the
// inverse CDF of the exponential law of |X|. So log(0) cannot occur and the
// largest magnitude is b·log(2⁵⁴) ≈ 37.4·b (the tail beyond it has
// probability 2⁻⁵⁴).
func laplaceFromBits(bits uint64, b float64) float64 {
	u := (float64(bits&(1<<53-1)) + 0.5) / (1 << 53)
	x := -b * math.Log(u)
	if bits>>63 != 0 {
		return -x
	}
	return x
}

// openUniform returns u ∈ (0, 1) (never 0 or 1) with 53 random bits:
// u = (k + ½)/2⁵³.
func openUniform(rng *rand.Rand) float64 {
	return (float64(rng.Uint64()>>11) + 0.5) / (1 << 53)
}

// Laplace draws from the Laplace distribution with location 0 and scale
// b ≥ 0, density exp(−|x|/b)/(2b) (variance 2b²), by the inverse CDF of
// one uniform that is never 0 or 1 (no log(0); see the package doc for the
// floating-point caveat). Scale 0 returns 0. It returns an error for a nil
// rng or a negative, NaN or infinite scale.
func Laplace(rng *rand.Rand, scale float64) (float64, error) {
	if rng == nil {
		return 0, fmt.Errorf("mechanisms: Laplace: %w", ErrNilRand)
	}
	if err := checkScale("Laplace scale", scale); err != nil {
		return 0, err
	}
	return laplaceFromBits(rng.Uint64(), scale), nil
}

// Gaussian draws from N(0, std²) as std·Z with Z = rng.NormFloat64()
// (ziggurat). Std 0 returns 0. It returns an error for a nil rng or a
// negative, NaN or infinite std.
func Gaussian(rng *rand.Rand, std float64) (float64, error) {
	if rng == nil {
		return 0, fmt.Errorf("mechanisms: Gaussian: %w", ErrNilRand)
	}
	if err := checkScale("Gaussian std", std); err != nil {
		return 0, err
	}
	return std * rng.NormFloat64(), nil
}

// checkVectors validates a value vector and a same-length scale vector.
func checkVectors(fn string, rng *rand.Rand, v, scale []float64, scaleName string) error {
	if rng == nil {
		return fmt.Errorf("mechanisms: %s: %w", fn, ErrNilRand)
	}
	if len(scale) != len(v) {
		return fmt.Errorf("mechanisms: %s: %d %s values for a vector of length %d", fn, len(scale), scaleName, len(v))
	}
	for j, x := range v {
		if !valid.Finite(x) {
			return fmt.Errorf("mechanisms: %s: value %d is %v, want finite", fn, j, x)
		}
	}
	for j, s := range scale {
		if !valid.Finite(s) || s < 0 {
			return fmt.Errorf("mechanisms: %s: %s[%d] = %v, want finite ≥ 0", fn, scaleName, j, s)
		}
	}
	return nil
}

// AddGaussian adds independent N(0, std[j]²) noise to each v[j] in place:
// v ← v + b, b ~ N(0, diag(std²)) (the heterogeneous Gaussian of CorrDP,
// docs/corrdp.md). It draws exactly len(v) normals, in order, even where
// std[j] = 0, so runs that differ only in their scales use common random
// numbers. On error (nil rng, len(std) ≠ len(v), non-finite v, negative or
// non-finite std) v is left unchanged.
func AddGaussian(rng *rand.Rand, v, std []float64) error {
	if err := checkVectors("AddGaussian", rng, v, std, "std"); err != nil {
		return err
	}
	addGaussian(rng, v, std)
	return nil
}

// addGaussian is AddGaussian without validation.
func addGaussian(rng *rand.Rand, v, std []float64) {
	std = std[:len(v)]
	for j := range v {
		v[j] += std[j] * rng.NormFloat64()
	}
}

// AddLaplace adds independent Laplace(0, scale[j]) noise to each v[j] in
// place (density exp(−|x|/b_j)/(2b_j)). It draws exactly len(v) variates,
// in order, even where scale[j] = 0. On error (nil rng, length mismatch,
// non-finite v, negative or non-finite scale) v is left unchanged.
func AddLaplace(rng *rand.Rand, v, scale []float64) error {
	if err := checkVectors("AddLaplace", rng, v, scale, "scale"); err != nil {
		return err
	}
	for j := range v {
		v[j] += laplaceFromBits(rng.Uint64(), scale[j])
	}
	return nil
}

// LaplaceMechanism returns a noisy copy of value: value + (Y_1..Y_K) with
// Y_k i.i.d. Laplace(b = l1Sens/eps). If l1Sens bounds ‖f(D) − f(D')‖₁
// over neighbours D, D', the release is (ε, 0)-DP (Dwork et al. 2006;
// docs/smooth-rdp.md). With the CorrDP correlated sensitivity Δ_C in place of
// l1Sens it is the CorrDP Laplace mechanism. It returns an
// error for a nil rng, an empty or non-finite value, l1Sens ≤ 0 or
// non-finite, or eps ≤ 0 or non-finite.
func LaplaceMechanism(rng *rand.Rand, value []float64, l1Sens, eps float64) ([]float64, error) {
	if !valid.Finite(l1Sens) || l1Sens <= 0 {
		return nil, fmt.Errorf("mechanisms: LaplaceMechanism: L1 sensitivity = %v, want finite > 0", l1Sens)
	}
	if !valid.Finite(eps) || eps <= 0 {
		return nil, fmt.Errorf("mechanisms: LaplaceMechanism: ε = %v, want finite > 0", eps)
	}
	b := l1Sens / eps
	if !valid.Finite(b) {
		return nil, fmt.Errorf("mechanisms: LaplaceMechanism: scale Δ₁/ε = %v/%v overflows", l1Sens, eps)
	}
	if len(value) == 0 {
		return nil, errors.New("mechanisms: LaplaceMechanism: empty value")
	}
	out := append([]float64(nil), value...)
	scale := make([]float64, len(out))
	for j := range scale {
		scale[j] = b
	}
	if err := AddLaplace(rng, out, scale); err != nil {
		return nil, fmt.Errorf("mechanisms: LaplaceMechanism: %w", err)
	}
	return out, nil
}

// GaussianMechanism returns a noisy copy of value: value + N(0, sigma² I).
// If the L2 sensitivity is Δ₂, the release is (ε, δ)-DP for the (ε, δ)
// pairs of the analytic Gaussian mechanism (Balle & Wang 2018),
// δ = Φ(Δ₂/(2σ) − εσ/Δ₂) − e^ε Φ(−Δ₂/(2σ) − εσ/Δ₂), and Δ₂/σ-GDP
// ; package accounting computes these. It returns an
// error for a nil rng, an empty or non-finite value, or sigma ≤ 0 or
// non-finite.
func GaussianMechanism(rng *rand.Rand, value []float64, sigma float64) ([]float64, error) {
	if !valid.Finite(sigma) || sigma <= 0 {
		return nil, fmt.Errorf("mechanisms: GaussianMechanism: σ = %v, want finite > 0", sigma)
	}
	if len(value) == 0 {
		return nil, errors.New("mechanisms: GaussianMechanism: empty value")
	}
	out := append([]float64(nil), value...)
	std := make([]float64, len(out))
	for j := range std {
		std[j] = sigma
	}
	if err := AddGaussian(rng, out, std); err != nil {
		return nil, fmt.Errorf("mechanisms: GaussianMechanism: %w", err)
	}
	return out, nil
}
