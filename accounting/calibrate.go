package accounting

import (
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/internal/numeric"
)

// OpacusEpsilonTolerance is the epsilon_tolerance of Opacus'
// get_noise_multiplier, used by NoiseMultiplierOpacus.
const OpacusEpsilonTolerance = 0.01

// opacusMaxSigma is Opacus' MAX_SIGMA: the doubling phase fails once the
// noise multiplier exceeds it.
const opacusMaxSigma = 1e6

// ErrUnreachable is returned (wrapped) by the calibration functions when no
// noise multiplier reaches the target.
var ErrUnreachable = errors.New("accounting: target epsilon unreachable")

// ValidateTargetEpsilon returns an error unless eps is finite and > 0 (a
// target privacy budget).
func ValidateTargetEpsilon(eps float64) error {
	if math.IsNaN(eps) || !(eps > 0) || math.IsInf(eps, 1) {
		return fmt.Errorf("accounting: target epsilon %v is not finite and > 0", eps)
	}
	return nil
}

// calibrationInputs validates the common inputs of the calibrations. The
// sample rate must be in (0, 1] and steps >= 1: with q = 0 or no steps the
// privacy loss does not depend on the noise and there is nothing to
// calibrate.
func calibrationInputs(targetEps, delta, q float64, steps int) error {
	if err := ValidateTargetEpsilon(targetEps); err != nil {
		return err
	}
	if err := ValidateDelta(delta); err != nil {
		return err
	}
	if math.IsNaN(q) || !(q > 0 && q <= 1) {
		return fmt.Errorf("accounting: sample rate %v not in (0, 1]", q)
	}
	if steps < 1 {
		return fmt.Errorf("accounting: number of steps %d is not >= 1", steps)
	}
	return nil
}

// epsCurve evaluates ε(z) for fixed (q, steps, δ, orders, conversion),
// reusing its buffer.
type epsCurve struct {
	q      float64
	steps  int
	delta  float64
	orders []float64
	conv   Conversion
	raw    bool // Opacus' unclamped get_privacy_spent instead of EpsilonFromRDP
	rdp    []float64
	// budget is the series work left for the whole calibration
	// (calibrationWork when nil at the first evaluation); once spent,
	// eps returns NaN and the calibration fails with errTooCostly.
	budget *workBudget
}

// calibrationWork bounds the series terms of one calibration, over every
// noise multiplier it tries: two grids' worth of maxSGMWork, about two seconds.
const calibrationWork = 2 * maxSGMWork

// errTooCostly is returned by the calibrations when the order grid needs
// more series work than calibrationWork.
var errTooCostly = errors.New("accounting: the order grid is too costly to calibrate on (more than 2^23 series terms): use fewer orders, or orders below a few thousand")

// spent reports whether the calibration's work budget ran out (some order
// then got the un-subsampled cap instead of its value).
func (e *epsCurve) spent() bool { return e.budget != nil && e.budget.exhausted }

func (e *epsCurve) eps(z float64) float64 {
	if e.rdp == nil {
		e.rdp = make([]float64, len(e.orders))
	}
	if e.budget == nil {
		e.budget = &workBudget{left: calibrationWork}
	}
	for k := range e.rdp {
		e.rdp[k] = 0
	}
	addRDPBudget(e.rdp, e.q, z, e.steps, e.orders, e.budget)
	if e.spent() {
		return math.NaN()
	}
	if e.raw {
		v, _ := epsilonRaw(e.orders, e.rdp, e.delta, e.conv)
		return v
	}
	v, _, err := EpsilonFromRDP(e.orders, e.rdp, e.delta, e.conv)
	if err != nil {
		return math.NaN()
	}
	return v
}

// NoiseMultiplierOpacus reproduces Opacus' get_noise_multiplier
// (opacus/accountants/utils.py, accountant="rdp", epsilon_tolerance=0.01)
// bit for bit in its control flow: with ε(z) the ε of steps steps of the
// Poisson-subsampled Gaussian mechanism with rate q and noise multiplier z
// (add/remove-one neighbours) over OrdersOpacus with the improved conversion
// (Opacus' get_privacy_spent, unclamped),
//
//	lo, hi = 0, 10
//	repeat: hi = 2·hi; if ε(hi) <= target stop; if hi > 1e6 fail
//	while target − ε(hi) > 0.01: mid = (lo+hi)/2; if ε(mid) < target {hi = mid} else {lo = mid}
//	return hi
//
// so the returned z satisfies ε(z) ≤ target but is NOT tight: ε(z) may be up
// to 0.01 below the target (use NoiseMultiplier for a tight value). Where
// 0.01 is below the spacing of float64 values near the target (targets of
// about 1e14 and more), the bisection stops after 200 halvings instead of
// looping as Opacus would, still with ε(z) ≤ target. For
// target 8, δ = 1e-5, q = 0.04 it gives 1.416015625 with 2250 steps and
// 1.356201171875 with 2000 steps.
//
// Steps convention: pass T explicitly. Opacus' get_noise_multiplier called
// with epochs computes T = int(epochs/q) (and some of its tests use
// int(90//0.04) = 2249); TF Privacy uses ceil(epochs·n/batch).
//
// Errors: target ε not finite and > 0, δ not in (0, 1), q not in (0, 1],
// steps < 1, and ErrUnreachable (wrapped) when z would exceed 1e6, as Opacus'
// "The privacy budget is too low" — which always happens when the target is
// below the ε that the δ-dependent terms of the conversion alone produce.
func NoiseMultiplierOpacus(targetEps, delta, q float64, steps int) (float64, error) {
	if err := calibrationInputs(targetEps, delta, q, steps); err != nil {
		return 0, err
	}
	c := &epsCurve{q: q, steps: steps, delta: delta, orders: OrdersOpacus(), conv: ConversionImproved, raw: true}
	lo, hi := 0.0, 10.0
	epsHi := math.Inf(1)
	for epsHi > targetEps {
		hi *= 2
		epsHi = c.eps(hi)
		if c.spent() {
			return 0, errTooCostly
		}
		if hi > opacusMaxSigma {
			return 0, fmt.Errorf("%w: the privacy budget is too low (noise multiplier would exceed %g)", ErrUnreachable, opacusMaxSigma)
		}
	}
	for iter := 0; targetEps-epsHi > OpacusEpsilonTolerance; iter++ {
		if iter > 200 {
			// Only where the tolerance is below the spacing of float64
			// values near the target (targets ≳ 1e14), so that no ε(z)
			// can land within it: Opacus would loop forever. hi is a
			// valid answer, ε(hi) ≤ target, as at any stop.
			break
		}
		mid := (lo + hi) / 2
		e := c.eps(mid)
		if c.spent() {
			return 0, errTooCostly
		}
		if e < targetEps {
			hi, epsHi = mid, e
		} else {
			lo = mid
		}
	}
	return hi, nil
}

// unreachableError explains why even the largest noise multiplier leaves ε
// above the target: the conversion's cost at the grid's largest finite
// order of at most maxExactOrder (more orders help), or, when the grid has
// no such order, the un-subsampled bound α/(2z²) of larger ones (smaller
// orders help).
func unreachableError(eps, target, delta float64, orders []float64) error {
	best := 0.0
	for _, a := range orders {
		if a <= maxExactOrder {
			best = max(best, a)
		}
	}
	if best == 0 {
		return fmt.Errorf("%w: even noise multiplier %g gives epsilon %.4g > %v: every order of the grid is above %d, where the RDP is the un-subsampled bound α/(2z²), which grows with α; use orders up to about 1024 (OrdersDPAccounting)",
			ErrUnreachable, maxNoiseMultiplier, eps, target, maxExactOrder)
	}
	return fmt.Errorf("%w: even noise multiplier %g gives epsilon %.4g > %v: at δ = %v the RDP → (ε, δ) conversion alone costs about that at the grid's largest order %v; add larger orders up to %d (that cost falls about as log(1/δ)/α; OrdersDPAccounting reaches 1024), or raise δ or the target",
		ErrUnreachable, maxNoiseMultiplier, eps, target, delta, best, maxExactOrder)
}

// maxNoiseMultiplier bounds the search of NoiseMultiplier.
const maxNoiseMultiplier = 1e8

// NoiseMultiplier returns the smallest noise multiplier z for which steps
// steps of the Poisson-subsampled Gaussian mechanism with rate q (add/remove
// one record) satisfy (targetEps, δ)-DP according to the RDP accountant over
// the given orders (nil means OrdersOpacus) with conversion conv. ε(z) is
// decreasing in z; the root is bracketed by doubling/halving from z = 1 and
// refined by Brent's method to 1e-13 relative in z, and the upper end of the
// final bracket is returned, so ε(z) ≤ targetEps always holds and
// ε(z) = targetEps to about 1e-9 relative or better. Unlike
// NoiseMultiplierOpacus this is tight; both use the same ε(z) up to the
// clamping of EpsilonFromRDP. The steps convention is the caller's (see
// NoiseMultiplierOpacus).
//
// Errors: invalid target, δ, q (must be in (0, 1]), steps (>= 1), orders or
// conversion, and ErrUnreachable (wrapped) when even z = 1e8 does not reach
// the target — which is the case when the target is below the ε that the
// δ-dependent terms of the conversion produce at the grid's orders.
func NoiseMultiplier(targetEps, delta, q float64, steps int, orders []float64, conv Conversion) (float64, error) {
	if err := calibrationInputs(targetEps, delta, q, steps); err != nil {
		return 0, err
	}
	if err := conv.valid(); err != nil {
		return 0, err
	}
	if orders == nil {
		orders = OrdersOpacus()
	} else if err := ValidateOrders(orders); err != nil {
		return 0, err
	}
	c := &epsCurve{q: q, steps: steps, delta: delta, orders: orders, conv: conv}
	g := func(z float64) float64 { return c.eps(z) - targetEps }
	lo, hi := 1.0, 1.0
	glo, ghi := g(lo), g(hi)
	if ghi > 0 {
		for ghi > 0 {
			lo, glo = hi, ghi
			hi *= 2
			if hi > maxNoiseMultiplier {
				return 0, unreachableError(ghi+targetEps, targetEps, delta, orders)
			}
			ghi = g(hi)
		}
	} else {
		for glo <= 0 {
			hi, ghi = lo, glo
			lo /= 2
			if lo < 1e-300 {
				return 0, fmt.Errorf("%w: target epsilon %v is reached without noise", ErrUnreachable, targetEps)
			}
			glo = g(lo)
		}
	}
	if c.spent() {
		return 0, errTooCostly
	}
	if math.IsNaN(glo) || math.IsNaN(ghi) {
		return 0, fmt.Errorf("accounting: epsilon is not a number while calibrating")
	}
	_, hi = numeric.BrentDecreasing(g, lo, hi, glo, ghi, 1e-13)
	if c.spent() {
		return 0, errTooCostly
	}
	return hi, nil
}
