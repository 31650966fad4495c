package corrdp

import (
	"math"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

// TestInputErrorsNameParameter checks that each entry point refuses a
// NaN, ±Inf or out-of-range parameter with an error naming that parameter,
// its value and the valid range (internal/valid), one parameter at a time.
func TestInputErrorsNameParameter(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ok := []float64{1}
	flags := []bool{false}
	report := &TVReport{Features: []TVFeature{{Name: "x", Gamma: 0.5}}, N: 10}
	honesty := func(sigma2 []float64, l float64, n, steps int) error {
		_, err := Honesty(sigma2, flags, []float64{0.1}, l, n, steps, 1, 1e-5, accounting.RelationAddRemove, false)
		return err
	}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"LaplaceAccuracy Δ NaN", second(LaplaceAccuracy(nan, 1, 0.1, 1)), "LaplaceAccuracy: Δ = NaN, want finite ≥ 0"},
		{"LaplaceAccuracy Δ Inf", second(LaplaceAccuracy(inf, 1, 0.1, 1)), "LaplaceAccuracy: Δ = +Inf, want finite ≥ 0"},
		{"LaplaceAccuracy K", second(LaplaceAccuracy(1, 1, 0.1, 0)), "LaplaceAccuracy: K = 0, want ≥ 1"},
		{"LaplaceAccuracy β", second(LaplaceAccuracy(1, 1, 0, 1)), "LaplaceAccuracy: β = 0, want in (0, 1]"},
		{"LaplaceAccuracy ε", second(LaplaceAccuracy(1, inf, 0.1, 1)), "LaplaceAccuracy: ε = +Inf, want finite > 0"},
		{"UCBTerm c2", second(UCBTerm(inf, 1, 0.1, 10, 0.5)), "UCBTerm: c2 = +Inf, want finite ≥ 0"},
		{"UCBTerm γ", second(UCBTerm(1, 1, 0.1, 10, nan)), "UCBTerm: γ = NaN, want in (0, 1]"},
		{"GaussianRenyi α", second(GaussianRenyi(nan, 0, 1, 0, 1)), "GaussianRenyi: α = NaN, want finite > 0"},
		{"TVTilde c2", second(TVTilde(report, nan, 0.1, false)), "TVTilde: c2 = NaN, want finite ≥ 0"},
		{"TVTilde δ", second(TVTilde(report, 1, 1, false)), "TVTilde: δ = 1, want in (0, 1)"},
		{"Honesty L", honesty(ok, inf, 1, 1), "Honesty: L = +Inf, want finite > 0"},
		{"Honesty n", honesty(ok, 1, 0, 1), "Honesty: n = 0 and T = 1, want ≥ 1"},
		{"Honesty σ²", honesty([]float64{nan}, 1, 1, 1), "Honesty: σ²[0] = NaN, want finite ≥ 0"},
		{"CorrelatedSensitivity Δ", second(CorrelatedSensitivity(ok, flags, []float64{0.1}, nan)), "CorrelatedSensitivity: Δ = NaN, want finite"},
		{"CorrelatedSensitivity TV", second(CorrelatedSensitivity(ok, flags, []float64{1.5}, 1)), "CorrelatedSensitivity: TV[0] = 1.5, want in [0, 1]"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, c.err, c.want)
		}
	}
}

// second returns the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }
