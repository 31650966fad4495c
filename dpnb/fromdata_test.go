package dpnb

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/data"
	"github.com/go-gota/gota/dataframe"
)

// withoutLevels returns schema with the levels of the named columns removed.
func withoutLevels(schema data.Schema, names ...string) data.Schema {
	s := schema.Clone()
	for i, c := range s.Columns {
		if slices.Contains(names, c.Name) {
			s.Columns[i].Levels = nil
		}
	}
	return s
}

// TestHelpersRefusePrivateStatistics checks that every one-call helper
// refuses to fit bounds or levels on the private data without the explicit
// opt-in, with an error naming the columns and the fix (they used to fit
// them silently), and names a misspelt key.
func TestHelpersRefusePrivateStatistics(t *testing.T) {
	ctx := context.Background()
	fdf, fschema := fdpPatients(300)
	cdf, cschema := corrdpUserFrame(300)
	bdf := bcdpTestFrame(200, 0.01)
	fdpOpts := func(enc data.EncodeOptions) FeatureDPOptions {
		return FeatureDPOptions{Encode: enc, Eps: []float64{1}, Steps: 5, Seeds: 1}
	}
	bcdpOpts := func(edit func(o *BCDPMeanOptions)) BCDPMeanOptions {
		o := bcdpTestOptions()
		edit(&o)
		return o
	}
	tests := []struct {
		name string
		run  func() error
		want []string
	}{
		{"FeatureDPvsDP: MinMax without Bounds", func() error {
			_, err := FeatureDPvsDP(ctx, fdf, fschema, fdpOpts(data.EncodeOptions{Scale: data.MinMax}))
			return err
		}, []string{"Encode", `"age"`, "EncodeOptions.Bounds", "BoundsFromData"}},
		{"FeatureDPvsDP: no levels", func() error {
			_, err := FeatureDPvsDP(ctx, fdf, withoutLevels(fschema, "smoker", "y"), fdpOpts(data.EncodeOptions{}))
			return err
		}, []string{`"smoker", "y"`, "EncodeOptions.Levels", "LevelsFromData"}},
		{"FeatureDPvsDP: misspelt Levels key", func() error {
			_, err := FeatureDPvsDP(ctx, fdf, withoutLevels(fschema, "smoker"),
				fdpOpts(data.EncodeOptions{Levels: map[string][]string{"smokr": {"no", "yes"}}}))
			return err
		}, []string{`"smokr"`, `valid columns: "smoker", "y"`}},
		{"CorrDPvsSemiVsStandard: default encoding", func() error {
			_, err := CorrDPvsSemiVsStandard(ctx, cdf, cschema, CorrDPOptions{Eps: []float64{1}, Seeds: 1, Steps: 5})
			return err
		}, []string{"Encode", `"age", "income"`, "BoundsFromData"}},
		{"CorrDPvsSemiVsStandard: no levels", func() error {
			_, err := CorrDPvsSemiVsStandard(ctx, cdf, withoutLevels(cschema, "region"), CorrDPOptions{Encode: corrdpEncode(), Eps: []float64{1}, Seeds: 1, Steps: 5})
			return err
		}, []string{`"region"`, "LevelsFromData"}},
		{"BCDPMeanEstimation: missing Bounds", func() error {
			_, err := BCDPMeanEstimation(ctx, bdf, bcdpTestSchema(), bcdpOpts(func(o *BCDPMeanOptions) {
				delete(o.Bounds, "hiv")
				delete(o.Bounds, "income")
			}))
			return err
		}, []string{"Bounds", `"hiv", "income"`, "BoundsFromData"}},
		{"BCDPMeanEstimation: misspelt Levels key", func() error {
			_, err := BCDPMeanEstimation(ctx, bdf, bcdpTestSchema(), bcdpOpts(func(o *BCDPMeanOptions) {
				o.Levels = map[string]float64{"hiv": 0.2, "smokr": 0.2}
			}))
			return err
		}, []string{"Levels", `"smokr"`, "hiv, smoker"}},
		{"BCDPMeanEstimation: value outside Bounds", func() error {
			_, err := BCDPMeanEstimation(ctx, bdf, bcdpTestSchema(), bcdpOpts(func(o *BCDPMeanOptions) {
				o.Bounds["age"] = data.Range{Lo: 0, Hi: 1}
			}))
			return err
		}, []string{`Bounds["age"]`, "widen"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil {
				t.Fatalf("no error, want one containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestHelpersStateFittedOnData checks that with the explicit opt-in every
// helper runs and its Markdown, Table and FromData state prominently what
// was fitted on the data, and that with public values they do not.
func TestHelpersStateFittedOnData(t *testing.T) {
	ctx := context.Background()
	fdf, fschema := fdpPatients(300)
	cdf, cschema := corrdpUserFrame(300)
	bdf := bcdpTestFrame(200, 0.01)
	type rendered struct {
		md    string
		table dataframe.DataFrame
	}
	tests := []struct {
		name    string
		run     func(optIn bool) (rendered, error)
		columns []string // named in the warning when opted in
	}{
		{"FeatureDPvsDP", func(optIn bool) (rendered, error) {
			schema, enc := fschema, data.EncodeOptions{Scale: data.MinMax, Bounds: map[string]data.Range{"age": {Lo: 20, Hi: 80}}}
			if optIn {
				schema, enc = withoutLevels(fschema, "smoker"), data.EncodeOptions{Scale: data.MinMax, BoundsFromData: true, LevelsFromData: true}
			}
			r, err := FeatureDPvsDP(ctx, fdf, schema, FeatureDPOptions{Encode: enc, Eps: []float64{1}, Steps: 5, Seeds: 1})
			if err != nil {
				return rendered{}, err
			}
			if optIn != !r.FromData.Empty() {
				t.Errorf("FromData = %+v with opt-in %v", r.FromData, optIn)
			}
			return rendered{r.Markdown(), r.Table()}, nil
		}, []string{`"age"`, `"smoker"`}},
		{"CorrDPvsSemiVsStandard", func(optIn bool) (rendered, error) {
			enc := corrdpEncode()
			if optIn {
				enc = data.EncodeOptions{Scale: data.MinMax, BoundsFromData: true}
			}
			r, err := CorrDPvsSemiVsStandard(ctx, cdf, cschema, CorrDPOptions{Encode: enc, Eps: []float64{1}, Seeds: 1, Steps: 5, C: 0.01, Workers: 1})
			if err != nil {
				return rendered{}, err
			}
			return rendered{r.Markdown(), r.Table()}, nil
		}, []string{`"age", "income"`}},
		{"BCDPMeanEstimation", func(optIn bool) (rendered, error) {
			o := bcdpTestOptions()
			o.Trials = 5
			if optIn {
				delete(o.Bounds, "hiv")
				delete(o.Bounds, "bmi")
				o.BoundsFromData = true
			}
			r, err := BCDPMeanEstimation(ctx, bdf, bcdpTestSchema(), o)
			if err != nil {
				return rendered{}, err
			}
			if want := map[bool][]string{true: {"hiv", "bmi"}}[optIn]; !slices.Equal(r.FittedBounds, want) {
				t.Errorf("FittedBounds = %v, want %v", r.FittedBounds, want)
			}
			return rendered{r.Markdown(), r.Table()}, nil
		}, []string{`"hiv", "bmi"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, optIn := range []bool{false, true} {
				r, err := tc.run(optIn)
				if err != nil {
					t.Fatalf("opt-in %v: %v", optIn, err)
				}
				warned := strings.HasPrefix(r.md, "> **Warning: not differentially private")
				hasCol := slices.Contains(r.table.Names(), FromDataColumn)
				// CorrDP's table always has the column: its TVs are
				// estimated on the data whatever the encoding.
				wantCol := optIn || tc.name == "CorrDPvsSemiVsStandard"
				if warned != optIn || hasCol != wantCol {
					t.Fatalf("opt-in %v: markdown warning %v, table column %v:\n%s", optIn, warned, hasCol, r.md)
				}
				for _, c := range tc.columns {
					if optIn && !strings.Contains(r.md, c) {
						t.Errorf("warning does not name %s:\n%s", c, r.md)
					}
				}
			}
		})
	}
}

// TestBCDPFittedBoundsAreTheRange checks BoundsFromData: a fitted column is
// scaled by its own min and max (its true mean is unchanged), and a
// constant column is an error naming Bounds.
func TestBCDPFittedBoundsAreTheRange(t *testing.T) {
	ctx := context.Background()
	df := bcdpTestFrame(200, 0.01)
	pub, fit := bcdpTestOptions(), bcdpTestOptions()
	pub.Trials, fit.Trials = 2, 2
	delete(fit.Bounds, "age")
	fit.BoundsFromData = true
	a, err := BCDPMeanEstimation(ctx, df, bcdpTestSchema(), pub)
	if err != nil {
		t.Fatal(err)
	}
	b, err := BCDPMeanEstimation(ctx, df, bcdpTestSchema(), fit)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := df.Col("age").Min(), df.Col("age").Max()
	if j := 2; b.Scale[j] != (hi-lo)/2 || !(math.Abs(a.TrueMean[j]-b.TrueMean[j]) < 1e-9) {
		t.Errorf("fitted age: scale %v (want %v), mean %v vs %v", b.Scale[j], (hi-lo)/2, b.TrueMean[j], a.TrueMean[j])
	}
	s := data.Schema{Task: data.Unsupervised, Columns: []data.Column{{Name: "hiv", Role: data.Sensitive}}}
	one := dataframe.New(df.Col("hiv").Subset([]int{0, 0, 0}))
	_, err = BCDPMeanEstimation(ctx, one, s, BCDPMeanOptions{Levels: map[string]float64{"hiv": 1}, Eps: 1, Q: 0.5, BoundsFromData: true})
	if err == nil || !strings.Contains(err.Error(), "constant") || !strings.Contains(err.Error(), `Bounds["hiv"]`) {
		t.Errorf("constant column: %v", err)
	}
}

// TestFeatureDPBallLevels checks that a Ball is bounded below by 1/levels
// for levels given in Encode.Levels (not in the schema) as for schema
// levels, and that no Ball means no bound (no prior is assumed).
func TestFeatureDPBallLevels(t *testing.T) {
	df, schema := fdpPatients(300)
	enc := data.EncodeOptions{Levels: map[string][]string{"smoker": {"no", "yes"}}}
	opts := FeatureDPOptions{Encode: enc, Eps: []float64{1}, Steps: 5, Seeds: 1, Ball: map[string]float64{"smoker": 0.5}}
	r, err := FeatureDPvsDP(context.Background(), df, withoutLevels(schema, "smoker"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.NoBound) != 0 || len(r.Bounds) != 1 || r.Bounds[0].Ball != 0.5 {
		t.Fatalf("bounds %+v, no bound %+v: want smoker bounded with Ball 0.5", r.Bounds, r.NoBound)
	}
	opts.Ball = map[string]float64{"smoker": 0.3}
	if _, err := FeatureDPvsDP(context.Background(), df, withoutLevels(schema, "smoker"), opts); err == nil || !strings.Contains(err.Error(), "below 1/2") {
		t.Errorf("Ball 0.3 of a 2-level column: %v", err)
	}
	opts.Ball = nil
	if r, err = FeatureDPvsDP(context.Background(), df, withoutLevels(schema, "smoker"), opts); err != nil || len(r.Bounds) != 0 || len(r.NoBound) != 1 {
		t.Fatalf("no Ball: %v, bounds %+v, no bound %+v", err, r.Bounds, r.NoBound)
	}
}
