package accounting

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
)

// Regression tests for issue #25 ("Trust, second round"), accountant part.

// TestAnalyticGaussianSigmaEdges: the calibrated σ against mpmath (120
// digits, findroot on log δ(σ)) over the edges of the ε and δ ranges. Before
// the fix ε = 1e16 gave σ = 7.07e-9 with a true δ near 1 (the log-space δ
// cancelled: ε + log Φ(b) at ε = 1e16 has a rounding error of ~1), and
// ε = 0, δ = 1e-300 gave a σ 1e10 too small (true δ 1e-290).
func TestAnalyticGaussianSigmaEdges(t *testing.T) {
	for _, tc := range []struct{ eps, delta, want float64 }{
		{1, 1e-5, 3.7306316348159418139},
		{0.5, 1e-10, 11.436239995092028873},
		{10, 1e-300, 3.7048918566247082324},
		{1e3, 0x1p-1074, 0.048705705038195201046},
		{1e16, 1e-5, 7.071068025110017802e-9},
		{1e16, 0x1p-1074, 7.0710697352360173314e-9},
		{0, 1e-300, 1 / (1e-300 * math.Sqrt(2*math.Pi))}, // δ = erf(1/(2√2σ)) ≈ 1/(σ√(2π))
	} {
		got, err := AnalyticGaussianSigma(tc.eps, tc.delta, 1)
		if err != nil {
			t.Errorf("AnalyticGaussianSigma(%v, %v): %v", tc.eps, tc.delta, err)
			continue
		}
		// Never below the exact σ (beyond the solver's 1e-13), tight to 1e-9.
		if got < tc.want*(1-1e-13) || got > tc.want*(1+1e-9) {
			t.Errorf("AnalyticGaussianSigma(%v, %v) = %.17g, want %.17g", tc.eps, tc.delta, got, tc.want)
		}
	}
}

// TestAnalyticGaussianSigmaRefuses: ε above MaxAnalyticEpsilon and a σ
// beyond the float64 range are errors naming the fix, not a wrong σ.
func TestAnalyticGaussianSigmaRefuses(t *testing.T) {
	for _, tc := range []struct {
		eps, delta float64
		want       string
	}{
		{1e17, 1e-5, "docs/accounting.md"},
		{1e300, 1e-5, "smaller --epsilon"},
		{0, 0x1p-1074, "outside the float64 range"},
	} {
		s, err := AnalyticGaussianSigma(tc.eps, tc.delta, 1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AnalyticGaussianSigma(%v, %v) = %v, %v; want an error mentioning %q", tc.eps, tc.delta, s, err, tc.want)
		}
	}
}

// millsLowerDelta returns a lower bound on the exact δ of the analytic
// Gaussian mechanism (sensitivity 1) at the float64 σ and ε, by a route
// independent of the package: a = 1/(2σ) − εσ and b = a − 1/σ in 2000-bit
// arithmetic, then for a < 0 the Mills-ratio bounds
// Φ(a) ≥ φ(a)|a|/(a²+1) and e^ε Φ(b) ≤ e^ε φ(b)/|b| = φ(a)/|b|.
// ok is false where a ≥ −1 (the bounds are loose there).
func millsLowerDelta(sigma, eps float64) (lower float64, ok bool) {
	const prec = 2000
	s := new(big.Float).SetPrec(prec).SetFloat64(sigma)
	inv := new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), s)
	a := new(big.Float).SetPrec(prec).Quo(inv, big.NewFloat(2))
	es := new(big.Float).SetPrec(prec).Mul(new(big.Float).SetPrec(prec).SetFloat64(eps), s)
	a.Sub(a, es)
	b := new(big.Float).SetPrec(prec).Sub(a, inv)
	af, _ := a.Float64()
	bf, _ := b.Float64()
	if !(af < -1) {
		return 0, false
	}
	phi := math.Exp(-af*af/2) / math.Sqrt(2*math.Pi)
	return phi * (-af/(af*af+1) + 1/bf), true
}

// analyticGaussianFullRange checks one (ε, δ) of the full range.
func analyticGaussianFullRange(t *testing.T, eps, delta float64) {
	s, err := AnalyticGaussianSigma(eps, delta, 1)
	switch {
	case eps > MaxAnalyticEpsilon:
		if err == nil || !strings.Contains(err.Error(), "docs/accounting.md") {
			t.Fatalf("ε = %v above the usable range: got σ = %v, err %v", eps, s, err)
		}
		return
	case err != nil:
		if !strings.Contains(err.Error(), "outside the float64 range") || delta > 1e-290 {
			t.Fatalf("ε = %v, δ = %v: %v", eps, delta, err)
		}
		return
	case !(s > 0) || math.IsInf(s, 0):
		t.Fatalf("ε = %v, δ = %v: σ = %v", eps, delta, s)
	}
	if lo, ok := millsLowerDelta(s, eps); ok && lo > delta*(1+1e-9) {
		t.Fatalf("ε = %v, δ = %v: σ = %v has exact δ ≥ %v", eps, delta, s, lo)
	}
	if mu := 1 / s; eps == 0 && mu < 1e-4 {
		if lo := mu / math.Sqrt(2*math.Pi) * (1 - mu*mu/24); lo > delta*(1+1e-9) {
			t.Fatalf("ε = 0, δ = %v: σ = %v has exact δ ≥ %v", delta, s, lo)
		}
	}
	if d, _ := AnalyticGaussianDelta(s*(1-1e-3), eps, 1); d <= delta && delta > 1e-300 && delta < 0.999 {
		t.Fatalf("ε = %v, δ = %v: σ = %v is not tight (0.999σ also gives δ = %v)", eps, delta, s, d)
	}
}

// FuzzAnalyticGaussianFullRange covers the analytic Gaussian over the whole
// ε range, log-uniform from 1e-20 to 1e20 (and 0; a fifth of the draws lie
// beyond MaxAnalyticEpsilon = 1e16 and must be refused), and every δ in (0, 1)
// as a float64 bit pattern (so down to the smallest subnormal): σ is never
// too small by an independent bound, tight, or an error naming the range.
func FuzzAnalyticGaussianFullRange(f *testing.F) {
	f.Add(-1.0, uint64(0x3ee4f8b588e368f1)) // ε = 0, δ = 1e-5
	f.Add(36.0, uint64(0x3ee4f8b588e368f1)) // ε = 1e16
	f.Add(37.0, uint64(0x3ee4f8b588e368f1)) // ε = 1e17
	f.Add(-1.0, uint64(0x01a56e1fc2f8f359)) // ε = 0, δ = 1e-300
	f.Add(23.0, uint64(1))                  // ε = 1e3, δ = 2^-1074
	f.Add(39.5, uint64(0x3fefffffffffffff)) // ε = 3e19, δ → 1
	f.Fuzz(func(t *testing.T, x float64, bits uint64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		eps := 0.0
		if x >= 0 {
			eps = math.Pow(10, math.Mod(x, 40)-20)
		}
		delta := math.Float64frombits(bits % 0x3ff0000000000000)
		if !(delta > 0) {
			return
		}
		analyticGaussianFullRange(t, eps, delta)
	})
}

// TestGDPEpsilonSmallMu: GDPEpsilon against mpmath (60 digits) at μ down
// to 1e-8. Before the fix it was 1.6e-8 relative below the exact ε at
// μ = 1e-8, δ = 1e-9 (the difference route cancelled). It may be above
// the exact ε, or below it only by what a 1e-12 relative change of δ
// moves it.
func TestGDPEpsilonSmallMu(t *testing.T) {
	for _, tc := range []struct{ mu, delta, want float64 }{
		{1e-8, 1e-9, 9.0234634996959563e-9},
		{1e-8, 3e-9, 2.1651349847601074e-9},
		{1e-8, 1e-12, 3.3630153302891918e-8},
		{1e-8, 1e-20, 6.7571594652270641e-8},
		{1e-6, 1e-9, 2.7178059287972226e-6},
		{1e-6, 1e-12, 4.424892759089482e-6},
		{1e-6, 1e-20, 7.3846596560925454e-6},
	} {
		got, err := GDPEpsilon(tc.mu, tc.delta)
		if err != nil {
			t.Fatalf("GDPEpsilon(%v, %v): %v", tc.mu, tc.delta, err)
		}
		if got < tc.want*(1-1e-12) || got > tc.want*(1+1e-9) {
			t.Errorf("GDPEpsilon(%v, %v) = %.17g, want %.17g", tc.mu, tc.delta, got, tc.want)
		}
		if d, _ := GDPDelta(tc.mu, got); d > tc.delta*(1+1e-12) {
			t.Errorf("GDPDelta(%v, GDPEpsilon) = %v > δ = %v", tc.mu, d, tc.delta)
		}
	}
	if _, err := GDPEpsilon(1e9, 1e-5); err == nil || !strings.Contains(err.Error(), "docs/accounting.md") {
		t.Errorf("GDPEpsilon(1e9, 1e-5): err = %v, want the usable range", err)
	}
}

// logRef is log x by an independent route: math.Log of x·2^200 (a normal
// number for every positive float64 below 2^800) minus 200·ln 2.
func logRef(x float64) float64 { return math.Log(x*0x1p200) - 200*math.Ln2 }

// subnormalConversions checks every conversion that takes log δ at one δ.
func subnormalConversions(t *testing.T, delta float64) {
	ld := logRef(delta)
	const alpha, r = 10.0, 3.2
	for _, tc := range []struct {
		conv Conversion
		want float64
	}{
		{ConversionClassic, r - ld/(alpha-1)},
		{ConversionImproved, r - (ld+math.Log(alpha))/(alpha-1) + math.Log((alpha-1)/alpha)},
	} {
		got, _, err := EpsilonFromRDP([]float64{alpha}, []float64{r}, delta, tc.conv)
		if err != nil || math.Abs(got-tc.want) > 1e-13*tc.want {
			t.Fatalf("EpsilonFromRDP(δ = %v, %v) = %v, %v; want %v", delta, tc.conv, got, err, tc.want)
		}
	}
	if got, _, _ := GaussianEpsilonRealOrder(1, 1, delta); math.Abs(got-(0.5+2*math.Sqrt(-0.5*ld))) > 1e-13*got {
		t.Fatalf("GaussianEpsilonRealOrder(δ = %v) = %v", delta, got)
	}
	if got, _ := ClassicGaussianSigma(0.5, delta, 1); math.Abs(got-math.Sqrt(2*(math.Log(1.25)-ld))/0.5) > 1e-13*got {
		t.Fatalf("ClassicGaussianSigma(δ = %v) = %v", delta, got)
	}
}

// TestConversionsSubnormalDelta: math.Log on amd64 returns about −709.09
// for every subnormal, so before the fix δ = 5e-324 gave ε = 82.61 instead
// of 86.54 (classic, order 10, the command) and ClassicGaussianSigma
// returned +Inf (1.25/δ overflowed).
func TestConversionsSubnormalDelta(t *testing.T) {
	for _, d := range []float64{0x1p-1074, 1e-320, 1e-310, 0x1p-1022, 1e-300} {
		subnormalConversions(t, d)
	}
	eps, _, err := Epsilon([]Phase{{SampleRate: 0.01, NoiseMultiplier: 1, Steps: 100}}, 0x1p-1074, []float64{10}, ConversionClassic)
	rdp, _ := ComputeRDP(0.01, 1, 100, []float64{10})
	if want := rdp[0] + 1074*math.Ln2/9; err != nil || math.Abs(eps-want) > 1e-13*want {
		t.Fatalf("Epsilon at δ = 2^-1074: %v, %v; want %v", eps, err, want)
	}
}

// FuzzConversionSubnormalDelta: every δ below the smallest normal float64
// (a random subnormal bit pattern) through every RDP → (ε, δ) conversion.
func FuzzConversionSubnormalDelta(f *testing.F) {
	f.Add(uint64(1))
	f.Add(uint64(1) << 30)
	f.Add(uint64(1)<<52 - 1)
	f.Fuzz(func(t *testing.T, bits uint64) {
		d := math.Float64frombits(bits % (1 << 52))
		if d == 0 {
			return
		}
		subnormalConversions(t, d)
	})
}

// TestRDPWorkBounded: hostile (q, z) and order grids cost a bounded number
// of series terms (the budget plus at most one order's worth), and the
// orders left without budget get the valid cap with a note. Before the fix
// q = 0.9, z = 1e100 ran every fractional order to 2^20 terms (18.5 s for
// the Opacus grid) and 5,000 orders near 65,536 took minutes.
func TestRDPWorkBounded(t *testing.T) {
	near := make([]float64, 5000)
	for i := range near {
		near[i] = 65536 - 0.013*float64(i)
	}
	for _, tc := range []struct {
		name   string
		q, z   float64
		orders []float64
	}{
		{"q=0.9 z=1e100 opacus", 0.9, 1e100, OrdersOpacus()},
		{"5000 orders near 65536", 0.01, 1, near},
	} {
		b := &workBudget{left: maxSGMWork}
		c := newSGMBudget(tc.q, tc.z, b)
		budgetNotes := 0
		for _, a := range tc.orders {
			r, note := c.rdp(a)
			if full := a / (2 * tc.z * tc.z); r > full || math.IsNaN(r) {
				t.Fatalf("%s: RDP(%v) = %v above the cap %v", tc.name, a, r, full)
			}
			if note.Reason == budgetReason {
				budgetNotes++
			}
		}
		if spent := maxSGMWork - b.left; spent > maxSGMWork+4*maxExactOrder {
			t.Errorf("%s: %d series terms spent, budget %d", tc.name, spent, maxSGMWork)
		}
		if b.exhausted != (budgetNotes > 0) {
			t.Errorf("%s: budget exhausted %v but %d orders noted", tc.name, b.exhausted, budgetNotes)
		}
	}
}

// TestNoiseMultiplierWorkBounded: the calibration shares one budget over
// every noise multiplier it tries and reports a grid too costly to
// calibrate on instead of running for minutes (before the fix: over 60 s).
func TestNoiseMultiplierWorkBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("spends the whole calibration budget (about two seconds)")
	}
	near := make([]float64, 5000)
	for i := range near {
		near[i] = 65536 - 0.013*float64(i)
	}
	if _, err := NoiseMultiplier(1, 1e-5, 0.01, 1, near, ConversionImproved); !errors.Is(err, errTooCostly) {
		t.Fatalf("NoiseMultiplier on 5,000 orders near 65,536: err = %v, want errTooCostly", err)
	}
}

// TestCapNoteNamesTheBound: where the un-subsampled cap α/(2z²) is below
// the series or interpolation bound, the value is the cap and the note must
// say so. Before the fix order 65535.5 at q = 1 − 1e-12, z = 1 returned the
// cap labelled "series bound (A_α − 1 below the series' resolution)".
func TestCapNoteNamesTheBound(t *testing.T) {
	for _, q := range []float64{1e-6, 0.5, 0.9, 1 - 1e-6, 1 - 1e-12} {
		for _, z := range []float64{1e-3, 0.1, 1, 10, 1e100} {
			for _, a := range []float64{1.000001, 1.5, 10.5, 1000.5, 65535.5} {
				r, note, err := RDPSubsampledGaussianNote(q, z, a)
				if err != nil {
					t.Fatal(err)
				}
				if r == a/(2*z*z) && note.Method != RDPExact && note.Method != RDPUnsubsampled {
					t.Errorf("q=%v z=%v α=%v: the cap %v is labelled %v", q, z, a, r, note)
				}
			}
		}
	}
	if _, note, _ := RDPSubsampledGaussianNote(1-1e-12, 1, 65535.5); note.Method != RDPUnsubsampled || !strings.Contains(note.Reason, "un-subsampled cap") {
		t.Errorf("order 65535.5, q = 1 − 1e-12, z = 1: note %v", note)
	}
}

// TestSubsampledGaussianDeltaLargeEpsilon: for ε > 709, (e^ε − 1)/q
// overflowed and the remove direction's shifted ε became +Inf, giving
// δ = 0; with z = 1e-3 (μ = 1000) the exact δ is q·δ_μ(ε − log q), close
// to q.
func TestSubsampledGaussianDeltaLargeEpsilon(t *testing.T) {
	for _, eps := range []float64{710, 800, 1e5} {
		got, err := SubsampledGaussianDelta(0.5, 1e-3, eps)
		want, _ := GDPDelta(1000, eps+math.Ln2)
		if want *= 0.5; err != nil || got < want*(1-1e-12) || want < 0.4 {
			t.Errorf("SubsampledGaussianDelta(0.5, 1e-3, %v) = %v, %v; want %v", eps, got, err, want)
		}
	}
}
