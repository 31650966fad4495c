package smoothdp

// RDP curves as values: the neighbouring relation, the RDP curve
// ε(α) and the SRDP curve ε̃(α, η), with composition.

import (
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/internal/valid"
)

// Neighbouring is the neighbouring relation an RDP curve holds for.
type Neighbouring int

const (
	// ReplaceOne: datasets of the same size n differing in one entry
	// (the paper's relation).
	ReplaceOne Neighbouring = iota
	// AddRemove: one dataset is the other with one record added
	// (Opacus/Poisson accountants, seed 001).
	AddRemove
)

// String names the relation.
func (r Neighbouring) String() string {
	switch r {
	case ReplaceOne:
		return "replace-one"
	case AddRemove:
		return "add/remove"
	}
	return fmt.Sprintf("Neighbouring(%d)", int(r))
}

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
	Relation Neighbouring
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

// Scale returns the k-fold adaptive composition of the curve with itself
// (k·ε(α), Mironov 2017 Prop 1) [S]. k must be finite and ≥ 0.
func (c RDPCurve) Scale(k float64) (RDPCurve, error) {
	if err := valid.NonNegative("scale factor", k); err != nil {
		return RDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	out := c
	out.Name = fmt.Sprintf("%g×(%s)", k, c.Name)
	out.PureEps *= k
	out.Coef *= k
	if f := c.F; f != nil {
		out.F = func(a float64) float64 { return k * f(a) }
	}
	return out, nil
}

// Compose returns the adaptive composition of RDP curves: ε(α) = Σ_i
// ε_i(α) on the intersection of the validity intervals (Mironov 2017 Prop 1)
// [S]. All curves must share one neighbouring relation.
func Compose(curves ...RDPCurve) (RDPCurve, error) {
	if len(curves) == 0 {
		return RDPCurve{}, errors.New("smoothdp: compose needs at least one curve")
	}
	out := RDPCurve{Relation: curves[0].Relation, AlphaMin: 1, AlphaMax: math.Inf(1), Pure: true, Linear: true}
	for i, c := range curves {
		if c.Relation != out.Relation {
			return RDPCurve{}, fmt.Errorf("smoothdp: compose: curve %d is %v, curve 0 is %v", i, c.Relation, out.Relation)
		}
		out.AlphaMin = math.Max(out.AlphaMin, c.AlphaMin)
		out.AlphaMax = math.Min(out.AlphaMax, c.AlphaMax)
		out.Pure = out.Pure && c.Pure
		out.Linear = out.Linear && c.Linear
		out.PureEps += c.PureEps
		out.Coef += c.Coef
		if i > 0 {
			out.Name += " + "
		}
		out.Name += c.Name
	}
	if !out.Pure && !out.Linear {
		cs := append([]RDPCurve(nil), curves...)
		out.F = func(a float64) float64 {
			s := 0.0
			for _, c := range cs {
				s += c.At(a)
			}
			return s
		}
	}
	if out.AlphaMin > out.AlphaMax {
		return RDPCurve{}, fmt.Errorf("smoothdp: compose: validity intervals do not intersect ([%g, %g])", out.AlphaMin, out.AlphaMax)
	}
	return out, nil
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
// any collection; adaptive) [V/R].
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
	return out, nil
}
