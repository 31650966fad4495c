package dpnb

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/mechanisms"
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

func TestFeatureDPvsDP(t *testing.T) {
	df, schema := fdpPatients(1200)
	cfg := FeatureDPOptions{Encode: data.EncodeOptions{DropFirst: true, Scale: data.MinMax,
		Bounds: map[string]data.Range{"age": {Lo: 20, Hi: 80}}}, Eps: []float64{1, 8}, Steps: 100, Seeds: 2, Seed: 1}
	res, err := FeatureDPvsDP(context.Background(), df, schema, cfg)
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
	// Equal ε for DP and FDP-Alg1; only they carry a noise multiplier.
	for _, row := range res.Results.Rows {
		_, hasZ := row.Number("z")
		if row.Method == "DP" || row.Method == "FDP-Alg1" {
			if e, ok := row.Number("epsilon_spent"); !ok || !(e > 0 && e <= row.X) {
				t.Fatalf("%s: ε spent %v (%v) at target %v", row.Method, e, ok, row.X)
			}
			if !hasZ {
				t.Errorf("%s row without z", row.Method)
			}
		} else if hasZ {
			t.Errorf("%s row carries a noise multiplier", row.Method)
		}
	}
	// The baselines do not depend on ε: trained once per seed, the same
	// accuracy at every ε.
	base := map[string]float64{}
	for _, row := range res.Results.Rows {
		if row.Method != "NonPrivate" && row.Method != "Public" {
			continue
		}
		key := fmt.Sprintf("%s|%d", row.Method, row.Seed)
		if v, ok := base[key]; ok && v != row.Value {
			t.Errorf("%s seed %d: accuracy %v at ε = %v, %v at another ε", row.Method, row.Seed, row.Value, row.X, v)
		}
		base[key] = row.Value
	}
	if len(base) != 4 {
		t.Errorf("%d baseline (method, seed) pairs, want 4", len(base))
	}
	tab := res.Table()
	for i, m := range tab.Col("method").Records() {
		z := tab.Col("noise_multiplier").Float()[i]
		if private := m == "DP" || m == "FDP-Alg1"; private == math.IsNaN(z) {
			t.Errorf("table row %s: noise_multiplier %v", m, z)
		}
	}
	if len(res.NoBound) != 0 {
		t.Errorf("NoBound %v, want none", res.NoBound)
	}
	// A continuous sensitive column without Ball is reported, not bounded.
	cont, contSchema := cfg, schema
	contSchema.Columns = append([]data.Column(nil), schema.Columns...)
	contSchema.Columns[0].Role, contSchema.Columns[1].Role = data.Sensitive, data.Public
	cont.Eps, cont.Seeds = []float64{8}, 1
	r2, err := FeatureDPvsDP(context.Background(), df, contSchema, cont)
	if err != nil {
		t.Fatal(err)
	}
	if len(r2.Bounds) != 0 || len(r2.NoBound) != 1 || r2.NoBound[0].Column != "age" || !strings.Contains(r2.Markdown(), "without a bound") {
		t.Errorf("continuous column: bounds %+v, no bound %+v", r2.Bounds, r2.NoBound)
	}
	bad := cfg
	bad.Eps = []float64{-1}
	if _, err := FeatureDPvsDP(context.Background(), df, schema, bad); err == nil {
		t.Error("negative ε accepted")
	}
	bad = cfg
	bad.Delta = 2
	if _, err := FeatureDPvsDP(context.Background(), df, schema, bad); err == nil {
		t.Error("δ = 2 accepted")
	}
	// The report states the randomness; Secure mode trains from the OS
	// CSPRNG (two runs differ) and an unknown mode is an error.
	if !strings.Contains(md, "Randomness: reproducible (seeded; not a private release)") {
		t.Errorf("markdown does not state the mode: %s", md)
	}
	sec := cfg
	sec.Mode, sec.Eps, sec.Seeds = mechanisms.Secure, []float64{0.25}, 2
	a, err := FeatureDPvsDP(context.Background(), df, schema, sec)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := FeatureDPvsDP(context.Background(), df, schema, sec)
	if reflect.DeepEqual(a.Results.Rows, b.Results.Rows) || !strings.Contains(a.Markdown(), "secure (OS CSPRNG") {
		t.Error("two Secure runs gave identical rows, or the report does not say Secure")
	}
	bad = cfg
	bad.Mode = mechanisms.Mode(9)
	if _, err := FeatureDPvsDP(context.Background(), df, schema, bad); err == nil || !strings.Contains(err.Error(), "unknown mode") {
		t.Errorf("unknown mode: %v", err)
	}
	bad = cfg
	bad.Hidden, bad.Float32 = 0, true
	if _, err := FeatureDPvsDP(context.Background(), df, schema, bad); err == nil || !strings.Contains(err.Error(), "Float32") {
		t.Errorf("Float32 without an MLP: %v", err)
	}
	// A misspelt Ball key names the key (it used to be silently ignored).
	bad = cfg
	bad.Ball = map[string]float64{"smokr": 0.5}
	if _, err := FeatureDPvsDP(context.Background(), df, schema, bad); err == nil || !strings.Contains(err.Error(), `"smokr"`) {
		t.Errorf("misspelt Ball key: %v", err)
	}
}
