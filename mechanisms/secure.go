package mechanisms

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/featuredp/featuredp/internal/valid"
)

// This file holds the Mode-taking releases of a noisy vector: continuous
// float64 noise in Reproducible mode (bit-identical to LaplaceMechanism and
// GaussianMechanism), floating-point-safe granular discrete noise in Secure
// mode. docs/accounting.md, "Threat model and guarantees", states what each
// protects against.

// granularityBits sets the granularity of the Secure releases: the noise
// scale is between 2³⁹ and 2⁴⁰ grid steps (see Granularity).
const granularityBits = 40

// maxGridNoise bounds the noise scale of a Secure release in grid steps:
// the Laplace scale Δ'/(ε·g) by 2⁴¹ and the Gaussian σ'/g by 2⁴⁶, so that
// |Y| ≥ 2⁵³ (where float64 would round k + Y) has probability below
// exp(−2¹²) (Laplace: exp(−2⁵³/2⁴¹); Gaussian: 2·exp(−2¹⁰⁶/(2·2⁹²))).
// Without the rounding terms the scale is at most 2⁴⁰ grid steps
// (Granularity); the bounds refuse only a rounding term d·g/ε or √d·g/Δ
// that dominates the noise.
func maxGridNoise(kind NoiseKind) float64 {
	if kind == LaplaceNoise {
		return math.Ldexp(1, 41)
	}
	return math.Ldexp(1, 46)
}

// checkGridNoise returns an error if the noise scale in grid steps (the
// exact rational r) exceeds maxGridNoise(kind); fix names the remedy.
func checkGridNoise(fn string, kind NoiseKind, r *big.Rat, fix string) error {
	limit := maxGridNoise(kind)
	if r.Cmp(new(big.Rat).SetFloat64(limit)) <= 0 {
		return nil
	}
	f, _ := r.Float64()
	return fmt.Errorf("mechanisms: %s: the noise would be %.3g grid steps, more than %.3g, and its low bits would no longer be exact (floating-point safety): %s", fn, f, limit, fix)
}

// maxSecureMagnitude bounds the inputs and noise scales of the Secure
// releases (2¹⁰⁰⁰), so that the grid and the output stay normal, finite
// float64 numbers.
var maxSecureMagnitude = math.Ldexp(1, 1000)

// Granularity returns the grid step g of a Secure release with noise scale
// scale (the Laplace scale b or the Gaussian σ): the smallest power of two
// with g ≥ scale/2⁴⁰, so scale/g ∈ (2³⁹, 2⁴⁰]. Why 2⁴⁰ (the granularity
// approach of Google's differential-privacy library, "Secure Noise
// Generation"; the discrete samplers of Canonne, Kamath & Steinke 2020):
//
//   - the output is a multiple of g and reveals nothing below g, while g is
//     2⁻³⁹ of the noise scale or less, far below any accuracy that matters;
//   - the noise in grid units stays below 2⁵³, where float64 integers are
//     exact, except with probability < exp(−2¹²), so k + Y (rounded value
//     plus integer noise) is computed exactly (the releases refuse a
//     rounding term d·g/ε or √d·g/Δ that would make the noise scale exceed
//     2⁴¹ resp. 2⁴⁶ grid steps, see maxGridNoise);
//   - rounding to the grid adds at most g per coordinate to the
//     sensitivity, a relative increase of the noise of d·g/Δ (ℓ1) or
//     √d·g/Δ (ℓ2), at most d·2⁻³⁹/ε for the Laplace scale Δ/ε and
//     √d·2⁻³⁹·σ/Δ for the Gaussian.
//
// It returns an error unless scale is finite with 2⁻⁹⁸² ≤ scale ≤ 2¹⁰⁰⁰
// (g must be a normal float64).
func Granularity(scale float64) (float64, error) {
	if !valid.Finite(scale) || scale < math.Ldexp(1, -1022+granularityBits) || scale > maxSecureMagnitude {
		return 0, fmt.Errorf("mechanisms: noise scale %v outside [2⁻⁹⁸², 2¹⁰⁰⁰] for a floating-point-safe release", scale)
	}
	frac, exp := math.Frexp(scale) // scale = frac·2^exp, frac ∈ [½, 1)
	if frac == 0.5 {
		exp-- // scale is a power of two: ⌈log₂ scale⌉ = exp − 1
	}
	return math.Ldexp(1, exp-granularityBits), nil
}

// Release is a noisy vector released by LaplaceRelease or GaussianRelease,
// labelled with the randomness and the noise actually used.
type Release struct {
	// Value is the released vector.
	Value []float64
	// Kind is the noise: LaplaceNoise or GaussianNoise (Loss reads it).
	Kind NoiseKind
	// Mode is the randomness used: only a Secure release is private.
	Mode Mode
	// Granularity is the grid step g of a Secure release: every Value[j] is
	// an integer multiple of g (floating-point safe). It is 0 for a
	// Reproducible release (continuous float64 noise).
	Granularity float64
	// Scale is the noise in the value's units: the Laplace scale b or the
	// Gaussian standard deviation σ actually used (Secure mode calibrates it
	// to Sensitivity, slightly above the requested one).
	Scale float64
	// Sensitivity is the sensitivity the noise is calibrated to: Δ in
	// Reproducible mode; in Secure mode Δ' = Δ + d·g (Laplace, ℓ1) or
	// Δ' = Δ + √d·g (Gaussian, ℓ2), which covers the rounding to the grid.
	Sensitivity float64
}

// releaseRand returns the noise generator of a release: st.Noise() of a
// seeded tree in Reproducible mode (st is required: no silent seed 0), the
// OS CSPRNG in Secure mode (st nil or secure).
func releaseRand(fn string, mode Mode, st *Streams) (*rand.Rand, error) {
	if mode == Reproducible && st == nil {
		return nil, fmt.Errorf("mechanisms: %s: Reproducible mode needs explicit streams (NewStreams(seed)); use Mode Secure for a private release", fn)
	}
	s, err := StreamsFor(mode, 0, st)
	if err != nil {
		return nil, fmt.Errorf("mechanisms: %s: %w", fn, err)
	}
	return s.Noise(), nil
}

// LaplaceRelease releases value with ε-DP for neighbours whose values
// differ by at most l1Sens in ℓ1 norm (Dwork et al. 2006).
//
// Reproducible mode adds continuous Laplace(l1Sens/ε) noise from
// st.Noise(), exactly as LaplaceMechanism: for experiments, and open to
// floating-point attacks (Mironov, CCS 2012) as well as to anyone who
// knows the seed. Secure mode (st nil or NewSecureStreams()) draws from the
// OS CSPRNG and is floating-point safe: with g = Granularity(l1Sens/ε) it
// rounds each coordinate to k_j = round(v_j/g), adds exact discrete
// Laplace noise Y_j of scale b/g with b = Δ'/ε, Δ' = l1Sens + d·g (CKS
// 2020, Algorithm 2), and returns g·(k_j + Y_j). Rounding moves each
// coordinate by at most g/2 on either input, so ‖k − k'‖₁ ≤ Δ'/g and the
// integer release is exactly ε-DP; the float output is a deterministic
// function of the integers k + Y, so it is ε-DP too, whatever its low bits.
// Errors: unknown mode, mismatched streams, empty or non-finite value,
// l1Sens or ε not finite > 0, or (Secure) a value or scale beyond 2¹⁰⁰⁰,
// or a noise scale Δ'/(ε·g) beyond 2⁴¹ grid steps (d/ε too large).
func LaplaceRelease(mode Mode, st *Streams, value []float64, l1Sens, eps float64) (*Release, error) {
	rng, err := releaseRand("LaplaceRelease", mode, st)
	if err != nil {
		return nil, err
	}
	if mode == Reproducible {
		out, err := LaplaceMechanism(rng, value, l1Sens, eps)
		if err != nil {
			return nil, err
		}
		return &Release{Value: out, Kind: LaplaceNoise, Mode: mode, Scale: l1Sens / eps, Sensitivity: l1Sens}, nil
	}
	return granularLaplace(rng, value, l1Sens, eps)
}

// GaussianRelease releases value with Gaussian noise of standard deviation
// sigma for neighbours whose values differ by at most l2Sens in ℓ2 norm:
// the release is ρ-zCDP with ρ = l2Sens²/(2σ²), i.e. Rényi DP of order α
// at α·ρ for every α > 1 (Bun & Steinke 2016; Mironov 2017).
//
// Reproducible mode adds continuous N(0, σ²) noise from st.Noise(), exactly
// as GaussianMechanism (for experiments; not floating-point safe). Secure
// mode (st nil or NewSecureStreams()) draws from the OS CSPRNG and is
// floating-point safe: with g = Granularity(σ) it rounds each coordinate
// to k_j = round(v_j/g) and returns g·(k_j + Y_j) with Y_j exact discrete
// Gaussians N_Z(0, (σ'/g)²) (CKS 2020, Algorithm 3), σ' = σ·Δ'/Δ and
// Δ' = l2Sens + √d·g ≥ ‖k − k'‖₂·g. The discrete Gaussian's Rényi
// divergence for an integer shift of ℓ2 norm Δ'/g is at most
// α(Δ'/σ')²/2 (CKS 2020, multivariate discrete Gaussian), and Δ'/σ' = Δ/σ:
// the same ρ, hence the same RDP / zCDP accounting as the continuous
// mechanism at (Δ, σ). (The analytic-Gaussian (ε, δ) curve of Balle & Wang
// 2018 is a statement about the continuous law and is not claimed for the
// Secure release; convert its RDP curve instead.) Errors: as
// LaplaceRelease, with σ and l2Sens finite > 0, and σ'/g beyond 2⁴⁶ grid
// steps (l2Sens far below √d·g: pass a larger sensitivity bound).
func GaussianRelease(mode Mode, st *Streams, value []float64, l2Sens, sigma float64) (*Release, error) {
	rng, err := releaseRand("GaussianRelease", mode, st)
	if err != nil {
		return nil, err
	}
	if mode == Reproducible {
		if err := valid.Positive("L2 sensitivity", l2Sens); err != nil {
			return nil, fmt.Errorf("mechanisms: GaussianRelease: %w", err)
		}
		out, err := GaussianMechanism(rng, value, sigma)
		if err != nil {
			return nil, err
		}
		return &Release{Value: out, Kind: GaussianNoise, Mode: mode, Scale: sigma, Sensitivity: l2Sens}, nil
	}
	return granularGaussian(rng, value, l2Sens, sigma)
}

// checkGranular validates the value of a Secure release on grid g: finite,
// |v| ≤ 2¹⁰⁰⁰ and |v|/g ≤ 2¹⁰⁰⁰, so that v/g, k + y and g·(k + y) stay
// finite.
func checkGranular(fn string, value []float64, g float64) error {
	if len(value) == 0 {
		return fmt.Errorf("mechanisms: %s: empty value", fn)
	}
	for j, v := range value {
		if !valid.Finite(v) || math.Abs(v) > maxSecureMagnitude {
			return fmt.Errorf("mechanisms: %s: value[%d] = %v, want finite with |v| ≤ 2¹⁰⁰⁰", fn, j, v)
		}
		if math.Abs(v)/g > maxSecureMagnitude {
			return fmt.Errorf("mechanisms: %s: value[%d] = %v is more than 2¹⁰⁰⁰ grid steps %v (2⁻⁴⁰ of the noise scale): rescale the value or raise the noise", fn, j, v, g)
		}
	}
	return nil
}

// upperSum returns a float64 ≥ the exact a + b (a, b ≥ 0 finite).
func upperSum(a, b float64) float64 { return math.Nextafter(a+b, math.Inf(1)) }

// granularLaplace is the Secure branch of LaplaceRelease (rng is the noise
// source; a seeded one in tests).
func granularLaplace(rng *rand.Rand, value []float64, l1Sens, eps float64) (*Release, error) {
	const fn = "LaplaceRelease"
	if err := valid.First(valid.Positive("L1 sensitivity", l1Sens), valid.Positive("ε", eps)); err != nil {
		return nil, fmt.Errorf("mechanisms: %s: %w", fn, err)
	}
	g, err := Granularity(l1Sens / eps)
	if err != nil {
		return nil, fmt.Errorf("mechanisms: %s: scale Δ₁/ε = %v/%v: %w", fn, l1Sens, eps, err)
	}
	if err := checkGranular(fn, value, g); err != nil {
		return nil, err
	}
	dPrime := upperSum(l1Sens, float64(len(value))*g) // ≥ Δ + d·g exactly (d·g is exact)
	// Scale in grid units B = Δ'/(ε·g) as an exact rational t/s.
	var b big.Rat
	b.SetFloat64(dPrime)
	b.Quo(&b, new(big.Rat).Mul(new(big.Rat).SetFloat64(eps), new(big.Rat).SetFloat64(g)))
	if err := checkGridNoise(fn, LaplaceNoise, &b, fmt.Sprintf("the rounding term d/ε = %d/%v dominates the noise; release fewer coordinates at once or with a larger ε", len(value), eps)); err != nil {
		return nil, err
	}
	s, t := b.Denom(), b.Num()
	out := make([]float64, len(value))
	for j, v := range value {
		out[j] = gridPoint(v, g, DiscreteLaplace(rng, s, t))
	}
	scale := ratFloor(&b)
	return &Release{Value: out, Kind: LaplaceNoise, Mode: Secure, Granularity: g, Scale: scale * g, Sensitivity: dPrime}, nil
}

// granularGaussian is the Secure branch of GaussianRelease.
func granularGaussian(rng *rand.Rand, value []float64, l2Sens, sigma float64) (*Release, error) {
	const fn = "GaussianRelease"
	if err := valid.First(valid.Positive("L2 sensitivity", l2Sens), valid.Positive("σ", sigma)); err != nil {
		return nil, fmt.Errorf("mechanisms: %s: %w", fn, err)
	}
	g, err := Granularity(sigma)
	if err != nil {
		return nil, fmt.Errorf("mechanisms: %s: σ: %w", fn, err)
	}
	if err := checkGranular(fn, value, g); err != nil {
		return nil, err
	}
	sqrtD := math.Nextafter(math.Sqrt(float64(len(value))), math.Inf(1))
	dPrime := upperSum(l2Sens, sqrtD*g) // ≥ Δ + √d·g (sqrtD·g is exact)
	// (σ'/g)² = (σ/g · Δ'/Δ)², exactly.
	var s big.Rat
	s.SetFloat64(sigma / g) // exact: g is a power of two
	s.Mul(&s, new(big.Rat).Quo(new(big.Rat).SetFloat64(dPrime), new(big.Rat).SetFloat64(l2Sens)))
	if err := checkGridNoise(fn, GaussianNoise, &s, fmt.Sprintf("the sensitivity %v is far below the grid's √d·g = %v; pass a larger (still valid) sensitivity bound, e.g. %v", l2Sens, sqrtD*g, sqrtD*g)); err != nil {
		return nil, err
	}
	sigma2 := new(big.Rat).Mul(&s, &s)
	out := make([]float64, len(value))
	for j, v := range value {
		out[j] = gridPoint(v, g, DiscreteGaussian(rng, sigma2))
	}
	sf := ratFloor(&s)
	return &Release{Value: out, Kind: GaussianNoise, Mode: Secure, Granularity: g, Scale: sf * g, Sensitivity: dPrime}, nil
}

// gridPoint returns g·(round(v/g) + y) for a power-of-two g. v/g and the
// rounding are exact; y is exact below 2⁵³ (beyond, with probability
// < exp(−2¹²), float64 rounds it, still a function of y alone); the sum is
// the correctly rounded k + y, a function of the integer k + y alone; and
// the product by g is exact. So the output depends on v only through the
// integer k + y: its low bits carry no further information about v.
func gridPoint(v, g float64, y *big.Int) float64 {
	yf, _ := new(big.Float).SetInt(y).Float64()
	return (math.Round(v/g) + yf) * g
}

// errNotGranular is returned by CheckGranular.
var errNotGranular = errors.New("not a multiple of the release's granularity")

// CheckGranular verifies that every value of a Secure release is an
// integer multiple of its Granularity (the floating-point-safety
// invariant); it returns nil for a Reproducible release, which has none.
func (r *Release) CheckGranular() error {
	if r == nil || r.Mode != Secure {
		return nil
	}
	for j, v := range r.Value {
		if k := v / r.Granularity; k != math.Trunc(k) || !valid.Finite(k) {
			return fmt.Errorf("mechanisms: release value[%d] = %v: %w %v", j, v, errNotGranular, r.Granularity)
		}
	}
	return nil
}

// ratFloor returns the largest float64 ≤ r (r > 0), so that a loss
// computed from a recorded Scale is never below the exact one
// (Release.Loss).
func ratFloor(r *big.Rat) float64 {
	f, exact := r.Float64()
	if !exact && new(big.Rat).SetFloat64(f).Cmp(r) > 0 {
		f = math.Nextafter(f, 0)
	}
	return f
}
