package mechanisms

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// chiSquare compares counts with an exact pmf over the integers in
// [−lim, lim] (the tails pooled into the end bins) and returns the
// statistic and the degrees of freedom.
func chiSquare(counts map[int64]int, n int, pmf func(y int64) float64, lim int64) (float64, int) {
	stat, df := 0.0, 0
	for y := -lim; y <= lim; y++ {
		p, c := pmf(y), float64(counts[y])
		if y == -lim || y == lim { // pool the tail
			for z := lim + 1; z < 50*lim; z++ {
				p += pmf(z)
			}
			for k, v := range counts {
				if (y == lim && k > lim) || (y == -lim && k < -lim) {
					c += float64(v)
				}
			}
		}
		e := p * float64(n)
		stat += (c - e) * (c - e) / e
		df++
	}
	return stat, df - 1
}

func TestBernoulliExp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, g := range []*big.Rat{big.NewRat(0, 1), big.NewRat(1, 2), big.NewRat(1, 1), big.NewRat(5, 2)} {
		const n = 20000
		k := 0
		for range n {
			if BernoulliExp(rng, g) {
				k++
			}
		}
		gf, _ := g.Float64()
		p := math.Exp(-gf)
		if sd := math.Sqrt(p * (1 - p) / n); math.Abs(float64(k)/n-p) > 4*sd+1e-12 {
			t.Errorf("γ = %v: frequency %v, want %v ± %v", g, float64(k)/n, p, sd)
		}
	}
}

// The samplers follow their exact pmfs (chi-square at the 0.1% level, fixed
// seed: the statistic is well below the critical value).
func TestDiscreteSamplersChiSquare(t *testing.T) {
	const n = 20000
	rng := rand.New(rand.NewPCG(3, 4))
	for _, b := range []float64{0.7, 3} {
		counts := map[int64]int{}
		num := int64(math.Round(b * 10))
		for range n {
			counts[DiscreteLaplace(rng, big.NewInt(10), big.NewInt(num)).Int64()]++
		}
		bb := float64(num) / 10
		norm := (1 - math.Exp(-1/bb)) / (1 + math.Exp(-1/bb))
		stat, df := chiSquare(counts, n, func(y int64) float64 { return norm * math.Exp(-math.Abs(float64(y))/bb) }, int64(4*bb)+2)
		if crit := float64(df) + 3.1*math.Sqrt(2*float64(df)) + 3; stat > crit {
			t.Errorf("discrete Laplace b = %v: χ² = %.1f with %d df (critical ≈ %.1f)", bb, stat, df, crit)
		}
	}
	for _, s2 := range []*big.Rat{big.NewRat(1, 2), big.NewRat(4, 1), big.NewRat(50, 1)} {
		counts := map[int64]int{}
		for range n {
			counts[DiscreteGaussian(rng, s2).Int64()]++
		}
		sf, _ := s2.Float64()
		z := 0.0
		for y := -2000.0; y <= 2000; y++ {
			z += math.Exp(-y * y / (2 * sf))
		}
		stat, df := chiSquare(counts, n, func(y int64) float64 { return math.Exp(-float64(y*y)/(2*sf)) / z }, int64(3*math.Sqrt(sf))+1)
		if crit := float64(df) + 3.1*math.Sqrt(2*float64(df)) + 3; stat > crit {
			t.Errorf("discrete Gaussian σ² = %v: χ² = %.1f with %d df (critical ≈ %.1f)", s2, stat, df, crit)
		}
	}
}

// Mironov's attack: x + float noise has low-order bits that depend on x. For
// input 1, every output in (−½, ½) is 1 + n with n ∈ (−1.5, −0.5), an
// exact multiple of 2⁻⁵³; from input 0 most outputs there are not, so each
// such output proves the input was not 1. The discrete release outputs
// multiples of its grid from both inputs, and the noise has full support
// on the integers: no output excludes either input.
func TestLeastSignificantBitsAttack(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	ulp := math.Ldexp(1, -53)
	naiveSeparating, naiveSmall := 0, 0
	for range 20000 {
		y, err := LaplaceMechanism(rng, []float64{0}, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(y[0]) < 0.5 {
			naiveSmall++
			if math.Mod(y[0], ulp) != 0 {
				naiveSeparating++
			}
		}
	}
	if naiveSeparating < naiveSmall/2 {
		t.Fatalf("naive Laplace: only %d of %d small outputs are unreachable from input 1", naiveSeparating, naiveSmall)
	}
	const grid = 1.0 / 1024
	for _, x := range []float64{0, 1} {
		for range 2000 {
			y, _, err := DiscreteLaplaceRelease(rng, []float64{x}, grid, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			if k := y[0] / grid; k != math.Trunc(k) || math.Abs(k) > 1<<40 {
				t.Fatalf("discrete release from %v gave %v, not a multiple of the grid", x, y[0])
			}
		}
	}
	if g, err := DiscreteGaussianRelease(rng, []float64{0.3, -2}, grid, 0.5); err != nil || g[0]/grid != math.Trunc(g[0]/grid) {
		t.Fatalf("discrete Gaussian release %v, %v", g, err)
	}
}

func TestDiscreteReleaseBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"nil rng", func() error { _, _, err := DiscreteLaplaceRelease(nil, []float64{1}, 0.1, 1, 1); return err }, "nil random source"},
		{"empty", func() error { _, _, err := DiscreteLaplaceRelease(rng, nil, 0.1, 1, 1); return err }, "empty value"},
		{"grid 0", func() error { _, err := DiscreteGaussianRelease(rng, []float64{1}, 0, 1); return err }, "grid = 0, want finite > 0"},
		{"NaN value", func() error { _, err := DiscreteGaussianRelease(rng, []float64{math.NaN()}, 0.1, 1); return err }, "not finite"},
		{"ε 0", func() error { _, _, err := DiscreteLaplaceRelease(rng, []float64{1}, 0.1, 1, 0); return err }, "must be finite and > 0"},
		{"ε 0 named", func() error { _, _, err := DiscreteLaplaceRelease(rng, []float64{1}, 0.1, 1, 0); return err }, "ε = 0, want finite > 0"},
		{"sensitivity NaN", func() error { _, _, err := DiscreteLaplaceRelease(rng, []float64{1}, 0.1, math.NaN(), 1); return err }, "sensitivity = NaN, want finite > 0"},
		{"σ Inf", func() error { _, err := DiscreteGaussianRelease(rng, []float64{1}, 0.1, math.Inf(1)); return err }, "σ = +Inf, want finite > 0"},
		{"δ 1", func() error { _, err := ZCDPEpsilon(0.1, 1); return err }, "δ = 1, want in (0, 1)"},
		{"ρ Inf", func() error { _, err := ZCDPEpsilon(math.Inf(1), 0.5); return err }, "ρ = +Inf, want finite ≥ 0"},
		{"d 0", func() error { _, err := DiscreteGaussianRho(1, 1, 0.1, 0); return err }, "d = 0, want finite ≥ 1"},
	} {
		if err := tc.call(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	// A tiny σ/grid: (σ/grid)² used to underflow to 0 in float64 and panic
	// in the sampler; the exact (10⁻²⁰⁰)² gives noise 0 on the grid.
	if out, err := DiscreteGaussianRelease(rng, []float64{1}, 1, 1e-200); err != nil || out[0] != 1 {
		t.Errorf("σ/grid = 1e-200: %v, %v; want [1]", out, err)
	}
	if _, err := DiscreteGaussianRelease(rng, []float64{1}, 1e300, 1e-300); err == nil || !strings.Contains(err.Error(), "underflows") {
		t.Errorf("σ/grid = 0: %v", err)
	}
	rho, _ := DiscreteGaussianRho(1, 2, 0.01, 4) // (1 + 0.02)²/8
	if math.Abs(rho-1.02*1.02/8) > 1e-15 {
		t.Errorf("ρ = %v", rho)
	}
	if e, _ := ZCDPEpsilon(rho, 1e-5); math.Abs(e-(rho+2*math.Sqrt(rho*math.Log(1e5)))) > 1e-12 {
		t.Errorf("ε = %v", e)
	}
}

// TestDiscreteGaussianHugeVariance: the proposal scale τ = ⌊σ⌋ + 1 used to
// be computed through int64, which overflows for σ ≥ 2⁶³ (τ became
// negative and the uniform draw below it never returned: σ² = 10³⁸ hung
// forever). τ is exact now; a sample of N_Z(0, σ²) is returned, of the
// order of σ.
func TestDiscreteGaussianHugeVariance(t *testing.T) {
	for _, sigma := range []float64{math.Ldexp(1, 62), math.Ldexp(1, 63), 1e19, math.Ldexp(1, 100)} {
		rng := rand.New(rand.NewPCG(5, 6))
		done := make(chan *big.Int, 1)
		go func() { done <- DiscreteGaussian(rng, new(big.Rat).SetFloat64(sigma*sigma)) }()
		select {
		case y := <-done:
			f, _ := new(big.Float).SetInt(y).Float64()
			if math.Abs(f) > 10*sigma {
				t.Errorf("σ = %g: sample %g, more than 10σ", sigma, f)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("σ = %g: no sample after 10 s", sigma)
		}
	}
}

// TestDiscreteSamplersBadParameters: a scale parameter ≤ 0 used to hang
// DiscreteLaplace (t = 0 or t < 0: the uniform draw below t never
// returned) or panic deep in math/big; now each is a panic naming the
// sampler and the parameter, at once.
func TestDiscreteSamplersBadParameters(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		name string
		draw func()
	}{
		{"DiscreteLaplace t = 0", func() { DiscreteLaplace(rng, big.NewInt(1), big.NewInt(0)) }},
		{"DiscreteLaplace t < 0", func() { DiscreteLaplace(rng, big.NewInt(1), big.NewInt(-3)) }},
		{"DiscreteLaplace s = 0", func() { DiscreteLaplace(rng, big.NewInt(0), big.NewInt(2)) }},
		{"DiscreteGaussian σ² = 0", func() { DiscreteGaussian(rng, new(big.Rat)) }},
		{"DiscreteGaussian σ² < 0", func() { DiscreteGaussian(rng, big.NewRat(-1, 2)) }},
		{"BernoulliExp γ < 0", func() { BernoulliExp(rng, big.NewRat(-1, 1)) }},
	} {
		done := make(chan any, 1)
		go func() {
			defer func() { done <- recover() }()
			c.draw()
		}()
		select {
		case p := <-done:
			if msg := fmt.Sprint(p); p == nil || !strings.Contains(msg, "mechanisms: ") || !strings.Contains(msg, "want") {
				t.Errorf("%s: panic %v, want one naming the sampler and the range", c.name, p)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s: no sample and no panic after 5 s", c.name)
		}
	}
}

// TestDiscreteGaussianReleaseNoiseBelow2p53: the noise of
// DiscreteGaussianRelease is converted to float64 and added to the rounded
// value, exact only while |Y| < 2⁵³ grid steps. σ/grid used to be allowed up
// to 2⁵⁰, where |Y| ≥ 2⁵³ = 8σ has probability about 1.2·10⁻¹⁵ per
// coordinate (the output is then no longer a function of k + Y alone, outside
// the stated ρ-zCDP); the Secure releases bound the scale by 2⁴⁶ grid steps
// (probability below exp(−2¹²)), and so does this one now, naming the fix.
func TestDiscreteGaussianReleaseNoiseBelow2p53(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	if _, err := DiscreteGaussianRelease(rng, []float64{0}, 1, math.Ldexp(1, 48)); err == nil || !strings.Contains(err.Error(), "coarser grid") {
		t.Errorf("σ/grid = 2⁴⁸: error %v, want a refusal naming a coarser grid", err)
	}
	if out, err := DiscreteGaussianRelease(rng, []float64{0}, 1, math.Ldexp(1, 46)); err != nil || math.Abs(out[0]) > math.Ldexp(1, 53) {
		t.Errorf("σ/grid = 2⁴⁶: %v, %v; want a sample below 2⁵³", out, err)
	}
}

// TestDiscreteReleasesNoiseVariance: the noise of the discrete releases, in
// grid steps, has the variance of the law the loss is computed for:
// (σ/grid)² for DiscreteGaussianRelease (ρ = Δ'²/(2σ²) needs exactly that
// σ; a mutant that passed σ/grid instead of its square as the sampler's
// σ² survived every other test) and 2e^{−1/b}/(1 − e^{−1/b})² for the
// discrete Laplace of the scale b that DiscreteLaplaceRelease returns.
// The sample variance of n draws has standard deviation about
// v·√((κ − 1)/n) (κ the kurtosis: 3 Gaussian, ≤ 6 Laplace); the bound of
// 6 of them is exceeded by a correct sampler with probability below 10⁻⁸
// (normal approximation), and the seeds are fixed.
func TestDiscreteReleasesNoiseVariance(t *testing.T) {
	const n = 4000 // coordinates of one release (each an independent draw)
	value := make([]float64, n)
	for j := range value {
		value[j] = 0.37 * float64(j%7) // rounded to the grid first
	}
	for _, tc := range []struct {
		name    string
		grid    float64
		release func(rng *rand.Rand, grid float64) ([]float64, float64, error) // output, variance in grid steps²
		kurt    float64
	}{
		{"Gaussian σ/grid = 8", 1.0 / 16, func(rng *rand.Rand, g float64) ([]float64, float64, error) {
			out, err := DiscreteGaussianRelease(rng, value, g, 0.5)
			return out, 64, err
		}, 3},
		{"Gaussian σ/grid = 2.5", 0.2, func(rng *rand.Rand, g float64) ([]float64, float64, error) {
			out, err := DiscreteGaussianRelease(rng, value, g, 0.5)
			return out, 6.25, err
		}, 3},
		{"Laplace", 1.0 / 8, func(rng *rand.Rand, g float64) ([]float64, float64, error) {
			out, b, err := DiscreteLaplaceRelease(rng, value, g, 0.25, 1000) // b = (0.25/grid + 4000)/1000 ≈ 4 grid steps
			e := math.Exp(-1 / b)
			return out, 2 * e / ((1 - e) * (1 - e)), err
		}, 6},
	} {
		rng := rand.New(rand.NewPCG(41, 43))
		out, want, err := tc.release(rng, tc.grid)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		noise := make([]float64, n)
		for j, y := range out {
			noise[j] = y/tc.grid - math.Round(value[j]/tc.grid)
		}
		_, v := meanVar(noise)
		if sd := want * math.Sqrt((tc.kurt-1)/n); math.Abs(v-want) > 6*sd {
			t.Errorf("%s: noise variance %.4g grid steps², want %.4g ± %.2g", tc.name, v, want, 6*sd)
		}
	}
}
