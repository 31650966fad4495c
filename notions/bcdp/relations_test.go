package bcdp

import "testing"

// The relations of the paper's Figure 1 hold for the exact parameters of
// randomized response over a grid of levels and priors, and Check catches
// a violated one.
func TestNotionRelations(t *testing.T) {
	for _, c := range [][]float64{{0.5, 1, 1}, {0.2, 2}, {1, 1, 1, 1}, {0, 0.7}} {
		for _, q := range []float64{0, 0.1, 0.5, 1} {
			r, err := NotionRelations(c, q)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Check(); err != nil {
				t.Errorf("c = %v, q = %v: %v", c, q, err)
			}
		}
	}
	r, _ := NotionRelations([]float64{0.5, 1, 1}, 0.3)
	r.BCDP[1] = r.LDP + 0.1
	if r.Check() == nil {
		t.Error("a δ* above ε_L passed Check")
	}
	if _, err := NotionRelations(nil, 0.3); err == nil {
		t.Error("no coordinates accepted")
	}
}
