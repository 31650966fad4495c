package bcdp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// ObjectiveBias is a Monte Carlo check that Algorithm 3's objective is
// unbiased: E f̂(θ) = f(θ) − (1/2n)Σ l² (BCDP paper, Sec. 5), where
// f(θ) = (1/2n)Σ_i (θᵀz_i − l_i)².
type ObjectiveBias struct {
	// Mean is the average of f̂(θ) over Reps independent runs and SE its
	// standard error √((mean of f̂² − Mean²)/Reps).
	Mean, SE float64
	// Want is f(θ) − (1/2n)Σ l², the expectation of f̂(θ).
	Want float64
	// Reps is the number of runs.
	Reps int
}

// Z is (Mean − Want)/SE, the deviation in standard errors (|Z| < 3 is
// expected of an unbiased estimator).
func (b ObjectiveBias) Z() float64 { return (b.Mean - b.Want) / b.SE }

// MeasureObjectiveBias runs Algorithm 3 with levels c reps times on the
// same records (each x = [z; l] ∈ [−1,1]^d, label last, as for
// LeastSquares.Add), each run with fresh noise from rng, and evaluates f̂ at
// theta (length d−1) after every run.
func MeasureObjectiveBias(rng *rand.Rand, records [][]float64, c, theta []float64, reps int, o MeanOptions) (ObjectiveBias, error) {
	switch {
	case rng == nil:
		return ObjectiveBias{}, errors.New("bcdp: objective bias: nil random source")
	case len(records) == 0:
		return ObjectiveBias{}, errors.New("bcdp: objective bias: no records")
	case reps < 2:
		return ObjectiveBias{}, fmt.Errorf("bcdp: objective bias: reps = %d, want ≥ 2", reps)
	case len(theta) != len(c)-1:
		return ObjectiveBias{}, fmt.Errorf("bcdp: objective bias: θ has %d coordinates, want d−1 = %d", len(theta), len(c)-1)
	}
	want, err := objectiveTarget(records, theta)
	if err != nil {
		return ObjectiveBias{}, fmt.Errorf("bcdp: objective bias: %w", err)
	}
	var s, s2 float64
	for r := 0; r < reps; r++ {
		ls, err := NewLeastSquares(c, o)
		if err != nil {
			return ObjectiveBias{}, err
		}
		for _, x := range records {
			if err := ls.Add(rng, x); err != nil {
				return ObjectiveBias{}, err
			}
		}
		h, g, err := ls.Objective()
		if err != nil {
			return ObjectiveBias{}, err
		}
		v := Quadratic(h, g, theta)
		s += v
		s2 += v * v
	}
	mean := s / float64(reps)
	se := math.Sqrt(math.Max(0, s2/float64(reps)-mean*mean) / float64(reps))
	return ObjectiveBias{Mean: mean, SE: se, Want: want, Reps: reps}, nil
}

// objectiveTarget is f(θ) − (1/2n)Σ l² = (1/2n)Σ_i [(θᵀz_i − l_i)² − l_i²].
func objectiveTarget(records [][]float64, theta []float64) (float64, error) {
	n := float64(len(records))
	t := 0.0
	for i, x := range records {
		if len(x) != len(theta)+1 {
			return 0, fmt.Errorf("record %d has %d values, want %d (features, then the label)", i, len(x), len(theta)+1)
		}
		l := x[len(theta)]
		r := -l
		for j, th := range theta {
			r += th * x[j]
		}
		t += (r*r - l*l) / (2 * n)
	}
	return t, nil
}
