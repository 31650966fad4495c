package audit

import (
	"context"
	"testing"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/mechanisms"
)

// The DP-SGD audit's claimed ε is the engine's own accounting of the run
// it audits: the Result's phases, under the relation the audit's
// neighbours (add/remove of a canary) test, give the claimed ε. Without
// Config.NormalizeBy the engine divides by q·n of the data's row count and
// states the feature-simulator relation only (a zero row is not a removed
// one), so the audit claimed an add/remove ε the engine did not state.
func TestDPSGDAuditClaimIsTheEngines(t *testing.T) {
	s := dpsgdSpec()
	for _, present := range []bool{false, true} {
		cfg, err := dpsgdConfig(dpsgdCanaries, dpsgdZ, present, 1, make([]float64, dpsgdCanaries), nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := mechanisms.Train(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if res.PhasesRelation != accounting.RelationAddRemove || len(res.Phases) == 0 {
			t.Fatalf("present = %v: the engine states %d phases under %v (note %q), want add/remove, the audit's neighbours",
				present, len(res.Phases), res.PhasesRelation, res.PhasesNote)
		}
		eps, _, err := accounting.Epsilon(res.Phases, s.Delta, accounting.DefaultOrders(), accounting.DefaultConversion)
		if err != nil {
			t.Fatal(err)
		}
		if eps != s.Claimed {
			t.Errorf("present = %v: the engine accounts ε = %v for the audited run, the audit claims %v", present, eps, s.Claimed)
		}
	}
}
