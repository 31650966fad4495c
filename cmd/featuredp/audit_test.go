package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/audit"
)

// `featuredp audit --json` lists every mechanism with the required fields,
// ε_lb ≤ claimed and every control flagged (exit 0).
func TestAuditJSON(t *testing.T) {
	code, out, errs := runReproduceCLI("audit", "--json")
	if code != 0 {
		t.Fatalf("code %d\n%s\n%s", code, out, errs)
	}
	var recs []map[string]any
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, r := range recs {
		for _, k := range []string{"mechanism", "claimed_epsilon", "epsilon_lb", "control_epsilon_lb", "control_flagged"} {
			if _, ok := r[k]; !ok {
				t.Errorf("record without %q: %v", k, r)
			}
		}
		names[r["mechanism"].(string)] = true
		if a, _ := r["adversary"].(string); (r["mechanism"] == "dpsgd-multistep" || r["mechanism"] == "fdp-alg1") && !strings.Contains(a, "white box") {
			t.Errorf("%s: adversary %q, want the white-box attack named", r["mechanism"], a)
		}
		if r["epsilon_lb"].(float64) > r["claimed_epsilon"].(float64) || r["control_flagged"] != true {
			t.Errorf("%v", r)
		}
	}
	for _, want := range []string{"laplace", "gaussian", "dpsgd-multistep", "bcdp-duchi", "bcdp-mechanism1", "fdp-alg1", "smoothdp-dedup", "smoothdp-quantize", "smoothdp-impute", "smoothdp-pca", "smoothdp-ptr", "corrdp-plan-sensitive", "corrdp-plan-insensitive"} {
		if !names[want] {
			t.Errorf("no audit of %s", want)
		}
	}
	if code, _, errs := runReproduceCLI("audit", "--only", "lapalce"); code != 2 || !strings.Contains(errs, "unknown audit") {
		t.Errorf("misspelt --only: %d %s", code, errs)
	}
	if code, _, _ := runReproduceCLI("audit", "--trials", "5"); code != 2 {
		t.Errorf("--trials 5: code %d", code)
	}
}

// A hostile --trials is refused before anything is allocated (10⁹ used to
// reach 7.9 GB in 8 s), with the valid range in the message.
func TestAuditTrialsBound(t *testing.T) {
	for _, n := range []string{"1000000000", "4000001", "-1", "99"} {
		code, _, errs := runReproduceCLI("audit", "--trials", n, "--only", "laplace")
		if code != 2 || !strings.Contains(errs, "--trials "+n) || !strings.Contains(errs, "≤ N ≤ 4000000") {
			t.Errorf("--trials %s: code %d, %q", n, code, errs)
		}
	}
}

// The text output ends with a one-line verdict that names any problem.
func TestAuditVerdict(t *testing.T) {
	good := audit.Record{Mechanism: "a", ClaimedEpsilon: 1, EpsilonLB: 0.5, ControlFlagged: true}
	over := audit.Record{Mechanism: "b", ClaimedEpsilon: 1, EpsilonLB: 1.5, ControlFlagged: true}
	missed := audit.Record{Mechanism: "c", ClaimedEpsilon: 1, EpsilonLB: 0.5}
	for _, tc := range []struct {
		recs []audit.Record
		want string
	}{
		{[]audit.Record{good, good}, "verdict: 2 mechanisms audited, every ε lower bound ≤ its claim, every broken control caught"},
		{[]audit.Record{good, over, missed}, "verdict: 3 mechanisms audited, PROBLEMS: ε lower bound above the claim for b; broken control not caught for c"},
		{[]audit.Record{good, {Mechanism: "d", ClaimedEpsilon: 400, EpsilonLB: 6.3, MaxDetectable: 6.3, ControlFlagged: true, Inconclusive: true}},
			"verdict: 2 mechanisms audited, every ε lower bound ≤ its claim, every broken control caught; inconclusive (claim beyond what these trials resolve, the real mechanism could not be flagged): d"},
	} {
		if got := auditVerdict(tc.recs); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
	var b strings.Builder
	printAudits(&b, []audit.Record{good}, false)
	if !strings.HasSuffix(b.String(), "every broken control caught\n") {
		t.Errorf("text output does not end with the verdict:\n%s", b.String())
	}
}

// The text output says what each attack sees (the spec's adversary, or
// the released output when the spec names none).
func TestAuditAdversaryPrinted(t *testing.T) {
	var b strings.Builder
	printAudits(&b, []audit.Record{{Mechanism: "wb", Adversary: "every θ_t (white box)", ControlFlagged: true}, {Mechanism: "bb", ControlFlagged: true}}, false)
	for _, want := range []string{"what each attack sees:\n", "  wb                       every θ_t (white box)\n", "  bb                       the released output (black box)\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text output without %q:\n%s", want, b.String())
		}
	}
}

// Arguments after the flags, or an audit named twice, are errors (an extra
// argument used to end flag parsing silently and run every audit).
func TestAuditArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"audit", "extra", "--only", "laplace"}, `unexpected argument "extra"`},
		{[]string{"audit", "--only", "laplace,laplace"}, `"laplace" named twice`},
		{[]string{"audit", "--only", "lapalce"}, `unknown audit "lapalce"`},
	} {
		code, _, errs := runReproduceCLI(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: code %d, %q, want %q", tc.args, code, errs, tc.want)
		}
	}
}
