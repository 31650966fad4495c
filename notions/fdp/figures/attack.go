package figures

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/mechanisms"
)

// HistogramAttack simulates the K-ary attribute-inference game of
// Thm 4 trials times: the target's attribute a is uniform on K values,
// the released histogram of the target's bin plus the others' known counts
// gets N(0, μ^{-2}) noise per bin (μ-GDP for add/remove of the target), and
// the adversary guesses the argmax after subtracting the known counts. It
// returns the empirical success rate, to be compared with
// GaussianArgmaxSuccess (exact) and the bound
// AttributeInferenceBoundGDP(μ, 1/K).
func HistogramAttack(rng *rand.Rand, k int, mu float64, trials int) (float64, error) {
	if rng == nil {
		return 0, mechanisms.ErrNilRand
	}
	if k < 1 || trials < 1 {
		return 0, fmt.Errorf("fdp: HistogramAttack: K = %d, trials = %d, want ≥ 1", k, trials)
	}
	if err := valid.Positive("μ", mu); err != nil {
		return 0, fmt.Errorf("fdp: HistogramAttack: %w", err)
	}
	sd := 1 / mu
	wins := 0
	for range trials {
		a := rng.IntN(k)
		best, arg := math.Inf(-1), -1
		for j := range k {
			v := sd * rng.NormFloat64()
			if j == a {
				v++
			}
			if v > best {
				best, arg = v, j
			}
		}
		if arg == a {
			wins++
		}
	}
	return float64(wins) / float64(trials), nil
}
