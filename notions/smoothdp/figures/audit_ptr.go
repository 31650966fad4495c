package figures

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/audit"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
	"github.com/featuredp/featuredp/notions/smoothdp"
)

// The empirical audit of PTR (Algorithm 1 of the smooth-RDP work): two
// neighbouring datasets whose distance-to-instability proxies γ_S straddle
// the test's threshold, the statistic whether PTR released a model (did
// not refuse). The claimed ε is the whole algorithm's (ε₀ + ε', PTREpsilon);
// the control runs the test without its Laplace noise under the same claim.

func init() { audit.Register(ptrAuditSpec()) }

const (
	auditPTRN, auditPTRD          = 400, 6
	auditPTREps0, auditPTRDelta   = 1.0, 1e-5
	auditPTRSigma, auditPTRSteps  = 20.0, 1
	auditPTRRadius, auditPTRLRate = 1.0, 0.1
)

// ptrAuditSpec builds S (low-rank data), ĝ so that γ_S = ⌈threshold⌉ just
// above an integer step, and S′ = S with one record replaced by 0, whose
// smaller eigengap gives γ_S′ = γ_S − 1.
func ptrAuditSpec() audit.Spec {
	S, S2, ghat := auditPTRNeighbours()
	model, err := models.NewLogistic(auditPTRD, false, 0)
	if err != nil {
		panic(err)
	}
	_, claimed, err := smoothdp.PTREpsilon(auditPTRN, auditPTRSteps, auditPTRSigma, auditPTRRadius, auditPTRRadius*auditPTRRadius/4, auditPTRRadius, ghat, auditPTREps0, auditPTRDelta)
	if err != nil {
		panic(err)
	}
	real := func(rng *rand.Rand, present bool) (float64, error) {
		d := S2
		if present {
			d = S
		}
		res, err := smoothdp.PTR(context.Background(), smoothdp.PTRConfig{Model: model, Data: d, Rank: 1, GHat: ghat, Eps0: auditPTREps0, Delta: auditPTRDelta, R: auditPTRRadius,
			GD: smoothdp.GD{Sigma: auditPTRSigma, Steps: auditPTRSteps, LR: auditPTRLRate, Radius: 1, Streams: mechanisms.NewStreams(rng.Uint64())}})
		if err != nil {
			return 0, err
		}
		return boolStat(!res.Refused), nil
	}
	control := func(_ *rand.Rand, present bool) (float64, error) {
		d := S2
		if present {
			d = S
		}
		g, err := auditPTRGamma(d, ghat)
		return boolStat(float64(g) > smoothdp.PTRThreshold(auditPTREps0, auditPTRDelta)), err
	}
	return audit.Spec{Name: "smoothdp-ptr", Claimed: claimed, Delta: auditPTRDelta, Trials: 4000, Real: real, Control: control,
		Broken:     "the test without its Laplace noise",
		Neighbours: fmt.Sprintf("replace one record (by 0) of a low-rank dataset, n = %d, d = %d, rank 1, ε₀ = %g", auditPTRN, auditPTRD, auditPTREps0),
		Statistic:  "whether PTR released a model"}
}

func boolStat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// auditPTRGamma is γ_S of a dataset at rank 1.
func auditPTRGamma(d *design.Data, ghat float64) (int, error) {
	gap, err := smoothdp.Eigengap(auditRows(d), 1)
	if err != nil {
		return 0, err
	}
	return smoothdp.PTRGamma(d.N, gap, ghat, auditPTRRadius)
}

// auditRows returns the feature rows of d.
func auditRows(d *design.Data) [][]float64 {
	out := make([][]float64, d.N)
	for i := range out {
		out[i] = append([]float64(nil), d.Row(i)...)
	}
	return out
}

// auditPTRNeighbours returns S, S′ and ĝ with γ_S = ⌈threshold⌉ and γ_S′ one
// less (it panics if the construction fails: a programming error).
func auditPTRNeighbours() (S, S2 *design.Data, ghat float64) {
	rng := rand.New(rand.NewPCG(41, 42))
	X, _, err := LowRank(rng, auditPTRN, auditPTRD, []float64{0.9}, 0.05, auditPTRRadius)
	if err != nil {
		panic(err)
	}
	X2 := smoothdp.Replace(X, 0, make([]float64, auditPTRD))
	target := math.Ceil(smoothdp.PTRThreshold(auditPTREps0, auditPTRDelta))
	gap, _ := smoothdp.Eigengap(X, 1)
	ghat = gap - (target+1e-6)*12*auditPTRRadius*auditPTRRadius/auditPTRN
	S, S2 = auditPTRData(X), auditPTRData(X2)
	g1, _ := auditPTRGamma(S, ghat)
	g2, _ := auditPTRGamma(S2, ghat)
	if float64(g1) != target || g2 != g1-1 {
		panic(fmt.Sprintf("smoothdp: PTR audit neighbours give γ = %d and %d, want %v and one less", g1, g2, target))
	}
	return S, S2, ghat
}

// auditPTRData attaches alternating 0/1 labels to the rows.
func auditPTRData(X [][]float64) *design.Data {
	x := make([]float64, 0, len(X)*auditPTRD)
	y := make([]float64, len(X))
	for i, r := range X {
		x = append(x, r...)
		y[i] = float64(i % 2)
	}
	d, err := design.NewData(x, y, len(X), auditPTRD)
	if err != nil {
		panic(err)
	}
	return d
}
