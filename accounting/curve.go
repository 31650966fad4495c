package accounting

import (
	"errors"
	"fmt"
	"math"
)

// Curve is an RDP curve as a function of the order: Curve(α) is the Rényi
// DP bound ε(α) of a mechanism (or of a composition) at order α > 1. It is
// the one curve type of every mechanism alike: closed forms (αΔ²/(2σ²)),
// the subsampled Gaussian at fractional orders (RDPSubsampledGaussian) and
// curves built from other curves (a notion's pipeline bound).
//
// Neighbouring relation: a Curve does not carry one. It holds for whatever
// relation the caller derived it for (add/remove for the mechanisms of this
// package, replace-one for others), and so does every (ε, δ) computed from
// it: the caller names the relation, as for EpsilonFromRDP.
//
// Conventions: ε(α) = +Inf means "no guarantee at this order" (outside a
// validity interval) and never wins a conversion unless every order is
// +Inf; a curve must not return NaN or a negative value (Epsilon and Delta
// report them as errors), and an error of the curve is returned with the
// order that caused it.
type Curve func(alpha float64) (float64, error)

// RDP evaluates the curve on an order grid: rdp[k] = c(orders[k]). The grid
// is checked with ValidateOrders before the curve is called.
//
// Errors: a nil curve, an invalid grid, or the curve's error (wrapped with
// the order).
func (c Curve) RDP(orders []float64) ([]float64, error) {
	if c == nil {
		return nil, errors.New("accounting: nil RDP curve")
	}
	if err := ValidateOrders(orders); err != nil {
		return nil, err
	}
	rdp := make([]float64, len(orders))
	for k, a := range orders {
		v, err := c(a)
		if err != nil {
			return nil, fmt.Errorf("accounting: RDP curve at order %v: %w", a, err)
		}
		if math.IsNaN(v) || v < 0 {
			return nil, fmt.Errorf("accounting: RDP curve at order %v is %v, not >= 0", a, v)
		}
		rdp[k] = v
	}
	return rdp, nil
}

// Epsilon converts the curve into an (ε, δ)-DP guarantee on the order grid
// with the named conversion (EpsilonFromRDP: ConversionClassic is Mironov
// 2017 Prop 3, ConversionImproved is Balle et al. 2020 Thm 21), and reports
// the order attaining it. The guarantee holds for the curve's neighbouring
// relation. Orders may include +Inf (the curve's limit there).
//
// Errors: those of RDP and of EpsilonFromRDP (δ not in (0, 1), an unknown
// conversion).
func (c Curve) Epsilon(orders []float64, delta float64, conv Conversion) (eps, order float64, err error) {
	if err := conv.valid(); err != nil {
		return 0, 0, err
	}
	if err := ValidateDelta(delta); err != nil {
		return 0, 0, err
	}
	rdp, err := c.RDP(orders)
	if err != nil {
		return 0, 0, err
	}
	return EpsilonFromRDP(orders, rdp, delta, conv)
}

// Delta is the inverse of Epsilon: the smallest δ for which the curve
// implies (ε, δ)-DP on the order grid with the named conversion
// (DeltaFromRDP), and the order attaining it.
//
// Errors: those of RDP and of DeltaFromRDP (ε NaN, negative or +Inf, an
// unknown conversion).
func (c Curve) Delta(orders []float64, eps float64, conv Conversion) (delta, order float64, err error) {
	if err := conv.valid(); err != nil {
		return 0, 0, err
	}
	if math.IsNaN(eps) || eps < 0 || math.IsInf(eps, 1) {
		return 0, 0, fmt.Errorf("accounting: epsilon %v is not finite and >= 0", eps)
	}
	rdp, err := c.RDP(orders)
	if err != nil {
		return 0, 0, err
	}
	return DeltaFromRDP(orders, rdp, eps, conv)
}
