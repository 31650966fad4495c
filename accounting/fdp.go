package accounting

// Feature differential privacy (FDP): the computable parts of
// "Machine Learning with Privacy for Protected Attributes" (Mahloujifar,
// Guo, Suh, Chaudhuri, IEEE S&P 2025), spec shared/specs/fdp.md §1–§2.5.
//
// Neighbouring relations. FDP_i^Ψ (add/remove with a simulator, Def. 6)
// and FDP_r^Ψ (replacement of x by x' with Ψ(x) = Ψ(x'), Def. 5). By Thm 3
// (composition of simulators) and Thm 5, Algorithm 1 (two independent
// batches, Poisson private batch) has exactly the add/remove privacy curve of
// the Poisson-subsampled Gaussian mechanism, so the RDP accountant of this
// package applies unchanged (FDPAlg1Epsilon). Trade-off functions are in the
// f-DP language of Dong, Roth & Su (2019); a "power" function is
// β(α) = 1 − f(α), the largest probability of any event under M(S) given its
// probability α under the neighbour (or simulator).

import (
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/internal/numeric"
)

// fdpCheckUnit returns an error unless x is in [0, 1].
func fdpCheckUnit(name string, x float64) error {
	if !(x >= 0 && x <= 1) {
		return fmt.Errorf("accounting: %s = %v, want in [0, 1]", name, x)
	}
	return nil
}

// fdpNormQuantile is Φ^{-1}(p) for p in [0, 1] (±Inf at the ends).
func fdpNormQuantile(p float64) float64 {
	return -math.Sqrt2 * math.Erfcinv(2*p)
}

// FDPTradeOffApprox returns the trade-off function of (ε, δ)-DP with the
// clamping of fdp.md §1.1 / §6 item 12:
//
//	f_{ε,δ}(α) = max(0, 1 − δ − e^ε α),   α ∈ [0, 1].
//
// It is the one-sided form the paper uses (Def. 4), which is what Thm 2 and
// Thm 4 need; the symmetric form of Dong, Roth & Su additionally takes the
// max with e^{−ε}(1 − δ − α).
//
// Errors: ε NaN or negative, δ or α outside [0, 1].
func FDPTradeOffApprox(eps, delta, alpha float64) (float64, error) {
	if err := ValidateEpsilon(eps); err != nil {
		return 0, err
	}
	if err := fdpCheckUnit("δ", delta); err != nil {
		return 0, err
	}
	if err := fdpCheckUnit("α", alpha); err != nil {
		return 0, err
	}
	if alpha == 0 {
		return 1 - delta, nil
	}
	return math.Max(0, 1-delta-math.Exp(eps)*alpha), nil
}

// FDPTradeOffGaussian returns the μ-GDP trade-off function (Dong, Roth & Su
// 2019, Def. 2.7; fdp.md §1.5):
//
//	G_μ(α) = Φ(Φ^{-1}(1 − α) − μ),   α ∈ [0, 1].
//
// It is the trade-off between N(0,1) and N(μ,1). μ = 0 gives 1 − α.
//
// Errors: μ NaN or negative, α outside [0, 1].
func FDPTradeOffGaussian(mu, alpha float64) (float64, error) {
	if err := ValidateMu(mu); err != nil {
		return 0, err
	}
	if err := fdpCheckUnit("α", alpha); err != nil {
		return 0, err
	}
	return 1 - fdpGaussianPower(mu, alpha), nil
}

// FDPGaussianPower returns 1 − G_μ(α) = Φ(Φ^{-1}(α) + μ), the largest
// probability of an event under N(μ,1) given probability α under N(0,1),
// computed without the cancellation of 1 − G_μ(α) for small α.
//
// Errors: μ NaN or negative, α outside [0, 1].
func FDPGaussianPower(mu, alpha float64) (float64, error) {
	if err := ValidateMu(mu); err != nil {
		return 0, err
	}
	if err := fdpCheckUnit("α", alpha); err != nil {
		return 0, err
	}
	return fdpGaussianPower(mu, alpha), nil
}

func fdpGaussianPower(mu, alpha float64) float64 {
	switch {
	case alpha == 0:
		return 0
	case alpha == 1:
		return 1
	case math.IsInf(mu, 1):
		return 1
	}
	return numeric.NormCDF(fdpNormQuantile(alpha) + mu)
}

// FDPEpsilonFromPower converts an f-DP guarantee, given by its power
// function β(α) = 1 − f(α), into (ε, δ)-DP (Thm 2 of the paper, Dong, Roth &
// Su 2019 Prop. 2.12):
//
//	ε = sup_{α∈(0,1]} log((β(α) − δ)/α)
//
// (clamped below at 0). The supremum is found numerically: a grid of 4001
// points in log α on [1e-300, 1], then golden-section refinement around the
// best grid point (relative accuracy about 1e-10 for smooth β). The
// neighbouring relation is whatever the f-DP guarantee was for (FDP_i^Ψ,
// FDP_r^Ψ or DP). For β = power of G_μ it agrees with GDPEpsilon.
//
// Errors: nil β, δ not in (0, 1), or β returning NaN.
func FDPEpsilonFromPower(power func(alpha float64) float64, delta float64) (float64, error) {
	if power == nil {
		return 0, errors.New("accounting: FDPEpsilonFromPower: nil power function")
	}
	return fdpEpsilonFromPower(power, delta, -690)
}

// fdpEpsilonFromPower searches log α on [lo, 0].
func fdpEpsilonFromPower(power func(alpha float64) float64, delta, lo float64) (float64, error) {
	if err := ValidateDelta(delta); err != nil {
		return 0, err
	}
	var bad error
	h := func(la float64) float64 {
		a := math.Exp(la)
		b := power(a)
		if math.IsNaN(b) {
			bad = fmt.Errorf("accounting: FDPEpsilonFromPower: power(%v) is NaN", a)
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

// FDPEpsilonFromTradeOff is FDPEpsilonFromPower with β = 1 − f, searched
// over α ∈ [1e-10, 1] only: 1 − f(α) loses about 1e-16 absolute to
// cancellation, which would dominate (β(α) − δ)/α for smaller α (relative
// error about 1e-6 at α = 1e-10). Use FDPEpsilonFromPower with an accurate
// power function (FDPGaussianPower) when the optimum lies below 1e-10.
//
// Errors: as FDPEpsilonFromPower.
func FDPEpsilonFromTradeOff(f func(alpha float64) float64, delta float64) (float64, error) {
	if f == nil {
		return 0, errors.New("accounting: FDPEpsilonFromTradeOff: nil trade-off function")
	}
	return fdpEpsilonFromPower(func(a float64) float64 { return 1 - f(a) }, delta, math.Log(1e-10))
}

// FDPProp1 maps an (ε, δ)-DP_i^Ψ guarantee (add/remove with a simulator) to
// the replacement guarantee of Prop. 1 of the paper (fdp.md §1.4): chaining
// the simulator twice, Pr[M(S)∈T] ≤ e^ε(e^ε Pr[M(S')∈T] + δ) + δ, so
//
//	(ε, δ)-DP_i^Ψ ⇒ (2ε, δ(1 + e^ε))-DP_r^Ψ.
//
// Example: (1, 1e-5) ↦ (2, 3.718e-5). δ' may exceed 1 (vacuous); it is
// returned unclamped so that callers can see that.
//
// Errors: ε NaN, negative or infinite; δ outside [0, 1].
func FDPProp1(eps, delta float64) (eps2, delta2 float64, err error) {
	if err := ValidateEpsilon(eps); err != nil {
		return 0, 0, err
	}
	if math.IsInf(eps, 1) {
		return 0, 0, errors.New("accounting: FDPProp1: ε = +Inf")
	}
	if err := fdpCheckUnit("δ", delta); err != nil {
		return 0, 0, err
	}
	return 2 * eps, delta * (1 + math.Exp(eps)), nil
}

// FDPProp1Power is the trade-off form of Prop. 1: if M is f-DP_i^Ψ with
// power β = 1 − f, it is f'-DP_r^Ψ with power β'(α) = min(1, β(β(α)))
// (the paper's "f∘f", which is a composition of power functions).
func FDPProp1Power(power func(alpha float64) float64) func(alpha float64) float64 {
	return func(a float64) float64 { return math.Min(1, power(math.Min(1, power(a)))) }
}

// FDPAttributeInferenceBound returns the Thm 4 bound on the success of any
// attribute-inference adversary against an (ε, δ)-DP_i^Ψ mechanism
// (fdp.md §1.5; only the add direction M vs simulator is used):
//
//	adv ≤ 1 − f_{ε,δ}(Ball) = min(1, e^ε·Ball + δ),
//
// where Ball = sup_{x*} Pr_{x∼X|Ψ(x)=u}[d(x, x*) ≤ ρ] is the best success
// without the output (Def. 8). For ε = 8 the bound is non-trivial only when
// Ball < about 3e-4.
//
// Errors: ε NaN or negative, δ or Ball outside [0, 1].
func FDPAttributeInferenceBound(eps, delta, ball float64) (float64, error) {
	f, err := FDPTradeOffApprox(eps, delta, ball)
	if err != nil {
		return 0, fmt.Errorf("attribute-inference bound: %w", err)
	}
	if math.IsInf(eps, 1) && ball > 0 {
		return 1, nil
	}
	return math.Min(1, math.Max(1-f, math.Exp(eps)*ball+delta)), nil
}

// FDPAttributeInferenceBoundGDP returns the Thm 4 bound for a μ-GDP
// (f = G_μ) feature-DP mechanism [derived in fdp.md §1.5]:
//
//	adv ≤ 1 − G_μ(Ball) = Φ(Φ^{-1}(Ball) + μ).
//
// Example: μ = 1, Ball = 1/1000 gives 0.018298; it is tight for the K-ary
// Gaussian histogram (FDPGaussianArgmaxSuccess).
//
// Errors: μ NaN or negative, Ball outside [0, 1].
func FDPAttributeInferenceBoundGDP(mu, ball float64) (float64, error) {
	b, err := FDPGaussianPower(mu, ball)
	if err != nil {
		return 0, fmt.Errorf("attribute-inference bound: %w", err)
	}
	return b, nil
}

// FDPRandomizedResponseSuccess is the optimal success probability of
// guessing a uniform private bit released by randomized response with keep
// probability e^ε/(1+e^ε) (an ε-DP_i^Ψ mechanism with Ψ = the other bits and
// a uniform-bit simulator; check A13): e^ε/(1+e^ε). Thm 4 bounds it by
// min(1, e^ε/2).
//
// Errors: ε NaN or negative.
func FDPRandomizedResponseSuccess(eps float64) (float64, error) {
	if err := ValidateEpsilon(eps); err != nil {
		return 0, err
	}
	return 1 / (1 + math.Exp(-eps)), nil
}

// FDPGaussianArgmaxSuccess is the exact success of the argmax attack on a
// K-ary attribute with uniform prior (Ball = 1/K) released through a
// histogram with N(0, μ^{-2}) noise per bin (μ-GDP for add/remove of the
// target; the adversary subtracts the known histogram of the rest, check
// A13):
//
//	succ = ∫ φ(z) Φ(z + μ)^{K−1} dz,
//
// integrated by composite Simpson's rule on [−12, 12 + μ] with 24,000
// intervals (absolute error far below 1e-9). Example: (K, μ) = (1000, 1)
// gives 0.016604.
//
// Errors: K < 1, μ NaN, negative or infinite.
func FDPGaussianArgmaxSuccess(k int, mu float64) (float64, error) {
	if k < 1 {
		return 0, fmt.Errorf("accounting: FDPGaussianArgmaxSuccess: K = %d, want ≥ 1", k)
	}
	if err := ValidateMu(mu); err != nil {
		return 0, err
	}
	if math.IsInf(mu, 1) {
		return 0, errors.New("accounting: FDPGaussianArgmaxSuccess: μ = +Inf")
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

// FDPAlg1Epsilon is the privacy of Algorithm 1 (Thm 5, fdp.md §2.5): T steps
// of two-batch noisy SGD with a Poisson private batch of rate q, per-example
// clipping of ∇ℓ_priv to C and noise z·C on the clipped sum are
// (ε, δ)-DP_i^Ψ with ε equal to that of DP-SGD with the same (q, z, T):
// the Poisson-subsampled Gaussian RDP over the Opacus order grid with the
// improved conversion (Balle et al. 2020, Thm 21). Public-only steps add
// nothing (Remark 2). It returns ε and the optimal order.
//
// Errors: as Epsilon.
func FDPAlg1Epsilon(q, z float64, steps int, delta float64) (eps, order float64, err error) {
	eps, order, err = Epsilon([]Phase{{SampleRate: q, NoiseMultiplier: z, Steps: steps}}, delta, OrdersOpacus(), ConversionImproved)
	if err != nil {
		return 0, 0, fmt.Errorf("FDP Algorithm 1 accounting: %w", err)
	}
	return eps, order, nil
}

// FDPSingleBatchDelta is the [ext] accounting of the single-batch FDP
// ablation (fdp.md §2.3, check P15): the public gradient is computed on the
// private Poisson batch itself, so the unclipped public term reveals which of
// the T steps included the target. Conditioned on that inclusion pattern
// (K ~ Bin(T, q) inclusions) the private part is K Gaussian mechanisms with
// multiplier z, i.e. √K/z-GDP, and joint convexity of the hockey-stick
// divergence gives
//
//	δ(ε) ≤ Σ_{k=0..T} Pr[K = k] · δ_GDP(√k/z; ε).
//
// Neighbouring relation: FDP_i^Ψ (add/remove with simulator). q = 1 is the
// conservative fallback μ = √T/z.
//
// Errors: q outside [0, 1], z NaN or ≤ 0, steps < 0, ε NaN or negative.
func FDPSingleBatchDelta(q, z float64, steps int, eps float64) (float64, error) {
	if err := ValidateSampleRate(q); err != nil {
		return 0, err
	}
	if !(z > 0) {
		return 0, fmt.Errorf("accounting: FDPSingleBatchDelta: noise multiplier z = %v, want > 0", z)
	}
	if err := ValidateSteps(steps); err != nil {
		return 0, err
	}
	if err := ValidateEpsilon(eps); err != nil {
		return 0, err
	}
	if math.IsInf(z, 1) || q == 0 || steps == 0 {
		return 0, nil
	}
	if q == 1 {
		return gaussDelta(math.Sqrt(float64(steps))/z, eps), nil
	}
	lq, l1q := math.Log(q), math.Log1p(-q)
	lfT := numeric.LogFact(steps)
	var d float64
	for k := 1; k <= steps; k++ {
		lp := lfT - numeric.LogFact(k) - numeric.LogFact(steps-k) + float64(k)*lq + float64(steps-k)*l1q
		if lp < -745 {
			continue
		}
		d += math.Exp(lp) * gaussDelta(math.Sqrt(float64(k))/z, eps)
	}
	return math.Min(d, 1), nil
}

// FDPSingleBatchEpsilon inverts FDPSingleBatchDelta: the smallest ε ≥ 0 with
// δ(ε) ≤ δ, by bisection on ε to 1e-10 relative. Example (P15): q = 1/16,
// z = 1, T = 286, δ = 1e-5 gives ε ≈ 32.04 (Algorithm 1 with amplification:
// 7.988).
//
// Errors: as FDPSingleBatchDelta, and δ not in (0, 1).
func FDPSingleBatchEpsilon(q, z float64, steps int, delta float64) (float64, error) {
	if err := ValidateDelta(delta); err != nil {
		return 0, err
	}
	d0, err := FDPSingleBatchDelta(q, z, steps, 0)
	if err != nil {
		return 0, err
	}
	if d0 <= delta {
		return 0, nil
	}
	lo, hi := 0.0, 1.0
	for {
		d, _ := FDPSingleBatchDelta(q, z, steps, hi)
		if d <= delta {
			break
		}
		lo, hi = hi, 2*hi
		if hi > 1e7 {
			return 0, fmt.Errorf("accounting: FDPSingleBatchEpsilon: no ε ≤ 1e7 reaches δ = %v", delta)
		}
	}
	for hi-lo > 1e-10*hi {
		mid := 0.5 * (lo + hi)
		d, _ := FDPSingleBatchDelta(q, z, steps, mid)
		if d <= delta {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// FDPProp3Toy is the corrected no-amplification example of Prop. 3
// (fdp.md §1.6, check A12). A mechanism releases every record with its
// private first bit passed through randomized response with keep probability
// k = e^{2ε}/(1+e^{2ε}); Poisson subsampling with rate p is applied first.
// Against a simulator that knows only u = Ψ(target), the target events are
// "absent" (1−p), "(b,u) present" (p·k), "(1−b,u) present" (p(1−k)); a
// symmetric simulator puts mass s on each of "(0,u)" and "(1,u)" and 1−2s on
// "absent". FDPProp3Toy returns the smallest achievable max |log ratio| over
// the three events and both b (the simulator's ε'), the optimal s, and the
// ordinary DP amplification bound log(1 + p(e^ε − 1)) for comparison.
// ε' ≥ ε for every p > 0 (no amplification); ε' = ε exactly with
// s = p e^ε/(1+e^{2ε}) whenever p ≤ FDPProp3MaxRate(ε).
//
// Errors: ε NaN, ≤ 0 or infinite; p outside (0, 1).
func FDPProp3Toy(eps, p float64) (simEps, s, dpAmplified float64, err error) {
	if !(eps > 0) || math.IsInf(eps, 1) {
		return 0, 0, 0, fmt.Errorf("accounting: FDPProp3Toy: ε = %v, want finite > 0", eps)
	}
	if !(p > 0 && p < 1) {
		return 0, 0, 0, fmt.Errorf("accounting: FDPProp3Toy: rate p = %v, want in (0, 1)", p)
	}
	k := 1 / (1 + math.Exp(-2*eps))
	ratio := func(s float64) float64 {
		r := math.Max(math.Abs(math.Log(p*k/s)), math.Abs(math.Log(p*(1-k)/s)))
		return math.Max(r, math.Abs(math.Log((1-p)/(1-2*s))))
	}
	s0 := p * math.Exp(eps) / (1 + math.Exp(2*eps)) // = p√(k(1−k))
	dpAmp := math.Log1p(p * math.Expm1(eps))
	if r := ratio(s0); r <= eps*(1+1e-12) {
		return eps, s0, dpAmp, nil
	}
	// Quasi-convex in s: ternary search on (0, 1/2).
	a, b := 1e-300, 0.5*(1-1e-15)
	for range 300 {
		m1, m2 := a+(b-a)/3, b-(b-a)/3
		if ratio(m1) <= ratio(m2) {
			b = m2
		} else {
			a = m1
		}
	}
	s = 0.5 * (a + b)
	return ratio(s), s, dpAmp, nil
}

// FDPProp3MaxRate is p₀(ε) = (e^ε − 1)/(e^ε − 2e^ε/(1+e^{2ε})), the largest
// rate at which the simulator s = p e^ε/(1+e^{2ε}) of FDPProp3Toy reaches
// ε' = ε (its "absent" ratio (1 − 2s)/(1 − p) equals e^ε at p₀). Examples:
// p₀(1) ≈ 0.830, p₀(0.5) ≈ 0.851.
//
// Errors: ε NaN, ≤ 0 or infinite.
func FDPProp3MaxRate(eps float64) (float64, error) {
	if !(eps > 0) || math.IsInf(eps, 1) {
		return 0, fmt.Errorf("accounting: FDPProp3MaxRate: ε = %v, want finite > 0", eps)
	}
	e := math.Exp(eps)
	return math.Expm1(eps) / (e - 2*e/(1+e*e)), nil
}

// FDPSingleBatchNoiseMultiplier is the smallest noise multiplier z (to
// 1e-6 relative, by bisection) for which FDPSingleBatchEpsilon(q, z, T, δ) ≤
// targetEps: the calibration of the single-batch ablation (fdp.md §4.3 E2
// (c); it needs a much larger z than Algorithm 1 at the same ε).
//
// Errors: targetEps not finite and > 0, invalid q, T < 1 or δ, or no
// z ≤ 1e6 reaching the target.
func FDPSingleBatchNoiseMultiplier(targetEps, q float64, steps int, delta float64) (float64, error) {
	if err := ValidateTargetEpsilon(targetEps); err != nil {
		return 0, err
	}
	if steps < 1 {
		return 0, fmt.Errorf("accounting: FDPSingleBatchNoiseMultiplier: steps = %d, want ≥ 1", steps)
	}
	eps := func(z float64) (float64, error) { return FDPSingleBatchEpsilon(q, z, steps, delta) }
	lo, hi := 0.0, 1.0
	for {
		e, err := eps(hi)
		if err != nil {
			return 0, err
		}
		if e <= targetEps {
			break
		}
		lo, hi = hi, 2*hi
		if hi > 1e6 {
			return 0, fmt.Errorf("accounting: FDPSingleBatchNoiseMultiplier: %w", ErrUnreachable)
		}
	}
	for hi-lo > 1e-6*hi {
		mid := 0.5 * (lo + hi)
		e, _ := eps(mid)
		if e <= targetEps {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// FDPMaxSteps returns the largest T ≥ 0 for which T steps of Algorithm 1
// (FDPAlg1Epsilon: rate q, multiplier z) stay within (targetEps, δ). With
// q = 1/16, z = 1, δ = 1e-5 it gives 22 / 55 / 154 / 286 steps for
// ε = 3 / 4 / 6 / 8 (check P7).
//
// Errors: targetEps not finite and > 0, invalid q, z or δ, or more than
// 1e8 steps.
func FDPMaxSteps(targetEps, q, z, delta float64) (int, error) {
	if err := ValidateTargetEpsilon(targetEps); err != nil {
		return 0, err
	}
	if !(z > 0) {
		return 0, fmt.Errorf("accounting: FDPMaxSteps: noise multiplier z = %v, want > 0", z)
	}
	f := func(t int) (float64, error) { e, _, err := FDPAlg1Epsilon(q, z, t, delta); return e, err }
	lo, hi := 0, 1
	for {
		e, err := f(hi)
		if err != nil {
			return 0, err
		}
		if e > targetEps {
			break
		}
		lo, hi = hi, 2*hi
		if hi > 1e8 {
			return 0, fmt.Errorf("accounting: FDPMaxSteps: more than 1e8 steps fit in ε = %v", targetEps)
		}
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if e, _ := f(mid); e <= targetEps {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// FDPStepsRounding selects how epochs become steps (fdp.md §6 item 14: the
// paper does not say).
type FDPStepsRounding int

const (
	// FDPStepsRound is T = round(epochs/q), the spec's resolution (default).
	FDPStepsRound FDPStepsRounding = iota
	// FDPStepsFloor is T = int(epochs/q), Opacus' get_noise_multiplier.
	FDPStepsFloor
	// FDPStepsLoader is T = epochs·⌈1/q⌉, the Opacus data loader (which
	// then samples at rate 1/⌈1/q⌉).
	FDPStepsLoader
)

// FDPSteps converts epochs at sampling rate q into a number of steps with
// the given rounding. Example: AFHQ, q = 128/14630, 100 epochs → 11,430
// (round), 11,429 (floor) or 11,500 (loader).
//
// Errors: epochs NaN, negative or infinite; q outside (0, 1]; an unknown
// rounding; more than 2^31 steps.
func FDPSteps(epochs, q float64, rounding FDPStepsRounding) (int, error) {
	if !(epochs >= 0) || math.IsInf(epochs, 1) {
		return 0, fmt.Errorf("accounting: FDPSteps: epochs = %v, want finite ≥ 0", epochs)
	}
	if !(q > 0 && q <= 1) {
		return 0, fmt.Errorf("accounting: FDPSteps: rate q = %v, want in (0, 1]", q)
	}
	var t float64
	switch rounding {
	case FDPStepsRound:
		t = math.Round(epochs / q)
	case FDPStepsFloor:
		t = math.Floor(epochs / q)
	case FDPStepsLoader:
		t = epochs * math.Ceil(1/q)
	default:
		return 0, fmt.Errorf("accounting: FDPSteps: unknown rounding %d", int(rounding))
	}
	if t > math.MaxInt32 {
		return 0, fmt.Errorf("accounting: FDPSteps: %v steps", t)
	}
	return int(t), nil
}
