package accounting

import (
	"math"
	"math/big"
	"sync"
)

// This file holds reference computations that share no code and no
// formula-level trick with the library: the RDP of the Poisson-subsampled
// Gaussian by exact arbitrary-precision arithmetic (integer orders) and by a
// double quadrature of a Taylor remainder (any order), and the exact
// hockey-stick divergence δ(ε) by numerical integration. They are slow and
// are used only in the tests of independent_test.go.

// glNodes returns the n-point Gauss–Legendre nodes and weights on [−1, 1],
// by Newton's method on the Legendre polynomial P_n (three-term recurrence).
func glNodes(n int) (x, w []float64) {
	x, w = make([]float64, n), make([]float64, n)
	for i := 0; i < (n+1)/2; i++ {
		t := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var dp float64
		for it := 0; it < 100; it++ {
			p0, p1 := 1.0, t
			for k := 2; k <= n; k++ {
				p0, p1 = p1, ((2*float64(k)-1)*t*p1-(float64(k)-1)*p0)/float64(k)
			}
			dp = float64(n) * (t*p1 - p0) / (t*t - 1)
			dt := p1 / dp
			t -= dt
			if math.Abs(dt) < 1e-16 {
				break
			}
		}
		p0, p1 := 1.0, t
		for k := 2; k <= n; k++ {
			p0, p1 = p1, ((2*float64(k)-1)*t*p1-(float64(k)-1)*p0)/float64(k)
		}
		dp = float64(n) * (t*p1 - p0) / (t*t - 1)
		x[i], x[n-1-i] = -t, t
		w[i] = 2 / ((1 - t*t) * dp * dp)
		w[n-1-i] = w[i]
	}
	return x, w
}

var gl20x, gl20w = glNodes(20)

// logSumExp accumulates log Σ e^{v} with a running maximum.
type logSumExp struct{ m, s float64 }

func newLSE() logSumExp { return logSumExp{m: math.Inf(-1)} }

func (l *logSumExp) add(v float64) {
	switch {
	case math.IsInf(v, -1) || math.IsNaN(v):
		return
	case v > l.m:
		l.s = l.s*math.Exp(l.m-v) + 1
		l.m = v
	default:
		l.s += math.Exp(v - l.m)
	}
}

func (l *logSumExp) log() float64 {
	if l.s == 0 {
		return math.Inf(-1)
	}
	return l.m + math.Log(l.s)
}

// logQuadPanels returns log ∫_a^b e^{f(x)} dx by 20-point Gauss–Legendre on
// panels of width at most h.
func logQuadPanels(f func(float64) float64, a, b, h float64) float64 {
	acc := newLSE()
	n := int(math.Ceil((b - a) / h))
	if n < 1 {
		n = 1
	}
	w := (b - a) / float64(n)
	for p := 0; p < n; p++ {
		c := a + (float64(p)+0.5)*w
		for i, x := range gl20x {
			acc.add(math.Log(gl20w[i]*w/2) + f(c+x*w/2))
		}
	}
	return acc.log()
}

// ---------------------------------------------------------------------------
// Integer orders: exact binomial sum in math/big.

var (
	bigLn2Once sync.Once
	bigLn2     *big.Float
)

const bigPrec = 640

// bigLn2Value returns ln 2 = Σ_{k≥1} 1/(k·2^k) to bigPrec bits.
func bigLn2Value() *big.Float {
	bigLn2Once.Do(func() {
		s := new(big.Float).SetPrec(bigPrec + 32)
		for k := 1; k < bigPrec+64; k++ {
			t := new(big.Float).SetPrec(bigPrec + 32).SetInt64(int64(k))
			t.SetMantExp(t, k)
			s.Add(s, new(big.Float).SetPrec(bigPrec+32).Quo(big.NewFloat(1).SetPrec(bigPrec+32), t))
		}
		bigLn2 = s
	})
	return bigLn2
}

// bigExp returns e^d to about bigPrec bits: d = k ln 2 + r, e^r by its
// Taylor series after 2^-24 scaling and 24 squarings.
func bigExp(d *big.Float) *big.Float {
	prec := uint(bigPrec + 32)
	df, _ := d.Float64()
	k := math.Floor(df / math.Ln2)
	r := new(big.Float).SetPrec(prec).Mul(bigLn2Value(), new(big.Float).SetPrec(prec).SetFloat64(k))
	r.Sub(d, r)
	r.SetMantExp(r, -24)
	sum := new(big.Float).SetPrec(prec).SetInt64(1)
	term := new(big.Float).SetPrec(prec).SetInt64(1)
	for n := int64(1); n < 200; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetPrec(prec).SetInt64(n))
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -int(prec)-8 {
			break
		}
	}
	for i := 0; i < 24; i++ {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k))
}

// bigLog returns log x of a positive big.Float as float64.
func bigLog(x *big.Float) float64 {
	m := new(big.Float)
	e := x.MantExp(m)
	mf, _ := m.Float64()
	return math.Log(mf) + float64(e)*math.Ln2
}

// refRDPIntBig returns the one-step RDP at integer order n ≥ 2 from the raw
// definition A_n = E_{x~N(0,z²)}[(1 − q + q·e^{(2x−1)/(2z²)})^n]
// = Σ_{i=0}^{n} C(n,i) q^i (1−q)^{n−i} e^{(i²−i)/(2z²)}, summed in
// 640-bit arithmetic with 1 − q and the exponents formed exactly, A_n − 1
// taken in that precision (no cancellation trick). ok is false where the
// exponents leave big.Float's range.
func refRDPIntBig(q, z float64, n int) (float64, bool) {
	prec := uint(bigPrec + 32)
	if fn := float64(n); fn*fn/(2*z*z) > 1e9 {
		return 0, false
	}
	bq := new(big.Float).SetPrec(prec).SetFloat64(q)
	b1q := new(big.Float).SetPrec(prec).SetInt64(1)
	b1q.Sub(b1q, bq)
	z2 := new(big.Float).SetPrec(prec).SetFloat64(z)
	z2.Mul(z2, z2)
	z2.Mul(z2, new(big.Float).SetPrec(prec).SetInt64(2))
	// powers of q and 1−q
	pq := make([]*big.Float, n+1)
	p1 := make([]*big.Float, n+1)
	pq[0] = new(big.Float).SetPrec(prec).SetInt64(1)
	p1[0] = new(big.Float).SetPrec(prec).SetInt64(1)
	for i := 1; i <= n; i++ {
		pq[i] = new(big.Float).SetPrec(prec).Mul(pq[i-1], bq)
		p1[i] = new(big.Float).SetPrec(prec).Mul(p1[i-1], b1q)
	}
	sum := new(big.Float).SetPrec(prec)
	binom := new(big.Int).SetInt64(1)
	for i := 0; i <= n; i++ {
		if i > 0 {
			binom.Mul(binom, big.NewInt(int64(n-i+1)))
			binom.Quo(binom, big.NewInt(int64(i)))
		}
		d := new(big.Float).SetPrec(prec).SetInt64(int64(i)*int64(i) - int64(i))
		d.Quo(d, z2)
		t := new(big.Float).SetPrec(prec).SetInt(binom)
		t.Mul(t, pq[i])
		t.Mul(t, p1[n-i])
		t.Mul(t, bigExp(d))
		sum.Add(sum, t)
	}
	sum.Sub(sum, new(big.Float).SetPrec(prec).SetInt64(1))
	if sum.Sign() <= 0 {
		return 0, false
	}
	return logA1pRef(bigLog(sum)) / float64(n-1), true
}

// logA1pRef returns log(1 + e^{l}).
func logA1pRef(l float64) float64 {
	if l > 0 {
		return l + math.Log1p(math.Exp(-l))
	}
	return math.Log1p(math.Exp(l))
}

// ---------------------------------------------------------------------------
// Any order: double quadrature of a Taylor remainder.

// logRemainder returns log R_γ(w) with R_γ(w) = (1+w)^γ − 1 − γw ≥ 0 for
// w > −1 and γ > 1 or γ < 0 (where γ(γ−1) > 0), from the integral form of
// Taylor's remainder written in the variable v = log(1+s):
//
//	R_γ(w) = γ(γ−1) ∫_0^w (w−s)(1+s)^{γ−2} ds = γ(γ−1) ∫_0^L expm1(L−v) e^{γv} dv,
//
// L = log1p(w) (the argument); with v = L·s the integrand |expm1(L(1−s))|·e^{γLs} is
// non-negative on s ∈ [0, 1], so nothing cancels for any w or γ. The inner
// integral is truncated where its log-integrand has fallen by 800 (it is
// monotone in s on either side of its peak at s = 0 or s = 1) and
// integrated on panels of width 8/max(|γL|, |L|, 1).
func logRemainder(gamma, L float64) float64 {
	if L == 0 {
		return math.Inf(-1)
	}
	gL := gamma * L
	f := func(s float64) float64 {
		x := L * (1 - s)
		if x > 0 {
			return logExpm1Pos(x) + gL*s
		}
		return logNegExpm1(x) + gL*s
	}
	lo, hi := 0.0, 1.0
	if gL > 0 { // peak at s = 1: decay rate to the left
		rate := gL
		if L > 0 {
			rate = (gamma - 1) * L
		}
		lo = math.Max(0, 1-800/rate)
	} else { // peak at s = 0: decay rate to the right
		rate := -gL
		if L > 0 {
			rate = (1 - gamma) * L
		}
		hi = math.Min(1, 800/rate)
	}
	in := logQuadPanels(f, lo, hi, 8/math.Max(math.Max(math.Abs(gL), math.Abs(L)), 1))
	return math.Log(gamma*(gamma-1)) + math.Log(math.Abs(L)) + in
}

// log1pW returns L = log(1 + w) for w = q·expm1(x), without overflow for
// large x (where w itself overflows: x above 709).
func log1pW(q, x float64) float64 {
	if x > 1 {
		return x + math.Log(q) + math.Log1p((1-q)/q*math.Exp(-x))
	}
	return math.Log1p(q * math.Expm1(x))
}

// refRDPQuad returns the one-step RDP of order alpha > 1 of the
// Poisson-subsampled Gaussian (add/remove, the direction D_α(P‖Q) with
// P = (1−q)N(0, z²) + qN(1, z²), Q = N(0, z²), the one Mironov, Talwar &
// Zhang 2019 prove dominant), log(A_α)/(α−1) with
//
//	A_α − 1 = ∫ φ(u) R(w(u)) du,   w(u) = q·expm1(u/z − 1/(2z²)),
//
// the outer integral by 20-point Gauss–Legendre on panels of width
// min(1, z)/2, only where a crude evaluation of the log-integrand is within
// 120 of its maximum (the rest is below e^{-120} relative).
func refRDPQuad(q, z, alpha float64) float64 {
	return logA1pRef(logAm1Quad(q, z, alpha, alpha/z+45)) / (alpha - 1)
}

// refRDPQuadAdd is refRDPQuad in the other direction of the add/remove
// pair, D_α(Q‖P) = log(B_α)/(α−1) with B_α − 1 = ∫ φ(u) R_{1−α}(w(u)) du
// (B_α = E_Q[(1+w)^{1−α}]).
func refRDPQuadAdd(q, z, alpha float64) float64 {
	return logA1pRef(logAm1Quad(q, z, 1-alpha, 45)) / (alpha - 1)
}

// logAm1Quad returns log ∫ φ(u) R_γ(w(u)) du over u ∈ [−45 − |γ|/z, right].
func logAm1Quad(q, z, gamma, right float64) float64 {
	c := 1 / (2 * z * z)
	f := func(u float64) float64 {
		return -u*u/2 - 0.5*math.Log(2*math.Pi) + logRemainder(gamma, log1pW(q, u/z-c))
	}
	// crude is log R_γ to a few digits, to find where the integrand lives.
	crude := func(u float64) float64 {
		l := log1pW(q, u/z-c)
		switch {
		case math.Abs(l) < 1e-3:
			return -u*u/2 + math.Log(gamma*(gamma-1)/2*l*l)
		case gamma*l > 30:
			return -u*u/2 + gamma*l
		case gamma < 0 && l > 30:
			return -u*u/2 + math.Log(-gamma) + l
		}
		return -u*u/2 + math.Log(math.Abs(math.Expm1(gamma*l)-gamma*math.Expm1(l))+1e-300)
	}
	h := math.Min(1, z) / 2
	lo, hi := -45-math.Abs(gamma)/z, math.Max(45, right)
	n := int(math.Ceil((hi - lo) / h))
	cr := make([]float64, n+1)
	mx := math.Inf(-1)
	for k := range cr {
		cr[k] = crude(lo + float64(k)*h)
		mx = math.Max(mx, cr[k])
	}
	acc := newLSE()
	for k := 0; k < n; k++ {
		if math.Max(cr[k], cr[k+1]) < mx-120 && (k == 0 || cr[k-1] < mx-120) && (k+2 > n || cr[k+2] < mx-120) {
			continue
		}
		acc.add(logQuadPanels(f, lo+float64(k)*h, lo+float64(k+1)*h, h))
	}
	return acc.log()
}

// ---------------------------------------------------------------------------
// Exact δ(ε) by numerical integration of the hockey-stick divergence.

// mixture is a finite Gaussian location mixture w₀N(0, 1) + Σ_k w_k
// N(m_k, 1) with every m_k > 0 (log weights lw0 and lw), compared with
// N(0, 1). The likelihood ratio L(v) = w₀ + Σ_k w_k e^{b_k(v)},
// b_k(v) = m_k v − m_k²/2, is increasing in v. The zero-mean part is kept
// apart so that the cut points solve Σ_k w_k e^{b_k(v)} = e^{±ε} − w₀ with
// the right side formed as log(e^{±ε} − w₀) = ±ε + log(−expm1(log w₀ ∓ ε)),
// without the cancellation of log L(v) ≈ 0 (which moved δ by 1e-7
// relative at q = 1e-6, z = 1000, ε = 0) or of expm1(−ε) + 1 (2% at
// ε = 33).
type mixture struct {
	lw0   float64
	lw, m []float64
}

// logLR1 returns log Σ_k w_k e^{b_k(v)} (the part of L(v) that moves).
func (mx mixture) logLR1(v float64) float64 {
	acc := newLSE()
	for k, m := range mx.m {
		acc.add(mx.lw[k] + m*v - m*m/2)
	}
	return acc.log()
}

// solve returns v with logLR1(v) = target, by bisection (increasing).
func (mx mixture) solve(target float64) float64 {
	lo, hi := -1.0, 1.0
	for mx.logLR1(lo) > target {
		lo *= 2
	}
	for mx.logLR1(hi) < target {
		hi *= 2
	}
	for i := 0; i < 300 && hi-lo > 1e-16*math.Max(1, math.Abs(lo)); i++ {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if mx.logLR1(mid) < target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// logExpm1Pos returns log(expm1(x)) for x > 0.
func logExpm1Pos(x float64) float64 {
	if x > 1 {
		return x + math.Log1p(-math.Exp(-x))
	}
	return math.Log(math.Expm1(x))
}

// logNegExpm1 returns log(−expm1(x)) for x < 0.
func logNegExpm1(x float64) float64 {
	if x < -1 {
		return math.Log1p(-math.Exp(x))
	}
	return math.Log(-math.Expm1(x))
}

// logDeltaRemove returns log ∫ (P − e^ε Q)_+ with P the mixture and Q =
// N(0, 1): with v* the cut point L(v*) = e^ε, the integrand on v > v* is
// φ(v) Σ_k w_k e^{b_k(v*)} expm1(m_k (v − v*)), a sum of non-negative terms
// (no cancellation), integrated numerically.
func (mx mixture) logDeltaRemove(eps float64) float64 {
	vs := mx.solve(eps + logNegExpm1(mx.lw0-eps))
	lo, hi := math.Inf(1), 0.0
	for _, m := range mx.m {
		lo, hi = math.Min(lo, m), math.Max(hi, m)
	}
	f := func(v float64) float64 {
		acc := newLSE()
		for k, m := range mx.m {
			acc.add(mx.lw[k] + m*vs - m*m/2 + logExpm1Pos(m*(v-vs)))
		}
		return -v*v/2 - 0.5*math.Log(2*math.Pi) + acc.log()
	}
	// Every component's mass lies within 40 of its mean: beyond, the
	// integrand is below e^{-800} of its peak.
	return logQuadPanels(f, math.Max(vs, lo-40), math.Max(vs, hi)+40, 0.25)
}

// logDeltaAdd returns log ∫ (Q − e^ε P)_+: zero (−Inf) unless
// L(−∞) = w₀ < e^{−ε}; with v₂ the cut point L(v₂) = e^{−ε} the integrand
// on v < v₂ is e^ε φ(v) Σ_k w_k e^{b_k(v₂)} (−expm1(m_k (v − v₂))).
func (mx mixture) logDeltaAdd(eps float64) float64 {
	if mx.lw0 >= -eps {
		return math.Inf(-1)
	}
	v2 := mx.solve(-eps + logNegExpm1(mx.lw0+eps))
	f := func(v float64) float64 {
		acc := newLSE()
		for k, m := range mx.m {
			acc.add(mx.lw[k] + m*v2 - m*m/2 + logNegExpm1(m*(v-v2)))
		}
		return eps - v*v/2 - 0.5*math.Log(2*math.Pi) + acc.log()
	}
	return logQuadPanels(f, math.Min(v2, 0)-40, v2, 0.25)
}

// logDelta returns log δ(ε), the larger of the two directions.
func (mx mixture) logDelta(eps float64) float64 {
	return math.Max(mx.logDeltaRemove(eps), mx.logDeltaAdd(eps))
}

// epsFor returns the smallest ε ≥ 0 with δ(ε) ≤ δ by bisection on the
// quadrature (relative 1e-10).
func (mx mixture) epsFor(delta float64) float64 {
	ld := math.Log(delta)
	if delta < 0x1p-1000 {
		ld = math.Log(delta*0x1p200) - 200*math.Ln2
	}
	if mx.logDelta(0) <= ld {
		return 0
	}
	lo, hi := 0.0, 1.0
	for mx.logDelta(hi) > ld {
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1e-10*hi {
		mid := (lo + hi) / 2
		if mx.logDelta(mid) > ld {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// oneStepMixture is the mixture of one step of the Poisson-subsampled
// Gaussian in units of z: (1−q)N(0,1) + qN(1/z, 1).
func oneStepMixture(q, z float64) mixture {
	if q == 1 {
		return gaussianMixture(1 / z)
	}
	return mixture{lw0: math.Log1p(-q), lw: []float64{math.Log(q)}, m: []float64{1 / z}}
}

// gaussianMixture is the Gaussian mechanism N(μ, 1) against N(0, 1).
func gaussianMixture(mu float64) mixture {
	return mixture{lw0: math.Inf(-1), lw: []float64{0}, m: []float64{mu}}
}

// sumStatMixture is the law of the normalised sum Σ_t y_t/(z√T) of the T
// outputs of the Poisson-subsampled Gaussian: Σ_k Bin(k; T, q) N(k/(z√T), 1)
// against N(0, 1). The sum is a post-processing of the T outputs, so its
// hockey-stick divergence is a LOWER bound on the tight δ(ε) of the T-fold
// composition (data processing). Binomial weights below e^{-60} of the
// largest are dropped: that lowers P, so the remove direction
// (logDeltaRemove) stays a lower bound.
func sumStatMixture(q, z float64, steps int) mixture {
	t := float64(steps)
	lgT, _ := math.Lgamma(t + 1)
	lq, l1q := math.Log(q), math.Log1p(-q)
	mode := math.Floor((t + 1) * q)
	lw := func(k float64) float64 {
		a, _ := math.Lgamma(k + 1)
		b, _ := math.Lgamma(t - k + 1)
		return lgT - a - b + k*lq + (t-k)*l1q
	}
	top := lw(mode)
	mx := mixture{lw0: math.Inf(-1)}
	sd := math.Sqrt(t*q*(1-q)) + 1
	for k := math.Max(0, mode-12*sd); k <= math.Min(t, mode+12*sd); k++ {
		switch v := lw(k); {
		case v <= top-60:
		case k == 0:
			mx.lw0 = v
		default:
			mx.lw = append(mx.lw, v)
			mx.m = append(mx.m, k/(z*math.Sqrt(t)))
		}
	}
	return mx
}
