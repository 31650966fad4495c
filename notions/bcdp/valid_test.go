package bcdp

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestInputErrorsNameParameter checks that each entry point refuses a
// NaN, ±Inf or out-of-range parameter with an error naming that parameter,
// its value and the valid range (internal/valid).
func TestInputErrorsNameParameter(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"TwoLevelRate δ", second(TwoLevelRate(2, 1, 10, nan, 1, 0.5)), "Corollary 1: δ = NaN, want finite > 0"},
		{"TwoLevelRate ε", second(TwoLevelRate(2, 1, 10, 0.1, 0.2, 0.5)), "Corollary 1: ε = 0.2, want finite > 0.2 (2δ)"},
		{"TwoLevelRate ε Inf", second(TwoLevelRate(2, 1, 10, 0.1, inf, 0.5)), "Corollary 1: ε = +Inf, want finite > 0.2"},
		{"TwoLevelRate q", second(TwoLevelRate(2, 1, 10, 0.1, 1, 1.5)), "q = 1.5, want in [0, 1]"},
		{"TwoBitChannel p1", second(TwoBitChannel([4]float64{0.5, nan, 0, 0.5})), "TwoBitChannel: p1[1] = NaN, want in [0, 1]"},
		{"DuchiB r", second(DuchiB(2, inf, 1, false)), "Duchi B: radius r = +Inf, want finite > 0"},
		{"DuchiB α", second(DuchiB(2, 1, 0, false)), "Duchi B: α = 0, want finite > 0 (α = 0 means infinite noise)"},
		{"ZetaStar δ̃_1", second(ZetaStar(0, 0.5)), "ζ*: δ̃_1 = 0, want finite > 0"},
		{"Allocate ζ", second(Allocate([]float64{1}, 1, 0.5, 1.5)), "allocation: ζ = 1.5, want in (0, 1]"},
		{"Allocate ε", second(Allocate([]float64{1}, nan, 0.5, 0.5)), "allocation: ε = NaN, want finite > 0"},
		// Unbounded work: the old code took grid = 2³⁰ and allocated and
		// evaluated 2³⁰ candidates (8 GB of ζ values).
		// Unbounded work: 2^20 regions × 300·299 value pairs × 20 outputs
		// (about 2·10^12 steps) ran for hours on the old code.
		{"TradeoffMin work", second(TradeoffMin(manyValues(300, 20), 0, 1)), "trade-off: 2^20 regions × 89700 value pairs"},
		// Quadratic memory: every NewSums of 6000 distinct levels holds
		// Σ_k D_k = 18,003,000 floats (144 MB), and every user costs as many steps.
		{"NewMean work", second(NewMean(distinctLevels(6000), MeanOptions{})), "Σ_k D_k = 18003000"},
		{"NewBaseline d", second(NewBaseline(1<<40, 1, MeanOptions{})), "baseline: d = 1099511627776, want 1 to 16777216"},
		{"ZetaOptimal grid", third(ZetaOptimal([]float64{1, 2}, 3, 0.5, 10, 1<<30, MSEOptions{})), "grid = 1073741824, want 1 to 65536"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, c.err, c.want)
		}
	}
}

// manyValues is a valid Finite with one coordinate of k values (uniform
// prior) and ny outputs (uniform channel).
func manyValues(k, ny int) Finite {
	var m Finite
	for x := 0; x < k; x++ {
		m.Domain = append(m.Domain, []int{x})
		m.Prior = append(m.Prior, 1/float64(k))
		row := make([]float64, ny)
		for y := range row {
			row[y] = 1 / float64(ny)
		}
		m.Channel = append(m.Channel, row)
	}
	return m
}

// distinctLevels returns the levels 1, 2, …, d (every round runs).
func distinctLevels(d int) []float64 {
	c := make([]float64, d)
	for i := range c {
		c[i] = float64(i + 1)
	}
	return c
}

// third returns the error of a (value, value, error) triple.
func third[T, U any](_ T, _ U, err error) error { return err }

// second returns the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }

// TestBadInputNoPanic: an out-of-range coordinate, a malformed Finite, a
// nil matrix or a nil receiver (a constructor's error ignored) is an error
// naming the problem, not a panic. Every case panicked on the old code.
func TestBadInputNoPanic(t *testing.T) {
	m, err := TwoBitChannel([4]float64{0.5, 0.5, 0, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var (
		nilMean *Mean
		nilLS   *LeastSquares
		nilCh   *Duchi
	)
	for _, c := range []struct {
		name string
		call func() error
		want string
	}{
		{"TradeoffMin i = 2", func() error { return second(TradeoffMin(m, 2, 1)) }, "coordinate 2 out of range"},
		{"TradeoffMin i = −1", func() error { return second(TradeoffMin(m, -1, 1)) }, "coordinate -1 out of range"},
		{"ConditionalOutput of a malformed Finite", func() error {
			return second(Finite{Domain: [][]int{{1}}}.ConditionalOutput(0, 1))
		}, "prior weights"},
		{"TrustRegion nil H", func() error { return second(TrustRegion(nil, nil, 1)) }, "nil"},
		{"Duchi.Sample nil", func() error { return second(nilCh.Sample(rng, []float64{1}, nil)) }, "nil"},
		{"Mean.Privatize nil", func() error { return second(nilMean.Privatize(rng, []float64{1})) }, "nil"},
		{"Mean.Release nil", func() error { return second(nilMean.Release(rng, []float64{1})) }, "nil"},
		{"Mean.SignLogLikelihood nil", func() error { return second(nilMean.SignLogLikelihood(nil, nil)) }, "nil"},
		{"Mean.LocalLoss nil", func() error { return second(nilMean.LocalLoss()) }, "nil"},
		{"Mean.CoordinateLosses nil", func() error { return second(nilMean.CoordinateLosses()) }, "nil"},
		{"MeanSums.Add zero value", func() error { return (&MeanSums{}).Add(rng, []float64{1}) }, "nil"},
		{"MeanSums.Estimate nil", func() error { var s *MeanSums; return second(s.Estimate(ProjectBox)) }, "nil"},
		{"LeastSquares.Add nil", func() error { return nilLS.Add(rng, []float64{1, 1}) }, "nil"},
		{"LeastSquares.Solve nil", func() error { return second(nilLS.Solve(1)) }, "nil"},
		{"LeastSquares.LocalLoss nil", func() error { return second(nilLS.LocalLoss()) }, "nil"},
		{"LeastSquares.CoordinateLosses nil", func() error { return second(nilLS.CoordinateLosses()) }, "nil"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.call() // a panic fails the test
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}
