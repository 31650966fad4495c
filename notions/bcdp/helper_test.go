package bcdp

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/data"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// FuzzEstimateMeansInBounds checks EstimateMeans on any data inside its
// public Bounds (the class of inputs behind the second-moment defect: n
// rows of ±1 summed to a second moment of 1 + ulp, which was rejected):
// it must succeed, with every true mean inside the bounds and finite
// errors.
func FuzzEstimateMeansInBounds(f *testing.F) {
	f.Add(uint16(200), uint64(1), 0.0, true)
	f.Add(uint16(1), uint64(2), -3.5, false)
	f.Add(uint16(77), uint64(3), 1e6, true)
	f.Fuzz(func(t *testing.T, n uint16, seed uint64, lo float64, pm1 bool) {
		if n == 0 || n > 500 || math.IsNaN(lo) || math.Abs(lo) > 1e12 {
			return
		}
		rng := rand.New(rand.NewPCG(seed, 9))
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i] = float64(2*rng.IntN(2) - 1) // ±1
			b[i] = lo + 10*rng.Float64()
			if pm1 {
				b[i] = lo + 10*float64(rng.IntN(2))
			}
		}
		df := dataframe.New(series.New(a, series.Float, "a"), series.New(b, series.Float, "b"))
		schema := data.Schema{Task: data.Unsupervised, Columns: []data.Column{
			{Name: "a", Role: data.Sensitive, Kind: data.Continuous}, {Name: "b", Role: data.Public, Kind: data.Continuous}}}
		bounds := map[string]data.Range{"a": {Lo: -1, Hi: 1}, "b": {Lo: lo, Hi: lo + 10}}
		r, err := EstimateMeans(context.Background(), df, schema, MeanEstimationOptions{
			Levels: map[string]float64{"a": 0.5}, Eps: 2, Q: 0.1, Bounds: bounds, Trials: 2, Seed: seed, Workers: 1})
		if err != nil {
			t.Fatalf("n = %d, data inside the bounds: %v", n, err)
		}
		for j, c := range r.Columns {
			bd := bounds[c]
			if !(r.TrueMean[j] >= bd.Lo-1e-9*math.Abs(bd.Lo)-1e-9 && r.TrueMean[j] <= bd.Hi+1e-9*math.Abs(bd.Hi)+1e-9) ||
				math.IsNaN(r.MC[j]) || math.IsNaN(r.Predicted[j]) {
				t.Fatalf("column %s: mean %v outside %+v, MC %v, predicted %v", c, r.TrueMean[j], bd, r.MC[j], r.Predicted[j])
			}
		}
	})
}

// The losses of a mean estimation are the levels it reports: LDP level
// LDPLevel (replace-one) and the allocation C per column (coordinate),
// never below them and within 1e-12 relative (ledger sums rounded up).
func TestMeanEstimationLosses(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	n := 50
	a, b, c := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range a {
		a[i], b[i], c[i] = float64(2*rng.IntN(2)-1), rng.Float64(), 10*rng.Float64()
	}
	df := dataframe.New(series.New(a, series.Float, "a"), series.New(b, series.Float, "b"), series.New(c, series.Float, "c"))
	schema := data.Schema{Task: data.Unsupervised, Columns: []data.Column{
		{Name: "a", Role: data.Sensitive, Kind: data.Continuous}, {Name: "b", Role: data.Sensitive, Kind: data.Continuous},
		{Name: "c", Role: data.Public, Kind: data.Continuous}}}
	r, err := EstimateMeans(context.Background(), df, schema, MeanEstimationOptions{
		Levels: map[string]float64{"a": 0.3, "b": 0.6}, Eps: 2, Q: 0.05, Trials: 2, Seed: 1, Workers: 1,
		Bounds: map[string]data.Range{"a": {Lo: -1, Hi: 1}, "b": {Lo: 0, Hi: 1}, "c": {Lo: 0, Hi: 10}}})
	if err != nil {
		t.Fatal(err)
	}
	local, cols, err := r.Losses()
	if err != nil {
		t.Fatal(err)
	}
	if got := pureEps(t, local, accounting.RelationReplaceOne); !closeAbove(got, r.LDPLevel) {
		t.Errorf("LDP ε = %v, LDPLevel %v", got, r.LDPLevel)
	}
	if len(cols) != len(r.Columns) {
		t.Fatalf("%d column losses for %v", len(cols), r.Columns)
	}
	for j, l := range cols {
		if got := pureEps(t, l, accounting.RelationCoordinate); !closeAbove(got, r.C[j]) || !strings.HasPrefix(l.String(), r.Columns[j]+":") {
			t.Errorf("column %s: loss %v, ε = %v, want c = %v", r.Columns[j], l, got, r.C[j])
		}
	}
	var nilResult *MeanEstimation
	if _, _, err := nilResult.Losses(); err == nil {
		t.Error("nil result accepted")
	}
}

// copyFrame is n users whose Public column b copies the Sensitive column a
// (±1): the prior of Assumption 1 with q = 1.
func copyFrame(n int) (dataframe.DataFrame, data.Schema) {
	a := make([]float64, n)
	for i := range a {
		a[i] = float64(2*(i%2) - 1)
	}
	df := dataframe.New(series.New(a, series.Float, "a"), series.New(a, series.Float, "b"))
	schema := data.Schema{Task: data.Unsupervised, Columns: []data.Column{
		{Name: "a", Role: data.Sensitive, Kind: data.Continuous}, {Name: "b", Role: data.Public, Kind: data.Continuous}}}
	return df, schema
}

// Q has no default: an unset Q used to be q = 0 (independent coordinates,
// the weakest assumption) without a word; it is now an error naming the
// fix, and q = 0 must be stated with IndependentCoordinates.
func TestEstimateMeansQRequired(t *testing.T) {
	df, schema := copyFrame(8)
	for _, tc := range []struct {
		name        string
		q           float64
		independent bool
		want        string // error substring; "" = accepted
	}{
		{"Q unset", 0, false, "give Q"},
		{"Q unset names q = 0", 0, false, "IndependentCoordinates for q = 0"},
		{"IndependentCoordinates with Q > 0", 0.3, true, "IndependentCoordinates means q = 0"},
		{"Q above 1", 1.5, false, "q"},
		{"Q NaN", math.NaN(), false, "q"},
		{"IndependentCoordinates", 0, true, ""},
		{"Q = 1, the baseline", 1, false, ""},
		{"Q = 0.2", 0.2, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := EstimateMeans(context.Background(), df, schema, MeanEstimationOptions{Levels: map[string]float64{"a": 0.2}, Eps: 2,
				Q: tc.q, IndependentCoordinates: tc.independent, Bounds: map[string]data.Range{"a": {Lo: -1, Hi: 1}, "b": {Lo: -1, Hi: 1}}, Trials: 1})
			switch {
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one containing %q", err, tc.want)
			case tc.want == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.want == "" && (r.Allocation.Q != tc.q || r.Options.Q != tc.q):
				t.Errorf("allocated with q = %v (options %v), want %v", r.Allocation.Q, r.Options.Q, tc.q)
			}
		})
	}
}

// With q = 1 on data where b copies a, Mechanism 1 keeps the demanded δ_a:
// the Monte Carlo lower bound on δ*_a under the copy prior stays below it
// (under q = 0, the old default, it was about c_d = 2).
func TestEstimateMeansCopyPriorKeepsLevel(t *testing.T) {
	df, schema := copyFrame(8)
	const level = 0.2
	r, err := EstimateMeans(context.Background(), df, schema, MeanEstimationOptions{Levels: map[string]float64{"a": level}, Eps: 2,
		Q: 1, Bounds: map[string]data.Range{"a": {Lo: -1, Hi: 1}, "b": {Lo: -1, Hi: 1}}, Trials: 1})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMean(r.C, MeanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dom := [][]float64{{-1, -1}, {1, 1}, {-1, 1}, {1, -1}}
	lb, err := MeanAuditMC(m, dom, []float64{0.5, 0.5, 0, 0}, 4000, rand.New(rand.NewPCG(7, 8)))
	if err != nil {
		t.Fatal(err)
	}
	if lb[0] > level+1e-9 {
		t.Errorf("δ*_a ≥ %v under the copy prior, demanded %v (c = %v)", lb[0], level, r.C)
	}
}

// Levels or ε so small that the Duchi radius overflows (or the allocation
// rounds to c = 0) fail before the simulation, naming the levels; they
// used to fail after it with "every level is 0" or "zero total weight", or
// to return infinite radii.
func TestEstimateMeansTinyLevels(t *testing.T) {
	df, schema := copyFrame(4)
	for _, tc := range []struct {
		name        string
		level, eps  float64
		q           float64
		independent bool
	}{
		{"q = 0: the radius overflows", 1e-310, 1e-310, 0, true},
		{"q > 0: the allocation rounds to 0", 1e-310, 1e-310, 0.5, false},
		{"tiny ε only", 0.2, 1e-310, 0.5, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := EstimateMeans(context.Background(), df, schema, MeanEstimationOptions{Levels: map[string]float64{"a": tc.level}, Eps: tc.eps,
				Q: tc.q, IndependentCoordinates: tc.independent, Bounds: map[string]data.Range{"a": {Lo: -1, Hi: 1}, "b": {Lo: -1, Hi: 1}},
				Trials: MaxTrials})
			if err == nil || !strings.Contains(err.Error(), "too small") || !strings.Contains(err.Error(), "raise ε or the smallest level") {
				t.Errorf("error %v, want one saying the levels are too small", err)
			}
		})
	}
}
