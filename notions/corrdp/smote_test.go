package corrdp

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/featuredp/featuredp/data"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

func imbalancedFrame(n int, r *rand.Rand) (dataframe.DataFrame, data.Schema) {
	age := make([]float64, n)
	sex := make([]string, n)
	ep := make([]string, n)
	y := make([]string, n)
	for i := range age {
		dead := r.Float64() < 0.1
		age[i] = math.Round(50 + 15*r.NormFloat64())
		if dead {
			age[i] += 15
			y[i] = "0"
		} else {
			y[i] = "1"
		}
		sex[i] = strconv.Itoa(r.IntN(2))
		ep[i] = strconv.Itoa(1 + r.IntN(3))
	}
	df := dataframe.New(series.New(age, series.Float, "age"), series.New(sex, series.String, "sex"),
		series.New(ep, series.String, "episode"), series.New(y, series.String, "y"))
	schema := data.Schema{Columns: []data.Column{
		{Name: "age"}, {Name: "sex", Role: data.Public, Kind: data.Categorical}, {Name: "episode", Role: data.Public, Kind: data.Categorical},
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"0", "1"}},
	}}
	return df, schema
}

// C21: class ratio, interpolation range, valid levels, determinism.
func TestSMOTEENN(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	df, schema := imbalancedFrame(3000, r)
	minLo, minHi := math.Inf(1), math.Inf(-1)
	ys, as := df.Col("y"), df.Col("age")
	for i := 0; i < df.Nrow(); i++ {
		if ys.Elem(i).String() == "0" {
			a := as.Elem(i).Float()
			minLo, minHi = math.Min(minLo, a), math.Max(minHi, a)
		}
	}
	sm, err := SMOTEENN(df, schema, SMOTEOptions{SkipENN: true}, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	count := func(f dataframe.DataFrame) (c0, c1 int) {
		fy := f.Col("y")
		for i := 0; i < f.Nrow(); i++ {
			if fy.Elem(i).String() == "0" {
				c0++
			} else {
				c1++
			}
		}
		return
	}
	c0, c1 := count(sm)
	if c0 != c1 {
		t.Errorf("SMOTE-NC: %d vs %d, want parity", c0, c1)
	}
	sy, sa, ss, se := sm.Col("y"), sm.Col("age"), sm.Col("sex"), sm.Col("episode")
	for i := 0; i < sm.Nrow(); i++ {
		if sy.Elem(i).String() != "0" {
			continue
		}
		a := sa.Elem(i).Float()
		if a < minLo-1e-9 || a > minHi+1e-9 {
			t.Fatalf("synthetic age %v outside the minority range [%v, %v]", a, minLo, minHi)
		}
		if s := ss.Elem(i).String(); s != "0" && s != "1" {
			t.Fatalf("invalid sex level %q", s)
		}
		if e := se.Elem(i).String(); e != "1" && e != "2" && e != "3" {
			t.Fatalf("invalid episode level %q", e)
		}
	}
	if err := schema.Validate(sm); err != nil {
		t.Errorf("output fails the schema: %v", err)
	}
	enn, err := SMOTEENN(df, schema, SMOTEOptions{}, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	e0, e1 := count(enn)
	if e0+e1 >= c0+c1 || e0 == 0 || e1 == 0 {
		t.Errorf("ENN kept %d + %d of %d", e0, e1, c0+c1)
	}
	if ratio := float64(e0) / float64(e1); ratio < 0.5 || ratio > 2 {
		t.Errorf("class ratio after ENN %v, want near 1", ratio)
	}
	again, _ := SMOTEENN(df, schema, SMOTEOptions{}, rand.New(rand.NewPCG(3, 4)))
	if again.Nrow() != enn.Nrow() {
		t.Error("not deterministic for a fixed seed")
	}
	if _, err := SMOTEENN(df, schema, SMOTEOptions{}, nil); err == nil {
		t.Error("nil rng accepted")
	}
}
