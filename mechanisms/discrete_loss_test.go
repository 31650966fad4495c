package mechanisms

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

// ratOf returns x as an exact rational.
func ratOf(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

// atLeastExact reports whether got ≥ exact and got ≤ exact·(1 + 1e-14):
// the loss is never below the exact value and above it by rounding only.
func atLeastExact(got float64, exact *big.Rat) bool {
	g := ratOf(got)
	hi := new(big.Rat).Mul(exact, big.NewRat(100000000000001, 100000000000000))
	return g.Cmp(exact) >= 0 && g.Cmp(hi) <= 0
}

// The discrete Gaussian's loss is ρ = (Δ + g√d)²/(2σ²) computed exactly
// in rationals (d a perfect square, so √d is exact), never below it; the
// old formula of DiscreteGaussianRho is at most 1e-14 below (it was not
// rounded up: the new value is the old raised by ≤ 10 ulps); and the
// ledger's zCDP route gives accounting.ZCDPEpsilon(ρ, δ) exactly.
func TestDiscreteGaussianLoss(t *testing.T) {
	for _, tc := range []struct {
		sens, sigma, grid float64
		d, root           int
		rel               accounting.Relation
	}{
		{1, 2, 0.01, 4, 2, accounting.RelationAddRemove},
		{0.3, 0.7, 1.0 / 1024, 9, 3, accounting.RelationReplaceOne},
		{5, 11, 0.1, 1, 1, accounting.RelationCoordinate},
	} {
		l, err := DiscreteGaussianLoss(tc.sens, tc.sigma, tc.grid, tc.d, tc.rel)
		if err != nil {
			t.Fatal(err)
		}
		rho, ok := l.Rho()
		if !ok || l.Relation() != tc.rel || l.Kind() != accounting.LossZCDP {
			t.Fatalf("%+v: loss %v (ρ %v, %v)", tc, l, rho, ok)
		}
		a := new(big.Rat).Add(ratOf(tc.sens), new(big.Rat).Mul(ratOf(tc.grid), big.NewRat(int64(tc.root), 1)))
		exact := new(big.Rat).Quo(new(big.Rat).Mul(a, a), new(big.Rat).Mul(big.NewRat(2, 1), new(big.Rat).Mul(ratOf(tc.sigma), ratOf(tc.sigma))))
		if !atLeastExact(rho, exact) {
			t.Errorf("%+v: ρ = %v, exact %v", tc, rho, exact.FloatString(20))
		}
		af := tc.sens + tc.grid*math.Sqrt(float64(tc.d))
		if old := af * af / (2 * tc.sigma * tc.sigma); rho < old || (rho-old)/old > 1e-14 {
			t.Errorf("%+v: ρ = %v, old formula %v", tc, rho, old)
		}
		if r2, err := DiscreteGaussianRho(tc.sens, tc.sigma, tc.grid, tc.d); err != nil || r2 != rho {
			t.Errorf("%+v: DiscreteGaussianRho = %v (%v), loss ρ = %v", tc, r2, err, rho)
		}
		L, _ := accounting.NewLedger(tc.rel, nil)
		if err := L.Add(l); err != nil {
			t.Fatal(err)
		}
		rep, err := L.Epsilon(1e-6, accounting.DefaultConversion)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := accounting.ZCDPEpsilon(rho, 1e-6)
		for _, r := range rep.Routes {
			if r.Route == accounting.RouteZCDP && (!r.Valid || r.Epsilon != want) {
				t.Errorf("%+v: ledger zCDP route %+v, want ε = %v", tc, r, want)
			}
		}
		if rep.Epsilon > want {
			t.Errorf("%+v: ledger ε %v above its zCDP route %v", tc, rep.Epsilon, want)
		}
	}
}

// The discrete Laplace's loss from the scale the release returns is Δ′/b
// (exact rationals), never below it, and at most the ε asked of the
// release (b is rounded up to a multiple of 2⁻²⁰, so within 2⁻²⁰/b of it).
func TestDiscreteLaplaceLoss(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		sens, grid, eps float64
		d               int
	}{
		{1, 1.0 / 1024, 0.5, 1},
		{0.25, 0.01, 2, 3},
		{3, 0.1, 0.01, 5},
		// Δ′/ε·2²⁰ not an integer: b must be rounded up, not down (a
		// floor gave ε = Δ′/b above the ε asked by 3e-10 of it).
		{1, 1.0 / 1024, 0.3, 1},
		{0.7, 0.01, 1.7, 2},
	} {
		value := make([]float64, tc.d)
		_, b, err := DiscreteLaplaceRelease(rng, value, tc.grid, tc.sens, tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		l, err := DiscreteLaplaceLoss(tc.sens, tc.grid, b, tc.d, accounting.RelationAddRemove)
		if err != nil {
			t.Fatal(err)
		}
		eps, _, ok := l.ApproxDP()
		if !ok || l.Kind() != accounting.LossPure {
			t.Fatalf("%+v: loss %v", tc, l)
		}
		dPrime := new(big.Rat).Add(new(big.Rat).Quo(ratOf(tc.sens), ratOf(tc.grid)), big.NewRat(int64(tc.d), 1))
		exact := new(big.Rat).Quo(dPrime, ratOf(b))
		if !atLeastExact(eps, exact) {
			t.Errorf("%+v: ε = %v, exact Δ′/b = %v", tc, eps, exact.FloatString(20))
		}
		if eps > tc.eps*(1+1e-14) || eps < tc.eps*(1-1e-5) {
			t.Errorf("%+v: ε = %v, asked %v", tc, eps, tc.eps)
		}
	}
}

func TestDiscreteLossBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"Gaussian σ NaN", second(DiscreteGaussianLoss(1, math.NaN(), 0.1, 1, 0)), "σ = NaN, want finite > 0"},
		{"Gaussian grid 0", second(DiscreteGaussianLoss(1, 1, 0, 1, 0)), "grid = 0, want finite > 0"},
		{"Gaussian d 0", second(DiscreteGaussianLoss(1, 1, 0.1, 0, 0)), "d = 0, want finite ≥ 1"},
		{"Gaussian relation", second(DiscreteGaussianLoss(1, 1, 0.1, 1, accounting.Relation(99))), "relation"},
		{"Laplace scale Inf", second(DiscreteLaplaceLoss(1, 0.1, math.Inf(1), 1, 0)), "scale = +Inf, want finite > 0"},
		{"Laplace sensitivity 0", second(DiscreteLaplaceLoss(0, 0.1, 1, 1, 0)), "sensitivity = 0, want finite > 0"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, tc.err, tc.want)
		}
	}
}

// second returns the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }
