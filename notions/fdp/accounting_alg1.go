package fdp

// The privacy of Algorithm 1 and of its single-batch ablation
// (Feature-DP paper, Sec. 5, Thm 5; docs/feature-dp.md), and the conversion of epochs into steps.

import (
	"fmt"
	"math"
	"sort"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/internal/numeric"
	"github.com/featuredp/featuredp/internal/valid"
)

// Alg1Loss is the privacy loss of T steps of Algorithm 1 (Thm 5): two-batch
// noisy SGD with a Poisson private batch of rate q, per-example clipping of
// ∇ℓ_priv to C and noise z·C on the clipped sum has, under the feature
// simulator relation FDP_i^Ψ (accounting.RelationFeatureSimulator), the
// privacy curve of the Poisson-subsampled Gaussian mechanism with the same
// (q, z, T); public-only steps add nothing (Remark 2). The loss is
// accounting.SubsampledGaussianLoss moved to that relation by
// Loss.ChangeRelation (the curve is unchanged; Changes records the step),
// ready for an accounting.Ledger.
//
// Errors: q outside [0, 1], z NaN or negative, steps < 0.
func Alg1Loss(q, z float64, steps int) (accounting.Loss, error) {
	l, err := accounting.SubsampledGaussianLoss(accounting.Phase{SampleRate: q, NoiseMultiplier: z, Steps: steps})
	if err != nil {
		return accounting.Loss{}, fmt.Errorf("fdp: Algorithm 1 loss: %w", err)
	}
	return toFeatureSimulator(l, fmt.Sprintf("Algorithm 1 q=%g z=%g T=%d (feature DP Thm 5)", q, z, steps))
}

// toFeatureSimulator moves a loss to the feature-simulator relation and
// names it.
func toFeatureSimulator(l accounting.Loss, name string) (accounting.Loss, error) {
	l, err := l.ChangeRelation(accounting.RelationFeatureSimulator)
	if err != nil {
		return accounting.Loss{}, fmt.Errorf("fdp: %s: %w", name, err)
	}
	return l.WithName(name), nil
}

// Compose composes losses under the feature simulator relation FDP_i^Ψ on
// the default order grid (accounting.DefaultOrders) and reports (ε, δ) with
// the default conversion (accounting.DefaultConversion): the accounting of
// every method of this package. A loss of another relation is refused
// (change it with Loss.ChangeRelation: add/remove DP implies FDP_i^Ψ,
// Prop. 2).
//
// Errors: a loss the ledger refuses, δ not in (0, 1), or no route
// certifies δ.
func Compose(delta float64, losses ...accounting.Loss) (*accounting.LedgerReport, error) {
	led, err := accounting.NewLedger(accounting.RelationFeatureSimulator, accounting.DefaultOrders())
	if err != nil {
		return nil, fmt.Errorf("fdp: ledger: %w", err)
	}
	for _, l := range losses {
		if err := led.Add(l); err != nil {
			return nil, fmt.Errorf("fdp: ledger: %w", err)
		}
	}
	rep, err := led.Epsilon(delta, accounting.DefaultConversion)
	if err != nil {
		return nil, fmt.Errorf("fdp: ledger: %w", err)
	}
	return rep, nil
}

// Alg1Epsilon is the privacy of Algorithm 1 (Thm 5): the (ε, δ)-DP_i^Ψ of
// Alg1Loss on the ledger (Compose), i.e. the ε of DP-SGD with the same
// (q, z, T): the Poisson-subsampled Gaussian RDP over the Opacus order grid
// with the improved conversion (Balle et al. 2020, Thm 21). It returns ε
// and the order that attains it (0 when nothing is released: q = 0,
// z = +Inf or T = 0).
//
// Errors: as Alg1Loss and Compose.
func Alg1Epsilon(q, z float64, steps int, delta float64) (eps, order float64, err error) {
	l, err := Alg1Loss(q, z, steps)
	if err != nil {
		return 0, 0, err
	}
	rep, err := Compose(delta, l)
	if err != nil {
		return 0, 0, fmt.Errorf("fdp: Algorithm 1 accounting: %w", err)
	}
	return rep.Epsilon, rep.Order, nil
}

// SingleBatchDelta is our accounting of the single-batch FDP ablation
// (not in the paper; docs/feature-dp.md): the public gradient is computed on the
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
func SingleBatchDelta(q, z float64, steps int, eps float64) (float64, error) {
	if err := accounting.ValidateSampleRate(q); err != nil {
		return 0, err
	}
	if !(z > 0) {
		return 0, fmt.Errorf("fdp: SingleBatchDelta: noise multiplier z = %v, want > 0", z)
	}
	if err := accounting.ValidateSteps(steps); err != nil {
		return 0, err
	}
	if err := accounting.ValidateEpsilon(eps); err != nil {
		return 0, err
	}
	if math.IsInf(z, 1) || q == 0 || steps == 0 {
		return 0, nil
	}
	if q == 1 {
		return accounting.GDPDelta(math.Sqrt(float64(steps))/z, eps)
	}
	lq, l1q := math.Log(q), math.Log1p(-q)
	lfT := numeric.LogFact(steps)
	logPr := func(k int) float64 {
		return lfT - numeric.LogFact(k) - numeric.LogFact(steps-k) + float64(k)*lq + float64(steps-k)*l1q
	}
	var d float64
	lo, hi := binomialWindow(steps, q, logPr)
	for k := lo; k <= hi; k++ {
		lp := logPr(k)
		if lp < -745 {
			continue
		}
		dk, _ := accounting.GDPDelta(math.Sqrt(float64(k))/z, eps) // μ = √k/z finite ≥ 0, ε valid: no error
		d += math.Exp(lp) * dk
	}
	return math.Min(d, 1), nil
}

// binomialWindow returns the k in [1, T] outside which the Bin(T, q) log
// probability logPr(k) is below −800, far below the −745 under which
// SingleBatchDelta skips a term: a window of O(√T) terms around the mode
// m = ⌊(T+1)q⌋, found by bisection (the pmf rises up to m and falls after),
// so that the work does not grow like T.
func binomialWindow(steps int, q float64, logPr func(k int) float64) (lo, hi int) {
	const cut = -800
	m := min(max(int(float64(steps+1)*q), 1), steps)
	lo = 1 + sort.Search(m, func(i int) bool { return logPr(i+1) >= cut })
	hi = m + sort.Search(steps-m, func(i int) bool { return logPr(m+1+i) < cut })
	return lo, hi
}

// SingleBatchEpsilon inverts SingleBatchDelta: the smallest ε ≥ 0 with
// δ(ε) ≤ δ, by bisection on ε to 1e-10 relative. Example: q = 1/16,
// z = 1, T = 286, δ = 1e-5 gives ε ≈ 32.04 (Algorithm 1 with amplification:
// 7.988).
//
// Errors: as SingleBatchDelta, and δ not in (0, 1).
func SingleBatchEpsilon(q, z float64, steps int, delta float64) (float64, error) {
	if err := accounting.ValidateDelta(delta); err != nil {
		return 0, err
	}
	d0, err := SingleBatchDelta(q, z, steps, 0)
	if err != nil {
		return 0, err
	}
	if d0 <= delta {
		return 0, nil
	}
	lo, hi := 0.0, 1.0
	for {
		d, _ := SingleBatchDelta(q, z, steps, hi)
		if d <= delta {
			break
		}
		lo, hi = hi, 2*hi
		if hi > 1e7 {
			return 0, fmt.Errorf("fdp: SingleBatchEpsilon: no ε ≤ 1e7 reaches δ = %v", delta)
		}
	}
	for hi-lo > 1e-10*hi {
		mid := 0.5 * (lo + hi)
		d, _ := SingleBatchDelta(q, z, steps, mid)
		if d <= delta {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// SingleBatchLoss is the privacy loss of the single-batch ablation at δ:
// the (ε, δ) of SingleBatchEpsilon under the feature simulator relation
// FDP_i^Ψ, an (ε, δ) entry for the ledger (its bound is a mixture of GDP
// curves, not an RDP curve, so the ledger composes it by basic
// composition).
//
// Errors: as SingleBatchEpsilon.
func SingleBatchLoss(q, z float64, steps int, delta float64) (accounting.Loss, error) {
	eps, err := SingleBatchEpsilon(q, z, steps, delta)
	if err != nil {
		return accounting.Loss{}, err
	}
	l, err := accounting.ApproxLoss(eps, delta, accounting.RelationFeatureSimulator)
	if err != nil {
		return accounting.Loss{}, fmt.Errorf("fdp: single-batch loss: %w", err)
	}
	return l.WithName(fmt.Sprintf("single-batch ablation q=%g z=%g T=%d", q, z, steps)), nil
}

// SingleBatchNoiseMultiplier is the smallest noise multiplier z (to
// 1e-6 relative, by bisection) for which SingleBatchEpsilon(q, z, T, δ) ≤
// targetEps: the calibration of the single-batch ablation (docs/feature-dp.md;
// it needs a much larger z than Algorithm 1 at the same ε).
//
// The bisection stops after 200 halvings, so when every z > 0 meets the
// target (the rate q·T below δ: ε = 0) it returns a tiny z.
//
// Errors: targetEps not finite and > 0, q not in (0, 1], T < 1, invalid δ,
// or no z ≤ 1e6 reaching the target.
func SingleBatchNoiseMultiplier(targetEps, q float64, steps int, delta float64) (float64, error) {
	if err := accounting.ValidateTargetEpsilon(targetEps); err != nil {
		return 0, err
	}
	if steps < 1 {
		return 0, fmt.Errorf("fdp: SingleBatchNoiseMultiplier: steps = %d, want ≥ 1", steps)
	}
	if !(q > 0 && q <= 1) {
		return 0, fmt.Errorf("fdp: SingleBatchNoiseMultiplier: rate q = %v, want in (0, 1] (at q = 0 nothing is released and there is no z to calibrate)", q)
	}
	eps := func(z float64) (float64, error) { return SingleBatchEpsilon(q, z, steps, delta) }
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
			return 0, fmt.Errorf("fdp: SingleBatchNoiseMultiplier: %w", accounting.ErrUnreachable)
		}
	}
	// At most 200 halvings: if every z > 0 meets the target (q·T below δ),
	// lo stays 0 and the interval never closes.
	for it := 0; it < 200 && hi-lo > 1e-6*hi; it++ {
		mid := 0.5 * (lo + hi)
		// An error below hi (no ε within the accountant's range) means
		// z is too small: never read it as ε = 0.
		if e, err := eps(mid); err == nil && e <= targetEps {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// MaxSteps returns the largest T ≥ 0 for which T steps of Algorithm 1
// (Alg1Epsilon: rate q, multiplier z) stay within (targetEps, δ). With
// q = 1/16, z = 1, δ = 1e-5 it gives 22 / 55 / 154 / 286 steps for
// ε = 3 / 4 / 6 / 8.
//
// Errors: targetEps not finite and > 0, invalid q, z or δ, or more than
// 1e8 steps.
func MaxSteps(targetEps, q, z, delta float64) (int, error) {
	if err := accounting.ValidateTargetEpsilon(targetEps); err != nil {
		return 0, err
	}
	if !(z > 0) {
		return 0, fmt.Errorf("fdp: MaxSteps: noise multiplier z = %v, want > 0", z)
	}
	f := func(t int) (float64, error) { e, _, err := Alg1Epsilon(q, z, t, delta); return e, err }
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
			return 0, fmt.Errorf("fdp: MaxSteps: more than 1e8 steps fit in ε = %v", targetEps)
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

// StepsRounding selects how epochs become steps (docs/feature-dp.md: the
// paper does not say).
type StepsRounding int

const (
	// StepsRound is T = round(epochs/q), our default (the paper does not
	// say).
	StepsRound StepsRounding = iota
	// StepsFloor is T = int(epochs/q), Opacus' get_noise_multiplier.
	StepsFloor
	// StepsLoader is T = epochs·⌈1/q⌉, the Opacus data loader (which
	// then samples at rate 1/⌈1/q⌉).
	StepsLoader
)

// Steps converts epochs at sampling rate q into a number of steps with
// the given rounding. Example: AFHQ, q = 128/14630, 100 epochs → 11,430
// (round), 11,429 (floor) or 11,500 (loader).
//
// Errors: epochs NaN, negative or infinite; q outside (0, 1]; an unknown
// rounding; more than 2^31 steps.
func Steps(epochs, q float64, rounding StepsRounding) (int, error) {
	if err := valid.NonNegative("epochs", epochs); err != nil {
		return 0, fmt.Errorf("fdp: Steps: %w", err)
	}
	if !(q > 0 && q <= 1) {
		return 0, fmt.Errorf("fdp: Steps: rate q = %v, want in (0, 1]", q)
	}
	var t float64
	switch rounding {
	case StepsRound:
		t = math.Round(epochs / q)
	case StepsFloor:
		t = math.Floor(epochs / q)
	case StepsLoader:
		t = epochs * math.Ceil(1/q)
	default:
		return 0, fmt.Errorf("fdp: Steps: unknown rounding %d", int(rounding))
	}
	if t > math.MaxInt32 {
		return 0, fmt.Errorf("fdp: Steps: %v steps", t)
	}
	return int(t), nil
}
