package smoothdp

import (
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/internal/numeric"
	"github.com/featuredp/featuredp/internal/valid"
)

// PTRGamma is Algorithm 1's distance-to-instability proxy (docs/smooth-rdp.md,
// 'Algorithm 1', line 2, and 'Reconstruction choices', PTR) [R]: γ_S = max(0, ⌊n(gap − ĝ)/(12R²)⌋). By Weyl, one
// replacement moves every covariance eigenvalue by at most ‖Σ − Σ'‖_F ≤
// 6R²/n, hence the gap by at most 12R²/n: γ_S has replace-one sensitivity 1
// and lower-bounds the number of replacements needed to bring the gap to ĝ.
func PTRGamma(n int, gap, ghat, radius float64) (int, error) {
	if n < 1 {
		return 0, fmt.Errorf("smoothdp: PTR γ_S: n = %d, want ≥ 1", n)
	}
	if err := valid.FiniteValue("gap", gap); err != nil {
		return 0, fmt.Errorf("smoothdp: PTR γ_S: %w", err)
	}
	if !(ghat > 0) || !(radius > 0) {
		return 0, fmt.Errorf("smoothdp: PTR γ_S: ĝ = %v and R = %v, want > 0", ghat, radius)
	}
	v := math.Floor(float64(n) * (gap - ghat) / (12 * radius * radius))
	if v <= 0 {
		return 0, nil
	}
	if v > math.MaxInt32 {
		return math.MaxInt32, nil
	}
	return int(v), nil
}

// PTRThreshold is the test threshold log(1/δ)/ε₀ of Algorithm 1 line 4
// (log δ by numeric.Log, exact for subnormal δ).
func PTRThreshold(eps0, delta float64) float64 { return -numeric.Log(delta) / eps0 }

// PTRRefusal is Pr[⊥] = Pr[γ_S + Lap(1/ε₀) ≤ log(1/δ)/ε₀] (docs/smooth-rdp.md,
// 'Algorithm 1') [S]: ½e^{−ε₀(γ − thr)} if γ ≥ thr, else 1 − ½e^{−ε₀(thr − γ)}.
func PTRRefusal(gamma int, eps0, delta float64) (float64, error) {
	if err := errors.Join(valid.Positive("ε₀", eps0), valid.Open01("δ", delta)); err != nil {
		return 0, fmt.Errorf("smoothdp: PTR refusal: %w", err)
	}
	if gamma < 0 {
		return 0, fmt.Errorf("smoothdp: PTR refusal: γ = %d, want ≥ 0", gamma)
	}
	thr := PTRThreshold(eps0, delta)
	x := float64(gamma) - thr
	if x >= 0 {
		return 0.5 * math.Exp(-eps0*x), nil
	}
	return 1 - 0.5*math.Exp(eps0*x), nil
}

// PTREpsilon is Theorem 7 [R]: Algorithm 1 (PTR + PCA rank reduction
// + DP-GD) is (ε₀ + ε', δ)-DP on every dataset of size n (replace-one,
// unconditional), where ε' is the Mironov conversion (α ≥ 3/2) of the
// conservative PCA × DP-GD pipeline bound with g_min = ĝ:
//
//	ε' = min_{α≥3/2} (2αT/(n²σ²))(4L² + 144β²R⁶/ĝ²) + log(1/δ)/(α − 1).
//
// It returns ε' and the total ε₀ + ε', the basic composition of the losses
// of PTRLosses on an accounting.Ledger (the sum rounded up). The
// reverse-direction edge case of case (i) needs ε₀ ≤ ln 2 for δ_total = δ;
// for larger ε₀ the guarantee's δ is δ_total = max(δ, ½e^{ε₀}δ)
// (PTRDeltaTotal), which PTRLosses carries.
func PTREpsilon(n, steps int, sigma, l, beta, radius, ghat, eps0, delta float64) (epsPrime, total float64, err error) {
	losses, err := PTRLosses(n, steps, sigma, l, beta, radius, ghat, eps0, delta)
	if err != nil {
		return 0, 0, err
	}
	L, err := accounting.NewLedger(accounting.RelationReplaceOne, nil)
	if err != nil {
		return 0, 0, err
	}
	for _, x := range losses {
		if err := L.Add(x); err != nil {
			return 0, 0, fmt.Errorf("smoothdp: PTR: %w", err)
		}
	}
	_, dt, _ := losses[1].ApproxDP()
	rep, err := L.Epsilon(dt, accounting.ConversionClassic)
	if err != nil {
		return 0, 0, fmt.Errorf("smoothdp: PTR: %w", err)
	}
	epsPrime, _, _ = losses[1].ApproxDP()
	return epsPrime, rep.Epsilon, nil
}

// PTRLosses returns the privacy losses of Algorithm 1 (Theorem 7 [R];
// replace-one): the test, γ_S + Lap(1/ε₀) with γ_S of sensitivity 1, pure
// ε₀-DP; and the release of PCA + DP-GD, (ε', δ_total)-DP with ε' the
// Mironov conversion at δ of the conservative pipeline bound with g_min = ĝ
// (PipelineCurve of DPGDRDP and DPGDSRDP with η = EtaPCARank(R, ĝ), or
// EtaPCADim below n = 24R²/ĝ) and δ_total = PTRDeltaTotal(ε₀, δ), which
// absorbs the test's failure probability. Their composition on an
// accounting.Ledger at δ_total is the theorem's (ε₀ + ε', δ_total).
//
// Errors: ε₀ or the radius R not finite and > 0, invalid mechanism
// parameters (Pipeline: L and β > 0),
// δ not in (0, 1), or δ_total ≥ 1 (vacuous).
func PTRLosses(n, steps int, sigma, l, beta, radius, ghat, eps0, delta float64) ([]accounting.Loss, error) {
	if err := valid.Positive("ε₀", eps0); err != nil {
		return nil, fmt.Errorf("smoothdp: %w", err)
	}
	if err := valid.Positive("radius R", radius); err != nil {
		return nil, fmt.Errorf("smoothdp: PTR: %w: set it to the public radius of the instance ball (PCA's η ∝ R³)", err)
	}
	e, err := Pipeline(MechDPGD, PrePCA, MechParams{R: radius, L: l, Beta: beta, Sigma: sigma, N: n, T: steps, GMin: ghat})
	if err != nil {
		return nil, err
	}
	ep, _, err := ToApproxDP(e.Conservative, delta)
	if err != nil {
		return nil, err
	}
	test, err := accounting.PureLoss(eps0, accounting.RelationReplaceOne)
	if err != nil {
		return nil, fmt.Errorf("smoothdp: PTR test: %w", err)
	}
	release, err := accounting.ApproxLoss(ep, PTRDeltaTotal(eps0, delta), accounting.RelationReplaceOne)
	if err != nil {
		return nil, fmt.Errorf("smoothdp: PTR release (δ_total = max(δ, ½e^{ε₀}δ)): %w", err)
	}
	return []accounting.Loss{test.WithName("PTR test (Laplace, ε₀)"), release.WithName("PCA + DP-GD release (Theorem 7)")}, nil
}

// PTRDeltaTotal is max(δ, ½e^{ε₀}δ).
func PTRDeltaTotal(eps0, delta float64) float64 {
	return math.Max(delta, 0.5*math.Exp(eps0)*delta)
}
