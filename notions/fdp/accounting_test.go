package fdp

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/internal/numeric"
)

// rel returns |got − want| / |want|.
func rel(got, want float64) float64 { return math.Abs(got-want) / math.Abs(want) }

// P5, P6 (Table I), P7 (Purchase steps), P9 (Criteo grid).
func TestTableIEpsilon(t *testing.T) {
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
		eps, order, err := Alg1Epsilon(c.q, c.z, c.steps, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		if rel(eps, c.want) > c.tol || order != c.order {
			t.Errorf("%s: ε = %.6f (α* %v), want %.5g (α* %v)", c.name, eps, order, c.want, c.order)
		}
		cl, _, err := accounting.Epsilon([]accounting.Phase{{SampleRate: c.q, NoiseMultiplier: c.z, Steps: c.steps}}, c.delta, accounting.OrdersOpacus(), accounting.ConversionClassic)
		if err != nil {
			t.Fatal(err)
		}
		if rel(cl, c.classic) > c.tol {
			t.Errorf("%s classic: ε = %.6f, want %.5g", c.name, cl, c.classic)
		}
	}
	// P7.
	for _, c := range []struct {
		steps int
		want  float64
	}{{16, 2.764}, {64, 4.203}, {320, 8.443}, {286, 7.988}, {55, 3.981}} {
		eps, _, err := Alg1Epsilon(1.0/16, 1, c.steps, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(eps-c.want) > 6e-4 {
			t.Errorf("P7 T=%d: ε = %.5f, want %.3f", c.steps, eps, c.want)
		}
	}
	for i, target := range []float64{3, 4, 6, 8} {
		want := []int{22, 55, 154, 286}[i]
		got, err := MaxSteps(target, 1.0/16, 1, 1e-5)
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
		eps, _, err := Alg1Epsilon(q, c.z, steps, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(eps-c.want) > 6e-4 {
			t.Errorf("P9 B=%d z=%v %d ep: ε = %.4f, want %.3f", c.b, c.z, c.epochs, eps, c.want)
		}
	}
}

// P10: exact μ-GDP conversions, via accounting.GDPEpsilon and via the numeric Thm 2
// conversion of the trade-off function G_μ.
func TestGDPConversion(t *testing.T) {
	for _, c := range []struct{ mu, want float64 }{{0.5, 1.993091}, {1, 4.377178}, {2, 9.997256}} {
		e1, err := accounting.GDPEpsilon(c.mu, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		mu := c.mu
		e2, err := EpsilonFromPower(func(a float64) float64 { return gaussianPower(mu, a) }, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		if rel(e1, c.want) > 1e-6 || rel(e2, c.want) > 1e-6 {
			t.Errorf("P10 μ=%v: accounting.GDPEpsilon %.7f, Thm 2 numeric %.7f, want %.6f", c.mu, e1, e2, c.want)
		}
	}
	d, _ := accounting.GDPDelta(1, 1)
	if rel(d, 0.1269367) > 1e-6 {
		t.Errorf("P10 δ(ε=1; μ=1) = %v", d)
	}
	// Thm 2 on f_{ε,δ} gives back ε.
	for _, e := range []float64{0.5, 1, 3} {
		got, err := EpsilonFromTradeOff(func(a float64) float64 { v, _ := TradeOffApprox(e, 1e-6, a); return v }, 1e-6)
		if err != nil || math.Abs(got-e) > 1e-5 {
			t.Errorf("Thm 2 on f_{ε,δ}, ε=%v: got %v (%v)", e, got, err)
		}
	}
}

// P11: RDP upper-bounds the exact GDP value (q=1, z=2, T=4 ⇒ μ=1).
func TestRDPUpperBoundsExact(t *testing.T) {
	rdp, _, err := Alg1Epsilon(1, 2, 4, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	exact, _ := accounting.GDPEpsilon(1, 1e-5)
	if math.Abs(rdp-4.7285) > 1e-3 || math.Abs(exact-4.3772) > 1e-3 || rdp < exact {
		t.Errorf("P11: RDP %v, exact %v", rdp, exact)
	}
}

// P14: monotonicity of ε and of the calibrated z.
func TestMonotonicity(t *testing.T) {
	base, _, _ := Alg1Epsilon(0.05, 1.2, 200, 1e-5)
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
		e, _, _ := Alg1Epsilon(c.q, c.z, c.T, c.delta)
		if (e > base) != c.bigger {
			t.Errorf("P14 %s: ε %v vs base %v", c.name, e, base)
		}
	}
	z1, _ := accounting.NoiseMultiplier(2, 1e-5, 0.01, 500, accounting.DefaultOrders(), accounting.DefaultConversion)
	z2, _ := accounting.NoiseMultiplier(2, 1e-5, 0.01, 1000, accounting.DefaultOrders(), accounting.DefaultConversion)
	z3, _ := accounting.NoiseMultiplier(2, 1e-5, 0.005, 500, accounting.DefaultOrders(), accounting.DefaultConversion) // larger n, same m
	if !(z2 > z1 && z3 < z1) {
		t.Errorf("P14 calibration: z(T=500) %v, z(T=1000) %v, z(n×2) %v", z1, z2, z3)
	}
}

// P15: single-batch ablation accounting vs Algorithm 1.
func TestSingleBatchAccounting(t *testing.T) {
	sb, err := SingleBatchEpsilon(1.0/16, 1, 286, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	a1, _, _ := Alg1Epsilon(1.0/16, 1, 286, 1e-5)
	if math.Abs(sb-32.04) > 0.01 || math.Abs(a1-7.988) > 6e-4 {
		t.Errorf("P15: single-batch ε = %.4f (want ≈ 32.04), Alg. 1 ε = %.4f (want 7.988)", sb, a1)
	}
	z, err := SingleBatchNoiseMultiplier(sb, 1.0/16, 286, 1e-5)
	if err != nil || math.Abs(z-1) > 1e-5 {
		t.Errorf("single-batch calibration: z = %v (%v), want 1", z, err)
	}
	// Huge targets: the bisection goes below the accountant's ε range
	// (1e7), whose error means "z too small", never a calibrated z = 0.
	for _, target := range []float64{3e6, 6e6, 9e6} {
		z, err := SingleBatchNoiseMultiplier(target, 1, 100, 1e-5)
		if err != nil {
			continue // unreachable is a valid answer
		}
		if e, err := SingleBatchEpsilon(1, z, 100, 1e-5); !(z > 0) || err != nil || e > target {
			t.Errorf("target ε = %g: z = %v gives ε %v (%v)", target, z, e, err)
		}
	}
	// q = 1 fallback is √T/z-GDP.
	full, _ := SingleBatchEpsilon(1, 2, 4, 1e-5)
	gdp, _ := accounting.GDPEpsilon(1, 1e-5)
	if rel(full, gdp) > 1e-8 {
		t.Errorf("P15 q=1: %v vs GDP %v", full, gdp)
	}
	// Monotone in q: more inclusions, more loss.
	sbLo, _ := SingleBatchEpsilon(1.0/32, 1, 286, 1e-5)
	if !(sbLo < sb && sb < 45) {
		t.Errorf("P15 monotonicity: %v vs %v", sbLo, sb)
	}
}

// A13: Thm 4 attribute-inference bound, randomized response and the K-ary
// Gaussian histogram (exact integral against the bound).
func TestAttributeInference(t *testing.T) {
	for _, c := range []struct{ eps, succ, bound float64 }{{0.1, 0.52498, 0.55259}, {0.5, 0.62246, 0.82436}} {
		s, _ := RandomizedResponseSuccess(c.eps)
		b, err := AttributeInferenceBound(c.eps, 0, 0.5)
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
		s, err := GaussianArgmaxSuccess(c.k, c.mu)
		if err != nil {
			t.Fatal(err)
		}
		b, err := AttributeInferenceBoundGDP(c.mu, 1/float64(c.k))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(s-c.succ) > 1e-6 || math.Abs(b-c.bd) > 1e-6 || s > b {
			t.Errorf("A13 (K=%d, μ=%v): success %.6f (want %.6f), bound %.6f (want %.6f)", c.k, c.mu, s, c.succ, b, c.bd)
		}
	}
	// Clamping.
	if b, _ := AttributeInferenceBound(8, 1e-5, 0.5); b != 1 {
		t.Errorf("bound at ε=8, Ball=1/2 = %v, want 1", b)
	}
}

// A14: Prop. 1 map.
func TestSimulatorToReplacement(t *testing.T) {
	e, d, err := SimulatorToReplacement(1, 1e-5)
	if err != nil {
		t.Fatal(err)
	}
	if e != 2 || math.Abs(d-3.718281828e-5) > 1e-13 {
		t.Errorf("A14: (%v, %v)", e, d)
	}
	// Trade-off form agrees with the (ε,δ) map.
	pw := SimulatorToReplacementPower(func(a float64) float64 { return math.Min(1, math.E*a+1e-5) })
	for _, a := range []float64{1e-6, 1e-3, 0.05} {
		want := math.Min(1, math.Exp(2)*a+d)
		if rel(pw(a), want) > 1e-12 {
			t.Errorf("A14 power form at α=%v: %v vs %v", a, pw(a), want)
		}
	}
}

// Trade-off helpers: values, clamping, G_μ properties.
func TestTradeOffFunctions(t *testing.T) {
	cases := []struct {
		name             string
		eps, delta, a, w float64
	}{
		{"α=0", 1, 0.1, 0, 0.9},
		{"interior", 0, 0, 0.3, 0.7},
		{"clamped", 2, 0.01, 0.5, 0},
	}
	for _, c := range cases {
		got, err := TradeOffApprox(c.eps, c.delta, c.a)
		if err != nil || math.Abs(got-c.w) > 1e-15 {
			t.Errorf("%s: f = %v (%v), want %v", c.name, got, err, c.w)
		}
	}
	for _, a := range []float64{0, 1e-8, 0.2, 0.5, 1} {
		g0, _ := TradeOffGaussian(0, a)
		if math.Abs(g0-(1-a)) > 1e-12 {
			t.Errorf("G_0(%v) = %v", a, g0)
		}
	}
	// Symmetry of G_μ: G_μ(G_μ(α)) = α.
	for _, a := range []float64{0.01, 0.3, 0.7} {
		g, _ := TradeOffGaussian(1.3, a)
		gg, _ := TradeOffGaussian(1.3, g)
		if math.Abs(gg-a) > 1e-12 {
			t.Errorf("G_μ not symmetric at %v: %v", a, gg)
		}
	}
}

func TestBadInput(t *testing.T) {
	nan := math.NaN()
	errs := []error{}
	add := func(err error) { errs = append(errs, err) }
	_, err := TradeOffApprox(-1, 0, 0.5)
	add(err)
	_, err = TradeOffApprox(1, 2, 0.5)
	add(err)
	_, err = TradeOffApprox(1, 0, nan)
	add(err)
	_, err = TradeOffGaussian(nan, 0.5)
	add(err)
	_, err = GaussianPower(1, 1.5)
	add(err)
	_, err = EpsilonFromPower(nil, 1e-5)
	add(err)
	_, err = EpsilonFromPower(func(float64) float64 { return 1 }, 0)
	add(err)
	_, err = EpsilonFromPower(func(float64) float64 { return nan }, 1e-5)
	add(err)
	_, err = EpsilonFromTradeOff(nil, 1e-5)
	add(err)
	_, _, err = SimulatorToReplacement(math.Inf(1), 0)
	add(err)
	_, _, err = SimulatorToReplacement(1, -0.1)
	add(err)
	_, err = AttributeInferenceBound(1, 0, 2)
	add(err)
	_, err = AttributeInferenceBoundGDP(-1, 0.1)
	add(err)
	_, err = RandomizedResponseSuccess(nan)
	add(err)
	_, err = GaussianArgmaxSuccess(0, 1)
	add(err)
	_, err = GaussianArgmaxSuccess(10, math.Inf(1))
	add(err)
	_, _, err = Alg1Epsilon(1.5, 1, 10, 1e-5)
	add(err)
	_, err = SingleBatchDelta(0.1, 0, 10, 1)
	add(err)
	_, err = SingleBatchDelta(0.1, 1, -1, 1)
	add(err)
	_, err = SingleBatchEpsilon(0.1, 1, 10, 1)
	add(err)
	for i, e := range errs {
		if e == nil {
			t.Errorf("bad-input case %d: no error", i)
		}
	}
}

func ExampleAttributeInferenceBound() {
	// Algorithm 1 on Purchase-like data: q = 1/16, z = 1, 286 steps.
	eps, _, _ := Alg1Epsilon(1.0/16, 1, 286, 1e-5)
	// A private attribute with prior mass 1e-4 on its most likely value.
	b, _ := AttributeInferenceBound(eps, 1e-5, 1e-4)
	fmt.Printf("ε = %.3f, attribute-inference success ≤ %.3f\n", eps, b)
	// Output: ε = 7.988, attribute-inference success ≤ 0.295
}

func ExampleSingleBatchEpsilon() {
	sb, _ := SingleBatchEpsilon(1.0/16, 1, 286, 1e-5)
	a1, _, _ := Alg1Epsilon(1.0/16, 1, 286, 1e-5)
	fmt.Printf("single batch ε = %.2f, two batches (Alg. 1) ε = %.3f\n", sb, a1)
	// Output: single batch ε = 32.04, two batches (Alg. 1) ε = 7.988
}

// The steps conventions (docs/feature-dp.md, 'Where we differ').
func TestSteps(t *testing.T) {
	q := 128.0 / 14630
	for _, c := range []struct {
		r    StepsRounding
		want int
	}{{StepsRound, 11430}, {StepsFloor, 11429}, {StepsLoader, 11500}} {
		got, err := Steps(100, q, c.r)
		if err != nil || got != c.want {
			t.Errorf("rounding %d: %d (%v), want %d", c.r, got, err, c.want)
		}
	}
	if _, err := Steps(-1, q, StepsRound); err == nil {
		t.Error("negative epochs accepted")
	}
	if _, err := Steps(1, 0, StepsRound); err == nil {
		t.Error("q = 0 accepted")
	}
}

// SimulatorToReplacement is Prop. 1's map (2ε, δ(1 + e^ε)) exactly, through
// the relation change of package accounting; a vacuous δ′ is an error.
func TestSimulatorToReplacementMap(t *testing.T) {
	for _, eps := range []float64{0, 0.5, 1, 2, 4, 8} {
		for _, delta := range []float64{0, 1e-10, 1e-5, 1e-4} {
			e2, d2, err := SimulatorToReplacement(eps, delta)
			if err != nil {
				t.Fatal(err)
			}
			if e2 != 2*eps || d2 != delta*(1+math.Exp(eps)) {
				t.Errorf("(%v, %v) ↦ (%v, %v), want (%v, %v)", eps, delta, e2, d2, 2*eps, delta*(1+math.Exp(eps)))
			}
		}
	}
	if _, _, err := SimulatorToReplacement(10, 1e-4); err == nil {
		t.Error("δ(1 + e^10) > 1 accepted")
	}
}

// TestEpsilonFromPowerEdge: when the supremum of log((β(α) − δ)/α) lies
// below the searched range of α, the grid's best value is not ε and must
// not be returned as one. Old code: EpsilonFromTradeOff of G_3 at δ = 1e-10
// returned 15.17 (true 23.05), and a trade-off with δ' = 2δ > δ (no
// finite ε at δ) returned 11.5 (tradeoff) and 678 (power).
func TestEpsilonFromPowerEdge(t *testing.T) {
	gauss := func(mu float64) func(float64) float64 {
		return func(a float64) float64 { v, _ := TradeOffGaussian(mu, a); return v }
	}
	floor := func(a float64) float64 { return math.Max(0, 1-2e-5-math.E*a) } // f_{1, 2e-5}
	for _, c := range []struct {
		name    string
		f       func(float64) float64
		power   bool // EpsilonFromPower of 1 − f, else EpsilonFromTradeOff of f
		delta   float64
		wantErr bool
	}{
		{"G_1 δ=1e-5 trade-off", gauss(1), false, 1e-5, false},
		{"f_{ε,δ} flat, trade-off", func(a float64) float64 { v, _ := TradeOffApprox(0.01, 1e-6, a); return v }, false, 1e-6, false},
		{"G_3 δ=1e-10 trade-off, optimum below 1e-10", gauss(3), false, 1e-10, true},
		{"G_8 δ=1e-15 trade-off", gauss(8), false, 1e-15, true},
		{"δ' = 2δ trade-off", floor, false, 1e-5, true},
		{"δ' = 2δ power", floor, true, 1e-5, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got float64
			var err error
			if c.power {
				f := c.f
				got, err = EpsilonFromPower(func(a float64) float64 { return 1 - f(a) }, c.delta)
			} else {
				got, err = EpsilonFromTradeOff(c.f, c.delta)
			}
			if (err != nil) != c.wantErr {
				t.Fatalf("ε = %v, err = %v, want error %v", got, err, c.wantErr)
			}
		})
	}
}

// singleBatchDeltaFull is SingleBatchDelta's sum over every k = 1..T, the
// reference for its windowed sum.
func singleBatchDeltaFull(q, z float64, steps int, eps float64) float64 {
	var d float64
	for k := 1; k <= steps; k++ {
		lp := numeric.LogFact(steps) - numeric.LogFact(k) - numeric.LogFact(steps-k) + float64(k)*math.Log(q) + float64(steps-k)*math.Log1p(-q)
		if lp < -745 {
			continue
		}
		dk, _ := accounting.GDPDelta(math.Sqrt(float64(k))/z, eps)
		d += math.Exp(lp) * dk
	}
	return math.Min(d, 1)
}

// TestSingleBatchDeltaWindow: SingleBatchDelta sums only the binomial
// terms above e^-745 (the others were skipped anyway), bit for bit the full
// sum, so its work grows like √T, not T. Old code: SingleBatchEpsilon at
// T = 10^7 took about 20 s (10^7 terms per δ(ε), 45 bisection steps) and
// SingleBatchNoiseMultiplier 20 times that.
func TestSingleBatchDeltaWindow(t *testing.T) {
	for _, q := range []float64{1e-4, 1.0 / 16, 0.5, 0.999} {
		for _, steps := range []int{1, 2, 50, 286, 5000} {
			for _, eps := range []float64{0, 1, 8} {
				got, err := SingleBatchDelta(q, 1.3, steps, eps)
				if want := singleBatchDeltaFull(q, 1.3, steps, eps); err != nil || got != want {
					t.Errorf("q=%v T=%d ε=%v: δ = %v (%v), full sum %v", q, steps, eps, got, err, want)
				}
			}
		}
	}
	done := make(chan error, 1)
	go func() { _, err := SingleBatchEpsilon(1.0/16, 1, 10_000_000, 1e-5); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SingleBatchEpsilon at T = 10^7 still running after 10 s")
	}
}

// TestSingleBatchNoiseMultiplierTerminates: when every z > 0 meets the
// target (q = 0, or q·T below δ so that ε = 0 for any z), the bisection
// halved z towards 0 forever on the old code (z = 0 is refused, read as
// "too small", so the interval never closed). Now q = 0 is an error and the
// bisection stops after 200 halvings with a z that meets the target.
func TestSingleBatchNoiseMultiplierTerminates(t *testing.T) {
	type result struct {
		z   float64
		err error
	}
	for _, c := range []struct {
		q       float64
		wantErr bool
	}{{0, true}, {1e-8, false}, {1.0 / 16, false}} {
		done := make(chan result, 1)
		go func() { z, err := SingleBatchNoiseMultiplier(1, c.q, 10, 1e-5); done <- result{z, err} }()
		select {
		case r := <-done:
			if (r.err != nil) != c.wantErr {
				t.Fatalf("q = %v: z = %v, err = %v, want error %v", c.q, r.z, r.err, c.wantErr)
			}
			if r.err == nil {
				if e, err := SingleBatchEpsilon(c.q, r.z, 10, 1e-5); err != nil || e > 1 || !(r.z > 0) {
					t.Errorf("q = %v: z = %v gives ε = %v (%v), want ≤ 1", c.q, r.z, e, err)
				}
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("q = %v: still running after 10 s", c.q)
		}
	}
}

// TestAttributeInferenceBoundInfiniteEps: at ε = +Inf the Thm 4 bound is
// 1 − f_{∞,δ}(Ball): 1 for Ball > 0 and δ for Ball = 0. The old code
// returned NaN at Ball = 0 (e^∞·0), silently.
func TestAttributeInferenceBoundInfiniteEps(t *testing.T) {
	for _, c := range []struct{ ball, want float64 }{{0, 1e-5}, {1e-9, 1}, {0.5, 1}} {
		got, err := AttributeInferenceBound(math.Inf(1), 1e-5, c.ball)
		if err != nil || got != c.want {
			t.Errorf("Ball = %v: bound %v (%v), want %v", c.ball, got, err, c.want)
		}
	}
}
