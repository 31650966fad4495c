package smoothdp

import (
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/internal/valid"
)

// CalibrateSigma returns the σ at which the Mironov conversion of
// curve(σ) equals the target ε at δ (bisection in log σ to relative 1e-10;
// ε(σ) must be non-increasing).
func CalibrateSigma(curve func(sigma float64) (RDPCurve, error), target, delta float64) (float64, error) {
	if curve == nil {
		return 0, errors.New("smoothdp: CalibrateSigma: nil curve function")
	}
	if err := valid.Positive("target ε", target); err != nil {
		return 0, fmt.Errorf("smoothdp: %w", err)
	}
	eps := func(s float64) (float64, error) {
		c, err := curve(s)
		if err != nil {
			return 0, err
		}
		e, _, err := ToApproxDP(c, delta)
		return e, err
	}
	lo, hi := 1e-6, 1.0
	for {
		e, err := eps(hi)
		if err != nil {
			return 0, err
		}
		if e <= target {
			break
		}
		if hi *= 2; hi > 1e12 {
			return 0, fmt.Errorf("smoothdp: target ε = %v unreachable", target)
		}
	}
	for hi/lo > 1+1e-10 {
		mid := math.Sqrt(lo * hi)
		e, err := eps(mid)
		if err != nil {
			return 0, err
		}
		if e > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}
