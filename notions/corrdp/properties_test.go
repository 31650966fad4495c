package corrdp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Randomised property tests of the accounting (random inputs; the
// accounting files themselves draw no randomness).

// C3.
func TestNoiseWeightsPaperMode(t *testing.T) {
	const tv0 = 0.363964
	sens := make([]bool, 100)
	tv := make([]float64, 100)
	for i := range sens {
		sens[i] = i < 10
		tv[i] = tv0
	}
	sum := func(w []float64) (s float64) {
		for _, v := range w {
			s += v
		}
		return
	}
	wc, err := NoiseWeights(Corr, sens, tv, false)
	if err != nil || !approxEqual(sum(wc), 42.7568, 1e-3) {
		t.Fatalf("Σw CorrDP = %v, %v; want 42.7568", sum(wc), err)
	}
	ws, _ := NoiseWeights(Semi, sens, nil, false)
	wst, _ := NoiseWeights(Standard, sens, nil, false)
	if sum(ws) != 10 || sum(wst) != 100 {
		t.Errorf("Σw Semi = %v, Standard = %v", sum(ws), sum(wst))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		m := 1 + r.IntN(20)
		s := make([]bool, m)
		v := make([]float64, m)
		for i := range s {
			s[i] = r.IntN(2) == 0
			v[i] = r.Float64()
		}
		a, _ := NoiseWeights(Semi, s, v, false)
		b, _ := NoiseWeights(Corr, s, v, false)
		c, _ := NoiseWeights(Standard, s, v, false)
		if !(sum(a) <= sum(b) && sum(b) <= sum(c)) {
			t.Fatalf("ordering violated: %v %v %v", sum(a), sum(b), sum(c))
		}
	}
	// TV ≡ 0 → Semi, TV ≡ 1 → Standard, m_s = m → all equal.
	s := []bool{true, false, false}
	w0, _ := NoiseWeights(Corr, s, []float64{9, 0, 0}, false)
	w1, _ := NoiseWeights(Corr, s, []float64{0, 1, 1}, false)
	if fmt.Sprint(w0) != "[1 0 0]" || fmt.Sprint(w1) != "[1 1 1]" {
		t.Errorf("extremes: %v %v", w0, w1)
	}
	all := []bool{true, true}
	for _, meth := range []Method{Standard, Semi, Corr} {
		w, _ := NoiseWeights(meth, all, []float64{0.3, 0.3}, true)
		if fmt.Sprint(w) != "[1 1]" {
			t.Errorf("%v with m_s = m: %v", meth, w)
		}
	}
	// Errors.
	if _, err := NoiseWeights(Corr, s, []float64{0, 1.5, 0}, false); err == nil {
		t.Error("TV > 1 accepted")
	}
	if _, err := NoiseWeights(Corr, s, []float64{0, 1}, false); err == nil {
		t.Error("length mismatch accepted")
	}
	if _, err := NoiseWeights(Corr, nil, nil, false); err == nil {
		t.Error("empty accepted")
	}
}

// C11: Lemma A.9 inequality (a property of the proof's algebra).
func TestLemmaA9(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 2000; trial++ {
		lam := 0.1 + 20*r.Float64()
		u := 0.1 + 10*r.Float64()
		c := 0.1 + 5*r.Float64()
		n := math.Ceil(10*c*math.Max(lam, 1)/u) * (1 + 10*r.Float64())
		v := u + (2*r.Float64()-1)*c/n
		lhs := (lam+1)*math.Log(u) - lam*math.Log(v) - math.Log((lam+1)*u-lam*v)
		rhs := 2 * lam * (lam + 1) * c * c / (3 * n * n * u * u)
		if lhs > rhs*(1+1e-9)+1e-15 {
			t.Fatalf("λ=%v u=%v v=%v C=%v n=%v: %v > %v", lam, u, v, c, n, lhs, rhs)
		}
	}
	if x := -0.1; !(-math.Log1p(x) <= -x+2.0/3*x*x) {
		t.Error("−log(1+x) bound at −0.1")
	}
}

// C12 and the corrected Thm. 3.9 sum (docs/corrdp.md, 'Where we differ').
func TestBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 500; trial++ {
		k := 1 + r.IntN(30)
		tv := make([]float64, k)
		var sum, mx float64
		for i := range tv {
			tv[i] = r.Float64()
			sum += tv[i]
			mx = math.Max(mx, tv[i])
		}
		_, mid, err := LowerBound(3, tv, 1, 100)
		if err != nil || !(mx*mx <= mid+1e-12 && mid <= sum+1e-12) {
			t.Fatalf("sandwich %v ≤ %v ≤ %v (%v)", mx*mx, mid, sum, err)
		}
		rate, bound, std, err := UtilityRate(3, tv, 1, 1e-5, 100)
		if err != nil || rate > bound*(1+1e-12) || rate > std*(1+1e-12) {
			t.Fatalf("rate %v bound %v standard %v (%v)", rate, bound, std, err)
		}
	}
	lb, _, _ := LowerBound(1, []float64{1}, 1e-9, 1)
	if lb != 1 {
		t.Errorf("lower bound cap: %v", lb)
	}
}
