package figures

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/featuredp/featuredp/notions/corrdp"
)

// C5: population TV of the synthetic design and the plug-in estimator.
func TestSyntheticTV(t *testing.T) {
	for _, c := range []struct {
		ms   int
		want float64
	}{{5, 0.33998}, {10, 0.36396}, {20, 0.38156}, {50, 0.39906}, {80, 0.40656}} {
		cov, err := SyntheticCov(100, c.ms)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := SyntheticWidth(c.ms, 1e-4)
		tv, err := SyntheticTV(cov, c.ms, w)
		if err != nil {
			t.Fatal(err)
		}
		for i := c.ms; i < 100; i++ {
			if math.Abs(tv[i]-c.want) > 1e-4 {
				t.Fatalf("m_s = %d: TV[%d] = %v, want %v", c.ms, i, tv[i], c.want)
			}
		}
	}
	// Plug-in with the sample covariance: biased upwards at n = 2000,
	// consistent at n = 200,000.
	w, _ := SyntheticWidth(10, 1e-4)
	for _, c := range []struct {
		n      int
		lo, hi float64
	}{{2000, 0.40, 0.52}, {200000, 0.36396 - 0.02, 0.36396 + 0.02}} {
		if testing.Short() && c.n > 10000 {
			continue
		}
		syn, err := NewSynthetic(c.n, 100, 10, 5, rand.New(rand.NewPCG(7, uint64(c.n))))
		if err != nil {
			t.Fatal(err)
		}
		_, cov, err := corrdp.Covariance(syn.X, syn.N, syn.M)
		if err != nil {
			t.Fatal(err)
		}
		tv, err := SyntheticTV(cov, 10, w)
		if err != nil {
			t.Fatal(err)
		}
		var mean float64
		for i := 10; i < 100; i++ {
			mean += tv[i] / 90
		}
		if mean < c.lo || mean > c.hi {
			t.Errorf("n = %d: mean TV^ over U = %v, want in [%v, %v]", c.n, mean, c.lo, c.hi)
		}
	}
	if _, err := SyntheticCov(10, 10); err == nil {
		t.Error("m_s = m accepted")
	}
	if _, err := NewSynthetic(10, 10, 2, 1, nil); err == nil {
		t.Error("nil rng accepted")
	}
}
