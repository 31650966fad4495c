package smoothdp

// RDP → (ε, δ) conversion and the weak amplification by subsampling of SRDP.

import (
	"fmt"
	"math"
	"sort"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/internal/numeric"
	"github.com/featuredp/featuredp/internal/valid"
)

// ToApproxDP converts an RDP curve to (ε, δ)-DP with the paper's only
// conversion, Mironov 2017 Prop 3 (Lemma M) [S], i.e. the core's
// accounting.ConversionClassic:
//
//	ε(δ) = min_{α valid} ε(α) + log(1/δ)/(α − 1),
//
// read from an accounting.Ledger holding the curve's loss (the conversion
// lives in package accounting only). Linear curves ε = Cα are C-zCDP on
// their validity interval: when the optimal real order α* = 1 + √(log(1/δ)/C)
// lies in it, ε is the ledger's zCDP route C + 2√(C log(1/δ))
// (accounting.ZCDPEpsilon, the minimum over every real order) and α* is
// returned; when α* lies outside, the classic conversion at the interval's
// nearest end (the objective is convex). Every other curve is converted on
// ConversionOrders(c): pure curves valid up to +Inf get (PureEps, +Inf),
// pure DP with δ = 0. The relation is the curve's. It returns ε and the
// optimal order.
func ToApproxDP(c RDPCurve, delta float64) (eps, alpha float64, err error) {
	if err := accounting.ValidateDelta(delta); err != nil {
		return 0, 0, err
	}
	if c.Linear && c.Coef >= 0 && !math.IsInf(c.Coef, 1) {
		as := 1 + math.Sqrt(-numeric.Log(delta)/c.Coef) // log δ exact for subnormal δ
		switch {
		case c.Valid(as):
			eps, err := linearEpsilon(c, delta)
			return eps, as, err
		case as < c.AlphaMin:
			return convert(c, []float64{c.AlphaMin}, delta, accounting.ConversionClassic)
		case as > c.AlphaMax && c.AlphaMax > 1:
			return convert(c, []float64{c.AlphaMax}, delta, accounting.ConversionClassic)
		}
	}
	return convert(c, ConversionOrders(c), delta, accounting.ConversionClassic)
}

// convert composes the curve's loss alone on a ledger over the order grid
// and returns its RDP route: ε by the conversion conv and the order
// attaining it.
func convert(c RDPCurve, orders []float64, delta float64, conv accounting.Conversion) (eps, alpha float64, err error) {
	l, err := c.Loss()
	if err != nil {
		return 0, 0, err
	}
	r, err := ledgerRoute(l, orders, delta, conv, accounting.RouteRDP)
	return r.Epsilon, r.Order, err
}

// linearEpsilon is the ledger's zCDP route for a linear curve Coef·α whose
// optimal real order lies in its validity interval: the loss
// ZCDPLoss(Coef), whose conversion minimises over every real order, which
// here is a valid order of the curve.
func linearEpsilon(c RDPCurve, delta float64) (float64, error) {
	l, err := accounting.ZCDPLoss(c.Coef, c.Relation)
	if err != nil {
		return 0, fmt.Errorf("smoothdp: curve %q as a zCDP loss: %w", c.Name, err)
	}
	r, err := ledgerRoute(l.WithName(c.Name), nil, delta, accounting.ConversionClassic, accounting.RouteZCDP)
	return r.Epsilon, err
}

// ledgerRoute composes one loss on a ledger over orders (nil: the ledger's
// default grid) under the loss's relation and returns the named route of
// its (ε, δ) report.
func ledgerRoute(l accounting.Loss, orders []float64, delta float64, conv accounting.Conversion, route accounting.Route) (accounting.RouteResult, error) {
	L, err := accounting.NewLedger(l.Relation(), orders)
	if err != nil {
		return accounting.RouteResult{}, err
	}
	if err := L.Add(l); err != nil {
		return accounting.RouteResult{}, err
	}
	rep, err := L.Epsilon(delta, conv)
	if err != nil {
		return accounting.RouteResult{}, err
	}
	for _, r := range rep.Routes {
		if r.Route == route && r.Valid {
			return r, nil
		}
	}
	return accounting.RouteResult{}, fmt.Errorf("smoothdp: %v: the ledger's %s route does not apply", l, route)
}

// ConversionOrders is the order grid on which ToApproxDP and
// ToApproxDPImproved convert a curve: the Opacus grid
// (accounting.OrdersOpacus: 1.1…10.9 and 12…63) plus the ends of the
// curve's validity interval (α_min if > 1; α_max, which is +Inf for curves
// valid at every order, where a pure curve attains its ε).
func ConversionOrders(c RDPCurve) []float64 {
	grid := accounting.OrdersOpacus()
	if c.AlphaMin > 1 && !math.IsInf(c.AlphaMin, 1) {
		grid = append(grid, c.AlphaMin)
	}
	if c.AlphaMax > 1 {
		grid = append(grid, c.AlphaMax)
	}
	sort.Float64s(grid)
	return grid
}

// ToApproxDPImproved converts with the improved conversion of Balle et
// al. 2020 Thm 21 (accounting.ConversionImproved) on ConversionOrders,
// through the ledger as ToApproxDP. It is NOT the paper's conversion (the
// paper uses Mironov Prop 3, ToApproxDP) and is offered only for
// comparison.
func ToApproxDPImproved(c RDPCurve, delta float64) (eps, alpha float64, err error) {
	if err := accounting.ValidateDelta(delta); err != nil {
		return 0, 0, err
	}
	return convert(c, ConversionOrders(c), delta, accounting.ConversionImproved)
}

// SubsampleSRDP is the weak amplification by subsampling of SRDP
// (Lemma 2) in our derived form [D — the paper's statement is
// unrecoverable and used by no table]: A is run on m indices drawn uniformly
// with replacement from n, over a collection with inverse point-wise
// distance ω = 1/τ. For every threshold t ∈ {1..m},
//
//	ε̃'(α, η) = 2[ ε̃(α, (t−1)·min(2R, η) + mη/τ) + C(m,t)(τ/n)^t · ε̃(α, m·min(2R, η)) ]
//
// (Feldman et al. 2018 Lemma 25 with c = 1), valid when both conditional
// divergences are ≤ 1/(α−1); the curve takes the minimum over the valid t
// and is +Inf where no t is valid. base is A's SRDP curve on m points.
func SubsampleSRDP(base SRDPCurve, n, m int, omega, radius float64) (SRDPCurve, error) {
	if n < 1 || m < 1 || m > 10000 {
		return SRDPCurve{}, fmt.Errorf("smoothdp: subsampling needs n ≥ 1 and 1 ≤ m ≤ 10000 (n=%d, m=%d)", n, m)
	}
	if !(omega > 0 && omega <= 1) {
		return SRDPCurve{}, fmt.Errorf("smoothdp: ω = %v must be in (0, 1]", omega)
	}
	if err := valid.Positive("R", radius); err != nil {
		return SRDPCurve{}, fmt.Errorf("smoothdp: %w", err)
	}
	tau := 1 / omega
	lq := math.Log(math.Min(tau/float64(n), 1))
	return SRDPCurve{Name: fmt.Sprintf("Lemma 2 [D] subsample m=%d of n=%d (ω=%g) of %s", m, n, omega, base.Name),
		AlphaMin: base.AlphaMin, AlphaMax: base.AlphaMax, Pure: false,
		F: func(a, eta float64) float64 {
			d := math.Min(2*radius, eta)
			far := base.At(a, float64(m)*d)
			best := math.Inf(1)
			lc := 0.0 // log C(m, t)
			for t := 1; t <= m; t++ {
				lc += math.Log(float64(m-t+1)) - math.Log(float64(t))
				near := base.At(a, float64(t-1)*d+float64(m)*eta/tau)
				if near > 1/(a-1) || far > 1/(a-1) {
					continue
				}
				w := math.Exp(lc + float64(t)*lq)
				if w > 1 {
					w = 1
				}
				best = math.Min(best, 2*(near+w*far))
			}
			return best
		}}, nil
}
