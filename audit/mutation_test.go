package audit

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDPSGDCanaryStatisticScale checks the white-box statistic of the
// dpsgd-multistep audit against an independent computation. With (almost) no
// noise in the run, a canary's scaled update −Δθ·qm/(C·LR) is exactly 1 on
// the steps that sample it and 0 otherwise, so its statistic is
// K·LLR(1) + (T − K)·LLR(0) for an integer K ~ Binomial(T, q), and
// T·LLR(0) without the canary. A wrong scale (e.g. m/(C·LR), off by 1/q) puts
// the LLR at the wrong point and the audit tests a different statistic than
// the one it names. The mean of K/T over 100 canaries × 100 steps has
// standard deviation √(q(1 − q)/10⁴) = 0.003; the 0.02 tolerance is 6.7 of
// them (false failure < 1e-10 for the fixed seed's draw).
func TestDPSGDCanaryStatisticScale(t *testing.T) {
	const zRun = 1e-9
	l1 := SubsampledGaussianLLR(1, dpsgdQ, dpsgdZ)
	l0 := SubsampledGaussianLLR(0, dpsgdQ, dpsgdZ)
	for _, present := range []bool{false, true} {
		out := make([]float64, dpsgdCanaries)
		rng := rand.New(rand.NewPCG(7, 11))
		if err := dpsgdRun(zRun)(rng, present, out); err != nil {
			t.Fatal(err)
		}
		var sumK float64
		for j, s := range out {
			k := (s - dpsgdT*l0) / (l1 - l0)
			if math.Abs(k-math.Round(k)) > 1e-4 || k < -1e-4 || k > dpsgdT+1e-4 || (!present && math.Abs(k) > 1e-4) {
				t.Fatalf("present=%v canary %d: statistic %v is not K·LLR(1) + (T − K)·LLR(0) for an integer K in [0, %d] (K = %v)",
					present, j, s, dpsgdT, k)
			}
			sumK += math.Round(k)
		}
		if rate := sumK / (dpsgdCanaries * dpsgdT); present && math.Abs(rate-dpsgdQ) > 0.02 {
			t.Errorf("canaries sampled at rate %v, want q = %v", rate, dpsgdQ)
		}
	}
}
