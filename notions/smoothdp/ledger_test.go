package smoothdp

import (
	"fmt"
	"math"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

// oldToApproxDP is ToApproxDP as it was before the conversion moved onto
// the ledger: the zCDP formula at the optimal real order for linear curves,
// else accounting.Curve.Epsilon on the conversion grid (classic or
// improved).
func oldToApproxDP(c RDPCurve, delta float64, conv accounting.Conversion) (float64, float64, error) {
	if conv == accounting.ConversionClassic && c.Linear && c.Coef >= 0 && !math.IsInf(c.Coef, 1) {
		as := 1 + math.Sqrt(-math.Log(delta)/c.Coef)
		switch {
		case c.Valid(as):
			eps, err := accounting.ZCDPEpsilon(c.Coef, delta)
			return eps, as, err
		case as < c.AlphaMin:
			return c.Curve().Epsilon([]float64{c.AlphaMin}, delta, conv)
		case as > c.AlphaMax && c.AlphaMax > 1:
			return c.Curve().Epsilon([]float64{c.AlphaMax}, delta, conv)
		}
	}
	return c.Curve().Epsilon(ConversionOrders(c), delta, conv)
}

// ledgerCurves are curves of every shape ToApproxDP distinguishes.
func ledgerCurves(t *testing.T) map[string]RDPCurve {
	t.Helper()
	rel := accounting.RelationReplaceOne
	g := must(GaussianRDP(1, 10, rel))
	gs := must(GaussianSRDP(1, 10))
	dg := must(DPGDRDP(1000, 100, 1, 0.05))
	dgs := must(DPGDSRDP(1000, 100, 1, 0.05))
	return map[string]RDPCurve{
		"linear, α* inside":          g,
		"linear, α* below α_min":     {Name: "steep", Relation: rel, AlphaMin: 3, AlphaMax: math.Inf(1), Linear: true, Coef: 10},
		"linear, α* above α_max":     must(SGDIterRDP(1000, 1, 4)),
		"linear, finite α_max":       must(SGDSubRDP(1000, 100, 1, 2)),
		"linear zero":                {Name: "zero", Relation: rel, AlphaMin: 1, AlphaMax: math.Inf(1), Linear: true},
		"pure":                       must(PureRDP(0.7, rel)),
		"general (tight Theorem 2)":  must(PipelineCurve(g, gs, 1, Tight)),
		"conservative DP-GD (α≥3/2)": must(PipelineCurve(dg, dgs, 8, Conservative)),
		"min-form DP-GD":             must(PipelineCurve(dg, dgs, 8, MinForm)),
		"replace-one of add/remove":  must(ReplaceOneFromAddRemove(must(SampledGaussianRDP(0.01, 1.1, 1000)))),
		"empty interval":             {Name: "none", Relation: rel, AlphaMin: 5, AlphaMax: 2, F: func(float64) float64 { return 1 }},
	}
}

// ToApproxDP and ToApproxDPImproved read ε through the ledger and give
// exactly (==) the numbers and orders of the old direct conversion: the
// ledger sums one entry with weight 1 (0 + 1·x = x) and converts with the
// same accounting.EpsilonFromRDP on the same grid, or reports the zCDP
// route ZCDPEpsilon(ρ, δ) with δ′ = δ − 0 = δ.
func TestToApproxDPLedgerSameNumbers(t *testing.T) {
	for name, c := range ledgerCurves(t) {
		for _, delta := range []float64{1e-5, 1e-10, 0.3} {
			e, a, err := ToApproxDP(c, delta)
			oe, oa, oerr := oldToApproxDP(c, delta, accounting.ConversionClassic)
			if (err == nil) != (oerr == nil) || !same(e, oe) || !same(a, oa) {
				t.Errorf("%s δ=%g: ledger (%v, %v, %v), old (%v, %v, %v)", name, delta, e, a, err, oe, oa, oerr)
			}
			e, a, err = ToApproxDPImproved(c, delta)
			oe, oa, oerr = oldToApproxDP(c, delta, accounting.ConversionImproved)
			if (err == nil) != (oerr == nil) || !same(e, oe) || !same(a, oa) {
				t.Errorf("%s δ=%g improved: ledger (%v, %v, %v), old (%v, %v, %v)", name, delta, e, a, err, oe, oa, oerr)
			}
		}
	}
}

func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// A curve's Loss has the curve's RDP at every order (+Inf outside its
// validity interval) and its relation.
func TestCurveLoss(t *testing.T) {
	orders := []float64{1.01, 1.5, 2, 3.5, 10, 64, 1000, math.Inf(1)}
	for name, c := range ledgerCurves(t) {
		l := must(c.Loss())
		if l.Relation() != c.Relation || l.Kind() != accounting.LossCurve {
			t.Errorf("%s: loss %v of kind %v", name, l, l.Kind())
		}
		got, _, err := l.RDP(orders)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, a := range orders {
			if !same(got[i], c.At(a)) {
				t.Errorf("%s α=%v: loss RDP %v, curve %v", name, a, got[i], c.At(a))
			}
		}
	}
	if _, err := (RDPCurve{Relation: accounting.Relation(99), AlphaMin: 1, AlphaMax: 2}).Loss(); err == nil {
		t.Error("unknown relation accepted")
	}
}

// ReplaceOneFromAddRemove goes through accounting.Loss.ChangeRelation and
// gives the old curve exactly: 3·ε(2α) on [max(2, α_min/2), α_max/2] for a
// general curve (Mironov 2017 Prop 2, c = 1), 2ε for a pure one.
func TestReplaceOneFromAddRemoveSameNumbers(t *testing.T) {
	ar := must(SampledGaussianRDP(0.02, 0.9, 500))
	rep := must(ReplaceOneFromAddRemove(ar))
	if rep.Relation != accounting.RelationReplaceOne || rep.AlphaMin != 2 || !math.IsInf(rep.AlphaMax, 1) {
		t.Errorf("changed curve %+v", rep)
	}
	for _, a := range []float64{1.5, 1.99, 2, 2.5, 7, 31.5, 64} {
		old := math.Inf(1)
		if a >= 2 {
			old = 3 * ar.At(2*a)
		}
		if got := rep.At(a); got != old {
			t.Errorf("α=%v: %v, old 3ε(2α) = %v", a, got, old)
		}
	}
	p := must(PureRDP(0.4, accounting.RelationAddRemove))
	if rp := must(ReplaceOneFromAddRemove(p)); !rp.Pure || rp.PureEps != 0.8 || rp.Relation != accounting.RelationReplaceOne {
		t.Errorf("pure: %+v, want pure 0.8 replace-one", rp)
	}
	if _, err := ReplaceOneFromAddRemove(rep); err == nil {
		t.Error("a replace-one curve accepted")
	}
}

// PTREpsilon composes the PTR test and the release on the ledger: the total
// is the old ε₀ + ε′ rounded up (equal, or one ulp above: the ledger rounds
// sums up, never down), ε′ unchanged, and the losses carry δ_total.
func TestPTRLossesOnLedger(t *testing.T) {
	for _, c := range []struct{ eps0, delta float64 }{{0.5, 1e-5}, {0.1, 1e-6}, {1, 1e-5}} {
		ep, tot, err := PTREpsilon(10000, 100, 1, 1, 1, 1, 0.05, c.eps0, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		e := must(Pipeline(MechDPGD, PrePCA, MechParams{R: 1, L: 1, Beta: 1, Sigma: 1, N: 10000, T: 100, GMin: 0.05}))
		old, _, _ := oldToApproxDP(e.Conservative, c.delta, accounting.ConversionClassic)
		if ep != old || !(tot == c.eps0+old || tot == math.Nextafter(c.eps0+old, math.Inf(1))) {
			t.Errorf("ε₀=%v: ε′ %v total %v, old %v and %v", c.eps0, ep, tot, old, c.eps0+old)
		}
		ls := must(PTRLosses(10000, 100, 1, 1, 1, 1, 0.05, c.eps0, c.delta))
		e0, d0, _ := ls[0].ApproxDP()
		e1, d1, _ := ls[1].ApproxDP()
		if len(ls) != 2 || e0 != c.eps0 || d0 != 0 || e1 != ep || d1 != PTRDeltaTotal(c.eps0, c.delta) {
			t.Errorf("ε₀=%v: losses %v", c.eps0, ls)
		}
	}
	if _, err := PTRLosses(100, 1, 1, 1, 1, 1, 0.05, 40, 0.1); err == nil {
		t.Error("δ_total ≥ 1 accepted")
	}
}

// GD.DPGDLoss is DPGDRDP's curve as a loss (same RDP, replace-one).
func TestDPGDLoss(t *testing.T) {
	p := GD{Sigma: 0.5, Steps: 30, LR: 1}
	l := must(p.DPGDLoss(200, 1.5))
	c := must(DPGDRDP(200, 30, 1.5, 0.5))
	got, _, err := l.RDP([]float64{2, 8})
	if err != nil || got[0] != c.At(2) || got[1] != c.At(8) || l.Relation() != accounting.RelationReplaceOne {
		t.Errorf("DP-GD loss RDP %v (%v), curve %v %v", got, err, c.At(2), c.At(8))
	}
	if _, err := (GD{Sigma: 0, Steps: 1}).DPGDLoss(10, 1); err == nil {
		t.Error("σ = 0 accepted")
	}
}

// A DP-GD step after PCA (Theorem 2, tight) and an Analyze-Gauss release
// of the covariance, composed on one replace-one ledger.
func ExampleRDPCurve_Loss() {
	n := 10000
	gd, _ := DPGDRDP(n, 100, 1, 1)
	gds, _ := DPGDSRDP(n, 100, 1.25, 1)
	pipeline, _ := PipelineCurve(gd, gds, EtaPCARank(1, 0.5), Tight)
	pca, _ := GaussianRDP(2.0/float64(n), 0.001, accounting.RelationReplaceOne)
	L, _ := accounting.NewLedger(accounting.RelationReplaceOne, ConversionOrders(pipeline))
	for _, c := range []RDPCurve{pipeline, pca} {
		l, _ := c.Loss()
		if err := L.Add(l); err != nil {
			fmt.Println(err)
		}
	}
	rep, _ := L.Epsilon(1e-5, accounting.ConversionClassic)
	fmt.Printf("ε = %.3f at δ = 1e-5 (route %s, order %.3g)\n", rep.Epsilon, rep.Route, rep.Order)
	// Output: ε = 0.993 at δ = 1e-5 (route rdp, order 25)
}
