package accounting

import (
	"math"

	"github.com/featuredp/featuredp/internal/numeric"
)

// gLin returns G(t, x) (see sgm) in linear scale, for x = ±(t − z0)/(√2 z)
// as the caller's series needs; it may underflow to 0 or overflow to +Inf.
func (c *sgm) gLin(t, x float64) float64 {
	if x >= 0 {
		if c.k > 1e-300 {
			return c.k * numeric.Erfcx(x)
		}
		return math.Exp(c.logK + numeric.LogErfcx(x))
	}
	return math.Exp(t*c.lr+(t*t-t)*c.inv2z2) * math.Erfc(x) * 0.5
}

// gLog returns log G(t, x), finite wherever G's parts are.
func (c *sgm) gLog(t, x float64) float64 {
	if x >= 0 {
		return c.logK + numeric.LogErfcx(x)
	}
	return t*c.lr + (t*t-t)*c.inv2z2 + math.Log(math.Erfc(x)) - ln2
}

// gErr returns a bound, in units of the rounding unit u = 2^-53, on the
// relative error of G(t, x) as gLin/gLog compute it: an exponential of an
// argument a carries about |a| u from the rounding of a, and erfc/numeric.Erfcx a
// few ulps: 1.5|a| + 8 is used (checked against an independent quadrature
// at random points in the tests and under fuzzing).
func (c *sgm) gErr(t, x float64) float64 {
	if x >= 0 {
		return 1.5*math.Abs(c.logK) + 8
	}
	return 1.5*math.Abs(t*c.lr+(t*t-t)*c.inv2z2) + 8
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

// fracShare is the grid on which fractional parts share a table.
const fracShare = 1e13

// table returns the cache for fractional part f. Fractional parts in one
// cell (k−1, k]/1e13 share a table whose fraction is the cell's upper end
// k/1e13 ≥ f, so an order is evaluated at most 1e-13 above the order asked
// and never below it (RDP is non-decreasing in the order, so the value is
// still an upper bound). Grid orders built as 1 + x/10 (Opacus, TF Privacy)
// then share one table per tenth.
func (c *sgm) table(f float64) *fracTable {
	k := int64(math.Ceil(f * fracShare))
	if t, ok := c.fracs[k]; ok && t.f >= f {
		return t
	}
	ft := float64(k) / fracShare
	if ft < f || ft >= 1 {
		ft = f // rounding edge: evaluate exactly, uncached if the cell is taken
	}
	t := &fracTable{f: ft}
	if c.fracs == nil {
		c.fracs = make(map[int64]*fracTable)
	}
	if _, ok := c.fracs[k]; !ok {
		c.fracs[k] = t
	}
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

// seriesSum is the outcome of summing the fractional-order series: the
// signed sum S, an allowance slack ≥ |tail| + rounding, so that
// A_α ≤ S + slack, all in log form (logS is NaN when S ≤ 0), and whether
// the stopping rule was met before the term cap.
type seriesSum struct {
	logS, logSlack float64
	converged      bool
}

// upper returns log(S + slack), an upper bound on log A_α, and the log of
// the relative uncertainty slack/(S − 1) (+Inf when S − 1 is not resolved).
func (s seriesSum) upper() (logA, logRel float64) {
	if math.IsNaN(s.logS) {
		return math.NaN(), math.Inf(1)
	}
	if s.logS > 1 {
		return numeric.LogAdd(s.logS, s.logSlack), s.logSlack - s.logS
	}
	sm1 := math.Expm1(s.logS)
	slack := math.Exp(s.logSlack)
	if !(sm1 > 0) {
		return math.Log1p(math.Max(sm1, 0) + slack), math.Inf(1)
	}
	return math.Log1p(sm1 + slack), math.Log(slack / sm1)
}

// exactRel: a series value whose tail and rounding allowance are below
// exactRel × (A_α − 1) is reported as exact.
const exactRel = 1e-7

// rdpFrac returns the RDP at a fractional order α ∈ (n, n+1) and its note:
// the smaller of the series' upper bound and the convexity bound of the
// integer orders n and n+1, the latter (with a reason) when the series is
// looser, unresolved or below the lower bound RDP(n).
func (c *sgm) rdpFrac(alpha float64) (float64, RDPNote) {
	note := RDPNote{Order: alpha}
	n := math.Floor(alpha)
	ni := int(n)
	laN, laN1 := c.logAInt(ni), c.logAInt(ni+1)
	bound := ((n+1-alpha)*laN + (alpha-n)*laN1) / (alpha - 1)
	lower := 0.0
	if ni >= 2 {
		lower = laN / (n - 1)
	}
	ser, aEval := c.fracSeries(alpha)
	logA, logRel := ser.upper()
	r := logA / (aEval - 1) // RDP(aEval) ≥ RDP(α): aEval ∈ [α, α + 1e-13]
	switch {
	case math.IsNaN(r):
		note.Method, note.Reason = RDPInterpolated, "fractional series failed"
		return bound, note
	case r < lower*(1-1e-9):
		note.Method, note.Reason = RDPInterpolated, "fractional series below the lower bound RDP(⌊α⌋): numerical failure"
		return bound, note
	case r > bound:
		if logRel > math.Log(exactRel) {
			note.Method, note.Reason = RDPInterpolated, "fractional series cannot resolve A_α − 1 to 1e-7"
		}
		return bound, note
	case logRel > math.Log(exactRel):
		note.Method, note.Reason = RDPSeriesBound, "A_α − 1 below the series' resolution: its upper bound"
	}
	return r, note
}

// fracSeries sums the signed series of Mironov, Talwar & Zhang 2019, §3.3
// for a fractional order α > 1 and 0 < q < 1 (the terms of Opacus'
// _compute_log_a_for_frac_alpha): with z0 = z² log(1/q − 1) + 1/2 and
// j = α − i,
//
//	t_i = C(α,i) (1−q)^α (G0(i) + G1(j)),   A_α = Σ_{i≥0} t_i,
//
// G0, G1 as in sgm. For i ≥ ⌈α⌉ the coefficients C(α,i) alternate in sign,
// and the magnitudes a_i = |t_i| decrease and are convex in i: |C(α,i)| is
// a constant times Γ(i−α)/Γ(i+1) there, log-convex; G0(i) and G1(α−i) are
// K·numeric.Erfcx of a linear function of i, and numeric.Erfcx(x) = (2/√π)∫_0^∞
// e^{−s²−2xs} ds is a Laplace transform, hence log-convex; sums and
// products of log-convex functions are log-convex, hence convex. For an
// alternating series with decreasing convex magnitudes the tail after term
// N has the sign of term N+1 and a magnitude in [a_{N+1}/2, a_N/2]
// (pair the differences a_k − a_{k+1}, which decrease). The sum stops when
// the width (a_N − a_{N+1})/4 of that enclosure, around its centre, is
// below fracRelTol × (S − 1) or below the terms' rounding allowance, and the
// returned slack is the width plus the rounding allowance. The order is first moved
// onto its fraction table's grid (see table; at most 1e-13 up), and that
// order is returned with the sum. Summed in linear space
// where the values are in range (orders ≤ 200), otherwise in log space.
func (c *sgm) fracSeries(alpha float64) (seriesSum, float64) {
	fl := math.Floor(alpha)
	t := c.table(alpha - fl)
	alpha = fl + t.f
	if alpha <= 200 {
		if s, ok := c.fracSeriesLin(alpha, t); ok {
			return s, alpha
		}
	}
	return c.fracSeriesLog(alpha, t), alpha
}

// fracSeriesLin sums in linear space; |C(α,i)| follows the recurrence
// C(α,i+1) = C(α,i)(α−i)/(i+1). ok is false when a value leaves the
// float64 range (tiny z, large orders, q near 1).
func (c *sgm) fracSeriesLin(alpha float64, t *fracTable) (seriesSum, bool) {
	logBase := alpha * c.log1mq
	base := math.Exp(logBase)
	if base < 1e-200 {
		return seriesSum{}, false
	}
	top := int(math.Floor(alpha))
	first := top + 1 // ⌈α⌉
	eb := 1.5*math.Abs(logBase) + 2
	var sum, comp, abs, errU float64
	clin, sign := 1.0, 1.0
	prev, center, width := math.Inf(1), 0.0, math.Inf(1)
	converged := false
	limit := c.termLimit(first)
	i := 0
	defer func() { c.spend(i) }()
	for ; i < limit; i++ {
		fi := float64(i)
		bc := base * clin
		t0, t1 := bc*c.g0At(i), bc*c.g1At(t, top-i)
		mag := t0 + t1
		j := alpha - fi
		errU += 2 * (t0*(c.gErr(fi, (fi-c.z0)*c.invS)+eb+fi) + t1*(c.gErr(j, (c.z0-j)*c.invS)+eb+fi))
		if math.IsInf(mag, 0) || math.IsNaN(mag) {
			return seriesSum{}, false
		}
		if i > first {
			// Tail after term i−1: sign of term i, magnitude in
			// [mag/2, prev/2] (see tailEnclosure).
			center = sum + comp + sign*(prev+mag)/4
			width = (prev - mag) / 4
			if width <= fracRelTol*(center-1) || width <= 0x1p-53*errU {
				converged = true
				break
			}
		}
		sum, comp = twoSumAcc(sum, comp, sign*mag)
		abs += mag
		prev = mag
		r := (alpha - fi) / (fi + 1)
		if r < 0 {
			sign = -sign
			r = -r
		}
		clin *= r
	}
	if !converged {
		center, width = sum+comp, prev // alternating tail: |R| ≤ last term
	}
	// Rounding: the terms' own errors (counted twice: in the sum and in
	// the tail estimate), the compensated sum's 2u|S|, its second-order
	// N u² Σ|t|.
	slack := width + 0x1p-53*(errU+4*math.Abs(center)) + 0x1p-104*float64(maxFracTerms)*abs
	s := seriesSum{logS: math.NaN(), logSlack: math.Log(slack), converged: converged}
	if center > 0 {
		s.logS = math.Log(center)
	}
	return s, true
}

// twoSumAcc adds x to the compensated sum (s, c) (Neumaier's variant of
// Kahan summation): the rounding error of each addition is collected in c.
func twoSumAcc(s, c, x float64) (float64, float64) {
	n := s + x
	if math.Abs(s) >= math.Abs(x) {
		c += (s - n) + x
	} else {
		c += (x - n) + s
	}
	return n, c
}

// fracSeriesLog sums the same series with signed log-space arithmetic (as
// Opacus does), robust for any z and order.
func (c *sgm) fracSeriesLog(alpha float64, t *fracTable) seriesSum {
	top := int(math.Floor(alpha))
	first := top + 1
	logBase := alpha * c.log1mq
	s, sg := c.buf[:0], c.signs[:0]
	logCoef, sign := 0.0, 1.0 // C(α,0) = 1
	logErr, prev := math.Inf(-1), math.Inf(1)
	logWidth := math.Inf(1)
	eb := 1.5*math.Abs(logBase) + 2
	converged := false
	limit := c.termLimit(first)
	i := 0
	defer func() { c.spend(i) }()
	for ; i < limit; i++ {
		fi := float64(i)
		j := alpha - fi
		l0, l1 := logBase+logCoef+c.logG0At(i), logBase+logCoef+c.logG1At(t, top-i)
		v := numeric.LogAdd(l0, l1)
		if math.IsNaN(v) {
			return seriesSum{logS: math.NaN()}
		}
		e0 := l0 + math.Log(c.gErr(fi, (fi-c.z0)*c.invS)+eb+2*fi+4)
		e1 := l1 + math.Log(c.gErr(j, (c.z0-j)*c.invS)+eb+2*fi+4)
		logErr = numeric.LogAdd(logErr, ln2+numeric.LogAdd(e0, e1))
		if i > first {
			// Tail after term i−1 (see fracSeries): replace term i by the
			// enclosure's centre, sign·(a_{i−1}+a_i)/4.
			logWidth = logSub(prev, v) - 2*ln2
			if logWidth <= logErr-53*ln2 {
				s, sg = append(s, numeric.LogAdd(prev, v)-2*ln2), append(sg, sign)
				converged = true
				break
			}
		}
		s, sg = append(s, v), append(sg, sign)
		prev = v
		// C(α,i+1) = C(α,i)·(α−i)/(i+1)
		logCoef += t.logJAt(top-i) - numeric.LogInt(i+1)
		if alpha-fi < 0 {
			sign = -sign
		}
	}
	if !converged {
		logWidth = prev
	}
	c.buf, c.signs = s, sg
	logAbs := math.Inf(-1)
	for _, v := range s {
		logAbs = numeric.LogAdd(logAbs, v)
	}
	return seriesSum{
		logS:      signedLogSum(s, sg),
		logSlack:  numeric.LogAdd(logWidth, numeric.LogAdd(logErr-53*ln2, logAbs+math.Log(float64(len(s))+4)-53*ln2)),
		converged: converged,
	}
}

// logSub returns log(exp(a) − exp(b)) for a ≥ b (−Inf when equal).
func logSub(a, b float64) float64 {
	if b >= a {
		return math.Inf(-1)
	}
	return a + math.Log1p(-math.Exp(b-a))
}

// signedLogSum returns log(Σ sg[i]·exp(s[i])), NaN if the sum is not
// positive.
func signedLogSum(s, sg []float64) float64 {
	m := math.Inf(-1)
	for _, v := range s {
		if v > m {
			m = v
		}
	}
	if math.IsInf(m, 0) {
		return math.NaN()
	}
	sum := 0.0
	for i, v := range s {
		sum += sg[i] * math.Exp(v-m)
	}
	if !(sum > 0) {
		return math.NaN()
	}
	return m + numeric.Log(sum)
}
