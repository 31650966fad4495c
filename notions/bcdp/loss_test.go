package bcdp

import (
	"math"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

// pureEps returns the ε of a pure loss and fails the test on another kind
// or relation.
func pureEps(t *testing.T, l accounting.Loss, rel accounting.Relation) float64 {
	t.Helper()
	eps, delta, ok := l.ApproxDP()
	if !ok || delta != 0 || l.Kind() != accounting.LossPure || l.Relation() != rel {
		t.Fatalf("loss %v: kind %v, relation %v, want pure under %v", l, l.Kind(), l.Relation(), rel)
	}
	return eps
}

// The losses of a finite mechanism are the exact calculator's levels,
// unchanged: LocalLoss = LDPExact and CoordinateLosses = CDPExact,
// bit for bit.
func TestFiniteLosses(t *testing.T) {
	rr, _ := RandomizedResponse([]float64{0.5, 1, 1}, 0.3)
	rr2, _ := RandomizedResponse([]float64{0.2, 2}, 0)
	tb, _ := TwoBitChannel([4]float64{0.2, 0.7, 0.4, 0.9})
	for name, m := range map[string]Finite{"rr": rr, "rr2": rr2, "two-bit": tb} {
		ldp, _ := LDPExact(m)
		l, err := LocalLoss(m)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := pureEps(t, l, accounting.RelationReplaceOne); got != ldp {
			t.Errorf("%s: LocalLoss ε = %v, LDPExact %v", name, got, ldp)
		}
		cdp, _ := CDPExact(m)
		ls, err := CoordinateLosses(m)
		if err != nil || len(ls) != len(cdp) {
			t.Fatalf("%s: %d losses for %d coordinates (%v)", name, len(ls), len(cdp), err)
		}
		for i, l := range ls {
			if got := pureEps(t, l, accounting.RelationCoordinate); got != cdp[i] {
				t.Errorf("%s coordinate %d: ε = %v, CDPExact %v", name, i+1, got, cdp[i])
			}
		}
	}
	// The paper's Example 1 has no finite LDP level: no loss, an error.
	ex1, _ := TwoBitChannel([4]float64{0.5, 0.5, 0, 0.5})
	if _, err := LocalLoss(ex1); err == nil || !strings.Contains(err.Error(), "+Inf") {
		t.Errorf("Example 1 LocalLoss: %v, want a +Inf error", err)
	}
	if _, err := CoordinateLosses(Finite{}); err == nil {
		t.Error("an empty mechanism accepted")
	}
}

// closeAbove reports got ≥ want and got ≤ want·(1 + 1e-12): a level
// composed on a ledger is the level asked for, rounded up.
func closeAbove(got, want float64) bool { return got >= want && got <= want*(1+1e-12) }

// Mechanism 1 and Algorithm 3 report the levels they are built for: the
// ledger composition of the rounds gives c_d (LDP) and c_i per coordinate
// (CDP), never below them and within 1e-12 relative (float sums of
// α_k = c_k − c_{k−1}, rounded up); the Duchi channel reports its α.
func TestMechanismLosses(t *testing.T) {
	for _, c := range [][]float64{
		{0.09, 0.09, 0.7714, 0.7714, 0.7714},
		{2, 0.5, 1, 0.5},
		{0.3},
		{1e-3, 5, 5, 7.25},
	} {
		m, err := NewMean(c, MeanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		l, err := m.LocalLoss()
		if err != nil {
			t.Fatal(err)
		}
		if got := pureEps(t, l, accounting.RelationReplaceOne); !closeAbove(got, m.LDP()) {
			t.Errorf("c = %v: LocalLoss ε = %v, LDP %v", c, got, m.LDP())
		}
		ls, err := m.CoordinateLosses()
		if err != nil || len(ls) != len(c) {
			t.Fatalf("c = %v: %d losses (%v)", c, len(ls), err)
		}
		for i, l := range ls {
			if got := pureEps(t, l, accounting.RelationCoordinate); !closeAbove(got, c[i]) {
				t.Errorf("c = %v coordinate %d: ε = %v, want c_i = %v", c, i+1, got, c[i])
			}
		}
		rounds, _ := m.RoundLosses()
		if len(rounds) != len(m.Rounds()) {
			t.Errorf("c = %v: %d round losses for rounds %v", c, len(rounds), m.Rounds())
		}
		if len(c) < 2 {
			continue
		}
		alg3, err := NewLeastSquares(c, MeanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		l3, err := alg3.LocalLoss()
		if err != nil {
			t.Fatal(err)
		}
		if got := pureEps(t, l3, accounting.RelationReplaceOne); !closeAbove(got, m.LDP()) {
			t.Errorf("c = %v: Algorithm 3 LDP ε = %v, want %v", c, got, m.LDP())
		}
		c3, err := alg3.CoordinateLosses()
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range c3 {
			if got := pureEps(t, l, accounting.RelationCoordinate); !closeAbove(got, c[i]) {
				t.Errorf("c = %v: Algorithm 3 coordinate %d ε = %v, want %v", c, i+1, got, c[i])
			}
		}
	}
	ch, _ := NewDuchi(3, math.Sqrt(3), 0.8, false)
	l, err := ch.Loss()
	if err != nil || pureEps(t, l, accounting.RelationReplaceOne) != 0.8 {
		t.Errorf("Duchi loss %v (%v), want 0.8-LDP", l, err)
	}
	var nilCh *Duchi
	if _, err := nilCh.Loss(); err == nil {
		t.Error("nil channel accepted")
	}
}

// A coordinate's losses from two releases compose on one ledger; a local
// (replace-one) loss is refused by a coordinate ledger unless changed
// explicitly (the ledger never mixes relations silently).
func TestCoordinateLedger(t *testing.T) {
	m, _ := NewMean([]float64{0.5, 1}, MeanOptions{})
	ls, _ := m.CoordinateLosses()
	L, _ := accounting.NewLedger(accounting.RelationCoordinate, nil)
	for range 2 {
		if err := L.Add(ls[0]); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := L.Epsilon(1e-6, accounting.DefaultConversion)
	if err != nil || rep.Epsilon > 1 {
		t.Errorf("two releases of coordinate 1 at 0.5: ε = %v (%v), want ≤ 1", rep.Epsilon, err)
	}
	local, _ := m.LocalLoss()
	if err := L.Add(local); err == nil {
		t.Error("a replace-one loss added to a coordinate ledger")
	}
}
