package accounting

import (
	"math"
	"testing"
)

func TestConversionParse(t *testing.T) {
	for s, want := range map[string]Conversion{"improved": ConversionImproved, "Classic": ConversionClassic} {
		got, err := ParseConversion(s)
		if err != nil || got != want || got.String() != map[Conversion]string{ConversionImproved: "improved", ConversionClassic: "classic"}[want] {
			t.Errorf("ParseConversion(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseConversion("tight"); err == nil {
		t.Error("ParseConversion(tight): no error")
	}
	if ConversionImproved != Conversion(0) {
		t.Error("the zero Conversion must be the improved (default) one")
	}
}

// Zero privacy loss gives ε = 0 (and δ = 0), not the positive value of the
// log-δ terms; the documented convention.
func TestZeroPrivacyLoss(t *testing.T) {
	for _, p := range []Phase{{0, 1, 1000}, {0.1, math.Inf(1), 1000}, {0.1, 1, 0}, {0, 0, 10}} {
		acc, _ := NewAccountant(nil)
		if err := acc.Add(p); err != nil {
			t.Fatal(err)
		}
		for _, conv := range []Conversion{ConversionImproved, ConversionClassic} {
			eps, order, err := acc.Epsilon(1e-5, conv)
			if err != nil || eps != 0 || order != 1.1 {
				t.Errorf("%+v %v: eps %v order %v err %v", p, conv, eps, order, err)
			}
			d, _, err := acc.Delta(0.5, conv)
			if err != nil || d != 0 {
				t.Errorf("%+v %v: delta %v err %v", p, conv, d, err)
			}
		}
	}
	// z = 0 with q > 0: no privacy at all.
	acc, _ := NewAccountant(nil)
	_ = acc.Add(Phase{0.1, 0, 1})
	if eps, _, _ := acc.Epsilon(1e-5, ConversionImproved); !math.IsInf(eps, 1) {
		t.Errorf("z=0: eps %v, want +Inf", eps)
	}
	if d, _, _ := acc.Delta(10, ConversionImproved); d != 1 {
		t.Errorf("z=0: delta %v, want 1", d)
	}
}

// Composition adds: (q, z, T1) + (q, z, T2) == (q, z, T1 + T2), and a mixed
// composition equals the sum of the parts' RDP.
func TestCompositionAdds(t *testing.T) {
	a, _ := NewAccountant(nil)
	b, _ := NewAccountant(nil)
	_ = a.Add(Phase{0.04, 1.5, 1000})
	_ = a.Add(Phase{0.04, 1.5, 1250})
	_ = b.Add(Phase{0.04, 1.5, 2250})
	ra, rb := a.RDP(), b.RDP()
	for k := range ra {
		if !near(ra[k], rb[k], 1e-13, 0) {
			t.Fatalf("order %v: %v vs %v", a.Orders()[k], ra[k], rb[k])
		}
	}
	ea, oa, _ := a.Epsilon(1e-5, ConversionImproved)
	eb, ob, _ := b.Epsilon(1e-5, ConversionImproved)
	if !near(ea, eb, 1e-12, 0) || oa != ob {
		t.Errorf("split %v@%v vs joint %v@%v", ea, oa, eb, ob)
	}
	if len(a.Phases()) != 2 {
		t.Errorf("phases: %v", a.Phases())
	}
	// Heterogeneous phases.
	phases := []Phase{{0.01, 1.1, 500}, {0.05, 2, 300}, {1, 8, 3}}
	mixed, _ := NewAccountant(OrdersTFP())
	sum := make([]float64, len(OrdersTFP()))
	for _, p := range phases {
		_ = mixed.Add(p)
		r, _ := ComputeRDP(p.SampleRate, p.NoiseMultiplier, p.Steps, OrdersTFP())
		for k := range sum {
			sum[k] += r[k]
		}
	}
	for k, v := range mixed.RDP() {
		if !near(v, sum[k], 1e-13, 0) {
			t.Fatalf("mixed composition differs at order %v: %v vs %v", OrdersTFP()[k], v, sum[k])
		}
	}
	e1, _, _ := mixed.Epsilon(1e-6, ConversionImproved)
	e2, _, _ := Epsilon(phases, 1e-6, OrdersTFP(), ConversionImproved)
	if e1 != e2 {
		t.Errorf("Accountant %v vs Epsilon %v", e1, e2)
	}
	// AddRDP and Reset.
	if err := mixed.AddRDP(sum); err != nil {
		t.Fatal(err)
	}
	if r := mixed.RDP(); !near(r[5], 2*sum[5], 1e-13, 0) {
		t.Errorf("AddRDP: %v vs %v", r[5], 2*sum[5])
	}
	mixed.Reset()
	if r := mixed.RDP(); r[5] != 0 || len(mixed.Phases()) != 0 {
		t.Error("Reset did not clear")
	}
}

// The RDP conversion never claims less than the true ε of the full-batch
// Gaussian mechanism (q = 1, T = 1), whose exact curve is the analytic one.
func TestConversionNotBelowAnalytic(t *testing.T) {
	for _, z := range []float64{0.5, 0.8, 1, 2, 5, 10} {
		for _, delta := range []float64{1e-2, 1e-5, 1e-8, 1e-12} {
			truth, err := GDPEpsilon(1/z, delta)
			if err != nil {
				t.Fatal(err)
			}
			for _, orders := range [][]float64{OrdersOpacus(), OrdersTFP(), OrdersDPAccounting()} {
				for _, conv := range []Conversion{ConversionImproved, ConversionClassic} {
					eps, _, err := Epsilon([]Phase{{1, z, 1}}, delta, orders, conv)
					if err != nil {
						t.Fatal(err)
					}
					if eps < truth*(1-1e-12) {
						t.Errorf("z=%v δ=%v %v: RDP eps %v below the true %v", z, delta, conv, eps, truth)
					}
				}
			}
			real, _, _ := GaussianEpsilonRealOrder(z, 1, delta)
			if real < truth*(1-1e-12) {
				t.Errorf("z=%v δ=%v: real-order eps %v below the true %v", z, delta, real, truth)
			}
		}
	}
}

// The improved conversion is never worse than the classic one.
func TestImprovedNotWorse(t *testing.T) {
	for _, z := range []float64{0.7, 1, 3} {
		for _, delta := range []float64{1e-3, 1e-5, 1e-9} {
			ei, _, _ := Epsilon([]Phase{{0.02, z, 500}}, delta, nil, ConversionImproved)
			ec, _, _ := Epsilon([]Phase{{0.02, z, 500}}, delta, nil, ConversionClassic)
			if ei > ec {
				t.Errorf("z=%v δ=%v: improved %v > classic %v", z, delta, ei, ec)
			}
		}
	}
}

// DeltaFromRDP inverts EpsilonFromRDP.
func TestDeltaInverse(t *testing.T) {
	orders := OrdersOpacus()
	rdp, _ := ComputeRDP(0.04, 1.5, 2250, orders)
	for _, conv := range []Conversion{ConversionImproved, ConversionClassic} {
		for _, delta := range []float64{1e-3, 1e-5, 1e-8} {
			eps, order, _ := EpsilonFromRDP(orders, rdp, delta, conv)
			d, dOrder, err := DeltaFromRDP(orders, rdp, eps, conv)
			if err != nil {
				t.Fatal(err)
			}
			if !near(d, delta, 1e-9, 0) || dOrder != order {
				t.Errorf("%v δ=%v: eps %v@%v → δ %v@%v", conv, delta, eps, order, d, dOrder)
			}
		}
	}
	// Large epsilon: tiny delta; small epsilon: capped at 1.
	if d, _, _ := DeltaFromRDP(orders, rdp, 1000, ConversionImproved); !(d >= 0 && d < 1e-100) {
		t.Errorf("delta(1000) = %v", d)
	}
	if d, _, _ := DeltaFromRDP(orders, rdp, 0, ConversionImproved); !(d > 0 && d <= 1) {
		t.Errorf("delta(0) = %v, want in (0, 1]", d)
	}
	big := make([]float64, len(orders))
	for k := range big {
		big[k] = 100
	}
	if d, _, _ := DeltaFromRDP(orders, big, 0, ConversionImproved); d != 1 {
		t.Errorf("delta(0) with RDP 100 = %v, want 1 (capped)", d)
	}
}

func TestInfiniteOrder(t *testing.T) {
	orders := []float64{2, math.Inf(1)}
	// r(∞) = 0 with r(2) > 0 is not a subsampled-Gaussian curve, but the
	// conversion treats +Inf as the limit r(∞).
	eps, order, err := EpsilonFromRDP(orders, []float64{1, 0.5}, 1e-5, ConversionImproved)
	if err != nil || eps != 0.5 || !math.IsInf(order, 1) {
		t.Errorf("eps %v order %v err %v", eps, order, err)
	}
	d, order, err := DeltaFromRDP(orders, []float64{10, 0.5}, 1, ConversionClassic)
	if err != nil || d != 0 || !math.IsInf(order, 1) {
		t.Errorf("delta %v order %v err %v", d, order, err)
	}
	// All +Inf: eps = +Inf at the first order.
	eps, order, _ = EpsilonFromRDP(orders, []float64{math.Inf(1), math.Inf(1)}, 1e-5, ConversionClassic)
	if !math.IsInf(eps, 1) || order != 2 {
		t.Errorf("all-Inf: eps %v order %v", eps, order)
	}
}

func TestGaussianEpsilonRealOrderEdges(t *testing.T) {
	eps, order, err := GaussianEpsilonRealOrder(math.Inf(1), 5, 1e-5)
	if err != nil || eps != 0 || !math.IsInf(order, 1) {
		t.Errorf("z=Inf: %v %v %v", eps, order, err)
	}
	eps, _, err = GaussianEpsilonRealOrder(0, 5, 1e-5)
	if err != nil || !math.IsInf(eps, 1) {
		t.Errorf("z=0: %v %v", eps, err)
	}
	// T steps at z equal one step at z/√T.
	e1, o1, _ := GaussianEpsilonRealOrder(2, 4, 1e-6)
	e2, o2, _ := GaussianEpsilonRealOrder(1, 1, 1e-6)
	if !near(e1, e2, 1e-14, 0) || !near(o1, o2, 1e-14, 0) {
		t.Errorf("(2,4) %v@%v vs (1,1) %v@%v", e1, o1, e2, o2)
	}
}
