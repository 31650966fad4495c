package accounting

import (
	"fmt"
	"math"
	"sync"
)

// maxFracTerms caps the fractional-order series (see logAFrac). Opacus
// loops without a cap; the series converges for every valid input, but can
// need very many terms for orders close to 1. An order whose series has not
// converged after maxFracTerms terms is given the RDP α/(2z²) of the
// un-subsampled Gaussian mechanism, a valid upper bound.
const maxFracTerms = 1 << 20

// maxExactOrder: orders above it (never useful for (ε, δ) conversion, and
// costing time and memory linear in the order) get the RDP α/(2z²) of the
// un-subsampled Gaussian mechanism, a valid upper bound, instead of the
// exact series.
const maxExactOrder = 1 << 16

// fracStopLog is Opacus' stopping rule for the fractional series: stop after
// the first term whose two parts are both below exp(-30).
const fracStopLog = -30.0

// negligibleLog: a term below exp(−negligibleLog) = 4e-18 relative to the
// largest term of its sum (or, for the fractional series, in absolute value,
// since A_α ≥ 1) is not evaluated: it cannot change a double-precision sum of
// fewer than ~1e3 terms.
const negligibleLog = 40.0

// logFactTableSize bounds the precomputed table of log-factorials used for
// the binomial coefficients of integer orders; larger integer orders fall
// back to math.Lgamma per term.
const logFactTableSize = 4097

var (
	logFactOnce  sync.Once
	logFactTable []float64
	logIntTable  []float64 // logIntTable[n] = log(n), n >= 1
)

// logFact returns log(n!) for 0 <= n, from a table built once (each entry
// from math.Lgamma, so no rounding accumulates).
func logFact(n int) float64 {
	logFactOnce.Do(func() {
		logFactTable = make([]float64, logFactTableSize)
		logIntTable = make([]float64, logFactTableSize)
		for i := range logFactTable {
			logFactTable[i], _ = math.Lgamma(float64(i) + 1)
			logIntTable[i] = math.Log(float64(i))
		}
	})
	if n < logFactTableSize {
		return logFactTable[n]
	}
	v, _ := math.Lgamma(float64(n) + 1)
	return v
}

func checkSampleRate(q float64) error {
	if math.IsNaN(q) || q < 0 || q > 1 {
		return fmt.Errorf("accounting: sample rate %v not in [0, 1]", q)
	}
	return nil
}

func checkNoise(z float64) error {
	if math.IsNaN(z) || z < 0 {
		return fmt.Errorf("accounting: noise multiplier %v is not >= 0 (or +Inf)", z)
	}
	return nil
}

func checkOrder(alpha float64) error {
	if math.IsNaN(alpha) || !(alpha > 1) {
		return fmt.Errorf("accounting: RDP order %v is not > 1", alpha)
	}
	return nil
}

func checkSteps(steps int) error {
	if steps < 0 {
		return fmt.Errorf("accounting: number of steps %d is negative", steps)
	}
	return nil
}

// RDPGaussian returns the Rényi DP of order alpha of one Gaussian mechanism
// with noise multiplier z (noise standard deviation z × the L2 sensitivity),
// α/(2z²) (Mironov 2017, Prop. 7). It holds for whichever neighbouring
// relation the sensitivity is computed for (for a sum of contributions
// clipped to C: sensitivity C under add/remove-one, 2C under replace-one).
// No sampling: this is the full-batch case q = 1, no conversion.
//
// z = 0 gives +Inf, z = +Inf gives 0, alpha = +Inf gives +Inf (for z < ∞).
// Errors: z NaN or negative, alpha NaN or not > 1.
func RDPGaussian(z, alpha float64) (float64, error) {
	if err := checkNoise(z); err != nil {
		return 0, err
	}
	if err := checkOrder(alpha); err != nil {
		return 0, err
	}
	return rdpOne(1, z, alpha), nil
}

// RDPSubsampledGaussian returns the Rényi DP of order alpha of ONE step of
// the Poisson-subsampled Gaussian mechanism: every record is included
// independently with probability q, the clipped contributions are summed and
// Gaussian noise of standard deviation z × the clip norm is added.
// Neighbouring relation: add/remove one record. The value is the exact RDP
// of Mironov, Talwar & Zhang 2019 ("Rényi Differential Privacy of the Sampled
// Gaussian Mechanism"), computed as Opacus and TF Privacy do:
//
//   - integer orders: the binomial expansion
//     A_α = Σ_{i=0}^{α} C(α,i) q^i (1−q)^{α−i} exp((i²−i)/(2z²)),
//     summed in linear space where that is in range and in log space
//     otherwise;
//   - fractional orders: the signed series of MTZ 2019 §3.3, term for term
//     as Opacus' _compute_log_a_for_frac_alpha (its erfc factors rewritten
//     through the scaled erfcx so that nothing overflows, underflows or
//     cancels in the tails); summation stops after the first term below
//     exp(−30), as in Opacus, which bounds the relative accuracy at orders
//     close to 1 to about 1e-9 (capped at 2^20 terms, after which the
//     bound α/(2z²) is used).
//
// Any numerical failure of the series is replaced by the un-subsampled
// value α/(2z²), which is always a valid upper bound (Poisson subsampling
// never increases Rényi divergence), so results are never NaN.
//
// The result is log(A_α)/(α−1). Edge cases (as Opacus / dp_accounting):
// q = 0 → 0; z = 0 → +Inf (for q > 0); q = 1 → α/(2z²); alpha = +Inf →
// +Inf for q > 0; z = +Inf → 0. Orders above 65536 (finite) get the
// un-subsampled value α/(2z²), a valid upper bound, instead of the series.
//
// Errors: q NaN or outside [0, 1], z NaN or negative, alpha NaN or not > 1.
func RDPSubsampledGaussian(q, z, alpha float64) (float64, error) {
	if err := checkSampleRate(q); err != nil {
		return 0, err
	}
	if err := checkNoise(z); err != nil {
		return 0, err
	}
	if err := checkOrder(alpha); err != nil {
		return 0, err
	}
	return rdpOne(q, z, alpha), nil
}

// ComputeRDP returns the RDP of steps compositions of the Poisson-subsampled
// Gaussian mechanism (sample rate q, noise multiplier z, add/remove-one
// neighbours) at every order of the grid: steps × RDPSubsampledGaussian(q,
// z, α) for each α in orders (composition adds RDP). It is the analogue of
// Opacus' compute_rdp. steps = 0 gives zeros. The result never contains NaN:
// values are finite or +Inf (steps × +Inf = +Inf, and 0 × +Inf is treated as
// 0, since zero steps release nothing).
//
// Errors: invalid q or z (see RDPSubsampledGaussian), negative steps, or an
// order grid rejected by ValidateOrders.
func ComputeRDP(q, z float64, steps int, orders []float64) ([]float64, error) {
	if err := checkSampleRate(q); err != nil {
		return nil, err
	}
	if err := checkNoise(z); err != nil {
		return nil, err
	}
	if err := checkSteps(steps); err != nil {
		return nil, err
	}
	if err := ValidateOrders(orders); err != nil {
		return nil, err
	}
	out := make([]float64, len(orders))
	addRDP(out, q, z, steps, orders)
	return out, nil
}

// addRDP adds steps × RDP(q, z, α) to out[k] for every order orders[k].
// Inputs must be valid. The per-(q, z) work that does not depend on the
// order (log-erfc values, log-factorials, fractional-part tables) is shared
// across the grid through one sgm context.
func addRDP(out []float64, q, z float64, steps int, orders []float64) {
	if steps == 0 || q == 0 || math.IsInf(z, 1) {
		return
	}
	t := float64(steps)
	c := newSGM(q, z)
	for k, a := range orders {
		r := c.rdp(a)
		if r != 0 {
			out[k] += t * r
		}
	}
}

// rdpOne is RDPSubsampledGaussian for validated inputs.
func rdpOne(q, z, alpha float64) float64 {
	return newSGM(q, z).rdp(alpha)
}

// sgm holds the order-independent quantities of one (q, z) pair of the
// Poisson-subsampled Gaussian mechanism, and caches that make evaluating a
// whole order grid cheap. Not safe for concurrent use.
//
// The fractional-order series is organised around one identity. Write
// L = log(1/q − 1), z0 = z²L + 1/2 (Opacus' z0), K = exp(−z0²/(2z²))/2 and
// lr = log(q/(1−q)) = −L. For any real t and x = (t − z0)/(√2 z),
//
//	t·lr + (t²−t)/(2z²) = x² − z0²/(2z²),
//
// so a term q^t (1−q)^{α−t} e^{(t²−t)/(2z²)} erfc(x)/2 of the MTZ series
// equals (1−q)^α · K · erfcx(x) with erfcx(x) = e^{x²} erfc(x). The factor
// G(t, x) = (q/(1−q))^t e^{(t²−t)/(2z²)} erfc(x)/2 depends on t only (not on
// the order), so it is cached; it is computed as K·erfcx(x) when x ≥ 0 (no
// cancellation between the large exponent and the tiny erfc) and directly
// when x < 0 (where erfc(x) ∈ (1, 2] and the direct form has no
// cancellation either).
type sgm struct {
	q, z         float64
	logq, log1mq float64
	lr           float64 // log(q/(1−q))
	inv2z2, z0   float64
	invS         float64 // 1/(√2 z)
	logK, k      float64 // K = exp(−z0²/(2z²))/2 and its log
	g0, logG0    signedIndex
	h            []float64 // H(i) = (q/(1−q))^i e^{(i²−i)/(2z²)}, see logAIntFast
	fracs        map[int64]*fracTable
	buf0, buf1   []float64
	signs        []float64
	intBuf       []float64
}

// fracTable caches, for one fractional part f of the order, what depends on
// j = α − i = f + m only (m = ⌊α⌋ − i runs over ⌊α⌋, ⌊α⌋−1, …): log|f + m|
// (binomial recurrence) and G1 = G(j, (z0 − j)/(√2 z)) in linear and log
// form.
type fracTable struct {
	f             float64
	logJ, g1, lg1 signedIndex
}

// signedIndex is a lazily grown table indexed by any integer; NaN marks an
// entry not computed yet.
type signedIndex struct{ pos, neg []float64 }

// slot returns a pointer to the entry for m, growing the table with NaN.
func (s *signedIndex) slot(m int) *float64 {
	p, k := &s.pos, m
	if m < 0 {
		p, k = &s.neg, -m-1
	}
	if k >= len(*p) {
		n := max(2*len(*p), k+1, 64)
		grown := make([]float64, n)
		copy(grown, *p)
		for i := len(*p); i < n; i++ {
			grown[i] = math.NaN()
		}
		*p = grown
	}
	return &(*p)[k]
}

func newSGM(q, z float64) *sgm {
	c := &sgm{q: q, z: z}
	if q > 0 && q < 1 && z > 0 && !math.IsInf(z, 1) {
		c.logq = math.Log(q)
		c.log1mq = math.Log1p(-q)
		c.lr = c.logq - c.log1mq
		z2 := z * z
		c.inv2z2 = 1 / (2 * z2)
		c.z0 = z2*math.Log(1/q-1) + 0.5
		c.invS = 1 / (sqrt2 * z)
		c.logK = -c.z0*c.z0*c.inv2z2 - ln2
		c.k = math.Exp(c.logK)
	}
	return c
}

// rdp is the one-step RDP at order alpha (validated inputs). A numerical
// failure of the series (NaN, or no convergence) and any value above the
// RDP α/(2z²) of the un-subsampled Gaussian — a valid upper bound, since
// Poisson subsampling never increases Rényi divergence (joint
// quasi-convexity) — are replaced by α/(2z²).
func (c *sgm) rdp(alpha float64) float64 {
	q, z := c.q, c.z
	switch {
	case q == 0 || math.IsInf(z, 1):
		return 0
	case z == 0 || math.IsInf(alpha, 1):
		return math.Inf(1)
	}
	full := alpha / (2 * z * z)
	if q == 1 || alpha > maxExactOrder {
		return full
	}
	var la float64
	if alpha == math.Trunc(alpha) {
		var ok bool
		if la, ok = c.logAIntFast(int(alpha)); !ok {
			la = c.logAInt(int(alpha))
		}
	} else {
		la = c.logAFrac(alpha)
	}
	r := la / (alpha - 1)
	switch {
	case math.IsNaN(r) || r > full:
		return full
	case r < 0:
		// A_α ≥ 1 in exact arithmetic; a rounding-level negative value
		// means 0.
		return 0
	}
	return r
}

// logAIntFast evaluates the binomial expansion of logAInt in linear space:
// A_α = (1−q)^α Σ_i C(α,i) H(i) with H(i) = (q/(1−q))^i e^{(i²−i)/(2z²)}
// cached across orders and C(α,i) by its multiplicative recurrence. ok is
// false when a value leaves the float64 range (small z, large orders); the
// caller then uses logAInt. Only orders up to 1000 are tried.
func (c *sgm) logAIntFast(alpha int) (float64, bool) {
	if alpha > 1000 {
		return 0, false
	}
	for len(c.h) <= alpha {
		t := float64(len(c.h))
		c.h = append(c.h, math.Exp(t*c.lr+(t*t-t)*c.inv2z2))
	}
	fa := float64(alpha)
	sum, coef := 0.0, 1.0
	for i := 0; i <= alpha; i++ {
		sum += coef * c.h[i]
		coef *= (fa - float64(i)) / float64(i+1)
	}
	if !(sum > 0) || math.IsInf(sum, 1) {
		return 0, false
	}
	return fa*c.log1mq + math.Log(sum), true
}

// logAInt returns log(A_α) for an integer order α ≥ 2 and 0 < q < 1 by the
// binomial expansion
//
//	s_i = log C(α,i) + i log q + (α−i) log(1−q) + (i²−i)/(2z²),
//	log A_α = log Σ_i exp(s_i),
//
// with a max-shifted log-sum-exp (one exp per term that is not negligible).
// Opacus adds the same terms one by one with _log_add; the results agree to
// rounding, up to the absolute error (~1e-14) of log C(α,i) taken from a
// table of log-factorials. This path is only used where logAIntFast
// overflows, i.e. where the RDP is large and that error negligible.
func (c *sgm) logAInt(alpha int) float64 {
	if cap(c.intBuf) < alpha+1 {
		c.intBuf = make([]float64, alpha+1)
	}
	s := c.intBuf[:alpha+1]
	lfa := logFact(alpha)
	m := math.Inf(-1)
	for i := range s {
		fi := float64(i)
		v := lfa - logFact(i) - logFact(alpha-i) + fi*c.logq + float64(alpha-i)*c.log1mq + (fi*fi-fi)*c.inv2z2
		s[i] = v
		if v > m {
			m = v
		}
	}
	if math.IsInf(m, 0) || math.IsNaN(m) {
		return math.NaN()
	}
	sum := 0.0
	for _, v := range s {
		if d := v - m; d > -negligibleLog {
			sum += math.Exp(d)
		} else if math.IsNaN(d) {
			return math.NaN()
		}
	}
	return m + math.Log(sum)
}

// gLin returns G(t, x) (see sgm) in linear scale, for x = ±(t − z0)/(√2 z)
// as the caller's series needs; it may underflow to 0 or overflow to +Inf.
func (c *sgm) gLin(t, x float64) float64 {
	if x >= 0 {
		if c.k > 1e-300 {
			return c.k * erfcx(x)
		}
		return math.Exp(c.logK + logErfcx(x))
	}
	return math.Exp(t*c.lr+(t*t-t)*c.inv2z2) * math.Erfc(x) * 0.5
}

// gLog returns log G(t, x), finite wherever G's parts are.
func (c *sgm) gLog(t, x float64) float64 {
	if x >= 0 {
		return c.logK + logErfcx(x)
	}
	return t*c.lr + (t*t-t)*c.inv2z2 + math.Log(math.Erfc(x)) - ln2
}

// g0 returns G0(i) = G(i, (i − z0)/(√2 z)), linear or log, cached by i.
func (c *sgm) g0At(i int) float64 {
	p := c.g0.slot(i)
	if math.IsNaN(*p) {
		t := float64(i)
		*p = c.gLin(t, (t-c.z0)*c.invS)
	}
	return *p
}

func (c *sgm) logG0At(i int) float64 {
	p := c.logG0.slot(i)
	if math.IsNaN(*p) {
		t := float64(i)
		*p = c.gLog(t, (t-c.z0)*c.invS)
	}
	return *p
}

// g1At returns G1(j) = G(j, (z0 − j)/(√2 z)) for j = f + m, linear or log,
// cached.
func (c *sgm) g1At(t *fracTable, m int) float64 {
	p := t.g1.slot(m)
	if math.IsNaN(*p) {
		j := t.f + float64(m)
		*p = c.gLin(j, (c.z0-j)*c.invS)
	}
	return *p
}

func (c *sgm) logG1At(t *fracTable, m int) float64 {
	p := t.lg1.slot(m)
	if math.IsNaN(*p) {
		j := t.f + float64(m)
		*p = c.gLog(j, (c.z0-j)*c.invS)
	}
	return *p
}

// table returns the cache for fractional part f. Fractional parts that agree
// to 1e-13 share a table: the order is then evaluated at ⌊α⌋ + f_shared,
// within 1e-13 of α (grid orders built as 1 + x/10 differ from each other's
// fractional parts by a few ulps only).
func (c *sgm) table(f float64) *fracTable {
	key := int64(math.Round(f * 1e13))
	if t, ok := c.fracs[key]; ok {
		return t
	}
	if c.fracs == nil {
		c.fracs = make(map[int64]*fracTable)
	}
	t := &fracTable{f: f}
	c.fracs[key] = t
	return t
}

// logJAt returns log|f+m|, cached.
func (t *fracTable) logJAt(m int) float64 {
	p := t.logJ.slot(m)
	if math.IsNaN(*p) {
		*p = math.Log(math.Abs(t.f + float64(m)))
	}
	return *p
}

// logAFrac returns log(A_α) for a fractional order α > 1 and 0 < q < 1 by
// the signed series of Mironov, Talwar & Zhang 2019, §3.3, term for term as
// Opacus' _compute_log_a_for_frac_alpha: with z0 = z² log(1/q − 1) + 1/2 and
// j = α − i,
//
//	s0_i = log|C(α,i)| + i log q + j log(1−q) + (i²−i)/(2z²) + log(erfc((i−z0)/(√2z))/2)
//	s1_i = log|C(α,i)| + j log q + i log(1−q) + (j²−j)/(2z²) + log(erfc((z0−j)/(√2z))/2)
//	A_α  = Σ_i sign(C(α,i)) (exp(s0_i) + exp(s1_i)),
//
// stopping after the first i with max(s0_i, s1_i) < −30. Factoring
// (1−q)^α out, exp(s0_i) = (1−q)^α |C(α,i)| G0(i) and exp(s1_i) =
// (1−q)^α |C(α,i)| G1(α−i) with G0, G1 cached across orders (see sgm).
// logAFrac first sums in linear space (logAFracFast) and falls back to log
// space (logAFracLog) when a value leaves the float64 range. Returns NaN if
// the signed sum is not positive (Opacus raises there; it does not happen
// for valid inputs) or if the series has not converged after maxFracTerms
// terms.
func (c *sgm) logAFrac(alpha float64) float64 {
	fl := math.Floor(alpha)
	t := c.table(alpha - fl)
	alpha = fl + t.f
	if alpha <= 200 {
		if v, ok := c.logAFracFast(alpha, t); ok {
			return v
		}
	}
	return c.logAFracLog(alpha, t)
}

// logAFracFast sums the series in linear space; |C(α,i)| follows the
// recurrence C(α,i+1) = C(α,i)(α−i)/(i+1). ok is false when a value leaves
// the float64 range (tiny z, large orders, q near 1).
func (c *sgm) logAFracFast(alpha float64, t *fracTable) (float64, bool) {
	base := math.Exp(alpha * c.log1mq)
	if base < 1e-200 {
		return 0, false
	}
	top := int(fl(alpha))
	thr := math.Exp(fracStopLog)
	sum, clin, sign := 0.0, 1.0, 1.0
	for i := 0; i < maxFracTerms; i++ {
		fi := float64(i)
		bc := base * clin
		t0, t1 := bc*c.g0At(i), bc*c.g1At(t, top-i)
		sum += sign * (t0 + t1)
		if math.IsInf(sum, 0) || math.IsNaN(sum) {
			return 0, false
		}
		if t0 < thr && t1 < thr {
			if !(sum > 0) {
				return 0, false
			}
			return math.Log(sum), true
		}
		r := (alpha - fi) / (fi + 1)
		if r < 0 {
			sign = -sign
			r = -r
		}
		clin *= r
	}
	return math.NaN(), true
}

func fl(x float64) float64 { return math.Floor(x) }

// logAFracLog sums the same series with signed log-space arithmetic (as
// Opacus does), robust for any z and order.
func (c *sgm) logAFracLog(alpha float64, t *fracTable) float64 {
	top := int(fl(alpha))
	logBase := alpha * c.log1mq
	s0, s1, sg := c.buf0[:0], c.buf1[:0], c.signs[:0]
	logCoef, sign := 0.0, 1.0 // C(α,0) = 1
	converged := false
	for i := 0; i < maxFracTerms; i++ {
		fi := float64(i)
		v0 := logBase + logCoef + c.logG0At(i)
		v1 := logBase + logCoef + c.logG1At(t, top-i)
		if math.IsNaN(v0) || math.IsNaN(v1) {
			return math.NaN()
		}
		s0, s1, sg = append(s0, v0), append(s1, v1), append(sg, sign)
		if math.Max(v0, v1) < fracStopLog {
			converged = true
			break
		}
		// C(α,i+1) = C(α,i)·(α−i)/(i+1)
		logCoef += t.logJAt(top-i) - logInt(i+1)
		if alpha-fi < 0 {
			sign = -sign
		}
	}
	c.buf0, c.buf1, c.signs = s0, s1, sg
	if !converged {
		return math.NaN()
	}
	la0 := signedLogSum(s0, sg)
	la1 := signedLogSum(s1, sg)
	if math.IsNaN(la0) || math.IsNaN(la1) {
		return math.NaN()
	}
	return logAdd(la0, la1)
}

// signedLogSum returns log(Σ sg[i]·exp(s[i])), NaN if the sum is negative,
// -Inf if it is zero.
func signedLogSum(s, sg []float64) float64 {
	m := math.Inf(-1)
	for _, v := range s {
		if v > m {
			m = v
		}
	}
	if math.IsInf(m, -1) {
		return m
	}
	if math.IsInf(m, 1) {
		return math.NaN()
	}
	sum := 0.0
	for i, v := range s {
		if d := v - m; d > -negligibleLog {
			sum += sg[i] * math.Exp(d)
		}
	}
	if sum < 0 {
		return math.NaN()
	}
	return m + math.Log(sum)
}

// logInt returns log(n) for n >= 1, from a table for small n.
func logInt(n int) float64 {
	if n < logFactTableSize {
		logFact(0) // builds the tables once
		return logIntTable[n]
	}
	return math.Log(float64(n))
}
