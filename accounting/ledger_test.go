package accounting

import (
	"math"
	"strings"
	"testing"
)

// rrRDPDirect is the RDP of randomized response at level ε evaluated
// straight from the definition Σ p^α q^{1−α} over its two outputs (accurate
// for moderate αε, where nothing cancels badly).
func rrRDPDirect(eps, a float64) float64 {
	p := math.Exp(eps) / (1 + math.Exp(eps))
	q := 1 - p
	s := math.Pow(p, a)*math.Pow(q, 1-a) + math.Pow(q, a)*math.Pow(p, 1-a)
	return math.Log(s) / (a - 1)
}

// TestPureRDP: the RDP of an ε-DP loss is randomized response's, checked
// against the definition, and never above ε nor αε²/2 (Bun & Steinke 2016).
func TestPureRDP(t *testing.T) {
	for _, eps := range []float64{1e-3, 0.1, 0.5, 1, 3} {
		for _, a := range []float64{1.1, 1.5, 2, 4, 10, 63} {
			got := PureRDP(eps, a)
			want := rrRDPDirect(eps, a)
			if got < want*(1-1e-9) || got > want*(1+1e-9) {
				t.Errorf("PureRDP(%v, %v) = %.17g, definition %.17g", eps, a, got, want)
			}
			if got > eps || got > a*eps*eps/2*(1+1e-12) {
				t.Errorf("PureRDP(%v, %v) = %v above min(ε, αε²/2)", eps, a, got)
			}
		}
	}
	if got := PureRDP(2, math.Inf(1)); got != 2 {
		t.Errorf("PureRDP(2, +Inf) = %v, want 2", got)
	}
	if got := PureRDP(1e-200, 2); !(got > 0) {
		t.Errorf("PureRDP(1e-200, 2) = %v, want > 0 (never an underflowed 0)", got)
	}
	if got := PureRDP(5, 1e6); !(got <= 5 && got > 4.99) {
		t.Errorf("PureRDP(5, 1e6) = %v, want just below 5", got)
	}
}

// ml returns l, panicking (failing the test) on a constructor error.
func ml(l Loss, err error) Loss {
	if err != nil {
		panic(err)
	}
	return l
}

// TestLedgerComposition: pure ε + Gaussian + subsampled-Gaussian phases +
// zCDP under add/remove, against the composition computed in the test from
// the definitions: randomized response's Rényi divergence, αΔ²/(2σ²), αρ and
// the subsampled Gaussian by quadrature of its integral, summed and
// converted by the classic formula written out here.
func TestLedgerComposition(t *testing.T) {
	orders := []float64{2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32}
	L, err := NewLedger(RelationAddRemove, orders)
	if err != nil {
		t.Fatal(err)
	}
	losses := []Loss{
		ml(PureLoss(0.5, RelationAddRemove)),
		ml(GaussianLoss(2, 1, RelationAddRemove)),
		ml(SubsampledGaussianLoss(Phase{SampleRate: 0.02, NoiseMultiplier: 1, Steps: 500})),
		ml(SubsampledGaussianLoss(Phase{SampleRate: 0.05, NoiseMultiplier: 2, Steps: 100})),
		ml(ZCDPLoss(0.1, RelationAddRemove)),
	}
	for _, l := range losses {
		if err := L.Add(l); err != nil {
			t.Fatal(err)
		}
	}
	const delta = 1e-5
	want, wantOrder := math.Inf(1), 0.0
	for _, a := range orders {
		r := rrRDPDirect(0.5, a) + a/(2*2*2) + 500*rdpQuadrature(0.02, 1, a) + 100*rdpQuadrature(0.05, 2, a) + a*0.1
		if e := r + math.Log(1/delta)/(a-1); e < want {
			want, wantOrder = e, a
		}
	}
	rep, err := L.Epsilon(delta, ConversionClassic)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Route != RouteRDP || rep.Order != wantOrder || math.Abs(rep.Epsilon-want) > 1e-9*want {
		t.Errorf("ledger: ε = %.12g at order %v by %s, independent %.12g at order %v", rep.Epsilon, rep.Order, rep.Route, want, wantOrder)
	}
	if rep.Delta != delta || len(rep.Entries) != len(losses) {
		t.Errorf("δ = %v, %d entries", rep.Delta, len(rep.Entries))
	}
	sum := 0.0
	for _, s := range rep.Entries {
		sum += s.Value
	}
	if math.Abs(sum+math.Log(1/delta)/(rep.Order-1)-rep.Epsilon) > 1e-9 {
		t.Errorf("breakdown sums to %v, ε %v", sum, rep.Epsilon)
	}
	imp, err := L.Epsilon(delta, ConversionImproved)
	if err != nil || !(imp.Epsilon < rep.Epsilon) {
		t.Errorf("improved ε %v not below classic %v (%v)", imp.Epsilon, rep.Epsilon, err)
	}
}

// TestLedgerPublished: a ledger of one phase reproduces Opacus' published
// ε for (q, z, T) = (0.04, 1.5, 2250), δ = 1e-5 (reference_test.go, R1).
func TestLedgerPublished(t *testing.T) {
	L, _ := NewLedger(RelationAddRemove, nil)
	if err := L.Add(ml(SubsampledGaussianLoss(Phase{SampleRate: 0.04, NoiseMultiplier: 1.5, Steps: 2250}))); err != nil {
		t.Fatal(err)
	}
	rep, err := L.Epsilon(1e-5, ConversionImproved)
	if err != nil || !near(rep.Epsilon, 7.32911117143, 1e-9, 0) || rep.Order != 3.9 {
		t.Errorf("ε = %v at %v (%v), want 7.32911117143 at 3.9", rep.Epsilon, rep.Order, err)
	}
}

// TestLedgerRoutes: the closed-form routes against their formulas
// computed here, and the best route wins.
func TestLedgerRoutes(t *testing.T) {
	const delta = 1e-6
	ar := RelationAddRemove
	tests := []struct {
		name      string
		losses    []Loss
		wantRoute Route
		want      func() float64
		wantDelta float64
	}{
		{"pure only: Σε exactly, δ = 0", []Loss{ml(PureLoss(0.75, ar)), ml(PureLoss(0.25, ar))}, RoutePure,
			func() float64 { return 1 }, 0},
		{"gaussians: exact GDP", []Loss{ml(GaussianLoss(3, 1, ar)), ml(GDPLoss(0.4, ar))}, RouteGDP,
			func() float64 { e, _ := GDPEpsilon(math.Sqrt(1.0/9+0.16), delta); return e }, delta},
		{"pure + approx: basic", []Loss{ml(PureLoss(0.3, ar)), ml(ApproxLoss(0.2, 1e-7, ar))}, RoutePure,
			func() float64 { return 0.5 }, 1e-7},
		{"gaussian + approx: GDP at δ − δ_i, + ε_i", []Loss{ml(GaussianLoss(1, 1, ar)), ml(ApproxLoss(0.2, 4e-7, ar))}, RouteGDP,
			func() float64 { e, _ := GDPEpsilon(1, 6e-7); return e + 0.2 }, delta},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			L, _ := NewLedger(ar, nil)
			for _, l := range tc.losses {
				if err := L.Add(l); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := L.Epsilon(delta, ConversionImproved)
			if err != nil {
				t.Fatal(err)
			}
			if w := tc.want(); rep.Route != tc.wantRoute || math.Abs(rep.Epsilon-w) > 1e-12*w || rep.Delta != tc.wantDelta {
				t.Errorf("%s ε = %.15g δ = %v, want %s %.15g δ = %v", rep.Route, rep.Epsilon, rep.Delta, tc.wantRoute, w, tc.wantDelta)
			}
			for _, r := range rep.Routes {
				if r.Valid && r.Epsilon < rep.Epsilon {
					t.Errorf("route %s gives %v below the reported %v", r.Route, r.Epsilon, rep.Epsilon)
				}
			}
		})
	}
	// zCDP: ρ + 2√(ρ log 1/δ) beats the grid for a large total ρ.
	L, _ := NewLedger(ar, nil)
	_ = L.Add(ml(ZCDPLoss(3, ar)))
	_ = L.Add(ml(PureLoss(1, ar)))
	rep, err := L.Epsilon(delta, ConversionImproved)
	want := 3.5 + 2*math.Sqrt(3.5*math.Log(1/delta))
	zr := rep.Routes[1]
	if err != nil || zr.Route != RouteZCDP || math.Abs(zr.Epsilon-want) > 1e-12*want {
		t.Errorf("zcdp route %+v, want ε %v (%v)", zr, want, err)
	}
}

// TestLedgerRefusesMixedRelations: a loss of another relation is refused
// with both relations named; an explicit change makes it composable.
func TestLedgerRefusesMixedRelations(t *testing.T) {
	L, _ := NewLedger(RelationReplaceOne, nil)
	_ = L.Add(ml(PureLoss(1, RelationReplaceOne)))
	g := ml(GaussianLoss(2, 1, RelationAddRemove))
	err := L.Add(g)
	if err == nil || !strings.Contains(err.Error(), "entry 1") || !strings.Contains(err.Error(), "add-remove") || !strings.Contains(err.Error(), "ChangeRelation") {
		t.Fatalf("mixed relation: err = %v", err)
	}
	if L.Len() != 1 {
		t.Fatalf("refused entry was added")
	}
	g2, err := g.ChangeRelation(RelationReplaceOne)
	if err != nil {
		t.Fatal(err)
	}
	if err := L.Add(g2); err != nil {
		t.Fatal(err)
	}
	if _, err := L.Epsilon(1e-5, ConversionImproved); err != nil {
		t.Fatal(err)
	}
}

// TestChangeRelation: each change against its source's formula.
func TestChangeRelation(t *testing.T) {
	ar, ro := RelationAddRemove, RelationReplaceOne
	orders := []float64{1.5, 2, 3, 4, 8}
	base := []float64{0.1, 0.2, 0.3, 0.4, 0.8} // given at 2α for α ∈ orders: 3, 4, 6, 8, 16
	curve := ml(RDPLoss([]float64{2, 3, 4, 6, 8, 16}, []float64{0.05, 0.1, 0.2, 0.3, 0.4, 0.8}, ar))
	tests := []struct {
		name     string
		l        Loss
		to       Relation
		check    func(Loss) bool
		wantSame bool
	}{
		{"pure 2ε (Dwork & Roth Thm 2.2)", ml(PureLoss(0.5, ar)), ro, func(l Loss) bool { e, _, _ := l.ApproxDP(); return e == 1 }, false},
		{"FDP Prop. 1 (1, 1e-5) → (2, 3.718e-5)", ml(ApproxLoss(1, 1e-5, RelationFeatureSimulator)), RelationFeature,
			func(l Loss) bool { e, d, _ := l.ApproxDP(); return e == 2 && math.Abs(d-1e-5*(1+math.E)) < 1e-18 }, false},
		{"zCDP 4ρ (Bun & Steinke Prop. 1.9)", ml(ZCDPLoss(0.1, ar)), ro, func(l Loss) bool { r, _ := l.Rho(); return math.Abs(r-0.4) < 1e-16 }, false},
		{"Gaussian 2Δ", ml(GaussianLoss(2, 1, ar)), ro, func(l Loss) bool { m, _ := l.Mu(); return m == 1 }, false},
		{"GDP 2μ", ml(GDPLoss(0.3, ar)), ro, func(l Loss) bool { m, _ := l.Mu(); return m == 0.6 }, false},
		{"RDP 3ε(2α), α ≥ 2 (Mironov Prop. 2)", curve, ro, func(l Loss) bool {
			r, _, err := l.RDP(orders)
			if err != nil || !math.IsInf(r[0], 1) {
				return false
			}
			for k := 1; k < len(orders); k++ {
				if math.Abs(r[k]-3*base[k]) > 1e-15 {
					return false
				}
			}
			return true
		}, false},
		{"add-remove → label: chain then restriction", ml(PureLoss(0.5, ar)), RelationLabel, func(l Loss) bool { e, _, _ := l.ApproxDP(); return e == 1 && len(l.Changes()) == 2 }, false},
		{"DP ⇒ FDP (Prop. 2): same loss", ml(ZCDPLoss(0.1, ar)), RelationFeatureSimulator, func(l Loss) bool { r, _ := l.Rho(); return r == 0.1 }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.l.ChangeRelation(tc.to)
			if err != nil {
				t.Fatal(err)
			}
			if got.Relation() != tc.to || !tc.check(got) {
				t.Errorf("%v → %v: got %v", tc.l, tc.to, got)
			}
			if tc.l.Relation() == tc.to {
				t.Error("input changed")
			}
		})
	}
	for _, bad := range []struct{ from, to Relation }{{ro, ar}, {RelationLabel, ro}, {RelationFeature, RelationFeatureSimulator}} {
		if _, err := ml(PureLoss(1, bad.from)).ChangeRelation(bad.to); err == nil {
			t.Errorf("%v → %v accepted (would under-report)", bad.from, bad.to)
		}
	}
	if _, err := ml(ApproxLoss(5, 0.01, ar)).ChangeRelation(ro); err == nil {
		t.Error("vacuous δ(1 + e^ε) ≥ 1 accepted")
	}
}

// TestLedgerErrors: bad input gets an error, never a silent default.
func TestLedgerErrors(t *testing.T) {
	ar := RelationAddRemove
	for name, err := range map[string]error{
		"pure NaN":      second(PureLoss(math.NaN(), ar)),
		"pure Inf":      second(PureLoss(math.Inf(1), ar)),
		"approx δ 1":    second(ApproxLoss(1, 1, ar)),
		"zcdp -1":       second(ZCDPLoss(-1, ar)),
		"gaussian σ 0":  second(GaussianLoss(0, 1, ar)),
		"gaussian Δ 0":  second(GaussianLoss(1, 0, ar)),
		"gdp NaN":       second(GDPLoss(math.NaN(), ar)),
		"phase q 2":     second(SubsampledGaussianLoss(Phase{SampleRate: 2, NoiseMultiplier: 1, Steps: 1})),
		"rdp lengths":   second(RDPLoss([]float64{2, 3}, []float64{1}, ar)),
		"rdp order 1":   second(RDPLoss([]float64{1}, []float64{1}, ar)),
		"rdp repeated":  second(RDPLoss([]float64{2, 2}, []float64{1, 1}, ar)),
		"rdp negative":  second(RDPLoss([]float64{2}, []float64{-1}, ar)),
		"relation 99":   second(PureLoss(1, Relation(99))),
		"curve nil":     second(CurveLoss("c", nil, 1, 2, ar)),
		"curve [3, 2]":  second(CurveLoss("c", func(float64) (float64, error) { return 0, nil }, 3, 2, ar)),
		"ledger orders": second(NewLedger(ar, []float64{})),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	L, _ := NewLedger(ar, nil)
	_ = L.Add(ml(ApproxLoss(1, 1e-5, ar)))
	if _, err := L.Epsilon(1e-6, ConversionImproved); err == nil || !strings.Contains(err.Error(), "δ") {
		t.Errorf("(ε, δ) entries above δ: err = %v", err)
	}
	_ = L.Add(ml(GaussianLoss(1, 1, ar)))
	if _, err := L.Epsilon(1e-5, ConversionImproved); err == nil || !strings.Contains(err.Error(), "no route") {
		t.Errorf("all of δ spent by (ε, δ) entries: err = %v", err)
	}
	bad := ml(CurveLoss("bad", func(float64) (float64, error) { return math.NaN(), nil }, 1, math.Inf(1), ar))
	if err := L.Add(bad); err == nil || !strings.Contains(err.Error(), "entry 2") {
		t.Errorf("NaN curve: err = %v", err)
	}
	if _, err := (*Ledger)(nil).Epsilon(1e-5, ConversionImproved); err == nil {
		t.Error("nil ledger")
	}
}

func second[T any](_ T, err error) error { return err }

// TestRDPLossInterpolation: between given orders the value is the
// convexity bound, never below the true curve (here the Gaussian's αρ,
// for which (α−1)αρ is convex: the bound is above it), also when the next
// given order is far above (1e20: λ rounds to 1, and 1 − λ computed from
// it lost the upper term: 1/62 instead of ≥ 31.5 at order 63).
func TestRDPLossInterpolation(t *testing.T) {
	for _, tc := range []struct {
		rho   float64
		given []float64
	}{
		{0.3, []float64{2, 4, 8, 16}},
		{0.5, []float64{1.5, 2, 1e20}},
		{0.01, []float64{1.01, 1.5, 1e12, 1e300}},
	} {
		vals := make([]float64, len(tc.given))
		for i, a := range tc.given {
			vals[i] = a * tc.rho
		}
		l := ml(RDPLoss(tc.given, vals, RelationAddRemove))
		orders := []float64{1.25, 1.5, 2, 3, 5, 7.5, 16, 20, 63, 1024}
		r, _, err := l.RDP(orders)
		if err != nil {
			t.Fatal(err)
		}
		top := tc.given[len(tc.given)-1]
		for k, a := range orders {
			switch {
			case a > top:
				if !math.IsInf(r[k], 1) {
					t.Errorf("%v: order %v above the largest given: %v, want +Inf", tc.given, a, r[k])
				}
			case r[k] < a*tc.rho && a >= tc.given[0]:
				t.Errorf("%v: order %v: %v below the true %v", tc.given, a, r[k], a*tc.rho)
			}
		}
	}
	l := ml(RDPLoss([]float64{2, 4, 8, 16}, []float64{0.6, 1.2, 2.4, 4.8}, RelationAddRemove))
	r, notes, err := l.RDP([]float64{1.5, 2, 3, 5, 7.5, 16, 20})
	if err != nil || r[1] != 0.6 || len(notes) != 5 {
		t.Errorf("exact order: %v; %d notes, want 5 (%v)", r[1], len(notes), err)
	}
	// The ledger of the same Gaussian entered as an RDP curve with a huge
	// top order is never below its zCDP form's ε by more than the
	// interpolation's looseness allows: here it must not be smaller.
	rdp := ml(RDPLoss([]float64{1.5, 2, 1e20}, []float64{0.75, 1, 5e19}, RelationAddRemove))
	zc := ml(ZCDPLoss(0.5, RelationAddRemove))
	eps := func(x Loss) float64 {
		L, err := NewLedger(RelationAddRemove, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := L.Add(x); err != nil {
			t.Fatal(err)
		}
		rep, err := L.Epsilon(1e-5, ConversionImproved)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Epsilon
	}
	if e, ez := eps(rdp), eps(zc); e < ez*(1-1e-9) {
		t.Errorf("RDP curve ε %v below the same mechanism's zCDP ε %v", e, ez)
	}
}

// fuzzLosses decodes up to 12 losses (4 bytes each) and δ from data.
func fuzzLosses(data []byte) ([]Loss, float64) {
	if len(data) == 0 {
		return nil, 1e-5
	}
	delta := math.Pow(10, -float64(1+data[0]%10))
	var out []Loss
	ar := RelationAddRemove
	for i := 1; i+3 < len(data) && len(out) < 12; i += 4 {
		b1, b2, b3 := float64(data[i+1]), float64(data[i+2]), int(data[i+3])
		var l Loss
		var err error
		switch data[i] % 6 {
		case 0:
			l, err = PureLoss(b1/32, ar)
		case 1:
			l, err = GaussianLoss(0.2+b1/16, 1+b2/64, ar)
		case 2:
			l, err = ZCDPLoss(b1/64, ar)
		case 3:
			l, err = GDPLoss(b1/64, ar)
		case 4:
			l, err = SubsampledGaussianLoss(Phase{SampleRate: (b1 + 1) / 256, NoiseMultiplier: 0.5 + b2/32, Steps: 1 + b3})
		default:
			l, err = ApproxLoss(b1/32, delta*(b2+1)/4096, ar)
		}
		if err != nil {
			panic(err)
		}
		out = append(out, l)
	}
	return out, delta
}

// tightLower is an ε below which no valid (ε, δ) bound of the loss can be:
// the exact ε(δ) of a mechanism the loss covers (randomized response for
// pure ε, the Gaussian for ρ and μ, one step of the subsampled Gaussian),
// or 0 for (ε, δ) losses.
func tightLower(t *testing.T, l Loss, delta float64) float64 {
	switch l.Kind() {
	case LossPure:
		e, _, _ := l.ApproxDP()
		return math.Max(0, math.Log(math.Exp(e)-delta*(1+math.Exp(e))))
	case LossZCDP, LossGaussian, LossGDP:
		mu, ok := l.Mu()
		if !ok {
			rho, _ := l.Rho()
			mu = math.Sqrt(2 * rho)
		}
		e, err := GDPEpsilon(mu, delta)
		if err != nil {
			t.Fatal(err)
		}
		return e
	case LossSubsampledGaussian:
		p := l.phase
		lo, hi := 0.0, 64.0 // δ_1(lo) > δ: the exact one-step ε is above lo
		if d, _ := SubsampledGaussianDelta(p.SampleRate, p.NoiseMultiplier, 0); d <= delta {
			return 0
		}
		for range 60 {
			mid := (lo + hi) / 2
			if d, _ := SubsampledGaussianDelta(p.SampleRate, p.NoiseMultiplier, mid); d > delta {
				lo = mid
			} else {
				hi = mid
			}
		}
		return lo
	}
	return 0
}

// FuzzLedgerInvariants: for any mix of losses, (1) adding an entry never
// lowers ε; (2) ε is never below any single entry's tight value (a lower
// bound on every valid guarantee) nor below the entry alone in a ledger;
// (3) the reported ε is the minimum over the valid routes.
func FuzzLedgerInvariants(f *testing.F) {
	f.Add([]byte{4, 0, 16, 0, 0, 1, 30, 0, 0, 4, 5, 16, 100, 2, 6, 0, 0, 5, 8, 9, 0})
	f.Add([]byte{0, 0, 32, 0, 0, 0, 1, 0, 0})
	f.Add([]byte{9, 3, 64, 0, 0, 1, 200, 255, 0, 5, 1, 255, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		losses, delta := fuzzLosses(data)
		L, _ := NewLedger(RelationAddRemove, nil)
		prev := 0.0
		for i, l := range losses {
			if err := L.Add(l); err != nil {
				t.Fatal(err)
			}
			rep, err := L.Epsilon(delta, ConversionImproved)
			if err != nil {
				if strings.Contains(err.Error(), "δ") {
					return // (ε, δ) entries spent δ: refused, never a low ε
				}
				t.Fatal(err)
			}
			if rep.Epsilon < prev*(1-1e-12) {
				t.Fatalf("entry %d (%v) lowered ε from %v to %v", i, l, prev, rep.Epsilon)
			}
			prev = rep.Epsilon
			for _, r := range rep.Routes {
				if r.Valid && r.Epsilon < rep.Epsilon {
					t.Fatalf("route %s gives %v below the reported %v", r.Route, r.Epsilon, rep.Epsilon)
				}
			}
		}
		if len(losses) == 0 {
			return
		}
		final, err := L.Epsilon(delta, ConversionImproved)
		if err != nil {
			return
		}
		for i, l := range losses {
			if lb := tightLower(t, l, delta); final.Epsilon < lb*(1-1e-9) {
				t.Fatalf("ε %v below entry %d's (%v) tight value %v", final.Epsilon, i, l, lb)
			}
			one, _ := NewLedger(RelationAddRemove, nil)
			_ = one.Add(l)
			if rep, err := one.Epsilon(delta, ConversionImproved); err == nil && final.Epsilon < rep.Epsilon*(1-1e-12) {
				t.Fatalf("ε %v below entry %d (%v) alone: %v", final.Epsilon, i, l, rep.Epsilon)
			}
		}
	})
}

var ledgerSink *LedgerReport

// BenchmarkLedger1000Mixed: 1,000 entries of five kinds (pure, Gaussian,
// subsampled-Gaussian phases sharing (q, z), zCDP, (ε, δ)) composed and
// converted. Target: ≤ 1 ms.
func BenchmarkLedger1000Mixed(b *testing.B) {
	ar := RelationAddRemove
	kinds := []Loss{
		ml(PureLoss(0.01, ar)),
		ml(GaussianLoss(20, 1, ar)),
		ml(SubsampledGaussianLoss(Phase{SampleRate: 0.01, NoiseMultiplier: 1.1, Steps: 10})),
		ml(ZCDPLoss(0.001, ar)),
		ml(ApproxLoss(0.01, 1e-9, ar)),
	}
	b.ReportAllocs()
	for b.Loop() {
		L, _ := NewLedger(ar, nil)
		for i := range 1000 {
			if err := L.Add(kinds[i%len(kinds)]); err != nil {
				b.Fatal(err)
			}
		}
		rep, err := L.Epsilon(1e-5, ConversionImproved)
		if err != nil {
			b.Fatal(err)
		}
		ledgerSink = rep
	}
}

// TestZCDPEpsilon: the one zCDP → (ε, δ) formula: ρ + 2√(ρ log 1/δ),
// equal to GaussianEpsilonRealOrder's real-order optimum (ρ = T/(2z²)),
// with log δ exact for subnormal δ (math.Log returns about −709 there).
func TestZCDPEpsilon(t *testing.T) {
	for _, tc := range []struct{ rho, delta float64 }{{0.5, 1e-5}, {0.1, 1e-10}, {2, 5e-324}, {0, 0.5}} {
		got, err := ZCDPEpsilon(tc.rho, tc.delta)
		if err != nil {
			t.Fatal(err)
		}
		l := -math.Log(tc.delta)
		if tc.delta == 5e-324 {
			l = 1074 * math.Ln2 // 5e-324 = 2^-1074
		}
		if want := tc.rho + 2*math.Sqrt(tc.rho*l); math.Abs(got-want) > 1e-14*want {
			t.Errorf("ZCDPEpsilon(%v, %v) = %v, want %v", tc.rho, tc.delta, got, want)
		}
	}
	e1, _, _ := GaussianEpsilonRealOrder(1, 1, 1e-5)
	if e2, _ := ZCDPEpsilon(0.5, 1e-5); e1 != e2 {
		t.Errorf("GaussianEpsilonRealOrder %v != ZCDPEpsilon %v", e1, e2)
	}
	for _, bad := range [][2]float64{{-1, 1e-5}, {math.NaN(), 1e-5}, {math.Inf(1), 1e-5}, {1, 0}, {1, 1}} {
		if _, err := ZCDPEpsilon(bad[0], bad[1]); err == nil {
			t.Errorf("ZCDPEpsilon(%v, %v): no error", bad[0], bad[1])
		}
	}
}

// TestLedgerManyEntries: entries beyond one storage chunk keep their order
// and their shares; 700 Gaussians of μ = 0.1 compose to GDP √7.
func TestLedgerManyEntries(t *testing.T) {
	ar := RelationAddRemove
	g, m := ml(GaussianLoss(10, 1, ar)), ml(GDPLoss(0.1, ar))
	L, _ := NewLedger(ar, nil)
	for i := range 700 {
		l := g
		if i%2 == 1 {
			l = m
		}
		if err := L.Add(l); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := L.Epsilon(1e-6, ConversionImproved)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := GDPEpsilon(math.Sqrt(7), 1e-6)
	if rep.Route != RouteGDP || math.Abs(rep.Epsilon-want) > 1e-12*want {
		t.Errorf("%s ε = %v, want gdp %v", rep.Route, rep.Epsilon, want)
	}
	es := L.Entries()
	if L.Len() != 700 || len(es) != 700 || len(rep.Entries) != 700 {
		t.Fatalf("%d / %d / %d entries", L.Len(), len(es), len(rep.Entries))
	}
	for i, e := range rep.Entries {
		wantKind := LossGaussian
		if i%2 == 1 {
			wantKind = LossGDP
		}
		if e.Index != i || e.Loss.Kind() != wantKind || es[i].Kind() != wantKind || math.Abs(e.Value-0.1) > 1e-16 {
			t.Fatalf("entry %d: %+v", i, e)
		}
	}
}

// Each distinct subsampled-Gaussian entry gets its own work budget, as a
// phase of an Accountant does: 600 entries of distinct z compose to the
// accountant's ε in either order. (With one budget shared by the whole
// ledger, entries after the ~500th got the unsubsampled cap: ε 87.9
// instead of 1.64, and another value for the reversed order.)
func TestLedgerEntryBudgetsIndependent(t *testing.T) {
	orders := OrdersDPAccounting()
	a, _ := NewAccountant(orders)
	fwd, _ := NewLedger(RelationAddRemove, orders)
	rev, _ := NewLedger(RelationAddRemove, orders)
	const n = 600
	phase := func(k int) Phase { return Phase{SampleRate: 0.01, NoiseMultiplier: 1 + float64(k)*1e-4, Steps: 1} }
	for k := range n {
		if err := a.Add(phase(k)); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			l *Ledger
			k int
		}{{fwd, k}, {rev, n - 1 - k}} {
			loss, err := SubsampledGaussianLoss(phase(c.k))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.l.Add(loss); err != nil {
				t.Fatal(err)
			}
		}
	}
	want, _, err := a.Epsilon(1e-5, DefaultConversion)
	if err != nil {
		t.Fatal(err)
	}
	for name, l := range map[string]*Ledger{"in order": fwd, "reversed": rev} {
		rep, err := l.Epsilon(1e-5, DefaultConversion)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(rep.Epsilon-want) > 1e-12*want {
			t.Errorf("%s: ledger ε %v, accountant %v", name, rep.Epsilon, want)
		}
	}
}

// An Accountant's phases share one work budget, as a Ledger's entries do:
// once it is spent, a costly phase gets the un-subsampled cap α/(2z²), a
// valid upper bound, with a note, instead of another second of series.
func TestAccountantWorkBudgetShared(t *testing.T) {
	a, err := NewAccountant(OrdersDPAccounting())
	if err != nil {
		t.Fatal(err)
	}
	p := Phase{SampleRate: 0.3, NoiseMultiplier: 0.7, Steps: 10}
	if err := a.Add(p); err != nil {
		t.Fatal(err)
	}
	if a.work >= maxLedgerWork || len(a.Notes()) != 0 {
		t.Fatalf("work left %d of %d, notes %v: the first phase was not charged, or not exact", a.work, int64(maxLedgerWork), a.Notes())
	}
	a.work = 0 // as after 64 costly phases
	before := a.RDP()
	if err := a.Add(p); err != nil {
		t.Fatal(err)
	}
	after, notes := a.RDP(), a.Notes()
	if len(notes) == 0 || notes[0].Method != RDPUnsubsampled {
		t.Fatalf("notes %v, want the un-subsampled cap", notes)
	}
	for k, alpha := range a.Orders() {
		capped := float64(p.Steps) * alpha / (2 * p.NoiseMultiplier * p.NoiseMultiplier)
		if got := after[k] - before[k]; got < capped*(1-1e-12) {
			t.Errorf("order %v: the budget-less phase added %v, below the cap %v", alpha, got, capped)
		}
	}
}
