package fdp

import (
	"math/rand/v2"
	"testing"

	"github.com/featuredp/featuredp/design"
)

// The public views keep the public columns and the labels, fill the rest,
// and reject bad column sets.
func TestSurrogates(t *testing.T) {
	d := &design.Data{X: []float64{1, 2, 3, 4, 5, 6}, Y: []float64{0, 1}, N: 2, D: 3}
	pad, err := GaussianPadding(d, []int{1}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	masked, err := ZeroMasking(d, []int{1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.N {
		if pad.X[i*3+1] != d.X[i*3+1] || masked.X[i*3+1] != d.X[i*3+1] || pad.Y[i] != d.Y[i] {
			t.Errorf("row %d: public column or label changed", i)
		}
		if masked.X[i*3] != 0 || masked.X[i*3+2] != 0 || pad.X[i*3] == d.X[i*3] {
			t.Errorf("row %d: private columns not replaced: %v / %v", i, pad.X[i*3:i*3+3], masked.X[i*3:i*3+3])
		}
	}
	cases := []error{}
	_, err = GaussianPadding(d, []int{5}, rand.New(rand.NewPCG(1, 1)))
	cases = append(cases, err)
	_, err = GaussianPadding(d, []int{1, 1}, rand.New(rand.NewPCG(1, 1)))
	cases = append(cases, err)
	_, err = GaussianPadding(d, nil, nil)
	cases = append(cases, err)
	_, err = ZeroMasking(nil, nil)
	cases = append(cases, err)
	for i, e := range cases {
		if e == nil {
			t.Errorf("case %d: no error", i)
		}
	}
}
