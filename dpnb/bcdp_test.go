package dpnb

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/notions/bcdp"
	"github.com/go-gota/gota/dataframe"
	bcdpseries "github.com/go-gota/gota/series"
)

// bcdpTestFrame: n users, two sensitive ±1 columns and three others in
// [0, 10], correlated through a shared bit with probability q.
func bcdpTestFrame(n int, q float64) dataframe.DataFrame {
	rng := rand.New(rand.NewPCG(4, 2))
	cols := make([][]float64, 5)
	for j := range cols {
		cols[j] = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		shared := rng.Float64() < q
		b := float64(2*rng.IntN(2) - 1)
		for j := range cols {
			v := b
			if !shared {
				v = float64(2*rng.IntN(2) - 1)
			}
			if j >= 2 {
				v = 5 + 5*v*rng.Float64()
			}
			cols[j][i] = v
		}
	}
	return dataframe.New(
		bcdpseries.New(cols[0], bcdpseries.Float, "hiv"), bcdpseries.New(cols[1], bcdpseries.Float, "smoker"),
		bcdpseries.New(cols[2], bcdpseries.Float, "age"), bcdpseries.New(cols[3], bcdpseries.Float, "bmi"),
		bcdpseries.New(cols[4], bcdpseries.Float, "income"))
}

// bcdpTestSchema: the two ±1 columns are Sensitive, the three others
// Public (no coordinate-specific demand beyond ε).
func bcdpTestSchema() data.Schema {
	s := data.Schema{Task: data.Unsupervised}
	for _, c := range []string{"hiv", "smoker"} {
		s.Columns = append(s.Columns, data.Column{Name: c, Role: data.Sensitive})
	}
	for _, c := range []string{"age", "bmi", "income"} {
		s.Columns = append(s.Columns, data.Column{Name: c, Role: data.Public})
	}
	return s
}

func bcdpTestOptions() BCDPMeanOptions {
	return BCDPMeanOptions{
		Levels: map[string]float64{"hiv": 0.2, "smoker": 0.2},
		Eps:    2, Q: 0.01, Trials: 60, Seed: 1,
		Bounds: map[string]data.Range{"hiv": {Lo: -1, Hi: 1}, "smoker": {Lo: -1, Hi: 1},
			"age": {Lo: 0, Hi: 10}, "bmi": {Lo: 0, Hi: 10}, "income": {Lo: 0, Hi: 10}},
	}
}

func TestBCDPMeanEstimation(t *testing.T) {
	ctx := context.Background()
	df := bcdpTestFrame(4000, 0.01)
	r, err := BCDPMeanEstimation(ctx, df, bcdpTestSchema(), bcdpTestOptions())
	if err != nil {
		t.Fatal(err)
	}
	if r.Columns[0] != "hiv" || r.C[0] > 0.2 || r.LDPLevel > 2 || r.Baseline != 0.2 {
		t.Errorf("allocation %v, LDP %v, baseline %v", r.C, r.LDPLevel, r.Baseline)
	}
	// Predicted (unprojected) vs Monte Carlo (box-projected): same order of
	// magnitude, and BCDP beats the baseline at small q.
	pb, pl, mb, ml := bcdpSum(r.Predicted), bcdpSum(r.PredictedBaseline), bcdpSum(r.MC), bcdpSum(r.MCBaseline)
	if !(pb < pl && mb < ml) {
		t.Errorf("BCDP should beat the baseline at q = 0.01: predicted %v vs %v, MC %v vs %v", pb, pl, mb, ml)
	}
	if mb > 1.5*pb || mb < pb/5 {
		t.Errorf("MC %v far from predicted %v", mb, pb)
	}
	if tb := r.Table(); tb.Nrow() != 5 || tb.Ncol() != 10 {
		t.Errorf("table %d×%d", tb.Nrow(), tb.Ncol())
	}
	if _, err := r.Plot(); err != nil {
		t.Error(err)
	}
	if md := r.Markdown(); !strings.Contains(md, "Allocation") || !strings.Contains(md, "not a private release") || !strings.Contains(md, "simulation from seed 1") ||
		!strings.Contains(md, "q = 0.01 (assumed") {
		t.Error(md)
	}
	// Secure mode: the releases draw from the OS CSPRNG (two runs differ)
	// and the report says so.
	sec := bcdpTestOptions()
	sec.Mode, sec.Trials = mechanisms.Secure, 2
	s1, err := BCDPMeanEstimation(ctx, df, bcdpTestSchema(), sec)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := BCDPMeanEstimation(ctx, df, bcdpTestSchema(), sec)
	if reflect.DeepEqual(s1.Estimate, s2.Estimate) || !strings.Contains(s1.Markdown(), "CSPRNG") ||
		!strings.Contains(s1.Markdown(), "Only the first BCDP estimate (Estimate) is the") {
		t.Errorf("secure releases identical or report silent: %v", s1.Markdown())
	}
	one := bcdpTestOptions()
	one.Workers = 1
	r2, _ := BCDPMeanEstimation(ctx, df, bcdpTestSchema(), one)
	for j := range r.MC {
		if r.MC[j] != r2.MC[j] || r.Estimate[j] != r2.Estimate[j] {
			t.Fatal("not deterministic (or depends on the number of workers)")
		}
	}
}

// A misspelt or unknown key in Levels or Bounds is an error naming the key
// (it used to be silently ignored for Bounds).
func TestBCDPMeanEstimationUnknownKeys(t *testing.T) {
	df := bcdpTestFrame(200, 0.01)
	cases := []struct {
		name string
		edit func(o *BCDPMeanOptions, s *data.Schema)
		key  string
	}{
		{"misspelt bound", func(o *BCDPMeanOptions, _ *data.Schema) { o.Bounds["incom"] = data.Range{Lo: 0, Hi: 10} }, `"incom"`},
		{"misspelt level", func(o *BCDPMeanOptions, _ *data.Schema) { o.Levels["smokr"] = 0.2 }, `"smokr"`},
		{"level on a Public column", func(o *BCDPMeanOptions, _ *data.Schema) { o.Levels["age"] = 1 }, `"age"`},
		{"bound on an ignored column", func(o *BCDPMeanOptions, s *data.Schema) {
			*s, _ = s.WithRole(data.Ignore, "bmi")
		}, `"bmi"`},
		{"Sensitive column without a level", func(o *BCDPMeanOptions, _ *data.Schema) { delete(o.Levels, "smoker") }, `"smoker"`},
	}
	for _, tc := range cases {
		o, s := bcdpTestOptions(), bcdpTestSchema()
		tc.edit(&o, &s)
		_, err := BCDPMeanEstimation(context.Background(), df, s, o)
		if err == nil || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("%s: error %v, want one naming %s", tc.name, err, tc.key)
		}
	}
}

func TestBCDPMeanEstimationBadInput(t *testing.T) {
	df := bcdpTestFrame(200, 0.01)
	bad := []func(c *BCDPMeanOptions){
		func(c *BCDPMeanOptions) { c.Levels = nil },
		func(c *BCDPMeanOptions) { c.Eps = 0 },
		func(c *BCDPMeanOptions) { c.Q = 2 },
		func(c *BCDPMeanOptions) { c.Q = 0 },                                     // q has no default
		func(c *BCDPMeanOptions) { c.IndependentCoordinates = true },             // with Q = 0.01
		func(c *BCDPMeanOptions) { c.Bounds["age"] = data.Range{Lo: -1, Hi: 1} }, // age is outside [−1, 1]
		func(c *BCDPMeanOptions) { c.Bounds["age"] = data.Range{Lo: 3, Hi: 1} },
		func(c *BCDPMeanOptions) { c.Trials = -1 },
		func(c *BCDPMeanOptions) { c.Trials = 1 << 62 }, // 2·Trials overflowed int: a panic in makeslice
	}
	for i, f := range bad {
		c := bcdpTestOptions()
		f(&c)
		if _, err := BCDPMeanEstimation(context.Background(), df, bcdpTestSchema(), c); err == nil {
			t.Errorf("bad options %d accepted", i)
		}
	}
	neg := bcdpTestOptions()
	neg.Levels["smoker"] = -1
	if _, err := BCDPMeanEstimation(context.Background(), df, bcdpTestSchema(), neg); err == nil || !strings.Contains(err.Error(), `Levels["smoker"] = -1`) {
		t.Errorf("a negative level does not name its column: %v", err)
	}
	nan := dataframe.New(bcdpseries.New([]float64{0.5, math.NaN()}, bcdpseries.Float, "hiv"))
	s := data.Schema{Task: data.Unsupervised, Columns: []data.Column{{Name: "hiv"}}}
	if _, err := BCDPMeanEstimation(context.Background(), nan, s, BCDPMeanOptions{Levels: map[string]float64{"hiv": 1}, Eps: 1, Q: 0.5,
		Bounds: map[string]data.Range{"hiv": {Lo: -1, Hi: 1}}}); err == nil || !strings.Contains(err.Error(), "missing value") {
		t.Errorf("NaN accepted or not named: %v", err)
	}
	if _, err := BCDPMeanEstimation(context.Background(), df, data.Schema{Task: data.Unsupervised}, bcdpTestOptions()); err == nil {
		t.Error("empty schema accepted")
	}
}

// TestBCDPWorseNote checks that the "worse" note follows the predicted and
// the simulated errors and gives the allocation's reason only when it holds.
func TestBCDPWorseNote(t *testing.T) {
	for _, c := range []struct {
		name                  string
		pred, predB, mc, mcB  float64
		c                     []float64
		want, reason, notWant string
	}{
		{"better both", 1, 2, 1, 2, []float64{0.5, 1}, "", "", "worse"},
		{"worse both, small c", 3, 2, 3, 2, []float64{0.05, 1}, "by the predicted MSE and in the simulation", "column b", ""},
		{"worse both, c ≥ min δ", 3, 2, 3, 2, []float64{0.5, 1}, "by the predicted MSE and in the simulation", "", "smaller budget"},
		{"worse predicted only", 3, 2, 1, 2, []float64{0.05, 1}, "simulation's errors happen to order them the other way", "column b", ""},
		{"worse simulated only", 1, 2, 3, 2, []float64{0.05, 1}, "more Trials would", "", "smaller budget"},
	} {
		r := BCDPMeanResult{&bcdp.MeanEstimation{Columns: []string{"a", "b"}, Scale: []float64{1, 1}, Baseline: 0.1,
			C: []float64{c.c[1], c.c[0]}, Predicted: []float64{c.pred, 0}, PredictedBaseline: []float64{c.predB, 0},
			MC: []float64{c.mc, 0}, MCBaseline: []float64{c.mcB, 0}}}
		r.Options.Trials = 100
		got := r.worseNote()
		if c.want == "" && got != "" || !strings.Contains(got, c.want) || !strings.Contains(got, c.reason) ||
			c.notWant != "" && strings.Contains(got, c.notWant) {
			t.Errorf("%s: note %q", c.name, got)
		}
	}
}

// q = 0 is stated with IndependentCoordinates, and the Markdown prints the
// q the allocation assumed.
func TestBCDPMeanEstimationIndependentCoordinates(t *testing.T) {
	o := bcdpTestOptions()
	o.Q, o.IndependentCoordinates, o.Trials = 0, true, 2
	r, err := BCDPMeanEstimation(context.Background(), bcdpTestFrame(200, 0), bcdpTestSchema(), o)
	if err != nil {
		t.Fatal(err)
	}
	if md := r.Markdown(); r.Allocation.Q != 0 || !strings.Contains(md, "q = 0 (assumed: independent coordinates)") {
		t.Errorf("q = %v; markdown:\n%s", r.Allocation.Q, md)
	}
}
