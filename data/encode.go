package data

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/suggest"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// MaxEncodedValues bounds N·D, the size of the design matrix Transform
// builds (2^27 float64s, 1 GiB), so that a high-cardinality column marked
// Categorical fails with an error instead of exhausting memory.
const MaxEncodedValues = 1 << 27

// encodedValuesCap is the cap checkSize applies: MaxEncodedValues, lowered
// by tests so that going over it does not take a GiB.
var encodedValuesCap = MaxEncodedValues

// Scaling selects how continuous columns are rescaled.
type Scaling int

const (
	// NoScaling keeps the raw values.
	NoScaling Scaling = iota
	// MinMax maps [min, max] to [0, 1]: (x − min)/(max − min); a constant
	// column maps to 0.
	MinMax
	// ZScore standardises: (x − mean)/sd with the population sd; a
	// constant column maps to 0.
	ZScore
)

// String returns "none", "minmax" or "zscore".
func (s Scaling) String() string {
	switch s {
	case NoScaling:
		return "none"
	case MinMax:
		return "minmax"
	case ZScore:
		return "zscore"
	}
	return fmt.Sprintf("Scaling(%d)", int(s))
}

// Range is a public [Lo, Hi] bound for MinMax scaling.
type Range struct {
	// Lo and Hi are the bounds; Lo < Hi.
	Lo, Hi float64
}

// Moments are a public mean and standard deviation for ZScore scaling.
type Moments struct {
	// Mean is subtracted, then the value is divided by SD (> 0).
	Mean, SD float64
}

// EncodeOptions configure FitEncoder and Encode.
//
// Fitted scaling parameters (min, max, mean, sd) and fitted category levels
// are functions of the data and are NOT differentially private. Give public
// values in Bounds, Moments, Levels (or Column.Levels) to keep the encoding
// data-independent. FitEncoder and Encode fit whatever is not given (they
// are preprocessing, not a release); the private one-call helpers (package
// dpnb) call RequirePublic first and refuse to fit on the data unless the
// caller opts in with BoundsFromData or LevelsFromData.
type EncodeOptions struct {
	// DropFirst drops the first level of every categorical feature
	// (pandas get_dummies(drop_first=True)); otherwise all levels get a
	// column.
	DropFirst bool
	// Scale is the scaling of continuous features.
	Scale Scaling
	// ScaleFor overrides Scale for the named features.
	ScaleFor map[string]Scaling
	// Bounds gives public MinMax bounds per feature. Values outside are
	// clipped to the bounds, so encoded values stay in [0, 1].
	Bounds map[string]Range
	// Moments gives public ZScore parameters per feature.
	Moments map[string]Moments
	// Levels gives the public category levels of a categorical feature or
	// of a classification label, in encoding order; it overrides the
	// schema's Column.Levels. A value not among the levels at Transform
	// time is an error wrapping ErrUnknownLevel that names the column and
	// the value (there is no "other" bucket: add the level, or map the
	// value before encoding).
	Levels map[string][]string
	// BoundsFromData is the explicit opt-in to fit the scaling parameters
	// that have no public value (MinMax min and max without Bounds, ZScore
	// mean and sd without Moments, a scaled regression label) on the data
	// itself. Those parameters are NOT differentially private: the private
	// helpers then say so prominently in their results. Without it,
	// RequirePublic rejects such an encoding.
	BoundsFromData bool
	// LevelsFromData is the explicit opt-in to take the category levels
	// (and the classification label's classes) that have no public value
	// (Levels or Column.Levels) from the values that occur in the data.
	// Which values occur is NOT differentially private: the private helpers
	// then say so prominently. Without it, RequirePublic rejects such an
	// encoding.
	LevelsFromData bool
	// LabelScale scales a regression label (NoScaling by default). The
	// fitted parameters are kept in the Encoder to undo the scaling.
	LabelScale Scaling
	// LabelBounds is the public range [Lo, Hi] of a regression label: the
	// label is clipped to it and scaled to [0, 1], y' = (clip(y) − Lo)/(Hi
	// − Lo), with nothing fitted on the data (the Encoder keeps Lo and
	// Hi − Lo to undo it, and LabelClip). Not with LabelScale.
	LabelBounds *Range `json:",omitempty"`
	// Intercept appends a constant-1 column, as an extra Sensitive raw
	// feature named "(intercept)".
	Intercept bool
}

// FeatureEncoding is the fitted encoding of one raw feature.
type FeatureEncoding struct {
	// Column is the schema entry of the feature.
	Column Column
	// Levels are the categorical levels, in encoding order (all of them,
	// including a dropped first level).
	Levels []string
	// Scale is the scaling applied to a continuous feature.
	Scale Scaling
	// Lo, Hi are the MinMax bounds; Mean, SD the ZScore parameters.
	Lo, Hi, Mean, SD float64
	// Public reports that the parameters above came from the options or the
	// schema, not from the data (a NoScaling feature has none: public).
	Public bool
	// Clip reports that values are clipped to [Lo, Hi] before scaling.
	Clip bool
}

// Encoder is a fitted encoding of a DataFrame into a design matrix. Fit it
// on training data with FitEncoder and apply it to any DataFrame with the
// same columns with Transform.
type Encoder struct {
	// Schema is the schema the encoder was fitted with.
	Schema Schema
	// Options are the options it was fitted with.
	Options EncodeOptions
	// Features are the fitted raw features, in Schema.Features order.
	Features []FeatureEncoding
	// Classes are the label's classes (classification).
	Classes []string
	// LabelShift, LabelDiv undo label scaling: y_raw = y·LabelDiv + LabelShift.
	LabelShift, LabelDiv float64
	// LabelClip clips a regression label to [LabelShift, LabelShift +
	// LabelDiv] before scaling (public EncodeOptions.LabelBounds).
	LabelClip bool `json:",omitempty"`
}

// Encoded is a numeric design matrix with its provenance.
type Encoded struct {
	// X holds N rows of D encoded columns, row-major.
	X []float64
	// Y holds one label per row: a class index for classification, the
	// (possibly scaled) target for regression, 0 for unsupervised data.
	Y []float64
	// N is the number of rows, D the number of encoded columns.
	N, D int
	// Columns names every encoded column ("age", "race=White", ...).
	Columns []string
	// Feature is, for every encoded column, the index of its raw feature in
	// FeatureNames.
	Feature []int
	// Sensitive is, for every encoded column, whether its raw feature is
	// Sensitive.
	Sensitive []bool
	// FeatureNames are the raw features in schema order.
	FeatureNames []string
	// FeatureSensitive is, for every raw feature, whether it is Sensitive.
	FeatureSensitive []bool
	// Classes are the label classes (classification only).
	Classes []string
	// Task is the schema's task.
	Task Task
}

// FitEncoder validates df against schema and fits the encoding: category
// levels (unless Column.Levels are given), scaling parameters (unless public
// Bounds or Moments are given) and the label classes. Fitting reads the
// data; the fitted values are not private.
func FitEncoder(df dataframe.DataFrame, schema Schema, opts EncodeOptions) (*Encoder, error) {
	if err := schema.Validate(df); err != nil {
		return nil, fmt.Errorf("data: FitEncoder: %w", err)
	}
	if err := checkEncodeOptions(schema, opts); err != nil {
		return nil, fmt.Errorf("data: FitEncoder: %w", err)
	}
	feats := schema.Features()
	if len(feats) == 0 {
		return nil, fmt.Errorf("data: FitEncoder: the schema has no Sensitive or Public feature: %w", ErrSchema)
	}
	if df.Nrow() == 0 {
		return nil, fmt.Errorf("data: FitEncoder: the DataFrame has no rows")
	}
	enc := &Encoder{Schema: schema.Clone(), Options: opts, LabelDiv: 1}
	for _, c := range feats {
		col := df.Col(c.Name)
		fe := FeatureEncoding{Column: c}
		switch c.Kind {
		case Categorical:
			if lv := opts.publicLevels(c); len(lv) > 0 {
				fe.Levels = slices.Clone(lv)
				fe.Public = true
			} else {
				fe.Levels = distinctLevels(col)
			}
		case Continuous:
			vals, err := numericColumn(col, c.Name)
			if err != nil {
				return nil, fmt.Errorf("data: FitEncoder: %w", err)
			}
			fe.Scale = opts.ScaleOf(c.Name)
			switch fe.Scale {
			case NoScaling:
				fe.Public = true // nothing fitted
			case MinMax:
				if b, ok := opts.Bounds[c.Name]; ok {
					fe.Lo, fe.Hi, fe.Public, fe.Clip = b.Lo, b.Hi, true, true
				} else {
					fe.Lo, fe.Hi = minMax(vals)
				}
			case ZScore:
				if m, ok := opts.Moments[c.Name]; ok {
					fe.Mean, fe.SD, fe.Public = m.Mean, m.SD, true
				} else {
					fe.Mean, fe.SD = meanSD(vals)
				}
			}
			if err := fe.checkFitted(); err != nil {
				return nil, fmt.Errorf("data: FitEncoder: %w", err)
			}
		}
		enc.Features = append(enc.Features, fe)
	}
	if l, ok := schema.Label(); ok {
		col := df.Col(l.Name)
		switch schema.Task {
		case Classification:
			if lv := opts.publicLevels(l); len(lv) > 0 {
				enc.Classes = slices.Clone(lv)
			} else {
				enc.Classes = distinctLevels(col)
			}
		case Regression:
			vals, err := numericColumn(col, l.Name)
			if err != nil {
				return nil, fmt.Errorf("data: FitEncoder: %w", err)
			}
			switch opts.LabelScale {
			case MinMax:
				lo, hi := minMax(vals)
				enc.LabelShift, enc.LabelDiv = lo, hi-lo
			case ZScore:
				enc.LabelShift, enc.LabelDiv = meanSD(vals)
			}
			if enc.LabelDiv == 0 {
				enc.LabelDiv = 1
			}
			enc.setLabelBounds()
			if !valid.Finite(enc.LabelShift) || !valid.Finite(enc.LabelDiv) {
				return nil, fmt.Errorf("data: FitEncoder: the %v scaling of label %q fitted on the data is not finite (shift %v, divisor %v): "+
					"the label's values span more than float64 holds: give public LabelBounds of its real range instead of LabelScale", opts.LabelScale, l.Name, enc.LabelShift, enc.LabelDiv)
			}
		}
	}
	return enc, nil
}

// checkFitted refuses a scaling fitted on the data whose width Hi − Lo or
// moments overflow float64 (values near ±1.8e308): the encoding would
// hold NaN or 0 for every value.
func (fe FeatureEncoding) checkFitted() error {
	switch {
	case fe.Scale == MinMax && !valid.Finite(fe.Hi-fe.Lo):
		return fmt.Errorf("column %q: the MinMax range [%v, %v] fitted on the data has a width Hi − Lo that overflows float64: "+
			"give public Bounds of the column's real range (featuredp: --bounds %s=LO:HI)", fe.Column.Name, fe.Lo, fe.Hi, fe.Column.Name)
	case fe.Scale == ZScore && !(valid.Finite(fe.Mean) && valid.Finite(fe.SD)):
		return fmt.Errorf("column %q: the ZScore moments fitted on the data are not finite (mean %v, sd %v: its values overflow float64): "+
			"give public Moments, or public Bounds with MinMax scaling", fe.Column.Name, fe.Mean, fe.SD)
	}
	return nil
}

// ScaleOf is the scaling of continuous feature name: ScaleFor's, else
// Scale.
func (o EncodeOptions) ScaleOf(name string) Scaling {
	if s, ok := o.ScaleFor[name]; ok {
		return s
	}
	return o.Scale
}

func checkEncodeOptions(schema Schema, opts EncodeOptions) error {
	var errs []error
	validScale := func(s Scaling) bool { return s >= NoScaling && s <= ZScore }
	if !validScale(opts.Scale) {
		errs = append(errs, fmt.Errorf("invalid Scale %v", opts.Scale))
	}
	if !validScale(opts.LabelScale) {
		errs = append(errs, fmt.Errorf("invalid LabelScale %v", opts.LabelScale))
	}
	if b := opts.LabelBounds; b != nil {
		_, hasLabel := schema.Label()
		switch {
		case schema.Task != Regression || !hasLabel:
			errs = append(errs, errors.New("LabelBounds applies to a regression label: the schema has none"))
		case opts.LabelScale != NoScaling:
			errs = append(errs, errors.New("LabelBounds and LabelScale both scale the label: give one (LabelBounds is public)"))
		case !(b.Lo < b.Hi) || !valid.Finite(b.Lo) || !valid.Finite(b.Hi) || !valid.Finite(b.Hi-b.Lo):
			errs = append(errs, fmt.Errorf("LabelBounds must be finite with Lo < Hi, got [%v, %v]", b.Lo, b.Hi))
		}
	}
	isCont := func(name string) bool {
		c, ok := schema.Lookup(name)
		return ok && c.Kind == Continuous && (c.Role == Sensitive || c.Role == Public)
	}
	for _, name := range sortedKeys(opts.ScaleFor) {
		s := opts.ScaleFor[name]
		if !isCont(name) {
			errs = append(errs, fmt.Errorf("ScaleFor names %q, which is not a continuous feature of the schema", name))
		}
		if !validScale(s) {
			errs = append(errs, fmt.Errorf("invalid scaling %v for %q", s, name))
		}
	}
	for _, name := range sortedKeys(opts.Bounds) {
		b := opts.Bounds[name]
		if !isCont(name) {
			errs = append(errs, notAFeature(schema, name))
		}
		if err := checkBounds(name, b); err != nil {
			errs = append(errs, err)
		}
		if sc := opts.ScaleOf(name); isCont(name) && sc != MinMax {
			errs = append(errs, fmt.Errorf("Bounds of %q are given but its scaling is %v, which does not use them (the raw values would be used): "+
				"set Scale: data.MinMax (or ScaleFor[%q] = data.MinMax)", name, sc, name))
		}
	}
	errs = append(errs, checkLevelsOption(schema, opts.Levels)...)
	for _, name := range sortedKeys(opts.Moments) {
		m := opts.Moments[name]
		if !isCont(name) {
			errs = append(errs, fmt.Errorf("Moments names %q, which is not a continuous feature of the schema", name))
		}
		if !(m.SD > 0) || !valid.Finite(m.SD) || !valid.Finite(m.Mean) {
			errs = append(errs, fmt.Errorf("moments of %q must be finite with SD > 0, got mean %v, sd %v", name, m.Mean, m.SD))
		}
		if sc := opts.ScaleOf(name); isCont(name) && sc != ZScore {
			errs = append(errs, fmt.Errorf("Moments of %q are given but its scaling is %v, which does not use them: "+
				"set Scale: data.ZScore (or ScaleFor[%q] = data.ZScore)", name, sc, name))
		}
	}
	return errors.Join(errs...)
}

// notAFeature is the error of a Bounds entry naming a column that is not
// a continuous feature; for a regression label it points to LabelBounds.
func notAFeature(schema Schema, name string) error {
	if l, ok := schema.Label(); ok && l.Name == name && schema.Task == Regression {
		return fmt.Errorf("Bounds names %q, the regression label: give its public range as EncodeOptions.LabelBounds "+
			"(LabelBounds: &data.Range{Lo: …, Hi: …}; featuredp train: --bounds on the label), not in Bounds", name)
	}
	cont := continuousFeatures(schema)
	return fmt.Errorf("Bounds names %q, which is not a continuous feature of the schema%s (continuous features: %s)",
		name, suggest.Hint(name, cont), quoteList(cont))
}

// checkBounds checks the public MinMax bounds of feature name: finite,
// Lo < Hi, and a width Hi − Lo that float64 holds (a wider range would
// scale every value to NaN or 0).
func checkBounds(name string, b Range) error {
	if !(b.Lo < b.Hi) || !valid.Finite(b.Lo) || !valid.Finite(b.Hi) {
		return fmt.Errorf("bounds of %q must be finite with Lo < Hi, got [%v, %v]", name, b.Lo, b.Hi)
	}
	if !valid.Finite(b.Hi - b.Lo) {
		return fmt.Errorf("bounds of %q are [%v, %v], whose width Hi − Lo overflows float64 (every value would scale to NaN or 0): "+
			"narrow the Bounds entry (featuredp: --bounds %s=LO:HI) to the column's real range", name, b.Lo, b.Hi, name)
	}
	return nil
}

// Transform encodes df with the fitted encoder. df must have the columns of
// the encoder's schema; a categorical value that was not seen at fitting
// time (or is not in the declared Levels) is an error.
func (e *Encoder) Transform(df dataframe.DataFrame) (*Encoded, error) {
	if e == nil {
		return nil, fmt.Errorf("data: Transform: %w", errNilEncoder)
	}
	if err := e.Validate(); err != nil {
		return nil, fmt.Errorf("data: Transform: %w", err)
	}
	if err := e.Schema.Validate(df); err != nil {
		return nil, fmt.Errorf("data: Transform: %w", err)
	}
	out := e.layout(df.Nrow())
	if err := e.checkSize("Transform", out.N, out.D, ""); err != nil {
		return nil, err
	}
	out.X = make([]float64, out.N*out.D)
	if err := e.fillX(df, out); err != nil {
		return nil, err
	}
	if err := e.fillY(df, out); err != nil {
		return nil, err
	}
	return out, nil
}

// Width returns the number of encoded columns D the encoder produces (one
// per continuous feature, one per kept level of a categorical feature, and
// the intercept column), counted without building the column names (a
// hostile model file's millions of levels cost nothing here); 0 for a nil
// *Encoder.
func (e *Encoder) Width() int {
	if e == nil {
		return 0
	}
	d := 0
	for _, fe := range e.Features {
		switch {
		case fe.Column.Kind != Categorical:
			d++
		case e.Options.DropFirst:
			d += max(len(fe.Levels)-1, 0)
		default:
			d += len(fe.Levels)
		}
	}
	if e.Options.Intercept {
		d++
	}
	return d
}

// layout returns an Encoded for n rows with its column metadata filled in
// (names, raw features, roles and D) but no X or Y yet.
func (e *Encoder) layout(n int) *Encoded {
	out := &Encoded{N: n, Task: e.Schema.Task, Classes: slices.Clone(e.Classes)}
	for fi, fe := range e.Features {
		out.FeatureNames = append(out.FeatureNames, fe.Column.Name)
		out.FeatureSensitive = append(out.FeatureSensitive, fe.Column.Role == Sensitive)
		if fe.Column.Kind == Categorical {
			start := 0
			if e.Options.DropFirst {
				start = 1
			}
			for _, l := range fe.Levels[min(start, len(fe.Levels)):] {
				out.Columns = append(out.Columns, fe.Column.Name+"="+l)
				out.Feature = append(out.Feature, fi)
				out.Sensitive = append(out.Sensitive, fe.Column.Role == Sensitive)
			}
		} else {
			out.Columns = append(out.Columns, fe.Column.Name)
			out.Feature = append(out.Feature, fi)
			out.Sensitive = append(out.Sensitive, fe.Column.Role == Sensitive)
		}
	}
	if e.Options.Intercept {
		out.FeatureNames = append(out.FeatureNames, "(intercept)")
		out.FeatureSensitive = append(out.FeatureSensitive, true)
		out.Columns = append(out.Columns, "(intercept)")
		out.Feature = append(out.Feature, len(e.Features))
		out.Sensitive = append(out.Sensitive, true)
	}
	out.D = len(out.Columns)
	return out
}

// checkSize returns an error of the reader fn, naming the widest one-hot
// feature, when an n × d design matrix would hold more than
// MaxEncodedValues values; fix adds what else the caller may do.
func (e *Encoder) checkSize(fn string, n, d int, fix string) error {
	if d == 0 || n <= encodedValuesCap/d {
		return nil
	}
	widest, levels := "", 0
	for _, fe := range e.Features {
		if len(fe.Levels) > levels {
			widest, levels = fe.Column.Name, len(fe.Levels)
		}
	}
	return fmt.Errorf("data: %s: the design matrix would have %d rows × %d columns, more than %d values (the widest one-hot feature is %q with %d levels; is an identifier column marked Categorical?)%s",
		fn, n, d, encodedValuesCap, widest, levels, fix)
}

// fillX writes the encoded features of df, then the intercept column if
// any, into out.X (allocated, N × D).
func (e *Encoder) fillX(df dataframe.DataFrame, out *Encoded) error {
	j := 0
	for _, fe := range e.Features {
		col := df.Col(fe.Column.Name)
		if fe.Column.Kind == Categorical {
			width, err := e.fillOneHot(col, fe, out, j)
			if err != nil {
				return err
			}
			j += width
			continue
		}
		vals, err := numericColumn(col, fe.Column.Name)
		if err != nil {
			return fmt.Errorf("data: Transform: %w", err)
		}
		for i, v := range vals {
			x, err := fe.scaleFinite(v)
			if err != nil {
				return fmt.Errorf("data: Transform: column %q, row %d: %w", fe.Column.Name, i, err)
			}
			out.X[i*out.D+j] = x
		}
		j++
	}
	if e.Options.Intercept {
		for i := 0; i < out.N; i++ {
			out.X[i*out.D+j] = 1
		}
	}
	return nil
}

// fillOneHot writes the one-hot columns of categorical feature fe, starting
// at encoded column j, and returns how many columns it spans. A level not
// among fe.Levels is an error wrapping ErrUnknownLevel.
func (e *Encoder) fillOneHot(col series.Series, fe FeatureEncoding, out *Encoded, j int) (int, error) {
	if err := levelSpellingError(col, fe.Column.Name, fe.Levels); err != nil {
		return 0, fmt.Errorf("data: Transform: %w", err)
	}
	index := make(map[string]int, len(fe.Levels))
	for k, l := range fe.Levels {
		index[l] = k
	}
	offset := 0
	if e.Options.DropFirst {
		offset = 1
	}
	width := len(fe.Levels) - offset
	if width < 0 {
		width = 0
	}
	for i := 0; i < out.N; i++ {
		v := LevelAt(col, i)
		k, ok := index[v]
		if !ok {
			return 0, fmt.Errorf("data: Transform: column %q, row %d: level %q is not among the encoder's levels %q (public levels: add it to EncodeOptions.Levels or Column.Levels, or map the value before encoding): %w",
				fe.Column.Name, i, v, fe.Levels, ErrUnknownLevel)
		}
		if k-offset >= 0 {
			out.X[i*out.D+j+k-offset] = 1
		}
	}
	return width, nil
}

// fillY sets out.Y: class indices for classification, the (scaled) target
// for regression, zeros when the schema has no label.
func (e *Encoder) fillY(df dataframe.DataFrame, out *Encoded) error {
	out.Y = make([]float64, out.N)
	l, ok := e.Schema.Label()
	if !ok {
		return nil
	}
	col := df.Col(l.Name)
	switch e.Schema.Task {
	case Classification:
		if err := levelSpellingError(col, l.Name, e.Classes); err != nil {
			return fmt.Errorf("data: Transform: %w", err)
		}
		index := make(map[string]int, len(e.Classes))
		for k, c := range e.Classes {
			index[c] = k
		}
		for i := 0; i < out.N; i++ {
			v := LevelAt(col, i)
			k, ok := index[v]
			if !ok {
				return fmt.Errorf("data: Transform: label %q, row %d: class %q is not among the encoder's classes %q (public classes: add it to EncodeOptions.Levels or the label's Column.Levels): %w",
					l.Name, i, v, e.Classes, ErrUnknownLevel)
			}
			out.Y[i] = float64(k)
		}
	case Regression:
		vals, err := numericColumn(col, l.Name)
		if err != nil {
			return fmt.Errorf("data: Transform: %w", err)
		}
		for i, v := range vals {
			out.Y[i] = e.labelScale(v)
		}
	}
	return nil
}

// setLabelBounds applies the public EncodeOptions.LabelBounds, if any.
func (e *Encoder) setLabelBounds() {
	if b := e.Options.LabelBounds; b != nil {
		e.LabelShift, e.LabelDiv, e.LabelClip = b.Lo, b.Hi-b.Lo, true
	}
}

// labelScale maps a raw regression label to the model's units: clipped to
// the public bounds (LabelClip), then (y − LabelShift)/LabelDiv.
func (e *Encoder) labelScale(y float64) float64 {
	if e.LabelClip {
		y = min(max(y, e.LabelShift), e.LabelShift+e.LabelDiv)
	}
	return (y - e.LabelShift) / e.LabelDiv
}

// ErrScaledOverflow is wrapped by the error for a value whose scaled
// encoding is not finite: far outside a ZScore feature's public moments
// (or, unscaled, near ±MaxFloat64).
var ErrScaledOverflow = errors.New("scaled value not finite")

// scaleFinite is scale, refusing a result that overflows float64 (a
// MinMax-clipped value never does).
func (fe FeatureEncoding) scaleFinite(v float64) (float64, error) {
	x := fe.scale(v)
	if !valid.Finite(x) {
		return 0, fmt.Errorf("%v scales to %v (%v scaling, mean %v, sd %v): %w; give MinMax bounds that clip it, or map the value first",
			v, x, fe.Scale, fe.Mean, fe.SD, ErrScaledOverflow)
	}
	return x, nil
}

// scale applies the fitted scaling to one value.
func (fe FeatureEncoding) scale(v float64) float64 {
	switch fe.Scale {
	case MinMax:
		if fe.Clip {
			v = math.Max(fe.Lo, math.Min(fe.Hi, v))
		}
		if fe.Hi == fe.Lo {
			return 0
		}
		return (v - fe.Lo) / (fe.Hi - fe.Lo)
	case ZScore:
		if fe.SD == 0 {
			return 0
		}
		return (v - fe.Mean) / fe.SD
	}
	return v
}

// Encode fits an encoder on df and transforms df with it: one-hot encoding
// of categorical features (every encoded column inheriting its raw
// feature's role), scaling of continuous features, and label encoding. The
// fitted parameters are computed from df itself; use FitEncoder and
// Transform to fit on one data set and apply to another.
func Encode(df dataframe.DataFrame, schema Schema, opts EncodeOptions) (*Encoded, error) {
	enc, err := FitEncoder(df, schema, opts)
	if err != nil {
		return nil, err
	}
	return enc.Transform(df)
}

// errNilEncoded is the error of a method called on a nil *Encoded.
var errNilEncoded = errors.New("nil *Encoded: use the value returned by Encoder.Transform, Encode or Encoder.EncodeCSV and check its error")

// ToModelsData wraps X and Y (not copied) as a design.Data.
func (e *Encoded) ToModelsData() (*design.Data, error) {
	if e == nil {
		return nil, fmt.Errorf("data: ToModelsData: %w", errNilEncoded)
	}
	d, err := design.NewData(e.X, e.Y, e.N, e.D)
	if err != nil {
		return nil, fmt.Errorf("data: ToModelsData: %w", err)
	}
	return d, nil
}

// ColumnWeights spreads per-raw-feature values (for example CorrDP noise
// weights, one per entry of FeatureNames) over the encoded columns: column
// j gets featureWeights[Feature[j]], so every column of a one-hot group
// shares its feature's value. A nil *Encoded is an error.
func (e *Encoded) ColumnWeights(featureWeights []float64) ([]float64, error) {
	if e == nil {
		return nil, fmt.Errorf("data: ColumnWeights: %w", errNilEncoded)
	}
	if len(featureWeights) != len(e.FeatureNames) {
		return nil, fmt.Errorf("data: ColumnWeights: %d weights for %d raw features (%v)",
			len(featureWeights), len(e.FeatureNames), e.FeatureNames)
	}
	out := make([]float64, e.D)
	for j, f := range e.Feature {
		out[j] = featureWeights[f]
	}
	return out, nil
}

// FeatureColumns returns the encoded columns of raw feature i (none for a
// nil *Encoded).
func (e *Encoded) FeatureColumns(i int) []int {
	if e == nil {
		return nil
	}
	var out []int
	for j, f := range e.Feature {
		if f == i {
			out = append(out, j)
		}
	}
	return out
}

// Subset returns a copy of the rows idx (in that order). A nil *Encoded is
// an error.
func (e *Encoded) Subset(idx []int) (*Encoded, error) {
	if e == nil {
		return nil, fmt.Errorf("data: Subset: %w", errNilEncoded)
	}
	for _, i := range idx {
		if i < 0 || i >= e.N {
			return nil, fmt.Errorf("data: Subset: row %d out of range [0, %d)", i, e.N)
		}
	}
	out := *e
	out.N = len(idx)
	out.X = make([]float64, len(idx)*e.D)
	out.Y = make([]float64, len(idx))
	for k, i := range idx {
		copy(out.X[k*e.D:(k+1)*e.D], e.X[i*e.D:(i+1)*e.D])
		out.Y[k] = e.Y[i]
	}
	return &out, nil
}

// distinctLevels returns the sorted distinct levels of s (numerically
// sorted when all are numbers). Missing values are skipped.
func distinctLevels(s series.Series) []string {
	set := map[string]bool{}
	for i := 0; i < s.Len(); i++ {
		if !IsMissing(s, i) {
			set[LevelAt(s, i)] = true
		}
	}
	out := make([]string, 0, len(set))
	for l := range set {
		out = append(out, l)
	}
	sortLevels(out)
	return out
}

// numericColumn returns the values of s as finite float64s.
func numericColumn(s series.Series, name string) ([]float64, error) {
	out := make([]float64, s.Len())
	for i := range out {
		v, err := NumericAt(s, i)
		if err != nil {
			return nil, fmt.Errorf("column %q, row %d: %v: %w", name, i, err, ErrNotNumeric)
		}
		out[i] = v
	}
	return out, nil
}

func minMax(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo = math.Min(lo, x)
		hi = math.Max(hi, x)
	}
	return lo, hi
}

func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)))
}
