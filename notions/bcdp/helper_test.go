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
