package figures

import (
	"fmt"
	"math"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/audit"
	"github.com/featuredp/featuredp/notions/smoothdp"
)

// The empirical audit of mean imputation before the Gaussian mechanism
// (featuredp audit): one observed value changed moves every imputed value.

func init() { audit.Register(imputeAuditSpec()) }

const (
	impN, impMissing  = 100, 90
	impDelta, impEps  = 1e-5, 1.0
	impR              = 1.0
	impShiftedRecord  = 0
	impShiftedValueTo = 1.0
)

// imputeAuditSpec: 1-D records in [−1, 1], impMissing of them missing and
// mean-imputed (Impute{ImputeMean}), then the sum of the processed dataset
// plus N(0, σ²), σ calibrated for ε = 1 at the raw replace-one sensitivity
// 2R (as if imputation were data-independent). The real claim adds the
// imputation's η = 2Rm/(n − m) (Corollary 4): sensitivity 2R + η. The
// neighbours change one observed value from 0 to 1; the control claims the
// naive ε = 1.
func imputeAuditSpec() audit.Spec {
	p := smoothdp.Impute{Method: smoothdp.ImputeMean, R: impR}
	S := make([][]float64, impN)
	for i := range S {
		S[i] = []float64{0}
		if i >= impN-impMissing {
			S[i] = []float64{math.NaN()}
		}
	}
	S2 := smoothdp.Replace(S, impShiftedRecord, []float64{impShiftedValueTo})
	s0, s1 := imputedSum(p, S), imputedSum(p, S2)
	sigma, err := accounting.AnalyticGaussianSigma(impEps, impDelta, 2*impR)
	if err != nil {
		panic(err)
	}
	claimed, err := accounting.GDPEpsilon((2*impR+smoothdp.EtaMeanImpute(impR, impMissing, impN))/sigma, impDelta)
	if err != nil {
		panic(err)
	}
	trial := gaussianShiftTrial(s0, s1, sigma, false)
	return audit.Spec{Name: "smoothdp-impute", Claimed: claimed, Delta: impDelta, Trials: 20000, Real: trial, Control: trial, ControlClaimed: impEps,
		Broken:     fmt.Sprintf("the naive claim ε = %g that treats mean imputation as data-independent", impEps),
		Neighbours: fmt.Sprintf("one observed value changed (replace one record), %d of %d values missing", impMissing, impN),
		Statistic:  "the released sum of the imputed dataset"}
}

// imputedSum is the sum of the dataset after imputation fitted on it.
func imputedSum(p smoothdp.Impute, S [][]float64) float64 {
	f, err := p.Fit(S)
	if err != nil {
		panic(err)
	}
	s := 0.0
	for _, x := range S {
		y, _ := f.Apply(x)
		s += y[0]
	}
	return s
}
