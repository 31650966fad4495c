package bcdp

// Bayesian Coordinate Differential Privacy (BCDP), Aliakbarpour, Chaudhuri,
// Courtade, Fallah & Jordan (2024), "Enhancing Feature-Specific Data
// Protection via Bayesian Coordinate Differential Privacy"; see
// docs/bcdp.md.
//
// Neighbouring relation and sampling. BCDP, LDP and CDP are local notions:
// there is no dataset-level neighbouring relation and no subsampling. A
// mechanism M maps one user's record x = (x_1, …, x_d) to an output y.
//   - ε-LDP compares μ_x and μ_x' for ALL x, x' of the domain (Def. 1).
//   - c-CDP compares x, x' that differ only in coordinate i, with level c_i
//     (Def. 3).
//   - δ-BCDP compares the laws of y given events {x_i ∈ S_i} and {x_i ∈ S_i'}
//     of positive prior mass, with level δ_i (Def. 4); correlation between
//     coordinates enters through the prior π.
// No conversion to (ε, δ)-DP is involved: all levels are pure (δ = 0) ratios.

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/featuredp/featuredp/internal/valid"
)

// Finite is a mechanism with finite input domain and finite output
// space, together with a prior over the domain.
//
// Domain[x] is the x-th input point as a vector of d integer coordinate
// values; Prior[x] = π(x) (non-negative, summing to 1; zero-mass points are
// part of the domain for LDP/CDP but invisible to BCDP); Channel[x][y] =
// P(M(x) = y) (each row a probability vector).
type Finite struct {
	Domain  [][]int
	Prior   []float64
	Channel [][]float64
}

// Validate checks shapes, finiteness, probabilities and that no domain point
// is repeated.
func (m Finite) Validate() error {
	n := len(m.Domain)
	if n == 0 {
		return errors.New("bcdp: finite mechanism: empty domain")
	}
	if len(m.Prior) != n || len(m.Channel) != n {
		return fmt.Errorf("bcdp: finite mechanism: %d domain points but %d prior weights and %d channel rows", n, len(m.Prior), len(m.Channel))
	}
	d := len(m.Domain[0])
	if d == 0 {
		return errors.New("bcdp: finite mechanism: domain points have no coordinates")
	}
	ny := len(m.Channel[0])
	if ny == 0 {
		return errors.New("bcdp: finite mechanism: empty output space")
	}
	seen := make(map[string]bool, n)
	total := 0.0
	for x := 0; x < n; x++ {
		if len(m.Domain[x]) != d {
			return fmt.Errorf("bcdp: finite mechanism: point %d has %d coordinates, want %d", x, len(m.Domain[x]), d)
		}
		key := fmt.Sprint(m.Domain[x])
		if seen[key] {
			return fmt.Errorf("bcdp: finite mechanism: domain point %v repeated", m.Domain[x])
		}
		seen[key] = true
		p := m.Prior[x]
		if err := valid.NonNegative(fmt.Sprintf("prior weight of point %d", x), p); err != nil {
			return fmt.Errorf("bcdp: finite mechanism: %w", err)
		}
		total += p
		if len(m.Channel[x]) != ny {
			return fmt.Errorf("bcdp: finite mechanism: channel row %d has %d outputs, want %d", x, len(m.Channel[x]), ny)
		}
		row := 0.0
		for y, v := range m.Channel[x] {
			if math.IsNaN(v) || v < 0 || v > 1+1e-12 {
				return fmt.Errorf("bcdp: finite mechanism: P(y=%d | x=%d) = %v is not a probability", y, x, v)
			}
			row += v
		}
		if math.Abs(row-1) > 1e-9 {
			return fmt.Errorf("bcdp: finite mechanism: channel row %d sums to %v, want 1", x, row)
		}
	}
	if math.Abs(total-1) > 1e-9 {
		return fmt.Errorf("bcdp: finite mechanism: prior sums to %v, want 1", total)
	}
	return nil
}

// Dim returns the number of coordinates d.
func (m Finite) Dim() int {
	if len(m.Domain) == 0 {
		return 0
	}
	return len(m.Domain[0])
}

// values returns the distinct values of coordinate i with positive
// prior mass, sorted.
func (m Finite) values(i int) []int {
	set := map[int]bool{}
	for x, p := range m.Prior {
		if p > 0 {
			set[m.Domain[x][i]] = true
		}
	}
	vals := make([]int, 0, len(set))
	for v := range set {
		vals = append(vals, v)
	}
	sort.Ints(vals)
	return vals
}

// ConditionalOutput returns P(y | x_i = a) = Σ_{x: x_i=a} π(x) P(y|x) /
// π(x_i = a) for every output y. It errors if m is not valid (Validate) or
// π(x_i = a) = 0.
func (m Finite) ConditionalOutput(i, a int) ([]float64, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if i < 0 || i >= m.Dim() {
		return nil, fmt.Errorf("bcdp: coordinate %d out of range [0,%d)", i, m.Dim())
	}
	ny := len(m.Channel[0])
	out := make([]float64, ny)
	mass := 0.0
	for x, p := range m.Prior {
		if p == 0 || m.Domain[x][i] != a {
			continue
		}
		mass += p
		for y, v := range m.Channel[x] {
			out[y] += p * v
		}
	}
	if mass == 0 {
		return nil, fmt.Errorf("bcdp: value %d of coordinate %d has zero prior mass", a, i)
	}
	for y := range out {
		out[y] /= mass
	}
	return out, nil
}

// maxLogRatio returns max_y log(p[y]/q[y]) over y with p[y] > 0 or q[y]
// > 0 (+Inf when p[y] > 0 = q[y]), and 0 when p = q.
func maxLogRatio(p, q []float64) float64 {
	best := 0.0
	for y := range p {
		switch {
		case p[y] == 0:
			continue
		case q[y] == 0:
			return math.Inf(1)
		}
		if r := math.Log(p[y] / q[y]); r > best {
			best = r
		}
	}
	return best
}

// Exact returns the tightest BCDP vector δ* of (π, M) (Def. 4):
//
//	δ_i* = max_{y, a, a'} log( P(y | x_i=a) / P(y | x_i=a') ),
//
// over outputs y and values a, a' of coordinate i with positive prior mass;
// +Inf when some output is possible under one conditional and impossible
// under the other. For finite outputs the supremum over events R is attained
// at single outputs, and for finite X_i the supremum over sets S_i, S_i' at
// single values (a ratio of sums is at most the largest ratio of terms).
func Exact(m Finite) ([]float64, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	d := m.Dim()
	out := make([]float64, d)
	for i := 0; i < d; i++ {
		vals := m.values(i)
		conds := make([][]float64, len(vals))
		for k, a := range vals {
			c, err := m.ConditionalOutput(i, a)
			if err != nil {
				return nil, err
			}
			conds[k] = c
		}
		for k := range conds {
			for l := range conds {
				if k != l {
					out[i] = math.Max(out[i], maxLogRatio(conds[k], conds[l]))
				}
			}
		}
	}
	return out, nil
}

// LDPExact returns the tightest ε of ε-LDP (Def. 1): the maximum over all
// domain points x, x' (including zero-prior points) and outputs y of
// log(P(y|x)/P(y|x')), +Inf when some output has probability zero under one
// input only.
func LDPExact(m Finite) (float64, error) {
	if err := m.Validate(); err != nil {
		return 0, err
	}
	best := 0.0
	for x := range m.Channel {
		for x2 := range m.Channel {
			if x != x2 {
				best = math.Max(best, maxLogRatio(m.Channel[x], m.Channel[x2]))
			}
		}
	}
	return best, nil
}

// CDPExact returns the tightest c of c-CDP (Def. 3): c_i is the maximum of
// log(P(y|x)/P(y|x')) over domain points x, x' that differ only in
// coordinate i, and over outputs y. Pairs whose partner is not in the domain
// are not constrained.
func CDPExact(m Finite) ([]float64, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	d := m.Dim()
	out := make([]float64, d)
	for x := range m.Domain {
		for x2 := range m.Domain {
			diff, at := 0, -1
			for j := 0; j < d; j++ {
				if m.Domain[x][j] != m.Domain[x2][j] {
					diff++
					at = j
				}
			}
			if diff == 1 {
				out[at] = math.Max(out[at], maxLogRatio(m.Channel[x], m.Channel[x2]))
			}
		}
	}
	return out, nil
}

// CoordinateTV returns q_i = max_{a,a'} TV(π_{x_{-i} | x_i=a},
// π_{x_{-i} | x_i=a'}) over values of positive mass: the quantity bounded in
// eq. (13) of Prop. 4 and in Assumption 1. Conditioning on
// single values gives the supremum over sets for binary coordinates.
func CoordinateTV(m Finite, i int) (float64, error) {
	if err := m.Validate(); err != nil {
		return 0, err
	}
	if i < 0 || i >= m.Dim() {
		return 0, fmt.Errorf("bcdp: coordinate %d out of range [0,%d)", i, m.Dim())
	}
	vals := m.values(i)
	cond := make([]map[string]float64, len(vals))
	for k, a := range vals {
		cond[k] = map[string]float64{}
		mass := 0.0
		for x, p := range m.Prior {
			if p > 0 && m.Domain[x][i] == a {
				mass += p
			}
		}
		for x, p := range m.Prior {
			if p > 0 && m.Domain[x][i] == a {
				rest := append(append([]int{}, m.Domain[x][:i]...), m.Domain[x][i+1:]...)
				cond[k][fmt.Sprint(rest)] += p / mass
			}
		}
	}
	// Sum in sorted key order so the result is bit-reproducible (map
	// iteration order is random).
	keySet := map[string]bool{}
	for _, c := range cond {
		for key := range c {
			keySet[key] = true
		}
	}
	keys := make([]string, 0, len(keySet))
	for key := range keySet {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	best := 0.0
	for k := range cond {
		for l := k + 1; l < len(cond); l++ {
			tv := 0.0
			for _, key := range keys {
				tv += math.Abs(cond[k][key] - cond[l][key])
			}
			best = math.Max(best, tv/2)
		}
	}
	return best, nil
}

// TradeoffMin checks the hypothesis-testing characterisation (BCDP paper,
// Sec. 3.1, Thm. 1) of coordinate i at level delta: it enumerates every rejection
// region R ⊆ Y and every ordered pair of values (a, a') of positive mass, with
// α = P(M(x) ∈ R | x_i=a) and β = P(M(x) ∉ R | x_i=a'), and returns the
// minimum of min(e^δ α + β, α + e^δ β). Thm. 1: (π, M) is δ-BCDP in
// coordinate i iff this is ≥ 1 (it is exactly 1 at δ = δ_i* when the bound is
// tight). |Y| must be at most 20, and 2^|Y| × (value pairs) × |Y| at most
// 2^28.
func TradeoffMin(m Finite, i int, delta float64) (float64, error) {
	if err := m.Validate(); err != nil {
		return 0, err
	}
	if !(delta >= 0) {
		return 0, fmt.Errorf("bcdp: trade-off: δ = %v, want ≥ 0", delta)
	}
	if i < 0 || i >= m.Dim() {
		return 0, fmt.Errorf("bcdp: trade-off: coordinate %d out of range [0,%d)", i, m.Dim())
	}
	ny := len(m.Channel[0])
	if ny > 20 {
		return 0, fmt.Errorf("bcdp: trade-off: %d outputs, at most 20 allowed (2^|Y| regions)", ny)
	}
	vals := m.values(i)
	if pairs := len(vals) * (len(vals) - 1); float64(pairs)*float64(ny)*math.Exp2(float64(ny)) > maxTradeoffWork {
		return 0, fmt.Errorf("bcdp: trade-off: 2^%d regions × %d value pairs × %d outputs is more than %g steps: "+
			"use Exact for the level δ_i* (Thm. 1 makes the two equivalent)", ny, pairs, ny, float64(maxTradeoffWork))
	}
	conds := make([][]float64, len(vals))
	for k, a := range vals {
		c, err := m.ConditionalOutput(i, a)
		if err != nil {
			return 0, err
		}
		conds[k] = c
	}
	e := math.Exp(delta)
	best := math.Inf(1)
	for mask := 0; mask < 1<<ny; mask++ {
		for k := range conds {
			for l := range conds {
				if k == l {
					continue
				}
				alpha, beta := 0.0, 0.0
				for y := 0; y < ny; y++ {
					if mask&(1<<y) != 0 {
						alpha += conds[k][y]
					} else {
						beta += conds[l][y]
					}
				}
				v := math.Min(e*alpha+beta, alpha+e*beta)
				if math.IsNaN(v) { // e = +Inf and a zero probability
					v = math.Min(alpha+beta, math.Inf(1))
				}
				best = math.Min(best, v)
			}
		}
	}
	return best, nil
}

// maxTradeoffWork caps TradeoffMin's enumeration (regions × value pairs
// × outputs), about a second of work.
const maxTradeoffWork = 1 << 28

// PostProcess returns K∘M: Channel'[x][z] = Σ_y P(y|x) K[y][z], with the
// same domain and prior (Prop. 5: δ*(K∘M) ⪯ δ*(M)). K must be a
// row-stochastic |Y|×|Z| matrix.
func PostProcess(m Finite, k [][]float64) (Finite, error) {
	if err := m.Validate(); err != nil {
		return Finite{}, err
	}
	ny := len(m.Channel[0])
	if len(k) != ny || len(k[0]) == 0 {
		return Finite{}, fmt.Errorf("bcdp: post-processing: kernel has %d rows, want %d", len(k), ny)
	}
	nz := len(k[0])
	ch := make([][]float64, len(m.Channel))
	for x, row := range m.Channel {
		ch[x] = make([]float64, nz)
		for y, p := range row {
			if len(k[y]) != nz {
				return Finite{}, fmt.Errorf("bcdp: post-processing: kernel row %d has %d columns, want %d", y, len(k[y]), nz)
			}
			for z, v := range k[y] {
				ch[x][z] += p * v
			}
		}
	}
	out := Finite{Domain: m.Domain, Prior: m.Prior, Channel: ch}
	return out, out.Validate()
}

// MixturePrior returns the domain {0,1}^d and the prior of eq. (60) of the
// paper (App. B.1): with probability q all coordinates equal one
// Bern(1/2) bit Z, otherwise they are i.i.d. Bern(1/2). So π(x) = (1−q)2^{−d}
// + q/2·[x constant]. Its conditional TV (Assumption 1) is exactly q for
// every coordinate. Values are 0/1 (map to ±1 by 2x−1 for the mean
// experiments). d ≤ 16.
func MixturePrior(d int, q float64) ([][]int, []float64, error) {
	if d < 1 || d > 16 {
		return nil, nil, fmt.Errorf("bcdp: mixture prior: d = %d must lie in [1, 16]", d)
	}
	if err := valid.Unit("q", q); err != nil {
		return nil, nil, fmt.Errorf("bcdp: %w", err)
	}
	n := 1 << d
	dom := make([][]int, n)
	pr := make([]float64, n)
	for x := 0; x < n; x++ {
		dom[x] = make([]int, d)
		for j := 0; j < d; j++ {
			dom[x][j] = (x >> j) & 1
		}
		pr[x] = (1 - q) / float64(n)
		if x == 0 || x == n-1 {
			pr[x] += q / 2
		}
	}
	return dom, pr, nil
}

// RandomizedResponse returns the mechanism that applies binary
// randomized response with level c_i to each coordinate independently
// (P(y_i = x_i) = e^{c_i}/(1+e^{c_i})) under the prior (60) with parameter q:
// the Prop. 4 tightness example (figure bcdp-notions). It is exactly
// c-CDP and (Σ c_i)-LDP. d ≤ 8.
func RandomizedResponse(c []float64, q float64) (Finite, error) {
	d := len(c)
	if d < 1 || d > 8 {
		return Finite{}, fmt.Errorf("bcdp: randomized response: d = %d must lie in [1, 8]", d)
	}
	for i, v := range c {
		if err := valid.NonNegative(fmt.Sprintf("c[%d]", i), v); err != nil {
			return Finite{}, fmt.Errorf("bcdp: randomized response: %w", err)
		}
	}
	dom, pr, err := MixturePrior(d, q)
	if err != nil {
		return Finite{}, err
	}
	n := len(dom)
	ch := make([][]float64, n)
	for x := 0; x < n; x++ {
		ch[x] = make([]float64, n)
		for y := 0; y < n; y++ {
			p := 1.0
			for j := 0; j < d; j++ {
				keep := 1 / (1 + math.Exp(-c[j]))
				if (x>>j)&1 == (y>>j)&1 {
					p *= keep
				} else {
					p *= 1 - keep
				}
			}
			ch[x][y] = p
		}
	}
	return Finite{Domain: dom, Prior: pr, Channel: ch}, nil
}

// TwoBitChannel returns the binary-output mechanism on two independent
// uniform bits x = (x1, x2) (prior 1/4 each) with P(M(x) = 1) = p1[k] at
// the k-th input point (0,0), (1,0), (0,1), (1,1), in that order of
// Domain. With p1(0,1) = 0 and the other three positive it is the paper's
// Example 1: no finite LDP level (the input (0,1) never outputs 1) yet
// finite BCDP levels, (log 2, log 2) at p1 = (1/2, 1/2, 0, 1/2)
// (Aliakbarpour et al. 2024, Sec. 3) — BCDP does not imply LDP.
// Every p1[k] must lie in [0, 1].
func TwoBitChannel(p1 [4]float64) (Finite, error) {
	for k, p := range p1 {
		if err := valid.Unit(fmt.Sprintf("p1[%d]", k), p); err != nil {
			return Finite{}, fmt.Errorf("bcdp: TwoBitChannel: %w", err)
		}
	}
	m := Finite{}
	for k, x := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
		m.Domain = append(m.Domain, []int{x[0], x[1]})
		m.Prior = append(m.Prior, 0.25)
		m.Channel = append(m.Channel, []float64{1 - p1[k], p1[k]})
	}
	return m, nil
}

// checkVector validates a non-negative level vector (entries may be
// +Inf when allowInf).
func checkVector(name string, v []float64, allowInf, positive bool) error {
	if len(v) == 0 {
		return fmt.Errorf("bcdp: %s is empty", name)
	}
	for i, x := range v {
		if math.IsNaN(x) || x < 0 || (positive && x == 0) || (!allowInf && math.IsInf(x, 1)) {
			want := "≥ 0"
			if positive {
				want = "> 0"
			}
			if !allowInf {
				want += " and finite"
			}
			return fmt.Errorf("bcdp: %s[%d] = %v must be %s", name, i, x, want)
		}
	}
	return nil
}

// BCDPFromCDP returns the BCDP levels that Prop. 4 part 1 guarantees for a
// c-CDP mechanism under a prior satisfying eq. (13) with levels q:
//
//	δ_i = c_i + log(1 + q_i (e^{Σ_{j≠i} c_j} − 1)).
//
// (The paper's Σ_{i=1}^n is a typo for Σ_{i=1}^d.) The logarithm is
// allocShift's: exactly c_i at q_i = 0, and computed in the log domain
// where e^{Σ c_j} overflows, so the result is never NaN.
func BCDPFromCDP(c, q []float64) ([]float64, error) {
	if err := checkVector("c", c, false, false); err != nil {
		return nil, err
	}
	if len(q) != len(c) {
		return nil, fmt.Errorf("bcdp: Prop. 4: len(q) = %d, want %d", len(q), len(c))
	}
	sum := 0.0
	for _, v := range c {
		sum += v
	}
	out := make([]float64, len(c))
	for i := range c {
		if err := valid.Unit(fmt.Sprintf("q[%d]", i), q[i]); err != nil {
			return nil, fmt.Errorf("bcdp: %w", err)
		}
		out[i] = c[i] + allocShift(q[i], sum-c[i])
	}
	return out, nil
}

// BCDPFromCDPAndLDP returns the BCDP levels of Prop. 4 part 2 for a mechanism
// that is c-CDP and also ε-LDP:
//
//	δ'_i = min{ c_i + log(1 + q_i (e^ε − 1)), ε }
//
// (min(c_i, ε) at q_i = 0; the logarithm is allocShift's, finite for any
// finite ε).
func BCDPFromCDPAndLDP(c, q []float64, eps float64) ([]float64, error) {
	if err := checkVector("c", c, false, false); err != nil {
		return nil, err
	}
	if err := valid.NonNegative("ε", eps); err != nil {
		return nil, fmt.Errorf("bcdp: Prop. 4: %w", err)
	}
	if len(q) != len(c) {
		return nil, fmt.Errorf("bcdp: Prop. 4: len(q) = %d, want %d", len(q), len(c))
	}
	out := make([]float64, len(c))
	for i := range c {
		if err := valid.Unit(fmt.Sprintf("q[%d]", i), q[i]); err != nil {
			return nil, fmt.Errorf("bcdp: %w", err)
		}
		out[i] = math.Min(c[i]+allocShift(q[i], eps), eps)
	}
	return out, nil
}

// LevelMatrix returns the matrix A_δ of Prop. 6 (App. A.5):
// A[i][i] = 1/δ_i and A[i][j] = 1/log(1 + (e^{δ_i} − 1)/q_i) for j ≠ i
// (0 when q_i = 0). If c ⪰ 0 and A_δ c ⪯ 1, a c-CDP mechanism is δ-BCDP by
// Prop. 4 part 1. δ_i > 0 finite.
func LevelMatrix(delta, q []float64) ([][]float64, error) {
	if err := checkVector("δ", delta, false, true); err != nil {
		return nil, err
	}
	if len(q) != len(delta) {
		return nil, fmt.Errorf("bcdp: Prop. 6: len(q) = %d, want %d", len(q), len(delta))
	}
	d := len(delta)
	a := make([][]float64, d)
	for i := range a {
		if err := valid.Unit(fmt.Sprintf("q[%d]", i), q[i]); err != nil {
			return nil, fmt.Errorf("bcdp: %w", err)
		}
		a[i] = make([]float64, d)
		for j := range a[i] {
			switch {
			case i == j:
				a[i][j] = 1 / delta[i]
			case q[i] == 0:
				a[i][j] = 0
			default:
				a[i][j] = 1 / math.Log1p(math.Expm1(delta[i])/q[i])
			}
		}
	}
	return a, nil
}

// MeetsLevels reports whether A_δ c ⪯ 1 (Prop. 6's linear sufficient
// condition) and returns A_δ c.
func MeetsLevels(delta, q, c []float64) (bool, []float64, error) {
	a, err := LevelMatrix(delta, q)
	if err != nil {
		return false, nil, err
	}
	if err := checkVector("c", c, false, false); err != nil {
		return false, nil, err
	}
	if len(c) != len(delta) {
		return false, nil, fmt.Errorf("bcdp: Prop. 6: len(c) = %d, want %d", len(c), len(delta))
	}
	ac := make([]float64, len(c))
	ok := true
	for i := range a {
		for j := range c {
			ac[i] += a[i][j] * c[j]
		}
		if ac[i] > 1+1e-12 {
			ok = false
		}
	}
	return ok, ac, nil
}
