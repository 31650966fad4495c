package figures

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/notions/bcdp"
)

func approxEqual(a, b, tol float64) bool {
	if math.IsInf(a, 1) && math.IsInf(b, 1) {
		return true
	}
	return math.Abs(a-b) <= tol
}

func vecClose(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: len %d, want %d", name, len(got), len(want))
	}
	for i := range got {
		if !approxEqual(got[i], want[i], tol) {
			t.Errorf("%s[%d] = %.6f, want %.6f (tol %g)", name, i, got[i], want[i], tol)
		}
	}
}

// C14: Example 1, exact calculator vs closed form, and LDP ε* = ∞.
func TestExample1(t *testing.T) {
	for _, tc := range []struct {
		a, b, c float64
		want    []float64
	}{
		{0.5, 0.5, 0.5, []float64{math.Log(2), math.Log(2)}},
		{0.3, 0.9, 0.6, []float64{math.Log(5), math.Log(2)}},
	} {
		m, err := Example1(tc.a, tc.b, tc.c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := bcdp.Exact(m)
		if err != nil {
			t.Fatal(err)
		}
		vecClose(t, "Example 1", got, tc.want, 1e-12)
		d1, d2 := Example1Closed(tc.a, tc.b, tc.c)
		vecClose(t, "Example 1 closed form", []float64{d1, d2}, tc.want, 1e-12)
		if e, _ := bcdp.LDPExact(m); !math.IsInf(e, 1) {
			t.Errorf("Example 1 LDP ε* = %v, want +Inf", e)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		a, b, c := 0.01+0.99*rng.Float64(), 0.01+0.99*rng.Float64(), 0.01+0.99*rng.Float64()
		m, _ := Example1(a, b, c)
		got, _ := bcdp.Exact(m)
		d1, d2 := Example1Closed(a, b, c)
		vecClose(t, fmt.Sprintf("closed form (%v,%v,%v)", a, b, c), got, []float64{d1, d2}, 1e-9)
	}
}

// C15: Example 2 — BCDP does not compose.
func TestExample2(t *testing.T) {
	for _, tc := range []struct {
		copies int
		want   []float64
	}{
		{1, []float64{0, math.Log(3), math.Log(3)}},
		{2, []float64{math.Inf(1), math.Log(5), math.Log(5)}},
	} {
		m, err := Example2(tc.copies)
		if err != nil {
			t.Fatal(err)
		}
		got, err := bcdp.Exact(m)
		if err != nil {
			t.Fatal(err)
		}
		vecClose(t, fmt.Sprintf("Example 2, %d copies", tc.copies), got, tc.want, 1e-12)
	}
	m, _ := Example2(1)
	if e, _ := bcdp.LDPExact(m); !math.IsInf(e, 1) {
		t.Errorf("Example 2 LDP ε* = %v, want +Inf", e)
	}
}

// C19: Theorem 1 (hypothesis testing) on finite mechanisms; equality for
// Example 1, coordinate 1, R = {1}: α = 1/4, β = 1/2.
func TestTheorem1(t *testing.T) {
	m1, _ := Example1(0.5, 0.5, 0.5)
	rr, _ := bcdp.RandomizedResponse([]float64{0.5, 1, 1}, 0.3)
	m2, _ := Example2(1)
	for name, m := range map[string]bcdp.Finite{"ex1": m1, "rr": rr, "ex2": m2} {
		ds, _ := bcdp.Exact(m)
		for i, d := range ds {
			v, err := bcdp.TradeoffMin(m, i, d)
			if err != nil {
				t.Fatal(err)
			}
			if v < 1-1e-12 {
				t.Errorf("%s coord %d: min trade-off %v < 1 at δ* = %v", name, i, v, d)
			}
			if d > 0 && !math.IsInf(d, 1) && v > 1+1e-9 {
				t.Errorf("%s coord %d: trade-off not tight (%v) at δ*", name, i, v)
			}
			if d > 0.01 && !math.IsInf(d, 1) {
				if w, _ := bcdp.TradeoffMin(m, i, d-0.01); w >= 1 {
					t.Errorf("%s coord %d: trade-off ≥ 1 below δ*", name, i)
				}
			}
		}
	}
	c0, _ := m1.ConditionalOutput(0, 0)
	c1, _ := m1.ConditionalOutput(0, 1)
	alpha, beta := c0[1], c1[0]
	if alpha != 0.25 || beta != 0.5 || math.Abs(2*alpha+beta-1) > 1e-15 {
		t.Errorf("Example 1 α = %v, β = %v", alpha, beta)
	}
}

// The examples refuse parameters outside their range with an error naming
// the parameter.
func TestExamplesBadInput(t *testing.T) {
	if _, err := Example1(0.5, math.NaN(), 0.5); err == nil || !strings.Contains(err.Error(), "Example 1: b = NaN, want in (0, 1]") {
		t.Errorf("Example1 b = NaN: %v", err)
	}
	for _, copies := range []int{0, 4} {
		if _, err := Example2(copies); err == nil {
			t.Errorf("Example2(%d) accepted", copies)
		}
	}
}
