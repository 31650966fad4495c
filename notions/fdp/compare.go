package fdp

// The comparison of DP and feature DP at equal ε on a user's encoded
// table: the logic behind the one-call helper dpnb.FeatureDPvsDP (which
// adds only the DataFrame/schema front, the defaults and the rendering).

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
)

// CompareMethods are the methods of Compare in table order: NonPrivate,
// Public (the public columns only), DP (DP-SGD on all columns) and
// FDP-Alg1 (Algorithm 1).
var CompareMethods = []Method{NonPrivate, PublicOnly, DP, Alg1}

// compareFigure names the runs of Compare in their rows and cell seeds;
// it is part of the seed derivation, so changing it changes every result.
const compareFigure = "dpnb-featuredp"

// compareSplitStream is the PCG stream of the train/test split (with
// CompareConfig.Seed as the seed).
const compareSplitStream = 0x66647031

// MaxCompareCells bounds the number of training runs of one Compare
// (Seeds·(2·len(Eps) + 2)); MaxCompareParams bounds the parameters of its
// model (D·H + H + H·K + K for the MLP), so that a mistyped Seeds or
// Hidden is an error, not an unbounded allocation.
const (
	MaxCompareCells  = 1 << 20
	MaxCompareParams = 1 << 24
)

// CompareConfig configures Compare. Every field must be set except Rate,
// Ball, Levels, Workers and Progress (dpnb.FeatureDPOptions documents the
// defaults the one-call helper fills in).
type CompareConfig struct {
	// Eps are the target ε values (distinct, finite, > 0); Delta is δ in
	// (0, 1).
	Eps   []float64
	Delta float64
	// Rate is the Poisson rate q in (0, 1]; 0 means min(1, 200/n) with n
	// the number of training rows. Steps is the number T ≥ 1 of private
	// steps.
	Rate  float64
	Steps int
	// Clip is the per-example clip norm C, Alpha the weight α of the noisy
	// private gradient of Algorithm 1, LR the SGD learning rate (all finite
	// > 0).
	Clip, Alpha, LR float64
	// Hidden > 0 trains a tanh MLP with that many hidden units, 0 logistic
	// (two classes) or softmax regression; Float32 runs the MLP's matrix
	// products in single precision (MLP only).
	Hidden  int
	Float32 bool
	// TestFraction in (0, 1) of the rows is held out for the accuracy;
	// Seeds ≥ 1 repeats per (method, ε).
	TestFraction float64
	Seeds        int
	// Ball is the prior mass (Def. 8) of the best guess of a sensitive
	// column without the model, given the record's public columns and
	// label; every key must be a sensitive column, every value in (0, 1]
	// and at least 1/len(Levels[key]). Levels are the public levels of the
	// sensitive columns. A column without Ball gets no bound
	// (Comparison.NoBound, NoBallReason): no prior is assumed.
	Ball   map[string]float64
	Levels map[string][]string
	// Seed seeds the split and the cells; Mode is the training's
	// randomness (mechanisms.Reproducible or Secure; the split stays
	// seeded either way).
	Seed uint64
	Mode mechanisms.Mode
	// Workers evaluate the cells (≤ 0: all cores); Progress, if set, is
	// called as cells finish.
	Workers  int
	Progress func(done, total int)
}

// ColumnBound is the Thm 4 attribute-inference bound of one sensitive
// column at one ε: any adversary's success at guessing it (within the
// metric ball of prior mass Ball) from the released model is at most
// min(1, e^ε·Ball + δ) — the same for DP and feature DP at the same ε.
type ColumnBound struct {
	Column string
	Ball   float64
	Eps    float64
	Bound  float64
}

// UnboundedColumn is a sensitive column without a Thm 4 bound, and why.
type UnboundedColumn struct {
	Column string
	Reason string
}

// Comparison is the outcome of Compare.
type Comparison struct {
	// Results has one accuracy row per (method, ε, replicate) in the order
	// of CompareMethods, ε, replicate, with the extra columns
	// epsilon_spent (+Inf for NonPrivate, 0 for Public) and z (DP and
	// FDP-Alg1 only); Summary summarises it per (method, ε).
	Results *experiments.Results
	Summary []experiments.Summary
	// Multipliers[k] is the calibrated noise multiplier z of Eps[k], the
	// same for DP and FDP-Alg1; Rate is the Poisson rate q used.
	Eps, Multipliers []float64
	Rate             float64
	// Public and Private are the public and sensitive raw features.
	Public, Private []string
	// Bounds holds the Thm 4 bound of every sensitive column with a given
	// Ball at every ε; NoBound the other sensitive columns.
	Bounds  []ColumnBound
	NoBound []UnboundedColumn
}

// Compare trains a classifier on enc four ways (CompareMethods) at each
// target (ε, δ) and reports the test accuracy, the ε spent and the Thm 4
// attribute-inference bound of every sensitive column with a Ball in
// cfg.Ball (the others are listed in NoBound, with the reason).
//
// What is accounted: every ε spent (DP's and FDP-Alg1's alike) holds under
// feature DP's simulator relation FDP_i^Ψ (Def. 6 of the feature-DP paper:
// the run on S with a record x against a simulator that sees S and only
// the public view Ψ(x) — the public columns and the label, the sensitive
// encoded columns zeroed). DP-SGD protects whole records; it is stated
// under the same relation (DP implies it, Prop. 2; its divisor q·n reads
// the training-row count, which a simulator knows but add/remove DP does
// not). For the replacement relation FDP_r^Ψ (Def. 5: one record's
// sensitive columns change, Ψ(x) fixed) an (ε, δ) here gives
// (2ε, δ(1 + e^ε)) (Prop. 1, SimulatorToReplacement).
// How: the noise multiplier z of each ε is calibrated once (tight root of
// the RDP of the Poisson-subsampled Gaussian at rate q over T steps,
// Opacus orders, improved RDP → (ε, δ) conversion; package accounting) and
// used by both DP-SGD and Algorithm 1, whose private gradient
// ℓ(x) − ℓ(Ψ(x)) is clipped and noised while the public gradient runs on an
// independent batch; the ε spent of every run is recomputed from its
// losses on the privacy ledger (Epsilon: the same subsampled-Gaussian RDP
// under the feature-simulator relation). See docs/feature-dp.md and
// Mahloujifar et al., "Machine Learning with Privacy for Protected
// Attributes" (IEEE S&P 2025), Algorithm 1, Thm 4 and Thm 5.
//
// The rows are split into training and test rows by cfg.Seed. Cells of
// the same replicate share their seed (common random numbers); the
// baselines (NonPrivate, Public) do not depend on ε: they are trained once
// per replicate and their rows repeated at every ε. A nil ctx is
// context.Background().
func Compare(ctx context.Context, enc *data.Encoded, cfg CompareConfig) (*Comparison, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("fdp: Compare: %w", err)
	}
	c, err := newComparison(enc, cfg)
	if err != nil {
		return nil, fmt.Errorf("fdp: Compare: %w", err)
	}
	if err := c.train(ctx, enc, cfg); err != nil {
		return nil, fmt.Errorf("fdp: Compare: %w", err)
	}
	if err := c.bounds(cfg); err != nil {
		return nil, fmt.Errorf("fdp: Compare: %w", err)
	}
	return c, nil
}

// Validate checks every field of cfg against its range (see
// CompareConfig); the error names the field and the valid range.
func (cfg CompareConfig) Validate() error {
	if len(cfg.Eps) == 0 {
		return errors.New("Eps is empty: give at least one target ε > 0")
	}
	for i, e := range cfg.Eps {
		if !(e > 0) || math.IsInf(e, 0) {
			return fmt.Errorf("Eps[%d] = %v: a target ε must be finite and > 0", i, e)
		}
		if j := slices.Index(cfg.Eps, e); j < i {
			return fmt.Errorf("Eps[%d] = Eps[%d] = %v: the target ε values must be distinct (a repeated ε would repeat the same seeded runs)", j, i, e)
		}
	}
	switch {
	case !(cfg.Delta > 0 && cfg.Delta < 1):
		return fmt.Errorf("Delta = %v, want δ in (0, 1)", cfg.Delta)
	case cfg.Rate != 0 && !(cfg.Rate > 0 && cfg.Rate <= 1):
		return fmt.Errorf("Rate = %v, want the Poisson rate q in (0, 1] (or 0 for min(1, 200/n))", cfg.Rate)
	case cfg.Steps < 1:
		return fmt.Errorf("Steps = %d, want T ≥ 1", cfg.Steps)
	case cfg.Seeds < 1 || cfg.Seeds > MaxCompareCells/(2*len(cfg.Eps)+2):
		return fmt.Errorf("Seeds = %d, want ≥ 1 repeat per (method, ε) and at most %d runs in all (Seeds·(2·len(Eps)+2))",
			cfg.Seeds, MaxCompareCells)
	case cfg.Hidden < 0 || cfg.Hidden > MaxCompareParams:
		return fmt.Errorf("Hidden = %d, want in [0, %d] (0: logistic or softmax regression)", cfg.Hidden, MaxCompareParams)
	case cfg.Float32 && cfg.Hidden == 0:
		return errors.New("Float32 applies to the MLP only: set Hidden > 0 or leave Float32 false")
	case !(cfg.TestFraction > 0 && cfg.TestFraction < 1):
		return fmt.Errorf("TestFraction = %v, want in (0, 1)", cfg.TestFraction)
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"Clip", cfg.Clip}, {"Alpha", cfg.Alpha}, {"LR", cfg.LR}} {
		if !(p.v > 0) || math.IsInf(p.v, 0) {
			return fmt.Errorf("%s = %v, want finite > 0", p.name, p.v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(cfg.Ball)) {
		if err := CheckBall(data.Column{Name: k, Levels: cfg.Levels[k]}, cfg.Ball[k]); err != nil {
			return err
		}
	}
	return cfg.Mode.Validate()
}

// newComparison checks enc (a classification encoding with at least two
// classes and one sensitive feature, every Ball and Levels key one of its
// sensitive features) and returns the comparison with its features listed.
func newComparison(enc *data.Encoded, cfg CompareConfig) (*Comparison, error) {
	switch {
	case enc == nil:
		return nil, errors.New("nil encoding")
	case enc.Task != data.Classification:
		return nil, errors.New("the schema's task must be classification")
	case len(enc.Classes) < 2:
		return nil, errors.New("the label has fewer than 2 classes")
	}
	c := &Comparison{Eps: cfg.Eps}
	for i, name := range enc.FeatureNames {
		if enc.FeatureSensitive[i] {
			c.Private = append(c.Private, name)
		} else {
			c.Public = append(c.Public, name)
		}
	}
	if len(c.Private) == 0 {
		return nil, errors.New("no sensitive column to protect")
	}
	if d, h, k := enc.D, cfg.Hidden, len(enc.Classes); h > 0 && (d+k+1 > MaxCompareParams/h || d*h+h+h*k+k > MaxCompareParams) {
		return nil, fmt.Errorf("Hidden = %d: the MLP would have %d inputs × %d hidden units × %d classes, more than %d parameters; use fewer hidden units",
			h, d, h, k, MaxCompareParams)
	}
	for _, f := range []struct {
		name string
		keys []string
	}{{"Ball", slices.Sorted(maps.Keys(cfg.Ball))}, {"Levels", slices.Sorted(maps.Keys(cfg.Levels))}} {
		for _, k := range f.keys {
			if !slices.Contains(c.Private, k) {
				return nil, fmt.Errorf("%s: %q is not a sensitive column (sensitive columns: %s)", f.name, k, strings.Join(c.Private, ", "))
			}
		}
	}
	return c, nil
}

// compareData splits enc into training and test rows (seeded by seed) and
// returns them with the public view Ψ of the training rows.
func compareData(enc *data.Encoded, testFraction float64, seed uint64) (train, test, psi *design.Data, err error) {
	trainIdx, testIdx, err := data.SplitIndices(enc.N, testFraction, rand.New(rand.NewPCG(seed, compareSplitStream)))
	if err != nil {
		return nil, nil, nil, err
	}
	if train, err = EncodedRows(enc, trainIdx, false); err != nil {
		return nil, nil, nil, err
	}
	if test, err = EncodedRows(enc, testIdx, false); err != nil {
		return nil, nil, nil, err
	}
	if psi, err = EncodedRows(enc, trainIdx, true); err != nil {
		return nil, nil, nil, err
	}
	return train, test, psi, nil
}

// calibrate sets c.Rate (cfg.Rate, or min(1, 200/n) for n training rows)
// and the multiplier z of every ε, and returns z by ε.
func (c *Comparison) calibrate(cfg CompareConfig, n int) (map[float64]float64, error) {
	c.Rate = cfg.Rate
	if c.Rate == 0 {
		c.Rate = math.Min(1, 200/float64(n))
	}
	zOf := map[float64]float64{}
	for _, e := range cfg.Eps {
		z, err := accounting.NoiseMultiplier(e, cfg.Delta, c.Rate, cfg.Steps, accounting.DefaultOrders(), accounting.DefaultConversion)
		if err != nil {
			if errors.Is(err, accounting.ErrUnreachable) {
				return nil, fmt.Errorf("calibrating z for ε = %v: the comparison accounts as Opacus does, on its order grid (up to 63), "+
					"where the conversion alone costs about log(1/δ)/62: raise ε or Delta (%w)", e, err)
			}
			return nil, fmt.Errorf("calibrating z for ε = %v (Eps, Delta, Rate, Steps): %w", e, err)
		}
		c.Multipliers = append(c.Multipliers, z)
		zOf[e] = z
	}
	return zOf, nil
}

// modelMaker returns the constructor of the model of cfg for d inputs and
// k classes: the MLP if cfg.Hidden > 0, else logistic (k = 2) or softmax
// regression.
func modelMaker(cfg CompareConfig, d, k int) func() (models.Model, error) {
	return func() (models.Model, error) {
		switch {
		case cfg.Hidden > 0:
			m, err := models.NewMLP(d, cfg.Hidden, k, models.Tanh, models.HeadSoftmaxCE)
			if err == nil {
				m.Float32 = cfg.Float32
			}
			return m, err
		case k == 2:
			return models.NewLogistic(d, true, 0)
		default:
			return models.NewSoftmax(d, k)
		}
	}
}

// train calibrates z per ε and runs the cells (method × ε × seed).
func (c *Comparison) train(ctx context.Context, enc *data.Encoded, cfg CompareConfig) error {
	train, test, psi, err := compareData(enc, cfg.TestFraction, cfg.Seed)
	if err != nil {
		return fmt.Errorf("TestFraction: %w", err)
	}
	seen := map[float64]bool{}
	for _, y := range train.Y {
		seen[y] = true
	}
	if len(seen) < 2 {
		return fmt.Errorf("the %d training rows hold %d class of the label: comparing classifiers needs rows of at least 2 classes "+
			"(every accuracy would be 1 or 0)", train.N, len(seen))
	}
	zOf, err := c.calibrate(cfg, train.N)
	if err != nil {
		return err
	}
	newModel := modelMaker(cfg, enc.D, len(enc.Classes))
	run := func(ctx context.Context, cell experiments.Cell) ([]experiments.Measurement, error) {
		cc := cell.Config.(compareCell)
		model, err := newModel()
		if err != nil {
			return nil, err
		}
		s := Setup{Model: model, Data: train, PubData: psi, Rate: c.Rate, Multiplier: cc.Z, Clip: cfg.Clip,
			Steps: cfg.Steps, Alpha: cfg.Alpha, Optimizer: mechanisms.SGD{LR: cfg.LR}, Seed: cell.Seed, Mode: cfg.Mode}
		acc, spent, err := CompareRun(ctx, cc.Method, s, test, cfg.Delta)
		if err != nil {
			return nil, err
		}
		num := map[string]float64{"epsilon_spent": spent}
		if cc.Method.Private() {
			num["z"] = cc.Z // NonPrivate and Public add no noise: no multiplier
		}
		return []experiments.Measurement{{Metric: "accuracy", Value: acc, Num: num}}, nil
	}
	rr, err := experiments.Run(ctx, compareCells(cfg, zOf), run,
		experiments.RunOptions{Workers: cfg.Workers, Progress: cfg.Progress, Figure: compareFigure})
	if err != nil {
		return err
	}
	c.Results = replicateBaselines(rr, cfg.Eps)
	c.Summary = experiments.Summarize(c.Results)
	return nil
}

// compareCell is the Config of a Compare cell: the method and the noise
// multiplier calibrated for the cell's ε.
type compareCell struct {
	Method Method
	Z      float64
}

// String describes the cell configuration for error messages.
func (c compareCell) String() string { return fmt.Sprintf("method=%s, z=%g", c.Method, c.Z) }

// Private reports whether m adds noise: false for the baselines
// NonPrivate and Public, true for the private methods.
func (m Method) Private() bool { return m != NonPrivate && m != PublicOnly }

// compareCells lists the cells of Compare: every private method at every
// ε, and the baselines (NonPrivate, Public), which do not depend on ε, once
// per seed at the first ε (replicateBaselines copies them to the others).
// Cells of the same replicate share their seed (common random numbers); a
// baseline's seed does not depend on ε.
func compareCells(cfg CompareConfig, zOf map[float64]float64) []experiments.Cell {
	var cells []experiments.Cell
	for _, m := range CompareMethods {
		xs := cfg.Eps
		if !m.Private() {
			xs = cfg.Eps[:1]
		}
		for _, x := range xs {
			for rep := 0; rep < cfg.Seeds; rep++ {
				seedX := x
				if !m.Private() {
					seedX = 0
				}
				cells = append(cells, experiments.Cell{Method: string(m), X: x, Rep: rep, Config: compareCell{Method: m, Z: zOf[x]},
					Seed: experiments.CellSeed(cfg.Seed, compareFigure, "", seedX, rep)})
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
	for _, m := range CompareMethods {
		var rows []experiments.Row
		for _, row := range rr.Rows {
			if row.Method == string(m) {
				rows = append(rows, row)
			}
		}
		if m.Private() {
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

// bounds fills Bounds with the Thm 4 bound of every sensitive column at
// every ε with a Ball in cfg.Ball and NoBound with the others (nothing
// here may assume a prior: NoBallReason).
func (c *Comparison) bounds(cfg CompareConfig) error {
	for _, name := range c.Private {
		ball, given := cfg.Ball[name]
		if !given {
			c.NoBound = append(c.NoBound, UnboundedColumn{Column: name, Reason: NoBallReason(data.Column{Name: name, Levels: cfg.Levels[name]})})
			continue
		}
		for _, e := range cfg.Eps {
			b, err := AttributeInferenceBound(e, cfg.Delta, ball)
			if err != nil {
				return fmt.Errorf("column %s: %w", name, err)
			}
			c.Bounds = append(c.Bounds, ColumnBound{Column: name, Ball: ball, Eps: e, Bound: b})
		}
	}
	return nil
}

// NoiseMultiplier returns the calibrated z of method at target eps: NaN
// for the baselines (NonPrivate, Public: no noise), for an ε not in c.Eps
// and for a nil *Comparison (no ε calibrated).
func (c *Comparison) NoiseMultiplier(method Method, eps float64) float64 {
	if c == nil {
		return math.NaN()
	}
	if k := slices.Index(c.Eps, eps); k >= 0 && method.Private() {
		return c.Multipliers[k]
	}
	return math.NaN()
}
