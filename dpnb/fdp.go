package dpnb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
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
	// Eps are the target ε values [1, 2, 4, 8]; Delta is δ [1e-5].
	Eps   []float64
	Delta float64
	// Rate is the Poisson rate q [min(1, 200/n)], Steps the number T of
	// private steps [300]; the noise multiplier z is calibrated for each ε
	// (tight RDP root, Opacus orders, improved conversion) and is the same
	// for DP and feature DP (equal ε).
	Rate  float64
	Steps int
	// Clip is the per-example clip norm C of both private methods [1];
	// Alpha the weight α of the noisy private gradient of Algorithm 1 [1].
	Clip, Alpha float64
	// LR is the SGD learning rate [1].
	LR float64
	// Hidden > 0 uses a tanh MLP with that many hidden units instead of
	// logistic / softmax regression [0].
	Hidden int
	// Float32 runs the MLP's matrix products in single precision
	// (models.MLP.Float32: about 1.2–1.3× faster on large batches; gradients
	// differ from float64 by float32 rounding; accounting, clipping
	// weights, noise and updates stay float64) [false].
	Float32 bool
	// TestFraction of the rows held out for the accuracy [0.25]; Seeds
	// repeats per (method, ε) [3].
	TestFraction float64
	Seeds        int
	// Ball is the prior mass Ball(X, u, d, ρ) (Def. 8) of the best guess of
	// each sensitive column without the model, for the Thm 4
	// attribute-inference bound; a column missing here gets 1/(number of
	// its levels) for a categorical column with levels (a uniform prior:
	// an assumption, not estimated from the private data); a column with
	// neither gets no bound and is listed in FeatureDPResult.NoBound.
	Ball map[string]float64
	// Seed seeds the split and the cells (Reproducible mode).
	Seed uint64
	// Mode is the training's randomness [mechanisms.Reproducible: seeded,
	// the result is an experiment, not a private release]; Secure trains
	// every private run with batches and noise from the OS CSPRNG (not
	// reproducible). The train/test split stays seeded either way.
	Mode mechanisms.Mode
	// Workers for the cells [2].
	Workers int
	// Progress, if set, is called as cells finish.
	Progress func(done, total int)
}

// FeatureDPBound is the Thm 4 attribute-inference bound of one sensitive
// column at one ε: any adversary's success at guessing it (within the
// metric ball of prior mass Ball) from the released model is at most
// min(1, e^ε·Ball + δ) — the same for DP and feature DP at the same ε.
type FeatureDPBound struct {
	Column string
	Ball   float64
	Eps    float64
	Bound  float64
}

// FeatureDPSkipped is a sensitive column without a Thm 4 bound, and why.
type FeatureDPSkipped struct {
	Column string
	Reason string
}

// FeatureDPResult is the outcome of FeatureDPvsDP. It renders itself as a
// table, a plot and markdown (nb.Renderable).
type FeatureDPResult struct {
	Results *experiments.Results
	Summary []experiments.Summary
	// Multipliers[k] is the calibrated z for Eps[k], used by DP and
	// FDP-Alg1 (NonPrivate and Public add no noise).
	Eps, Multipliers []float64
	Bounds           []FeatureDPBound
	// NoBound lists the sensitive columns left out of Bounds, with the
	// reason (no Ball given and no levels to assume a uniform prior).
	NoBound         []FeatureDPSkipped
	Public, Private []string
	Config          FeatureDPOptions
	Schema          data.Schema // the schema the run used
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
// attribute-inference bound of every sensitive column. Ψ(x) keeps the
// public columns and the label and zeroes the sensitive encoded columns
// (zero masking). DP protects whole records (add/remove); feature DP
// protects the sensitive columns only, treating the public columns and the
// label as known.
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
	cfg := featureDPConfig{FeatureDPOptions: opts, Schema: schema}
	cfg, err := cfg.withDefaults(df)
	if err != nil {
		return nil, fmt.Errorf("dpnb: FeatureDPvsDP: %w", err)
	}
	enc, err := data.Encode(df, cfg.Schema, cfg.Encode)
	if err != nil {
		return nil, fmt.Errorf("dpnb: FeatureDPvsDP: %w", err)
	}
	if len(enc.Classes) < 2 {
		return nil, errors.New("dpnb: FeatureDPvsDP: the label has fewer than 2 classes")
	}
	res := &FeatureDPResult{Config: cfg.FeatureDPOptions, Schema: cfg.Schema, Eps: cfg.Eps, FromData: cfg.Encode.DataDependent(cfg.Schema)}
	for _, c := range cfg.Schema.Features() {
		if c.Role == data.Public {
			res.Public = append(res.Public, c.Name)
		} else if c.Role == data.Sensitive {
			res.Private = append(res.Private, c.Name)
		}
	}
	if len(res.Private) == 0 {
		return nil, errors.New("dpnb: FeatureDPvsDP: no sensitive column to protect")
	}
	if err := res.train(ctx, enc); err != nil {
		return nil, fmt.Errorf("dpnb: FeatureDPvsDP: %w", err)
	}
	if err := res.bounds(); err != nil {
		return nil, fmt.Errorf("dpnb: FeatureDPvsDP: %w", err)
	}
	return res, nil
}

// withDefaults validates the configuration against df and fills in the
// defaults (see FeatureDPOptions).
func (cfg featureDPConfig) withDefaults(df dataframe.DataFrame) (featureDPConfig, error) {
	if err := cfg.Schema.Validate(df); err != nil {
		return cfg, err
	}
	if cfg.Schema.Task != data.Classification {
		return cfg, errors.New("the schema's task must be classification")
	}
	if err := checkBallKeys(cfg.Ball, cfg.Schema); err != nil {
		return cfg, err
	}
	if err := cfg.Encode.RequirePublic(cfg.Schema); err != nil {
		return cfg, fmt.Errorf("Encode: %w", err)
	}
	if err := cfg.Mode.Validate(); err != nil {
		return cfg, err
	}
	if len(cfg.Eps) == 0 {
		cfg.Eps = []float64{1, 2, 4, 8}
	}
	for _, e := range cfg.Eps {
		if !(e > 0) || math.IsInf(e, 0) {
			return cfg, fmt.Errorf("target ε = %v, want finite > 0", e)
		}
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
	switch {
	case !(cfg.Delta > 0 && cfg.Delta < 1):
		return cfg, fmt.Errorf("δ = %v, want in (0, 1)", cfg.Delta)
	case cfg.Steps < 1 || cfg.Seeds < 1 || cfg.Hidden < 0:
		return cfg, fmt.Errorf("steps %d, seeds %d, hidden %d", cfg.Steps, cfg.Seeds, cfg.Hidden)
	case cfg.Float32 && cfg.Hidden == 0:
		return cfg, errors.New("Float32 applies to the MLP only: set Hidden > 0 or leave Float32 false")
	case !(cfg.Clip > 0) || !(cfg.Alpha > 0) || !(cfg.LR > 0) || math.IsInf(cfg.Clip+cfg.Alpha+cfg.LR, 0):
		return cfg, fmt.Errorf("clip %v, α %v, lr %v, want finite > 0", cfg.Clip, cfg.Alpha, cfg.LR)
	case !(cfg.TestFraction > 0 && cfg.TestFraction < 1):
		return cfg, fmt.Errorf("test fraction %v, want in (0, 1)", cfg.TestFraction)
	}
	return cfg, nil
}

// featureDPData splits enc into training and test rows and returns them
// with the public view Ψ of the training rows.
func featureDPData(enc *data.Encoded, cfg featureDPConfig) (train, test, psi *design.Data, err error) {
	trainIdx, testIdx, err := data.SplitIndices(enc.N, cfg.TestFraction, rand.New(rand.NewPCG(cfg.Seed, 0x66647031)))
	if err != nil {
		return nil, nil, nil, err
	}
	if train, err = fdp.EncodedRows(enc, trainIdx, false); err != nil {
		return nil, nil, nil, err
	}
	if test, err = fdp.EncodedRows(enc, testIdx, false); err != nil {
		return nil, nil, nil, err
	}
	if psi, err = fdp.EncodedRows(enc, trainIdx, true); err != nil {
		return nil, nil, nil, err
	}
	return train, test, psi, nil
}

// train calibrates z per ε and runs the cells (method × ε × seed).
func (r *FeatureDPResult) train(ctx context.Context, enc *data.Encoded) error {
	cfg := r.Config
	train, test, psi, err := featureDPData(enc, featureDPConfig{cfg, r.Schema})
	if err != nil {
		return err
	}
	q := cfg.Rate
	if q == 0 {
		q = math.Min(1, 200/float64(train.N))
	}
	if !(q > 0 && q <= 1) {
		return fmt.Errorf("rate q = %v, want in (0, 1]", q)
	}
	r.Config.Rate = q
	zOf := map[float64]float64{}
	for _, e := range cfg.Eps {
		z, err := accounting.NoiseMultiplier(e, cfg.Delta, q, cfg.Steps, accounting.OrdersOpacus(), accounting.ConversionImproved)
		if err != nil {
			return fmt.Errorf("calibrating z for ε = %v: %w", e, err)
		}
		r.Multipliers = append(r.Multipliers, z)
		zOf[e] = z
	}
	k := len(enc.Classes)
	newModel := func() (models.Model, error) {
		switch {
		case cfg.Hidden > 0:
			m, err := models.NewMLP(enc.D, cfg.Hidden, k, models.Tanh, models.HeadSoftmaxCE)
			if err == nil {
				m.Float32 = cfg.Float32
			}
			return m, err
		case k == 2:
			return models.NewLogistic(enc.D, true, 0)
		default:
			return models.NewSoftmax(enc.D, k)
		}
	}
	cells := featureDPCells(cfg, zOf)
	run := func(ctx context.Context, c experiments.Cell) ([]experiments.Measurement, error) {
		cc := c.Config.(featureDPCell)
		model, err := newModel()
		if err != nil {
			return nil, err
		}
		s := fdp.Setup{Model: model, Data: train, PubData: psi, Rate: q, Multiplier: cc.Z, Clip: cfg.Clip,
			Steps: cfg.Steps, Alpha: cfg.Alpha, Optimizer: mechanisms.SGD{LR: cfg.LR}, Seed: c.Seed, Mode: cfg.Mode}
		acc, spent, err := fdp.CompareRun(ctx, cc.Method, s, test, cfg.Delta)
		if err != nil {
			return nil, err
		}
		num := map[string]float64{"epsilon_spent": spent}
		if cc.private() {
			num["z"] = cc.Z // NonPrivate and Public add no noise: no multiplier
		}
		return []experiments.Measurement{{Metric: "accuracy", Value: acc, Num: num}}, nil
	}
	rr, err := experiments.Run(ctx, cells, run, experiments.RunOptions{Workers: cfg.Workers, Progress: cfg.Progress, Figure: "dpnb-featuredp"})
	if err != nil {
		return err
	}
	r.Results = replicateBaselines(rr, cfg.Eps)
	r.Summary = experiments.Summarize(r.Results)
	return nil
}

// featureDPMethods are the methods of FeatureDPvsDP in table order.
var featureDPMethods = []fdp.Method{fdp.NonPrivate, fdp.PublicOnly, fdp.DP, fdp.Alg1}

// featureDPCells lists the cells of FeatureDPvsDP: every private method at
// every ε, and the baselines (NonPrivate, Public), which do not depend on ε,
// once per seed at the first ε (replicateBaselines copies them to the
// others). Cells of the same replicate share their seed (common random
// numbers); a baseline's seed does not depend on ε.
func featureDPCells(cfg FeatureDPOptions, zOf map[float64]float64) []experiments.Cell {
	var cells []experiments.Cell
	for _, m := range featureDPMethods {
		c := featureDPCell{Method: m}
		xs := cfg.Eps
		if !c.private() {
			xs = cfg.Eps[:1]
		}
		for _, x := range xs {
			for rep := 0; rep < cfg.Seeds; rep++ {
				seedX := x
				if !c.private() {
					seedX = 0
				}
				c.Z = zOf[x]
				cells = append(cells, experiments.Cell{Method: string(m), X: x, Rep: rep, Config: c,
					Seed: experiments.CellSeed(cfg.Seed, "dpnb-featuredp", "", seedX, rep)})
			}
		}
	}
	return cells
}

// replicateBaselines returns rr with the rows of the ε-independent
// baselines (trained once at the first ε) repeated at every ε of eps, in
// the order method, ε, replicate.
func replicateBaselines(rr *experiments.Results, eps []float64) *experiments.Results {
	out := &experiments.Results{Rows: make([]experiments.Row, 0, len(rr.Rows))}
	for _, m := range featureDPMethods {
		var rows []experiments.Row
		for _, row := range rr.Rows {
			if row.Method == string(m) {
				rows = append(rows, row)
			}
		}
		if (featureDPCell{Method: m}).private() {
			out.Rows = append(out.Rows, rows...)
			continue
		}
		for _, e := range eps {
			for _, row := range rows {
				row.X = e
				out.Rows = append(out.Rows, row)
			}
		}
	}
	return out
}

// featureDPCell is the Config of a FeatureDPvsDP cell: the method and the
// noise multiplier calibrated for the cell's ε.
type featureDPCell struct {
	Method fdp.Method
	Z      float64
}

// String describes the cell configuration for error messages.
func (c featureDPCell) String() string { return fmt.Sprintf("method=%s, z=%g", c.Method, c.Z) }

// private reports whether the method adds noise (DP, FDP-Alg1).
func (c featureDPCell) private() bool {
	return c.Method != fdp.NonPrivate && c.Method != fdp.PublicOnly
}

// bounds fills Bounds with the Thm 4 bound of every sensitive column at
// every ε (Ball from Config.Ball, else a uniform prior over the column's
// levels) and NoBound with the columns that have neither.
func (r *FeatureDPResult) bounds() error {
	cfg := r.Config
	for _, name := range r.Private {
		ball, ok := cfg.Ball[name]
		if !ok {
			col, _ := r.Schema.Lookup(name)
			if lv, ok := cfg.Encode.Levels[name]; ok {
				col.Levels = lv // public levels given in the options
			}
			var why string
			if ball, why, ok = fdp.UniformBall(col); !ok {
				r.NoBound = append(r.NoBound, FeatureDPSkipped{Column: name, Reason: why})
				continue
			}
		}
		for _, e := range cfg.Eps {
			b, err := fdp.AttributeInferenceBound(e, cfg.Delta, ball)
			if err != nil {
				return fmt.Errorf("column %s: %w", name, err)
			}
			r.Bounds = append(r.Bounds, FeatureDPBound{Column: name, Ball: ball, Eps: e, Bound: b})
		}
	}
	return nil
}

// Table returns one row per (method, ε): mean and SD of the test accuracy
// over seeds, and the calibrated z of DP and FDP-Alg1 (NaN for NonPrivate
// and Public, which add no noise); plus the column FromDataColumn when the
// encoding was fitted on the data.
func (r *FeatureDPResult) Table() dataframe.DataFrame {
	var meth []string
	var eps, mean, sd, z []float64
	zOf := map[float64]float64{}
	for k, e := range r.Eps {
		zOf[e] = r.Multipliers[k]
	}
	for _, s := range r.Summary {
		meth = append(meth, s.Method)
		eps = append(eps, s.X)
		mean = append(mean, s.Mean)
		sd = append(sd, s.SD)
		zs := math.NaN() // NonPrivate and Public add no noise
		if c := (featureDPCell{Method: fdp.Method(s.Method)}); c.private() {
			zs = zOf[s.X]
		}
		z = append(z, zs)
	}
	return withFromDataColumn(dataframe.New(fdpseries.New(meth, fdpseries.String, "method"), fdpseries.New(eps, fdpseries.Float, "target_epsilon"),
		fdpseries.New(mean, fdpseries.Float, "accuracy_mean"), fdpseries.New(sd, fdpseries.Float, "accuracy_sd"),
		fdpseries.New(z, fdpseries.Float, "noise_multiplier")), r.FromData)
}

// Plot draws the test accuracy against ε, one line per method (SD bands);
// the title says so when the encoding was fitted on the data.
func (r *FeatureDPResult) Plot() (*plot.Plot, error) {
	return LinePlot(r.Summary, LineOptions{Title: "DP vs feature DP (Algorithm 1) at equal ε" + fromDataTitle(r.FromData),
		XLabel: fmt.Sprintf("ε (δ = %g)", r.Config.Delta), YLabel: "test accuracy", Metric: "accuracy", Band: BandSD})
}

// Markdown summarises the comparison and the attribute-inference bounds,
// after a warning when the encoding was fitted on the data (FromData).
func (r *FeatureDPResult) Markdown() string {
	var b strings.Builder
	b.WriteString(fromDataWarning(r.FromData, encodeFix))
	fmt.Fprintf(&b, "**DP vs feature DP.** Public Ψ(x): %s and the label; protected: %s. q = %.4g, T = %d, C = %g, α = %g; "+
		"z calibrated per ε (same for DP and FDP-Alg1, so both spend the same ε). Randomness: %s.\n\n",
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
			fmt.Fprintf(&b, "| %s | %.3g | %g | %.4g |\n", x.Column, x.Ball, x.Eps, x.Bound)
		}
	}
	if len(r.NoBound) > 0 {
		b.WriteString("\nProtected columns without a bound:\n\n")
		for _, x := range r.NoBound {
			fmt.Fprintf(&b, "- %s: %s\n", x.Column, x.Reason)
		}
	}
	return b.String()
}

// featureDPConfig is the options with the schema they apply to.
type featureDPConfig struct {
	FeatureDPOptions
	Schema data.Schema
}

// checkBallKeys rejects a Ball key that is not a Sensitive column of the
// schema (a misspelt key would otherwise be silently ignored).
func checkBallKeys(ball map[string]float64, schema data.Schema) error {
	var sens []string
	for _, c := range schema.Columns {
		if c.Role == data.Sensitive {
			sens = append(sens, c.Name)
		}
	}
	keys := make([]string, 0, len(ball))
	for k := range ball {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(sens, k) {
			return fmt.Errorf("Ball: %q is not a sensitive column (sensitive columns: %s)", k, strings.Join(sens, ", "))
		}
		if v := ball[k]; !(v > 0 && v <= 1) {
			return fmt.Errorf("Ball[%q] = %v, want a prior mass in (0, 1]", k, v)
		}
	}
	return nil
}
