package figures

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gota/gota/dataframe"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/corrdp"
)

// CompareOptions configure NewComparison (the logic of the one-call
// helper dpnb.CorrDPvsSemiVsStandard). Zero values give the defaults in
// brackets.
type CompareOptions struct {
	// Eps is the ε grid [EpsGrid]; Seeds per (method, ε) [5].
	Eps   []float64
	Seeds int
	// TV gives the TV of each insensitive raw feature (the "paper" mode);
	// nil estimates it from the data (TV~ = plug-in + Def. 4.3 UCB, c2 = 1,
	// capped at 1: a heuristic bound; the plug-in of a continuous feature
	// is corrdp.Checked's max of the paper's estimate and a binned one,
	// over Encode.Bounds when given). The estimate is always made.
	TV map[string]float64
	// Neighbours is N-one (one TV per feature) or N-jointU (one TV_max).
	Neighbours corrdp.TVScope
	// C is the paper-mode noise constant of σ0² = C(log(1/δ)+1)/ε²; 0
	// selects it by the Standard-only rule of docs/corrdp.md.
	C float64
	// Alpha is the constant GD step [0.05 classification, 0.001
	// regression]; Steps is T [1000]; Delta is δ [1e-5].
	Alpha float64
	Steps int
	Delta float64
	// Encode are the encoding options [MinMax scaling of continuous
	// features, full one-hot; regression adds an intercept]. The encoding
	// must not read the data: every MinMax (ZScore) column needs public
	// Bounds (Moments), every categorical column and the label public
	// levels (Levels or the schema's Column.Levels), unless
	// Encode.BoundsFromData / Encode.LevelsFromData opt in explicitly
	// (see data.EncodeOptions.RequirePublic).
	Encode *data.EncodeOptions
}

// Comparison is a user's frame prepared for the CorrDP comparison: the
// figure to execute (FrameFigure) and the prepared data behind it.
type Comparison struct {
	Figure experiments.Figure
	Prep   *RealPrep
	// FromData lists the encoding parameters fitted on the data by the
	// caller's explicit opt-in (empty when all were public).
	FromData data.DataDependence
}

// NewComparison validates the options, encodes df with schema, estimates
// the TVs and returns the unregistered comparison figure (logistic
// regression for a binary label, linear regression for a numeric one).
// It rejects a label with fewer or more than 2 classes, and an encoding
// that would fit bounds or levels on the data without the explicit opt-in
// (the error names the columns and the fix).
func NewComparison(df dataframe.DataFrame, schema data.Schema, opts CompareOptions) (*Comparison, error) {
	if err := schema.Validate(df); err != nil {
		return nil, err
	}
	eps, seeds, err := opts.grid()
	if err != nil {
		return nil, err
	}
	spec, enc, err := opts.spec(schema.Task)
	if err != nil {
		return nil, err
	}
	if err := enc.RequirePublic(schema); err != nil {
		return nil, fmt.Errorf("Encode: %w", err)
	}
	prep, err := NewFramePrep(df, schema, spec, enc)
	if err != nil {
		return nil, err
	}
	if schema.Task == data.Classification {
		if err := checkBinaryLabel(prep); err != nil {
			return nil, err
		}
	}
	modes := []TVMode{TVEstimated}
	if opts.TV != nil {
		modes = []TVMode{TVPaper, TVEstimated}
	}
	fig := FrameFigure("corrdp-user", prep, opts.C, eps, seeds, modes)
	fig.Title = "CorrDP vs Semi vs Standard on your data"
	fromData := enc.DataDependent(schema)
	if !fromData.Empty() {
		fig.Title += " (encoding fitted on the data: not DP)"
	}
	fig.YLabel = map[string]string{"accuracy": "training accuracy", "utility_gap": "F(θ) − F(θ̂)"}[spec.Metric]
	return &Comparison{Figure: fig, Prep: prep, FromData: fromData}, nil
}

// grid returns the ε grid and the number of seeds.
// MaxSeeds caps CompareOptions.Seeds: each seed is a training run per
// method and ε.
const MaxSeeds = 10000

func (o CompareOptions) grid() ([]float64, int, error) {
	eps := o.Eps
	if len(eps) == 0 {
		eps = EpsGrid
	}
	seen := map[float64]bool{}
	for _, e := range eps {
		if !(e > 0) || e != e || e > 1e6 {
			return nil, 0, fmt.Errorf("ε = %v, want finite > 0", e)
		}
		if seen[e] {
			return nil, 0, fmt.Errorf("ε = %v is listed twice: give each ε once (Seeds sets the repetitions)", e)
		}
		seen[e] = true
	}
	seeds := o.Seeds
	switch {
	case seeds == 0:
		seeds = 5
	case seeds < 0 || seeds > MaxSeeds:
		return nil, 0, fmt.Errorf("Seeds = %d, want 1 to %d (0: 5)", seeds, MaxSeeds)
	}
	return eps, seeds, nil
}

// spec returns the experiment and encoding of the options for a task.
func (o CompareOptions) spec(task data.Task) (RealSpec, data.EncodeOptions, error) {
	delta := o.Delta
	if delta == 0 {
		delta = 1e-5
	}
	if !(delta > 0 && delta < 1) {
		return RealSpec{}, data.EncodeOptions{}, fmt.Errorf("δ = %v, want in (0, 1)", delta)
	}
	if !(o.C >= 0) || math.IsInf(o.C, 1) || !(o.Alpha >= 0) || math.IsInf(o.Alpha, 1) || o.Steps < 0 {
		return RealSpec{}, data.EncodeOptions{}, fmt.Errorf("C = %v, Alpha = %v, Steps = %d: want finite ≥ 0 (0: the default)", o.C, o.Alpha, o.Steps)
	}
	if o.Neighbours != corrdp.NOne && o.Neighbours != corrdp.JointU {
		return RealSpec{}, data.EncodeOptions{}, fmt.Errorf("Neighbours = %d: want corrdp.NOne or corrdp.JointU", o.Neighbours)
	}
	spec := RealSpec{Name: "corrdp-user", Delta: delta, Steps: o.Steps, Alpha: o.Alpha, PaperTV: o.TV, Neighbours: o.Neighbours}
	enc := data.EncodeOptions{Scale: data.MinMax}
	switch task {
	case data.Classification:
		spec.Kind, spec.Metric = "logistic", "accuracy"
		if spec.Alpha == 0 {
			spec.Alpha = 0.05
		}
	case data.Regression:
		spec.Kind, spec.Metric = "linear", "utility_gap"
		enc.Intercept = true
		if spec.Alpha == 0 {
			spec.Alpha = 0.001
		}
	default:
		return spec, enc, errors.New("the schema's task must be Classification (binary) or Regression")
	}
	if o.Encode != nil {
		enc = *o.Encode
	}
	if spec.Steps == 0 {
		spec.Steps = 1000
	}
	return spec, enc, nil
}

// TVs returns, per insensitive raw feature, the TV the CorrDP curve used
// (given or TV~) and the UCB estimate TV~.
func (c *Comparison) TVs() (used, estimated map[string]float64) {
	used, estimated = map[string]float64{}, map[string]float64{}
	enc := c.Prep.Encoded
	for j, fi := range enc.Feature {
		if enc.Sensitive[j] {
			continue
		}
		name := enc.FeatureNames[fi]
		used[name] = c.Prep.TVPaper[j]
		estimated[name] = c.Prep.TVEstimated[j]
	}
	return used, estimated
}

// Constant returns the noise constant C the comparison's rows used (given
// or calibrated), and false if no row has one.
func Constant(res *experiments.Results) (float64, bool) {
	for _, r := range res.Rows {
		if c, ok := r.Number("C"); ok {
			return c, true
		}
	}
	return 0, false
}

// checkBinaryLabel rejects a classification label that does not have
// exactly two classes, or whose rows all fall in one class (declared
// levels that never occur do not count).
func checkBinaryLabel(prep *RealPrep) error {
	if k := len(prep.Encoded.Classes); k > 2 {
		return fmt.Errorf("%d classes; only binary classification is supported", k)
	}
	seen := map[float64]bool{}
	for _, y := range prep.Data.Y {
		seen[y] = true
	}
	if len(seen) < 2 {
		return fmt.Errorf("the label has fewer than 2 classes in the data (levels %q, %d distinct in %d rows); a classifier comparison needs both classes",
			prep.Encoded.Classes, len(seen), len(prep.Data.Y))
	}
	return nil
}
