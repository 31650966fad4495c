package figures

import (
	"context"
	"math"
	"testing"

	"github.com/featuredp/featuredp/experiments"
)

func runFigure(t *testing.T, id string) []experiments.Summary {
	t.Helper()
	f, ok := experiments.Lookup(id)
	if !ok {
		t.Fatalf("%s not registered", id)
	}
	cells, err := f.Cells(experiments.Quick)
	if err != nil {
		t.Fatal(err)
	}
	env := experiments.Env{Profile: experiments.Quick, Workers: 2, Memo: experiments.NewMemo(0)}
	res, err := experiments.Run(context.Background(), cells, func(ctx context.Context, c experiments.Cell) ([]experiments.Measurement, error) {
		return f.Run(ctx, c, env)
	},
		experiments.RunOptions{Workers: 2, Figure: id})
	if err != nil {
		t.Fatal(err)
	}
	return experiments.SummarizeBy(res, f.GroupBy...)
}

// The analytic figures reproduce the independent reference values and
// the qualitative claims of Figure 2 (docs/smooth-rdp.md).
func TestFiguresAnalytic(t *testing.T) {
	sums := runFigure(t, "smoothdp-table2")
	f, _ := experiments.Lookup("smoothdp-table2")
	for _, pv := range f.PaperValues {
		got, ok := pv.Ours(sums)
		if !ok {
			t.Errorf("no value for %s", pv.Quantity)
			continue
		}
		if math.Abs(got-pv.Value)/pv.Value > 1e-4 {
			t.Errorf("%s: %v want %v", pv.Quantity, got, pv.Value)
		}
	}
	get := func(sums []experiments.Summary, m string, x float64) float64 {
		s, ok := experiments.FindSummary(sums, m, x, "epsilon")
		if !ok {
			t.Fatalf("missing %s at %v", m, x)
		}
		return s.Mean
	}
	// (a) quantization: SRDP ≪ group for small r; group flat in r.
	q := runFigure(t, "smoothdp-fig2-quantization")
	if !(get(q, "SRDP tight", 0.001) < get(q, "group privacy", 0.001)/5 && get(q, "group privacy", 0.001) == get(q, "group privacy", 1)) {
		t.Error("Fig 2(a) claim not reproduced")
	}
	// (c) PCA: SRDP constant in n (for n > 48), group grows.
	p := runFigure(t, "smoothdp-fig2-pca")
	if get(p, "SRDP tight", 100) != get(p, "SRDP tight", 100000) || !(get(p, "group privacy", 100000) > 100*get(p, "group privacy", 100)) {
		t.Error("Fig 2(c) claim not reproduced")
	}
	if !(get(p, "group privacy", 10) < get(p, "SRDP tight", 10)) {
		t.Error("Fig 2(c): at n = 10 group privacy should win")
	}
}

// Same seeds ⇒ bit-identical results whatever the worker count (fig3 draws
// data, DP-PCA and DP-GD noise from cell streams).
func TestFig3Determinism(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	f, _ := experiments.Lookup("smoothdp-fig3")
	cells, _ := f.Cells(experiments.Quick)
	cells = cells[:len(cells)/3]
	run := func(w int) *experiments.Results {
		env := experiments.Env{Profile: experiments.Quick, Workers: w, Memo: experiments.NewMemo(0)}
		res, err := experiments.Run(context.Background(), cells, func(ctx context.Context, c experiments.Cell) ([]experiments.Measurement, error) {
			return f.Run(ctx, c, env)
		},
			experiments.RunOptions{Workers: w, Figure: f.ID})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(1), run(2)
	if len(a.Rows) != len(b.Rows) {
		t.Fatalf("%d vs %d rows", len(a.Rows), len(b.Rows))
	}
	for i := range a.Rows {
		va, vb := a.Rows[i].Value, b.Rows[i].Value
		if va != vb && !(math.IsNaN(va) && math.IsNaN(vb)) {
			t.Fatalf("row %d differs: %v vs %v", i, va, vb)
		}
	}
}

// Proposition 8 beside smoothdp-fig3 (quick): at every ε the mean excess
// risk of the two non-private-PCA pipelines is below the mean of the bound
// (constants 1), and the bound's DP-GD ε is below the overall ε (the
// pre-processing only adds).
func TestFig3Prop8Bound(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	sums := runFigure(t, "smoothdp-fig3")
	bound := map[float64]float64{}
	for _, s := range sums {
		if s.Method == fig3Prop8.String() && s.Metric == "excess_risk" {
			bound[s.X] = s.Mean
		}
	}
	if len(bound) != len(fig3Eps(experiments.Quick)) {
		t.Fatalf("bounds at %d ε", len(bound))
	}
	for _, s := range sums {
		if s.Metric != "excess_risk" || (s.Method != fig3PCAPaper.String() && s.Method != fig3PCATight.String()) {
			continue
		}
		if !(s.Mean <= bound[s.X]) {
			t.Errorf("%s ε = %v: mean excess risk %v above the Prop 8 bound %v", s.Method, s.X, s.Mean, bound[s.X])
		}
	}
	set := fig3Set(experiments.Quick)
	ds, err := fig3Dataset(context.Background(), experiments.Env{}, set, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, eps := range fig3Eps(experiments.Quick) {
		if _, epsGD, err := fig3Prop8Bound(set, ds, eps); err != nil || !(epsGD > 0 && epsGD <= eps) {
			t.Errorf("ε = %v: DP-GD's own ε %v (%v)", eps, epsGD, err)
		}
	}
}
