package accounting

import (
	"math"

	"github.com/featuredp/featuredp/internal/numeric"
)

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
// equals (1−q)^α · K · numeric.Erfcx(x) with numeric.Erfcx(x) = e^{x²} erfc(x). The factor
// G(t, x) = (q/(1−q))^t e^{(t²−t)/(2z²)} erfc(x)/2 depends on t only (not on
// the order), so it is cached; it is computed as K·numeric.Erfcx(x) when x ≥ 0 (no
// cancellation between the large exponent and the tiny erfc) and directly
// when x < 0 (where erfc(x) ∈ (1, 2] and the direct form has no
// cancellation either).
//
// Both G0(i) = G(i, (i−z0)/(√2z)) and G1(α−i) = G(α−i, (z0−α+i)/(√2z)) are
// decreasing in i: for x ≥ 0 they are K·numeric.Erfcx(x) with x increasing in i and
// numeric.Erfcx decreasing; for x < 0 the exponent's derivative has the sign that
// makes the factor fall, and erfc(x) falls with x. This is what bounds the
// series' tail (see fracSeries).
type sgm struct {
	q, z         float64
	logq, log1mq float64
	lr           float64 // log(q/(1−q))
	inv2z2, z0   float64
	invS         float64 // 1/(√2 z)
	logK, k      float64 // K = exp(−z0²/(2z²))/2 and its log
	g0, logG0    signedIndex
	fracs        map[int64]*fracTable
	buf          []float64
	signs        []float64
	// integer orders
	intLogA map[int]float64 // log A_n, memoised
	hm1     []float64       // (q/(1−q))^i expm1((i²−i)/(2z²)), see logAIntFast
	intBuf  []float64
	// budget is the number of series terms still allowed, shared by
	// every order evaluated through this context (and, for calibrations,
	// by every noise multiplier tried; see maxSGMWork).
	budget *workBudget
}

// workBudget counts the series terms an evaluation may still use;
// exhausted records that some order got the cap because it ran out.
type workBudget struct {
	left      int64
	exhausted bool
}

// maxSGMWork bounds the series terms (each a few exponentials, logs or
// erfc) that one order grid may cost for one (q, z) pair: about a second.
// Orders evaluated after it is spent get the un-subsampled cap α/(2z²), a
// valid upper bound, with a note (RDPUnsubsampled). Without it a grid of
// 5,000 orders near 65,536, or q = 0.9 with z = 1e100 (whose fractional
// series run to their 2^20-term cap at every order), take minutes.
const maxSGMWork = 1 << 22

// budgetReason is the note of an order whose value is the cap because the
// work budget was spent.
const budgetReason = "work budget of the order grid spent (2^22 series terms): fewer or smaller orders give tighter values"

// spend records n series terms evaluated.
func (c *sgm) spend(n int) { c.budget.left -= int64(n) }

// affords reports whether at least n more terms may be evaluated, and
// marks the budget exhausted when not.
func (c *sgm) affords(n int) bool {
	if c.budget.left >= int64(n) {
		return true
	}
	c.budget.exhausted = true
	return false
}

// termLimit returns how many terms a fractional series may use: at most
// maxFracTerms and the remaining budget, but always past its first
// alternating term ⌈α⌉ (rdp checks that the budget covers that).
func (c *sgm) termLimit(first int) int {
	return int(max(min(int64(maxFracTerms), c.budget.left), int64(first)+2))
}

func newSGM(q, z float64) *sgm {
	return newSGMBudget(q, z, &workBudget{left: maxSGMWork})
}

// newSGMBudget is newSGM with a work budget shared with other contexts.
func newSGMBudget(q, z float64, budget *workBudget) *sgm {
	c := &sgm{q: q, z: z, budget: budget}
	if q > 0 && q < 1 && z > 0 && !math.IsInf(z, 1) {
		c.logq = numeric.Log(q)
		c.log1mq = math.Log1p(-q)
		c.lr = c.logq - c.log1mq
		z2 := z * z
		c.inv2z2 = 1 / (2 * z2)
		l := math.Log(1/q - 1)
		if q < 0x1p-1022 { // 1/q overflows
			l = -c.lr
		}
		c.z0 = z2*l + 0.5
		c.invS = 1 / (sqrt2 * z)
		c.logK = -c.z0*c.z0*c.inv2z2 - ln2
		c.k = math.Exp(c.logK)
	}
	return c
}

// rdp is the one-step RDP at order alpha (validated inputs) with its note.
// The value is capped by α/(2z²), the RDP of the un-subsampled Gaussian —
// a valid upper bound, since Poisson subsampling never increases Rényi
// divergence (joint quasi-convexity) — and it is at least the smallest
// positive float64 when q > 0 and z < ∞.
func (c *sgm) rdp(alpha float64) (float64, RDPNote) {
	q, z := c.q, c.z
	note := RDPNote{Order: alpha}
	switch {
	case q == 0 || math.IsInf(z, 1):
		return 0, note
	case z == 0 || math.IsInf(alpha, 1):
		return math.Inf(1), note
	}
	full := alpha / (2 * z * z)
	if q == 1 {
		return full, note
	}
	if alpha > maxExactOrder {
		note.Method, note.Reason = RDPUnsubsampled, "order above 65536"
		return full, note
	}
	if !c.affords(3*int(math.Ceil(alpha)) + 64) {
		note.Method, note.Reason = RDPUnsubsampled, budgetReason
		return full, note
	}
	var r float64
	if alpha == math.Trunc(alpha) {
		r = c.logAInt(int(alpha)) / (alpha - 1)
	} else {
		r, note = c.rdpFrac(alpha)
	}
	switch {
	case math.IsNaN(r):
		note.Method, note.Reason = RDPUnsubsampled, "series failed"
		return full, note
	case r > full:
		// The cap is the tighter valid bound. Next to an exact value it
		// is exact to rounding (q → 1) and the note stays; next to a
		// bound it is the bound actually used, and the note says so.
		if note.Method != RDPExact {
			note.Reason = "the un-subsampled cap α/(2z²), below the " + note.Method.String() + " (" + note.Reason + ")"
			note.Method = RDPUnsubsampled
		}
		return full, note
	case r < math.SmallestNonzeroFloat64:
		return math.SmallestNonzeroFloat64, note
	}
	return r, note
}

// logA1p returns log(1 + exp(lm)), i.e. log A from lm = log(A − 1).
func logA1p(lm float64) float64 {
	if lm > 0 {
		return lm + math.Log1p(math.Exp(-lm))
	}
	return math.Log1p(math.Exp(lm))
}

// logExpm1 returns log(expm1(d)) for d > 0, accurate for tiny and huge d.
func logExpm1(d float64) float64 {
	if d > 1 {
		return d + math.Log1p(-math.Exp(-d))
	}
	return numeric.Log(math.Expm1(d))
}
