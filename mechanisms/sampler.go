package mechanisms

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Sampler draws the row indices of one batch from a dataset of n rows.
//
// Sample returns the batch as indices in [0, n), distinct and in increasing
// order (except ShuffledEpochs, whose batches follow the permutation),
// written into buf (grown if its capacity is too small) and returned. It
// returns an error for a nil rng, n ≤ 0 or a sampler that is invalid for n.
//
// Samplers whose behaviour depends on previous calls implement Stateful;
// Train calls Fresh once per run, so a Config can be reused and run in
// parallel.
type Sampler interface {
	// Validate returns an error if the sampler cannot draw batches from
	// n rows.
	Validate(n int) error
	// Expected is the expected batch size E|B| for n rows: q·n for
	// Poisson, m for fixed-size batches, n for the full batch. DP-SGD
	// normalises the gradient sum by it.
	Expected(n int) float64
	// Sample draws one batch (see the interface doc).
	Sample(rng *rand.Rand, n int, buf []int) ([]int, error)
}

// Stateful is implemented by samplers that keep per-run state (a
// permutation and a position). Fresh returns an independent sampler in its
// initial state with the same parameters.
type Stateful interface {
	Fresh() Sampler
}

// checkN validates the rng and the number of rows.
func checkN(fn string, rng *rand.Rand, n int) error {
	if rng == nil {
		return fmt.Errorf("mechanisms: %s: %w", fn, ErrNilRand)
	}
	if n <= 0 {
		return fmt.Errorf("mechanisms: %s: n = %d rows, want > 0", fn, n)
	}
	return nil
}

// ---------------------------------------------------------------------------

// Poisson includes each row independently with probability Rate = q
// (Poisson subsampling; Abadi et al. 2016 line B_priv). The
// batch size is Binomial(n, q), with mean q·n and variance q(1−q)n; this is
// the sampling the subsampled-Gaussian RDP accountant assumes.
//
// For q < 0.1 it skips ahead by geometric gaps, G = ⌊log U / log(1−q)⌋ with
// U uniform on (0, 1), P(G ≥ k) = (1−q)^k, costing O(q·n) instead of O(n)
// uniforms; otherwise it draws one Bernoulli(q) per row. Both give the
// same law; the random sequences differ.
type Poisson struct {
	// Rate is the inclusion probability q ∈ [0, 1]. No default: the zero
	// value samples empty batches.
	Rate float64
}

// poissonGeometricBelow is the rate under which Poisson uses geometric
// skipping.
const poissonGeometricBelow = 0.1

// Validate returns an error unless Rate ∈ [0, 1] and n > 0.
func (p Poisson) Validate(n int) error {
	if !(p.Rate >= 0 && p.Rate <= 1) {
		return fmt.Errorf("mechanisms: Poisson: rate q = %v, want in [0, 1]", p.Rate)
	}
	if n <= 0 {
		return fmt.Errorf("mechanisms: Poisson: n = %d rows, want > 0", n)
	}
	return nil
}

// Expected returns q·n.
func (p Poisson) Expected(n int) float64 { return p.Rate * float64(n) }

// Sample draws a Poisson batch (see Poisson).
func (p Poisson) Sample(rng *rand.Rand, n int, buf []int) ([]int, error) {
	if err := checkN("Poisson.Sample", rng, n); err != nil {
		return nil, err
	}
	if err := p.Validate(n); err != nil {
		return nil, err
	}
	return p.sample(rng, n, buf[:0]), nil
}

// sample is Sample without validation; buf must have length 0.
func (p Poisson) sample(rng *rand.Rand, n int, buf []int) []int {
	q := p.Rate
	switch {
	case q == 0:
		return buf
	case q == 1:
		for i := range n {
			buf = append(buf, i)
		}
		return buf
	case q < poissonGeometricBelow:
		logq := math.Log1p(-q) // < 0
		i := -1
		for {
			g := math.Floor(math.Log(openUniform(rng)) / logq) // number of rows skipped
			if g >= float64(n-1-i) {
				return buf
			}
			i += int(g) + 1
			buf = append(buf, i)
		}
	default:
		for i := range n {
			if rng.Float64() < q {
				buf = append(buf, i)
			}
		}
		return buf
	}
}

// ---------------------------------------------------------------------------

// UniformSubset draws Size = m distinct rows uniformly at random without
// replacement: every m-subset has probability 1/C(n, m) (the public batch
// of docs/feature-dp.md, and the fixed-size batches of CorrDP-SGD). The indices are
// returned sorted.
//
// For m ≤ n/8 it uses Floyd's algorithm (m uniforms, O(m²) worst-case
// insertion into the sorted output, no allocation beyond buf); for larger m
// it uses selection sampling (Knuth's Algorithm S: O(n) uniforms). m = n
// returns 0..n−1 without drawing.
type UniformSubset struct {
	// Size is the batch size m, 1 ≤ m ≤ n. No default.
	Size int
}

// Validate returns an error unless 1 ≤ Size ≤ n.
func (u UniformSubset) Validate(n int) error {
	if n <= 0 {
		return fmt.Errorf("mechanisms: UniformSubset: n = %d rows, want > 0", n)
	}
	if u.Size < 1 || u.Size > n {
		return fmt.Errorf("mechanisms: UniformSubset: size m = %d, want 1 ≤ m ≤ n = %d", u.Size, n)
	}
	return nil
}

// Expected returns m.
func (u UniformSubset) Expected(n int) float64 { return float64(u.Size) }

// Sample draws m rows without replacement (see UniformSubset).
func (u UniformSubset) Sample(rng *rand.Rand, n int, buf []int) ([]int, error) {
	if err := checkN("UniformSubset.Sample", rng, n); err != nil {
		return nil, err
	}
	if err := u.Validate(n); err != nil {
		return nil, err
	}
	return u.sample(rng, n, buf[:0]), nil
}

// sample is Sample without validation; buf must have length 0.
func (u UniformSubset) sample(rng *rand.Rand, n int, buf []int) []int {
	m := u.Size
	switch {
	case m == n:
		for i := range n {
			buf = append(buf, i)
		}
		return buf
	case 8*m <= n:
		// Floyd: for j = n−m … n−1, draw t ∈ [0, j]; insert t, or j if t is
		// already present. Every m-subset is equally likely.
		for j := n - m; j < n; j++ {
			t := rng.IntN(j + 1)
			pos, found := searchSorted(buf, t)
			if found {
				t, pos = j, len(buf) // j exceeds every element so far
			}
			buf = append(buf, 0)
			copy(buf[pos+1:], buf[pos:])
			buf[pos] = t
		}
		return buf
	default:
		// Selection sampling: keep row i with probability
		// (needed)/(remaining).
		need := m
		for i := 0; i < n && need > 0; i++ {
			if rng.IntN(n-i) < need {
				buf = append(buf, i)
				need--
			}
		}
		return buf
	}
}

// searchSorted returns the insertion position of t in the increasing slice
// s and whether t is present.
func searchSorted(s []int, t int) (int, bool) {
	lo, hi := 0, len(s)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if s[mid] < t {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(s) && s[lo] == t
}

// ---------------------------------------------------------------------------

// ShuffledEpochs walks a random permutation of the rows in consecutive
// batches of BatchSize = B, drawing a new permutation (Fisher–Yates from the
// rng) at the start of every epoch: the usual non-private data loader. When
// fewer than B rows remain in an epoch they are dropped and a new epoch
// starts (PyTorch's drop_last), so every batch has exactly B rows and each
// epoch has ⌊n/B⌋ batches.
//
// ShuffledEpochs is stateful: create one with NewShuffledEpochs per run (Train
// calls Fresh itself). It is not safe for concurrent use. Batches are
// not sorted. The batches are not Poisson samples: the subsampled-Gaussian
// RDP accountant does not cover them.
type ShuffledEpochs struct {
	batch int
	perm  []int
	pos   int
	epoch int
}

// NewShuffledEpochs returns a shuffled-epoch sampler with batch size B. It
// returns an error if B < 1.
func NewShuffledEpochs(batchSize int) (*ShuffledEpochs, error) {
	if batchSize < 1 {
		return nil, fmt.Errorf("mechanisms: ShuffledEpochs: batch size = %d, want ≥ 1", batchSize)
	}
	return &ShuffledEpochs{batch: batchSize}, nil
}

// errNilShuffled is the error of ShuffledEpochs.Validate and Sample on a
// nil receiver.
var errNilShuffled = errors.New("mechanisms: ShuffledEpochs: nil *ShuffledEpochs sampler (use NewShuffledEpochs)")

// BatchSize returns B (0 for a nil *ShuffledEpochs).
func (s *ShuffledEpochs) BatchSize() int {
	if s == nil {
		return 0
	}
	return s.batch
}

// Epoch returns the number of permutations drawn so far (the current epoch,
// counting from 1; 0 before the first batch and for a nil *ShuffledEpochs).
func (s *ShuffledEpochs) Epoch() int {
	if s == nil {
		return 0
	}
	return s.epoch
}

// Fresh returns a new sampler with the same batch size, before its first
// epoch.
// A nil receiver gives an invalid sampler (Validate reports it).
func (s *ShuffledEpochs) Fresh() Sampler {
	if s == nil {
		return &ShuffledEpochs{}
	}
	return &ShuffledEpochs{batch: s.batch}
}

// Validate returns an error unless 1 ≤ B ≤ n.
func (s *ShuffledEpochs) Validate(n int) error {
	if s == nil {
		return errNilShuffled
	}
	if n <= 0 {
		return fmt.Errorf("mechanisms: ShuffledEpochs: n = %d rows, want > 0", n)
	}
	if s.batch < 1 || s.batch > n {
		return fmt.Errorf("mechanisms: ShuffledEpochs: batch size B = %d, want 1 ≤ B ≤ n = %d", s.batch, n)
	}
	return nil
}

// Expected returns B.
func (s *ShuffledEpochs) Expected(n int) float64 {
	if s == nil {
		return 0
	}
	return float64(s.batch)
}

// Sample returns the next batch of the current epoch, starting a new epoch
// (a new permutation of 0..n−1) when fewer than B rows are left or n
// changed.
func (s *ShuffledEpochs) Sample(rng *rand.Rand, n int, buf []int) ([]int, error) {
	if s == nil {
		return nil, errNilShuffled
	}
	if err := checkN("ShuffledEpochs.Sample", rng, n); err != nil {
		return nil, err
	}
	if err := s.Validate(n); err != nil {
		return nil, err
	}
	return s.sample(rng, n, buf[:0]), nil
}

// sample is Sample without validation; buf must have length 0.
func (s *ShuffledEpochs) sample(rng *rand.Rand, n int, buf []int) []int {
	if len(s.perm) != n || s.pos+s.batch > n {
		if cap(s.perm) < n {
			s.perm = make([]int, n)
		}
		s.perm = s.perm[:n]
		for i := range s.perm {
			s.perm[i] = i
		}
		for i := n - 1; i > 0; i-- {
			j := rng.IntN(i + 1)
			s.perm[i], s.perm[j] = s.perm[j], s.perm[i]
		}
		s.pos = 0
		s.epoch++
	}
	buf = append(buf, s.perm[s.pos:s.pos+s.batch]...)
	s.pos += s.batch
	return buf
}

// ---------------------------------------------------------------------------

// FullBatch selects every row, 0..n−1, at every step (gradient descent;
// DP-GD of docs/smooth-rdp.md, accounted as sample rate q = 1). It draws no
// randomness.
type FullBatch struct{}

// Validate returns an error if n ≤ 0.
func (FullBatch) Validate(n int) error {
	if n <= 0 {
		return fmt.Errorf("mechanisms: FullBatch: n = %d rows, want > 0", n)
	}
	return nil
}

// Expected returns n.
func (FullBatch) Expected(n int) float64 { return float64(n) }

// Sample returns 0..n−1 (rng is not used but must be non-nil for
// uniformity with the other samplers).
func (f FullBatch) Sample(rng *rand.Rand, n int, buf []int) ([]int, error) {
	if err := checkN("FullBatch.Sample", rng, n); err != nil {
		return nil, err
	}
	buf = buf[:0]
	for i := range n {
		buf = append(buf, i)
	}
	return buf, nil
}
