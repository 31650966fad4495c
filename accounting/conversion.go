package accounting

import (
	"fmt"
	"math"
	"strings"

	"github.com/featuredp/featuredp/internal/numeric"
)

// Conversion selects the RDP → (ε, δ) conversion. The zero value is
// ConversionImproved, the default.
type Conversion int

const (
	// ConversionImproved is the conversion of Balle et al. 2020
	// ("Hypothesis testing interpretations and Rényi differential privacy",
	// Thm 21) = Canonne, Kamath & Steinke 2020 (Prop. 12):
	//
	//	ε = min_α  r(α) + log1p(−1/α) − (log δ + log α)/(α − 1).
	//
	// It is what Opacus' RDP accountant, TF Privacy and dp_accounting use.
	ConversionImproved Conversion = iota
	// ConversionClassic is Mironov 2017, Prop. 3:
	//
	//	ε = min_α  r(α) + log(1/δ)/(α − 1).
	ConversionClassic
)

// String returns "improved" or "classic".
func (c Conversion) String() string {
	switch c {
	case ConversionImproved:
		return "improved"
	case ConversionClassic:
		return "classic"
	}
	return fmt.Sprintf("Conversion(%d)", int(c))
}

// ParseConversion maps "improved" and "classic" (case-insensitive) to a
// Conversion.
func ParseConversion(s string) (Conversion, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "improved":
		return ConversionImproved, nil
	case "classic":
		return ConversionClassic, nil
	}
	return 0, fmt.Errorf("accounting: unknown conversion %q (want improved or classic)", s)
}

func (c Conversion) valid() error {
	if c != ConversionImproved && c != ConversionClassic {
		return fmt.Errorf("accounting: unknown conversion %d", int(c))
	}
	return nil
}

// ValidateDelta returns an error unless delta is in (0, 1).
func ValidateDelta(delta float64) error {
	if math.IsNaN(delta) || !(delta > 0 && delta < 1) {
		return fmt.Errorf("accounting: delta %v not in (0, 1)", delta)
	}
	return nil
}

func checkRDPVector(orders, rdp []float64) error {
	if err := ValidateOrders(orders); err != nil {
		return err
	}
	if len(rdp) != len(orders) {
		return fmt.Errorf("accounting: %d RDP values for %d orders", len(rdp), len(orders))
	}
	for i, r := range rdp {
		if math.IsNaN(r) || r < 0 {
			return fmt.Errorf("accounting: RDP value %v at order %v is not >= 0", r, orders[i])
		}
	}
	return nil
}

// epsAtOrder converts RDP r at order a to ε for this δ (log δ given) without
// clamping; a = +Inf uses the limit r(∞) of the formula.
func epsAtOrder(a, r, logDelta float64, conv Conversion) float64 {
	if math.IsInf(r, 1) {
		return r
	}
	if math.IsInf(a, 1) {
		return r
	}
	if conv == ConversionClassic {
		return r - logDelta/(a-1)
	}
	return r - (logDelta+math.Log(a))/(a-1) + math.Log((a-1)/a)
}

// EpsilonFromRDP converts an RDP curve (rdp[k] at orders[k]) into an
// (ε, δ)-DP guarantee and reports the order that attains it. The
// neighbouring relation is whatever the RDP curve was computed for (all
// mechanisms of this package: add/remove one record).
//
// With ConversionImproved, ε = min_α r(α) + log1p(−1/α) − (log δ + log α)/(α−1)
// (Balle et al. 2020 Thm 21); with ConversionClassic, ε = min_α r(α) +
// log(1/δ)/(α−1) (Mironov 2017 Prop 3). An order of +Inf contributes r(+Inf)
// (the limit of both formulas).
//
// Zero privacy loss is decided from the inputs, never from computed values:
// a curve of zeros gets the formula's small positive ε (a computed zero may
// be an underflow), while Accountant.Epsilon and Epsilon return ε = 0 when
// every phase is trivial (q = 0, z = +Inf or no steps). The returned ε is
// the minimum above clamped at 0 (negative values can only appear for large
// δ). Orders whose RDP is +Inf never win unless all are +Inf, in which case
// ε = +Inf and the first order is reported. When several orders tie, the first one wins.
//
// Errors: δ not in (0, 1), an invalid order grid, a length mismatch, or an
// RDP value that is NaN or negative.
func EpsilonFromRDP(orders, rdp []float64, delta float64, conv Conversion) (eps, order float64, err error) {
	if err := conv.valid(); err != nil {
		return 0, 0, err
	}
	if err := ValidateDelta(delta); err != nil {
		return 0, 0, err
	}
	if err := checkRDPVector(orders, rdp); err != nil {
		return 0, 0, err
	}
	eps, order = epsilonRaw(orders, rdp, delta, conv)
	if eps < 0 {
		eps = 0
	}
	return eps, order, nil
}

// epsilonRaw is the unclamped minimum over orders (Opacus' get_privacy_spent
// for ConversionImproved). Inputs must be valid.
func epsilonRaw(orders, rdp []float64, delta float64, conv Conversion) (float64, float64) {
	logDelta := numeric.Log(delta)
	best, bestOrder := math.Inf(1), orders[0]
	for k, a := range orders {
		e := epsAtOrder(a, rdp[k], logDelta, conv)
		if e < best {
			best, bestOrder = e, a
		}
	}
	return best, bestOrder
}

// DeltaFromRDP is the inverse of EpsilonFromRDP: the smallest δ such that
// the RDP curve implies (ε, δ)-DP through the chosen conversion, and the
// order attaining it. With ConversionImproved (Canonne, Kamath & Steinke
// 2020, Prop. 12; as dp_accounting's compute_delta)
//
//	log δ = min_α (α−1)(r(α) − ε + log1p(−1/α)) − log α,
//
// and with ConversionClassic log δ = min_α (α−1)(r(α) − ε). δ is capped at 1.
// An order of +Inf gives δ = 0 if r(+Inf) < ε (pure DP) and is otherwise
// ignored. A curve of zeros gets the formula's (small) δ, not 0: computed
// zeros may be an underflow, so δ = 0 only comes from the inputs
// (Accountant.Delta with trivial phases) or from that order +Inf; a finite
// order's δ below the smallest float64 (e.g. one Gaussian release, z = 1,
// at ε = 50) is reported as the smallest positive float64, never 0. It
// holds for the neighbouring relation the RDP curve was computed for.
//
// For every order, EpsilonFromRDP(…, DeltaFromRDP(…, ε)) ≤ ε and the two are
// equal when the same order is optimal (the two conversions are exact
// inverses order by order).
//
// Errors: ε NaN, negative or +Inf, an invalid order grid, a length mismatch,
// or an RDP value that is NaN or negative.
func DeltaFromRDP(orders, rdp []float64, eps float64, conv Conversion) (delta, order float64, err error) {
	if err := conv.valid(); err != nil {
		return 0, 0, err
	}
	if math.IsNaN(eps) || eps < 0 || math.IsInf(eps, 1) {
		return 0, 0, fmt.Errorf("accounting: epsilon %v is not finite and >= 0", eps)
	}
	if err := checkRDPVector(orders, rdp); err != nil {
		return 0, 0, err
	}
	best, bestOrder := math.Inf(1), orders[0]
	for k, a := range orders {
		r := rdp[k]
		var ld float64
		switch {
		case math.IsInf(r, 1):
			ld = math.Inf(1)
		case math.IsInf(a, 1):
			if r < eps {
				return 0, a, nil // D_∞ = r(+Inf) < ε: pure DP, the smallest δ
			}
			ld = math.Inf(1)
		case conv == ConversionClassic:
			ld = (a - 1) * (r - eps)
		default:
			ld = (a-1)*(r-eps+math.Log1p(-1/a)) - math.Log(a)
		}
		if ld < best {
			best, bestOrder = ld, a
		}
	}
	// A finite order never certifies δ = 0: an exp below the float64 range
	// (log δ = −Inf included, where (α − 1)(r − ε) overflows at a huge
	// order) is the smallest positive δ.
	return math.Min(math.Max(math.Exp(best), math.SmallestNonzeroFloat64), 1), bestOrder, nil
}

// GaussianEpsilonRealOrder converts the RDP of steps compositions of the
// full-batch Gaussian mechanism with noise multiplier z (q = 1, RDP
// ρα with ρ = steps/(2z²), any neighbouring relation for which the
// sensitivity is 1) to (ε, δ) with the CLASSIC conversion, minimised over
// all REAL orders α > 1 rather than a grid. Setting the derivative of
// ρα + log(1/δ)/(α−1) to zero gives
//
//	α* = 1 + sqrt(log(1/δ)/ρ) = 1 + sqrt(2z² log(1/δ)/steps),
//	ε  = ρ + 2 sqrt(ρ log(1/δ)).
//
// For z = 1, steps = 1, δ = 1e-5 this is 5.298526 at α* ≈ 5.7985. z = +Inf
// or steps = 0 give ε = 0 (order +Inf); z = 0 gives ε = +Inf (order +Inf).
//
// Errors: z NaN or negative, negative steps, δ not in (0, 1).
func GaussianEpsilonRealOrder(z float64, steps int, delta float64) (eps, order float64, err error) {
	if err := ValidateNoiseMultiplier(z); err != nil {
		return 0, 0, err
	}
	if err := ValidateSteps(steps); err != nil {
		return 0, 0, err
	}
	if err := ValidateDelta(delta); err != nil {
		return 0, 0, err
	}
	if steps == 0 || math.IsInf(z, 1) {
		return 0, math.Inf(1), nil
	}
	if z == 0 {
		return math.Inf(1), math.Inf(1), nil
	}
	rho := float64(steps) / (2 * z * z)
	l := -numeric.Log(delta)
	if math.IsInf(rho, 1) {
		return math.Inf(1), math.Inf(1), nil
	}
	return zcdpEpsilon(rho, l), 1 + math.Sqrt(l/rho), nil
}
