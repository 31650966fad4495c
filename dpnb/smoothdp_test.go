package dpnb

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/notions/smoothdp"
)

func TestSmoothDPPreprocCost(t *testing.T) {
	p := SmoothPipeline{Mechanism: smoothdp.MechGaussian, Delta: 1e-5,
		Params: smoothdp.MechParams{R: 1, L: 1, Delta: 1, Sigma: 10, N: 1000}}
	r, err := SmoothPreprocCost(p)
	if err != nil {
		t.Fatal(err)
	}
	// No pre-processing: the tight bound recovers the mechanism's ε (η → 0).
	if math.Abs(r.EpsTight-r.EpsIgnoring) > 1e-9 || math.Abs(r.EpsIgnoring-0.484853) > 1e-6 {
		t.Errorf("no steps: tight %v ignoring %v", r.EpsTight, r.EpsIgnoring)
	}
	p.Steps = []SmoothStep{{Name: "quantization", K: 10, Eta: 0.1}}
	r, _ = SmoothPreprocCost(p)
	if math.Abs(r.EpsConservative-0.9847) > 1e-4 || math.Abs(r.EpsGroup-5.8834) > 1e-4 || r.EpsBest != r.EpsTight {
		t.Errorf("quantization: %+v", r)
	}
	// One step is its own bound; chained steps rest on the sum rule,
	// which the report marks as unproven.
	for _, c := range []struct {
		steps   []SmoothStep
		chained bool
		label   string
	}{
		{[]SmoothStep{{Name: "quantization", K: 10, Eta: 0.1}}, false, "best valid bound"},
		{[]SmoothStep{{Name: "imputation", K: 10, Eta: 0.1}, {Name: "PCA", K: 1000, Eta: 2}}, true, "not proven for chained steps"},
	} {
		p.Steps = c.steps
		r, err := SmoothPreprocCost(p)
		if err != nil || r.Chained != c.chained || !strings.Contains(r.Markdown(), c.label) {
			t.Errorf("%d steps: chained %v (%v), want %v and %q in:\n%s", len(c.steps), r.Chained, err, c.chained, c.label, r.Markdown())
		}
	}
	if _, err := SmoothPreprocCost(SmoothPipeline{Delta: 0}); err == nil {
		t.Error("δ = 0 accepted")
	}
	st, err := SmoothMinMaxStep([][]float64{{0, 0, 1, 2, 2}, {0, 1, 2, 3, 4}}, []string{"a", "b"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Column a: extremes attained twice ⇒ c = 0; b: unique extremes ⇒ c = (1+1)/(3−1) = 1.
	if st.K != 5 || math.Abs(st.Eta-5) > 1e-12 {
		t.Errorf("min–max step: k=%d η=%v, want 5, 5", st.K, st.Eta)
	}
	st, _ = SmoothMinMaxStep([][]float64{{0, 0, 1, 2, 2}}, nil, nil, nil)
	if st.K != 0 || st.Eta != 0 {
		t.Errorf("pinned extremes: k=%d η=%v, want 0, 0", st.K, st.Eta)
	}
}

func ExampleSmoothPreprocCost() {
	r, _ := SmoothPreprocCost(SmoothPipeline{
		Steps:     []SmoothStep{{Name: "mean imputation", K: 100, Eta: smoothdp.EtaMeanImpute(1, 100, 1000)}},
		Mechanism: smoothdp.MechGaussian, Delta: 1e-5,
		Params: smoothdp.MechParams{R: 1, L: 1, Delta: 1, Sigma: 10, N: 1000},
	})
	fmt.Printf("ignoring %.3f, paper-style %.3f, tight %.3f, group %.1f\n", r.EpsIgnoring, r.EpsConservative, r.EpsTight, r.EpsGroup)
	// Output: ignoring 0.485, paper-style 1.004, tight 0.594, group 99.5
}

// TestSmoothMinMaxStepNonFinite checks that a NaN or ±Inf anywhere in a
// column is refused with its row, so the caller can find and clean it.
func TestSmoothMinMaxStepNonFinite(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		col := []float64{0, 1, bad, 3, 4}
		_, err := SmoothMinMaxStep([][]float64{{0, 1, 2, 3, 4}, col}, nil, nil, nil)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("column 1 has NaN or Inf (%v at row 2)", bad)) {
			t.Errorf("column with %v: error %v, want it to name column 1, row 2", bad, err)
		}
	}
}
