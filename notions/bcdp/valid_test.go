package bcdp

import (
	"math"
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
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, c.err, c.want)
		}
	}
}

// second returns the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }
