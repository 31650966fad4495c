package figures

import (
	"context"
	"testing"

	"github.com/featuredp/featuredp/audit"
)

// The deduplication audit: the accounted claim holds, the naive claim that
// ignores the pre-processing is refuted (fixed seed).
func TestDedupAudit(t *testing.T) {
	r, err := audit.Run(context.Background(), dedupAuditSpec(), audit.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("claimed %.3f, ε_lb %.3f, control (claims %.3f) ε_lb %.3f", r.ClaimedEpsilon, r.EpsilonLB, r.ControlClaimedEpsilon, r.ControlEpsilonLB)
	if r.EpsilonLB > r.ClaimedEpsilon || !r.ControlFlagged {
		t.Errorf("%+v", r)
	}
}

// The PTR, imputation, PCA and quantisation audits (fixed seed).
func TestPTRAndImputeAudits(t *testing.T) {
	for _, s := range []audit.Spec{ptrAuditSpec(), imputeAuditSpec(), pcaAuditSpec(), quantizeAuditSpec()} {
		r, err := audit.Run(context.Background(), s, audit.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: claimed %.3f, ε_lb %.3f, control (claims %.3f) %.3f", s.Name, r.ClaimedEpsilon, r.EpsilonLB, r.ControlClaimedEpsilon, r.ControlEpsilonLB)
		if r.EpsilonLB > r.ClaimedEpsilon || !r.ControlFlagged {
			t.Errorf("%s: %+v", s.Name, r)
		}
	}
}
