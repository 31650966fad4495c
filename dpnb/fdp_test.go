package dpnb

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/data"
	"github.com/go-gota/gota/dataframe"
	fdpseries "github.com/go-gota/gota/series"
)

// fdpPatients is a small table with a public, a sensitive and a label column.
func fdpPatients(n int) (dataframe.DataFrame, data.Schema) {
	rng := rand.New(rand.NewPCG(3, 4))
	age, smoker, y := make([]float64, n), make([]string, n), make([]string, n)
	for i := range n {
		age[i] = 20 + 60*rng.Float64()
		s := rng.Float64() < 0.3
		smoker[i] = map[bool]string{true: "yes", false: "no"}[s]
		logit := 0.05*(age[i]-50) - 1
		if s {
			logit += 2.5
		}
		y[i] = map[bool]string{true: "yes", false: "no"}[rng.Float64() < 1/(1+math.Exp(-logit))]
	}
	df := dataframe.New(fdpseries.New(age, fdpseries.Float, "age"), fdpseries.New(smoker, fdpseries.String, "smoker"),
		fdpseries.New(y, fdpseries.String, "y"))
	schema := data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "age", Role: data.Public, Kind: data.Continuous},
		{Name: "smoker", Role: data.Sensitive, Kind: data.Categorical, Levels: []string{"no", "yes"}},
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"no", "yes"}},
	}}
	return df, schema
}

func TestFDPFeatureDPvsDP(t *testing.T) {
	df, schema := fdpPatients(1200)
	cfg := FeatureDPConfig{Schema: schema, Encode: data.EncodeOptions{DropFirst: true, Scale: data.MinMax,
		Bounds: map[string]data.Range{"age": {Lo: 20, Hi: 80}}}, Eps: []float64{1, 8}, Steps: 100, Seeds: 2, Seed: 1}
	res, err := FeatureDPvsDP(context.Background(), df, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Multipliers) != 2 || !(res.Multipliers[0] > res.Multipliers[1]) {
		t.Errorf("multipliers %v", res.Multipliers)
	}
	if res.Table().Nrow() != 8 {
		t.Errorf("table has %d rows", res.Table().Nrow())
	}
	if len(res.Bounds) != 2 || res.Bounds[0].Ball != 0.5 || res.Bounds[1].Bound != 1 {
		t.Errorf("bounds %+v", res.Bounds)
	}
	md := res.Markdown()
	if !strings.Contains(md, "FDP-Alg1") || !strings.Contains(md, "smoker") {
		t.Errorf("markdown: %s", md)
	}
	if _, err := res.Plot(); err != nil {
		t.Fatal(err)
	}
	// Equal ε for DP and FDP-Alg1.
	for _, row := range res.Results.Rows {
		if row.Method == "DP" || row.Method == "FDP-Alg1" {
			if row.Extra["epsilon_spent"] == "" {
				t.Fatal("no ε")
			}
		}
	}
	bad := cfg
	bad.Eps = []float64{-1}
	if _, err := FeatureDPvsDP(context.Background(), df, bad); err == nil {
		t.Error("negative ε accepted")
	}
	bad = cfg
	bad.Delta = 2
	if _, err := FeatureDPvsDP(context.Background(), df, bad); err == nil {
		t.Error("δ = 2 accepted")
	}
}

func ExampleFeatureDPvsDP() {
	df, schema := fdpPatients(1000) // age public, smoker sensitive, y the label
	res, err := FeatureDPvsDP(context.Background(), df, FeatureDPConfig{
		Schema: schema,
		Encode: data.EncodeOptions{DropFirst: true, Scale: data.MinMax, Bounds: map[string]data.Range{"age": {Lo: 20, Hi: 80}}},
		Eps:    []float64{1, 4},
		Seeds:  2,
	})
	if err != nil {
		panic(err)
	}
	_ = res.Markdown() // accuracy per method and ε, z, and the Thm 4 bound for "smoker"
}
