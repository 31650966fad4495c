package bcdp

// BCDP mechanisms (docs/bcdp.md): the Duchi–Jordan–Wainwright
// ℓ2-ball LDP channel (Mechanism 2), the per-user BCDP mean mechanism
// (Mechanism 1) with the server estimator, and the min-δ LDP baseline.
//
// Privacy model: local. Every user runs the mechanism on her own record;
// there is no neighbouring dataset and no subsampling. The Duchi channel with
// level α is α-LDP (pure, any radius B). Mechanism 1 with sorted levels c is
// c-CDP and c_d-LDP (sequential composition of its rounds), and δ-BCDP under
// Assumption 1 when c comes from Allocate (Prop. 4 part 2 with
// ε := c_d); the server estimate is post-processing.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/featuredp/featuredp/internal/valid"
)

// Duchi is the Duchi ℓ2-ball channel of dimension D, input radius R and
// level Alpha (Mechanism 2):
//
//	S ~ Bern(1/2 + ‖v‖/(2R)),  ṽ = (2S−1) R v/‖v‖  (v = 0: a fixed unit vector, S ~ Bern(1/2)),
//	K ~ Bern(e^α/(e^α+1)),     Z ~ Uniform{ ‖z‖ = B, (2K−1)⟨z, ṽ⟩ > 0 }.
//
// Z is drawn exactly without rejection: z = B g/‖g‖ with g ~ N(0, I_D), negated
// when its side is wrong (the sphere measure is symmetric). With the
// unbiased B (default) E[Z] = v, E[ZZᵀ] = (B²/D) I, ‖Z‖ = B. It is α-LDP.
type Duchi struct {
	D             int
	R, Alpha, B   float64
	PaperConstant bool
	pKeep         float64 // e^α/(e^α+1)
}

// NewDuchi returns the channel; B comes from DuchiB
// (paperConstant: the printed, 2× biased value).
func NewDuchi(D int, r, alpha float64, paperConstant bool) (*Duchi, error) {
	b, err := DuchiB(D, r, alpha, paperConstant)
	if err != nil {
		return nil, fmt.Errorf("bcdp: Duchi channel: %w", err)
	}
	return &Duchi{D: D, R: r, Alpha: alpha, B: b, PaperConstant: paperConstant, pKeep: 1 / (1 + math.Exp(-alpha))}, nil
}

// Sample writes one draw Z of the channel on v (‖v‖ ≤ R, finite) into out
// (len D; nil allocates) and returns it.
func (c *Duchi) Sample(rng *rand.Rand, v, out []float64) ([]float64, error) {
	if c == nil {
		return nil, errNil("Duchi channel", "Duchi", "NewDuchi")
	}
	if rng == nil {
		return nil, errors.New("bcdp: Duchi channel: nil random source")
	}
	if len(v) != c.D {
		return nil, fmt.Errorf("bcdp: Duchi channel: input has %d coordinates, want %d", len(v), c.D)
	}
	nrm := 0.0
	for i, x := range v {
		if !valid.Finite(x) {
			return nil, fmt.Errorf("bcdp: Duchi channel: input[%d] = %v is not finite", i, x)
		}
		nrm += x * x
	}
	if math.Sqrt(nrm) > c.R*(1+1e-9) {
		return nil, fmt.Errorf("bcdp: Duchi channel: ‖v‖ = %v exceeds the radius %v", math.Sqrt(nrm), c.R)
	}
	if out == nil {
		out = make([]float64, c.D)
	} else if len(out) != c.D {
		return nil, fmt.Errorf("bcdp: Duchi channel: output has %d coordinates, want %d", len(out), c.D)
	}
	for i := range out {
		out[i] = 0
	}
	c.add(rng, v, math.Sqrt(nrm), out, 1)
	return out, nil
}

// add adds scale·Z (one draw on v, whose norm is nrm) to acc. No checks.
func (c *Duchi) add(rng *rand.Rand, v []float64, nrm float64, acc []float64, scale float64) {
	// Side of ṽ relative to v's direction: +1 if S=1.
	side := 1.0
	if nrm < c.R {
		p := 0.5
		if nrm > 0 {
			p = 0.5 + nrm/(2*c.R)
		}
		if rng.Float64() >= p {
			side = -1
		}
	}
	if rng.Float64() >= c.pKeep {
		side = -side
	}
	// g ~ N(0, I_D); its projection on v (or e_1 when v = 0).
	D := c.D
	var buf [64]float64
	var g []float64
	if D <= len(buf) {
		g = buf[:D]
	} else {
		g = make([]float64, D)
	}
	n2, dot := 0.0, 0.0
	for i := range g {
		x := rng.NormFloat64()
		g[i] = x
		n2 += x * x
	}
	if nrm > 0 {
		for i, x := range g {
			dot += x * v[i]
		}
	} else {
		dot = g[0]
	}
	f := scale * c.B / math.Sqrt(n2)
	if (dot > 0) != (side > 0) {
		f = -f
	}
	for i, x := range g {
		acc[i] += f * x
	}
}

// Projection is the server's projection of the mean estimate.
type Projection int

const (
	// ProjectBox clips every coordinate to [−1, 1] (the Π of Theorem 2;
	// the library default).
	ProjectBox Projection = iota
	// ProjectRoundBalls projects each round's mean onto the ℓ2 ball of
	// radius √D_k, then the combined estimate onto the ℓ2 ball of radius √d
	// (the projection of the authors' code).
	ProjectRoundBalls
	// ProjectNone returns the unprojected (unbiased) mean ν̄.
	ProjectNone
)

// String names the projection.
func (p Projection) String() string {
	switch p {
	case ProjectBox:
		return "box"
	case ProjectRoundBalls:
		return "authors-balls"
	case ProjectNone:
		return "none"
	}
	return fmt.Sprintf("Projection(%d)", int(p))
}

// MeanOptions configures a Mean mechanism.
type MeanOptions struct {
	PaperConstant bool    // Duchi radius as printed (2×)
	Weights       Weights // combination weights (default: the paper's)
}

// Mean is Mechanism 1 for levels c (caller's coordinate
// order) together with the server side. Round k (1-based, sorted order)
// privatises the suffix x_{k:d} with the Duchi channel at α_k = c_k − c_{k−1},
// r = √D_k, D_k = d−k+1; rounds with α_k = 0 are skipped. The per-user estimate
// is ν̂_i = Σ_{k≤i} w_k Y^k_{i−k+1} / Σ_{k≤i} w_k. It is c-CDP and c_d-LDP.
type Mean struct {
	d      int
	perm   []int // sorted position → caller coordinate
	sorted []float64
	rounds []meanRound
	// cum[i] = Σ_{k≤i} w_k (sorted order).
	cum  []float64
	opts MeanOptions
}

type meanRound struct {
	k  int // 0-based start position in sorted order
	ch *Duchi
	w  float64
}

// NewMean builds Mechanism 1 for per-coordinate levels c (caller's
// order, finite, ≥ 0; typically Allocation.C). The most
// sensitive coordinates (smallest c) run first; ties keep the caller's order.
// It errors if every level is 0 or the rounds exceed MaxMeanWork.
func NewMean(c []float64, o MeanOptions) (*Mean, error) {
	d := len(c)
	if d == 0 {
		return nil, errors.New("bcdp: mean: empty level vector")
	}
	perm := make([]int, d)
	for i := range perm {
		perm[i] = i
	}
	for i, v := range c {
		if !valid.Finite(v) || v < 0 {
			return nil, fmt.Errorf("bcdp: mean: c[%d] = %v must be finite and ≥ 0", i, v)
		}
	}
	sort.SliceStable(perm, func(a, b int) bool { return c[perm[a]] < c[perm[b]] }) // ties keep the caller's order
	sorted := make([]float64, d)
	for k, i := range perm {
		sorted[k] = c[i]
	}
	alpha, _, w, err := RoundWeights(sorted, o.PaperConstant, o.Weights)
	if err != nil {
		return nil, fmt.Errorf("bcdp: mean: %w", err)
	}
	m := &Mean{d: d, perm: perm, sorted: sorted, cum: make([]float64, d), opts: o}
	acc := 0.0
	for k := 0; k < d; k++ {
		if alpha[k] > 0 {
			D := d - k
			ch, err := NewDuchi(D, math.Sqrt(float64(D)), alpha[k], o.PaperConstant)
			if err != nil {
				return nil, fmt.Errorf("bcdp: mean: round %d: %w", k+1, err)
			}
			m.rounds = append(m.rounds, meanRound{k: k, ch: ch, w: w[k]})
		}
		acc += w[k]
		m.cum[k] = acc
	}
	if len(m.rounds) == 0 {
		return nil, errors.New("bcdp: mean: every level is 0 (no round can run)")
	}
	if work := m.work(); work > MaxMeanWork {
		return nil, fmt.Errorf("bcdp: mean: %d coordinates with %d distinct levels make rounds of total size Σ_k D_k = %d, more than %d "+
			"(the memory of every accumulator and the work per user): give fewer distinct levels (coordinates with equal levels share a round)",
			d, len(m.rounds), work, MaxMeanWork)
	}
	return m, nil
}

// MaxMeanWork caps Σ_k D_k over the rounds of Mechanism 1 (NewMean): the
// floats every MeanSums holds and the channel coordinates every user
// draws (2^24; d distinct levels give d(d+1)/2, so d ≤ 5792).
const MaxMeanWork = 1 << 24

// work returns Σ_k D_k over the rounds that run.
func (m *Mean) work() int {
	w := 0
	for _, r := range m.rounds {
		w += r.ch.D
	}
	return w
}

// zeroWeightCoordinate returns the first coordinate (caller's order) with
// zero total weight, whose estimate Estimate refuses (c = 0), or −1.
func (m *Mean) zeroWeightCoordinate() int {
	for k, w := range m.cum {
		if w == 0 {
			return m.perm[k]
		}
	}
	return -1
}

// NewBaseline returns the min-δ LDP baseline of App. B.1: one Duchi round
// on the whole d-dimensional vector at level a (r = √d), i.e. Mechanism 1
// with c = a·1.
func NewBaseline(d int, a float64, o MeanOptions) (*Mean, error) {
	if d < 1 || d > MaxMeanWork {
		return nil, fmt.Errorf("bcdp: baseline: d = %d, want 1 to %d (MaxMeanWork)", d, MaxMeanWork)
	}
	if !valid.Finite(a) || a <= 0 {
		return nil, fmt.Errorf("bcdp: baseline: level %v must be finite and > 0", a)
	}
	c := make([]float64, d)
	for i := range c {
		c[i] = a
	}
	return NewMean(c, o)
}

// Dim returns d (0 for a nil *Mean).
func (m *Mean) Dim() int {
	if m == nil {
		return 0
	}
	return m.d
}

// Rounds returns the 1-based indices k of the rounds that run (α_k > 0;
// none for a nil *Mean).
func (m *Mean) Rounds() []int {
	if m == nil {
		return nil
	}
	out := make([]int, len(m.rounds))
	for i, r := range m.rounds {
		out[i] = r.k + 1
	}
	return out
}

// LDP returns c_d, the LDP level of the mechanism (Σ_k α_k). It panics on
// a nil *Mean, naming the fix: a nil mechanism has no level, and any
// number returned would state a privacy guarantee.
func (m *Mean) LDP() float64 {
	if m == nil {
		panic(errNil("LDP", "Mean", "NewMean or NewBaseline"))
	}
	return m.sorted[m.d-1]
}

// Sorted returns the levels in the mechanism's (sorted) order and the
// permutation (sorted position → caller coordinate); nil, nil for a nil
// *Mean.
func (m *Mean) Sorted() ([]float64, []int) {
	if m == nil {
		return nil, nil
	}
	return append([]float64(nil), m.sorted...), append([]int(nil), m.perm...)
}

// errNil is the error of a method called on a nil *typ (a constructor's
// error ignored).
func errNil(what, typ, ctor string) error {
	return fmt.Errorf("bcdp: %s: nil *%s receiver (build it with %s and check its error)", what, typ, ctor)
}

// MeanSums accumulates the per-round sums Σ_j Y^{k,(j)} of the users'
// releases: all the server needs (the estimator is linear before projection).
type MeanSums struct {
	m    *Mean
	sums [][]float64 // per active round, length D_k
	xs   []float64   // scratch: sorted record
	N    int         // number of users added
}

// NewSums returns an empty accumulator for m (nil for a nil *Mean, whose
// Add and Estimate then return an error).
func (m *Mean) NewSums() *MeanSums {
	if m == nil {
		return nil
	}
	s := &MeanSums{m: m, sums: make([][]float64, len(m.rounds)), xs: make([]float64, m.d)}
	for i, r := range m.rounds {
		s.sums[i] = make([]float64, r.ch.D)
	}
	return s
}

// Reset empties the accumulator (a nil *MeanSums is left as it is).
func (s *MeanSums) Reset() {
	if s == nil {
		return
	}
	for _, v := range s.sums {
		for i := range v {
			v[i] = 0
		}
	}
	s.N = 0
}

// checkRecord validates a record in [−1, 1]^d.
func checkRecord(x []float64, d int) error {
	if len(x) != d {
		return fmt.Errorf("bcdp: mean: record has %d coordinates, want %d", len(x), d)
	}
	for i, v := range x {
		if err := valid.Closed(fmt.Sprintf("x[%d]", i), v, -1, 1); err != nil {
			return fmt.Errorf("bcdp: mean: %w", err)
		}
	}
	return nil
}

// Add runs Mechanism 1 on one user's record x ∈ [−1,1]^d (caller's order)
// with randomness from rng and adds the release (Y^1, …, Y^d) to the sums.
func (s *MeanSums) Add(rng *rand.Rand, x []float64) error {
	if s == nil || s.m == nil {
		return errNil("mean sums", "MeanSums", "Mean.NewSums")
	}
	if rng == nil {
		return errors.New("bcdp: mean: nil random source")
	}
	if err := checkRecord(x, s.m.d); err != nil {
		return err
	}
	s.AddUnchecked(rng, x)
	return nil
}

// AddUnchecked is Add without input validation (x must be in [−1,1]^d): the
// hot loop of the experiments. It checks nothing, so it panics on a nil
// receiver or a record of the wrong length (use Add for checks).
func (s *MeanSums) AddUnchecked(rng *rand.Rand, x []float64) {
	m := s.m
	xs := s.xs
	for k, i := range m.perm {
		xs[k] = x[i]
	}
	// suffix norms
	for ri, r := range m.rounds {
		v := xs[r.k:]
		n2 := 0.0
		for _, t := range v {
			n2 += t * t
		}
		r.ch.add(rng, v, math.Sqrt(n2), s.sums[ri], 1)
	}
	s.N++
}

// Estimate returns the server's estimate of the users' mean in the caller's
// coordinate order: the per-round means Ȳ^k = sums/N, combined per coordinate
// with the weights, then projected (docs/bcdp.md; ProjectRoundBalls projects
// each Ȳ^k onto the ball of radius √D_k before combining and the result onto
// the ball of radius √d, as the authors' code does).
func (s *MeanSums) Estimate(p Projection) ([]float64, error) {
	if s == nil || s.m == nil {
		return nil, errNil("mean sums", "MeanSums", "Mean.NewSums")
	}
	if s.N == 0 {
		return nil, errors.New("bcdp: mean: no users added")
	}
	m := s.m
	means := make([][]float64, len(m.rounds))
	for ri, r := range m.rounds {
		means[ri] = make([]float64, r.ch.D)
		for i, v := range s.sums[ri] {
			means[ri][i] = v / float64(s.N)
		}
		if p == ProjectRoundBalls {
			projectBall(means[ri], math.Sqrt(float64(r.ch.D)))
		}
	}
	est := make([]float64, m.d)
	for i := 0; i < m.d; i++ {
		if m.cum[i] == 0 {
			return nil, fmt.Errorf("bcdp: mean: coordinate %d has zero total weight (c = 0)", m.perm[i])
		}
		v := 0.0
		for ri, r := range m.rounds {
			if r.k > i {
				break
			}
			v += r.w * means[ri][i-r.k]
		}
		est[i] = v / m.cum[i]
	}
	switch p {
	case ProjectBox:
		for i, v := range est {
			est[i] = math.Max(-1, math.Min(1, v))
		}
	case ProjectRoundBalls:
		projectBall(est, math.Sqrt(float64(m.d)))
	case ProjectNone:
	default:
		return nil, fmt.Errorf("bcdp: mean: unknown projection %v", p)
	}
	out := make([]float64, m.d)
	for k, i := range m.perm {
		out[i] = est[k]
	}
	return out, nil
}

// projectBall projects v onto the ℓ2 ball of radius r in place.
func projectBall(v []float64, r float64) {
	n2 := 0.0
	for _, x := range v {
		n2 += x * x
	}
	if n := math.Sqrt(n2); n > r {
		f := r / n
		for i := range v {
			v[i] *= f
		}
	}
}

// Privatize runs Mechanism 1 on one record x (caller's order) and returns
// the per-user estimate ν̂ (caller's order): the release (Y^1, …, Y^d)
// post-processed by the weighted combination. Unprojected
// and unbiased (with the unbiased constant).
func (m *Mean) Privatize(rng *rand.Rand, x []float64) ([]float64, error) {
	if m == nil {
		return nil, errNil("mean", "Mean", "NewMean or NewBaseline")
	}
	s := m.NewSums()
	if err := s.Add(rng, x); err != nil {
		return nil, err
	}
	return s.Estimate(ProjectNone)
}
