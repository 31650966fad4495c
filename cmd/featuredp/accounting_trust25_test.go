package main

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// The accountant commands of issue #25, run again: each gives a correct
// answer or a clear error (exit 2), and none runs unbounded.
func TestCLITrust25Gaussian(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		code    int
		atLeast float64 // σ must be at least this (the exact σ, less 1e-13)
		stderr  string
	}{
		// Before: σ = 2.24e-9, whose exact δ is ≈ 1.
		{[]string{"--epsilon", "1e17", "--delta", "1e-5"}, 2, 0, "docs/accounting.md"},
		// Before: σ = 3.99e289, whose exact δ is 1e-290.
		{[]string{"--epsilon", "0", "--delta", "1e-300"}, 0, 1 / (1e-300 * math.Sqrt(2*math.Pi)), ""},
		{[]string{"--epsilon", "1e16", "--delta", "1e-5"}, 0, 7.071068025110017802e-9, ""},
		{[]string{"--epsilon", "0", "--delta", "5e-324"}, 2, 0, "outside the float64 range"},
	} {
		args := append([]string{"gaussian", "--sensitivity", "1", "--json"}, tc.args...)
		code, out, errs := runAccCLI(args...)
		if code != tc.code || !strings.Contains(errs, tc.stderr) {
			t.Errorf("%v: code %d, stderr %q; want code %d and %q", tc.args, code, errs, tc.code, tc.stderr)
			continue
		}
		if code != 0 {
			continue
		}
		if s, ok := decodeOne(t, out)["sigma"].(float64); !ok || s < tc.atLeast*(1-1e-13) {
			t.Errorf("%v: σ = %v, want at least %v", tc.args, s, tc.atLeast)
		}
	}
}

// TestCLITrust25Epsilon: a subnormal δ (before: 82.61, the exact value is
// 86.54) and the hostile grids of item 4, which now finish with the
// un-subsampled cap noted where the work budget ran out.
func TestCLITrust25Epsilon(t *testing.T) {
	near := make([]string, maxGridOrders)
	for i := range near {
		near[i] = fmt.Sprint(65536 - 0.013*float64(i))
	}
	for _, tc := range []struct {
		name    string
		args    []string
		atLeast float64
		note    string
	}{
		{"subnormal delta", []string{"--sample-rate", "0.01", "--noise-multiplier", "1", "--steps", "100", "--delta", "5e-324", "--orders", "10", "--conversion", "classic"}, 86.5426054363, ""},
		{"z = 1e100", []string{"--sample-rate", "0.9", "--noise-multiplier", "1e100", "--steps", "1", "--delta", "1e-5"}, 0, "work budget"},
		{"2048 orders near 65536", []string{"--sample-rate", "0.01", "--noise-multiplier", "1", "--steps", "1", "--delta", "1e-5", "--orders", strings.Join(near, ",")}, 0, "work budget"},
		{"order 65535.5 capped", []string{"--sample-rate", "0.999999999999", "--noise-multiplier", "1", "--steps", "1", "--delta", "1e-5", "--orders", "65535.5"}, 0, "un-subsampled cap"},
	} {
		code, out, errs := runAccCLI(append([]string{"epsilon", "--json"}, tc.args...)...)
		if code != 0 {
			t.Errorf("%s: code %d, stderr %q", tc.name, code, errs)
			continue
		}
		if e, ok := decodeOne(t, out)["epsilon"].(float64); !ok || e < tc.atLeast {
			t.Errorf("%s: ε = %v, want at least %v", tc.name, e, tc.atLeast)
		}
		if !strings.Contains(out, tc.note) {
			t.Errorf("%s: output %.300q lacks %q", tc.name, out, tc.note)
		}
	}
}

// TestCLITrust25SigmaBounded: the exact calibration on a grid too costly
// to evaluate dozens of times is an error, not a minute-long run.
func TestCLITrust25SigmaBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("spends the calibration's work budget (about two seconds)")
	}
	near := make([]string, maxGridOrders)
	for i := range near {
		near[i] = fmt.Sprint(65536 - 0.013*float64(i))
	}
	code, _, errs := runAccCLI("sigma", "--epsilon", "1", "--delta", "1e-5", "--sample-rate", "0.01", "--steps", "1", "--method", "exact", "--orders", strings.Join(near, ","))
	if code != 2 || !strings.Contains(errs, "too costly") {
		t.Errorf("code %d, stderr %q; want 2 and a too-costly error", code, errs)
	}
}
