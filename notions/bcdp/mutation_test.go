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
