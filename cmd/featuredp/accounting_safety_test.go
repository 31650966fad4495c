package main

import (
	"testing"
)

// The four reproductions of the order-grid defect (an order grid must never
// under-report ε). Each failed before the fix: a grid with 63.5 gave ε ≈ 0.10,
// 63.5 alone gave ε = 0, an order within 1e-15 of 1 gave ε = 0, and the exact
// calibration on 63.5 returned z ≈ 11.9 instead of ≥ 64.
func TestCLIOrderGridNeverUnderReports(t *testing.T) {
	base := []string{"epsilon", "--sample-rate", "0.5", "--noise-multiplier", "20", "--steps", "1000", "--delta", "1e-5", "--json"}
	eps := func(t *testing.T, orders string) float64 {
		t.Helper()
		code, out, errs := runAccCLI(append(base, "--orders", orders)...)
		if code != 0 {
			t.Fatalf("--orders %s: code %d, stderr %q", orders, code, errs)
		}
		v, ok := decodeOne(t, out)["epsilon"].(float64)
		if !ok {
			t.Fatalf("--orders %s: no finite epsilon in %q", orders, out)
		}
		return v
	}
	withoutFrac := eps(t, "2,4,8,16,32,63,64")
	defaultGrid := eps(t, "opacus")
	for _, tc := range []struct {
		orders  string
		atLeast float64
	}{
		{"2,4,8,16,32,63,63.5,64", withoutFrac}, // adding an order may only lower ε to a valid value
		{"63.5", defaultGrid},
		{"1.0000000000000002", defaultGrid},
	} {
		if got := eps(t, tc.orders); got < tc.atLeast*(1-1e-12) {
			t.Errorf("--orders %s: ε = %v, below %v", tc.orders, got, tc.atLeast)
		}
	}
	// Exactly one value of the four-order grid (63.5) is new: ε must equal
	// the grid without it unless 63.5 is optimal.
	if got := eps(t, "2,4,8,16,32,63,63.5,64"); got != withoutFrac {
		t.Errorf("63.5 changed the optimum: %v vs %v", got, withoutFrac)
	}
	sigma := func(t *testing.T, extra ...string) float64 {
		t.Helper()
		args := append([]string{"sigma", "--epsilon", "1", "--delta", "1e-5", "--sample-rate", "0.5", "--steps", "1000", "--method", "exact", "--json"}, extra...)
		code, out, errs := runAccCLI(args...)
		if code != 0 {
			t.Fatalf("sigma %v: code %d, stderr %q", extra, code, errs)
		}
		return decodeOne(t, out)["noise_multiplier"].(float64)
	}
	zDefault, z635 := sigma(t), sigma(t, "--orders", "63.5")
	if z635 < zDefault*(1-1e-9) {
		t.Errorf("sigma on --orders 63.5 = %v, below the default grid's %v", z635, zDefault)
	}
	if zDefault < 60 {
		t.Errorf("sigma on the default grid = %v, want ≈ 64", zDefault)
	}
}

// A bound replacing an exact value is reported, in text and JSON.
func TestCLIEpsilonReportsBounds(t *testing.T) {
	code, out, _ := runAccCLI("epsilon", "--sample-rate", "0.5", "--noise-multiplier", "20", "--steps", "1000", "--delta", "1e-5", "--orders", "1.0000000000000002,2,70000", "--json")
	if code != 0 {
		t.Fatal(out)
	}
	b, ok := decodeOne(t, out)["bounds"].([]any)
	if !ok || len(b) != 2 {
		t.Fatalf("want 2 bound notes, got %q", out)
	}
	for i, want := range []string{"interpolated bound", "unsubsampled bound"} {
		if m := b[i].(map[string]any); m["method"] != want {
			t.Errorf("note %d: %v, want %s", i, m, want)
		}
	}
	code, out, _ = runAccCLI("epsilon", "--sample-rate", "0.04", "--noise-multiplier", "1.5", "--steps", "2250", "--delta", "1e-5", "--json")
	if _, has := decodeOne(t, out)["bounds"]; code != 0 || has {
		t.Errorf("the default grid needs no bound: %q", out)
	}
}
