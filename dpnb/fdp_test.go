package dpnb

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
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
		Bounds: map[string]data.Range{"age": {Lo: 20, Hi: 80}}}, Eps: []float64{1, 8}, Steps: 100, Seeds: 2, Seed: 1,
		Ball: map[string]float64{"smoker": 0.5}}
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
	if !strings.Contains(md, "Ball is the prior you gave") {
		t.Errorf("the markdown does not say where Ball came from: %s", md)
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
	cont.Eps, cont.Seeds, cont.Ball = []float64{8}, 1, nil
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

// fdpGoldenCase is one small fixed-seed run of FeatureDPvsDP whose rows
// are pinned by TestFeatureDPvsDPGolden.
type fdpGoldenCase struct {
	name   string
	df     dataframe.DataFrame
	schema data.Schema
	opts   FeatureDPOptions
}

// fdpGoldenCases covers the three models (logistic, MLP, softmax) and a
// given Rate and Ball.
func fdpGoldenCases() []fdpGoldenCase {
	df, schema := fdpPatients(400)
	enc := data.EncodeOptions{DropFirst: true, Scale: data.MinMax, Bounds: map[string]data.Range{"age": {Lo: 20, Hi: 80}}}
	df3, schema3 := fdpThreeClass(300)
	return []fdpGoldenCase{
		{"logistic", df, schema, FeatureDPOptions{Encode: enc, Eps: []float64{0.25, 4}, Steps: 30, Seeds: 2, Seed: 7, Ball: map[string]float64{"smoker": 0.5}}},
		{"mlp", df, schema, FeatureDPOptions{Encode: enc, Eps: []float64{2, 0.5}, Steps: 20, Seeds: 1, Seed: 8, Hidden: 3,
			Rate: 0.1, Ball: map[string]float64{"smoker": 0.7}, Alpha: 0.5, Clip: 2, LR: 0.5}},
		{"softmax", df3, schema3, FeatureDPOptions{Encode: enc, Eps: []float64{3}, Steps: 25, Seeds: 1, Seed: 9, TestFraction: 0.3, Ball: map[string]float64{"smoker": 0.5}}},
	}
}

// fdpThreeClass is fdpPatients with a three-class label (softmax regression).
func fdpThreeClass(n int) (dataframe.DataFrame, data.Schema) {
	df, schema := fdpPatients(n)
	rng := rand.New(rand.NewPCG(5, 6))
	age := df.Col("age").Float()
	y := make([]string, n)
	for i := range y {
		k := int((age[i]-20)/20 + 0.5*rng.NormFloat64() + 0.5)
		y[i] = []string{"low", "mid", "high"}[max(0, min(2, k))]
	}
	df = df.Mutate(fdpseries.New(y, fdpseries.String, "y"))
	schema.Columns = append([]data.Column(nil), schema.Columns...)
	schema.Columns[2].Levels = []string{"high", "low", "mid"}
	return df, schema
}

// fdpGoldenLines formats every row of res (method, ε, seed, accuracy, ε
// spent, z), the multipliers and the bounds with full precision.
func fdpGoldenLines(res *FeatureDPResult) []string {
	var out []string
	for _, r := range res.Results.Rows {
		spent, _ := r.Number("epsilon_spent")
		z, _ := r.Number("z")
		out = append(out, fmt.Sprintf("%s ε=%v seed=%d acc=%v spent=%v z=%v", r.Method, r.X, r.Seed, r.Value, spent, z))
	}
	out = append(out, fmt.Sprintf("z=%v q=%v", res.Multipliers, res.Config.Rate))
	for _, b := range res.Bounds {
		out = append(out, fmt.Sprintf("bound %s ball=%v ε=%v %v", b.Column, b.Ball, b.Eps, b.Bound))
	}
	return out
}

// fdpGolden holds the rows of fdpGoldenCases as computed by the
// implementation of FeatureDPvsDP before its logic moved to notions/fdp
// (#26; linux/amd64, identical with and without GOEXPERIMENT=simd). The
// move must not change a bit: seeds, accuracies, ε spent, z, q, bounds.
var fdpGolden = map[string][]string{
	"logistic": {
		"NonPrivate ε=0.25 seed=3294823081896904967 acc=0.78 spent=+Inf z=0",
		"NonPrivate ε=0.25 seed=12883493690167107801 acc=0.78 spent=+Inf z=0",
		"NonPrivate ε=4 seed=3294823081896904967 acc=0.78 spent=+Inf z=0",
		"NonPrivate ε=4 seed=12883493690167107801 acc=0.78 spent=+Inf z=0",
		"Public ε=0.25 seed=3294823081896904967 acc=0.59 spent=0 z=0",
		"Public ε=0.25 seed=12883493690167107801 acc=0.59 spent=0 z=0",
		"Public ε=4 seed=3294823081896904967 acc=0.59 spent=0 z=0",
		"Public ε=4 seed=12883493690167107801 acc=0.59 spent=0 z=0",
		"DP ε=0.25 seed=4300476133288578671 acc=0.56 spent=0.2499999999999987 z=53.30833151433685",
		"DP ε=0.25 seed=3926352534492300430 acc=0.82 spent=0.2499999999999987 z=53.30833151433685",
		"DP ε=4 seed=16488374153767754989 acc=0.78 spent=3.999999999999999 z=4.359178255768563",
		"DP ε=4 seed=16908373673326742653 acc=0.78 spent=3.999999999999999 z=4.359178255768563",
		"FDP-Alg1 ε=0.25 seed=4300476133288578671 acc=0.55 spent=0.2499999999999987 z=53.30833151433685",
		"FDP-Alg1 ε=0.25 seed=3926352534492300430 acc=0.82 spent=0.2499999999999987 z=53.30833151433685",
		"FDP-Alg1 ε=4 seed=16488374153767754989 acc=0.78 spent=3.999999999999999 z=4.359178255768563",
		"FDP-Alg1 ε=4 seed=16908373673326742653 acc=0.78 spent=3.999999999999999 z=4.359178255768563",
		"z=[53.30833151433685 4.359178255768563] q=0.6666666666666666",
		"bound smoker ball=0.5 ε=0.25 0.6420227083438707",
		"bound smoker ball=0.5 ε=4 1",
	},
	"mlp": {
		"NonPrivate ε=2 seed=16095766050910057253 acc=0.59 spent=+Inf z=0",
		"NonPrivate ε=0.5 seed=16095766050910057253 acc=0.59 spent=+Inf z=0",
		"Public ε=2 seed=16095766050910057253 acc=0.59 spent=0 z=0",
		"Public ε=0.5 seed=16095766050910057253 acc=0.59 spent=0 z=0",
		"DP ε=2 seed=2161986794108437212 acc=0.73 spent=1.9999999999999998 z=1.4840841784706835",
		"DP ε=0.5 seed=14492784585685476393 acc=0.7 spent=0.49999999999999983 z=3.8729119045554037",
		"FDP-Alg1 ε=2 seed=2161986794108437212 acc=0.59 spent=1.9999999999999998 z=1.4840841784706835",
		"FDP-Alg1 ε=0.5 seed=14492784585685476393 acc=0.41 spent=0.49999999999999983 z=3.8729119045554037",
		"z=[1.4840841784706835 3.8729119045554037] q=0.1",
		"bound smoker ball=0.7 ε=2 1",
		"bound smoker ball=0.7 ε=0.5 1",
	},
	"softmax": {
		"NonPrivate ε=3 seed=9320176580604832927 acc=0.6111111111111112 spent=+Inf z=0",
		"Public ε=3 seed=9320176580604832927 acc=0.6111111111111112 spent=0 z=0",
		"DP ε=3 seed=17500570756721519279 acc=0.5777777777777777 spent=2.999999999999997 z=7.130524371264638",
		"FDP-Alg1 ε=3 seed=17500570756721519279 acc=0.6 spent=2.999999999999997 z=7.130524371264638",
		"z=[7.130524371264638] q=0.9523809523809523",
		"bound smoker ball=0.5 ε=3 1",
	},
}

// TestFeatureDPvsDPGolden pins small fixed-seed runs of the three models
// to the numbers of the pre-move implementation (fdpGolden).
func TestFeatureDPvsDPGolden(t *testing.T) {
	for _, c := range fdpGoldenCases() {
		t.Run(c.name, func(t *testing.T) {
			res, err := FeatureDPvsDP(context.Background(), c.df, c.schema, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := fdpGoldenLines(res), fdpGolden[c.name]; !slices.Equal(got, want) {
				t.Errorf("rows changed:\ngot  %q\nwant %q", got, want)
			}
		})
	}
}

// TestFeatureDPvsDPOptionErrors checks that an out-of-range option is an
// error naming the field and its range: a repeated ε used to be accepted
// (repeating the same seeded runs as if they were independent replicates),
// and Steps, Seeds, Hidden and Rate errors did not name the field.
func TestFeatureDPvsDPOptionErrors(t *testing.T) {
	df, schema := fdpPatients(200)
	for _, c := range []struct {
		name string
		edit func(*FeatureDPOptions)
		want string
	}{
		{"repeated ε", func(o *FeatureDPOptions) { o.Eps = []float64{1, 2, 1} }, "Eps[0] = Eps[2] = 1: the target ε values must be distinct"},
		{"negative steps", func(o *FeatureDPOptions) { o.Steps = -1 }, "Steps = -1, want T ≥ 1"},
		{"negative seeds", func(o *FeatureDPOptions) { o.Seeds = -2 }, "Seeds = -2"},
		{"huge hidden", func(o *FeatureDPOptions) { o.Hidden = 1 << 40 }, "Hidden = 1099511627776, want in [0, "},
		{"MLP too large", func(o *FeatureDPOptions) { o.Hidden = 1 << 23 }, "parameters; use fewer hidden units"},
		{"rate above 1", func(o *FeatureDPOptions) { o.Rate = 2 }, "Rate = 2, want the Poisson rate q in (0, 1]"},
		{"negative clip", func(o *FeatureDPOptions) { o.Clip = -1 }, "Clip = -1, want finite > 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := FeatureDPOptions{Encode: data.EncodeOptions{DropFirst: true, Scale: data.MinMax,
				Bounds: map[string]data.Range{"age": {Lo: 20, Hi: 80}}}, Eps: []float64{1}, Steps: 5, Seeds: 1}
			c.edit(&opts)
			_, err := FeatureDPvsDP(context.Background(), df, schema, opts)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "dpnb: FeatureDPvsDP: ") {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// Data whose training rows hold one class of the label is refused (every
// method would score 1), and a Bounds without MinMax scaling too (the raw
// values would be trained on).
func TestFeatureDPvsDPDegenerate(t *testing.T) {
	df, schema := fdpPatients(300)
	ys := make([]string, df.Nrow())
	for i := range ys {
		ys[i] = "no"
	}
	one := df.Mutate(fdpseries.New(ys, fdpseries.String, "y"))
	opts := FeatureDPOptions{Encode: data.EncodeOptions{DropFirst: true, Scale: data.MinMax,
		Bounds: map[string]data.Range{"age": {Lo: 20, Hi: 80}}}, Eps: []float64{1}, Steps: 5, Seeds: 1}
	if _, err := FeatureDPvsDP(context.Background(), one, schema, opts); err == nil || !strings.Contains(err.Error(), "at least 2 classes") {
		t.Errorf("one class in the data: %v", err)
	}
	opts.Encode.Scale = data.NoScaling
	if _, err := FeatureDPvsDP(context.Background(), df, schema, opts); err == nil || !strings.Contains(err.Error(), "set Scale: data.MinMax") {
		t.Errorf("Bounds without MinMax: %v", err)
	}
}
