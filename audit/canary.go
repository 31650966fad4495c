package audit

import (
	"fmt"
	"math"
)

// SubsampledGaussianLLR is the log-likelihood ratio log(p₁(g)/p₀(g)) of one
// noisy step g of a Poisson-subsampled Gaussian mechanism, in units of the
// clip norm C: under D the canary is absent, g ~ N(0, z²); under D′ it is
// in the batch with probability q and then adds its clipped gradient C,
// g ~ (1−q)·N(0, z²) + q·N(1, z²). So
//
//	LLR(g) = log(1 − q + q·e^a),  a = (2g − 1)/(2z²),
//
// computed without overflow. Summed over the steps it is the
// Neyman–Pearson statistic of an adversary who sees every noisy update
// (Nasr et al. 2021, "Adversary instantiation", white-box DP-SGD threat
// model; the per-step privacy loss of Mironov, Talwar & Zhang 2019).
func SubsampledGaussianLLR(g, q, z float64) float64 {
	a := (2*g - 1) / (2 * z * z)
	if a > 0 {
		return a + math.Log(q+(1-q)*math.Exp(-a))
	}
	return math.Log1p(q * math.Expm1(a))
}

// CanaryLLR is the white-box attack on Dirac canaries: canary j's clipped
// gradient is C·e_{Offset+j}, a coordinate no other record touches, so
// the change of θ in that coordinate at step t is −LR·(inclusion·C +
// N(0, z²C²))/m alone. Its OnStep (for mechanisms.Config.OnStep) turns
// each step's change into g = −(θ_t − θ_{t−1})·Scale and adds
// SubsampledGaussianLLR(g, Q, Z) to Stats[j]. Q and Z are the claimed
// sampling rate and noise multiplier (the adversary knows the public
// hyper-parameters, not a fault of the mechanism).
type CanaryLLR struct {
	Q, Z  float64
	Scale float64 // m/(C·LR): the expected batch size over the clip norm and learning rate
	// Offset is the coordinate of canary 0; Stats[j] the statistic of
	// canary j.
	Offset int
	Stats  []float64
	prev   []float64
}

// NewCanaryLLR tracks len(stats) canaries from θ₀ = theta0 (copied),
// accumulating into stats (zeroed).
func NewCanaryLLR(q, z, scale float64, offset int, theta0, stats []float64) (*CanaryLLR, error) {
	if offset < 0 || offset+len(stats) > len(theta0) {
		return nil, fmt.Errorf("audit: canaries %d..%d beyond the %d parameters", offset, offset+len(stats)-1, len(theta0))
	}
	clear(stats)
	return &CanaryLLR{Q: q, Z: z, Scale: scale, Offset: offset, Stats: stats, prev: append([]float64(nil), theta0...)}, nil
}

// OnStep adds step t's log-likelihood ratio of every canary. A nil
// *CanaryLLR tracks no canary: it does nothing.
func (c *CanaryLLR) OnStep(_ int, theta []float64) {
	if c == nil {
		return
	}
	for j := range c.Stats {
		i := c.Offset + j
		c.Stats[j] += SubsampledGaussianLLR(-(theta[i]-c.prev[i])*c.Scale, c.Q, c.Z)
		c.prev[i] = theta[i]
	}
}
