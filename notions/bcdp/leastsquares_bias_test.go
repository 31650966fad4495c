package bcdp

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestMeasureObjectiveBiasBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	recs := [][]float64{{1, -1, 0.5}, {-1, 1, -0.2}}
	c, theta := []float64{3, 3, 4}, []float64{0.3, -0.4}
	for _, tc := range []struct {
		name    string
		rng     *rand.Rand
		records [][]float64
		theta   []float64
		reps    int
		want    string
	}{
		{"nil rng", nil, recs, theta, 10, "nil random source"},
		{"no records", rng, nil, theta, 10, "no records"},
		{"one rep", rng, recs, theta, 1, "reps = 1"},
		{"short theta", rng, recs, theta[:1], 10, "θ has 1"},
		{"short record", rng, [][]float64{{1, 0.5}}, theta, 10, "record 0 has 2 values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := MeasureObjectiveBias(tc.rng, tc.records, c, tc.theta, tc.reps, MeanOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// The target is exact on a hand-computed case: records (1, 0 | 1) and
// (0, 1 | −1) at θ = (1, 1): residuals 0 and 2, so
// f(θ) − Σl²/2n = (0 − 1 + 4 − 1)/4 = 0.5.
func TestObjectiveTarget(t *testing.T) {
	got, err := objectiveTarget([][]float64{{1, 0, 1}, {0, 1, -1}}, []float64{1, 1})
	if err != nil || got != 0.5 {
		t.Errorf("target %v (%v), want 0.5", got, err)
	}
}
