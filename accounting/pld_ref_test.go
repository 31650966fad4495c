package accounting

import (
	"fmt"
	"math"
	"math/bits"
	"math/cmplx"
	"sync"
)

// An independent privacy-loss-distribution (PLD) accountant for T steps of
// the Poisson-subsampled Gaussian under add/remove, after Koskela, Jälkö &
// Honkela (AISTATS 2020) and Koskela, Jälkö, Prediger & Honkela (AISTATS
// 2021), and the "pessimistic"/"optimistic" estimates of Google's
// dp_accounting PLD library (Meiser & Mohammadi, CCS 2018). It shares no
// code with the library, nor with the RDP references of
// independent_ref_test.go beyond logNegExpm1.
//
// In units of the noise, one step compares P = (1−q)N(0, 1) + qN(μ, 1),
// μ = 1/z, with Q = N(0, 1). Its privacy loss ω(u) = log P(u)/Q(u) =
// log(1 − q + q·e^{μu − μ²/2}) is increasing in u. The remove direction is
// the law of ω(u), u ~ P; the add direction the law of −ω(u), u ~ Q. For
// either, the hockey-stick divergence of the T-fold product is
//
//	δ(ε) = E[(1 − e^{ε − S})_+],   S = ω_1 + … + ω_T (i.i.d.),
//
// non-decreasing in every ω_t. Rounding every loss UP onto the grid ΔZ
// (⌈ω/Δ⌉Δ) and sending the mass cut off by any truncation to S = +∞ can
// only raise δ(ε): the pessimistic curve is an upper bound on the tight
// δ(ε). Rounding DOWN (⌊ω/Δ⌋Δ) and dropping the cut mass (S = −∞) gives
// a lower bound. Since ⌈ω/Δ⌉ = ⌊ω/Δ⌋ + 1 except on a null set, both are
// the law of the same sum of floor indices K: S_opt = KΔ and S_pess =
// (K + T)Δ, so ε_pess(δ) − ε_opt(δ) = TΔ (plus the cut mass). The T-fold
// law of K is computed by binary powering, each product a linear
// convolution by a radix-2 FFT, truncated to a Chernoff window.

// pldDir is one direction of the add/remove pair.
type pldDir int

const (
	pldRemove pldDir = iota // the law of ω under P (remove a record)
	pldAdd                  // the law of −ω under Q (add a record)
)

func (d pldDir) String() string {
	if d == pldAdd {
		return "add"
	}
	return "remove"
}

// pldStep is the one-step privacy-loss law of one direction.
type pldStep struct {
	q, mu    float64
	lq, l1q  float64 // log q and log(1 − q) (−Inf at q = 1)
	dir      pldDir
	sqrtHalf float64
}

func newPLDStep(q, z float64, dir pldDir) pldStep {
	return pldStep{q: q, mu: 1 / z, lq: math.Log(q), l1q: math.Log1p(-q), dir: dir, sqrtHalf: math.Sqrt(0.5)}
}

// uOf returns the u with ω(u) = l: e^{μu − μ²/2} = (e^l − (1 − q))/q,
// formed as l + log(−expm1(log(1−q) − l)) − log q without cancellation;
// −Inf where l ≤ log(1 − q) (no u has that loss).
func (s pldStep) uOf(l float64) float64 {
	if l <= s.l1q || math.IsInf(l, -1) {
		return math.Inf(-1)
	}
	if math.IsInf(l, 1) {
		return l
	}
	return s.mu/2 + (l+logNegExpm1(s.l1q-l)-s.lq)/s.mu
}

// phi returns Φ(x) and 1 − Φ(x), each to full relative precision.
func (s pldStep) phi(x float64) (lo, up float64) {
	return 0.5 * math.Erfc(-x*s.sqrtHalf), 0.5 * math.Erfc(x*s.sqrtHalf)
}

// cdf returns the probabilities that the loss is < l and ≥ l.
func (s pldStep) cdf(l float64) (below, above float64) {
	if s.dir == pldRemove {
		u := s.uOf(l)
		a0, b0 := s.phi(u)
		a1, b1 := s.phi(u - s.mu)
		return (1-s.q)*a0 + s.q*a1, (1-s.q)*b0 + s.q*b1
	}
	// −ω(u) < l ⇔ ω(u) > −l ⇔ u > uOf(−l), u ~ N(0, 1).
	lo, up := s.phi(s.uOf(-l))
	return up, lo
}

// binMasses returns the probabilities of the loss in [kΔ, (k+1)Δ) for k =
// k0, …, k1, each a difference of the smaller tail (no cancellation).
func (s pldStep) binMasses(delta float64, k0, k1 int) []float64 {
	n := k1 - k0 + 1
	out := make([]float64, n)
	pb, pa := s.cdf(float64(k0) * delta)
	for i := range out {
		b, a := s.cdf(float64(k0+i+1) * delta)
		if b < 0.5 {
			out[i] = b - pb
		} else {
			out[i] = pa - a
		}
		out[i] = math.Max(out[i], 0) // the tails are monotone: only rounding can make it negative
		pb, pa = b, a
	}
	return out
}

// tailEdge returns a loss l with cdf tail below (side < 0) or above (side
// > 0) l at most tau, by doubling (at most 64 times) then bisection.
func (s pldStep) tailEdge(tau float64, side int) float64 {
	tail := func(l float64) float64 {
		b, a := s.cdf(l)
		if side < 0 {
			return b
		}
		return a
	}
	in, out := 0.0, float64(side)
	for i := 0; tail(out) > tau && i < 64; i++ {
		in, out = out, 2*out
	}
	for range 200 {
		mid := (in + out) / 2
		if mid == in || mid == out {
			break
		}
		if tail(mid) > tau {
			in = mid
		} else {
			out = mid
		}
	}
	return out
}

// pldLaw is the law of the sum K of floor indices of steps losses: p[i]
// is the probability of K = off + i; cut is the mass removed by
// truncation (counted at +∞ by the pessimistic bound, dropped by the
// optimistic one).
type pldLaw struct {
	off   int
	p     []float64
	steps int
	cut   float64
}

// pldCurve is the composed PLD of one direction with its grid.
type pldCurve struct {
	dir   pldDir
	delta float64 // grid spacing Δ
	law   pldLaw
	// suffix sums at lattice point j (loss ℓ_j = (off+j)Δ of the optimistic
	// sum): mass[j] = Σ_{i>j} p_i, disc[j] = Σ_{i>j} p_i e^{ℓ_j − ℓ_i}.
	mass, disc []float64
	maxLen     int // the largest array a convolution used (work)
}

// pldOptions sets the grid: points is the target number of lattice points
// of the T-fold window, tau the Chernoff tail allowance of each window
// side and of the one-step truncation, maxLen the largest array allowed.
type pldOptions struct {
	points int
	tau    float64
	maxLen int
}

// pldChernoff holds Chernoff bounds on the lattice sum from the one-step
// law's moment generating function: logM[k] = log Σ_i p_i e^{λ_k iΔ}
// (i the one-step floor index), on a grid of λ of ratio 1.25 (the window
// is then within 1% of the best λ's) up to |λ|Δ = 8 (a larger λ, which
// only weighs the top bins, never gives a window narrower than the grid
// needs).
type pldChernoff struct {
	lam, logM []float64
}

func newPLDChernoff(p []float64, k0 int, delta float64) pldChernoff {
	const block = 64
	var c pldChernoff
	for l := 1e-4; l*delta <= 8; l *= 1.25 {
		c.lam = append(c.lam, l, -l)
	}
	c.logM = make([]float64, len(c.lam))
	for j, lam := range c.lam {
		acc := newLSE()
		step := lam * delta
		for b := 0; b < len(p); b += block {
			e := min(b+block, len(p))
			// Σ p_i e^{λ(i−b)Δ} in the block by a running product (at most
			// e^{512}: no overflow).
			sum, w, r := 0.0, 1.0, math.Exp(step)
			for _, v := range p[b:e] {
				sum += v * w
				w *= r
			}
			if sum > 0 {
				acc.add(math.Log(sum) + lam*float64(k0+b)*delta)
			}
		}
		c.logM[j] = acc.log()
	}
	return c
}

// window returns losses [lo, hi] outside which the sum of m one-step
// losses has at most tau mass on each side (Chernoff: P(S ≥ a) ≤
// e^{−λa}M(λ)^m).
func (c pldChernoff) window(m int, tau float64) (lo, hi float64) {
	lo, hi = math.Inf(-1), math.Inf(1)
	lt := math.Log(tau)
	for j, lam := range c.lam {
		b := (float64(m)*c.logM[j] - lt) / math.Abs(lam)
		if lam > 0 {
			hi = math.Min(hi, b)
		} else {
			lo = math.Max(lo, -b)
		}
	}
	return lo, hi
}

// newPLDCurve composes steps steps of the direction dir of (q, z).
func newPLDCurve(q, z float64, steps int, dir pldDir, o pldOptions) (*pldCurve, error) {
	s := newPLDStep(q, z, dir)
	lo1, hi1 := s.tailEdge(o.tau, -1), s.tailEdge(o.tau, 1)
	// A coarse grid places the T-fold window; the fine grid spreads it
	// over o.points lattice points.
	delta := (hi1 - lo1) / 4096
	k0, k1 := int(math.Floor(lo1/delta)), int(math.Floor(hi1/delta))
	lo, hi := newPLDChernoff(s.binMasses(delta, k0, k1), k0, delta).window(steps, o.tau)
	lo, hi = math.Max(lo, float64(steps)*lo1), math.Min(hi, float64(steps)*(hi1+delta))
	delta = (hi - lo) / float64(o.points)
	k0, k1 = int(math.Floor(lo1/delta)), int(math.Floor(hi1/delta))
	if k1-k0+1 > o.maxLen {
		return nil, fmt.Errorf("pld: the one-step law needs %d points (> %d)", k1-k0+1, o.maxLen)
	}
	one := pldLaw{off: k0, p: s.binMasses(delta, k0, k1), steps: 1}
	b0, _ := s.cdf(float64(k0) * delta)
	_, a1 := s.cdf(float64(k1+1) * delta)
	one.cut = b0 + a1
	ch := newPLDChernoff(one.p, k0, delta)
	c := &pldCurve{dir: dir, delta: delta}
	law, err := c.power(one, steps, ch, o)
	if err != nil {
		return nil, err
	}
	c.law = law
	c.suffix()
	return c, nil
}

// truncate cuts a law of m steps to its Chernoff window, adding the mass
// outside (in absolute value: FFT rounding included) to cut.
func (c *pldCurve) truncate(l pldLaw, ch pldChernoff, tau float64) pldLaw {
	lo, hi := ch.window(l.steps, tau)
	i0 := max(int(math.Floor(lo/c.delta))-l.off, 0)
	i1 := min(int(math.Ceil(hi/c.delta))-l.off, len(l.p)-1)
	if i1 < i0 {
		i0, i1 = 0, -1
	}
	for i, v := range l.p {
		if i < i0 || i > i1 {
			l.cut += math.Abs(v)
		}
	}
	if i1 < i0 {
		l.p = nil
		return l
	}
	l.p = append([]float64(nil), l.p[i0:i1+1]...)
	l.off += i0
	return l
}

// power returns the steps-fold convolution of one by binary powering:
// each round forms r·b and b·b with one forward and one inverse FFT.
func (c *pldCurve) power(one pldLaw, steps int, ch pldChernoff, o pldOptions) (pldLaw, error) {
	var r *pldLaw
	b := one
	for e := steps; e > 0; e >>= 1 {
		needSq := e>>1 > 0
		switch {
		case e&1 == 1 && r == nil:
			cp := b
			r = &cp
			if needSq {
				sq, _, err := c.convolve(b, nil, o)
				if err != nil {
					return pldLaw{}, err
				}
				b = c.truncate(sq, ch, o.tau)
			}
		case e&1 == 1:
			rb, sq, err := c.convolve(*r, &b, o)
			if err != nil {
				return pldLaw{}, err
			}
			rb = c.truncate(rb, ch, o.tau)
			r = &rb
			if needSq {
				b = c.truncate(sq, ch, o.tau)
			}
		case needSq:
			sq, _, err := c.convolve(b, nil, o)
			if err != nil {
				return pldLaw{}, err
			}
			b = c.truncate(sq, ch, o.tau)
		}
	}
	return *r, nil
}

// convolve returns b·b when x is nil, else x·b and b·b, by one FFT of
// x + i·b and one inverse FFT of X·B + i·B² (the real and imaginary parts
// of a Hermitian pair). The cut mass of a product is the sum of its
// factors' (a union bound: any factor at +∞ puts the sum there).
func (c *pldCurve) convolve(x pldLaw, b *pldLaw, o pldOptions) (xb, bb pldLaw, err error) {
	if b == nil { // square x
		n := 2*len(x.p) - 1
		if n > o.maxLen {
			return pldLaw{}, pldLaw{}, fmt.Errorf("pld: a convolution needs %d points (> %d)", n, o.maxLen)
		}
		c.maxLen = max(c.maxLen, n)
		z := make([]complex128, ceilPow2(n))
		for i, v := range x.p {
			z[i] = complex(v, 0)
		}
		fft(z, false)
		for i := range z {
			z[i] *= z[i]
		}
		fft(z, true)
		return pldLaw{off: 2 * x.off, p: realPart(z[:n]), steps: 2 * x.steps, cut: 2 * x.cut}, pldLaw{}, nil
	}
	nxb, nbb := len(x.p)+len(b.p)-1, 2*len(b.p)-1
	n := max(nxb, nbb)
	if n > o.maxLen {
		return pldLaw{}, pldLaw{}, fmt.Errorf("pld: a convolution needs %d points (> %d)", n, o.maxLen)
	}
	c.maxLen = max(c.maxLen, n)
	size := ceilPow2(n)
	z := make([]complex128, size)
	for i, v := range x.p {
		z[i] = complex(v, 0)
	}
	for i, v := range b.p {
		z[i] += complex(0, v)
	}
	fft(z, false)
	w := make([]complex128, size)
	for k := range z {
		zc := cmplx.Conj(z[(size-k)%size])
		X := (z[k] + zc) / 2
		B := (z[k] - zc) / complex(0, 2)
		w[k] = X*B + complex(0, 1)*B*B
	}
	fft(w, true)
	xb = pldLaw{off: x.off + b.off, p: make([]float64, nxb), steps: x.steps + b.steps, cut: x.cut + b.cut}
	bb = pldLaw{off: 2 * b.off, p: make([]float64, nbb), steps: 2 * b.steps, cut: 2 * b.cut}
	for i := range xb.p {
		xb.p[i] = real(w[i])
	}
	for i := range bb.p {
		bb.p[i] = imag(w[i])
	}
	return xb, bb, nil
}

func realPart(z []complex128) []float64 {
	out := make([]float64, len(z))
	for i, v := range z {
		out[i] = real(v)
	}
	return out
}

func ceilPow2(n int) int { return 1 << bits.Len(uint(n-1)) }

var (
	fftTwiddleMu sync.Mutex
	fftTwiddles  = map[int][]complex128{}
)

// twiddles returns e^{−2πik/n} for k < n/2, each from its own Sincos
// (no recurrence, so no accumulated rounding).
func twiddles(n int) []complex128 {
	fftTwiddleMu.Lock()
	defer fftTwiddleMu.Unlock()
	if w, ok := fftTwiddles[n]; ok {
		return w
	}
	w := make([]complex128, n/2)
	for k := range w {
		s, c := math.Sincos(2 * math.Pi * float64(k) / float64(n))
		w[k] = complex(c, -s)
	}
	fftTwiddles[n] = w
	return w
}

// fft is an in-place iterative radix-2 decimation-in-time FFT of a
// power-of-two length: X_k = Σ_j x_j e^{∓2πijk/n}; inverse (the + sign)
// also divides by n.
func fft(x []complex128, inverse bool) {
	n := len(x)
	if n < 2 {
		return
	}
	shift := 64 - bits.Len(uint(n-1))
	for i := range x {
		if j := int(bits.Reverse64(uint64(i)) >> shift); j > i {
			x[i], x[j] = x[j], x[i]
		}
	}
	w := twiddles(n)
	for size := 2; size <= n; size <<= 1 {
		half, stride := size/2, n/size
		for start := 0; start < n; start += size {
			for k := range half {
				t := w[k*stride]
				if inverse {
					t = cmplx.Conj(t)
				}
				a, b := x[start+k], x[start+k+half]*t
				x[start+k], x[start+k+half] = a+b, a-b
			}
		}
	}
	if inverse {
		inv := complex(1/float64(n), 0)
		for i := range x {
			x[i] *= inv
		}
	}
}

// suffix fills mass and disc by one backward pass: disc[j−1] =
// e^{−Δ}(disc[j] + p_j).
func (c *pldCurve) suffix() {
	p := c.law.p
	c.mass, c.disc = make([]float64, len(p)), make([]float64, len(p))
	e := math.Exp(-c.delta)
	var m, d float64
	for j := len(p) - 1; j >= 0; j-- {
		c.mass[j], c.disc[j] = m, d
		m += p[j]
		d = e * (d + p[j])
	}
}

// deltaOpt returns the optimistic δ(ε) = Σ_{ℓ_i > ε} p_i(1 − e^{ε−ℓ_i})
// with ℓ_i = (off+i)Δ: a lower bound on the tight δ(ε).
func (c *pldCurve) deltaOpt(eps float64) float64 {
	return c.deltaAt(eps / c.delta)
}

// deltaPess returns the pessimistic δ(ε): the same law at (K + T)Δ plus
// the cut mass at +∞ — an upper bound on the tight δ(ε).
func (c *pldCurve) deltaPess(eps float64) float64 {
	return c.deltaAt(eps/c.delta-float64(c.law.steps)) + c.law.cut
}

// deltaAt returns Σ_{i: off+i > x} p_i(1 − e^{(x − off − i)Δ}) for x in
// units of Δ.
func (c *pldCurve) deltaAt(x float64) float64 {
	j := int(math.Floor(x)) - c.law.off
	switch {
	case j >= len(c.law.p):
		return 0
	case j < 0: // below the support: the sum over every point
		tot := 0.0
		for i, v := range c.law.p {
			tot += v * -math.Expm1((x-float64(c.law.off+i))*c.delta)
		}
		return math.Max(tot, 0)
	}
	f := (x - math.Floor(x)) * c.delta // ε − ℓ_j ∈ [0, Δ)
	return math.Max(c.mass[j]-math.Exp(f)*c.disc[j], 0)
}

// epsFor returns the smallest ε ≥ 0 with d(ε) ≤ delta for a
// non-increasing d, by bisection to relative 1e-9; +Inf if d stays above
// delta up to ε = 1e9.
func epsFor(d func(float64) float64, delta float64) float64 {
	if d(0) <= delta {
		return 0
	}
	lo, hi := 0.0, 1e-6
	for d(hi) > delta {
		if hi > 1e9 { // never certified (the cut mass alone exceeds δ)
			return math.Inf(1)
		}
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1e-9*hi {
		mid := (lo + hi) / 2
		if d(mid) <= delta {
			hi = mid
			continue
		}
		lo = mid
	}
	return hi
}

// pldPair is the add/remove PLD accountant: both directions, δ the
// larger.
type pldPair struct{ rm, ad *pldCurve }

func newPLDPair(q, z float64, steps int, o pldOptions) (pldPair, error) {
	rm, err := newPLDCurve(q, z, steps, pldRemove, o)
	if err != nil {
		return pldPair{}, err
	}
	ad, err := newPLDCurve(q, z, steps, pldAdd, o)
	if err != nil {
		return pldPair{}, err
	}
	return pldPair{rm, ad}, nil
}

func (p pldPair) deltaOpt(eps float64) float64 {
	return math.Max(p.rm.deltaOpt(eps), p.ad.deltaOpt(eps))
}

func (p pldPair) deltaPess(eps float64) float64 {
	return math.Max(p.rm.deltaPess(eps), p.ad.deltaPess(eps))
}

// epsBracket returns ε_opt ≤ tight ε(δ) ≤ ε_pess.
func (p pldPair) epsBracket(delta float64) (lo, hi float64) {
	return epsFor(p.deltaOpt, delta), epsFor(p.deltaPess, delta)
}
