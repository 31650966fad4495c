package smoothdp

// Table 1 constructors: the RDP and SRDP curves of every mechanism, and the
// group-privacy baselines.

import (
	"fmt"
	"math"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/internal/valid"
)

// GaussianRDP is the RDP of the Gaussian mechanism f(S) + N(0, σ²I) with
// global ℓ2 sensitivity Δ under rel, ε(α) = αΔ²/(2σ²) (Theorem 9; Mironov
// 2017 Cor 3) [S]. Errors for Δ < 0, σ ≤ 0 or non-finite input.
func GaussianRDP(delta, sigma float64, rel accounting.Relation) (RDPCurve, error) {
	if err := valid.NonNegative("Δ", delta); err != nil {
		return RDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	if err := valid.Positive("σ", sigma); err != nil {
		return RDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	return RDPCurve{Name: fmt.Sprintf("Gaussian Δ=%g σ=%g", delta, sigma), Relation: rel, AlphaMin: 1, AlphaMax: math.Inf(1),
		Linear: true, Coef: cfGaussianRDP(delta, sigma)}, nil
}

// GaussianSRDP is the SRDP of the Gaussian mechanism with f L-Lipschitz
// (Frobenius → ℓ2), ε̃(α, η) = αL²η²/(2σ²) (Theorem 9; ‖S−S'‖_F ≤
// ‖S−S'‖_{1,2}) [R].
func GaussianSRDP(l, sigma float64) (SRDPCurve, error) {
	if err := valid.NonNegative("L", l); err != nil {
		return SRDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	if err := valid.Positive("σ", sigma); err != nil {
		return SRDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	return SRDPCurve{Name: fmt.Sprintf("Gaussian SRDP L=%g σ=%g", l, sigma), AlphaMin: 1, AlphaMax: math.Inf(1), LinearInAlpha: true,
		F: func(a, e float64) float64 { return a * cfGaussianSRDP(l, sigma, e) }}, nil
}

// PureRDP is the curve of a pure ε-DP mechanism, ε(α) = ε for every α
// (Laplace Theorem 10, Exponential Theorem 11) [S].
func PureRDP(eps float64, rel accounting.Relation) (RDPCurve, error) {
	if err := valid.Positive("ε", eps); err != nil {
		return RDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	return RDPCurve{Name: fmt.Sprintf("pure ε=%g", eps), Relation: rel, AlphaMin: 1, AlphaMax: math.Inf(1), Pure: true, PureEps: eps}, nil
}

// LaplaceSRDP is the SRDP of the Laplace mechanism f(S) + Lap(Δ/ε) with
// f L-Lipschitz in the ℓ1 output norm, ε̃(α, η) = εLη/Δ for every α
// (Theorem 10) [R]. ExponentialSRDP is the same bound for the
// exponential mechanism with u(·, h) L-Lipschitz (Theorem 11) [R].
func LaplaceSRDP(eps, l, delta float64) (SRDPCurve, error) {
	for _, p := range []struct {
		n string
		v float64
	}{{"ε", eps}, {"Δ", delta}} {
		if err := valid.Positive(p.n, p.v); err != nil {
			return SRDPCurve{}, fmt.Errorf("smoothdp: %w", err)
		}
	}
	if err := valid.NonNegative("L", l); err != nil {
		return SRDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	return SRDPCurve{Name: fmt.Sprintf("pure SRDP ε=%g L=%g Δ=%g", eps, l, delta), AlphaMin: 1, AlphaMax: math.Inf(1), Pure: true,
		F: func(_, e float64) float64 { return cfPureSRDP(eps, l, delta, e) }}, nil
}

// ExponentialSRDP: see LaplaceSRDP.
func ExponentialSRDP(eps, l, delta float64) (SRDPCurve, error) {
	return LaplaceSRDP(eps, l, delta)
}

// DPGDRDP is the RDP of DP-GD (full-batch mean gradient of an
// L-Lipschitz loss + N(0, σ²I), T steps, n points, replace-one):
// ε(α) = 2αTL²/(n²σ²) (Theorem 12) [R, high confidence].
func DPGDRDP(n, steps int, l, sigma float64) (RDPCurve, error) {
	if n < 1 || steps < 0 {
		return RDPCurve{}, fmt.Errorf("smoothdp: DP-GD needs n ≥ 1 and T ≥ 0 (got n=%d, T=%d)", n, steps)
	}
	if err := valid.NonNegative("L", l); err != nil {
		return RDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	if err := valid.Positive("σ", sigma); err != nil {
		return RDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	return RDPCurve{Name: fmt.Sprintf("DP-GD n=%d T=%d L=%g σ=%g", n, steps, l, sigma), Relation: accounting.RelationReplaceOne,
		AlphaMin: 1, AlphaMax: math.Inf(1), Linear: true, Coef: cfDPGDRDP(float64(n), float64(steps), l, sigma)}, nil
}

// DPGDSRDP is DP-GD's SRDP for a loss β-smooth in the data argument
// (Definition 6): ε̃(α, η) = αTβ²η²/(2n²σ²) (Theorem 12) [R].
func DPGDSRDP(n, steps int, beta, sigma float64) (SRDPCurve, error) {
	if n < 1 || steps < 0 {
		return SRDPCurve{}, fmt.Errorf("smoothdp: DP-GD needs n ≥ 1 and T ≥ 0 (got n=%d, T=%d)", n, steps)
	}
	if err := valid.NonNegative("β", beta); err != nil {
		return SRDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	if err := valid.Positive("σ", sigma); err != nil {
		return SRDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	nf, tf := float64(n), float64(steps)
	return SRDPCurve{Name: fmt.Sprintf("DP-GD SRDP n=%d T=%d β=%g σ=%g", n, steps, beta, sigma), AlphaMin: 1, AlphaMax: math.Inf(1),
		LinearInAlpha: true, F: func(a, e float64) float64 { return a * cfDPGDSRDP(nf, tf, beta, sigma, e) }}, nil
}

// SGDSubRDP is the RDP of DP-SGD with subsampling (one uniform index
// per step, T steps, replace-one): ε(α) = c·αTL²/(n²σ²) with c = 8n/(n−1)
// (Theorem 13 via Abadi et al. 2016 Lemma 3 with σ̃ = σ/(2L), q = 1/n)
// [R; c D]. The Lemma's conditions are enforced: σ ≥ 2L, n > 8σ/L (error
// otherwise) and the validity interval α − 1 ≤ (σ/2L)² ln(2Ln/σ).
func SGDSubRDP(n, steps int, l, sigma float64) (RDPCurve, error) {
	if n < 2 || steps < 0 {
		return RDPCurve{}, fmt.Errorf("smoothdp: DP-SGD-sub needs n ≥ 2 and T ≥ 0 (got n=%d, T=%d)", n, steps)
	}
	if err := valid.Positive("L", l); err != nil {
		return RDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	if err := valid.Positive("σ", sigma); err != nil {
		return RDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	if sigma < 2*l {
		return RDPCurve{}, fmt.Errorf("smoothdp: DP-SGD-sub needs σ ≥ 2L (σ=%g, L=%g; Abadi et al. Lemma 3)", sigma, l)
	}
	if float64(n) <= 8*sigma/l {
		return RDPCurve{}, fmt.Errorf("smoothdp: DP-SGD-sub needs n > 8σ/L = %g (n=%d; Abadi et al. Lemma 3)", 8*sigma/l, n)
	}
	st := sigma / (2 * l)
	amax := 1 + st*st*math.Log(float64(n)/st)
	return RDPCurve{Name: fmt.Sprintf("DP-SGD-sub n=%d T=%d L=%g σ=%g", n, steps, l, sigma), Relation: accounting.RelationReplaceOne,
		AlphaMin: 1, AlphaMax: amax, Linear: true, Coef: cfSGDSubRDP(float64(n), float64(steps), l, sigma)}, nil
}

// SGDSubSRDP is DP-SGD with subsampling's SRDP over a collection with
// inverse point-wise distance ω (Definition 7): ε̃(α, η) = αTβ²ω²η²/(2σ²)
// (Theorem 13) [R]. ω = 1/n for PCA rank reduction.
func SGDSubSRDP(steps int, beta, omega, sigma float64) (SRDPCurve, error) {
	if steps < 0 {
		return SRDPCurve{}, fmt.Errorf("smoothdp: T=%d must be ≥ 0", steps)
	}
	if err := valid.NonNegative("β", beta); err != nil {
		return SRDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	if !(omega > 0 && omega <= 1) {
		return SRDPCurve{}, fmt.Errorf("smoothdp: ω = %v must be in (0, 1]", omega)
	}
	if err := valid.Positive("σ", sigma); err != nil {
		return SRDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	tf := float64(steps)
	return SRDPCurve{Name: fmt.Sprintf("DP-SGD-sub SRDP T=%d β=%g ω=%g σ=%g", steps, beta, omega, sigma), AlphaMin: 1, AlphaMax: math.Inf(1),
		LinearInAlpha: true, F: func(a, e float64) float64 { return a * cfSGDSubSRDP(tf, beta, omega, sigma, e) }}, nil
}

// SGDIterAlphaMax is the largest order at which σ ≥ L√(2α(α−1)) holds,
// (1 + √(1 + 2σ²/L²))/2 (Feldman et al. 2018 Thm 26 condition) [S], for
// L, σ finite > 0 (it does not check them: SGDIterRDP does).
func SGDIterAlphaMax(l, sigma float64) float64 {
	return (1 + math.Sqrt(1+2*sigma*sigma/(l*l))) / 2
}

// SGDIterRDP is the RDP of DP-SGD with iteration (one fixed-order pass
// stopped at T ~ Unif{1..n}; convex, L-Lipschitz, β_θ-smooth loss with
// γ ≤ 2/β_θ): ε(α) = 4αL²H_n/(nσ²) for α ≤ SGDIterAlphaMax(L, σ)
// (Theorem 14 = Feldman et al. 2018 Thm 26, re-derived) [S].
func SGDIterRDP(n int, l, sigma float64) (RDPCurve, error) {
	if n < 1 {
		return RDPCurve{}, fmt.Errorf("smoothdp: n=%d must be ≥ 1", n)
	}
	if err := valid.Positive("L", l); err != nil {
		return RDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	if err := valid.Positive("σ", sigma); err != nil {
		return RDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	return RDPCurve{Name: fmt.Sprintf("DP-SGD-iter n=%d L=%g σ=%g", n, l, sigma), Relation: accounting.RelationReplaceOne, AlphaMin: 1,
		AlphaMax: SGDIterAlphaMax(l, sigma), Linear: true, Coef: cfSGDIterRDP(n, l, sigma)}, nil
}

// SGDIterSRDP is DP-SGD with iteration's SRDP over a collection with
// η-constrained maximum distance K whose differing points are consecutive:
// ε̃(α, η) = αβ²η²(K − 1 + H_n)/(nσ²), valid where σ² ≥ α(α−1)β²η²/2
// (docs/smooth-rdp.md, Table 1, derivation 6) [D].
func SGDIterSRDP(n, k int, beta, sigma float64) (SRDPCurve, error) {
	if n < 1 || k < 1 || k > n {
		return SRDPCurve{}, fmt.Errorf("smoothdp: DP-SGD-iter SRDP needs 1 ≤ K ≤ n (n=%d, K=%d)", n, k)
	}
	if err := valid.NonNegative("β", beta); err != nil {
		return SRDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	if err := valid.Positive("σ", sigma); err != nil {
		return SRDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	h := Harmonic(n)
	return SRDPCurve{Name: fmt.Sprintf("DP-SGD-iter SRDP n=%d K=%d β=%g σ=%g", n, k, beta, sigma), AlphaMin: 1, AlphaMax: math.Inf(1),
		LinearInAlpha: true,
		F:             func(a, e float64) float64 { return a * cfSGDIterSRDP(n, k, h, beta, sigma, e) },
		Valid:         func(a, e float64) bool { return sigma*sigma >= a*(a-1)*beta*beta*e*e/2 }}, nil
}

// SampledGaussianRDP wraps the exact RDP of the Poisson-subsampled
// Gaussian (RDPSubsampledGaussian; add/remove neighbours, Poisson sampling)
// composed over T steps as an add/remove curve (docs/accounting.md; used by the
// feature-DP pipelines).
func SampledGaussianRDP(q, z float64, steps int) (RDPCurve, error) {
	if err := accounting.ValidateSampleRate(q); err != nil {
		return RDPCurve{}, err
	}
	if err := accounting.ValidateNoiseMultiplier(z); err != nil {
		return RDPCurve{}, err
	}
	if err := accounting.ValidateSteps(steps); err != nil {
		return RDPCurve{}, err
	}
	t := float64(steps)
	return RDPCurve{Name: fmt.Sprintf("sampled Gaussian q=%g z=%g T=%d", q, z, steps), Relation: accounting.RelationAddRemove, AlphaMin: 1, AlphaMax: math.Inf(1),
		F: func(a float64) float64 {
			v, err := accounting.RDPSubsampledGaussian(q, z, a)
			if err != nil {
				return math.Inf(1)
			}
			return t * v
		}}, nil
}

// ReplaceOneFromAddRemove turns an add/remove RDP curve into a
// replace-one one through the relation change of package accounting
// (accounting.Loss.ChangeRelation, add-remove → replace-one: a replacement
// is a removal and an addition). A pure ε curve becomes the pure 2ε curve
// (group privacy of 2, Dwork & Roth 2014, Thm 2.2); any other curve
// becomes ε_rep(α) = 3·ε(2α), valid for α ≥ 2 (Mironov 2017 Prop 2 with
// c = 1, a 2-stable transformation) [S], evaluated by the changed loss on
// the interval [max(2, α_min/2), α_max/2]. For Gaussian-type mechanisms
// doubling the sensitivity (4·ε(α)) is tighter; construct that curve
// directly.
func ReplaceOneFromAddRemove(c RDPCurve) (RDPCurve, error) {
	if c.Relation != accounting.RelationAddRemove {
		return RDPCurve{}, fmt.Errorf("smoothdp: curve %q is already %v", c.Name, c.Relation)
	}
	if c.Pure {
		l, err := accounting.PureLoss(c.PureEps, c.Relation)
		if err == nil {
			l, err = l.ChangeRelation(accounting.RelationReplaceOne)
		}
		if err != nil {
			return RDPCurve{}, fmt.Errorf("smoothdp: curve %q: %w", c.Name, err)
		}
		out := c
		out.Relation, out.Name = l.Relation(), "replace-one of "+c.Name
		out.PureEps, _, _ = l.ApproxDP()
		return out, nil
	}
	l, err := c.Loss()
	if err == nil {
		l, err = l.ChangeRelation(accounting.RelationReplaceOne)
	}
	if err != nil {
		return RDPCurve{}, fmt.Errorf("smoothdp: curve %q: %w", c.Name, err)
	}
	return RDPCurve{Name: "replace-one (Mironov Prop 2) of " + c.Name, Relation: l.Relation(),
		AlphaMin: math.Max(2, c.AlphaMin/2), AlphaMax: c.AlphaMax / 2, F: lossAt(l)}, nil
}

// lossAt evaluates a loss's RDP at one order (+Inf where it has none or on
// an error: no guarantee there).
func lossAt(l accounting.Loss) func(alpha float64) float64 {
	return func(a float64) float64 {
		v, _, err := l.RDP([]float64{a})
		if err != nil {
			return math.Inf(1)
		}
		return v[0]
	}
}

// Group privacy baselines [R/S].

// GroupGaussian is the exact group RDP of the Gaussian mechanism for
// datasets differing in g entries, αg²Δ²/(2σ²) [S].
func GroupGaussian(delta, sigma float64, g int) (RDPCurve, error) {
	if g < 1 {
		return RDPCurve{}, fmt.Errorf("smoothdp: group size %d must be ≥ 1", g)
	}
	c, err := GaussianRDP(float64(g)*delta, sigma, accounting.RelationReplaceOne)
	c.Name = fmt.Sprintf("group g=%d Gaussian Δ=%g σ=%g", g, delta, sigma)
	return c, err
}

// GroupDPGD is the group RDP of DP-GD, 2αTg²L²/(n²σ²) (g ≤ n) [S].
func GroupDPGD(n, steps int, l, sigma float64, g int) (RDPCurve, error) {
	if g < 1 || g > n {
		return RDPCurve{}, fmt.Errorf("smoothdp: group size %d must be in [1, n=%d]", g, n)
	}
	c, err := DPGDRDP(n, steps, float64(g)*l, sigma)
	c.Name = fmt.Sprintf("group g=%d DP-GD n=%d T=%d L=%g σ=%g", g, n, steps, l, sigma)
	return c, err
}

// GroupPure is g·ε for a pure ε-DP mechanism [S].
func GroupPure(eps float64, g int) (RDPCurve, error) {
	if g < 1 {
		return RDPCurve{}, fmt.Errorf("smoothdp: group size %d must be ≥ 1", g)
	}
	return PureRDP(float64(g)*eps, accounting.RelationReplaceOne)
}

// GroupMironov is Mironov 2017 Prop 2 for a 2^c-stable transformation
// (g ≤ 2^c): ε'(α) = 3^c·ε(2^c·α), valid for α ≥ 2 [S].
func GroupMironov(curve RDPCurve, c int) (RDPCurve, error) {
	if c < 0 || c > 60 {
		return RDPCurve{}, fmt.Errorf("smoothdp: stability exponent c=%d must be in [0, 60]", c)
	}
	pc, tc := math.Pow(2, float64(c)), math.Pow(3, float64(c))
	return RDPCurve{Name: fmt.Sprintf("group 2^%d (Mironov Prop 2) of %s", c, curve.Name), Relation: curve.Relation,
		AlphaMin: math.Max(2, curve.AlphaMin/pc), AlphaMax: curve.AlphaMax / pc,
		F: func(a float64) float64 { return tc * curve.At(pc*a) }}, nil
}
