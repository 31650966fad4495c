package fdp

// Feature differential privacy (FDP): the computable parts of
// "Machine Learning with Privacy for Protected Attributes" (Mahloujifar,
// Guo, Suh, Chaudhuri, IEEE S&P 2025); see docs/feature-dp.md.
//
// Neighbouring relations. FDP_i^Ψ (add/remove with a simulator, Def. 6)
// and FDP_r^Ψ (replacement of x by x' with Ψ(x) = Ψ(x'), Def. 5). By Thm 3
// (composition of simulators) and Thm 5, Algorithm 1 (two independent
// batches, Poisson private batch) has exactly the add/remove privacy curve of
// the Poisson-subsampled Gaussian mechanism, so the RDP accountant of
// package accounting applies unchanged (Alg1Epsilon). Trade-off functions are in the
// f-DP language of Dong, Roth & Su (2019); a "power" function is
// β(α) = 1 − f(α), the largest probability of any event under M(S) given its
// probability α under the neighbour (or simulator).

import (
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/internal/numeric"
	"github.com/featuredp/featuredp/internal/valid"
)

// normQuantile is Φ^{-1}(p) for p in [0, 1] (±Inf at the ends), accurate
// in the far lower tail (numeric.NormQuantile; −√2·Erfcinv(2p) returned −Inf
// below p ≈ 5e-17, which made EpsilonFromPower under-report ε for μ ≳ 3).
func normQuantile(p float64) float64 { return numeric.NormQuantile(p) }

// TradeOffApprox returns the trade-off function of (ε, δ)-DP with the
// clamping that Prop. 1's proof intends (it writes 1 − f):
//
//	f_{ε,δ}(α) = max(0, 1 − δ − e^ε α),   α ∈ [0, 1].
//
// It is the one-sided form the paper uses (Def. 4), which is what Thm 2 and
// Thm 4 need; the symmetric form of Dong, Roth & Su additionally takes the
// max with e^{−ε}(1 − δ − α).
//
// Errors: ε NaN or negative, δ or α outside [0, 1].
func TradeOffApprox(eps, delta, alpha float64) (float64, error) {
	if err := accounting.ValidateEpsilon(eps); err != nil {
		return 0, err
	}
	if err := valid.Unit("δ", delta); err != nil {
		return 0, fmt.Errorf("fdp: %w", err)
	}
	if err := valid.Unit("α", alpha); err != nil {
		return 0, fmt.Errorf("fdp: %w", err)
	}
	if alpha == 0 {
		return 1 - delta, nil
	}
	return math.Max(0, 1-delta-math.Exp(eps)*alpha), nil
}

// TradeOffGaussian returns the μ-GDP trade-off function (Dong, Roth & Su
// 2019, Def. 2.7):
//
//	G_μ(α) = Φ(Φ^{-1}(1 − α) − μ),   α ∈ [0, 1].
//
// It is the trade-off between N(0,1) and N(μ,1). μ = 0 gives 1 − α.
//
// Errors: μ NaN or negative, α outside [0, 1].
func TradeOffGaussian(mu, alpha float64) (float64, error) {
	if err := accounting.ValidateMu(mu); err != nil {
		return 0, err
	}
	if err := valid.Unit("α", alpha); err != nil {
		return 0, fmt.Errorf("fdp: %w", err)
	}
	return 1 - gaussianPower(mu, alpha), nil
}

// GaussianPower returns 1 − G_μ(α) = Φ(Φ^{-1}(α) + μ), the largest
// probability of an event under N(μ,1) given probability α under N(0,1),
// computed without the cancellation of 1 − G_μ(α) for small α.
//
// Errors: μ NaN or negative, α outside [0, 1].
func GaussianPower(mu, alpha float64) (float64, error) {
	if err := accounting.ValidateMu(mu); err != nil {
		return 0, err
	}
	if err := valid.Unit("α", alpha); err != nil {
		return 0, fmt.Errorf("fdp: %w", err)
	}
	return gaussianPower(mu, alpha), nil
}

func gaussianPower(mu, alpha float64) float64 {
	switch {
	case alpha == 0:
		return 0
	case alpha == 1:
		return 1
	case math.IsInf(mu, 1):
		return 1
	}
	return numeric.NormCDF(normQuantile(alpha) + mu)
}

// EpsilonFromPower converts an f-DP guarantee, given by its power
// function β(α) = 1 − f(α), into (ε, δ)-DP (Thm 2 of the paper, Dong, Roth &
// Su 2019 Prop. 2.12):
//
//	ε = sup_{α∈(0,1]} log((β(α) − δ)/α)
//
// (clamped below at 0). The supremum is found numerically: a grid of 4001
// points in log α on [1e-300, 1], then golden-section refinement around the
// best grid point (relative accuracy about 1e-10 for smooth β); a supremum
// below the searched range is an error, never the range's edge value. The
// neighbouring relation is whatever the f-DP guarantee was for (FDP_i^Ψ,
// FDP_r^Ψ or DP). For β = power of G_μ it agrees with accounting.GDPEpsilon.
//
// Errors: nil β, δ not in (0, 1), β returning NaN, or a supremum below
// the searched range.
func EpsilonFromPower(power func(alpha float64) float64, delta float64) (float64, error) {
	if power == nil {
		return 0, errors.New("fdp: EpsilonFromPower: nil power function")
	}
	return epsilonFromPower(power, delta, -690)
}

// epsilonFromPower searches log α on [lo, 0].
func epsilonFromPower(power func(alpha float64) float64, delta, lo float64) (float64, error) {
	if err := accounting.ValidateDelta(delta); err != nil {
		return 0, err
	}
	var bad error
	h := func(la float64) float64 {
		a := math.Exp(la)
		b := power(a)
		if math.IsNaN(b) {
			bad = fmt.Errorf("fdp: EpsilonFromPower: power(%v) is NaN", a)
			return math.Inf(-1)
		}
		if b-delta <= 0 {
			return math.Inf(-1)
		}
		return math.Log(b-delta) - la
	}
	const hi, n = 0.0, 4000
	best, bi := math.Inf(-1), -1
	for i := 0; i <= n; i++ {
		v := h(lo + (hi-lo)*float64(i)/n)
		if v > best {
			best, bi = v, i
		}
	}
	if bad != nil {
		return 0, bad
	}
	if bi < 0 {
		return 0, nil // β(α) ≤ δ everywhere: (0, δ)-DP
	}
	// Still rising at the smallest α searched: the supremum lies below the
	// range and the grid's best is not ε (a plateau, as for f_{ε,δ}, is
	// fine; the tolerance covers EpsilonFromTradeOff's cancellation).
	if bi == 0 && best-h(lo+1) > 1e-5*math.Max(1, math.Abs(best)) {
		return 0, fmt.Errorf("fdp: the supremum of log((β(α) − δ)/α) lies below α = %.3g, the smallest α searched: "+
			"β(α) − δ does not vanish fast enough as α → 0 (no finite ε if β(0+) > δ); raise δ, or use "+
			"EpsilonFromPower with an accurate power function (e.g. GaussianPower), which searches down to α = 1e-300", math.Exp(lo))
	}
	a := lo + (hi-lo)*float64(max(bi-1, 0))/n
	b := lo + (hi-lo)*float64(min(bi+1, n))/n
	const g = 0.6180339887498949
	c, d := b-g*(b-a), a+g*(b-a)
	hc, hd := h(c), h(d)
	for range 200 {
		if b-a < 1e-13 {
			break
		}
		if hc > hd {
			b, d, hd = d, c, hc
			c = b - g*(b-a)
			hc = h(c)
		} else {
			a, c, hc = c, d, hd
			d = a + g*(b-a)
			hd = h(d)
		}
	}
	best = math.Max(best, math.Max(hc, hd))
	return math.Max(0, best), nil
}

// EpsilonFromTradeOff is EpsilonFromPower with β = 1 − f, searched
// over α ∈ [1e-10, 1] only: 1 − f(α) loses about 1e-16 absolute to
// cancellation, which would dominate (β(α) − δ)/α for smaller α (relative
// error about 1e-6 at α = 1e-10). An optimum below 1e-10 (e.g. G_μ for
// μ ≳ 3 at δ = 1e-10) is an error: use EpsilonFromPower with an accurate
// power function (GaussianPower) there.
//
// Errors: as EpsilonFromPower.
func EpsilonFromTradeOff(f func(alpha float64) float64, delta float64) (float64, error) {
	if f == nil {
		return 0, errors.New("fdp: EpsilonFromTradeOff: nil trade-off function")
	}
	return epsilonFromPower(func(a float64) float64 { return 1 - f(a) }, delta, math.Log(1e-10))
}

// SimulatorToReplacement maps an (ε, δ) guarantee under feature DP's
// simulator relation FDP_i^Ψ (add/remove against a simulator, Def. 6) to
// the replacement relation FDP_r^Ψ (Def. 5), Prop. 1 of the paper:
// chaining the simulator twice, Pr[M(S)∈T] ≤ e^ε(e^ε Pr[M(S')∈T] + δ) + δ,
// so
//
//	(ε, δ)-DP_i^Ψ ⇒ (2ε, δ(1 + e^ε))-DP_r^Ψ.
//
// It is the relation change accounting.RelationFeatureSimulator →
// accounting.RelationFeature of accounting.Loss.ChangeRelation applied to
// an (ε, δ) loss (the one place the formula is written). Example:
// (1, 1e-5) ↦ (2, 3.718e-5).
//
// Errors: ε NaN, negative or infinite; δ NaN or outside [0, 1); δ(1 + e^ε)
// ≥ 1 (a vacuous guarantee).
func SimulatorToReplacement(eps, delta float64) (eps2, delta2 float64, err error) {
	l, err := accounting.ApproxLoss(eps, delta, accounting.RelationFeatureSimulator)
	if err != nil {
		return 0, 0, fmt.Errorf("fdp: SimulatorToReplacement: %w", err)
	}
	if l, err = l.ChangeRelation(accounting.RelationFeature); err != nil {
		return 0, 0, fmt.Errorf("fdp: SimulatorToReplacement: %w", err)
	}
	eps2, delta2, _ = l.ApproxDP() // pure or (ε, δ) after the change
	return eps2, delta2, nil
}

// SimulatorToReplacementPower is the trade-off form of Prop. 1 (see
// SimulatorToReplacement): if M is f-DP_i^Ψ with power β = 1 − f, it is
// f'-DP_r^Ψ with power β'(α) = min(1, β(β(α))) (the paper's "f∘f", which
// is a composition of power functions).
func SimulatorToReplacementPower(power func(alpha float64) float64) func(alpha float64) float64 {
	return func(a float64) float64 { return math.Min(1, power(math.Min(1, power(a)))) }
}

// AttributeInferenceBound returns the Thm 4 bound on the success of any
// attribute-inference adversary against an (ε, δ)-DP_i^Ψ mechanism
// (docs/feature-dp.md, 'The guarantee'; only the add direction M vs simulator is used):
//
//	adv ≤ 1 − f_{ε,δ}(Ball) = min(1, e^ε·Ball + δ),
//
// where Ball = sup_{x*} Pr_{x∼X|Ψ(x)=u}[d(x, x*) ≤ ρ] is the best success
// without the output (Def. 8). For ε = 8 the bound is non-trivial only when
// Ball < about 3e-4.
//
// Errors: ε NaN or negative, δ or Ball outside [0, 1].
func AttributeInferenceBound(eps, delta, ball float64) (float64, error) {
	f, err := TradeOffApprox(eps, delta, ball)
	if err != nil {
		return 0, fmt.Errorf("attribute-inference bound: %w", err)
	}
	if math.IsInf(eps, 1) { // e^ε·Ball would be ∞·0 = NaN at Ball = 0
		if ball > 0 {
			return 1, nil
		}
		return delta, nil
	}
	return math.Min(1, math.Max(1-f, math.Exp(eps)*ball+delta)), nil
}

// AttributeInferenceBoundGDP returns the Thm 4 bound for a μ-GDP
// (f = G_μ) feature-DP mechanism (our derivation; docs/feature-dp.md):
//
//	adv ≤ 1 − G_μ(Ball) = Φ(Φ^{-1}(Ball) + μ).
//
// Example: μ = 1, Ball = 1/1000 gives 0.018298; it is tight for the K-ary
// Gaussian histogram (GaussianArgmaxSuccess).
//
// Errors: μ NaN or negative, Ball outside [0, 1].
func AttributeInferenceBoundGDP(mu, ball float64) (float64, error) {
	b, err := GaussianPower(mu, ball)
	if err != nil {
		return 0, fmt.Errorf("attribute-inference bound: %w", err)
	}
	return b, nil
}

// RandomizedResponseSuccess is the optimal success probability of
// guessing a uniform private bit released by randomized response with keep
// probability e^ε/(1+e^ε) (an ε-DP_i^Ψ mechanism with Ψ = the other bits and
// a uniform-bit simulator): e^ε/(1+e^ε). Thm 4 bounds it by
// min(1, e^ε/2).
//
// Errors: ε NaN or negative.
func RandomizedResponseSuccess(eps float64) (float64, error) {
	if err := accounting.ValidateEpsilon(eps); err != nil {
		return 0, err
	}
	return 1 / (1 + math.Exp(-eps)), nil
}

// GaussianArgmaxSuccess is the exact success of the argmax attack on a
// K-ary attribute with uniform prior (Ball = 1/K) released through a
// histogram with N(0, μ^{-2}) noise per bin (μ-GDP for add/remove of the
// target; the adversary subtracts the known histogram of the rest):
//
//	succ = ∫ φ(z) Φ(z + μ)^{K−1} dz,
//
// integrated by composite Simpson's rule on [−12 − μ, 12] with 24,000
// intervals (absolute error far below 1e-9). Example: (K, μ) = (1000, 1)
// gives 0.016604.
//
// Errors: K < 1, μ NaN, negative or infinite.
func GaussianArgmaxSuccess(k int, mu float64) (float64, error) {
	if k < 1 {
		return 0, fmt.Errorf("fdp: GaussianArgmaxSuccess: K = %d, want ≥ 1", k)
	}
	if err := accounting.ValidateMu(mu); err != nil {
		return 0, err
	}
	if math.IsInf(mu, 1) {
		return 0, errors.New("fdp: GaussianArgmaxSuccess: μ = +Inf")
	}
	if k == 1 {
		return 1, nil
	}
	lo, hi := -12.0-mu, 12.0
	const n = 24000
	hstep := (hi - lo) / n
	f := func(z float64) float64 {
		lc := numeric.LogNormCDF(z + mu)
		return math.Exp(-0.5*z*z+float64(k-1)*lc) / math.Sqrt(2*math.Pi)
	}
	s := f(lo) + f(hi)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(lo+float64(i)*hstep)
	}
	return s * hstep / 3, nil
}
