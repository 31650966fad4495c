package dpnb

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/mdtext"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/notions/fdp"
	"github.com/go-gota/gota/dataframe"
	fdpseries "github.com/go-gota/gota/series"
	"gonum.org/v1/plot"
)

// FeatureDPOptions configures FeatureDPvsDP. Zero values give the defaults
// in brackets.
type FeatureDPOptions struct {
	// Encode are the encoding options. Every MinMax (ZScore) continuous
	// column needs public Bounds (Moments) and every categorical column and
	// the label public levels (Encode.Levels or the schema's Column.Levels),
	// else FeatureDPvsDP returns an error naming the columns: fitting them
	// on the data is not differentially private. Encode.BoundsFromData and
	// Encode.LevelsFromData opt in explicitly to fitting them on the data;
	// the result then says so (FromData, Markdown, Table).
	Encode data.EncodeOptions
	// Eps are the target ε values, distinct, finite and > 0 [1, 2, 4, 8];
	// Delta is δ in (0, 1) [1e-5].
	Eps   []float64
	Delta float64
	// Rate is the Poisson rate q in (0, 1] [min(1, 200/n), n the number of
	// training rows], Steps the number T ≥ 1 of private steps [300]; the
	// noise multiplier z is calibrated for each ε (tight root of the RDP of
	// the Poisson-subsampled Gaussian, Opacus orders, improved conversion)
	// and is the same for DP and feature DP (equal ε).
	Rate  float64
	Steps int
	// Clip is the per-example clip norm C of both private methods [1];
	// Alpha the weight α of the noisy private gradient of Algorithm 1 [1].
	Clip, Alpha float64
	// LR is the SGD learning rate [1].
	LR float64
	// Hidden > 0 uses a tanh MLP with that many hidden units instead of
	// logistic / softmax regression [0]; the MLP may have at most
	// fdp.MaxCompareParams parameters.
	Hidden int
	// Float32 runs the MLP's matrix products in single precision
	// (models.MLP.Float32: about 1.2–1.3× faster on large batches; gradients
	// differ from float64 by float32 rounding; accounting, clipping
	// weights, noise and updates stay float64) [false].
	Float32 bool
	// TestFraction in (0, 1) of the rows held out for the accuracy [0.25];
	// Seeds ≥ 1 repeats per (method, ε) [3], at most fdp.MaxCompareCells
	// runs in all.
	TestFraction float64
	Seeds        int
	// Ball is the prior mass Ball(X, u, d, ρ) (Def. 8) of the best guess of
	// each sensitive column X without the model given the record's public
	// columns and label u, for the Thm 4 attribute-inference bound: public
	// knowledge you state, at least 1/levels, never estimated. A column
	// missing here gets no bound and is listed in FeatureDPResult.NoBound
	// (1/levels holds only for a column uniform and independent of u).
	Ball map[string]float64
	// Seed seeds the split and the cells (Reproducible mode).
	Seed uint64
	// Mode is the training's randomness [mechanisms.Reproducible: seeded,
	// the result is an experiment, not a private release]; Secure trains
	// every private run with batches and noise from the OS CSPRNG (not
	// reproducible). The train/test split stays seeded either way.
	Mode mechanisms.Mode
	// Workers for the cells [2; < 0: all cores].
	Workers int
	// Progress, if set, is called as cells finish.
	Progress func(done, total int)
}

// FeatureDPBound is the Thm 4 attribute-inference bound of one sensitive
// column at one ε: any adversary's success at guessing it (within the
// metric ball of prior mass Ball) from the released model is at most
// min(1, e^ε·Ball + δ) — the same for DP and feature DP at the same ε.
type FeatureDPBound = fdp.ColumnBound

// FeatureDPSkipped is a sensitive column without a Thm 4 bound, and why.
type FeatureDPSkipped = fdp.UnboundedColumn

// FeatureDPResult is the outcome of FeatureDPvsDP: the comparison of
// fdp.Compare (Results, Summary, Eps, Multipliers, Rate, Public, Private,
// Bounds, NoBound) with the options and schema of the run. It renders
// itself as a table, a plot and markdown (nb.Renderable).
type FeatureDPResult struct {
	*fdp.Comparison
	// Config are the options with the defaults filled in (Rate the q used).
	Config FeatureDPOptions
	Schema data.Schema // the schema the run used
	// FromData lists the encoding parameters fitted on the private data by
	// the caller's opt-in (Encode.BoundsFromData, Encode.LevelsFromData);
	// empty when the encoding used public values only.
	FromData data.DataDependence
}

// FeatureDPvsDP trains a classifier on df four ways — NonPrivate, Public
// (the public columns only), DP (DP-SGD on all columns) and FDP-Alg1
// (Algorithm 1 of the Feature-DP paper: ℓ_priv = ℓ(x) − ℓ(Ψ(x)) clipped and
// noised, the public gradient on an independent batch) — at
// each target (ε, δ), with the same q, T and calibrated z for both private
// methods, and reports the test accuracy, the ε spent and the Thm 4
// attribute-inference bound of every sensitive column with a given Ball
// (the others are listed in NoBound). Ψ(x) keeps the
// public columns and the label and zeroes the sensitive encoded columns
// (zero masking). DP protects whole records; feature DP protects the
// sensitive columns only, treating the public columns and the label as
// known. Every ε is stated under feature DP's simulator relation FDP_i^Ψ;
// for the replacement relation (one record's sensitive columns change) an
// (ε, δ) gives (2ε, δ(1 + e^ε)) (fdp.SimulatorToReplacement). The logic (split, calibration, cells, baselines, bounds)
// is fdp.Compare's, which documents what is accounted and how; this helper
// encodes df, fills in the defaults and renders the result.
//
// schema gives every column a role: Public columns (and the label) form
// Ψ(x), what the adversary may know; Sensitive columns are protected by
// feature DP. The task must be classification. The call shape (ctx, df,
// schema, opts) is the same for every one-call helper.
//
// No statistic of df is used silently: an encoding that would fit min–max
// bounds or category levels on df is an error naming the columns and the
// fix (public opts.Encode.Bounds / Levels, or the explicit opt-in
// opts.Encode.BoundsFromData / LevelsFromData, which the result's FromData,
// Markdown, Table and plot title then state).
func FeatureDPvsDP(ctx context.Context, df dataframe.DataFrame, schema data.Schema, opts FeatureDPOptions) (*FeatureDPResult, error) {
	cfg, err := featureDPConfig(df, schema, opts)
	if err != nil {
		return nil, fmt.Errorf("dpnb: FeatureDPvsDP: %w", err)
	}
	enc, err := data.Encode(df, schema, opts.Encode)
	if err != nil {
		return nil, fmt.Errorf("dpnb: FeatureDPvsDP: %w", err)
	}
	cmp, err := fdp.Compare(ctx, enc, cfg)
	if err != nil {
		return nil, fmt.Errorf("dpnb: FeatureDPvsDP: %w", err)
	}
	res := &FeatureDPResult{Comparison: cmp, Config: opts, Schema: schema, FromData: opts.Encode.DataDependent(schema)}
	res.Config.Eps, res.Config.Delta, res.Config.Rate, res.Config.Steps = cfg.Eps, cfg.Delta, cmp.Rate, cfg.Steps
	res.Config.Clip, res.Config.Alpha, res.Config.LR = cfg.Clip, cfg.Alpha, cfg.LR
	res.Config.TestFraction, res.Config.Seeds, res.Config.Workers = cfg.TestFraction, cfg.Seeds, cfg.Workers
	return res, nil
}

// featureDPConfig validates opts against df and schema and returns the
// configuration of fdp.Compare with the defaults of FeatureDPOptions
// filled in and the public levels of the sensitive columns (opts.Encode's
// Levels, else the schema's).
func featureDPConfig(df dataframe.DataFrame, schema data.Schema, opts FeatureDPOptions) (fdp.CompareConfig, error) {
	cfg := fdp.CompareConfig{Eps: opts.Eps, Delta: opts.Delta, Rate: opts.Rate, Steps: opts.Steps, Clip: opts.Clip, Alpha: opts.Alpha,
		LR: opts.LR, Hidden: opts.Hidden, Float32: opts.Float32, TestFraction: opts.TestFraction, Seeds: opts.Seeds,
		Ball: opts.Ball, Seed: opts.Seed, Mode: opts.Mode, Workers: opts.Workers, Progress: opts.Progress}
	if err := schema.Validate(df); err != nil {
		return cfg, err
	}
	if schema.Task != data.Classification {
		return cfg, errors.New("the schema's task must be classification")
	}
	if err := opts.Encode.RequirePublic(schema); err != nil {
		return cfg, fmt.Errorf("Encode: %w", err)
	}
	if len(cfg.Eps) == 0 {
		cfg.Eps = []float64{1, 2, 4, 8}
	}
	setDefault := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	setDefault(&cfg.Delta, 1e-5)
	setDefault(&cfg.Clip, 1)
	setDefault(&cfg.Alpha, 1)
	setDefault(&cfg.LR, 1)
	setDefault(&cfg.TestFraction, 0.25)
	if cfg.Steps == 0 {
		cfg.Steps = 300
	}
	if cfg.Seeds == 0 {
		cfg.Seeds = 3
	}
	if cfg.Workers == 0 {
		cfg.Workers = 2
	}
	cfg.Levels = map[string][]string{}
	for _, c := range schema.Columns {
		if c.Role != data.Sensitive {
			continue
		}
		lv := opts.Encode.Levels[c.Name] // public levels given in the options
		if len(lv) == 0 {
			lv = c.Levels
		}
		if len(lv) > 0 {
			cfg.Levels[c.Name] = lv
		}
	}
	return cfg, cfg.Validate()
}

// Table returns one row per (method, ε): mean and SD of the test accuracy
// over seeds, and the calibrated z of DP and FDP-Alg1 (NaN for NonPrivate
// and Public, which add no noise); plus the column FromDataColumn when the
// encoding was fitted on the data.
// A nil receiver gives an empty DataFrame whose Err names the fix.
func (r *FeatureDPResult) Table() dataframe.DataFrame {
	if r == nil {
		return nilTable("FeatureDPResult", "FeatureDPvsDP")
	}
	var meth []string
	var eps, mean, sd, z []float64
	for _, s := range r.Summary {
		meth = append(meth, s.Method)
		eps = append(eps, s.X)
		mean = append(mean, s.Mean)
		sd = append(sd, s.SD)
		z = append(z, r.NoiseMultiplier(fdp.Method(s.Method), s.X)) // NaN for NonPrivate and Public: no noise
	}
	return withFromDataColumn(dataframe.New(fdpseries.New(meth, fdpseries.String, "method"), fdpseries.New(eps, fdpseries.Float, "target_epsilon"),
		fdpseries.New(mean, fdpseries.Float, "accuracy_mean"), fdpseries.New(sd, fdpseries.Float, "accuracy_sd"),
		fdpseries.New(z, fdpseries.Float, "noise_multiplier")), r.FromData)
}

// Plot draws the test accuracy against ε, one line per method (SD bands);
// the title says so when the encoding was fitted on the data.
// A nil receiver is an error naming the fix.
func (r *FeatureDPResult) Plot() (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResult("FeatureDPResult", "FeatureDPvsDP")
	}
	return LinePlot(r.Summary, LineOptions{Title: "DP vs feature DP (Algorithm 1) at equal ε" + fromDataTitle(r.FromData),
		XLabel: fmt.Sprintf("ε (δ = %g)", r.Config.Delta), YLabel: "test accuracy", Metric: "accuracy", Band: BandSD})
}

// Markdown summarises the comparison and the attribute-inference bounds,
// after a warning when the encoding was fitted on the data (FromData).
// A nil receiver renders a line naming the fix.
func (r *FeatureDPResult) Markdown() string {
	if r == nil {
		return nilMarkdown("FeatureDPResult", "FeatureDPvsDP")
	}
	var b strings.Builder
	b.WriteString(fromDataWarning(r.FromData, encodeFix))
	fmt.Fprintf(&b, "**DP vs feature DP.** Public Ψ(x): %s and the label; protected: %s. q = %.4g, T = %d, C = %g, α = %g; "+
		"z calibrated per ε (same for DP and FDP-Alg1, so both spend the same ε). Every ε holds under feature DP's simulator relation "+
		"(the model against a simulator that sees the rest of the data and only Ψ(x) of one record; DP-SGD divides by the training-row count, "+
		"which the simulator knows); for the replacement relation (one record's protected columns change) (ε, δ) becomes (2ε, δ(1 + e^ε)). Randomness: %s.\n\n",
		strings.Join(r.Public, ", "), strings.Join(r.Private, ", "), r.Config.Rate, r.Config.Steps, r.Config.Clip, r.Config.Alpha, r.Config.Mode)
	b.WriteString("| ε | z | NonPrivate | Public | DP | FDP-Alg1 |\n|---:|---:|---:|---:|---:|---:|\n")
	for k, e := range r.Eps {
		fmt.Fprintf(&b, "| %g | %.3f |", e, r.Multipliers[k])
		for _, m := range []string{"NonPrivate", "Public", "DP", "FDP-Alg1"} {
			if s, ok := experiments.FindSummary(r.Summary, m, e, "accuracy"); ok {
				fmt.Fprintf(&b, " %.3f ± %.3f |", s.Mean, s.SD)
			} else {
				b.WriteString(" – |")
			}
		}
		b.WriteString("\n")
	}
	if len(r.Bounds) > 0 {
		b.WriteString("\n**Attribute inference (Thm 4).** Any adversary's success at guessing a protected column from the model is at most " +
			"min(1, e^ε·Ball + δ), for DP and for feature DP alike at the same ε (feature DP does not bound membership inference):\n\n")
		b.WriteString("| column | Ball | ε | bound |\n|---|---:|---:|---:|\n")
		bs := append([]FeatureDPBound(nil), r.Bounds...)
		sort.SliceStable(bs, func(i, j int) bool { return bs[i].Column < bs[j].Column })
		for _, x := range bs {
			fmt.Fprintf(&b, "| %s | %.3g | %g | %s |\n", mdCell(x.Column), x.Ball, x.Eps, mdtext.Upward(x.Bound, 4))
		}
		b.WriteString("\nBall is the prior you gave (FeatureDPOptions.Ball): the largest probability of one value of the column given the record's public columns and label; the bound holds for that prior.\n")
	}
	if len(r.NoBound) > 0 {
		b.WriteString("\nProtected columns without a bound:\n\n")
		for _, x := range r.NoBound {
			fmt.Fprintf(&b, "- %s: %s\n", mdCell(x.Column), mdCell(x.Reason))
		}
	}
	return mdtext.Controls(b.String()) // names and notes from the user's data
}
