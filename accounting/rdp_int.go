package accounting

import (
	"math"

	"github.com/featuredp/featuredp/internal/numeric"
)

// logAInt returns log(A_n) for an integer order n ≥ 2 and 0 < q < 1, from
//
//	A_n − 1 = Σ_{i=2}^{n} C(n,i) q^i (1−q)^{n−i} expm1((i²−i)/(2z²)),
//
// which follows from the binomial expansion A_n = Σ_i C(n,i) q^i (1−q)^{n−i}
// e^{(i²−i)/(2z²)} (MTZ 2019, Opacus' _compute_log_a_for_int_alpha) and
// Σ_i C(n,i) q^i (1−q)^{n−i} = 1: every term is positive, so nothing cancels,
// and log A_n = log1p(A_n − 1) keeps A_n − 1 even when it is far below the
// rounding of 1. Memoised per n.
func (c *sgm) logAInt(n int) float64 {
	if n <= 1 {
		return 0
	}
	if v, ok := c.intLogA[n]; ok {
		return v
	}
	lm, ok := c.logAm1IntFast(n)
	if !ok {
		lm = c.logAm1IntLog(n)
	}
	v := logA1p(lm)
	if c.intLogA == nil {
		c.intLogA = make(map[int]float64)
	}
	c.intLogA[n] = v
	return v
}

// logAm1IntFast evaluates log(A_n − 1) in linear space: A_n − 1 =
// (1−q)^n Σ_i C(n,i) H(i) with H(i) = (q/(1−q))^i expm1((i²−i)/(2z²))
// cached across orders and C(n,i) by its multiplicative recurrence. ok is
// false when a value leaves the float64 range (small z, large orders, tiny
// q); the caller then uses logAm1IntLog. Only orders up to 1000 are tried.
func (c *sgm) logAm1IntFast(n int) (float64, bool) {
	base := math.Exp(float64(n) * c.log1mq)
	if n > 1000 || !(base > 1e-300) {
		return 0, false
	}
	for len(c.hm1) <= n {
		t := float64(len(c.hm1))
		d := (t*t - t) * c.inv2z2
		// (q/(1−q))^t expm1(d) = e^{t·lr + d}(1 − e^{−d}): one exponential
		// of the combined exponent, which stays in range far longer.
		c.hm1 = append(c.hm1, math.Exp(t*c.lr+d)*-math.Expm1(-d))
	}
	c.spend(n)
	fn := float64(n)
	sum, coef := 0.0, fn*(fn-1)/2 // C(n,2)
	for i := 2; i <= n; i++ {
		h := c.hm1[i]
		if math.IsInf(h, 0) || math.IsNaN(h) || h == 0 {
			return 0, false
		}
		sum += coef * h
		coef *= (fn - float64(i)) / float64(i+1)
	}
	if !(sum > 0) || math.IsInf(sum, 1) {
		return 0, false
	}
	return math.Log(base) + numeric.Log(sum), true
}

// logAm1IntLog evaluates log(A_n − 1) with a max-shifted log-sum-exp of
//
//	s_i = log C(n,i) + i log q + (n−i) log(1−q) + log expm1((i²−i)/(2z²)),
//
// i = 2..n (log C(n,i) from a table of log-factorials, absolute error
// ~1e-14). It is robust for any z, q and order.
func (c *sgm) logAm1IntLog(n int) float64 {
	if cap(c.intBuf) < n+1 {
		c.intBuf = make([]float64, n+1)
	}
	s := c.intBuf[:n+1]
	c.spend(n)
	lfn := numeric.LogFact(n)
	m := math.Inf(-1)
	for i := 2; i <= n; i++ {
		fi := float64(i)
		v := lfn - numeric.LogFact(i) - numeric.LogFact(n-i) + fi*c.logq + float64(n-i)*c.log1mq + logExpm1((fi*fi-fi)*c.inv2z2)
		s[i] = v
		if v > m {
			m = v
		}
	}
	if math.IsInf(m, 0) || math.IsNaN(m) {
		return m
	}
	sum := 0.0
	for _, v := range s[2:] {
		if d := v - m; d > -negligibleLog {
			sum += math.Exp(d)
		}
	}
	return m + numeric.Log(sum)
}
