package accounting

import (
	"math"
	"testing"
)

func TestOrderGrids(t *testing.T) {
	for _, tc := range []struct {
		name        string
		grid        []float64
		n           int
		first, last float64
	}{
		{"opacus", OrdersOpacus(), 151, 1.1, 63},
		{"tfp", OrdersTFP(), 72, 1.25, 512},
		{"dp_accounting", OrdersDPAccounting(), 156, 1.1, 1024},
	} {
		if len(tc.grid) != tc.n || tc.grid[0] != tc.first || tc.grid[len(tc.grid)-1] != tc.last {
			t.Errorf("%s: %d orders %v..%v, want %d orders %v..%v", tc.name, len(tc.grid), tc.grid[0], tc.grid[len(tc.grid)-1], tc.n, tc.first, tc.last)
		}
		if err := ValidateOrders(tc.grid); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		parsed, err := ParseOrders(tc.name)
		if err != nil || len(parsed) != tc.n {
			t.Errorf("ParseOrders(%q) = %d orders, %v", tc.name, len(parsed), err)
		}
	}
	// Opacus builds 1 + x/10, so 2.0, 3.0, … are exact integers.
	o := OrdersOpacus()
	if o[9] != 2 || o[19] != 3 || o[98] != 10.9 || o[99] != 12 {
		t.Errorf("opacus grid values: %v %v %v %v", o[9], o[19], o[98], o[99])
	}
	// Copies: mutating one does not change the next.
	o[0] = 99
	if OrdersOpacus()[0] != 1.1 {
		t.Error("OrdersOpacus returned shared storage")
	}
	got, err := ParseOrders(" 1.5, 2,32 ,inf")
	if err != nil || len(got) != 4 || !math.IsInf(got[3], 1) {
		t.Errorf("ParseOrders list = %v, %v", got, err)
	}
}

// Independent values: A_α = E_{x~N(0,z²)}[((1−q) + q e^{(2x−1)/(2z²)})^α]
// by mpmath quadrature at 40 digits, RDP = log(A_α)/(α−1). Values are
// upper bounds (the series' tail enclosure and rounding allowance are added),
// so the check is one-sided: never below the reference by more than 1e-12
// relative, and above it by at most rel. The widest margin, 2e-8 at
// (0.001, 10, 7.3), is the rounding allowance of terms near 1 summing to
// 1 + 2.3e-7.
func TestRDPAgainstQuadrature(t *testing.T) {
	for _, tc := range []struct{ q, z, alpha, want, rel float64 }{
		{0.04, 1.5, 1.1, 0.00048165674003429928922, 3e-9},
		{0.04, 1.5, 1.5, 0.0006631116939117247127, 1e-9},
		{0.04, 1.5, 3.9, 0.0018332021995838585998, 1e-10},
		{0.04, 1.5, 10.9, 0.0065916720680729084231, 1e-11},
		{0.04, 1.5, 12, 0.0077655603810840149742, 1e-12},
		{0.04, 1.5, 63, 10.72920682314409474, 1e-12},
		{0.01, 2.5, 1.5, 0.000013001417943760794735, 1e-9},
		{0.01, 2.5, 2.5, 0.000021708361138362486063, 1e-10},
		{0.1, 2, 5, 0.0077369684897958651587, 1e-12},
		{0.5, 0.7, 2.5, 1.4935461278373026752, 1e-12},
		{0.3, 0.5, 1.7, 1.1110287860345018475, 1e-12},
		{0.001, 10, 7.3, 3.6685068336466608389e-8, 2e-8},
		{0.9, 1, 3.5, 1.6154609654944321794, 1e-12},
		{0.04, 0.3, 2.5, 8.5240998934675217306, 1e-12},
		{0.2, 0.1, 1.5, 70.171686262697691544, 1e-12},
		// Integer orders, large z (RDP ≪ 1): exact binomial sums at 50 digits.
		{0.01, 4, 63, 0.00021169821656824765326, 1e-12},
		{0.01, 20, 40, 5.0109785985936281444e-6, 1e-10},
		{0.01, 20, 63, 7.8968037354161175698e-6, 1e-10},
		{0.04, 20, 63, 0.00012690340836792535152, 1e-11},
	} {
		got, err := RDPSubsampledGaussian(tc.q, tc.z, tc.alpha)
		if err != nil {
			t.Fatal(err)
		}
		if got < tc.want*(1-1e-12) || got > tc.want*(1+tc.rel) {
			t.Errorf("RDP(q=%v, z=%v, α=%v) = %.17g, want %.17g (+%.0g) (rel err %.2g)", tc.q, tc.z, tc.alpha, got, tc.want, tc.rel, got/tc.want-1)
		}
	}
}

// The linear-space and log-space evaluations of the fractional series agree.
func TestFracFastMatchesLog(t *testing.T) {
	for _, q := range []float64{1e-4, 0.01, 0.04, 0.3, 0.9} {
		for _, z := range []float64{0.3, 0.8, 1.5, 4, 20} {
			c := newSGM(q, z)
			for _, a := range []float64{1.1, 1.5, 2.3, 4.7, 10.9, 33.3} {
				fl := math.Floor(a)
				tb := c.table(a - fl)
				a := fl + tb.f
				fs, ok := c.fracSeriesLin(a, tb)
				if !ok {
					continue
				}
				// The two enclosures [S − slack, S + slack] overlap and
				// the central sums agree where both are precise.
				sl := c.fracSeriesLog(a, tb)
				fast, slow := fs.logS, sl.logS
				if !enclosuresOverlap(fs, sl) || !near(fast, slow, 1e-6, 1e-14) {
					t.Errorf("q=%v z=%v α=%v: fast %.17g, log %.17g", q, z, a, fast, slow)
				}
			}
			for _, a := range []int{2, 5, 12, 40, 63} {
				fast, ok := c.logAm1IntFast(a)
				if !ok {
					continue
				}
				slow := c.logAm1IntLog(a)
				// The log path takes log C(α,i) from log-factorials
				// (absolute error ~1e-14); it is only used where the
				// fast path overflows and log A_α is large.
				if !near(fast, slow, 1e-12, 5e-14) {
					t.Errorf("q=%v z=%v α=%v: int fast %.17g, log %.17g", q, z, a, fast, slow)
				}
			}
		}
	}
}

func TestRDPEdgeCases(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name        string
		q, z, alpha float64
		want        float64
	}{
		{"q=0", 0, 1, 5, 0},
		{"q=0 z=0", 0, 0, 5, 0},
		{"z=0", 0.1, 0, 5, inf},
		{"q=1", 1, 2, 5, 5.0 / 8},
		{"q=1 fractional", 1, 2, 2.5, 2.5 / 8},
		{"order inf", 0.1, 2, inf, inf},
		{"z=inf", 0.1, inf, 5, 0},
		{"q=0 order inf", 0, 1, inf, 0},
	} {
		got, err := RDPSubsampledGaussian(tc.q, tc.z, tc.alpha)
		if err != nil || got != tc.want {
			t.Errorf("%s: RDP = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
	g, err := RDPGaussian(2, 5)
	if err != nil || g != 5.0/8 {
		t.Errorf("RDPGaussian(2, 5) = %v, %v", g, err)
	}
	if g, _ := RDPGaussian(0, 5); !math.IsInf(g, 1) {
		t.Errorf("RDPGaussian(0, 5) = %v, want +Inf", g)
	}
	// Zero steps: zeros, even with z = 0.
	r, err := ComputeRDP(0.5, 0, 0, OrdersOpacus())
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range r {
		if v != 0 {
			t.Fatalf("0 steps: RDP %v", v)
		}
	}
}

// The subsampled RDP never exceeds the full-batch RDP α/(2z²) and increases
// with the order (RDP is non-decreasing in α).
func TestRDPBoundsAndMonotoneInOrder(t *testing.T) {
	orders := OrdersDPAccounting()
	for _, q := range []float64{1e-3, 0.01, 0.1, 0.5, 0.99} {
		for _, z := range []float64{0.5, 1, 2, 8} {
			r, err := ComputeRDP(q, z, 1, orders)
			if err != nil {
				t.Fatal(err)
			}
			for k, a := range orders {
				if full := a / (2 * z * z); r[k] > full*(1+1e-12) {
					t.Errorf("q=%v z=%v α=%v: RDP %v above α/(2z²) = %v", q, z, a, r[k], full)
				}
				if k > 0 && a > orders[k-1] && r[k] < r[k-1]*(1-1e-9) {
					t.Errorf("q=%v z=%v: RDP decreases from α=%v (%v) to α=%v (%v)", q, z, orders[k-1], r[k-1], a, r[k])
				}
			}
		}
	}
}

// Tiny z and huge T: values are finite or +Inf, never NaN.
func TestRDPExtremeInputsNoNaN(t *testing.T) {
	grids := [][]float64{OrdersOpacus(), OrdersTFP(), OrdersDPAccounting(), {1.0001, 1.5, 1e4 + 0.5, 1e5, math.Inf(1)}}
	for _, q := range []float64{1e-300, 1e-9, 0.01, 0.5, 1 - 1e-12, 1} {
		for _, z := range []float64{1e-200, 1e-3, 0.05, 0.1, 0.3, 1e3, 1e100, 1e300} {
			for _, steps := range []int{1, 1000000} {
				for _, g := range grids {
					r, err := ComputeRDP(q, z, steps, g)
					if err != nil {
						t.Fatal(err)
					}
					for k, v := range r {
						if math.IsNaN(v) || v < 0 {
							t.Fatalf("q=%v z=%v T=%d α=%v: RDP %v", q, z, steps, g[k], v)
						}
					}
					for _, conv := range []Conversion{ConversionImproved, ConversionClassic} {
						eps, order, err := EpsilonFromRDP(g, r, 1e-5, conv)
						if err != nil || math.IsNaN(eps) || eps < 0 || math.IsNaN(order) {
							t.Fatalf("q=%v z=%v T=%d: eps %v order %v err %v", q, z, steps, eps, order, err)
						}
					}
				}
			}
		}
	}
	// z = 0.1, T = 1e6 on the Opacus grid is +Inf-free but huge.
	eps, _, err := Epsilon([]Phase{{SampleRate: 0.01, NoiseMultiplier: 0.1, Steps: 1000000}}, 1e-5, nil, ConversionImproved)
	if err != nil || math.IsNaN(eps) || !(eps > 1000) {
		t.Errorf("tiny z, huge T: eps = %v, %v", eps, err)
	}
}

func TestEpsilonMonotone(t *testing.T) {
	eps := func(q, z float64, steps int) float64 {
		e, _, err := Epsilon([]Phase{{q, z, steps}}, 1e-5, nil, ConversionImproved)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	prev := math.Inf(1)
	for _, z := range []float64{0.3, 0.5, 0.8, 1, 1.3, 2, 4, 10} {
		e := eps(0.04, z, 1000)
		if !(e < prev) {
			t.Errorf("eps does not fall with z: z=%v eps=%v (previous %v)", z, e, prev)
		}
		prev = e
	}
	prev = 0
	for _, q := range []float64{0.001, 0.01, 0.04, 0.1, 0.5, 1} {
		e := eps(q, 1.1, 100)
		if !(e > prev) {
			t.Errorf("eps does not rise with q: q=%v eps=%v (previous %v)", q, e, prev)
		}
		prev = e
	}
	prev = 0
	for _, steps := range []int{1, 10, 100, 1000, 10000} {
		e := eps(0.01, 1.1, steps)
		if !(e > prev) {
			t.Errorf("eps does not rise with T: T=%v eps=%v (previous %v)", steps, e, prev)
		}
		prev = e
	}
}

// Astronomically large orders cost nothing and get the valid bound α/(2z²).
func TestRDPHugeOrders(t *testing.T) {
	orders := []float64{1e9, 1e9 + 0.5, 70000}
	r, err := ComputeRDP(0.01, 2, 3, orders)
	if err != nil {
		t.Fatal(err)
	}
	for k, a := range orders {
		if want := 3 * a / 8; r[k] != want {
			t.Errorf("order %v: %v, want %v", a, r[k], want)
		}
	}
	// Just below the cap the exact series is used and stays below the bound.
	v, err := RDPSubsampledGaussian(0.01, 2, 65536)
	if err != nil || !(v > 0 && v < 65536.0/8) {
		t.Errorf("order 65536: %v, %v", v, err)
	}
}

// enclosuresOverlap reports whether the intervals S ± slack of two series
// sums intersect.
func enclosuresOverlap(a, b seriesSum) bool {
	lo := func(s seriesSum) float64 { return math.Exp(s.logS) - math.Exp(s.logSlack) }
	hi := func(s seriesSum) float64 { return math.Exp(s.logS) + math.Exp(s.logSlack) }
	return lo(a) <= hi(b) && lo(b) <= hi(a)
}
