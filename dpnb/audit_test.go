package dpnb

import (
	"context"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/audit"
)

// TestAuditInconclusive: an audit whose claim is at or beyond what its
// trials can resolve (audit.Record.Inconclusive: no ε_lb could exceed the
// claim, e.g. the smoothdp pre-processing audits, claims 14–6204 against at
// most 7.9) must not read "ok": featuredp audit marks it inconclusive, and
// the notebook view (notebook 00) must say the same, in Markdown and Table.
func TestAuditInconclusive(t *testing.T) {
	r := &AuditResult{Records: []audit.Record{
		{Mechanism: "resolved", ClaimedEpsilon: 1, EpsilonLB: 0.8, MaxDetectable: 7.9, ControlClaimedEpsilon: 1, ControlEpsilonLB: 3, ControlFlagged: true},
		{Mechanism: "beyond", ClaimedEpsilon: 14, EpsilonLB: 7.5, MaxDetectable: 7.9, ControlClaimedEpsilon: 1, ControlEpsilonLB: 3, ControlFlagged: true, Inconclusive: true},
	}}
	md := r.Markdown()
	for _, line := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(line, "| resolved |") && !strings.HasSuffix(line, "| ok |"):
			t.Errorf("a resolved audit is not ok: %s", line)
		case strings.HasPrefix(line, "| beyond |") && (strings.HasSuffix(line, "| ok |") || !strings.Contains(line, "inconclusive")):
			t.Errorf("an audit beyond its trials' reach reads: %s", line)
		}
	}
	if !strings.Contains(md, "7.9") {
		t.Errorf("the markdown does not give the largest ε_lb the trials can show:\n%s", md)
	}
	tab := r.Table()
	if c := tab.Col("inconclusive"); c.Err != nil || c.Elem(1).String() != "true" || c.Elem(0).String() != "false" {
		t.Errorf("the table has no inconclusive column: %v\n%v", c.Err, tab)
	}
	if c := tab.Col("max_detectable_epsilon"); c.Err != nil || c.Elem(1).Float() != 7.9 {
		t.Errorf("the table has no max_detectable_epsilon column: %v", c.Err)
	}
}

// TestAuditAdversary: the audit table says what each attack sees, as
// featuredp audit does (the old Markdown and Table did not): the record's
// Adversary (white box for DP-SGD), else the released output in black box;
// a pipe or line break in it cannot break the Markdown list. A real run of
// the Laplace audit carries its spec's adversary through.
func TestAuditAdversary(t *testing.T) {
	white := "every intermediate θ_t (white box), within DP-SGD's threat model"
	cases := []struct {
		rec       audit.Record
		md, table string
	}{
		{audit.Record{Mechanism: "dpsgd", Adversary: white}, white, white},
		{audit.Record{Mechanism: "bare"}, "the released output (black box)", "the released output (black box)"},
		{audit.Record{Mechanism: "odd", Adversary: "a | b\nc"}, `a \| b c`, "a | b\nc"},
	}
	r := &AuditResult{}
	for _, c := range cases {
		r.Records = append(r.Records, c.rec)
	}
	md := r.Markdown()
	if !strings.Contains(md, "What each attack sees") {
		t.Errorf("the markdown does not introduce the list:\n%s", md)
	}
	col := r.Table().Col("adversary")
	if col.Err != nil {
		t.Fatalf("the table has no adversary column: %v", col.Err)
	}
	for i, c := range cases {
		if line := "- " + c.rec.Mechanism + ": " + c.md + "\n"; !strings.Contains(md, line) {
			t.Errorf("the markdown lacks the line %q:\n%s", line, md)
		}
		if got := col.Elem(i).String(); got != c.table {
			t.Errorf("table row %d (%s): adversary %q, want %q", i, c.rec.Mechanism, got, c.table)
		}
	}

	run, err := Audit(context.Background(), AuditOptions{Only: []string{"laplace"}, Options: audit.Options{Trials: audit.MinTrials, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, s := range audit.All() {
		if s.Name == "laplace" {
			want = s.Adversary
		}
	}
	if want == "" || !strings.Contains(run.Markdown(), "- laplace: "+want+"\n") || run.Table().Col("adversary").Elem(0).String() != want {
		t.Errorf("the Laplace audit does not show its spec's adversary %q:\n%s", want, run.Markdown())
	}
}
