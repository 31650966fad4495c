package accounting

import (
	"fmt"
	"math"
	"testing"
)

// The library's (ε, δ) for T steps of the Poisson-subsampled Gaussian
// against the independent PLD accountant of pld_ref_test.go, which
// brackets the tight add/remove curve of the T-fold composition:
// δ_opt(ε) ≤ δ_tight(ε) ≤ δ_pess(ε). The PLD is first checked against
// the exact curves where they are known (one step: the quadrature of
// independent_ref_test.go; q = 1: the Gaussian with μ = √T/z).

// pldDeltaTol is the relative allowance on δ for the FFT's rounding: the
// composed laws carry an absolute error of about 1e-16 per point, which
// the cut mass measures (at most 6e-11 at 2^20 points, 1e-3 of δ = 1e-8).
const pldDeltaTol = 1e-3

// pldPoints is the size of the T-fold grid: the gap ε_pess − ε_opt = TΔ
// is about 4.7·T/points of ε for small q (the window spans about 23
// standard deviations of the sum, ε about 5), so 512·T points keep it
// near 1% up to T = 4000, within [2^16, 2^21] (2^17 without FEATUREDP_INDEPENDENT_FULL).
func pldPoints(steps int) int {
	hi := 1 << 17
	if indepFull {
		hi = 1 << 21
	}
	return min(max(ceilPow2(512*steps), 1<<16), hi)
}

func pldOpts(steps int) pldOptions {
	return pldOptions{points: pldPoints(steps), tau: 1e-22, maxLen: 1 << 23}
}

func mustPLD(t *testing.T, q, z float64, steps int) pldPair {
	t.Helper()
	p, err := newPLDPair(q, z, steps, pldOpts(steps))
	if err != nil {
		t.Fatalf("q=%v z=%v T=%d: %v", q, z, steps, err)
	}
	return p
}

// checkBracket asserts δ_opt(ε) ≤ exact ≤ δ_pess(ε) for each direction at
// every ε where the exact δ is above 1e-14 (relative tolerance rel), and
// that ε_pess(δ) − ε_opt(δ) is at most TΔ (the whole discretisation gap)
// plus the effect of the cut mass and of the bisections.
func checkBracket(t *testing.T, name string, p pldPair, exact mixture, rel float64) {
	t.Helper()
	for _, c := range []*pldCurve{p.rm, p.ad} {
		ex := exact.logDeltaRemove
		if c.dir == pldAdd {
			ex = exact.logDeltaAdd
		}
		for _, eps := range []float64{0, 0.05, 0.3, 1, 2, 5, 10, 30, 100} {
			e := math.Exp(ex(eps))
			if e < 1e-14 {
				continue
			}
			lo, hi := c.deltaOpt(eps), c.deltaPess(eps)
			if lo > e*(1+rel) || hi < e*(1-rel) {
				t.Errorf("%s %v ε=%v: the PLD bracket [%.12g, %.12g] misses the exact δ %.12g", name, c.dir, eps, lo, hi, e)
			}
		}
		for _, d := range []float64{1e-3, 1e-5, 1e-8} {
			lo, hi := epsFor(c.deltaOpt, d), epsFor(c.deltaPess, d)
			tight := epsFor(func(e float64) float64 { return math.Exp(ex(e)) }, d)
			gap := float64(c.law.steps) * c.delta
			if tight < lo*(1-1e-7) || tight > hi*(1+1e-7) || hi-lo > gap*(1+1e-3)+1e-8*hi {
				t.Errorf("%s %v δ=%v: tight ε %.10g, PLD bracket [%.10g, %.10g] (width %.3g, TΔ = %.3g)", name, c.dir, d, tight, lo, hi, hi-lo, gap)
			}
		}
	}
}

// One step: the PLD brackets the exact one-step curve of each direction
// (the quadrature of independent_ref_test.go).
func TestPLDReferenceOneStep(t *testing.T) {
	t.Parallel()
	qs, zs := []float64{1e-3, 0.01, 0.1, 0.5, 0.999}, []float64{0.6, 1, 2, 5}
	if !indepFull {
		qs, zs = []float64{1e-3, 0.5}, []float64{0.6, 5}
	}
	for _, q := range qs {
		for _, z := range zs {
			checkBracket(t, fmt.Sprintf("q=%v z=%v T=1", q, z), mustPLD(t, q, z, 1), oneStepMixture(q, z), 1e-9)
		}
	}
}

// q = 1: T steps are the Gaussian mechanism with μ = √T/z, whose curve is
// exact; this checks the FFT composition, the offsets and the truncation.
func TestPLDReferenceGaussian(t *testing.T) {
	t.Parallel()
	cases := []struct {
		z     float64
		steps int
	}{{1, 10}, {5, 100}, {0.6, 1000}, {2, 10000}, {5, 10000}}
	if !indepFull {
		cases = cases[:1:1]
		cases = append(cases, struct {
			z     float64
			steps int
		}{2, 10000})
	}
	for _, c := range cases {
		mu := math.Sqrt(float64(c.steps)) / c.z
		checkBracket(t, fmt.Sprintf("q=1 z=%v T=%d", c.z, c.steps), mustPLD(t, 1, c.z, c.steps), gaussianMixture(mu), 1e-6)
	}
}

// q < 1, T > 1: the pessimistic curve is never below the sum-statistic
// lower bound of independent_ref_test.go (remove direction), and the
// optimistic one never above the pessimistic one.
func TestPLDReferenceSumStatistic(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		q, z  float64
		steps int
	}{{0.1, 1, 10}, {0.5, 2, 100}} {
		p := mustPLD(t, c.q, c.z, c.steps)
		mx := sumStatMixture(c.q, c.z, c.steps)
		for _, eps := range []float64{0.1, 0.5, 1, 2, 4} {
			lb := math.Exp(mx.logDeltaRemove(eps))
			if pess := p.rm.deltaPess(eps); pess < lb*(1-1e-9) {
				t.Errorf("%+v ε=%v: pessimistic δ %.12g below the sum-statistic lower bound %.12g", c, eps, pess, lb)
			}
			if lo, hi := p.deltaOpt(eps), p.deltaPess(eps); lo > hi {
				t.Errorf("%+v ε=%v: optimistic δ %.12g above pessimistic %.12g", c, eps, lo, hi)
			}
		}
	}
}

// libEpsilons returns the library's ε for a DP-SGD run of steps steps of
// (q, z) at δ, as featuredp reports it: the ledger of dpnb and
// mechanisms.Result.Losses (add/remove, OrdersDPAccounting) with both
// conversions, and Epsilon on the default (Opacus) grid.
func libEpsilons(t *testing.T, q, z float64, steps int, delta float64) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	loss, err := SubsampledGaussianLoss(Phase{SampleRate: q, NoiseMultiplier: z, Steps: steps})
	if err != nil {
		t.Fatal(err)
	}
	led, err := NewLedger(RelationAddRemove, OrdersDPAccounting())
	if err != nil {
		t.Fatal(err)
	}
	if err := led.Add(loss); err != nil {
		t.Fatal(err)
	}
	for _, conv := range []Conversion{ConversionImproved, ConversionClassic} {
		rep, err := led.Epsilon(delta, conv)
		if err != nil {
			t.Fatalf("q=%v z=%v T=%d δ=%v %v: %v", q, z, steps, delta, conv, err)
		}
		out["ledger "+conv.String()] = rep.Epsilon
	}
	e, _, err := Epsilon([]Phase{{SampleRate: q, NoiseMultiplier: z, Steps: steps}}, delta, DefaultOrders(), DefaultConversion)
	if err != nil {
		t.Fatal(err)
	}
	out["Epsilon default grid"] = e
	return out
}

// The library's ε for T > 1 steps with q < 1 is never below the tight ε:
// at the library's ε, the PLD's optimistic δ (a lower bound on the tight
// δ of the T-fold composition, both directions of add/remove) is at most
// δ. The looseness ε_lib/ε_tight ∈ [ε_lib/ε_pess, ε_lib/ε_opt] is logged.
func TestPLDEpsilonNotBelowTight(t *testing.T) {
	type run struct {
		q, z  float64
		steps int
	}
	var runs []run
	if indepFull {
		for _, q := range []float64{1e-3, 0.01, 0.1, 0.5} {
			for _, z := range []float64{0.6, 1, 2, 5} {
				for _, s := range []int{10, 100, 1000, 10000} {
					runs = append(runs, run{q, z, s})
				}
			}
		}
	} else {
		runs = []run{{0.01, 1, 100}, {0.5, 2, 100}, {1e-3, 0.6, 10}, {0.1, 1, 1000}}
	}
	for _, r := range runs {
		p := mustPLD(t, r.q, r.z, r.steps)
		for _, delta := range []float64{1e-5, 1e-8} {
			lo, hi := p.epsBracket(delta)
			for name, lib := range libEpsilons(t, r.q, r.z, r.steps, delta) {
				if got := p.deltaOpt(lib); got > delta*(1+pldDeltaTol) {
					t.Errorf("UNDER-REPORT q=%v z=%v T=%d δ=%v %s: ε=%.10g but the PLD lower bound on the tight δ(ε) is %.6g > δ (tight ε ∈ [%.10g, %.10g])",
						r.q, r.z, r.steps, delta, name, lib, got, lo, hi)
				}
				if name == "ledger "+ConversionImproved.String() {
					t.Logf("q=%-5v z=%-3v T=%-5d δ=%-5v ε_lib=%-10.5g tight ∈ [%.5g, %.5g] (gap %.2g%%) ε_lib/ε_tight ∈ [%.4f, %.4f]",
						r.q, r.z, r.steps, delta, lib, lo, hi, 100*(hi/lo-1), lib/hi, lib/lo)
				}
			}
		}
	}
}

// binomialPMF returns C(n, k) a^k (1−a)^{n−k}.
func binomialPMF(n, k int, a float64) float64 {
	if k < 0 || k > n {
		return 0
	}
	ln, _ := math.Lgamma(float64(n + 1))
	lk, _ := math.Lgamma(float64(k + 1))
	lr, _ := math.Lgamma(float64(n - k + 1))
	return math.Exp(ln - lk - lr + float64(k)*math.Log(a) + float64(n-k)*math.Log1p(-a))
}

// The composition machinery (binary powering, FFT convolution, offsets,
// Chernoff truncation, suffix sums) on a lattice law with a known T-fold
// power: one step at −2 with probability 1 − a and −1 with a gives
// −2T + Binomial(T, a). Every point, the cut mass and δ(ε) =
// Σ_{ℓ>ε} p_ℓ(1 − e^{ε−ℓ}) agree with the closed form; an offset off by
// one lattice step (which stays inside the PLD bracket) fails here.
func TestPLDReferenceLatticePower(t *testing.T) {
	const a = 0.3
	one := pldLaw{off: -2, p: []float64{1 - a, a}, steps: 1}
	o := pldOptions{points: 1 << 10, tau: 1e-22, maxLen: 1 << 16}
	for _, steps := range []int{1, 2, 3, 7, 10, 100, 1000} {
		c := &pldCurve{delta: 1}
		law, err := c.power(one, steps, newPLDChernoff(one.p, one.off, 1), o)
		if err != nil {
			t.Fatal(err)
		}
		c.law = law
		c.suffix()
		tot := law.cut
		for i, v := range law.p {
			tot += v
			if want := binomialPMF(steps, law.off+i+2*steps, a); math.Abs(v-want) > 1e-11*want+1e-15 { // lgamma's rounding near n = 1000 is ~1e-12 relative
				t.Errorf("T=%d: P(K = %d) = %.17g, binomial %.17g", steps, law.off+i, v, want)
			}
		}
		if math.Abs(tot-1) > 1e-12 || law.cut > 1e-13 { // the cut is FFT rounding only
			t.Errorf("T=%d: total mass %.17g, cut %.3g", steps, tot, law.cut)
		}
		for _, eps := range []float64{-float64(steps) - 0.5, -2 * float64(steps), -1.5*float64(steps) + 0.25, -float64(steps) - 1} {
			want := 0.0
			for k := 0; k <= steps; k++ {
				if l := float64(k - 2*steps); l > eps {
					want += binomialPMF(steps, k, a) * -math.Expm1(eps-l)
				}
			}
			if got := c.deltaOpt(eps); math.Abs(got-want) > 1e-12*math.Max(want, 1e-3) {
				t.Errorf("T=%d ε=%v: δ_opt %.17g, closed form %.17g", steps, eps, got, want)
			}
			if got, want := c.deltaPess(eps), c.deltaOpt(eps-float64(steps))+law.cut; got != want {
				t.Errorf("T=%d ε=%v: δ_pess %.17g is not δ_opt(ε − T) + cut = %.17g", steps, eps, got, want)
			}
		}
	}
}
