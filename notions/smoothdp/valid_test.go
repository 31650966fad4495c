package smoothdp

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
	"gonum.org/v1/gonum/mat"
)

// TestInputErrorsNameParameter checks that each entry point refuses a
// NaN, ±Inf or out-of-range parameter with an error naming that parameter,
// its value and the valid range (internal/valid), and that a call with
// two bad parameters names both.
func TestInputErrorsNameParameter(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	rng := rand.New(rand.NewPCG(1, 2))
	rdp, err := GaussianRDP(1, 1, accounting.RelationReplaceOne)
	if err != nil {
		t.Fatal(err)
	}
	srdp, err := GaussianSRDP(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		err  error
		want []string
	}{
		{"PTRGamma gap", second(PTRGamma(10, nan, 1, 1)), []string{"gap = NaN, want finite"}},
		{"PTRGamma n", second(PTRGamma(0, 1, 1, 1)), []string{"n = 0, want ≥ 1"}},
		{"PTRRefusal ε₀ δ", second(PTRRefusal(1, inf, 1)), []string{"ε₀ = +Inf, want finite > 0", "δ = 1, want in (0, 1)"}},
		{"PTRRefusal γ", second(PTRRefusal(-1, 1, 0.1)), []string{"γ = -1, want ≥ 0"}},
		{"Exponential ε Δ", second(Exponential(rng, []float64{1, 2}, nan, inf)), []string{"ε = NaN, want finite > 0", "Δ = +Inf, want finite > 0"}},
		{"Exponential score", second(Exponential(rng, []float64{1, inf}, 1, 1)), []string{"score 1 = +Inf, want finite"}},
		{"GaussianRDP σ", second(GaussianRDP(1, inf, accounting.RelationReplaceOne)), []string{"σ = +Inf, want finite > 0"}},
		{"GaussianRDP Δ", second(GaussianRDP(-1, 1, accounting.RelationReplaceOne)), []string{"Δ = -1, want finite ≥ 0"}},
		{"WeakTriangle α", errOf(WeakTriangle(1, 2)), []string{"order α = 1, want finite > 1"}},
		{"WeakTriangle p", errOf(WeakTriangle(2, inf)), []string{"Hölder exponent p = +Inf, want finite > 1"}},
		{"Theorem2Conservative α", second(Theorem2Conservative(rdp, srdp, 0.1, 1.4)), []string{"α = 1.4, want finite ≥ 1.5"}},
		{"Theorem2Conservative η", second(Theorem2Conservative(rdp, srdp, nan, 2)), []string{"η = NaN, want finite ≥ 0"}},
	} {
		for _, w := range c.want {
			if c.err == nil || !strings.Contains(c.err.Error(), w) {
				t.Errorf("%s: error %v, want it to contain %q", c.name, c.err, w)
			}
		}
	}
}

// second returns the error of a (value, error) pair.
func second[T any](_ T, err error) error { return err }

// errOf returns the error of WeakTriangle's result.
func errOf(_, _, _ float64, err error) error { return err }

// TestUnsetScaleIsAnError checks that a MechParams field a sensitivity or
// a curve is proportional to (R, QuantR, K, L, Δ, β; the PTR radius), left
// at its zero value, is an error naming the field. It used to make every
// pre-processing step free (η = 0 or ε̃ = 0): the pipeline was reported as
// private as the bare mechanism.
func TestUnsetScaleIsAnError(t *testing.T) {
	full := MechParams{R: 1, L: 1, Delta: 1, Beta: 1, Sigma: 10, Eps: 1, N: 1000, T: 100, K: 100, QuantR: 0.01, GMin: 0.1}
	unset := func(edit func(*MechParams)) MechParams {
		p := full
		edit(&p)
		return p
	}
	noR := unset(func(p *MechParams) { p.R = 0 })
	for _, tc := range []struct {
		mech Mechanism
		pre  Preprocessing
		p    MechParams
		want string
	}{
		{MechGaussian, PreMeanImpute, noR, "MechParams.R"},
		{MechGaussian, PreDedup, noR, "MechParams.R"},
		{MechGaussian, PrePCA, noR, "MechParams.R"},
		{MechDPGD, PrePCA, unset(func(p *MechParams) { p.R = math.NaN() }), "MechParams.R"},
		{MechGaussian, PreQuant, unset(func(p *MechParams) { p.QuantR = 0 }), "MechParams.QuantR"},
		{MechGaussian, PreMeanImpute, unset(func(p *MechParams) { p.L = 0 }), "MechParams.L"},
		{MechGaussian, PreNone, unset(func(p *MechParams) { p.Delta = 0 }), "MechParams.Delta"},
		{MechLaplace, PreDedup, unset(func(p *MechParams) { p.L = 0 }), "MechParams.L"},
		{MechDPGD, PreMeanImpute, unset(func(p *MechParams) { p.L = 0 }), "MechParams.L"},
		{MechDPGD, PreMeanImpute, unset(func(p *MechParams) { p.Beta = 0 }), "MechParams.Beta"},
		{MechSGDSub, PrePCA, unset(func(p *MechParams) { p.Sigma, p.Beta = 2, 0 }), "MechParams.Beta"},
		{MechSGDIter, PreQuant, unset(func(p *MechParams) { p.Beta = 0 }), "MechParams.Beta"},
		// K, the ℓ0 sensitivity η of dedup and quantization is proportional to.
		{MechGaussian, PreDedup, unset(func(p *MechParams) { p.K = 0 }), "MechParams.K"},
		{MechGaussian, PreQuant, unset(func(p *MechParams) { p.K = 0 }), "MechParams.K"},
		{MechDPGD, PreQuant, unset(func(p *MechParams) { p.K = -3 }), "MechParams.K"},
		{MechGaussian, PreGeneric, unset(func(p *MechParams) { p.K, p.Eta = -1, 0.1 }), "MechParams.K"},
	} {
		if e, err := Pipeline(tc.mech, tc.pre, tc.p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v × %v without %s: η = %v, error %v; want one naming %s", tc.mech, tc.pre, tc.want, e.Eta, err, tc.want)
		}
	}
	for _, pre := range []Preprocessing{PreDedup, PreMeanImpute, PrePCA} {
		if eta, _, err := PreprocessingSensitivity(pre, noR); err == nil || !strings.Contains(err.Error(), "MechParams.R") {
			t.Errorf("%v without R: η = %v, error %v", pre, eta, err)
		}
	}
	if _, err := PTRLosses(1000, 100, 1, 1, 1, 0, 0.1, 0.5, 1e-5); err == nil || !strings.Contains(err.Error(), "radius R") {
		t.Errorf("PTR with radius 0: error %v", err)
	}
	if _, err := Pipeline(MechGaussian, PreMeanImpute, full); err != nil {
		t.Errorf("every field set: %v", err)
	}
}

// TestNilArgumentsAreErrors: a nil pre-processor, curve function or
// covariance is an error naming it, not a panic (all three panicked on
// the old code: nil pointer dereference).
func TestNilArgumentsAreErrors(t *testing.T) {
	var nilCov *mat.SymDense
	S := [][]float64{{0.1, 0.2}, {0.3, 0.1}}
	for _, c := range []struct {
		name string
		call func() error
		want string
	}{
		{"EmpiricalSensitivity", func() error { _, err := EmpiricalSensitivity(nil, S, S, 1, false, 0); return err }, "nil pre-processor"},
		{"CalibrateSigma", func() error { _, err := CalibrateSigma(nil, 1, 1e-5); return err }, "nil curve"},
		{"GaussianRenyi", func() error {
			_, err := GaussianRenyi([]float64{1}, []float64{1}, nilCov, nilCov, 2)
			return err
		}, "covariances"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.call() // a panic fails the test
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}
