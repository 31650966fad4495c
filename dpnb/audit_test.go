package dpnb

import (
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
