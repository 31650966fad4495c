package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

// TestCLIEpsilonGridEdge: when the optimal order is the largest or the
// smallest order of the grid, the minimum over the grid may be far above
// the minimum over all orders, and the output says so (text and JSON).
// Each case first checks, independently of the note, that a wider grid
// does give a smaller ε, so the note is warranted; an interior optimum
// gets no note.
func TestCLIEpsilonGridEdge(t *testing.T) {
	opacus := accounting.OrdersOpacus()
	wide := append([]float64{1.01, 1.02, 1.05}, accounting.OrdersDPAccounting()...)
	for _, tc := range []struct {
		name    string
		q, z    float64
		steps   int
		edge    float64 // the Opacus grid's order that is optimal
		wantKey string  // word of the note
	}{
		{"largest", 0.001, 5, 100, slices.Max(opacus), "largest"},
		{"smallest", 0.5, 0.5, 10000, slices.Min(opacus), "smallest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ph := []accounting.Phase{{SampleRate: tc.q, NoiseMultiplier: tc.z, Steps: tc.steps}}
			eNarrow, oNarrow, err := accounting.Epsilon(ph, 1e-5, opacus, accounting.ConversionImproved)
			if err != nil || oNarrow != tc.edge {
				t.Fatalf("setup: order %v, want the grid's edge %v (%v)", oNarrow, tc.edge, err)
			}
			eWide, _, _ := accounting.Epsilon(ph, 1e-5, wide, accounting.ConversionImproved)
			if !(eWide < 0.99*eNarrow) {
				t.Fatalf("setup: a wider grid gives %v, not below %v", eWide, eNarrow)
			}
			args := []string{"epsilon", "--sample-rate", fmt.Sprint(tc.q), "--noise-multiplier", fmt.Sprint(tc.z), "--steps", fmt.Sprint(tc.steps), "--delta", "1e-5"}
			code, out, errs := runAccCLI(args...)
			if code != 0 || !strings.Contains(out, "note: the optimal RDP order") || !strings.Contains(out, tc.wantKey) {
				t.Errorf("text: code %d, stdout %q, stderr %q: no note that order %v is the grid's %s", code, out, errs, tc.edge, tc.wantKey)
			}
			code, out, _ = runAccCLI(append(args, "--json")...)
			m := decodeOne(t, out)
			if note, _ := m["grid_edge"].(string); code != 0 || !strings.Contains(note, tc.wantKey) {
				t.Errorf("json: %q has no grid_edge note", out)
			}
			p := writeLedger(t, fmt.Sprintf(`[{"mechanism":"subsampled_gaussian","q":%v,"z":%v,"steps":%d}]`, tc.q, tc.z, tc.steps))
			code, out, errs = runAccCLI("epsilon", "--ledger", p, "--delta", "1e-5")
			if code != 0 || !strings.Contains(out, "note: the optimal RDP order") {
				t.Errorf("ledger: code %d, stdout %q, stderr %q: no grid-edge note", code, out, errs)
			}
		})
	}
	// Interior optimum (R1): no note.
	code, out, _ := runAccCLI("epsilon", "--sample-rate", "0.04", "--noise-multiplier", "1.5", "--steps", "2250", "--delta", "1e-5")
	if code != 0 || strings.Contains(out, "optimal RDP order") {
		t.Errorf("interior optimum: %q", out)
	}
}

// TestCLISigmaGridEdge: a noise multiplier calibrated on a grid whose
// optimal order at the answer is the grid's edge may be larger than
// needed; featuredp sigma says so (both methods, text and JSON), after
// checking that a wider grid does calibrate a smaller multiplier.
func TestCLISigmaGridEdge(t *testing.T) {
	const target, delta, q, steps = 0.11, 1e-5, 1.0, 1
	opacus := accounting.OrdersOpacus()
	z, err := accounting.NoiseMultiplier(target, delta, q, steps, opacus, accounting.ConversionImproved)
	if err != nil {
		t.Fatal(err)
	}
	_, order, _ := accounting.Epsilon([]accounting.Phase{{SampleRate: q, NoiseMultiplier: z, Steps: steps}}, delta, opacus, accounting.ConversionImproved)
	wide := accounting.OrdersOpacus()
	for a := 64; a <= 1024; a++ {
		wide = append(wide, float64(a))
	}
	zWide, _ := accounting.NoiseMultiplier(target, delta, q, steps, wide, accounting.ConversionImproved)
	if order != slices.Max(opacus) || !(zWide > 0 && zWide < 0.9*z) {
		t.Fatalf("setup: order %v at z = %v, wider grid z = %v", order, z, zWide)
	}
	base := []string{"sigma", "--epsilon", fmt.Sprint(target), "--delta", fmt.Sprint(delta), "--sample-rate", fmt.Sprint(q), "--steps", fmt.Sprint(steps)}
	for _, method := range []string{"opacus", "exact"} {
		args := append(append([]string(nil), base...), "--method", method)
		code, out, errs := runAccCLI(args...)
		if code != 0 || !strings.Contains(out, "note: the optimal RDP order") || !strings.Contains(out, "largest") {
			t.Errorf("%s text: code %d, stdout %q, stderr %q", method, code, out, errs)
		}
		code, out, _ = runAccCLI(append(args, "--json")...)
		m := decodeOne(t, out)
		if note, _ := m["grid_edge"].(string); code != 0 || !strings.Contains(note, "largest") {
			t.Errorf("%s json: %q has no grid_edge note", method, out)
		}
	}
	// Interior optimum: no note.
	code, out, _ := runAccCLI("sigma", "--epsilon", "8", "--delta", "1e-5", "--sample-rate", "0.04", "--steps", "2250")
	if code != 0 || strings.Contains(out, "optimal RDP order") {
		t.Errorf("interior optimum: %q", out)
	}
}

// TestCLIOrderGridBounded: an --orders list is bounded (maxGridOrders): a
// ledger keeps every distinct entry's RDP at every order, so memory and
// time grow as entries × orders (measured: 1,000 entries × 10,000 orders,
// 98 MB and 4.8 s; the 10,000 entries and ~64,000 orders a ledger file and
// one command-line argument allow would take about 6 GB). The largest
// list allowed passes.
func TestCLIOrderGridBounded(t *testing.T) {
	list := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = fmt.Sprint(2 + float64(i)/100)
		}
		return strings.Join(s, ",")
	}
	p := writeLedger(t, `[{"mechanism":"pure","epsilon":0.1},{"mechanism":"zcdp","rho":0.01}]`)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"epsilon", []string{"epsilon", "--sample-rate", "0.01", "--noise-multiplier", "1", "--steps", "10", "--delta", "1e-5"}},
		{"ledger", []string{"epsilon", "--ledger", p, "--delta", "1e-5"}},
		{"sigma", []string{"sigma", "--epsilon", "1", "--delta", "1e-5", "--sample-rate", "1", "--steps", "1", "--method", "exact"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runAccCLI(append(tc.args, "--orders", list(maxGridOrders+1))...)
			if code != 2 || !strings.Contains(errs, fmt.Sprint(maxGridOrders)) {
				t.Errorf("%d orders: code %d, stderr %q; want a refusal naming the bound", maxGridOrders+1, code, errs)
			}
			code, _, errs = runAccCLI(append(tc.args, "--orders", list(maxGridOrders))...)
			if code != 0 {
				t.Errorf("%d orders: code %d, stderr %q", maxGridOrders, code, errs)
			}
		})
	}
}
