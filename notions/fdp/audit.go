package fdp

import (
	"context"
	"math/rand/v2"

	"github.com/featuredp/featuredp/audit"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
)

// The empirical audit of Algorithm 1 (featuredp audit): feature-DP
// neighbours differ in the PROTECTED attribute of one record, everything
// public being equal.

func init() { audit.Register(alg1AuditSpec()) }

const (
	alg1N, alg1T   = 50, 100
	alg1Q, alg1Z   = 0.1, 2.0
	alg1Delta      = 1e-5
	alg1CanaryY    = -1e6 // so large that the canary's private term is always clipped
	alg1PublicBase = 0.0
)

// alg1AuditSpec: data with two features (public p, protected s), all rows
// zero except the canary, whose protected attribute is 0 in D and 1 in D′
// (public part and label equal); Ψ zeroes the protected feature. The
// statistic is −θ_T along the protected coordinate. The control breaks Ψ:
// its "public" view keeps the protected attribute, so the un-noised public
// gradient carries it, while the accountant claims the same ε.
func alg1AuditSpec() audit.Spec {
	eps, _, err := Alg1Epsilon(alg1Q, alg1Z, alg1T, alg1Delta)
	if err != nil {
		panic(err)
	}
	return audit.Spec{Name: "fdp-alg1", Claimed: eps, Delta: alg1Delta, Trials: 2000,
		Real: alg1Trial(false), Control: alg1Trial(true),
		Broken:     "the public view Ψ keeps the protected attribute (its gradient enters without noise)",
		Neighbours: "the protected attribute of one record changed, public attributes and label equal (feature DP), Poisson q = 0.1, z = 2, T = 100",
		Statistic:  "−θ_T along the protected attribute"}
}

// alg1Trial trains Algorithm 1 on the canary data; leakPsi breaks Ψ.
func alg1Trial(leakPsi bool) audit.TrialFunc {
	return func(rng *rand.Rand, present bool) (float64, error) {
		x := make([]float64, 2*alg1N)
		y := make([]float64, alg1N)
		y[0] = alg1CanaryY
		if present {
			x[1] = 1 // the canary's protected attribute
		}
		psi := append([]float64(nil), x...)
		if !leakPsi {
			psi[1] = 0
		}
		data, err := design.NewData(x, y, alg1N, 2)
		if err != nil {
			return 0, err
		}
		pub, err := design.NewData(psi, y, alg1N, 2)
		if err != nil {
			return 0, err
		}
		model, err := models.NewLinear(2, false, 0)
		if err != nil {
			return 0, err
		}
		res, err := Train(context.Background(), Alg1, Setup{Model: model, Data: data, PubData: pub, Rate: alg1Q,
			Multiplier: alg1Z, Clip: 1, Steps: alg1T, Alpha: 1, Optimizer: mechanisms.SGD{LR: 1},
			Streams: mechanisms.NewStreams(rng.Uint64())})
		if err != nil {
			return 0, err
		}
		return -res.Theta[1], nil
	}
}
