package bcdp

import (
	"math"
	"testing"
)

// TestCDPExactTakesTheMaximum checks CDPExact's c_i = max over pairs x, x'
// differing only in coordinate i and outputs y of log(P(y|x)/P(y|x')) (Def. 3)
// on mechanisms whose largest ratio is not the last pair visited: a c_i from
// one pair only would under-state the CDP level. References: hand-computed
// ratios of a 2×2-domain channel, and product randomized response, whose
// coordinate j has c_j = ε_j exactly.
func TestCDPExactTakesTheMaximum(t *testing.T) {
	domain := [][]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}}
	prior := []float64{0.25, 0.25, 0.25, 0.25}
	rr := func(e0, e1 float64) [][]float64 {
		keep := []float64{1 / (1 + math.Exp(-e0)), 1 / (1 + math.Exp(-e1))}
		ch := make([][]float64, len(domain))
		for x, xv := range domain {
			ch[x] = make([]float64, 4)
			for y := range 4 {
				p := 1.0
				for j := range 2 {
					if (y>>j)&1 == xv[j] {
						p *= keep[j]
					} else {
						p *= 1 - keep[j]
					}
				}
				ch[x][y] = p
			}
		}
		return ch
	}
	for _, c := range []struct {
		name    string
		channel [][]float64
		want    []float64
	}{
		{"hand-computed", [][]float64{{0.5, 0.5}, {0.5, 0.5}, {0.8, 0.2}, {0.6, 0.4}}, []float64{math.Log(2.5), math.Log(2)}},
		{"product RR", rr(1.5, 0.3), []float64{1.5, 0.3}},
		{"product RR, weak first", rr(0.2, 2), []float64{0.2, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := CDPExact(Finite{Domain: domain, Prior: prior, Channel: c.channel})
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.want {
				if math.Abs(got[i]-c.want[i]) > 1e-12 {
					t.Errorf("c_%d = %v, want %v", i, got[i], c.want[i])
				}
			}
		})
	}
}

// TestTwoLevelRateAboveThreshold pins Corollary 1's rate (19) for q > q* =
// (e^{δ/2} − 1)/(e^ε − 1), (1/n)(dk/δ² + (d−k)²/(((d−k)/d)δ² + (c_d − δ/2)²)),
// with c_d = log((e^{δ/2} + q − 1)/q) read independently from Allocate at
// ζ = 1/2 (its level c_d for k coordinates at δ and d − k at ε). This is a
// utility rate, not a privacy level.
func TestTwoLevelRateAboveThreshold(t *testing.T) {
	for _, c := range []struct {
		d, k, n       int
		delta, eps, q float64
	}{
		{10, 2, 10000, 0.2, 2, 0.5},
		{5, 4, 100, 0.1, 1, 0.9},
	} {
		if qs := math.Expm1(c.delta/2) / math.Expm1(c.eps); !(c.q > qs) {
			t.Fatalf("%+v: q ≤ q* = %v", c, qs)
		}
		levels := make([]float64, c.d)
		for i := range levels {
			levels[i] = c.eps
			if i < c.k {
				levels[i] = c.delta
			}
		}
		a, err := Allocate(levels, c.eps, c.q, ZetaHalf)
		if err != nil {
			t.Fatal(err)
		}
		fd, fk, cd := float64(c.d), float64(c.k), a.LDP
		want := (fd*fk/(c.delta*c.delta) + (fd-fk)*(fd-fk)/((fd-fk)/fd*c.delta*c.delta+(cd-c.delta/2)*(cd-c.delta/2))) / float64(c.n)
		got, err := TwoLevelRate(c.d, c.k, c.n, c.delta, c.eps, c.q)
		if err != nil || math.Abs(got-want) > 1e-12*want {
			t.Errorf("%+v: rate %v, %v; want %v", c, got, err, want)
		}
	}
}
