package figures

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestGenerators(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	mix, err := LabelMixture(500, 20, 5, 0.8, rng)
	if err != nil {
		t.Fatal(err)
	}
	for i := range mix.N {
		var ss float64
		for _, v := range mix.Row(i) {
			ss += v * v
		}
		if math.Abs(ss-1) > 1e-12 {
			t.Fatalf("row %d has ‖x‖² = %v", i, ss)
		}
	}
	p, err := PurchaseLike(PurchaseOptions{N: 2000}, rng)
	if err != nil {
		t.Fatal(err)
	}
	var ones float64
	for _, v := range p.X {
		if v != 0 && v != 1 {
			t.Fatalf("non-binary value %v", v)
		}
		ones += v
	}
	// Beta(0.5, 4) has mean 1/9.
	if f := ones / float64(len(p.X)); math.Abs(f-1.0/9) > 0.02 || p.D != 600 {
		t.Errorf("density %v, D %d", f, p.D)
	}
	c, vocab, err := CriteoLike(CriteoOptions{N: 20000}, rng)
	if err != nil {
		t.Fatal(err)
	}
	var clicks float64
	for _, y := range c.Y {
		clicks += y
	}
	if r := clicks / float64(c.N); math.Abs(r-0.25) > 0.02 || len(vocab) != 26 || c.D != 39 {
		t.Errorf("click rate %v, %d vocabularies, D = %d", r, len(vocab), c.D)
	}
	for i := range c.N {
		for k, v := range vocab {
			if x := c.X[i*c.D+13+k]; x < 0 || x >= float64(v) || x != math.Trunc(x) {
				t.Fatalf("category %v outside vocabulary %d", x, v)
			}
		}
	}
	tr, te, err := Split(p, 500, rng)
	if err != nil || tr.N != 1500 || te.N != 500 {
		t.Fatalf("split %v", err)
	}
}

func TestGeneratorsBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var errs []error
	_, err := LabelMixture(0, 2, 2, 1, rng)
	errs = append(errs, err)
	_, err = LabelMixture(10, 2, 2, math.NaN(), rng)
	errs = append(errs, err)
	_, err = LabelMixture(10, 2, 2, 1, nil)
	errs = append(errs, err)
	_, err = PurchaseLike(PurchaseOptions{N: 10, Mix: 2}, rng)
	errs = append(errs, err)
	_, err = PurchaseLike(PurchaseOptions{N: 10, BetaA: -1}, rng)
	errs = append(errs, err)
	_, _, err = CriteoLike(CriteoOptions{N: 10, Zipf: 0.5}, rng)
	errs = append(errs, err)
	_, _, err = CriteoLike(CriteoOptions{N: 10, BaseRate: 1}, rng)
	errs = append(errs, err)
	_, _, _, err = FashionTabular(nil, 0, 0, 0.1, rng)
	errs = append(errs, err)
	_, _, err = Split(nil, 1, rng)
	errs = append(errs, err)
	for i, e := range errs {
		if e == nil {
			t.Errorf("case %d: no error", i)
		}
	}
}
