package accounting

import (
	"fmt"
	"math"
	"testing"
)

// fdpRel returns |got − want| / |want|.
func fdpRel(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// P1, P2, P3: per-step RDP of the subsampled Gaussian.
func TestFDPPerStepRDP(t *testing.T) {
	cases := []struct {
		name        string
		q, z, alpha float64
		want        float64
		tol         float64
	}{
		{"P1 (0.01,1)", 0.01, 1, 2, 1.7181342207e-4, 1e-9},
		{"P1 (0.1,2)", 0.1, 2, 2, 2.836228266e-3, 1e-9},
		{"P1 (1/16,1)", 1.0 / 16, 1, 2, 6.689612954e-3, 1e-9},
		{"P2 q=1", 1, 2, 10, 1.25, 1e-12},
		{"P3 α=3", 0.01, 1, 3, 2.6463757458e-4, 1e-9},
		{"P3 α=1.5", 0.01, 1, 1.5, 1.2725374351e-4, 1e-8},
		{"P3 α=10", 0.01, 1, 10, 3.827041889e-2, 1e-8},
		{"P3 α=2.5", 1.0 / 16, 1, 2.5, 8.956472120e-3, 1e-8},
		{"P3 α=10 q=1/16", 1.0 / 16, 1, 10, 1.921431404, 1e-8},
	}
	for _, c := range cases {
		got, err := RDPSubsampledGaussian(c.q, c.z, c.alpha)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if fdpRel(got, c.want) > c.tol {
			t.Errorf("%s: RDP = %.12g, want %.12g", c.name, got, c.want)
		}
	}
	// P1 closed form log(1 + q²(e^{1/z²} − 1)).
	for _, qz := range [][2]float64{{0.01, 1}, {0.1, 2}, {1.0 / 16, 1}} {
		got, _ := RDPSubsampledGaussian(qz[0], qz[1], 2)
		want := math.Log1p(qz[0] * qz[0] * math.Expm1(1/(qz[1]*qz[1])))
		if fdpRel(got, want) > 1e-12 {
			t.Errorf("P1 closed form (%v): %v vs %v", qz, got, want)
		}
	}
}

// P4: the fractional-order path at (nearly) integer α agrees with the
// integer path.
func TestFDPFractionalPathMatchesInteger(t *testing.T) {
	for _, qz := range [][2]float64{{0.01, 1}, {1.0 / 16, 1}, {0.1, 2}} {
		for _, a := range []float64{2, 3, 5, 10} {
			c := newSGM(qz[0], qz[1])
			ser, _ := c.fracSeries(a)
			frac, _ := ser.upper()
			integer := c.logAInt(int(a))
			if math.Abs(frac-integer) > 1e-9*math.Max(1e-300, math.Abs(integer)) {
				t.Errorf("P4 (q,z)=%v α=%v: frac %v vs int %v", qz, a, frac, integer)
			}
		}
	}
}

// P5, P6 (Table I), P7 (Purchase steps), P9 (Criteo grid).
func TestFDPTableIEpsilon(t *testing.T) {
	cases := []struct {
		name          string
		q, z          float64
		steps         int
		delta         float64
		want, classic float64
		order         float64
		tol           float64
	}{
		{"P5 AFHQ", 128.0 / 14630, 0.86, 11430, 1.0 / 29260, 7.9936, 8.8415, 3.4, 1e-4},
		{"P6 LSUN", 16384.0 / 3033042, 15.6, 92561, 1.0 / 6066084, 0.49593, 0.59530, 47, 1e-4},
	}
	for _, c := range cases {
		eps, order, err := FDPAlg1Epsilon(c.q, c.z, c.steps, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		if fdpRel(eps, c.want) > c.tol || order != c.order {
			t.Errorf("%s: ε = %.6f (α* %v), want %.5g (α* %v)", c.name, eps, order, c.want, c.order)
		}
		cl, _, err := Epsilon([]Phase{{c.q, c.z, c.steps}}, c.delta, OrdersOpacus(), ConversionClassic)
		if err != nil {
			t.Fatal(err)
		}
		if fdpRel(cl, c.classic) > c.tol {
			t.Errorf("%s classic: ε = %.6f, want %.5g", c.name, cl, c.classic)
		}
	}
	// P7.
	for _, c := range []struct {
		steps int
		want  float64
	}{{16, 2.764}, {64, 4.203}, {320, 8.443}, {286, 7.988}, {55, 3.981}} {
		eps, _, err := FDPAlg1Epsilon(1.0/16, 1, c.steps, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(eps-c.want) > 6e-4 {
			t.Errorf("P7 T=%d: ε = %.5f, want %.3f", c.steps, eps, c.want)
		}
	}
	for i, target := range []float64{3, 4, 6, 8} {
		want := []int{22, 55, 154, 286}[i]
		got, err := FDPMaxSteps(target, 1.0/16, 1, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("P7 largest T with ε ≤ %v: %d, want %d", target, got, want)
		}
	}
	// P9 Criteo grid, N = 40,000.
	for _, c := range []struct {
		b      int
		z      float64
		epochs int
		want   float64
	}{{1000, 1, 1, 1.779}, {1000, 1, 20, 4.936}, {1000, 6, 10, 0.316}, {4000, 2, 10, 2.581}, {8000, 1, 5, 8.250}, {8000, 6, 20, 1.436}} {
		q := float64(c.b) / 40000
		steps := int(math.Round(float64(c.epochs) / q))
		eps, _, err := FDPAlg1Epsilon(q, c.z, steps, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(eps-c.want) > 6e-4 {
			t.Errorf("P9 B=%d z=%v %d ep: ε = %.4f, want %.3f", c.b, c.z, c.epochs, eps, c.want)
		}
	}
}

// P8: calibration, Opacus bisection and the exact root.
func TestFDPCalibration(t *testing.T) {
	if testing.Short() {
		t.Skip("calibration takes a few seconds")
	}
	cases := []struct {
		name         string
		q            float64
		steps        int
		delta, eps   float64
		root, opacus float64
		rootTol      float64
	}{
		{"AFHQ", 128.0 / 14630, 11430, 1.0 / 29260, 8, 0.8597, 0.8599853515625, 1e-4},
		{"LSUN", 16384.0 / 3033042, 92561, 1.0 / 6066084, 0.5, 15.48, 15.625, 5e-3},
		{"q=0.01 ε=1", 0.01, 2000, 1e-5, 1, 1.981, 1.9921875, 1e-3},
		{"q=0.01 ε=8", 0.01, 2000, 1e-5, 8, 0.671, 0.67169189453125, 1e-3},
	}
	for _, c := range cases {
		op, err := NoiseMultiplierOpacus(c.eps, c.delta, c.q, c.steps)
		if err != nil {
			t.Fatal(err)
		}
		if op != c.opacus {
			t.Errorf("P8 %s: Opacus z = %.13g, want %.13g", c.name, op, c.opacus)
		}
		root, err := NoiseMultiplier(c.eps, c.delta, c.q, c.steps, OrdersOpacus(), ConversionImproved)
		if err != nil {
			t.Fatal(err)
		}
		if fdpRel(root, c.root) > c.rootTol {
			t.Errorf("P8 %s: root z = %.6f, want %.4g", c.name, root, c.root)
		}
	}
}

// P10: exact μ-GDP conversions, via GDPEpsilon and via the numeric Thm 2
// conversion of the trade-off function G_μ.
func TestFDPGDPConversion(t *testing.T) {
	for _, c := range []struct{ mu, want float64 }{{0.5, 1.993091}, {1, 4.377178}, {2, 9.997256}} {
		e1, err := GDPEpsilon(c.mu, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		mu := c.mu
		e2, err := FDPEpsilonFromPower(func(a float64) float64 { return fdpGaussianPower(mu, a) }, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		if fdpRel(e1, c.want) > 1e-6 || fdpRel(e2, c.want) > 1e-6 {
			t.Errorf("P10 μ=%v: GDPEpsilon %.7f, Thm 2 numeric %.7f, want %.6f", c.mu, e1, e2, c.want)
		}
	}
	d, _ := GDPDelta(1, 1)
	if fdpRel(d, 0.1269367) > 1e-6 {
		t.Errorf("P10 δ(ε=1; μ=1) = %v", d)
	}
	// Thm 2 on f_{ε,δ} gives back ε.
	for _, e := range []float64{0.5, 1, 3} {
		got, err := FDPEpsilonFromTradeOff(func(a float64) float64 { v, _ := FDPTradeOffApprox(e, 1e-6, a); return v }, 1e-6)
		if err != nil || math.Abs(got-e) > 1e-5 {
			t.Errorf("Thm 2 on f_{ε,δ}, ε=%v: got %v (%v)", e, got, err)
		}
	}
}

// P11: RDP upper-bounds the exact GDP value (q=1, z=2, T=4 ⇒ μ=1).
func TestFDPRDPUpperBoundsExact(t *testing.T) {
	rdp, _, err := FDPAlg1Epsilon(1, 2, 4, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	exact, _ := GDPEpsilon(1, 1e-5)
	if math.Abs(rdp-4.7285) > 1e-3 || math.Abs(exact-4.3772) > 1e-3 || rdp < exact {
		t.Errorf("P11: RDP %v, exact %v", rdp, exact)
	}
}

// P12: the exact one-step subsampled-Gaussian δ(ε) (reused
// SubsampledGaussianDelta), with the spec's closed form, and RDP(T=1) ≥ it.
func TestFDPOneStepExact(t *testing.T) {
	phi := func(x float64) float64 { return 0.5 * math.Erfc(x/math.Sqrt2) } // Φ̄
	cases := []struct{ q, z, eps, rdp float64 }{
		{0.01, 1, 0.199450, 0.956}, {0.1, 1, 1.684544, 2.133}, {0.01, 0.5, 3.025358, 4.395}, {0.5, 2, 1.353573, 1.523},
	}
	for _, c := range cases {
		d, err := SubsampledGaussianDelta(c.q, c.z, c.eps)
		if err != nil {
			t.Fatal(err)
		}
		if fdpRel(d, 1e-5) > 1e-4 {
			t.Errorf("P12 (%v,%v): δ(%v) = %v, want 1e-5", c.q, c.z, c.eps, d)
		}
		xs := c.z*c.z*math.Log((math.Exp(c.eps)-1+c.q)/c.q) + 0.5
		closed := (1-c.q)*phi(xs/c.z) + c.q*phi((xs-1)/c.z) - math.Exp(c.eps)*phi(xs/c.z)
		if fdpRel(closed, d) > 1e-6 {
			t.Errorf("P12 closed form %v vs %v", closed, d)
		}
		r, _, _ := FDPAlg1Epsilon(c.q, c.z, 1, 1e-5)
		if r < c.eps || math.Abs(r-c.rdp) > 2e-3 {
			t.Errorf("P12 RDP(T=1) (%v,%v) = %v, want ≈ %v ≥ %v", c.q, c.z, r, c.rdp, c.eps)
		}
	}
}

// P13: CLT μ (loose agreement only).
func TestFDPCLT(t *testing.T) {
	mu, err := PoissonCLTMu(128.0/14630, 0.86, 11430)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := GDPEpsilon(mu, 1.0/29260)
	if math.Abs(mu-1.5834) > 1e-3 || math.Abs(e-7.06) > 0.02 {
		t.Errorf("P13 AFHQ μ = %v, ε_CLT = %v", mu, e)
	}
}

// P14: monotonicity of ε and of the calibrated z.
func TestFDPMonotonicity(t *testing.T) {
	base, _, _ := FDPAlg1Epsilon(0.05, 1.2, 200, 1e-5)
	for _, c := range []struct {
		name   string
		q, z   float64
		T      int
		delta  float64
		bigger bool
	}{
		{"T up", 0.05, 1.2, 400, 1e-5, true},
		{"q up", 0.1, 1.2, 200, 1e-5, true},
		{"z up", 0.05, 1.5, 200, 1e-5, false},
		{"δ up", 0.05, 1.2, 200, 1e-3, false},
	} {
		e, _, _ := FDPAlg1Epsilon(c.q, c.z, c.T, c.delta)
		if (e > base) != c.bigger {
			t.Errorf("P14 %s: ε %v vs base %v", c.name, e, base)
		}
	}
	z1, _ := NoiseMultiplier(2, 1e-5, 0.01, 500, OrdersOpacus(), ConversionImproved)
	z2, _ := NoiseMultiplier(2, 1e-5, 0.01, 1000, OrdersOpacus(), ConversionImproved)
	z3, _ := NoiseMultiplier(2, 1e-5, 0.005, 500, OrdersOpacus(), ConversionImproved) // larger n, same m
	if !(z2 > z1 && z3 < z1) {
		t.Errorf("P14 calibration: z(T=500) %v, z(T=1000) %v, z(n×2) %v", z1, z2, z3)
	}
}

// P15: single-batch ablation accounting vs Algorithm 1.
func TestFDPSingleBatchAccounting(t *testing.T) {
	sb, err := FDPSingleBatchEpsilon(1.0/16, 1, 286, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	a1, _, _ := FDPAlg1Epsilon(1.0/16, 1, 286, 1e-5)
	if math.Abs(sb-32.04) > 0.01 || math.Abs(a1-7.988) > 6e-4 {
		t.Errorf("P15: single-batch ε = %.4f (want ≈ 32.04), Alg. 1 ε = %.4f (want 7.988)", sb, a1)
	}
	z, err := FDPSingleBatchNoiseMultiplier(sb, 1.0/16, 286, 1e-5)
	if err != nil || math.Abs(z-1) > 1e-5 {
		t.Errorf("single-batch calibration: z = %v (%v), want 1", z, err)
	}
	// q = 1 fallback is √T/z-GDP.
	full, _ := FDPSingleBatchEpsilon(1, 2, 4, 1e-5)
	gdp, _ := GDPEpsilon(1, 1e-5)
	if fdpRel(full, gdp) > 1e-8 {
		t.Errorf("P15 q=1: %v vs GDP %v", full, gdp)
	}
	// Monotone in q: more inclusions, more loss.
	sbLo, _ := FDPSingleBatchEpsilon(1.0/32, 1, 286, 1e-5)
	if !(sbLo < sb && sb < 45) {
		t.Errorf("P15 monotonicity: %v vs %v", sbLo, sb)
	}
}

// A12: Prop. 3 toy — no amplification by subsampling for FDP.
func TestFDPProp3NoAmplification(t *testing.T) {
	for _, p := range []float64{0.001, 0.01, 0.1, 0.5} {
		got, s, amp, err := FDPProp3Toy(1, p)
		if err != nil {
			t.Fatal(err)
		}
		if got != 1 || fdpRel(s, p*math.E/(1+math.Exp(2))) > 1e-12 {
			t.Errorf("A12 p=%v: simulator ε' = %v (s=%v), want exactly 1", p, got, s)
		}
		if !(amp < 1) {
			t.Errorf("A12 p=%v: DP amplification %v should be < 1", p, amp)
		}
	}
	p0, _ := FDPProp3MaxRate(1)
	p05, _ := FDPProp3MaxRate(0.5)
	if math.Abs(p0-0.830) > 1e-3 || math.Abs(p05-0.851) > 1e-3 {
		t.Errorf("A12 p₀(1) = %v, p₀(0.5) = %v", p0, p05)
	}
	// Above p₀ the best simulator is worse than ε, never better.
	got, _, _, _ := FDPProp3Toy(1, 0.95)
	if !(got > 1) {
		t.Errorf("A12 p=0.95: ε' = %v, want > 1", got)
	}
}

// A13: Thm 4 attribute-inference bound, randomized response and the K-ary
// Gaussian histogram (exact integral against the bound).
func TestFDPAttributeInference(t *testing.T) {
	for _, c := range []struct{ eps, succ, bound float64 }{{0.1, 0.52498, 0.55259}, {0.5, 0.62246, 0.82436}} {
		s, _ := FDPRandomizedResponseSuccess(c.eps)
		b, err := FDPAttributeInferenceBound(c.eps, 0, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(s-c.succ) > 1e-5 || math.Abs(b-c.bound) > 1e-5 || s > b {
			t.Errorf("A13 RR ε=%v: success %v (want %v), bound %v (want %v)", c.eps, s, c.succ, b, c.bound)
		}
	}
	for _, c := range []struct {
		k            int
		mu, succ, bd float64
	}{{1000, 1, 0.016604, 0.018298}, {1000, 0.5, 0.004535, 0.004796}, {1000, 2, 0.120286, 0.137805}, {2, 1, 0.760250, 0.841345}} {
		s, err := FDPGaussianArgmaxSuccess(c.k, c.mu)
		if err != nil {
			t.Fatal(err)
		}
		b, err := FDPAttributeInferenceBoundGDP(c.mu, 1/float64(c.k))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(s-c.succ) > 1e-6 || math.Abs(b-c.bd) > 1e-6 || s > b {
			t.Errorf("A13 (K=%d, μ=%v): success %.6f (want %.6f), bound %.6f (want %.6f)", c.k, c.mu, s, c.succ, b, c.bd)
		}
	}
	// Clamping.
	if b, _ := FDPAttributeInferenceBound(8, 1e-5, 0.5); b != 1 {
		t.Errorf("bound at ε=8, Ball=1/2 = %v, want 1", b)
	}
}

// A14: Prop. 1 map.
func TestFDPProp1(t *testing.T) {
	e, d, err := FDPProp1(1, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if e != 2 || math.Abs(d-3.718281828e-5) > 1e-13 {
		t.Errorf("A14: (%v, %v)", e, d)
	}
	// Trade-off form agrees with the (ε,δ) map.
	pw := FDPProp1Power(func(a float64) float64 { return math.Min(1, math.E*a+1e-5) })
	for _, a := range []float64{1e-6, 1e-3, 0.05} {
		want := math.Min(1, math.Exp(2)*a+d)
		if fdpRel(pw(a), want) > 1e-12 {
			t.Errorf("A14 power form at α=%v: %v vs %v", a, pw(a), want)
		}
	}
}

// Trade-off helpers: values, clamping, G_μ properties.
func TestFDPTradeOffFunctions(t *testing.T) {
	cases := []struct {
		name             string
		eps, delta, a, w float64
	}{
		{"α=0", 1, 0.1, 0, 0.9},
		{"interior", 0, 0, 0.3, 0.7},
		{"clamped", 2, 0.01, 0.5, 0},
	}
	for _, c := range cases {
		got, err := FDPTradeOffApprox(c.eps, c.delta, c.a)
		if err != nil || math.Abs(got-c.w) > 1e-15 {
			t.Errorf("%s: f = %v (%v), want %v", c.name, got, err, c.w)
		}
	}
	for _, a := range []float64{0, 1e-8, 0.2, 0.5, 1} {
		g0, _ := FDPTradeOffGaussian(0, a)
		if math.Abs(g0-(1-a)) > 1e-12 {
			t.Errorf("G_0(%v) = %v", a, g0)
		}
	}
	// Symmetry of G_μ: G_μ(G_μ(α)) = α.
	for _, a := range []float64{0.01, 0.3, 0.7} {
		g, _ := FDPTradeOffGaussian(1.3, a)
		gg, _ := FDPTradeOffGaussian(1.3, g)
		if math.Abs(gg-a) > 1e-12 {
			t.Errorf("G_μ not symmetric at %v: %v", a, gg)
		}
	}
}

func TestFDPBadInput(t *testing.T) {
	nan := math.NaN()
	errs := []error{}
	add := func(err error) { errs = append(errs, err) }
	_, err := FDPTradeOffApprox(-1, 0, 0.5)
	add(err)
	_, err = FDPTradeOffApprox(1, 2, 0.5)
	add(err)
	_, err = FDPTradeOffApprox(1, 0, nan)
	add(err)
	_, err = FDPTradeOffGaussian(nan, 0.5)
	add(err)
	_, err = FDPGaussianPower(1, 1.5)
	add(err)
	_, err = FDPEpsilonFromPower(nil, 1e-5)
	add(err)
	_, err = FDPEpsilonFromPower(func(float64) float64 { return 1 }, 0)
	add(err)
	_, err = FDPEpsilonFromPower(func(float64) float64 { return nan }, 1e-5)
	add(err)
	_, err = FDPEpsilonFromTradeOff(nil, 1e-5)
	add(err)
	_, _, err = FDPProp1(math.Inf(1), 0)
	add(err)
	_, _, err = FDPProp1(1, -0.1)
	add(err)
	_, err = FDPAttributeInferenceBound(1, 0, 2)
	add(err)
	_, err = FDPAttributeInferenceBoundGDP(-1, 0.1)
	add(err)
	_, err = FDPRandomizedResponseSuccess(nan)
	add(err)
	_, err = FDPGaussianArgmaxSuccess(0, 1)
	add(err)
	_, err = FDPGaussianArgmaxSuccess(10, math.Inf(1))
	add(err)
	_, _, err = FDPAlg1Epsilon(1.5, 1, 10, 1e-5)
	add(err)
	_, err = FDPSingleBatchDelta(0.1, 0, 10, 1)
	add(err)
	_, err = FDPSingleBatchDelta(0.1, 1, -1, 1)
	add(err)
	_, err = FDPSingleBatchEpsilon(0.1, 1, 10, 1)
	add(err)
	_, _, _, err = FDPProp3Toy(0, 0.1)
	add(err)
	_, _, _, err = FDPProp3Toy(1, 1)
	add(err)
	_, err = FDPProp3MaxRate(nan)
	add(err)
	for i, e := range errs {
		if e == nil {
			t.Errorf("bad-input case %d: no error", i)
		}
	}
}

func ExampleFDPAttributeInferenceBound() {
	// Algorithm 1 on Purchase-like data: q = 1/16, z = 1, 286 steps.
	eps, _, _ := FDPAlg1Epsilon(1.0/16, 1, 286, 1e-5)
	// A private attribute with prior mass 1e-4 on its most likely value.
	b, _ := FDPAttributeInferenceBound(eps, 1e-5, 1e-4)
	fmt.Printf("ε = %.3f, attribute-inference success ≤ %.3f\n", eps, b)
	// Output: ε = 7.988, attribute-inference success ≤ 0.295
}

func ExampleFDPSingleBatchEpsilon() {
	sb, _ := FDPSingleBatchEpsilon(1.0/16, 1, 286, 1e-5)
	a1, _, _ := FDPAlg1Epsilon(1.0/16, 1, 286, 1e-5)
	fmt.Printf("single batch ε = %.2f, two batches (Alg. 1) ε = %.3f\n", sb, a1)
	// Output: single batch ε = 32.04, two batches (Alg. 1) ε = 7.988
}

// Spec §6 item 14: the steps conventions.
func TestFDPSteps(t *testing.T) {
	q := 128.0 / 14630
	for _, c := range []struct {
		r    FDPStepsRounding
		want int
	}{{FDPStepsRound, 11430}, {FDPStepsFloor, 11429}, {FDPStepsLoader, 11500}} {
		got, err := FDPSteps(100, q, c.r)
		if err != nil || got != c.want {
			t.Errorf("rounding %d: %d (%v), want %d", c.r, got, err, c.want)
		}
	}
	if _, err := FDPSteps(-1, q, FDPStepsRound); err == nil {
		t.Error("negative epochs accepted")
	}
	if _, err := FDPSteps(1, 0, FDPStepsRound); err == nil {
		t.Error("q = 0 accepted")
	}
}
