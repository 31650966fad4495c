package dpnb

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"
	corrdpseries "github.com/go-gota/gota/series"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/notions/corrdp"
)

// corrdpUserFrame is a small user table: public region and age, sensitive
// smoker (depends on region) and income (depends on age).
func corrdpUserFrame(n int) (dataframe.DataFrame, data.Schema) {
	r := rand.New(rand.NewPCG(5, 6))
	region := make([]string, n)
	smoker := make([]string, n)
	age, income := make([]float64, n), make([]float64, n)
	y := make([]string, n)
	for i := 0; i < n; i++ {
		north := r.IntN(2) == 0
		region[i] = "south"
		p := 0.2
		if north {
			region[i], p = "north", 0.5
		}
		age[i] = 20 + 60*r.Float64()
		income[i] = 30 + 0.5*age[i] + 10*r.NormFloat64()
		s := r.Float64() < p
		smoker[i] = "no"
		z := -2 + 0.04*age[i] + 0.3*r.NormFloat64()
		if s {
			smoker[i] = "yes"
			z += 1.5
		}
		y[i] = "no"
		if z > 0 {
			y[i] = "yes"
		}
	}
	df := dataframe.New(corrdpseries.New(region, corrdpseries.String, "region"), corrdpseries.New(age, corrdpseries.Float, "age"),
		corrdpseries.New(smoker, corrdpseries.String, "smoker"), corrdpseries.New(income, corrdpseries.Float, "income"),
		corrdpseries.New(y, corrdpseries.String, "y"))
	schema := data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "region", Role: data.Public, Kind: data.Categorical, Levels: []string{"north", "south"}},
		{Name: "age", Role: data.Public},
		{Name: "smoker", Role: data.Sensitive, Kind: data.Categorical, Levels: []string{"no", "yes"}},
		{Name: "income", Role: data.Sensitive},
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"no", "yes"}},
	}}
	return df, schema
}

// corrdpEncode is the encoding of corrdpUserFrame with public bounds.
func corrdpEncode() data.EncodeOptions {
	return data.EncodeOptions{Scale: data.MinMax, Bounds: map[string]data.Range{"age": {Lo: 20, Hi: 80}, "income": {Lo: 0, Hi: 120}}}
}

func TestCorrDPvsSemiVsStandard(t *testing.T) {
	df, schema := corrdpUserFrame(800)
	res, err := CorrDPvsSemiVsStandard(context.Background(), df, schema, CorrDPOptions{Encode: corrdpEncode(),
		Eps: []float64{0.5, 5}, Seeds: 2, Steps: 200, C: 0.01, Workers: 2,
		TV: map[string]float64{"region": 0.3, "age": 0.5},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.C != 0.01 || len(res.TVReport.Features) != 2 {
		t.Errorf("C = %v, %d TV features", res.C, len(res.TVReport.Features))
	}
	if res.TVUsed["region"] != 0.3 || res.TVEstimated["age"] <= 0 {
		t.Errorf("TV used %v, estimated %v", res.TVUsed, res.TVEstimated)
	}
	methods := map[string]bool{}
	for _, r := range res.Results.Rows {
		methods[r.Method] = true
		if r.Metric != "accuracy" || math.IsNaN(r.Value) || r.Value < 0 || r.Value > 1 {
			t.Fatalf("row %+v", r)
		}
	}
	for _, m := range []string{"CorrDP", "Semi", "Standard", "NonPrivate"} {
		if !methods[m] {
			t.Errorf("method %s missing", m)
		}
	}
	if _, err := res.Plot(); err != nil {
		t.Error(err)
	}
	if md := res.Markdown(); !strings.Contains(md, "TV report") || !strings.Contains(md, "region") || !strings.Contains(md, "no ε accounted") || strings.Contains(md, "C was picked") || res.CTuned {
		t.Errorf("markdown: %s", md)
	}
	if res.TVTable().Nrow() != 2 {
		t.Error("TV table")
	}
	// The exported table says on every row what was read from the data.
	if col := res.Table().Col(FromDataColumn); col.Err != nil || col.Elem(0).String() != "CorrDP's TVs estimated on this data" {
		t.Errorf("table marker: %v %v", col.Err, col)
	}
	// Calibrated C (Standard-only rule) and estimated TVs only.
	res2, err := CorrDPvsSemiVsStandard(context.Background(), df, schema, CorrDPOptions{Encode: corrdpEncode(), Eps: []float64{1}, Seeds: 1, Steps: 100, Workers: 1})
	if err != nil || !(res2.C > 0) {
		t.Fatalf("calibrated C = %v, %v", res2.C, err)
	}
	if col := res2.Table().Col(FromDataColumn); !res2.CTuned || !strings.Contains(col.Elem(0).String(), "noise constant C picked on this data") {
		t.Errorf("tuned C not marked: %v", col)
	}
	if _, err := CorrDPvsSemiVsStandard(context.Background(), df, schema, CorrDPOptions{Encode: corrdpEncode(), Eps: []float64{-1}}); err == nil {
		t.Error("ε < 0 accepted")
	}
	if _, err := CorrDPvsSemiVsStandard(context.Background(), df, schema, CorrDPOptions{Encode: corrdpEncode(), TV: map[string]float64{"region": 2, "age": 0}}); err == nil {
		t.Error("TV > 1 accepted")
	}
}

// A label whose rows all fall in one class is rejected with a descriptive
// error (the old helper accepted it and trained every method).
// The comparison is a seeded experiment: Secure mode is refused with a
// reason, not silently seeded.
func TestCorrDPvsSemiVsStandardSecureRefused(t *testing.T) {
	df, schema := corrdpUserFrame(200)
	_, err := CorrDPvsSemiVsStandard(context.Background(), df, schema, CorrDPOptions{Encode: corrdpEncode(), Eps: []float64{1}, Seeds: 1, Steps: 10, C: 0.01, Mode: mechanisms.Secure})
	if err == nil || !strings.Contains(err.Error(), "only the Reproducible mode") {
		t.Errorf("Secure mode: %v", err)
	}
}

func TestCorrDPvsSemiVsStandardSingleClass(t *testing.T) {
	df, schema := corrdpUserFrame(300)
	ys := make([]string, df.Nrow())
	for i := range ys {
		ys[i] = "no"
	}
	df = df.Mutate(corrdpseries.New(ys, corrdpseries.String, "y"))
	_, err := CorrDPvsSemiVsStandard(context.Background(), df, schema, CorrDPOptions{Encode: corrdpEncode(), Eps: []float64{1}, Seeds: 1, Steps: 20, C: 0.01, Workers: 1})
	if err == nil || !strings.Contains(err.Error(), "fewer than 2 classes") {
		t.Fatalf("single-class label: err = %v, want a \"fewer than 2 classes\" error", err)
	}
}

// The one-call helper's report does not claim a profile: its T, grid and
// seeds come from the options.
func TestCorrDPvsSemiVsStandardNoProfile(t *testing.T) {
	df, schema := corrdpUserFrame(300)
	res, err := CorrDPvsSemiVsStandard(context.Background(), df, schema, CorrDPOptions{Encode: corrdpEncode(), Eps: []float64{1}, Seeds: 1, Steps: 20, C: 0.01, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if md := res.Markdown(); strings.Contains(md, "profile:") {
		t.Errorf("report mentions a profile:\n%s", md)
	}
	if res.C != 0.01 {
		t.Errorf("C = %v, want 0.01", res.C)
	}
}

// Options the comparison cannot honour are errors: an ε listed twice (one
// run shown as two seeds), negative or huge Seeds, a NaN C or Alpha.
func TestCorrDPvsSemiVsStandardBadOptions(t *testing.T) {
	df, schema := corrdpUserFrame(200)
	for name, o := range map[string]CorrDPOptions{
		"ε twice":      {Eps: []float64{1, 1}},
		"Seeds -1":     {Seeds: -1},
		"Seeds 10^6":   {Seeds: 1_000_000},
		"C NaN":        {C: math.NaN()},
		"Alpha +Inf":   {Alpha: math.Inf(1)},
		"Neighbours 7": {Neighbours: corrdp.TVScope(7)},
		"TV misspelt":  {TV: map[string]float64{"region": 0.3, "age": 0.2, "agee": 0.9}},
		"TV sensitive": {TV: map[string]float64{"region": 0.3, "age": 0.2, "smoker": 1}},
		"TV label":     {TV: map[string]float64{"region": 0.3, "age": 0.2, "y": 1}},
	} {
		o.Encode, o.Steps = corrdpEncode(), 5
		if _, err := CorrDPvsSemiVsStandard(context.Background(), df, schema, o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
