package figures

import (
	"fmt"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/audit"
	"github.com/featuredp/featuredp/notions/smoothdp"
)

// The empirical audit of PCA rank reduction before the Gaussian mechanism
// (featuredp audit): near a tie of the top eigenvalues, one replaced record
// turns the principal direction, and every record's projection moves.

func init() { audit.Register(pcaAuditSpec()) }

const (
	pcaN, pcaR       = 100, 1.0
	pcaDelta, pcaEps = 1e-5, 1.0
)

// pcaAuditSpec: 2-D records, half on the x axis at ±0.5 and half on the y
// axis at ±0.495, projected on their top principal direction (PCA rank 1),
// then the released sum of the squared first coordinates plus N(0, σ²), σ
// calibrated for ε = 1 at the naive replace-one sensitivity R² (one record's
// own term). The neighbour moves one x-axis record to (0, 0.5), which turns
// the principal direction from x to y. The statistic lies in [0, nR²], so
// the real claim is the Gaussian's ε at sensitivity nR² (valid for any
// pre-processing); the control claims the naive ε = 1.
func pcaAuditSpec() audit.Spec {
	p := smoothdp.PCA{Rank: 1, R: pcaR}
	S := make([][]float64, pcaN)
	for i := range S {
		sign := float64(1 - 2*(i%2))
		if i < pcaN/2 {
			S[i] = []float64{0.5 * sign, 0}
		} else {
			S[i] = []float64{0, 0.495 * sign}
		}
	}
	S2 := smoothdp.Replace(S, 0, []float64{0, 0.5})
	s0, s1 := pcaStat(p, S), pcaStat(p, S2)
	sigma, err := accounting.AnalyticGaussianSigma(pcaEps, pcaDelta, pcaR*pcaR)
	if err != nil {
		panic(err)
	}
	claimed, err := accounting.GDPEpsilon(float64(pcaN)*pcaR*pcaR/sigma, pcaDelta)
	if err != nil {
		panic(err)
	}
	trial := gaussianShiftTrial(s0, s1, sigma, true)
	return audit.Spec{Name: "smoothdp-pca", Claimed: claimed, Delta: pcaDelta, Trials: 20000, Real: trial, Control: trial, ControlClaimed: pcaEps,
		Broken:     fmt.Sprintf("the naive claim ε = %g that treats the projection as data-independent", pcaEps),
		Neighbours: fmt.Sprintf("one record replaced near a tie of the top eigenvalues, n = %d, d = 2, rank 1", pcaN),
		Statistic:  "the released sum of squared first coordinates after projection"}
}

// pcaStat is Σ_i (π_S(x_i))_1² with PCA fitted on S.
func pcaStat(p smoothdp.PCA, S [][]float64) float64 {
	f, err := p.Fit(S)
	if err != nil {
		panic(err)
	}
	s := 0.0
	for _, x := range S {
		y, _ := f.Apply(x)
		s += y[0] * y[0]
	}
	return s
}
