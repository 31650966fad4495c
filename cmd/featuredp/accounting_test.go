package main

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

func runAccCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// decodeOne decodes stdout as exactly one JSON object and returns it.
func decodeOne(t *testing.T, s string) map[string]any {
	t.Helper()
	if strings.Count(strings.TrimRight(s, "\n"), "\n") != 0 {
		t.Fatalf("JSON output is not one line: %q", s)
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("not a JSON object: %q: %v", s, err)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value: %q", s)
	}
	return m
}

func relNear(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// R1 through the CLI, in text and JSON, with both conversions.
func TestCLIEpsilonR1(t *testing.T) {
	code, out, errs := runAccCLI("epsilon", "--sample-rate", "0.04", "--noise-multiplier", "1.5", "--steps", "2250", "--delta", "1e-5")
	if code != 0 || errs != "" || !strings.Contains(out, "epsilon 7.3291111714") || !strings.Contains(out, "order 3.9") {
		t.Fatalf("text: code %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, tc := range []struct {
		args  []string
		eps   float64
		rel   float64
		order float64
	}{
		{nil, 7.32911117143, 1e-9, 3.9},
		{[]string{"--conversion", "classic"}, 8.07385, 1e-6, 4.1},
		{[]string{"--orders", "opacus", "--conversion", "improved"}, 7.32911117143, 1e-9, 3.9},
	} {
		args := append([]string{"epsilon", "--sample-rate", "0.04", "--noise-multiplier", "1.5", "--steps", "2250", "--delta", "1e-5", "--json"}, tc.args...)
		code, out, errs := runAccCLI(args...)
		if code != 0 || errs != "" {
			t.Fatalf("%v: code %d stderr %q", tc.args, code, errs)
		}
		m := decodeOne(t, out)
		if len(m) != 2 {
			t.Errorf("JSON keys %v, want exactly epsilon and order", m)
		}
		eps, ok1 := m["epsilon"].(float64)
		order, ok2 := m["order"].(float64)
		if !ok1 || !ok2 || !relNear(eps, tc.eps, tc.rel) || order != tc.order {
			t.Errorf("%v: %q, want epsilon %v order %v", tc.args, out, tc.eps, tc.order)
		}
	}
}

// R3 with the TF Privacy grid, and a user LIST grid.
func TestCLIEpsilonGrids(t *testing.T) {
	code, out, _ := runAccCLI("epsilon", "--sample-rate", "0.0025", "--noise-multiplier", "1.3", "--steps", "6000", "--delta", "1e-5", "--orders", "tfp", "--json")
	m := decodeOne(t, out)
	if code != 0 || !relNear(m["epsilon"].(float64), 0.7242234026109595, 1e-9) || m["order"].(float64) != 19 {
		t.Errorf("R3: %d %q", code, out)
	}
	code, out, _ = runAccCLI("epsilon", "--sample-rate", "0.04", "--noise-multiplier", "1.5", "--steps", "2250", "--delta", "1e-5", "--orders", "3.5,3.9,4.5", "--json")
	m = decodeOne(t, out)
	if code != 0 || !relNear(m["epsilon"].(float64), 7.32911117143, 1e-9) || m["order"].(float64) != 3.9 {
		t.Errorf("LIST grid: %d %q", code, out)
	}
	// Non-finite epsilon (no noise) is null in JSON.
	code, out, _ = runAccCLI("epsilon", "--sample-rate", "0.04", "--noise-multiplier", "0", "--steps", "10", "--delta", "1e-5", "--json")
	if code != 0 || !strings.HasPrefix(out, `{"epsilon":null,`) {
		t.Errorf("z=0: %d %q", code, out)
	}
	// Steps may be written as an integral float.
	code1, out1, _ := runAccCLI("epsilon", "--sample-rate", "0.001", "--noise-multiplier", "1", "--steps", "1e6", "--delta", "1e-5", "--json")
	code2, out2, _ := runAccCLI("epsilon", "--sample-rate", "0.001", "--noise-multiplier", "1", "--steps", "1000000", "--delta", "1e-5", "--json")
	if code1 != 0 || code2 != 0 || out1 != out2 {
		t.Errorf("--steps 1e6: %q vs %q", out1, out2)
	}
}

// Repeated --phase composes: equal to the single phase with the summed steps
// and to the library's composition of heterogeneous phases.
func TestCLIEpsilonPhases(t *testing.T) {
	_, split, _ := runAccCLI("epsilon", "--phase", "0.04,1.5,1000", "--phase", "0.04,1.5,1250", "--delta", "1e-5", "--json")
	_, joint, _ := runAccCLI("epsilon", "--phase", "0.04,1.5,2250", "--delta", "1e-5", "--json")
	ms, mj := decodeOne(t, split), decodeOne(t, joint)
	if !relNear(ms["epsilon"].(float64), mj["epsilon"].(float64), 1e-12) || ms["order"] != mj["order"] {
		t.Errorf("split %q vs joint %q", split, joint)
	}
	if !relNear(mj["epsilon"].(float64), 7.32911117143, 1e-9) {
		t.Errorf("--phase R1: %q", joint)
	}
	phases := []accounting.Phase{{SampleRate: 0.01, NoiseMultiplier: 1.1, Steps: 500}, {SampleRate: 0.05, NoiseMultiplier: 2, Steps: 300}, {SampleRate: 1, NoiseMultiplier: 8, Steps: 3}}
	want, wantOrder, err := accounting.Epsilon(phases, 1e-6, accounting.OrdersTFP(), accounting.ConversionClassic)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errs := runAccCLI("epsilon", "--phase", "0.01,1.1,500", "--phase", "0.05,2,300", "--phase", "1,8,3",
		"--delta", "1e-6", "--orders", "tfp", "--conversion", "classic", "--json")
	m := decodeOne(t, out)
	if code != 0 || errs != "" || m["epsilon"].(float64) != want || m["order"].(float64) != wantOrder {
		t.Errorf("heterogeneous: %q (stderr %q), want %v at %v", out, errs, want, wantOrder)
	}
}

func TestCLISigma(t *testing.T) {
	for _, tc := range []struct {
		steps string
		want  float64
	}{{"2250", 1.416015625}, {"2000", 1.356201171875}} {
		code, out, errs := runAccCLI("sigma", "--epsilon", "8", "--delta", "1e-5", "--sample-rate", "0.04", "--steps", tc.steps, "--json")
		m := decodeOne(t, out)
		if code != 0 || errs != "" || len(m) != 1 || m["noise_multiplier"].(float64) != tc.want {
			t.Errorf("R2 T=%s: %d %q %q", tc.steps, code, out, errs)
		}
	}
	code, out, _ := runAccCLI("sigma", "--epsilon", "8", "--delta", "1e-5", "--sample-rate", "0.04", "--steps", "2250", "--method", "exact", "--json")
	z := decodeOne(t, out)["noise_multiplier"].(float64)
	eps, _, _ := accounting.Epsilon([]accounting.Phase{{SampleRate: 0.04, NoiseMultiplier: z, Steps: 2250}}, 1e-5, nil, accounting.ConversionImproved)
	if code != 0 || !relNear(eps, 8, 1e-9) || z >= 1.416015625 {
		t.Errorf("exact: %d %q (eps %v)", code, out, eps)
	}
	code, out, _ = runAccCLI("sigma", "--epsilon", "8", "--delta", "1e-5", "--sample-rate", "0.04", "--steps", "2250")
	if code != 0 || !strings.Contains(out, "1.416015625") {
		t.Errorf("text: %d %q", code, out)
	}
}

func TestCLIGaussian(t *testing.T) {
	code, out, errs := runAccCLI("gaussian", "--epsilon", "0.5", "--delta", "1e-10", "--sensitivity", "10", "--json")
	m := decodeOne(t, out)
	if code != 0 || errs != "" || len(m) != 1 || math.Abs(m["sigma"].(float64)-114.3624) > 5e-5 {
		t.Errorf("R8: %d %q %q", code, out, errs)
	}
	code, out, _ = runAccCLI("gaussian", "--epsilon", "1", "--delta", "1e-5", "--sensitivity", "1")
	if code != 0 || !strings.Contains(out, "sigma 3.73063") {
		t.Errorf("text: %d %q", code, out)
	}
}

func TestCLIHelp(t *testing.T) {
	for _, cmd := range []string{"epsilon", "sigma", "gaussian"} {
		for _, h := range []string{"-h", "--help"} {
			code, out, errs := runAccCLI(cmd, h)
			if code != 0 || errs != "" || !strings.Contains(out, "usage: featuredp "+cmd) || !strings.Contains(out, "-delta") {
				t.Errorf("%s %s: code %d stdout %q stderr %q", cmd, h, code, out, errs)
			}
		}
	}
}

// Invalid input: exit code 2, nothing on stdout, exactly one line on stderr
// starting "featuredp <cmd>: ".
func TestCLIBadInputs(t *testing.T) {
	r1 := []string{"--sample-rate", "0.04", "--noise-multiplier", "1.5", "--steps", "2250", "--delta", "1e-5"}
	with := func(base []string, extra ...string) []string { return append(append([]string{}, base...), extra...) }
	sig := []string{"--epsilon", "8", "--delta", "1e-5", "--sample-rate", "0.04", "--steps", "2250"}
	gau := []string{"--epsilon", "1", "--delta", "1e-5", "--sensitivity", "1"}
	cases := map[string][][]string{
		"epsilon": {
			{},
			{"--sample-rate", "0.04", "--noise-multiplier", "1.5", "--steps", "2250"}, // no delta
			{"--noise-multiplier", "1.5", "--steps", "2250", "--delta", "1e-5"},       // no sample rate
			with(r1, "--bogus"),
			with(r1, "extra-arg"),
			{"--sample-rate", "abc", "--noise-multiplier", "1.5", "--steps", "2250", "--delta", "1e-5"},
			{"--sample-rate", "0.04", "--noise-multiplier", "1.5", "--steps", "12.5", "--delta", "1e-5"},
			{"--sample-rate", "0.04", "--noise-multiplier", "1.5", "--steps", "-1", "--delta", "1e-5"},
			{"--sample-rate", "NaN", "--noise-multiplier", "1.5", "--steps", "2250", "--delta", "1e-5"},
			{"--sample-rate", "1.5", "--noise-multiplier", "1.5", "--steps", "2250", "--delta", "1e-5"},
			{"--sample-rate", "0.04", "--noise-multiplier", "-1", "--steps", "2250", "--delta", "1e-5"},
			{"--sample-rate", "0.04", "--noise-multiplier", "1.5", "--steps", "2250", "--delta", "0"},
			{"--sample-rate", "0.04", "--noise-multiplier", "1.5", "--steps", "2250", "--delta", "1"},
			{"--sample-rate", "0.04", "--noise-multiplier", "1.5", "--steps", "2250", "--delta", "Inf"},
			with(r1, "--orders", "bogus"),
			with(r1, "--orders", "1,2"),
			with(r1, "--orders", ""),
			with(r1, "--conversion", "tight"),
			with(r1, "--phase", "0.04,1.5,10"), // both forms
			{"--phase", "0.04,1.5", "--delta", "1e-5"},
			{"--phase", "0.04,x,10", "--delta", "1e-5"},
			{"--phase", "2,1,10", "--delta", "1e-5"},
			{"--phase", "0.04,1.5,10"}, // no delta
			{"--delta"},                // flag needs an argument
			append(slices.Repeat([]string{"--phase", "0.04,1.5,10"}, maxPhases+1), "--delta", "1e-5"), // use --ledger
		},
		"sigma": {
			{},
			{"--epsilon", "8", "--delta", "1e-5", "--sample-rate", "0.04"},
			with(sig, "--method", "magic"),
			with(sig, "--orders", "tfp"), // only with --method exact
			with(sig, "--method", "exact", "--orders", "0.5"),
			with(sig, "--method", "exact", "--conversion", "x"),
			{"--epsilon", "-1", "--delta", "1e-5", "--sample-rate", "0.04", "--steps", "2250"},
			{"--epsilon", "0", "--delta", "1e-5", "--sample-rate", "0.04", "--steps", "2250"},
			{"--epsilon", "nan", "--delta", "1e-5", "--sample-rate", "0.04", "--steps", "2250"},
			{"--epsilon", "8", "--delta", "1e-5", "--sample-rate", "0", "--steps", "2250"},
			{"--epsilon", "8", "--delta", "1e-5", "--sample-rate", "0.04", "--steps", "0"},
			{"--epsilon", "0.01", "--delta", "1e-10", "--sample-rate", "0.04", "--steps", "2250"}, // unreachable
			{"--epsilon", "0.01", "--delta", "1e-10", "--sample-rate", "0.04", "--steps", "2250", "--method", "exact"},
		},
		"gaussian": {
			{},
			{"--epsilon", "1", "--delta", "1e-5"},
			with(gau, "--x"),
			{"--epsilon", "1", "--delta", "1e-5", "--sensitivity", "0"},
			{"--epsilon", "1", "--delta", "1e-5", "--sensitivity", "-1"},
			{"--epsilon", "-1", "--delta", "1e-5", "--sensitivity", "1"},
			{"--epsilon", "inf", "--delta", "1e-5", "--sensitivity", "1"},
			{"--epsilon", "1", "--delta", "2", "--sensitivity", "1"},
			{"--epsilon", "1", "--delta", "1e-5", "--sensitivity", "1e"},
		},
	}
	for cmd, list := range cases {
		for _, args := range list {
			code, out, errs := runAccCLI(append([]string{cmd}, args...)...)
			if code != 2 || out != "" || !strings.HasPrefix(errs, "featuredp "+cmd+": ") ||
				!strings.HasSuffix(errs, "\n") || strings.Count(errs, "\n") != 1 {
				t.Errorf("%s %q: code %d, stdout %q, stderr %q", cmd, args, code, out, errs)
			}
		}
	}
}
