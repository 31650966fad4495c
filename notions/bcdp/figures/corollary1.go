package figures

import (
	"fmt"
	"math"

	"github.com/featuredp/featuredp/notions/bcdp"
)

// Cor1Point sets Corollary 1's rate beside the exact error at one q.
type Cor1Point struct {
	Q float64
	// Predicted is the exact unprojected error E‖ν̄ − x̄‖² of Mechanism 1
	// with Corollary 1's allocation (ζ = 1/2) on ±1 data (PredictedMSE,
	// unbiased Duchi constant).
	Predicted float64
	// Rate is Corollary 1's rate without its O(1) (TwoLevelRate), and
	// Ratio = Predicted/Rate the constant it hides at this q.
	Rate, Ratio float64
}

// Corollary1Beside computes, for n users in dimension d with k
// coordinates at BCDP level delta and the rest at the LDP level eps
// (Corollary 1's setting), the exact error of the ζ = 1/2 allocation and
// Corollary 1's rate at each q. The rate omits a constant, so what can be
// checked is that Ratio stays within a bounded band over q.
func Corollary1Beside(n, d, k int, delta, eps float64, qs []float64) ([]Cor1Point, error) {
	if len(qs) == 0 {
		return nil, fmt.Errorf("bcdp: Corollary1Beside: no q values")
	}
	levels := sensitiveDelta(d, k, delta, eps)
	out := make([]Cor1Point, 0, len(qs))
	for _, q := range qs {
		a, err := bcdp.Allocate(levels, eps, q, bcdp.ZetaHalf)
		if err != nil {
			return nil, fmt.Errorf("bcdp: Corollary1Beside q = %v: %w", q, err)
		}
		mse, _, err := bcdp.PredictedMSE(a.Sorted, n, bcdp.MSEOptions{})
		if err != nil {
			return nil, fmt.Errorf("bcdp: Corollary1Beside q = %v: %w", q, err)
		}
		rate, err := bcdp.TwoLevelRate(d, k, n, delta, eps, q)
		if err != nil {
			return nil, err
		}
		out = append(out, Cor1Point{Q: q, Predicted: mse, Rate: rate, Ratio: mse / rate})
	}
	return out, nil
}

// RatioBand returns the smallest and largest Ratio of pts.
func RatioBand(pts []Cor1Point) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		lo, hi = math.Min(lo, p.Ratio), math.Max(hi, p.Ratio)
	}
	return lo, hi
}
