package mechanisms

import (
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

func TestGranularity(t *testing.T) {
	for _, tc := range []struct {
		scale, want float64
	}{
		{1, math.Ldexp(1, -40)},
		{1.5, math.Ldexp(1, -39)},
		{0.75, math.Ldexp(1, -40)},
		{math.Ldexp(1, 10), math.Ldexp(1, -30)},
		{math.Ldexp(1, -982), math.Ldexp(1, -1022)},
	} {
		if g, err := Granularity(tc.scale); err != nil || g != tc.want {
			t.Errorf("Granularity(%v) = %v, %v; want %v", tc.scale, g, err, tc.want)
		}
	}
	for _, bad := range []float64{0, -1, math.NaN(), math.Inf(1), math.Ldexp(1, -983), math.Ldexp(1, 1001)} {
		if _, err := Granularity(bad); err == nil || !strings.Contains(err.Error(), "floating-point-safe") {
			t.Errorf("Granularity(%v): error %v", bad, err)
		}
	}
}

// FuzzGranularity: for every accepted scale, g is a normal power of two
// with scale/g ∈ (2³⁹, 2⁴⁰].
func FuzzGranularity(f *testing.F) {
	for _, s := range []float64{1, 3, 1e-300, 1e300, math.Ldexp(1, -982), math.SmallestNonzeroFloat64} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, scale float64) {
		g, err := Granularity(scale)
		if err != nil {
			return
		}
		if frac, _ := math.Frexp(g); frac != 0.5 || g < math.Ldexp(1, -1022) {
			t.Fatalf("g = %v is not a normal power of two", g)
		}
		if r := scale / g; !(r > math.Ldexp(1, 39) && r <= math.Ldexp(1, 40)) {
			t.Fatalf("scale/g = %v for scale %v", r, scale)
		}
	})
}

// Mironov's attack on the Secure releases: the criterion that separates
// the naive float Laplace (TestLeastSignificantBitsAttack: outputs near 0
// that are not multiples of 2⁻⁵³ cannot come from input 1) finds nothing,
// because from every input every output is a multiple of the same grid g,
// which depends on the noise scale only.
func TestSecureReleaseLeastSignificantBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ulp := math.Ldexp(1, -53)
	g, _ := Granularity(1)
	for _, x := range []float64{0, 1, 1 + math.Ldexp(1, -52), 0.3} {
		separating, small := 0, 0
		for range 3000 {
			lap, err := granularLaplace(rng, []float64{x}, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			gau, err := granularGaussian(rng, []float64{x, -x}, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []*Release{lap, gau} {
				if err := r.CheckGranular(); err != nil || r.Granularity != g {
					t.Fatalf("input %v: %v (grid %v, want %v)", x, err, r.Granularity, g)
				}
			}
			if y := lap.Value[0]; math.Abs(y) < 0.5 {
				small++
				if math.Mod(y, ulp) != 0 {
					separating++
				}
			}
		}
		if separating != 0 || small == 0 {
			t.Errorf("input %v: %d of %d small outputs are off the 2⁻⁵³ grid", x, separating, small)
		}
	}
}

// ksStat is the Kolmogorov–Smirnov distance between the sample and cdf.
func ksStat(xs []float64, cdf func(float64) float64) float64 {
	sort.Float64s(xs)
	d, n := 0.0, float64(len(xs))
	for i, x := range xs {
		c := cdf(x)
		d = math.Max(d, math.Max(c-float64(i)/n, float64(i+1)/n-c))
	}
	return d
}

// The Secure noise has the target law: mean, variance and a KS test
// against the continuous Laplace / Gaussian of the reported Scale (the grid
// is 2⁻⁴⁰ of the scale, far below the KS resolution). Fixed seeds; the
// bounds are ≈ 4 standard errors and the 0.1% KS critical value.
func TestSecureNoiseDistribution(t *testing.T) {
	const n = 6000
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tc := range []struct {
		name   string
		draw   func() (*Release, error)
		vari   func(scale float64) float64
		cdf    func(x, scale float64) float64
		center float64
	}{
		{"laplace", func() (*Release, error) { return granularLaplace(rng, []float64{3.25}, 2, 0.5) },
			func(b float64) float64 { return 2 * b * b },
			func(x, b float64) float64 {
				if x < 0 {
					return 0.5 * math.Exp(x/b)
				}
				return 1 - 0.5*math.Exp(-x/b)
			}, 3.25},
		{"gaussian", func() (*Release, error) { return granularGaussian(rng, []float64{-1.5}, 1, 3) },
			func(s float64) float64 { return s * s },
			func(x, s float64) float64 { return 0.5 * math.Erfc(-x/(s*math.Sqrt2)) }, -1.5},
	} {
		xs := make([]float64, n)
		scale := 0.0
		for i := range xs {
			r, err := tc.draw()
			if err != nil {
				t.Fatal(err)
			}
			xs[i], scale = r.Value[0]-tc.center, r.Scale
		}
		mean, m2 := 0.0, 0.0
		for _, x := range xs {
			mean += x / n
			m2 += x * x / n
		}
		v := tc.vari(scale)
		if se := math.Sqrt(v / n); math.Abs(mean) > 4*se {
			t.Errorf("%s: mean %v, want 0 ± %v", tc.name, mean, 4*se)
		}
		if math.Abs(m2/v-1) > 0.12 {
			t.Errorf("%s: variance %v, want %v", tc.name, m2, v)
		}
		if d := ksStat(xs, func(x float64) float64 { return tc.cdf(x, scale) }); d > 1.95/math.Sqrt(n) {
			t.Errorf("%s: KS distance %v > %v", tc.name, d, 1.95/math.Sqrt(n))
		}
	}
}

// The Secure noise is calibrated to the rounding-adjusted sensitivity:
// Laplace b = Δ'/ε with Δ' ≥ Δ + d·g, Gaussian σ' with Δ'/σ' ≥ Δ/σ... and
// not below: the ratio Δ'/σ' equals Δ/σ (same ρ).
func TestSecureReleaseCalibration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	v := []float64{1, 2, 3, 4}
	lap, err := granularLaplace(rng, v, 0.5, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	g := lap.Granularity
	if lap.Sensitivity < 0.5+4*g || lap.Scale*0.1 < lap.Sensitivity*(1-1e-15) || lap.Sensitivity > 0.5+4*g+1e-15 {
		t.Errorf("Laplace: Δ' = %v (Δ + d·g = %v), b = %v", lap.Sensitivity, 0.5+4*g, lap.Scale)
	}
	gau, err := granularGaussian(rng, v, 0.5, 2)
	if err != nil {
		t.Fatal(err)
	}
	g = gau.Granularity
	if gau.Sensitivity < 0.5+2*g || math.Abs(gau.Sensitivity/gau.Scale-0.5/2) > 1e-15 {
		t.Errorf("Gaussian: Δ' = %v (Δ + √d·g = %v), σ' = %v", gau.Sensitivity, 0.5+2*g, gau.Scale)
	}
}

// ratFloor returns the largest float64 ≤ r: a recorded Scale is never
// above the noise used, so the loss computed from it is never below the
// exact one. Float64() rounds 1/10 and 7/10 up; a ratFloor that returned
// it unchanged recorded a scale an ulp too large.
func TestRatFloor(t *testing.T) {
	for _, r := range []*big.Rat{big.NewRat(1, 10), big.NewRat(7, 10), big.NewRat(1, 3), big.NewRat(2, 3), big.NewRat(3, 1),
		new(big.Rat).SetFrac(new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 80), big.NewInt(1)), big.NewInt(3))} {
		f := ratFloor(r)
		if ratOf(f).Cmp(r) > 0 || ratOf(math.Nextafter(f, math.Inf(1))).Cmp(r) <= 0 {
			t.Errorf("ratFloor(%v) = %v, want the largest float64 ≤ it", r, f)
		}
	}
}

// The loss of a release, computed from its recorded Scale and
// Sensitivity, is never below the exact loss of the noise it adds (exact
// rationals of the float64 arguments): in Secure mode the discrete Laplace
// of scale Δ'/ε on a shift of ℓ1 norm Δ' is exactly ε-DP, and the discrete
// Gaussian of std σ' = σ·Δ'/Δ on a shift of ℓ2 norm Δ' is ρ-zCDP with
// ρ = Δ²/(2σ²), and Δ' bounds the shift after rounding (Δ + d·g in ℓ1,
// Δ + √d·g in ℓ2); in Reproducible mode the continuous Laplace of scale
// b = fl(Δ/ε) is (Δ/b)-DP. The parameters are not multiples of powers of
// two, so the quotients round both ways; a Scale rounded up, or a loss not
// rounded up, falls below.
func TestReleaseLossNotBelowExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, tc := range []struct{ sens, eps float64 }{{1, 0.1}, {0.3, 0.7}, {0.7, 1.3}, {1.1, 0.3}, {3, 0.9}, {0.1, 0.1}} {
		for _, d := range []int{1, 2, 3, 5, 7, 10} {
			lap, err := granularLaplace(rng, make([]float64, d), tc.sens, tc.eps)
			if err != nil {
				t.Fatal(err)
			}
			if got := new(big.Rat).Mul(ratOf(lap.Scale), ratOf(tc.eps)); got.Cmp(ratOf(lap.Sensitivity)) > 0 {
				t.Errorf("Laplace Δ = %v, ε = %v, d = %d: recorded scale %v above the scale used Δ'/ε = %v/%v", tc.sens, tc.eps, d, lap.Scale, lap.Sensitivity, tc.eps)
			}
			// Δ' ≥ Δ + d·g exactly.
			if want := new(big.Rat).Add(ratOf(tc.sens), new(big.Rat).Mul(big.NewRat(int64(d), 1), ratOf(lap.Granularity))); ratOf(lap.Sensitivity).Cmp(want) < 0 {
				t.Errorf("Laplace Δ = %v, d = %d: Δ' = %v below Δ + d·g (g = %v)", tc.sens, d, lap.Sensitivity, lap.Granularity)
			}
			if e, _, _ := mustLoss(t, lap).ApproxDP(); e < tc.eps {
				t.Errorf("Laplace Δ = %v, ε = %v, d = %d: loss ε = %v below the exact %v", tc.sens, tc.eps, d, e, tc.eps)
			}
			gau, err := granularGaussian(rng, make([]float64, d), tc.sens, tc.eps)
			if err != nil {
				t.Fatal(err)
			}
			// Δ' ≥ Δ + √d·g exactly: (Δ' − Δ)² ≥ d·g², Δ' ≥ Δ.
			gap := new(big.Rat).Sub(ratOf(gau.Sensitivity), ratOf(tc.sens))
			dg2 := new(big.Rat).Mul(big.NewRat(int64(d), 1), new(big.Rat).Mul(ratOf(gau.Granularity), ratOf(gau.Granularity)))
			if gap.Sign() < 0 || new(big.Rat).Mul(gap, gap).Cmp(dg2) < 0 {
				t.Errorf("Gaussian Δ = %v, d = %d: Δ' = %v below Δ + √d·g (g = %v)", tc.sens, d, gau.Sensitivity, gau.Granularity)
			}
			// Scale·Δ ≤ σ·Δ' (the recorded σ' at most the one used).
			if lhs := new(big.Rat).Mul(ratOf(gau.Scale), ratOf(tc.sens)); lhs.Cmp(new(big.Rat).Mul(ratOf(tc.eps), ratOf(gau.Sensitivity))) > 0 {
				t.Errorf("Gaussian Δ = %v, σ = %v, d = %d: recorded σ' = %v above σ·Δ'/Δ", tc.sens, tc.eps, d, gau.Scale)
			}
			rho, _ := mustLoss(t, gau).Rho()
			exact := new(big.Rat).Quo(new(big.Rat).Mul(ratOf(tc.sens), ratOf(tc.sens)), new(big.Rat).Mul(big.NewRat(2, 1), new(big.Rat).Mul(ratOf(tc.eps), ratOf(tc.eps))))
			if ratOf(rho).Cmp(exact) < 0 {
				t.Errorf("Gaussian Δ = %v, σ = %v, d = %d: loss ρ = %v below the exact Δ²/(2σ²) = %v", tc.sens, tc.eps, d, rho, exact.FloatString(20))
			}
		}
		rep, err := LaplaceRelease(Reproducible, NewStreams(1), []float64{0}, tc.sens, tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		if e, _, _ := mustLoss(t, rep).ApproxDP(); ratOf(e).Cmp(new(big.Rat).Quo(ratOf(rep.Sensitivity), ratOf(rep.Scale))) < 0 {
			t.Errorf("Reproducible Laplace Δ = %v, ε = %v: loss ε = %v below the exact Δ/b = %v/%v", tc.sens, tc.eps, e, rep.Sensitivity, rep.Scale)
		}
	}
}

// gridPoint rounds the value to the nearest grid point before adding the
// integer noise (k = round(v/g), as LaplaceRelease and GaussianRelease
// document): a floor would bias every Secure release by −g/2 and pass every
// statistical test (g is 2⁻⁴⁰ of the noise scale), so it is checked here on
// the exact arithmetic.
func TestGridPointNearest(t *testing.T) {
	g := math.Ldexp(1, -20)
	for _, tc := range []struct{ steps, want float64 }{{0.4, 0}, {0.6, 1}, {-0.6, -1}, {-0.4, 0}, {2.5, 3}, {-2.5, -3}, {7, 7}} {
		for _, y := range []int64{0, 5, -3} {
			if got := gridPoint(tc.steps*g, g, big.NewInt(y)); got != (tc.want+float64(y))*g {
				t.Errorf("gridPoint(%v·g, g, %d) = %v·g, want the nearest grid point %v·g plus %d", tc.steps, y, got/g, tc.want, y)
			}
		}
	}
}

// mustLoss returns r.Loss under add/remove, failing the test on an error.
func mustLoss(t *testing.T, r *Release) accounting.Loss {
	t.Helper()
	l, err := r.Loss(accounting.RelationAddRemove)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Every release is labelled with the randomness it used; a mode that does
// not match its streams is an error, never a mislabelled release.
func TestReleaseModes(t *testing.T) {
	v := []float64{0.5, -2}
	rep, err := LaplaceRelease(Reproducible, NewStreams(3), v, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := LaplaceMechanism(NewStreams(3).Noise(), v, 1, 1)
	if rep.Mode != Reproducible || rep.Granularity != 0 || !sameBits(rep.Value, want) {
		t.Errorf("Reproducible Laplace release %+v, want LaplaceMechanism's %v", rep, want)
	}
	repG, err := GaussianRelease(Reproducible, NewStreams(3), v, 1, 2)
	wantG, _ := GaussianMechanism(NewStreams(3).Noise(), v, 2)
	if err != nil || repG.Mode != Reproducible || !sameBits(repG.Value, wantG) {
		t.Errorf("Reproducible Gaussian release %+v, %v", repG, err)
	}
	for _, r := range []func() (*Release, error){
		func() (*Release, error) { return LaplaceRelease(Secure, nil, v, 1, 1) },
		func() (*Release, error) { return GaussianRelease(Secure, NewSecureStreams(), v, 1, 2) },
	} {
		sec, err := r()
		if err != nil || sec.Mode != Secure || sec.Granularity == 0 || sec.CheckGranular() != nil {
			t.Errorf("Secure release %+v, %v", sec, err)
		}
	}
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"Reproducible, secure streams", func() error { _, err := LaplaceRelease(Reproducible, NewSecureStreams(), v, 1, 1); return err }, "Mode is Reproducible"},
		{"Secure, seeded streams", func() error { _, err := GaussianRelease(Secure, NewStreams(1), v, 1, 1); return err }, "Mode is Secure"},
		{"Reproducible, no streams", func() error { _, err := LaplaceRelease(Reproducible, nil, v, 1, 1); return err }, "NewStreams(seed)"},
		{"unknown mode", func() error { _, err := LaplaceRelease(Mode(9), nil, v, 1, 1); return err }, "unknown mode"},
		{"ε 0", func() error { _, err := LaplaceRelease(Secure, nil, v, 1, 0); return err }, "ε = 0"},
		{"Δ₂ 0", func() error { _, err := GaussianRelease(Secure, nil, v, 0, 1); return err }, "L2 sensitivity"},
		{"huge value", func() error { _, err := LaplaceRelease(Secure, nil, []float64{1e308}, 1, 1); return err }, "2¹⁰⁰⁰"},
		{"tiny σ", func() error { _, err := GaussianRelease(Secure, nil, v, 1, 1e-300); return err }, "2⁻⁹⁸²"},
		{"empty", func() error { _, err := GaussianRelease(Secure, nil, nil, 1, 1); return err }, "empty value"},
	} {
		if err := tc.call(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// FuzzSecureRelease: for any input, the Secure releases either return a
// descriptive error or a finite release on their grid, calibrated to at
// least Δ + d·g (Laplace) — never a panic or an off-grid value.
func FuzzSecureRelease(f *testing.F) {
	f.Add(0.0, 1e6, 1.0, 1.0, uint64(1))
	f.Add(-3.7e-5, 2.5, 1e-3, 0.7, uint64(2))
	f.Add(1e300, 1e-300, 1e300, 1e-9, uint64(3)) // |v|/g overflowed
	f.Add(-22.0, 1e6, 0.0, 0.025, uint64(68))    // Δ₂ = 0 divided by zero
	f.Fuzz(func(t *testing.T, a, b, sens, eps float64, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 1))
		for _, r := range []func() (*Release, error){
			func() (*Release, error) { return granularLaplace(rng, []float64{a, b}, sens, eps) },
			func() (*Release, error) { return granularGaussian(rng, []float64{a, b}, sens, eps) },
		} {
			rel, err := r()
			if err != nil {
				continue
			}
			if err := rel.CheckGranular(); err != nil {
				t.Fatal(err)
			}
			for _, y := range rel.Value {
				if math.IsInf(y, 0) || math.IsNaN(y) {
					t.Fatalf("non-finite output %v", y)
				}
			}
			if rel.Sensitivity < sens || !(rel.Scale > 0) {
				t.Fatalf("Δ' = %v < Δ = %v or scale %v", rel.Sensitivity, sens, rel.Scale)
			}
		}
	})
}

// TestSecureReleaseNoiseBelow2p53: Granularity's promise that the integer
// noise stays below 2⁵³ grid steps (where k + Y is exact) except with
// probability < exp(−2¹²) needs the noise scale in grid units bounded;
// the rounding term d·g/ε (Laplace) or √d·g/Δ (Gaussian) can inflate it
// without limit. Such inputs are refused, naming the fix; ordinary ones
// stay below the bound.
func TestSecureReleaseNoiseBelow2p53(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name    string
		release func() (*Release, error)
		refuse  bool
	}{
		{"laplace, ordinary", func() (*Release, error) { return granularLaplace(rng, make([]float64, 100), 1, 0.1) }, false},
		{"laplace, d/ε ≫ Δ/(ε·g)", func() (*Release, error) { return granularLaplace(rng, make([]float64, 1000), 1e-9, 1e-12) }, true},
		{"gaussian, ordinary", func() (*Release, error) { return granularGaussian(rng, make([]float64, 100), 1, 10) }, false},
		{"gaussian, Δ ≪ √d·g", func() (*Release, error) { return granularGaussian(rng, make([]float64, 4), 1e-20, 1) }, true},
	} {
		r, err := tc.release()
		if tc.refuse {
			if err == nil {
				t.Errorf("%s: accepted, noise scale %.3g grid steps (2⁵³ = %.3g)", tc.name, r.Scale/r.Granularity, math.Ldexp(1, 53))
			} else if !strings.Contains(err.Error(), "grid steps") {
				t.Errorf("%s: error %v does not explain the bound", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if s := r.Scale / r.Granularity; s > math.Ldexp(1, 46) {
			t.Errorf("%s: noise scale %.3g grid steps", tc.name, s)
		}
	}
}
