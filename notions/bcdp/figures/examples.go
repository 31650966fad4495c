package figures

import (
	"fmt"
	"math"

	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/notions/bcdp"
)

// The paper's two examples as finite mechanisms (Aliakbarpour et al. 2024,
// Sec. 3), for the exact calculator of package bcdp.

// Example1 returns Example 1 of the paper: x1, x2 i.i.d.
// Bern(1/2), Y = {0,1}, P(M=1 | x) = a, b, 0, c at (x1,x2) = (0,0), (1,0),
// (0,1), (1,1). It is not LDP for any finite ε (input (0,1) never outputs 1),
// yet BCDP: (log 2, log 2) at a = b = c = 1/2. a, b, c ∈ (0, 1].
func Example1(a, b, c float64) (bcdp.Finite, error) {
	if err := valid.First(valid.Probability("a", a), valid.Probability("b", b), valid.Probability("c", c)); err != nil {
		return bcdp.Finite{}, fmt.Errorf("bcdp: Example 1: %w", err)
	}
	return bcdp.TwoBitChannel([4]float64{a, b, 0, c})
}

// Example1Closed is the closed form of Example 1 (our derivation):
//
//	δ1* = max(|log((b+c)/a)|, |log((2−b−c)/(2−a))|),
//	δ2* = max(|log((a+b)/c)|, |log((2−a−b)/(2−c))|),
//
// with log(0/0) treated as 0 and log(x/0) as +Inf.
func Example1Closed(a, b, c float64) (d1, d2 float64) {
	al := func(u, v float64) float64 {
		if u == v {
			return 0
		}
		if u == 0 || v == 0 {
			return math.Inf(1)
		}
		return math.Abs(math.Log(u / v))
	}
	d1 = math.Max(al(b+c, a), al(2-b-c, 2-a))
	d2 = math.Max(al(a+b, c), al(2-a-b, 2-c))
	return
}

// Example2 returns Example 2 of the paper: x ∈ {0,1}^3 i.i.d.
// Bern(1/2) and M(x) = [x1⊕x2, x3] or [x2, x1⊕x3] with probability 1/2 each;
// copies ≥ 1 independent releases are concatenated (outputs indexed in
// base 8, one 3-bit digit per copy: the branch bit and the two output bits).
// One copy: δ* = (0, log 3, log 3); two copies: (+Inf, log 5, log 5) —
// BCDP does not compose. copies ≤ 3.
func Example2(copies int) (bcdp.Finite, error) {
	if copies < 1 || copies > 3 {
		return bcdp.Finite{}, fmt.Errorf("bcdp: Example 2: copies = %d must lie in [1, 3]", copies)
	}
	// one copy: output = (y1, y2) only; the branch is not released.
	one := func(x [3]int) []float64 {
		p := make([]float64, 4)
		p[(x[0]^x[1])*2+x[2]] += 0.5
		p[x[1]*2+(x[0]^x[2])] += 0.5
		return p
	}
	m := bcdp.Finite{}
	for v := 0; v < 8; v++ {
		x := [3]int{v & 1, (v >> 1) & 1, (v >> 2) & 1}
		m.Domain = append(m.Domain, []int{x[0], x[1], x[2]})
		m.Prior = append(m.Prior, 1.0/8)
		p1 := one(x)
		row := []float64{1}
		for k := 0; k < copies; k++ {
			next := make([]float64, len(row)*4)
			for a, pa := range row {
				for b, pb := range p1 {
					next[a*4+b] = pa * pb
				}
			}
			row = next
		}
		m.Channel = append(m.Channel, row)
	}
	return m, nil
}
