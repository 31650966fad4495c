package fdp

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
	"github.com/featuredp/featuredp/experiments"
)

// compareEncoded is a small encoded table: a public column "age", a
// sensitive column "smoker" and a binary label driven by both.
func compareEncoded(n int) *data.Encoded {
	rng := rand.New(rand.NewPCG(1, 2))
	enc := &data.Encoded{N: n, D: 2, Columns: []string{"age", "smoker=yes"}, Feature: []int{0, 1},
		Sensitive: []bool{false, true}, FeatureNames: []string{"age", "smoker"}, FeatureSensitive: []bool{false, true},
		Classes: []string{"no", "yes"}, Task: data.Classification}
	for range n {
		age, smoker := rng.Float64(), float64(rng.IntN(2))
		enc.X = append(enc.X, age, smoker)
		enc.Y = append(enc.Y, map[bool]float64{true: 1}[age+smoker+0.3*rng.NormFloat64() > 1])
	}
	return enc
}

// compareConfig is a valid configuration of a short run.
func compareConfig() CompareConfig {
	return CompareConfig{Eps: []float64{1, 4}, Delta: 1e-5, Steps: 5, Clip: 1, Alpha: 1, LR: 1, TestFraction: 0.25,
		Seeds: 2, Seed: 3, Workers: 1, Levels: map[string][]string{"smoker": {"no", "yes"}}, Ball: map[string]float64{"smoker": 0.5}}
}

// TestCompareConfigValidate checks that every out-of-range field is an
// error naming the field (a repeated ε used to be accepted and to repeat
// the same seeded runs as if they were independent replicates).
func TestCompareConfigValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*CompareConfig)
		want string
	}{
		{"no ε", func(c *CompareConfig) { c.Eps = nil }, "Eps is empty"},
		{"negative ε", func(c *CompareConfig) { c.Eps = []float64{1, -1} }, "Eps[1] = -1"},
		{"NaN ε", func(c *CompareConfig) { c.Eps = []float64{math.NaN()} }, "Eps[0] = NaN"},
		{"infinite ε", func(c *CompareConfig) { c.Eps = []float64{math.Inf(1)} }, "Eps[0] = +Inf"},
		{"repeated ε", func(c *CompareConfig) { c.Eps = []float64{1, 4, 1} }, "Eps[0] = Eps[2] = 1"},
		{"δ = 1", func(c *CompareConfig) { c.Delta = 1 }, "Delta = 1"},
		{"δ = 0", func(c *CompareConfig) { c.Delta = 0 }, "Delta = 0"},
		{"rate > 1", func(c *CompareConfig) { c.Rate = 1.5 }, "Rate = 1.5"},
		{"NaN rate", func(c *CompareConfig) { c.Rate = math.NaN() }, "Rate = NaN"},
		{"no steps", func(c *CompareConfig) { c.Steps = 0 }, "Steps = 0"},
		{"no seeds", func(c *CompareConfig) { c.Seeds = 0 }, "Seeds = 0"},
		{"too many seeds", func(c *CompareConfig) { c.Seeds = MaxCompareCells }, "Seeds = "},
		{"negative hidden", func(c *CompareConfig) { c.Hidden = -1 }, "Hidden = -1"},
		{"huge hidden", func(c *CompareConfig) { c.Hidden = math.MaxInt }, "Hidden = "},
		{"Float32 without MLP", func(c *CompareConfig) { c.Float32 = true }, "Float32"},
		{"test fraction 1", func(c *CompareConfig) { c.TestFraction = 1 }, "TestFraction = 1"},
		{"no clip", func(c *CompareConfig) { c.Clip = 0 }, "Clip = 0"},
		{"infinite α", func(c *CompareConfig) { c.Alpha = math.Inf(1) }, "Alpha = +Inf"},
		{"NaN lr", func(c *CompareConfig) { c.LR = math.NaN() }, "LR = NaN"},
		{"Ball 0", func(c *CompareConfig) { c.Ball = map[string]float64{"smoker": 0} }, `Ball["smoker"] = 0`},
		{"Ball below 1/levels", func(c *CompareConfig) { c.Ball = map[string]float64{"smoker": 0.4} }, `below 1/2`},
		{"unknown mode", func(c *CompareConfig) { c.Mode = 9 }, "unknown mode"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := compareConfig()
			c.edit(&cfg)
			err := cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate: %v, want an error containing %q", err, c.want)
			}
			if _, err := Compare(context.Background(), compareEncoded(40), cfg); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Compare: %v, want an error containing %q", err, c.want)
			}
		})
	}
	if err := compareConfig().Validate(); err != nil {
		t.Errorf("valid configuration rejected: %v", err)
	}
}

// TestCompareEncodingErrors checks that an encoding Compare cannot use,
// and a Ball or Levels key that is not a sensitive column, are errors
// naming the problem.
func TestCompareEncodingErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*data.Encoded, *CompareConfig) *data.Encoded
		want string
	}{
		{"nil encoding", func(*data.Encoded, *CompareConfig) *data.Encoded { return nil }, "nil encoding"},
		{"regression", func(e *data.Encoded, _ *CompareConfig) *data.Encoded { e.Task = data.Regression; return e }, "classification"},
		{"one class", func(e *data.Encoded, _ *CompareConfig) *data.Encoded { e.Classes = e.Classes[:1]; return e }, "fewer than 2 classes"},
		{"nothing sensitive", func(e *data.Encoded, _ *CompareConfig) *data.Encoded {
			e.Sensitive, e.FeatureSensitive = []bool{false, false}, []bool{false, false}
			return e
		}, "no sensitive column"},
		{"Ball of a public column", func(e *data.Encoded, c *CompareConfig) *data.Encoded {
			c.Ball = map[string]float64{"age": 0.5}
			return e
		}, `Ball: "age" is not a sensitive column (sensitive columns: smoker)`},
		{"Levels of an unknown column", func(e *data.Encoded, c *CompareConfig) *data.Encoded {
			c.Levels = map[string][]string{"smokr": {"a"}}
			return e
		}, `Levels: "smokr" is not a sensitive column`},
		{"MLP too large", func(e *data.Encoded, c *CompareConfig) *data.Encoded { c.Hidden = MaxCompareParams / 2; return e }, "more than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := compareConfig()
			enc := c.edit(compareEncoded(40), &cfg)
			if _, err := Compare(context.Background(), enc, cfg); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Compare: %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestCompare checks a short run: the rows' layout, equal z and ε spent
// for the private methods, ε-independent baselines, the uniform-prior
// bounds and NoiseMultiplier, rows independent of the number of workers;
// a nil ctx runs as context.Background().
func TestCompare(t *testing.T) {
	cfg := compareConfig()
	var ctx context.Context // nil: documented to mean context.Background()
	c, err := Compare(ctx, compareEncoded(200), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Results.Rows) != len(CompareMethods)*len(cfg.Eps)*cfg.Seeds || len(c.Summary) != len(CompareMethods)*len(cfg.Eps) {
		t.Fatalf("%d rows, %d summaries", len(c.Results.Rows), len(c.Summary))
	}
	if !slices.Equal(c.Public, []string{"age"}) || !slices.Equal(c.Private, []string{"smoker"}) || c.Rate != 1 {
		t.Errorf("public %v, private %v, rate %v", c.Public, c.Private, c.Rate)
	}
	for _, row := range c.Results.Rows {
		m := Method(row.Method)
		spent, _ := row.Number("epsilon_spent")
		z, hasZ := row.Number("z")
		if want := c.NoiseMultiplier(m, row.X); hasZ != m.Private() || (hasZ && z != want) || (!hasZ && !math.IsNaN(want)) {
			t.Errorf("%s at ε = %v: z = %v (%v), NoiseMultiplier %v", m, row.X, z, hasZ, want)
		}
		if m.Private() && !(spent > 0 && spent <= row.X*(1+1e-9)) {
			t.Errorf("%s at ε = %v spent %v", m, row.X, spent)
		}
	}
	for k, b := range c.Bounds {
		if want, _ := AttributeInferenceBound(cfg.Eps[k], cfg.Delta, 0.5); b.Column != "smoker" || b.Ball != 0.5 || b.Bound != want {
			t.Errorf("bound %+v, want Ball 0.5, bound %v", b, want)
		}
	}
	if len(c.Bounds) != len(cfg.Eps) || len(c.NoBound) != 0 {
		t.Errorf("bounds %+v, no bound %+v", c.Bounds, c.NoBound)
	}
	// The rows do not depend on the number of workers.
	cfg.Workers = 2
	c2, err := Compare(context.Background(), compareEncoded(200), cfg)
	if err != nil || !reflect.DeepEqual(c2.Results, c.Results) {
		t.Errorf("2 workers: %v, or rows differ from 1 worker", err)
	}
	// No prior is assumed: without Ball, no bound, and the reason says
	// what Ball must be.
	cfg.Ball = nil
	if c, err = Compare(context.Background(), compareEncoded(200), cfg); err != nil || len(c.Bounds) != 0 || len(c.NoBound) != 1 ||
		!strings.Contains(c.NoBound[0].Reason, "given the record's public columns and label") {
		t.Errorf("without Ball: %v, bounds %+v, no bound %+v", err, c.Bounds, c.NoBound)
	}
}

// checkCompareCells checks the invariants of the cells and of the
// replicated rows of a valid cfg: every (method, ε, replicate) exactly
// once; private cells carry the z of their ε and a seed that depends on ε;
// a baseline is trained once per replicate and repeated at every ε.
func checkCompareCells(cfg CompareConfig) error {
	zOf := map[float64]float64{}
	for k, e := range cfg.Eps {
		zOf[e] = float64(k + 1)
	}
	cells := compareCells(cfg, zOf)
	if want := cfg.Seeds * (2*len(cfg.Eps) + 2); len(cells) != want {
		return fmt.Errorf("%d cells, want %d", len(cells), want)
	}
	rr := &experiments.Results{}
	seen := map[string]bool{}
	for _, c := range cells {
		key := fmt.Sprintf("%s|%v|%d", c.Method, c.X, c.Rep)
		if seen[key] {
			return fmt.Errorf("cell %s twice", key)
		}
		seen[key] = true
		if cc := c.Config.(compareCell); cc.Method.Private() && cc.Z != zOf[c.X] {
			return fmt.Errorf("cell %s has z = %v, want %v", key, cc.Z, zOf[c.X])
		}
		rr.Rows = append(rr.Rows, experiments.Row{Method: c.Method, X: c.X, Seed: c.Seed, Value: float64(len(rr.Rows))})
	}
	count := map[string]int{}
	for _, row := range replicateBaselines(rr, cfg.Eps).Rows {
		count[fmt.Sprintf("%s|%v", row.Method, row.X)]++
	}
	for _, m := range CompareMethods {
		for _, e := range cfg.Eps {
			if n := count[fmt.Sprintf("%s|%v", m, e)]; n != cfg.Seeds {
				return fmt.Errorf("%s at ε = %v: %d rows, want %d", m, e, n, cfg.Seeds)
			}
		}
	}
	return nil
}

// TestCompareCells checks the cell invariants on a few grids.
func TestCompareCells(t *testing.T) {
	for _, c := range []struct {
		eps   []float64
		seeds int
	}{{[]float64{1}, 1}, {[]float64{8, 1, 2}, 3}, {[]float64{0.5, 4}, 5}} {
		cfg := compareConfig()
		cfg.Eps, cfg.Seeds = c.eps, c.seeds
		if err := checkCompareCells(cfg); err != nil {
			t.Errorf("ε %v, %d seeds: %v", c.eps, c.seeds, err)
		}
	}
}

// FuzzCompareConfig checks that Validate never panics and that every
// configuration it accepts has distinct finite ε > 0 and cells satisfying
// the invariants of checkCompareCells (a repeated ε used to duplicate
// seeded runs).
func FuzzCompareConfig(f *testing.F) {
	f.Add(1.0, 4.0, 1.0, 1e-5, 0.0, 5, 2, 0, 0.25, 1.0)
	f.Add(2.0, 2.0, 8.0, 0.5, 0.1, 1, 1, 3, 0.5, math.NaN())
	f.Fuzz(func(t *testing.T, e1, e2, e3, delta, rate float64, steps, seeds, hidden int, testFraction, clip float64) {
		cfg := compareConfig()
		cfg.Eps, cfg.Delta, cfg.Rate, cfg.Steps = []float64{e1, e2, e3}, delta, rate, steps
		cfg.Seeds, cfg.Hidden, cfg.TestFraction, cfg.Clip = seeds%1000, hidden, testFraction, clip
		if cfg.Validate() != nil {
			return
		}
		for i, e := range cfg.Eps {
			if !(e > 0) || math.IsInf(e, 0) || slices.Index(cfg.Eps, e) != i {
				t.Fatalf("accepted Eps %v", cfg.Eps)
			}
		}
		if err := checkCompareCells(cfg); err != nil {
			t.Fatal(err)
		}
	})
}
