package corrdp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/audit"
	"github.com/featuredp/featuredp/mechanisms"
)

// The empirical audits of the CorrDP noise plans (featuredp audit), one per
// feature group: one noisy full-batch gradient step on two coordinates, a
// sensitive one and an insensitive one with TV 0.5, with the CorrDP plan
// σ_i² = σ0²·w_i. The claimed ε is the honest one of Honesty (zCDP,
// replace-one), not the paper-mode budget.

func init() {
	audit.Register(planAuditSpec(-1))
	audit.Register(planAuditSpec(1))
}

const (
	planN, planL   = 100, 1.0
	planSigma0     = 0.1
	planDelta      = 1e-5
	planTV         = 0.5
	planClaimedEps = 1.0 // the paper-mode ε the plan is read against
)

// planAuditSpec audits the change of coordinate coord (−1: the sensitive
// coordinate 0; 1: the insensitive coordinate 1). The control of the
// sensitive group halves σ0; that of the insensitive group is Semi, which
// gives insensitive coordinates no noise, under CorrDP's claim.
func planAuditSpec(coord int) audit.Spec {
	sensitive, tv := []bool{true, false}, []float64{1, planTV}
	sigma := planSigmas(Corr, sensitive, tv, planSigma0)
	sigma2 := []float64{sigma[0] * sigma[0], sigma[1] * sigma[1]}
	rows, err := Honesty(sigma2, sensitive, tv, planL, planN, 1, planClaimedEps, planDelta, accounting.RelationReplaceOne, false)
	if err != nil {
		panic(err)
	}
	target, name, group := 0, "corrdp-plan-sensitive", "sensitive"
	control := planSigmas(Corr, sensitive, tv, planSigma0/4)
	broken := "a quarter of σ0"
	if coord >= 0 {
		target, name, group = coord, "corrdp-plan-insensitive", fmt.Sprintf("insensitive (TV %.1f)", planTV)
		control = planSigmas(Semi, sensitive, tv, planSigma0)
		broken = "the Semi plan (no noise on insensitive coordinates) under CorrDP's claim"
	}
	var claimed float64
	for _, r := range rows {
		if r.Coord == coord {
			claimed = r.Eps
		}
	}
	return audit.Spec{Name: name, Claimed: claimed, Delta: planDelta, Trials: 20000, Real: planTrial(sigma, target), Control: planTrial(control, target),
		Broken:     broken,
		Neighbours: fmt.Sprintf("a %s change moving its coordinate of the mean gradient by 2L/n (replace-one), n = %d", group, planN),
		Statistic:  "the released coordinate"}
}

// planSigmas returns the per-coordinate noise std σ0·√w_i of a plan.
func planSigmas(m Method, sensitive []bool, tv []float64, sigma0 float64) []float64 {
	w, err := NoiseWeights(m, sensitive, tv, false)
	if err != nil {
		panic(err)
	}
	out := make([]float64, len(w))
	for i, v := range w {
		out[i] = sigma0 * math.Sqrt(v)
	}
	return out
}

// planTrial releases the mean gradient (0, 0) or, on D′, the same with
// coordinate target moved by 2L/n, with the plan's noise, and returns the
// target coordinate.
func planTrial(sigma []float64, target int) audit.TrialFunc {
	return func(rng *rand.Rand, present bool) (float64, error) {
		v := make([]float64, len(sigma))
		if present {
			v[target] = 2 * planL / planN
		}
		if err := mechanisms.AddGaussian(rng, v, sigma); err != nil {
			return 0, err
		}
		return v[target], nil
	}
}
