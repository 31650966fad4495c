package smoothdp

// RDP curves as values: the RDP curve ε(α) with its relation (an
// accounting.Loss) and the SRDP curve ε̃(α, η), with its composition.

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/internal/valid"
)

// RDPCurve is an RDP curve ε(α) as a value: a function of
// the order on the validity interval α ∈ [AlphaMin, AlphaMax] (and α > 1),
// with the neighbouring relation it holds for. Outside the interval At
// returns +Inf (no guarantee), which keeps every derived bound valid.
//
// Special shapes enable closed forms: Pure (ε(α) = PureEps for every α, i.e.
// pure PureEps-DP, the D∞ bound) and Linear (ε(α) = Coef·α, Gaussian-type).
type RDPCurve struct {
	// Name describes the curve (e.g. "Gaussian Δ=1 σ=10").
	Name string
	// Relation is the neighbouring relation of the guarantee.
	Relation accounting.Relation
	// AlphaMin ≥ 1 and AlphaMax ≤ +Inf delimit the valid orders.
	AlphaMin, AlphaMax float64
	// Pure marks a pure-DP curve ε(α) = PureEps for all α (valid as α → ∞).
	Pure    bool
	PureEps float64
	// Linear marks ε(α) = Coef·α.
	Linear bool
	Coef   float64
	// F evaluates a general curve (used when neither Pure nor Linear).
	F func(alpha float64) float64
}

// Valid reports whether α lies in the curve's validity interval.
func (c RDPCurve) Valid(alpha float64) bool {
	return alpha > 1 && alpha >= c.AlphaMin && alpha <= c.AlphaMax && !math.IsNaN(alpha)
}

// At returns ε(α), or +Inf if α is outside the validity interval (or the
// curve is malformed).
func (c RDPCurve) At(alpha float64) float64 {
	if !c.Valid(alpha) {
		return math.Inf(1)
	}
	switch {
	case c.Pure:
		return c.PureEps
	case c.Linear:
		if c.Coef == 0 {
			return 0 // 0·α, also at α = +Inf
		}
		return c.Coef * alpha
	case c.F != nil:
		v := c.F(alpha)
		if math.IsNaN(v) || v < 0 {
			return math.Inf(1)
		}
		return v
	}
	return math.Inf(1)
}

// Curve returns the curve as the core's accounting.Curve (ε(α) = At(α),
// +Inf outside the validity interval), so that the core conversions apply.
// The neighbouring relation stays c.Relation.
func (c RDPCurve) Curve() accounting.Curve {
	return func(alpha float64) (float64, error) { return c.At(alpha), nil }
}

// atInf is lim_{α→∞} ε(α): PureEps for a pure curve (with AlphaMax = +Inf),
// else +Inf.
func (c RDPCurve) atInf() float64 {
	if c.Pure && math.IsInf(c.AlphaMax, 1) {
		return c.PureEps
	}
	return math.Inf(1)
}

// Loss returns the curve as a privacy loss of package accounting: an RDP
// curve given as a function (accounting.CurveLoss) on the curve's validity
// interval [max(1, AlphaMin), AlphaMax] (an empty interval becomes the
// single order max(1, AlphaMin), where At is +Inf: no guarantee), under the
// curve's relation and labelled with its name. Composition of curves is an accounting.Ledger of
// their losses (Mironov 2017, Prop. 1: RDP adds order by order), relation
// changes are Loss.ChangeRelation, and the (ε, δ) of a curve is the
// ledger's conversion (ToApproxDP).
//
// Errors: an unknown relation or a NaN end of the validity interval.
func (c RDPCurve) Loss() (accounting.Loss, error) {
	lo := math.Max(1, c.AlphaMin)
	l, err := accounting.CurveLoss(c.Name, c.Curve(), lo, math.Max(lo, c.AlphaMax), c.Relation)
	if err != nil {
		return accounting.Loss{}, fmt.Errorf("smoothdp: curve %q as a loss: %w", c.Name, err)
	}
	return l, nil
}

// SRDPCurve is a smooth-RDP curve ε̃(α, η) (Definition 3; docs/smooth-rdp.md)
// [R]: sup D_α(A(S)‖A(S')) over datasets S, S' ∈ Xⁿ (any number of entries
// different) with Σ_i ‖x_i − x'_i‖₂ ≤ η. Outside the validity interval (or
// where the optional Valid condition fails) At returns +Inf. At η = 0 the two
// datasets are identical, so At returns exactly 0.
type SRDPCurve struct {
	Name               string
	AlphaMin, AlphaMax float64
	// Pure marks ε̃(α, η) independent of α (a D∞ bound, valid as α → ∞).
	Pure bool
	// LinearInAlpha marks ε̃(α, η) = α·F(1, η)... i.e. F is linear in α.
	LinearInAlpha bool
	// F evaluates ε̃(α, η).
	F func(alpha, eta float64) float64
	// Valid, if non-nil, is an extra validity condition (e.g. the
	// σ² ≥ α(α−1)β²η²/2 condition of DP-SGD with iteration).
	Valid func(alpha, eta float64) bool
}

// At returns ε̃(α, η); +Inf outside validity or for η < 0 or NaN.
func (c SRDPCurve) At(alpha, eta float64) float64 {
	if !(eta >= 0) || math.IsInf(eta, 1) {
		return math.Inf(1)
	}
	if !(alpha > 1 && alpha >= c.AlphaMin && alpha <= c.AlphaMax) {
		return math.Inf(1)
	}
	if eta == 0 {
		return 0
	}
	if c.Valid != nil && !c.Valid(alpha, eta) {
		return math.Inf(1)
	}
	if c.F == nil {
		return math.Inf(1)
	}
	v := c.F(alpha, eta)
	if math.IsNaN(v) || v < 0 {
		return math.Inf(1)
	}
	return v
}

func (c SRDPCurve) atInf(eta float64) float64 {
	if eta == 0 {
		return 0
	}
	if c.Pure && math.IsInf(c.AlphaMax, 1) {
		return c.At(math.Max(2, c.AlphaMin), eta)
	}
	return math.Inf(1)
}

// Scale returns the k-fold adaptive composition k·ε̃(α, η) (Lemma 1; adaptive
// by the RDP chain rule) [V/R].
func (c SRDPCurve) Scale(k float64) (SRDPCurve, error) {
	if err := valid.NonNegative("scale factor", k); err != nil {
		return SRDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	out := c
	out.Name = fmt.Sprintf("%g×(%s)", k, c.Name)
	if f := c.F; f != nil {
		out.F = func(a, e float64) float64 { return k * f(a, e) }
	}
	return out, nil
}

// ComposeSRDP returns Σ_i ε̃_i(α, η) (Lemma 1, composition of SRDP over
// any collection; adaptive) [V/R], valid where every component is (its
// Valid is the conjunction of the components' conditions).
func ComposeSRDP(curves ...SRDPCurve) (SRDPCurve, error) {
	if len(curves) == 0 {
		return SRDPCurve{}, errors.New("smoothdp: compose needs at least one SRDP curve")
	}
	cs := append([]SRDPCurve(nil), curves...)
	out := SRDPCurve{AlphaMin: 1, AlphaMax: math.Inf(1), Pure: true, LinearInAlpha: true}
	for i, c := range cs {
		out.AlphaMin = math.Max(out.AlphaMin, c.AlphaMin)
		out.AlphaMax = math.Min(out.AlphaMax, c.AlphaMax)
		out.Pure = out.Pure && c.Pure
		out.LinearInAlpha = out.LinearInAlpha && c.LinearInAlpha
		if i > 0 {
			out.Name += " + "
		}
		out.Name += c.Name
	}
	if out.AlphaMin > out.AlphaMax {
		return SRDPCurve{}, fmt.Errorf("smoothdp: compose: SRDP validity intervals do not intersect")
	}
	out.F = func(a, e float64) float64 {
		s := 0.0
		for _, c := range cs {
			s += c.At(a, e)
		}
		return s
	}
	if slices.ContainsFunc(cs, func(c SRDPCurve) bool { return c.Valid != nil }) {
		// Keep the components' extra conditions visible: a curve with a
		// Valid condition is not linear in α everywhere (PipelineCurve).
		out.Valid = func(a, e float64) bool {
			return !slices.ContainsFunc(cs, func(c SRDPCurve) bool { return c.Valid != nil && !c.Valid(a, e) })
		}
	}
	return out, nil
}
