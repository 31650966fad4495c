package bcdp

import (
	"fmt"
	"math/rand/v2"

	"github.com/featuredp/featuredp/audit"
)

// The empirical audits of the BCDP mechanisms (featuredp audit): the Duchi
// channel (α-LDP) and Mechanism 1 per coordinate (c-CDP: changing
// coordinate i alone costs c_i).

func init() {
	audit.Register(duchiAuditSpec())
	audit.Register(mechanism1AuditSpec())
}

// duchiAuditSpec audits the Duchi channel on one coordinate, inputs −1
// and +1, statistic the released value.
func duchiAuditSpec() audit.Spec {
	const alpha = 1.0
	run := func(a float64) audit.TrialFunc {
		ch, err := NewDuchi(1, 1, a, false)
		if err != nil {
			panic(err)
		}
		return func(rng *rand.Rand, present bool) (float64, error) {
			v := []float64{-1}
			if present {
				v[0] = 1
			}
			z, err := ch.Sample(rng, v, nil)
			if err != nil {
				return 0, err
			}
			return z[0], nil
		}
	}
	return audit.Spec{Name: "bcdp-duchi", Claimed: alpha, Real: run(alpha), Control: run(3 * alpha),
		Broken: "the channel run at 3α", Neighbours: "input −1 vs +1 (α-LDP, any two inputs)", Statistic: "the released value"}
}

// mechanism1AuditSpec audits Mechanism 1 with levels c = (0.5, 1, 2) on
// its most sensitive coordinate: records (−1, 1, 1) vs (+1, 1, 1), the
// statistic the exact log-likelihood ratio of the release.
func mechanism1AuditSpec() audit.Spec {
	c := []float64{0.5, 1, 2}
	run := func(levels []float64) audit.TrialFunc {
		m, err := NewMean(levels, MeanOptions{})
		if err != nil {
			panic(err)
		}
		return func(rng *rand.Rand, present bool) (float64, error) {
			x0, x1 := []float64{-1, 1, 1}, []float64{1, 1, 1}
			x := x0
			if present {
				x = x1
			}
			y, err := m.Release(rng, x)
			if err != nil {
				return 0, err
			}
			l1, err := m.SignLogLikelihood(y, x1)
			if err != nil {
				return 0, err
			}
			l0, err := m.SignLogLikelihood(y, x0)
			return l1 - l0, err
		}
	}
	return audit.Spec{Name: "bcdp-mechanism1", Claimed: c[0], Real: run(c), Control: run([]float64{3 * c[0], 3 * c[1], 3 * c[2]}),
		Broken:     "every level ×3 under the same claim",
		Neighbours: fmt.Sprintf("coordinate 1 of a ±1 record changed alone, levels c = %v (c_1-CDP)", c),
		Statistic:  "the exact log-likelihood ratio of the release"}
}
