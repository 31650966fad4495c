package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

// writeLedger writes content to a file in a test directory.
func writeLedger(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ledger.json")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCLIEpsilonLedger: the five mechanisms through the CLI, in
// JSON, against the ledger built directly and against the parts' sum
// recomputed from the JSON breakdown.
func TestCLIEpsilonLedger(t *testing.T) {
	p := writeLedger(t, `[
	  {"mechanism": "laplace", "epsilon": 0.5},
	  {"mechanism": "gaussian", "sigma": 2, "sensitivity": 1},
	  {"mechanism": "subsampled_gaussian", "q": 0.02, "z": 1.0, "steps": 500},
	  {"mechanism": "zcdp", "rho": 0.1},
	  {"mechanism": "rdp", "orders": [2, 4, 8, 16, 32], "values": [0.02, 0.04, 0.08, 0.16, 0.32]}
	]`)
	code, out, errs := runAccCLI("epsilon", "--ledger", p, "--delta", "1e-5", "--json", "--conversion", "classic")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	m := decodeOne(t, out)
	eps, _ := m["epsilon"].(float64)
	order, _ := m["order"].(float64)
	entries, _ := m["entries"].([]any)
	if m["delta"] != 1e-5 || m["route"] != "rdp" || len(entries) != 5 {
		t.Fatalf("report %v", m)
	}
	sum := 0.0
	for _, e := range entries {
		sum += e.(map[string]any)["value"].(float64)
	}
	if want := sum + math.Log(1e5)/(order-1); !relNear(eps, want, 1e-12) {
		t.Errorf("ε %v, breakdown + classic term at order %v gives %v", eps, order, want)
	}
	ar := accounting.RelationAddRemove
	L, _ := accounting.NewLedger(ar, nil)
	for _, l := range []accounting.Loss{
		must(accounting.PureLoss(0.5, ar)), must(accounting.GaussianLoss(2, 1, ar)),
		must(accounting.SubsampledGaussianLoss(accounting.Phase{SampleRate: 0.02, NoiseMultiplier: 1, Steps: 500})),
		must(accounting.ZCDPLoss(0.1, ar)), must(accounting.RDPLoss([]float64{2, 4, 8, 16, 32}, []float64{0.02, 0.04, 0.08, 0.16, 0.32}, ar)),
	} {
		if err := L.Add(l); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := L.Epsilon(1e-5, accounting.ConversionClassic)
	if err != nil || rep.Epsilon != eps {
		t.Errorf("CLI ε %v, library %v (%v)", eps, rep.Epsilon, err)
	}
	code, out, _ = runAccCLI("epsilon", "--ledger", p, "--delta", "1e-5")
	if code != 0 || !strings.Contains(out, "rdp route") || !strings.Contains(out, "entry 4:") {
		t.Errorf("text output: %q", out)
	}
}

func must(l accounting.Loss, err error) accounting.Loss {
	if err != nil {
		panic(err)
	}
	return l
}

// TestCLIEpsilonLedgerPure: a pure-only ledger reports Σε at δ = 0.
func TestCLIEpsilonLedgerPure(t *testing.T) {
	p := writeLedger(t, `[{"mechanism": "laplace", "epsilon": 0.75}, {"mechanism": "pure", "epsilon": 0.25}]`)
	code, out, errs := runAccCLI("epsilon", "--ledger", p, "--delta", "1e-5", "--json")
	m := decodeOne(t, out)
	if code != 0 || m["epsilon"] != 1.0 || m["delta"] != 0.0 || m["route"] != "pure" {
		t.Errorf("exit %d %s: %v", code, errs, m)
	}
}

// The text report's first line: the entry count in words, and no RDP
// order when every order's ε is infinite.
func TestCLIEpsilonLedgerHeadline(t *testing.T) {
	for _, tc := range []struct{ ledger, want string }{
		{`[{"mechanism": "gaussian", "sigma": 1e-300, "sensitivity": 1}]`,
			"epsilon +Inf at delta 1e-05 (rdp route, no order finite, improved conversion; relation add-remove; 1 entry)"},
		{`[{"mechanism": "laplace", "epsilon": 0.5}, {"mechanism": "gaussian", "sigma": 2, "sensitivity": 1}]`,
			"at delta 1e-05 (rdp route, order "},
		{`[{"mechanism": "gaussian", "sigma": 2, "sensitivity": 1}, {"mechanism": "gaussian", "sigma": 2, "sensitivity": 1}]`,
			"; relation add-remove; 2 entries)"},
	} {
		code, out, errs := runAccCLI("epsilon", "--ledger", writeLedger(t, tc.ledger), "--delta", "1e-5")
		if first, _, _ := strings.Cut(out, "\n"); code != 0 || !strings.Contains(first, tc.want) {
			t.Errorf("exit %d %s: first line %q, want %q in it", code, errs, first, tc.want)
		}
	}
}

// An infinite ε has no RDP order: null in JSON, "no order finite" in
// text, for phases and ledgers alike.
func TestCLIEpsilonInfiniteHasNoOrder(t *testing.T) {
	tiny := writeLedger(t, `[{"mechanism": "gaussian", "sigma": 1e-300, "sensitivity": 1}]`)
	phase := []string{"epsilon", "--sample-rate", "1", "--noise-multiplier", "1e-300", "--steps", "1", "--delta", "1e-5"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(phase, "--json"), `{"epsilon":null,"order":null}`},
		{phase, "epsilon +Inf, no order finite (delta 1e-05"},
		{[]string{"epsilon", "--ledger", tiny, "--delta", "1e-5", "--json"}, `"route":"rdp","order":null`},
		{[]string{"epsilon", "--ledger", tiny, "--delta", "1e-5", "--json"}, `{"route":"rdp","valid":true,"epsilon":null,"delta":1e-05,"order":null}`},
	} {
		code, out, errs := runAccCLI(tc.args...)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d %s: %q, want %q in it", tc.args, code, errs, out, tc.want)
		}
	}
}

// TestCLIEpsilonLedgerErrors: every bad ledger exits 2 with a message
// naming the entry and the field.
func TestCLIEpsilonLedgerErrors(t *testing.T) {
	tests := []struct{ name, content, want string }{
		{"unknown mechanism", `[{"mechanism": "laplce", "epsilon": 1}]`, `entry 0: unknown mechanism "laplce"`},
		{"misspelt field", `[{"mechanism": "laplace", "epsilon": 1}, {"mechanism": "gaussian", "sigam": 2, "sensitivity": 1}]`, `entry 1 (gaussian): unknown field "sigam" (did you mean "sigma"?)`},
		{"missing field", `[{"mechanism": "gaussian", "sigma": 2}]`, `entry 0 (gaussian): missing field "sensitivity"`},
		{"string number", `[{"mechanism": "zcdp", "rho": "0.1"}]`, `entry 0 (zcdp): field "rho" must be a number`},
		{"negative", `[{"mechanism": "laplace", "epsilon": -1}]`, `entry 0 (laplace): epsilon -1`},
		{"mixed relations", `[{"mechanism": "laplace", "epsilon": 1}, {"mechanism": "zcdp", "rho": 1, "relation": "replace-one"}]`, `entry 1 (zcdp ρ=1 (replace-one)): relation replace-one differs from entry 0's add-remove`},
		{"bad relation", `[{"mechanism": "laplace", "epsilon": 1, "relation": "neighbours"}]`, `entry 0 (laplace): "relation": unknown relation "neighbours"`},
		{"under-reporting change", `[{"mechanism": "laplace", "epsilon": 1, "relation": "replace-one", "change_to": "add-remove"}]`, `entry 0 (laplace): "change_to": no valid change`},
		{"fractional steps", `[{"mechanism": "subsampled_gaussian", "q": 0.1, "z": 1, "steps": 1.5}]`, `field "steps" must be a non-negative integer`},
		{"phase not add-remove", `[{"mechanism": "subsampled_gaussian", "q": 0.1, "z": 1, "steps": 10, "relation": "label"}]`, `"relation" must be add-remove`},
		{"repeated key", `[{"mechanism": "laplace", "epsilon": 1, "epsilon": 2}]`, `entry 0: field "epsilon" is given twice`},
		{"empty", `[]`, "lists no mechanisms"},
		{"not an array", `{"mechanism": "laplace"}`, "not a JSON array"},
		{"not an object", `[1]`, "entry 0: not a JSON object"},
		{"no mechanism", `[{"epsilon": 1}]`, `entry 0: missing "mechanism"`},
		{"trailing data", `[{"mechanism": "laplace", "epsilon": 1}] []`, "data after the JSON array"},
		{"rdp lengths", `[{"mechanism": "rdp", "orders": [2, 3], "values": [1]}]`, `entry 0 (rdp): fields "orders" and "values"`},
		{"rdp order 1", `[{"mechanism": "rdp", "orders": [1], "values": [1]}]`, `entry 0 (rdp): RDP order 1`},
		{"approx δ above the target", `[{"mechanism": "approx", "epsilon": 1, "delta": 0.001}]`, "spend δ = 0.001"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeLedger(t, tc.content)
			code, out, errs := runAccCLI("epsilon", "--ledger", p, "--delta", "1e-5")
			if code != 2 || out != "" || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errs, tc.want)
			}
		})
	}
}

// TestCLIEpsilonLedgerNull: a JSON null in entry 1 (after a valid entry
// 0) is refused wherever a value is required, naming the field (json.Unmarshal would leave a number at 0: a
// DP-SGD run of "q": null added ε = 0), as is a missing field; an entry of
// every mechanism and every optional field is covered.
func TestCLIEpsilonLedgerNull(t *testing.T) {
	const nullMsg = "must be a number, got null"
	tests := []struct{ name, entry, want string }{
		{"q", `{"mechanism":"subsampled_gaussian","q":null,"z":1,"steps":1000}`, `entry 1 (subsampled_gaussian): field "q" ` + nullMsg},
		{"z", `{"mechanism":"subsampled_gaussian","q":0.01,"z":null,"steps":1000}`, `field "z" ` + nullMsg},
		{"steps", `{"mechanism":"subsampled_gaussian","q":0.01,"z":1,"steps":null}`, `field "steps" ` + nullMsg},
		{"laplace epsilon", `{"mechanism":"laplace","epsilon":null}`, `entry 1 (laplace): field "epsilon" ` + nullMsg},
		{"pure epsilon", `{"mechanism":"pure","epsilon":null}`, `entry 1 (pure): field "epsilon" ` + nullMsg},
		{"approx delta", `{"mechanism":"approx","epsilon":1,"delta":null}`, `entry 1 (approx): field "delta" ` + nullMsg},
		{"gaussian sigma", `{"mechanism":"gaussian","sigma":null,"sensitivity":1}`, `field "sigma" ` + nullMsg},
		{"gaussian sensitivity", `{"mechanism":"gaussian","sigma":1,"sensitivity":null}`, `field "sensitivity" ` + nullMsg},
		{"rho", `{"mechanism":"zcdp","rho":null}`, `entry 1 (zcdp): field "rho" ` + nullMsg},
		{"mu", `{"mechanism":"gdp","mu":null}`, `entry 1 (gdp): field "mu" ` + nullMsg},
		{"rdp values element", `{"mechanism":"rdp","orders":[2,3],"values":[null,null]}`, `entry 1 (rdp): field "values[0]" ` + nullMsg},
		{"rdp orders element", `{"mechanism":"rdp","orders":[2,null],"values":[1,1]}`, `field "orders[1]" ` + nullMsg},
		{"rdp values", `{"mechanism":"rdp","orders":[2,3],"values":null}`, `field "values" must be an array of numbers, got null`},
		{"mechanism", `{"mechanism":null,"epsilon":1}`, `entry 1: field "mechanism" must be a string, got null`},
		{"relation", `{"mechanism":"laplace","epsilon":1,"relation":null}`, `field "relation" must be a string, got null`},
		{"change_to", `{"mechanism":"laplace","epsilon":1,"change_to":null}`, `field "change_to" must be a string, got null`},
		{"name", `{"mechanism":"laplace","epsilon":1,"name":null}`, `field "name" must be a string, got null`},
		{"missing q", `{"mechanism":"subsampled_gaussian","z":1,"steps":1000}`, `missing field "q"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeLedger(t, `[{"mechanism":"gaussian","sigma":1,"sensitivity":1}, `+tc.entry+`]`)
			code, out, errs := runAccCLI("epsilon", "--ledger", p, "--delta", "1e-5")
			if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errs, tc.want)
			}
		})
	}
}

// TestCLIEpsilonLedgerBounds: the file size, entry and order caps, and
// the flags that cannot go with --ledger.
func TestCLIEpsilonLedgerBounds(t *testing.T) {
	many := "[" + strings.Repeat(`{"mechanism":"pure","epsilon":0},`, maxLedgerEntries) + `{"mechanism":"pure","epsilon":0}]`
	orders := make([]string, maxEntryOrders+1)
	for i := range orders {
		orders[i] = fmt.Sprint(i + 2)
	}
	list := strings.Join(orders, ",")
	tests := []struct{ name, content, want string }{
		{"entries", many, fmt.Sprintf("at most %d", maxLedgerEntries)},
		{"orders", `[{"mechanism":"rdp","orders":[` + list + `],"values":[` + list + `]}]`, fmt.Sprintf("at most %d", maxEntryOrders)},
		{"size", "[" + strings.Repeat(" ", maxLedgerBytes) + "]", "larger than"},
	}
	for _, tc := range tests {
		p := writeLedger(t, tc.content)
		if code, _, errs := runAccCLI("epsilon", "--ledger", p, "--delta", "1e-5"); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, %q", tc.name, code, errs)
		}
	}
	p := writeLedger(t, `[{"mechanism":"pure","epsilon":1}]`)
	for _, args := range [][]string{
		{"--phase", "0.1,1,10", "--delta", "1e-5"},
		{"--sample-rate", "0.1", "--delta", "1e-5"},
		{},
	} {
		if code, _, errs := runAccCLI(append([]string{"epsilon", "--ledger", p}, args...)...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
	if code, _, errs := runAccCLI("epsilon", "--ledger", filepath.Join(t.TempDir(), "none.json"), "--delta", "1e-5"); code != 2 || !strings.Contains(errs, "--ledger") {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
}

// FuzzParseLedger: any file content either is refused with an error naming
// "--ledger" or gives at most maxLedgerEntries losses of one relation whose
// composition is an error or an ε that is not NaN and not negative; never a
// panic.
func FuzzParseLedger(f *testing.F) {
	f.Add([]byte(`[{"mechanism": "laplace", "epsilon": 0.5}, {"mechanism": "gaussian", "sigma": 2, "sensitivity": 1}]`))
	f.Add([]byte(`[{"mechanism": "subsampled_gaussian", "q": 0.02, "z": 1.0, "steps": 500}, {"mechanism": "zcdp", "rho": 0.1}]`))
	f.Add([]byte(`[{"mechanism": "rdp", "orders": [2, 4], "values": [0.1, 0.3], "relation": "replace-one", "change_to": "label"}]`))
	f.Add([]byte(`[{"mechanism": "approx", "epsilon": 1, "delta": 1e-7, "change_to": "replace-one", "name": "x"}]`))
	f.Add([]byte(`[{"mechanism": "gdp", "mu": 1, "relation": "feature-simulator", "change_to": "feature"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		losses, err := parseLedger(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--ledger") {
				t.Fatalf("error without context: %v", err)
			}
			return
		}
		if len(losses) == 0 || len(losses) > maxLedgerEntries {
			t.Fatalf("%d losses", len(losses))
		}
		L, err := accounting.NewLedger(losses[0].Relation(), []float64{1.5, 2, 4, 8, 16, 32, 64})
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range losses {
			if err := L.Add(l); err != nil {
				t.Fatalf("entry %d (%v) parsed but refused: %v", i, l, err)
			}
		}
		rep, err := L.Epsilon(1e-6, accounting.ConversionImproved)
		if err == nil && (math.IsNaN(rep.Epsilon) || rep.Epsilon < 0 || rep.Delta > 1e-6) {
			t.Fatalf("ε %v δ %v", rep.Epsilon, rep.Delta)
		}
	})
}
