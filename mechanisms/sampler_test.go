package mechanisms

import (
	"math"
	"testing"
)

// checkBatch verifies indices are in range; sorted and distinct if sorted.
func checkBatch(t *testing.T, b []int, n int, sorted bool) {
	t.Helper()
	for k, i := range b {
		if i < 0 || i >= n {
			t.Fatalf("index %d out of [0,%d)", i, n)
		}
		if sorted && k > 0 && b[k-1] >= i {
			t.Fatalf("batch not strictly increasing at %d: %v", k, b[max(0, k-3):k+1])
		}
	}
}

// TestPoissonStatistics is check A1 of fdp.md: mean batch size n·q within
// 4 standard errors, variance ≈ nq(1−q), and uniform marginal inclusion, for
// both the geometric-skip and the Bernoulli paths.
func TestPoissonStatistics(t *testing.T) {
	for _, c := range []struct {
		n int
		q float64
	}{{1000, 0.01}, {1000, 0.05}, {200, 0.3}, {50, 0.9}} {
		rng := NewStreams(21).Sampling()
		p := Poisson{Rate: c.q}
		const draws = 10000
		sizes := make([]float64, draws)
		counts := make([]int, c.n)
		var buf []int
		for d := range draws {
			var err error
			buf, err = p.Sample(rng, c.n, buf)
			if err != nil {
				t.Fatal(err)
			}
			checkBatch(t, buf, c.n, true)
			sizes[d] = float64(len(buf))
			for _, i := range buf {
				counts[i]++
			}
		}
		mean, vr := meanVar(sizes)
		nq, v := float64(c.n)*c.q, float64(c.n)*c.q*(1-c.q)
		if math.Abs(mean-nq) > 4*math.Sqrt(v/draws) {
			t.Errorf("q=%v n=%d: mean batch %v, want %v", c.q, c.n, mean, nq)
		}
		if math.Abs(vr/v-1) > 0.1 {
			t.Errorf("q=%v n=%d: batch variance %v, want %v", c.q, c.n, vr, v)
		}
		if p.Expected(c.n) != nq {
			t.Errorf("Expected = %v, want %v", p.Expected(c.n), nq)
		}
		// Per-index inclusion counts ~ Binomial(draws, q): chi-square over
		// indices, mean n, sd √(2n).
		var chi float64
		e := draws * c.q
		for _, k := range counts {
			chi += (float64(k) - e) * (float64(k) - e) / (e * (1 - c.q))
		}
		if math.Abs(chi-float64(c.n)) > 5*math.Sqrt(2*float64(c.n)) {
			t.Errorf("q=%v n=%d: inclusion chi-square %v for %d indices", c.q, c.n, chi, c.n)
		}
	}
	rng := NewStreams(1).Sampling()
	if b, _ := (Poisson{Rate: 0}).Sample(rng, 10, nil); len(b) != 0 {
		t.Errorf("q=0 gave %v", b)
	}
	if b, _ := (Poisson{Rate: 1}).Sample(rng, 10, nil); len(b) != 10 {
		t.Errorf("q=1 gave %v", b)
	}
}

func TestUniformSubsetStatistics(t *testing.T) {
	for _, c := range []struct{ n, m int }{{400, 10}, {40, 25}, {30, 30}, {1, 1}} {
		rng := NewStreams(22).PublicSampling()
		u := UniformSubset{Size: c.m}
		const draws = 20000
		counts := make([]int, c.n)
		var buf []int
		for range draws {
			var err error
			buf, err = u.Sample(rng, c.n, buf)
			if err != nil {
				t.Fatal(err)
			}
			if len(buf) != c.m {
				t.Fatalf("size %d, want %d", len(buf), c.m)
			}
			checkBatch(t, buf, c.n, true)
			for _, i := range buf {
				counts[i]++
			}
		}
		if c.m == c.n {
			continue
		}
		p := float64(c.m) / float64(c.n)
		e := draws * p
		var chi float64
		for _, k := range counts {
			chi += (float64(k) - e) * (float64(k) - e) / (e * (1 - p))
		}
		if math.Abs(chi-float64(c.n)) > 5*math.Sqrt(2*float64(c.n)) {
			t.Errorf("n=%d m=%d: inclusion chi-square %v", c.n, c.m, chi)
		}
	}
	// Pairs: with n=5, m=2 each of the 10 subsets has probability 1/10.
	rng := NewStreams(23).PublicSampling()
	pairs := map[[2]int]int{}
	for range 50000 {
		b, _ := UniformSubset{Size: 2}.Sample(rng, 5, nil)
		pairs[[2]int{b[0], b[1]}]++
	}
	// n=5, m=2 is the selection-sampling path; n=40, m=2 the Floyd path.
	floyd := map[[2]int]int{}
	for range 78000 {
		b, _ := UniformSubset{Size: 2}.Sample(rng, 40, nil)
		floyd[[2]int{b[0], b[1]}]++
	}
	if len(pairs) != 10 || len(floyd) != 780 {
		t.Fatalf("saw %d and %d distinct pairs, want 10 and 780", len(pairs), len(floyd))
	}
	for _, set := range []map[[2]int]int{pairs, floyd} {
		var chi float64
		e := float64(sum(set)) / float64(len(set))
		for _, k := range set {
			chi += (float64(k) - e) * (float64(k) - e) / e
		}
		df := float64(len(set) - 1)
		if math.Abs(chi-df) > 5*math.Sqrt(2*df) {
			t.Errorf("subset chi-square %v for %v cells", chi, len(set))
		}
	}
}

func sum(m map[[2]int]int) int {
	s := 0
	for _, v := range m {
		s += v
	}
	return s
}

func TestShuffledEpochs(t *testing.T) {
	s, err := NewShuffledEpochs(4)
	if err != nil {
		t.Fatal(err)
	}
	rng := NewStreams(24).Sampling()
	const n = 10 // 2 batches per epoch, 2 rows dropped
	var epochs [][]int
	for e := range 3 {
		var seen []int
		for range 2 {
			b, err := s.Sample(rng, n, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) != 4 {
				t.Fatalf("batch size %d", len(b))
			}
			checkBatch(t, b, n, false)
			seen = append(seen, b...)
		}
		if s.Epoch() != e+1 {
			t.Fatalf("epoch %d, want %d", s.Epoch(), e+1)
		}
		has := map[int]bool{}
		for _, i := range seen {
			if has[i] {
				t.Fatalf("row %d twice in epoch %d", i, e)
			}
			has[i] = true
		}
		epochs = append(epochs, seen)
	}
	same := true
	for k := range epochs[0] {
		same = same && epochs[0][k] == epochs[1][k]
	}
	if same {
		t.Error("epochs 1 and 2 used the same permutation")
	}
	f := s.Fresh().(*ShuffledEpochs)
	if f.Epoch() != 0 || f.BatchSize() != 4 || f.Expected(n) != 4 {
		t.Errorf("Fresh: epoch %d batch %d", f.Epoch(), f.BatchSize())
	}
	// A fresh sampler with a fresh stream repeats the first epoch.
	b, _ := f.Sample(NewStreams(24).Sampling(), n, nil)
	for k := range b {
		if b[k] != epochs[0][k] {
			t.Fatal("Fresh sampler does not restart the sequence")
		}
	}
}

func TestFullBatch(t *testing.T) {
	b, err := FullBatch{}.Sample(NewStreams(1).Sampling(), 5, make([]int, 2))
	if err != nil || len(b) != 5 || b[0] != 0 || b[4] != 4 {
		t.Fatalf("FullBatch = %v, %v", b, err)
	}
	if (FullBatch{}).Expected(7) != 7 {
		t.Error("Expected")
	}
}

func TestSamplerBadInput(t *testing.T) {
	rng := NewStreams(1).Sampling()
	nilShuffle := (*ShuffledEpochs)(nil)
	cases := []struct {
		name string
		s    Sampler
		n    int
		nilR bool
	}{
		{"Poisson rate <0", Poisson{Rate: -0.1}, 10, false},
		{"Poisson rate >1", Poisson{Rate: 1.5}, 10, false},
		{"Poisson rate NaN", Poisson{Rate: math.NaN()}, 10, false},
		{"Poisson rate Inf", Poisson{Rate: math.Inf(1)}, 10, false},
		{"Poisson n=0", Poisson{Rate: 0.5}, 0, false},
		{"Poisson n<0", Poisson{Rate: 0.5}, -3, false},
		{"Poisson nil rng", Poisson{Rate: 0.5}, 10, true},
		{"Uniform size 0", UniformSubset{Size: 0}, 10, false},
		{"Uniform size <0", UniformSubset{Size: -1}, 10, false},
		{"Uniform size > n", UniformSubset{Size: 11}, 10, false},
		{"Uniform n=0", UniformSubset{Size: 1}, 0, false},
		{"Uniform nil rng", UniformSubset{Size: 1}, 10, true},
		{"Shuffled nil", nilShuffle, 10, false},
		{"Shuffled B > n", &ShuffledEpochs{batch: 11}, 10, false},
		{"Shuffled zero value", &ShuffledEpochs{}, 10, false},
		{"Shuffled n=0", &ShuffledEpochs{batch: 1}, 0, false},
		{"Shuffled nil rng", &ShuffledEpochs{batch: 1}, 10, true},
		{"FullBatch n=0", FullBatch{}, 0, false},
		{"FullBatch nil rng", FullBatch{}, 10, true},
	}
	for _, c := range cases {
		r := rng
		if c.nilR {
			r = nil
		}
		if _, err := c.s.Sample(r, c.n, nil); err == nil {
			t.Errorf("%s: Sample: no error", c.name)
		}
		if !c.nilR {
			if err := c.s.Validate(c.n); err == nil {
				t.Errorf("%s: Validate: no error", c.name)
			}
		}
	}
	if _, err := NewShuffledEpochs(0); err == nil {
		t.Error("NewShuffledEpochs(0): no error")
	}
	if nilShuffle.Expected(3) != 0 {
		t.Error("nil ShuffledEpochs.Expected")
	}
}
