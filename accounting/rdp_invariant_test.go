package accounting

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// rdpQuadrature is an independent evaluation of the one-step RDP of the
// Poisson-subsampled Gaussian mechanism (sensitivity 1, noise σ = z,
// add/remove one), by numerical integration instead of a series:
//
//	A_α − 1 = ∫ φ(u) [(1+w)^α − 1 − αw] du,   w(u) = q (e^{u/z − 1/(2z²)} − 1),
//
// which is the definition A_α = E_{u~N(0,1)}[(1+w)^α] with the mean-zero
// term αw (E[w] = 0) subtracted; the integrand is ≥ 0 (convexity of
// (1+w)^α), so the sum has no cancellation and keeps A_α − 1 to full
// relative precision even when it is below 1e-16. The trapezoid rule on
// this smooth, rapidly decaying integrand converges geometrically; the step
// is a quarter of the narrowest width of the integrand's peaks. Returns
// log(A_α)/(α−1).
func rdpQuadrature(q, z, alpha float64) float64 {
	h := math.Min(0.125, z/(4*math.Sqrt(alpha)))
	lo, hi := -40.0, alpha/z+40
	n := int(math.Ceil((hi - lo) / h))
	c := 1 / (2 * z * z)
	// log-sum-exp over the grid, streaming with a running maximum.
	m, s := math.Inf(-1), 0.0
	for k := 0; k <= n; k++ {
		u := lo + float64(k)*h
		w := q * math.Expm1(u/z-c)
		lg := -u*u/2 + logConvexRemainder(alpha, w)
		if math.IsInf(lg, -1) {
			continue
		}
		if lg > m {
			s = s*math.Exp(m-lg) + 1
			m = lg
		} else {
			s += math.Exp(lg - m)
		}
	}
	logAm1 := m + math.Log(s*h) - 0.5*math.Log(2*math.Pi)
	return logA1p(logAm1) / (alpha - 1)
}

// logConvexRemainder returns log((1+w)^α − 1 − αw) for w > −1, α > 1,
// without cancellation: by the binomial series Σ_{k≥2} C(α,k) w^k where
// α|w| is small; for α = 1 + β close to 1 as the sum of two non-negative
// parts β·f(w) + (1+w)·h(β log1p(w)) with f(w) = (1+w)log1p(w) − w and
// h(x) = expm1(x) − x; directly otherwise (where the subtraction loses at
// most a few bits).
func logConvexRemainder(alpha, w float64) float64 {
	if w == 0 {
		return math.Inf(-1)
	}
	if math.Abs(w)*alpha < 0.5 && math.Abs(w) < 0.5 {
		term := alpha * (alpha - 1) / 2 * w * w
		sum := term
		for k := 2; k < 400; k++ {
			term *= (alpha - float64(k)) / float64(k+1) * w
			sum += term
			if math.Abs(term) < 1e-19*math.Abs(sum) {
				break
			}
		}
		return math.Log(sum)
	}
	l := math.Log1p(w)
	if alpha*l > 700 {
		return alpha*l + math.Log1p(-math.Exp(-alpha*l)*(1+alpha*w))
	}
	if beta := alpha - 1; beta < 0.5 {
		return math.Log(beta*xLogXMinus(w, l) + (1+w)*expm1MinusX(beta*l))
	}
	return math.Log(math.Expm1(alpha*l) - alpha*w)
}

// xLogXMinus returns (1+w)·log1p(w) − w (l = log1p(w)), by its series
// Σ_{k≥2} (−1)^k w^k/(k(k−1)) for small |w|.
func xLogXMinus(w, l float64) float64 {
	if math.Abs(w) >= 0.1 {
		return (1+w)*l - w
	}
	sum, p := 0.0, -w // p = (−w)^k
	for k := 2; k < 60; k++ {
		p *= -w
		sum += p / float64(k*(k-1))
	}
	return sum
}

// expm1MinusX returns expm1(x) − x, by its series Σ_{k≥2} x^k/k! for small
// |x|.
func expm1MinusX(x float64) float64 {
	if math.Abs(x) >= 0.1 {
		return math.Expm1(x) - x
	}
	sum, term := 0.0, x
	for k := 2; k < 40; k++ {
		term *= x / float64(k)
		sum += term
	}
	return sum
}

// The quadrature reproduces the high-precision reference values of
// TestRDPReference, so it is a trustworthy independent check.
func TestRDPQuadratureMatchesReference(t *testing.T) {
	for _, tc := range []struct{ q, z, alpha, want float64 }{
		{0.04, 1.5, 1.5, 0.0006631116939117247127},
		{0.04, 1.5, 3.9, 0.0018332021995838585998},
		{0.04, 1.5, 63, 10.72920682314409474},
		{0.001, 10, 7.3, 3.6685068336466608389e-8},
		{0.9, 1, 3.5, 1.6154609654944321794},
		{0.01, 20, 63, 7.8968037354161175698e-6},
	} {
		if got := rdpQuadrature(tc.q, tc.z, tc.alpha); !near(got, tc.want, 1e-10, 0) {
			t.Errorf("quadrature(q=%v z=%v α=%v) = %.17g, want %.17g", tc.q, tc.z, tc.alpha, got, tc.want)
		}
	}
}

// rdpCase is one random point of the invariant checks.
type rdpCase struct {
	q, z, alpha float64
}

// randomRDPCase draws q log-uniform in [1e-6, 1] (and q = 1 sometimes), z
// log-uniform in [0.3, 100], and the order from a mix: integers, fractional
// orders up to 1024, orders within 1e-12 of 1, orders near integers.
func randomRDPCase(r *rand.Rand) rdpCase {
	q := math.Pow(10, -6*r.Float64())
	if r.IntN(20) == 0 {
		q = 1
	}
	z := 0.3 * math.Pow(10, r.Float64()*math.Log10(100/0.3))
	var a float64
	switch r.IntN(6) {
	case 0:
		a = float64(2 + r.IntN(200))
	case 1:
		a = 1 + r.Float64()*1023
	case 2:
		a = 1 + math.Pow(10, -12+11*r.Float64())
	case 3:
		a = 1 + r.Float64()*9
	case 4:
		a = float64(2+r.IntN(100)) + (r.Float64()-0.5)*1e-9
	default:
		a = 1 + r.Float64()*63
	}
	if a <= 1 {
		a = math.Nextafter(1, 2)
	}
	return rdpCase{q, z, a}
}

// checkRDPCase checks the single-order invariants at one point: the value
// is finite and ≥ 0, at most α/(2z²), at least the independent quadrature
// (to its 1e-9 accuracy), exact (close to the quadrature) where the note
// says exact, non-decreasing in the order, and never 0 for q > 0.
func checkRDPCase(t *testing.T, c rdpCase) {
	t.Helper()
	r, note, err := RDPSubsampledGaussianNote(c.q, c.z, c.alpha)
	if err != nil {
		t.Fatalf("%+v: %v", c, err)
	}
	full := c.alpha / (2 * c.z * c.z)
	switch {
	case math.IsNaN(r) || r < 0 || math.IsInf(r, 0):
		t.Fatalf("%+v: RDP %v", c, r)
	case !(r > 0):
		t.Fatalf("%+v: RDP 0 for a non-trivial mechanism", c)
	case r > full*(1+1e-12):
		t.Fatalf("%+v: RDP %v above α/(2z²) = %v", c, r, full)
	}
	quad := rdpQuadrature(c.q, c.z, c.alpha)
	if r < quad*(1-1e-9) {
		t.Fatalf("%+v: RDP %.17g below the quadrature %.17g (%v)", c, r, quad, note)
	}
	if note.Method == RDPExact && quad > 1e-300 && r > quad*(1+1e-6) {
		t.Fatalf("%+v: exact RDP %.17g far above the quadrature %.17g", c, r, quad)
	}
	// Monotone in the order: between exact values (a bound at a lower
	// order may exceed an exact value at a higher one), and every value
	// at most the exact value at the next integer order.
	next := math.Floor(c.alpha) + 1
	if rn, _, _ := RDPSubsampledGaussianNote(c.q, c.z, next); next <= maxExactOrder && r > rn*(1+1e-12) {
		t.Fatalf("%+v: RDP %.17g above the RDP %.17g at the next integer order %v", c, r, rn, next)
	}
	for _, b := range []float64{c.alpha * (1 + 1e-6), c.alpha + 0.5, math.Ceil(c.alpha + 1e-9), c.alpha * 2} {
		if b > 2048 {
			continue
		}
		rb, nb, err := RDPSubsampledGaussianNote(c.q, c.z, b)
		if err != nil {
			t.Fatal(err)
		}
		if note.Method == RDPExact && nb.Method == RDPExact && rb < r*(1-1e-9) {
			t.Fatalf("%+v: RDP decreases from α=%v (%.17g) to α=%v (%.17g)", c, c.alpha, r, b, rb)
		}
	}
}

// A seeded run of the invariant checks over a few hundred random points,
// fractional orders up to 1024 and orders within 1e-12 of 1 included; the
// same checks run unbounded under `make fuzz` (FuzzRDPInvariants).
func TestRDPInvariantsSeeded(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 11))
	n := 400
	if testing.Short() {
		n = 60
	}
	for range n {
		checkRDPCase(t, randomRDPCase(r))
	}
}

func FuzzRDPInvariants(f *testing.F) {
	f.Add(0.5, 20.0, 63.5)
	f.Add(0.5, 20.0, 1.0000000000000002)
	f.Add(0.04, 1.5, 3.9)
	f.Add(1e-6, 100.0, 1.5)
	f.Add(0.999, 0.3, 1000.5)
	f.Fuzz(func(t *testing.T, q, z, alpha float64) {
		// Map any input into the checked domain.
		if math.IsNaN(q) || math.IsNaN(z) || math.IsNaN(alpha) || math.IsInf(q, 0) || math.IsInf(z, 0) || math.IsInf(alpha, 0) {
			t.Skip()
		}
		q = math.Min(math.Max(math.Abs(q), 1e-6), 1)
		z = math.Min(math.Max(math.Abs(z), 0.3), 100)
		alpha = math.Abs(alpha)
		if !(alpha > 1) || alpha > 1024 {
			t.Skip()
		}
		checkRDPCase(t, rdpCase{q, z, alpha})
	})
}

// Grid-level invariants over random (q, z, T, δ, custom grid): ε from any
// grid is at least ε from a superset grid (more orders can only lower the
// minimum) and, for T = 1, q = 1, at least the tight analytic-Gaussian ε;
// the calibrated noise multiplier on a sub-grid of the default is never
// below the default grid's.
func TestEpsilonGridInvariantsSeeded(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 2026))
	n := 60
	if testing.Short() {
		n = 10
	}
	def := OrdersOpacus()
	for range n {
		c := randomRDPCase(r)
		steps := 1 + r.IntN(3000)
		delta := math.Pow(10, -3-7*r.Float64())
		custom := []float64{c.alpha}
		for range 1 + r.IntN(6) {
			custom = append(custom, randomRDPCase(r).alpha)
		}
		union := append(slices.Clone(custom), def...)
		ph := []Phase{{SampleRate: c.q, NoiseMultiplier: c.z, Steps: steps}}
		eC, _, err := Epsilon(ph, delta, custom, ConversionImproved)
		if err != nil {
			t.Fatal(err)
		}
		eU, _, err := Epsilon(ph, delta, union, ConversionImproved)
		if err != nil {
			t.Fatal(err)
		}
		if eC < eU*(1-1e-12) {
			t.Fatalf("%+v T=%d δ=%v: ε(custom %v) = %v below ε(custom ∪ default) = %v", c, steps, delta, custom, eC, eU)
		}
		// T = 1, q = 1: the Gaussian mechanism, whose tight δ(ε) is the
		// analytic Gaussian's; the RDP ε must not be below the tight ε.
		e1, _, err := Epsilon([]Phase{{SampleRate: 1, NoiseMultiplier: c.z, Steps: 1}}, delta, custom, ConversionImproved)
		if err != nil {
			t.Fatal(err)
		}
		if !math.IsInf(e1, 1) {
			tight, err := AnalyticGaussianDelta(c.z, e1, 1)
			if err != nil {
				t.Fatal(err)
			}
			if tight > delta*(1+1e-9) {
				t.Fatalf("z=%v δ=%v grid %v: RDP ε %v is below the tight analytic ε (its δ is %v)", c.z, delta, custom, e1, tight)
			}
		}
	}
	// Calibration on sub-grids of the default grid.
	for range n / 4 {
		q := math.Pow(10, -3*r.Float64())
		steps := 1 + r.IntN(2000)
		target := 0.5 + 8*r.Float64()
		sub := []float64{}
		for _, a := range def {
			if r.IntN(4) == 0 {
				sub = append(sub, a)
			}
		}
		if len(sub) == 0 {
			sub = def[:1]
		}
		zD, errD := NoiseMultiplier(target, 1e-5, q, steps, nil, ConversionImproved)
		zS, errS := NoiseMultiplier(target, 1e-5, q, steps, sub, ConversionImproved)
		if errD != nil || errS != nil {
			continue // unreachable targets are fine, as long as both agree below
		}
		if zS < zD*(1-1e-9) {
			t.Fatalf("q=%v T=%d ε=%v: z on a sub-grid %v below the default grid's %v", q, steps, target, zS, zD)
		}
	}
}

// Regressions of the order-grid defect at the library level.
func TestRDPFractionalRegressions(t *testing.T) {
	r63, _ := RDPSubsampledGaussian(0.5, 20, 63)
	r635, note, err := RDPSubsampledGaussianNote(0.5, 20, 63.5)
	if err != nil || r635 < r63 {
		t.Errorf("RDP(0.5, 20, 63.5) = %v (%v), below RDP at order 63 = %v", r635, err, r63)
	}
	if q := rdpQuadrature(0.5, 20, 63.5); r635 < q*(1-1e-9) || note.Method != RDPExact {
		t.Errorf("RDP(0.5, 20, 63.5) = %v (%v), quadrature %v", r635, note, q)
	}
	for _, a := range []float64{1.0000000000000002, 1 + 1e-12, 1 + 1e-9} {
		r, note, err := RDPSubsampledGaussianNote(0.5, 20, a)
		if err != nil || !(r > 0) {
			t.Errorf("RDP(0.5, 20, %v) = %v, %v", a, r, err)
		}
		if q := rdpQuadrature(0.5, 20, a); r < q*(1-1e-9) {
			t.Errorf("α=%v: RDP %v below quadrature %v (%v)", a, r, q, note)
		}
	}
	// Tiny values never round to 0: q = 1e-9, z = 1e3 gives A − 1 ≈ 5e-25.
	if r, _ := RDPSubsampledGaussian(1e-9, 1e3, 2); !(r > 0) {
		t.Errorf("RDP(1e-9, 1e3, 2) = %v, want > 0", r)
	}
	if r, _ := RDPSubsampledGaussian(1e-300, 1e300, 2); !(r > 0) {
		t.Errorf("RDP(1e-300, 1e300, 2) = %v, want the smallest positive float", r)
	}
}

// (0, 0)-DP only from the inputs: a trivial accountant reports 0, a curve
// of computed zeros does not, and a nil accountant is an error.
func TestZeroPrivacyOnlyFromInputs(t *testing.T) {
	for _, ph := range [][]Phase{nil, {{0, 1, 100}}, {{0.5, math.Inf(1), 100}}, {{0.5, 1, 0}}} {
		eps, _, err := Epsilon(ph, 1e-5, nil, ConversionImproved)
		if err != nil || eps != 0 {
			t.Errorf("trivial phases %v: ε = %v, %v; want 0", ph, eps, err)
		}
	}
	zeros := make([]float64, len(OrdersOpacus()))
	eps, _, err := EpsilonFromRDP(OrdersOpacus(), zeros, 1e-5, ConversionImproved)
	if err != nil || !(eps > 0) {
		t.Errorf("EpsilonFromRDP(zeros) = %v, %v; want the formula's positive value", eps, err)
	}
	acc, _ := NewAccountant(nil)
	if err := acc.AddRDP(zeros); err != nil {
		t.Fatal(err)
	}
	if eps, _, _ := acc.Epsilon(1e-5, ConversionImproved); !(eps > 0) {
		t.Errorf("an AddRDP curve of zeros gave ε = %v; a computed zero is not an input", eps)
	}
	var nilAcc *Accountant
	if _, _, err := nilAcc.Epsilon(1e-5, ConversionImproved); err == nil {
		t.Error("nil accountant: no error")
	}
	if _, _, err := nilAcc.Delta(1, ConversionImproved); err == nil {
		t.Error("nil accountant Delta: no error")
	}
	if err := nilAcc.Add(Phase{0.1, 1, 1}); err == nil {
		t.Error("nil accountant Add: no error")
	}
	if err := nilAcc.AddRDP(zeros); err == nil {
		t.Error("nil accountant AddRDP: no error")
	}
	nilAcc.Reset()
	if nilAcc.Orders() != nil || nilAcc.RDP() != nil || nilAcc.Phases() != nil || nilAcc.Notes() != nil {
		t.Error("nil accountant getters")
	}
}
