package bcdp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/internal/valid"
)

func approxEqual(a, b, tol float64) bool {
	if math.IsInf(a, 1) && math.IsInf(b, 1) {
		return true
	}
	return math.Abs(a-b) <= tol
}

func vecClose(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: len %d, want %d", name, len(got), len(want))
	}
	for i := range got {
		if !approxEqual(got[i], want[i], tol) {
			t.Errorf("%s[%d] = %.6f, want %.6f (tol %g)", name, i, got[i], want[i], tol)
		}
	}
}

// C1: Duchi radius table (unbiased B); the paper constant is exactly 2×.
func TestDuchiBTable(t *testing.T) {
	for _, tc := range []struct {
		D        int
		r, alpha float64
		want     float64
	}{
		{1, 1, 1, 2.163953},
		{2, math.Sqrt2, 1, 4.80714},
		{3, math.Sqrt(3), 1, 7.49622},
		{10, math.Sqrt(10), 1, 26.4526},
		{10, math.Sqrt(10), 0.2, 122.6492},
	} {
		b, err := DuchiB(tc.D, tc.r, tc.alpha, false)
		if err != nil || math.Abs(b-tc.want) > 1e-4*math.Max(1, tc.want/10) {
			t.Errorf("B(%d,%v,%v) = %v, %v; want %v", tc.D, tc.r, tc.alpha, b, err, tc.want)
		}
		p, _ := DuchiB(tc.D, tc.r, tc.alpha, true)
		if p != 2*b {
			t.Errorf("paper constant %v != 2×%v", p, b)
		}
	}
	for _, bad := range []struct {
		D        int
		r, alpha float64
	}{{0, 1, 1}, {1, 0, 1}, {1, 1, 0}, {1, 1, -1}, {1, math.NaN(), 1}, {1, 1, math.Inf(1)}} {
		if _, err := DuchiB(bad.D, bad.r, bad.alpha, false); err == nil {
			t.Errorf("DuchiB(%v) accepted bad input", bad)
		}
	}
}

var fig3Delta = []float64{0.2, 0.2, 2, 2, 2, 2, 2, 2, 2, 2}

// C6: (c_1, c_d) of the Figure 3 setting, heuristic ζ; also the predicted
// unprojected MSE column (n = 1e4) of the same table (C11's prediction side).
func TestAllocationTable(t *testing.T) {
	for _, tc := range []struct{ q, c1, cd, mse, mse1 float64 }{
		{0, 0.2, 2, 0.31804, 0.15033},
		{0.01, 0.138067, 2, 0.64568, 0.31445},
		{0.05, 0.095, 1.167582, 1.36463, 0.66319},
		{0.1, 0.09, 0.771395, 1.56334, 0.73883},
		{0.3, 0.07, 0.380326, 2.82375, 1.22074},
		{0.5, 0.05, 0.280407, 5.47488, 2.39179},
		{0.9, 0.01, 0.209044, 120.504, 59.7733},
		{1, 0.2, 0.2, 1.50328, 0.15033},
	} {
		a, err := Allocate(fig3Delta, 2, tc.q, ZetaHeuristic(tc.q))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(a.C[0]-tc.c1) > 1e-6 || math.Abs(a.C[1]-tc.c1) > 1e-6 || math.Abs(a.C[9]-tc.cd) > 1e-6 {
			t.Errorf("q=%v: c = %v, want c1=%v cd=%v", tc.q, a.C, tc.c1, tc.cd)
		}
		for k := 2; k < 10; k++ {
			if a.C[k] != a.C[9] {
				t.Errorf("q=%v: c[%d] = %v != c_d", tc.q, k, a.C[k])
			}
		}
		mse, per, err := PredictedMSE(a.Sorted, 10000, MSEOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(mse/tc.mse-1) > 1e-4 || math.Abs(per[0]/tc.mse1-1) > 1e-4 {
			t.Errorf("q=%v: predicted MSE %v (coord 1 %v), want %v (%v)", tc.q, mse, per[0], tc.mse, tc.mse1)
		}
	}
	// Baseline (B² − 10)/n.
	u, _ := UniformAllocation(fig3Delta, 2)
	mse, _, _ := PredictedMSE(u.Sorted, 10000, MSEOptions{})
	if math.Abs(mse-1.50328) > 1e-5 {
		t.Errorf("baseline predicted MSE %v, want 1.50328", mse)
	}
	// Paper constant: 4B² − 4·10 variance around 2x̄ → 4× 1.50328.
	mp, _, _ := PredictedMSE(u.Sorted, 10000, MSEOptions{PaperConstant: true})
	if math.Abs(mp-6.01313) > 1e-3 {
		t.Errorf("paper-constant baseline variance %v, want 4·1.50328", mp)
	}
}

// C7: allocation invariants over random inputs.
func TestAllocationInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 3000; trial++ {
		d := 1 + rng.IntN(8)
		delta := make([]float64, d)
		for i := range delta {
			delta[i] = 0.05 + 4*rng.Float64()
			if rng.IntN(10) == 0 {
				delta[i] = math.Inf(1)
			}
		}
		eps := 0.1 + 4*rng.Float64()
		q := rng.Float64()
		switch rng.IntN(6) {
		case 0:
			q = 0
		case 1:
			q = 1
		}
		zeta := 0.01 + 0.99*rng.Float64()
		a, err := Allocate(delta, eps, q, zeta)
		if err != nil {
			t.Fatal(err)
		}
		c, dt := a.Sorted, a.DeltaTilde
		cd := c[d-1]
		if c[0] < 0 || cd > math.Min(dt[d-1], eps)+1e-12 {
			t.Fatalf("bounds violated: c=%v δ̃=%v", c, dt)
		}
		for k := 0; k < d; k++ {
			if k > 0 && c[k] < c[k-1]-1e-12 {
				t.Fatalf("not non-decreasing: %v", c)
			}
			if a.C[a.Perm[k]] != c[k] {
				t.Fatalf("permutation mismatch")
			}
			g := math.Min(c[k]+math.Log1p(q*math.Expm1(cd)), cd)
			if g > dt[k]+1e-12 {
				t.Fatalf("guarantee %v > δ̃_%d = %v (c=%v q=%v ζ=%v)", g, k, dt[k], c, q, zeta)
			}
		}
		if q == 0 {
			vecClose(t, "q=0 ⇒ c=δ̃", c, dt, 1e-12)
		}
		if q > 0 && cd > dt[0] {
			lt := math.Log((math.Exp(zeta*dt[0]) + q - 1) / q)
			if cd == lt && math.Abs(c[0]-(1-zeta)*dt[0]) > 1e-9 {
				t.Fatalf("else branch with log term: c1 = %v, want (1−ζ)δ̃1 = %v", c[0], (1-zeta)*dt[0])
			}
		}
		if q > 0 {
			zs, _ := ZetaStar(dt[0], q)
			if zs > 1e-9 {
				b, _ := Allocate(delta, eps, q, math.Min(zs, 1))
				for k := range b.Sorted {
					if math.Abs(b.Sorted[k]-dt[0]) > 1e-9 {
						t.Fatalf("ζ* does not give the baseline: %v vs %v", b.Sorted, dt[0])
					}
				}
			}
		}
	}
	a, _ := Allocate([]float64{0.3, 1, 2}, 2, 1, 1)
	vecClose(t, "q=1,ζ=1", a.Sorted, []float64{0.3, 0.3, 0.3}, 1e-12)
	inf := math.Inf(1)
	a, _ = Allocate([]float64{inf, inf, inf}, 1.5, 0.4, 0.7)
	vecClose(t, "δ=∞", a.Sorted, []float64{1.5, 1.5, 1.5}, 1e-12)
	// Sorting and un-sorting.
	a, _ = Allocate([]float64{2, 0.2, 2, 0.2}, 2, 0, 0.5)
	vecClose(t, "unsorted", a.C, []float64{2, 0.2, 2, 0.2}, 1e-12)
}

func TestAllocationBadInput(t *testing.T) {
	for _, tc := range []struct {
		delta        []float64
		eps, q, zeta float64
	}{
		{nil, 1, 0.5, 0.5},
		{[]float64{0, 1}, 1, 0.5, 0.5},
		{[]float64{math.NaN()}, 1, 0.5, 0.5},
		{[]float64{1}, 0, 0.5, 0.5},
		{[]float64{1}, math.Inf(1), 0.5, 0.5},
		{[]float64{1}, 1, -0.1, 0.5},
		{[]float64{1}, 1, 1.1, 0.5},
		{[]float64{1}, 1, 0.5, 0},
		{[]float64{1}, 1, 0.5, 1.5},
	} {
		if _, err := Allocate(tc.delta, tc.eps, tc.q, tc.zeta); err == nil {
			t.Errorf("Allocate(%v) accepted bad input", tc)
		}
	}
	if _, _, err := PredictedMSE([]float64{0.2}, 0, MSEOptions{}); err == nil {
		t.Error("n = 0 accepted")
	}
	if _, _, err := PredictedMSE([]float64{0.5, 0.2}, 10, MSEOptions{}); err == nil {
		t.Error("decreasing levels accepted")
	}
}

// Theorem 2 at the edges: q = 0 with c_d ≳ 710 (0·(e^c − 1) would be NaN)
// keeps every δ̃ below c_d, and once e^c − 1 overflows the shift is
// c + log q to float64 precision, continuous with the direct formula.
func TestAllocationHugeLevels(t *testing.T) {
	a, err := Allocate([]float64{0.1, 1000}, 1000, 0, ZetaHalf)
	if err != nil || a.C[0] != 0.1 || a.C[1] != 1000 {
		t.Errorf("q = 0, ε = 1000: %v, %v; want [0.1 1000]", a.C, err)
	}
	// Reference: log((1 − q) + q·e^c) as a log-sum-exp.
	ref := func(q, c float64) float64 {
		a, b := math.Log(q)+c, math.Log1p(-q)
		hi, lo := math.Max(a, b), math.Min(a, b)
		return hi + math.Log1p(math.Exp(lo-hi))
	}
	for _, q := range []float64{1e-300, 0.3, 1} {
		for _, c := range []float64{709, 710, 800, 1e300} {
			if got, want := allocShift(q, c), ref(q, c); !(math.Abs(got-want) <= 1e-12*want) {
				t.Errorf("q = %v, c = %v: shift %v, want %v", q, c, got, want)
			}
		}
	}
	if allocShift(0, 1e300) != 0 {
		t.Error("q = 0: the shift is not 0")
	}
}

// C8: switch points q* = (e^{δ/2}−1)/(e^ε−1) (ζ=1/2) and the root of
// e^{0.1(1+q)} − 1 = q(e²−1) (heuristic ζ).
func TestSwitchPoints(t *testing.T) {
	qs := math.Expm1(0.1) / math.Expm1(2)
	if math.Abs(qs-0.016461) > 1e-6 {
		t.Errorf("q* = %v", qs)
	}
	check := func(q float64, zeta func(float64) float64) bool { // true: c_d = ε
		a, _ := Allocate(fig3Delta, 2, q, zeta(q))
		return a.Sorted[9] >= 2-1e-12
	}
	for _, tc := range []struct {
		name string
		z    func(float64) float64
		want float64
	}{
		{"ζ=1/2", func(float64) float64 { return 0.5 }, 0.016461},
		{"ζ=(1+q)/2", ZetaHeuristic, 0.016751},
	} {
		lo, hi := 0.001, 0.5
		for it := 0; it < 60; it++ {
			m := (lo + hi) / 2
			if check(m, tc.z) {
				lo = m
			} else {
				hi = m
			}
		}
		if math.Abs(lo-tc.want) > 2e-6 {
			t.Errorf("%s: switch at %v, want %v", tc.name, lo, tc.want)
		}
	}
}

// C13: the Theorem 2 proxy.
func TestThm2Proxy(t *testing.T) {
	for _, tc := range []struct{ q, want float64 }{{0, 519.56}, {0.01, 1067.55}, {0.1, 2605.08}, {0.5, 9161.79}} {
		a, _ := Allocate(fig3Delta, 2, tc.q, ZetaHeuristic(tc.q))
		s, err := ErrorProxy(a.Sorted)
		if err != nil || math.Abs(s-tc.want) > 0.01 {
			t.Errorf("q=%v: proxy %v, %v; want %v", tc.q, s, err, tc.want)
		}
	}
	u := make([]float64, 10)
	for i := range u {
		u[i] = 0.2
	}
	if s, _ := ErrorProxy(u); math.Abs(s-2500) > 1e-9 {
		t.Errorf("uniform proxy %v, want 2500", s)
	}
}

// C16: the conditional TV of prior (60) is exactly q.
func TestMixturePriorTV(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for d := 2; d <= 10; d++ {
		q := rng.Float64()
		dom, pr, err := MixturePrior(d, q)
		if err != nil {
			t.Fatal(err)
		}
		ch := make([][]float64, len(dom))
		for x := range ch {
			ch[x] = []float64{1}
		}
		m := Finite{Domain: dom, Prior: pr, Channel: ch}
		for _, i := range []int{0, d - 1} {
			tv, err := CoordinateTV(m, i)
			if err != nil || math.Abs(tv-q) > 1e-12 {
				t.Errorf("d=%d i=%d: TV %v, %v; want q = %v", d, i, tv, err, q)
			}
		}
	}
}

// C17: randomized response under prior (60): exact δ* vs Prop. 4.
func TestProp4Tightness(t *testing.T) {
	for _, tc := range []struct {
		c               []float64
		q               float64
		exact, p41, p42 []float64
	}{
		{[]float64{0.5, 1, 1}, 0.3, []float64{1.0335, 1.4162, 1.4162}, []float64{1.5705, 1.7152, 1.7152}, []float64{1.9713, 2.4713, 2.4713}},
		{[]float64{0.5, 1, 1}, 0, []float64{0.5, 1, 1}, []float64{0.5, 1, 1}, nil},
		{[]float64{0.5, 1, 1}, 1, []float64{2.5, 2.5, 2.5}, []float64{2.5, 2.5, 2.5}, nil},
		{[]float64{0.2, 0.2, 1, 1, 1}, 0.1, []float64{0.5080, 0.5080, 1.2268, 1.2268, 1.2268}, []float64{1.4099, 1.4099, 1.6943, 1.6943, 1.6943}, nil},
	} {
		m, err := RandomizedResponse(tc.c, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := Exact(m)
		if err != nil {
			t.Fatal(err)
		}
		vecClose(t, fmt.Sprintf("exact %v q=%v", tc.c, tc.q), ex, tc.exact, 1e-4)
		qv := make([]float64, len(tc.c))
		sum := 0.0
		for i := range qv {
			qv[i] = tc.q
			sum += tc.c[i]
		}
		p1, _ := BCDPFromCDP(tc.c, qv)
		vecClose(t, "Prop 4.1", p1, tc.p41, 1e-4)
		p2, _ := BCDPFromCDPAndLDP(tc.c, qv, sum)
		if tc.p42 != nil {
			vecClose(t, "Prop 4.2", p2, tc.p42, 1e-4)
		}
		for i := range ex {
			if ex[i] > p1[i]+1e-12 || ex[i] > p2[i]+1e-12 {
				t.Errorf("exact %v exceeds a Prop 4 bound (%v, %v)", ex, p1, p2)
			}
		}
		cdp, _ := CDPExact(m)
		vecClose(t, "CDP", cdp, tc.c, 1e-12)
		ldp, _ := LDPExact(m)
		if math.Abs(ldp-sum) > 1e-12 {
			t.Errorf("LDP %v, want Σc = %v", ldp, sum)
		}
	}
}

// C18: Prop. 6 linear sufficient condition.
func TestProp6(t *testing.T) {
	delta := []float64{0.5, 1, 2}
	q := []float64{0.2, 0.2, 0.2}
	ok, ac, err := MeetsLevels(delta, q, []float64{0.2, 0.15, 0.15})
	if err != nil || !ok {
		t.Fatalf("example: %v %v", ok, err)
	}
	vecClose(t, "A c", ac, []float64{0.608, 0.305, 0.175}, 1e-3)
	rhs, _ := BCDPFromCDP([]float64{0.2, 0.15, 0.15}, q)
	vecClose(t, "rhs", rhs, []float64{0.268, 0.230, 0.230}, 1e-3)
	rng := rand.New(rand.NewPCG(5, 6))
	n := 0
	for trial := 0; trial < 20000 && n < 2000; trial++ {
		d := 2 + rng.IntN(4)
		dl, qq, c := make([]float64, d), make([]float64, d), make([]float64, d)
		for i := range dl {
			dl[i] = 0.1 + 3*rng.Float64()
			qq[i] = rng.Float64()
			c[i] = rng.Float64() * dl[i] / float64(d)
		}
		ok, _, err := MeetsLevels(dl, qq, c)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		n++
		r, _ := BCDPFromCDP(c, qq)
		for i := range r {
			if r[i] > dl[i]+1e-12 {
				t.Fatalf("Prop 6 holds but Prop 4.1 gives %v > δ = %v", r, dl)
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d feasible random cases", n)
	}
}

// C20: post-processing never increases δ*.
func TestPostProcessing(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	rr, _ := RandomizedResponse([]float64{0.3, 0.8, 1.2}, 0.4)
	e1, _ := TwoBitChannel([4]float64{0.3, 0.9, 0, 0.6})
	for _, m := range []Finite{rr, e1} {
		before, _ := Exact(m)
		ny := len(m.Channel[0])
		for trial := 0; trial < 50; trial++ {
			nz := 1 + rng.IntN(4)
			k := make([][]float64, ny)
			for y := range k {
				k[y] = make([]float64, nz)
				s := 0.0
				for z := range k[y] {
					k[y][z] = rng.Float64()
					s += k[y][z]
				}
				for z := range k[y] {
					k[y][z] /= s
				}
			}
			pm, err := PostProcess(m, k)
			if err != nil {
				t.Fatal(err)
			}
			after, _ := Exact(pm)
			for i := range after {
				if after[i] > before[i]+1e-12 {
					t.Fatalf("post-processing increased δ*: %v → %v", before, after)
				}
			}
		}
	}
}

func TestFiniteValidate(t *testing.T) {
	good, _ := TwoBitChannel([4]float64{0.5, 0.5, 0, 0.5})
	bad := []Finite{
		{},
		{Domain: good.Domain, Prior: []float64{1}, Channel: good.Channel},
		{Domain: good.Domain, Prior: []float64{0.5, 0.5, 0.5, -0.5}, Channel: good.Channel},
		{Domain: good.Domain, Prior: []float64{0.3, 0.3, 0.3, 0.3}, Channel: good.Channel},
		{Domain: good.Domain, Prior: good.Prior, Channel: [][]float64{{1, 0}, {1, 0}, {1, 0}, {0.5, 0.6}}},
		{Domain: [][]int{{0}, {0}}, Prior: []float64{0.5, 0.5}, Channel: [][]float64{{1}, {1}}},
	}
	for i, m := range bad {
		if _, err := Exact(m); err == nil {
			t.Errorf("bad mechanism %d accepted", i)
		}
	}
}

// Corollary 1 bound and ζ-opt (ours): never worse than the baseline.
func TestZetaOptimal(t *testing.T) {
	u, _ := UniformAllocation(fig3Delta, 2)
	base, _, _ := PredictedMSE(u.Sorted, 10000, MSEOptions{})
	for _, q := range []float64{0, 0.01, 0.1, 0.3, 0.5, 0.9, 0.99, 1} {
		a, mse, err := ZetaOptimal(fig3Delta, 2, q, 10000, 100, MSEOptions{})
		if err != nil {
			t.Fatal(err)
		}
		h, _ := Allocate(fig3Delta, 2, q, ZetaHeuristic(q))
		hm, _, _ := PredictedMSE(h.Sorted, 10000, MSEOptions{})
		if mse > base+1e-9 || mse > hm+1e-9 {
			t.Errorf("q=%v: ζ-opt %v (ζ=%v) worse than baseline %v or heuristic %v", q, mse, a.Zeta, base, hm)
		}
	}
	b1, err := TwoLevelRate(10, 2, 10000, 0.2, 2, 0.01)
	if err != nil || math.Abs(b1-(10*2/0.04+64/4.0)/1e4) > 1e-12 {
		t.Errorf("Cor 1 (18): %v %v", b1, err)
	}
	if _, err := TwoLevelRate(10, 2, 10000, 0.2, 0.3, 0.01); err == nil {
		t.Error("ε ≤ 2δ accepted")
	}
}

// logShiftClosed is log(1 + q(e^x − 1)) = x + log(q + (1 − q)e^{−x})
// (q > 0), the form that stays finite for any x ≥ 0; 0 at q = 0.
func logShiftClosed(q, x float64) float64 {
	if q == 0 {
		return 0
	}
	return x + math.Log(q+(1-q)*math.Exp(-x))
}

// Prop. 4 and ζ* with an exponent beyond e^x's range: q = 0 used to give
// NaN (0·∞) and q > 0 +Inf; both match the closed form now.
func TestProp4LargeExponents(t *testing.T) {
	for _, tc := range []struct {
		c, q []float64
		eps  float64 // Prop. 4 part 2's ε
	}{
		{[]float64{0.5, 800}, []float64{0, 0}, 800},
		{[]float64{0.5, 800}, []float64{0.5, 0.5}, 800},
		{[]float64{0.5, 800, 1000}, []float64{0, 1, 0.3}, 2000},
		{[]float64{0.5, 1}, []float64{0, 0.2}, 800},
		{[]float64{0.5, 1}, []float64{0.3, 0.3}, 2}, // no overflow: the old values
	} {
		sum := 0.0
		for _, v := range tc.c {
			sum += v
		}
		want1, want2 := make([]float64, len(tc.c)), make([]float64, len(tc.c))
		for i, c := range tc.c {
			want1[i] = c + logShiftClosed(tc.q[i], sum-c)
			want2[i] = math.Min(c+logShiftClosed(tc.q[i], tc.eps), tc.eps)
		}
		p1, err := BCDPFromCDP(tc.c, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		vecClose(t, fmt.Sprintf("Prop 4.1 c=%v q=%v", tc.c, tc.q), p1, want1, 1e-12*sum)
		p2, err := BCDPFromCDPAndLDP(tc.c, tc.q, tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		vecClose(t, fmt.Sprintf("Prop 4.2 c=%v q=%v ε=%v", tc.c, tc.q, tc.eps), p2, want2, 1e-12*tc.eps)
		for i := range p1 {
			if !valid.Finite(p1[i]) || !valid.Finite(p2[i]) {
				t.Errorf("c=%v q=%v: non-finite bound %v / %v", tc.c, tc.q, p1, p2)
			}
		}
	}
	for _, tc := range []struct{ delta1, q float64 }{{800, 0}, {800, 0.5}, {800, 1}, {1e4, 1e-3}, {1, 0.3}} {
		z, err := ZetaStar(tc.delta1, tc.q)
		want := logShiftClosed(tc.q, tc.delta1) / tc.delta1
		if err != nil || !valid.Finite(z) || math.Abs(z-want) > 1e-12 {
			t.Errorf("ζ*(δ̃_1 = %v, q = %v) = %v, %v; want %v", tc.delta1, tc.q, z, err, want)
		}
	}
}

// An α so small that the Duchi radius B overflows is an error, in DuchiB
// and NewDuchi; it used to give B = +Inf and infinite samples.
func TestDuchiBTooSmallAlpha(t *testing.T) {
	for _, tc := range []struct {
		D     int
		alpha float64
		paper bool
	}{{1, 1e-310, false}, {2, 1e-310, false}, {10, 1e-308, true}, {3, math.SmallestNonzeroFloat64, false}} {
		r := math.Sqrt(float64(tc.D))
		if b, err := DuchiB(tc.D, r, tc.alpha, tc.paper); err == nil || !strings.Contains(err.Error(), "α too small") {
			t.Errorf("DuchiB(D=%d, α=%g) = %v, %v; want an 'α too small' error", tc.D, tc.alpha, b, err)
		}
		if ch, err := NewDuchi(tc.D, r, tc.alpha, tc.paper); err == nil || !strings.Contains(err.Error(), "α too small") {
			t.Errorf("NewDuchi(D=%d, α=%g): %v, %v; want an 'α too small' error", tc.D, tc.alpha, ch, err)
		}
	}
	if b, err := DuchiB(2, math.Sqrt2, 1e-300, false); err != nil || !valid.Finite(b) {
		t.Errorf("α = 1e-300 (B finite): %v, %v", b, err)
	}
}
