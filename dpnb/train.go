package dpnb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
	"github.com/featuredp/featuredp/notions/fdp"
	"github.com/featuredp/featuredp/release"
	"github.com/go-gota/gota/dataframe"
)

// TrainOptions configures Train. The zero value of every field but Epsilon
// gives the default in brackets; no default is fitted on the private data
// (the sample rate, the steps, the clip norm and the learning rate are
// constants, not functions of the number of rows or of the values).
type TrainOptions struct {
	// Notion is release.FeatureDP (Algorithm 1 of the feature-DP paper) or
	// release.DP (DP-SGD) [FeatureDP when the schema has a public feature
	// and a sensitive one, else DP].
	Notion release.Notion
	// Model is release.KindLogistic / KindSoftmax (classification, by the
	// number of classes), release.KindLinear (regression) or
	// release.KindMLP [logistic or softmax; linear for regression].
	Model string
	// Hidden is the MLP's number of hidden units [32].
	Hidden int
	// Epsilon is the target ε (required, finite > 0); Delta is δ in (0, 1)
	// [1e-5]. The noise multiplier is calibrated so that the ledger's ε
	// of the whole run is at most Epsilon.
	Epsilon, Delta float64
	// SampleRate is the Poisson rate q in (0, 1] [0.01]; Epochs the
	// expected passes over the data, T = round(Epochs/q) steps [5], at
	// most MaxTrainSteps.
	SampleRate, Epochs float64
	// Clip is the per-example clip norm C [1]; LR the SGD learning rate
	// [0.5; 1/(2B) for linear regression, B = features + 1 bounding ‖x‖²
	// of an encoded row with its intercept when every continuous feature is
	// min–max scaled (values in [0, 1], one per feature), and
	// 1/(2(Hidden + 1)) for an MLP regression. Under feature DP a linear
	// regression's LR must be below 1/B: Algorithm 1's public gradient is
	// not clipped, and the squared loss r², of curvature 2E[xxᵀ] ≤ 2B,
	// diverges with larger steps].
	Clip, LR float64
	// Encode are the encoding options: every continuous feature needs
	// public Bounds (MinMax, the default scaling here) and every
	// categorical feature and the label public levels; fitting them on
	// the data (BoundsFromData, LevelsFromData) is refused for a release.
	Encode data.EncodeOptions
	// Reproducible trains from seeded streams (Seed) instead of the OS
	// CSPRNG: for tests and experiments; the certificate then says "not a
	// private release" [false: Secure].
	Reproducible bool
	Seed         uint64
	// Ball is the prior mass of the best guess of each protected column
	// given the record's public columns and label (feature-DP paper,
	// Def. 8): public knowledge you state, at least 1/levels, for its
	// attribute-inference bound. A column missing here gets no bound (the
	// certificate's notes say so): no prior is assumed.
	Ball map[string]float64
	// Rows is a public number of training rows (the dataset's documented
	// size, or a round figure you may publish), at most MaxTrainRows: the
	// update divides the noisy gradient sum by SampleRate·Rows, so the
	// private row count, itself private under add/remove, does not reach
	// the model (the certificate records Rows). Required with Notion DP;
	// under feature DP 0 uses the actual count, which the simulator of the
	// feature-simulator relation sees.
	Rows int
	// Orders is the RDP order grid of the calibration and of the ledger
	// [accounting.OrdersDPAccounting(): Opacus' grid 1.1…63 plus 128, 256,
	// 512 and 1024, Google dp_accounting's default]. More orders never raise
	// ε (short of grids of thousands of orders, which spend the work budget:
	// docs/accounting.md); the large ones make small targets reachable: at δ = 1e-5 the
	// conversion alone costs ε ≈ 0.10 at order 63, ≈ 0.004 at 1024. Pass
	// accounting.DefaultOrders() to account exactly as Opacus does. At
	// most release.MaxOrders orders (a model file's certificate holds no
	// more).
	Orders []float64
	// Progress, if set, is called after every step with the steps done and
	// the total.
	Progress func(done, total int)
}

// Train trains a model on df for release: the notion's private training
// (feature DP's Algorithm 1 or DP-SGD) with Poisson sampling, per-example
// clipping and Gaussian noise calibrated to opts.Epsilon, in Secure mode
// unless opts.Reproducible. It returns the model file: the public
// encoding, the parameters and the certificate read off the privacy ledger
// that composed the run's losses (docs/release.md). It refuses an encoding
// that would read the private data (bounds or levels), a schema without a
// label, and a run whose ε would exceed the target.
//
// The file is unsigned, and Train takes no key: to sign it, call its
// release.File.Sign with the publisher's Ed25519 private key
// (release.LoadPrivateKey, loaded before training so that a bad key file
// fails first) before Save, as `featuredp train --sign-key` does; users
// verify it with release.File.Verify (docs/release.md, "Signed model
// files"; examples/release). The same holds for TrainCSV.
func Train(ctx context.Context, df dataframe.DataFrame, schema data.Schema, opts TrainOptions) (*release.File, error) {
	o, enc, cal, err := prepareTrain(schema, opts)
	if err != nil {
		return nil, err
	}
	x, err := enc.Transform(df)
	if err != nil {
		return nil, fmt.Errorf("dpnb: Train: %w", err)
	}
	f, _, err := trainEncoded(ctx, enc, x, o, cal)
	return f, err
}

// TrainCSV is Train on CSV rows read from r (header row) straight into the
// design matrix (data.Encoder.EncodeCSV), without a DataFrame: for files
// too large to hold as one. Memory is about the encoded matrix (8 bytes per
// row and encoded column) three times over (the data and the two views the
// training reads); csvOpts sets the CSV dialect and reading caps.
func TrainCSV(ctx context.Context, r io.Reader, schema data.Schema, opts TrainOptions, csvOpts data.CSVOptions) (*release.File, error) {
	o, enc, cal, err := prepareTrain(schema, opts)
	if err != nil {
		return nil, err
	}
	x, err := enc.EncodeCSV(r, csvOpts)
	if err != nil {
		return nil, fmt.Errorf("dpnb: TrainCSV: %w", err)
	}
	f, _, err := trainEncoded(ctx, enc, x, o, cal)
	return f, err
}

// calibration is the step count T and the noise multiplier z of a run,
// fixed by the options alone.
type calibration struct {
	steps int
	z     float64
}

// prepareTrain validates the options, builds the public encoder and
// calibrates the noise: everything that can fail before a row is read.
func prepareTrain(schema data.Schema, opts TrainOptions) (TrainOptions, *data.Encoder, calibration, error) {
	o, err := opts.withDefaults(schema)
	if err != nil {
		return o, nil, calibration{}, fmt.Errorf("dpnb: Train: %w", err)
	}
	enc, err := data.NewPublicEncoder(schema, o.Encode)
	if err != nil {
		return o, nil, calibration{}, fmt.Errorf("dpnb: Train: %w", err)
	}
	if l, _ := schema.Label(); schema.Task == data.Classification && len(enc.Classes) < 2 {
		return o, nil, calibration{}, fmt.Errorf("dpnb: Train: the label %q has %d public class(es) %q: a classifier needs at least 2 (list every class in the label's Levels)",
			l.Name, len(enc.Classes), enc.Classes)
	}
	if err := release.CheckEncoder(enc); err != nil { // a model file could not hold it
		return o, nil, calibration{}, fmt.Errorf("dpnb: Train: %w", err)
	}
	if err := checkMLPSize(o, enc.Width(), len(enc.Classes)); err != nil {
		return o, nil, calibration{}, fmt.Errorf("dpnb: Train: %w", err)
	}
	cal := calibration{steps: max(1, int(math.Round(o.Epochs/o.SampleRate)))}
	if cal.z, err = accounting.NoiseMultiplier(o.Epsilon, o.Delta, o.SampleRate, cal.steps, o.Orders, accounting.DefaultConversion); err != nil {
		return o, nil, cal, fmt.Errorf("dpnb: Train: calibrating the noise for ε = %v (Epsilon, Delta, SampleRate, Epochs): %w", o.Epsilon, err)
	}
	return o, enc, cal, nil
}

// checkMLPSize refuses an MLP of more than MaxTrainParams parameters,
// h·(d + 1) + outputs·(h + 1) on d encoded columns and k classes.
func checkMLPSize(o TrainOptions, d, k int) error {
	if o.Model != release.KindMLP {
		return nil
	}
	if p := float64(o.Hidden)*float64(d+1) + float64(max(k, 1))*float64(o.Hidden+1); p > MaxTrainParams {
		return fmt.Errorf("an MLP of %d hidden units on %d encoded columns has %.3g parameters: at most MaxTrainParams = %d (lower Hidden)", o.Hidden, d, p, MaxTrainParams)
	}
	return nil
}

// trainEncoded runs the calibrated private training on x and returns the
// model file with its certificate, and the run (for CheckRelease's
// baselines of the same size).
func trainEncoded(ctx context.Context, enc *data.Encoder, x *data.Encoded, o TrainOptions, cal calibration) (*release.File, *trainRun, error) {
	if x.N == 0 {
		return nil, nil, errors.New("dpnb: Train: the training data has no rows: pass a DataFrame (or CSV) with at least one record")
	}
	if o.Notion == release.FeatureDP { // n is known to the feature-simulator relation's simulator; under DP it is private
		if err := o.checkRowCount(x.N, fmt.Sprintf("the training data's %d rows", x.N)); err != nil {
			return nil, nil, fmt.Errorf("dpnb: Train: %w", err)
		}
	}
	run, err := newTrainRun(x, o, cal)
	if err != nil {
		return nil, nil, fmt.Errorf("dpnb: Train: %w", err)
	}
	res, err := fdp.Train(ctx, run.method, run.setup)
	if err != nil {
		return nil, nil, fmt.Errorf("dpnb: Train: %w", err)
	}
	if err := checkConverged(res.Theta, o); err != nil {
		return nil, nil, fmt.Errorf("dpnb: Train: %w", err)
	}
	cert, err := run.certificate(res, enc, o)
	if err != nil {
		return nil, nil, fmt.Errorf("dpnb: Train: %w", err)
	}
	return &release.File{Format: release.FileFormat, Version: release.FileVersion, Encoder: enc,
		Model: run.spec(res.Theta), Certificate: cert}, run, nil
}

// checkRowCount refuses a run on n rows (named by what) whose δ is at
// least 1/n, or whose steps sample fewer than one row on average (q·n <
// 1). An (ε, δ) guarantee with δ ≥ 1/n allows a mechanism that publishes
// each record in the clear with probability δ — about δ·n ≥ 1 records
// (Dwork and Roth, "The Algorithmic Foundations of Differential Privacy",
// §2.3: δ must be much smaller than 1/n); the default δ = 1e-5 is such a
// δ from 100,000 rows on. With q·n < 1 most steps add noise to no row at
// all, and the model is noise (one row at q = 0.01 gave probabilities of
// 1 and 1e-225). n is the public Rows, checked before training, and under
// feature DP also the actual count, which its simulator sees (under DP
// the actual count is private and not read).
func (o *TrainOptions) checkRowCount(n int, what string) error {
	if d := o.Delta * float64(n); d >= 1 {
		return fmt.Errorf("Delta = %v is at least 1/n = %.3g for %s: (ε, δ) then allows publishing each record in the clear with "+
			"probability δ, about δ·n = %.3g records: choose δ well below 1/n, e.g. %g (featuredp train --delta), from a public "+
			"bound on the number of rows", o.Delta, 1/float64(n), what, d, smallDelta(n))
	}
	if b := o.SampleRate * float64(n); b < 1 {
		return fmt.Errorf("SampleRate·n = %v·%d = %.3g < 1 for %s: a step samples fewer than one row on average, so the "+
			"noise swamps every step and the model would be noise: raise SampleRate to at least 1/n = %.3g "+
			"(featuredp train --sample-rate), or train on more rows", o.SampleRate, n, b, what, 1/float64(n))
	}
	return nil
}

// smallDelta is a δ well below 1/n: the largest power of ten at most
// 1/(100·n).
func smallDelta(n int) float64 {
	return math.Pow(10, math.Floor(math.Log10(1/(100*float64(n)))))
}

// MaxReleaseParam bounds every trained parameter of a release (10^6): on
// features scaled to [0, 1] (or standardised) and a label scaled to
// [0, 1], a weight beyond it means diverged gradient steps, whose
// predictions would be meaningless. The check reads θ only, the private
// output itself (post-processing: it costs no privacy).
const MaxReleaseParam = 1e6

// checkConverged refuses a diverged run: a parameter beyond
// MaxReleaseParam in magnitude.
func checkConverged(theta []float64, o TrainOptions) error {
	for j, v := range theta {
		if !(math.Abs(v) <= MaxReleaseParam) {
			return fmt.Errorf("training diverged: parameter %d is %.3g, beyond MaxReleaseParam = %g; nothing was released: "+
				"lower LR (%v; 0 picks the model's stable default), scale every continuous feature to public bounds, or lower Epochs", j, v, MaxReleaseParam, o.LR)
		}
	}
	return nil
}

// MaxTrainSteps caps Train's step count T = round(Epochs/SampleRate): 10^8
// steps, a million epochs at q = 0.01, beyond any useful run (and beyond
// it T would overflow int instead of failing).
const MaxTrainSteps = 100_000_000

// MaxTrainParams caps the parameters of a trained MLP (2^23, 64 MiB a
// copy): a large Hidden is an error rather than an out-of-memory crash,
// and the model file stays under release.MaxFileBytes (about 22 bytes of
// JSON a parameter).
const MaxTrainParams = 1 << 23

// MaxTrainRows caps TrainOptions.Rows (2^40).
const MaxTrainRows = 1 << 40

// withDefaults validates opts and fills in the defaults.
func (opts TrainOptions) withDefaults(schema data.Schema) (TrainOptions, error) {
	o := opts
	if err := valid.First(
		valid.Positive("Epsilon", o.Epsilon),
		valid.NonNegative("SampleRate", o.SampleRate), valid.NonNegative("Epochs", o.Epochs),
		valid.NonNegative("Clip", o.Clip), valid.NonNegative("LR", o.LR)); err != nil {
		return o, err
	}
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.Delta, 1e-5)
	def(&o.SampleRate, 0.01)
	def(&o.Epochs, 5)
	def(&o.Clip, 1)
	lrGiven := o.LR != 0
	def(&o.LR, 0.5)
	if err := valid.First(valid.Open01("Delta", o.Delta), valid.Unit("SampleRate", o.SampleRate)); err != nil {
		return o, err
	}
	if t := o.Epochs / o.SampleRate; t > MaxTrainSteps {
		return o, fmt.Errorf("Epochs/SampleRate = %v/%v = %.3g steps: at most MaxTrainSteps = %d (lower Epochs or raise SampleRate)",
			o.Epochs, o.SampleRate, t, MaxTrainSteps)
	}
	if o.Orders == nil {
		o.Orders = accounting.OrdersDPAccounting()
	} else if err := accounting.ValidateOrders(o.Orders); err != nil {
		return o, fmt.Errorf("Orders: %w", err)
	} else if len(o.Orders) > release.MaxOrders {
		return o, fmt.Errorf("Orders: %d RDP orders, more than release.MaxOrders = %d, which a model file's certificate may hold "+
			"(its ε is recomposed on them when it is saved and loaded): use fewer orders", len(o.Orders), release.MaxOrders)
	}
	if o.Hidden < 0 {
		return o, fmt.Errorf("Hidden %d: want ≥ 0 (0: 32 hidden units for an MLP)", o.Hidden)
	}
	if o.Rows < 0 || o.Rows > MaxTrainRows {
		return o, fmt.Errorf("Rows = %d: want a public row count in [1, %d] (0: none, feature DP only)", o.Rows, MaxTrainRows)
	}
	if o.Hidden == 0 {
		o.Hidden = 32
	}
	if o.Encode.BoundsFromData || o.Encode.LevelsFromData {
		return o, errors.New("Encode.BoundsFromData / LevelsFromData: a release uses public bounds and levels only (give Encode.Bounds and Encode.Levels or the schema's Column.Levels)")
	}
	if o.Encode.Scale == data.NoScaling && len(o.Encode.ScaleFor) == 0 {
		o.Encode.Scale = data.MinMax
	}
	if err := o.Encode.RequirePublic(schema); err != nil {
		return o, err
	}
	if l, ok := schema.Label(); ok && schema.Task == data.Regression && o.Encode.LabelBounds == nil {
		return o, fmt.Errorf("the regression label %q needs public bounds: Encode.LabelBounds (featuredp train --bounds %s=LO:HI); "+
			"it is clipped to them and scaled to [0, 1], and predictions come back in its units (a label in its raw units, "+
			"in the tens of thousands, makes the gradient steps diverge)", l.Name, l.Name)
	}
	if err := o.pickNotion(schema); err != nil {
		return o, err
	}
	if o.Rows > 0 {
		if err := o.checkRowCount(o.Rows, fmt.Sprintf("Rows = %d, the public row count", o.Rows)); err != nil {
			return o, err
		}
	}
	if err := o.checkBall(schema); err != nil {
		return o, err
	}
	if err := o.pickModel(schema); err != nil {
		return o, err
	}
	return o, o.regressionStep(schema, lrGiven)
}

// regressionStep sets the default learning rate of a linear regression to
// 1/(2B) and refuses, under feature DP, one of 1/B or more: B = features +
// 1 bounds the squared norm of an encoded row with its intercept (every
// value in [0, 1], one per feature, a one-hot group holding one 1), hence
// the largest eigenvalue of E[x xᵀ]; the loss r² has Hessian 2E[x xᵀ], and
// gradient steps on a quadratic diverge above 2/λmax(Hessian) ≥ 1/B —
// Algorithm 1's public gradient is not clipped, so nothing else stops them
// (a default run on insurance.csv reached |θ| ≈ 1e33). B depends on the
// schema alone, and bounds ‖x‖² only when every continuous public feature
// is min–max scaled (unboundedFeature): a regression under feature DP with
// a ZScore or unscaled public feature has no stable step at all, and is
// refused.
// An MLP regression's default is 1/(2(Hidden +
// 1)), the same bound for its output layer (tanh units in [−1, 1]; at 0.5
// insurance.csv diverged to NaN), with no refusal: its other layers have
// no such bound.
func (o *TrainOptions) regressionStep(schema data.Schema, lrGiven bool) error {
	if schema.Task == data.Regression && o.Notion == release.FeatureDP && o.unboundedFeature(schema) != "" {
		return fmt.Errorf("a regression under feature DP needs every continuous public feature min–max scaled to public bounds (%s is not): "+
			"Algorithm 1's public gradient of the squared loss is not clipped, so an unbounded feature lets every step size diverge; "+
			"give it Encode.Bounds and leave its scaling MinMax (featuredp train --bounds COL=LO:HI)", o.unboundedFeature(schema))
	}
	if o.Model == release.KindMLP && schema.Task == data.Regression && !lrGiven {
		o.LR = 1 / float64(2*(o.Hidden+1))
	}
	if o.Model != release.KindLinear {
		return nil
	}
	b := float64(len(schema.Features()) + 1)
	if o.Encode.Intercept {
		b++ // the encoder's constant column, besides the model's intercept
	}
	switch {
	case !lrGiven:
		o.LR = 1 / (2 * b)
	case o.Notion == release.FeatureDP && o.LR >= 1/b:
		return fmt.Errorf("LR = %v: a linear regression under feature DP needs LR < 1/B = %.4g (B = %g, the features and the intercept, bounds ‖x‖², "+
			"and the squared loss r² has curvature 2E[xxᵀ]; Algorithm 1's public gradient is not clipped, and larger steps diverge); the default is 1/(2B) = %.4g",
			o.LR, 1/b, b, 1/(2*b))
	}
	return nil
}

// unboundedFeature names the first continuous public feature that is not
// min–max scaled to its public bounds (clipped to [0, 1]; "" if every one
// is): a ZScore or unscaled feature has no public bound on its values. A
// sensitive feature does not count: Ψ(x) zeroes it, so the unclipped public
// gradient never reads it, and the private term is clipped.
func (o *TrainOptions) unboundedFeature(schema data.Schema) string {
	for _, c := range schema.Features() {
		if c.Role == data.Public && c.Kind == data.Continuous && o.Encode.ScaleOf(c.Name) != data.MinMax {
			return c.Name
		}
	}
	return ""
}

// checkBall checks that Ball names protected features (the sensitive
// ones under feature DP, any feature under DP) with masses in (0, 1].
func (o *TrainOptions) checkBall(schema data.Schema) error {
	for _, name := range slices.Sorted(maps.Keys(o.Ball)) {
		c, ok := schema.Lookup(name)
		protected := ok && (c.Role == data.Sensitive || (o.Notion == release.DP && c.Role == data.Public))
		if !protected {
			return fmt.Errorf("Ball names %q, which is not a protected feature under %s", name, o.Notion)
		}
		if lv, ok := o.Encode.Levels[name]; ok {
			c.Levels = lv // the public levels the encoder uses
		}
		if err := fdp.CheckBall(c, o.Ball[name]); err != nil {
			return err
		}
	}
	return nil
}

// pickNotion sets the default notion and checks the schema fits it.
func (o *TrainOptions) pickNotion(schema data.Schema) error {
	var pub, sens int
	for _, c := range schema.Features() {
		if c.Role == data.Public {
			pub++
		} else {
			sens++
		}
	}
	if o.Notion == "" {
		o.Notion = release.DP
		if pub > 0 && sens > 0 {
			o.Notion = release.FeatureDP
		}
	}
	switch o.Notion {
	case release.DP:
		if o.Rows == 0 {
			return fmt.Errorf("Notion %s: give Rows, a public number of training rows (the dataset's documented size, or a round figure you "+
				"may publish; featuredp train --rows N): the update divides the noisy gradient sum by SampleRate·Rows, and the actual count "+
				"is private under add/remove", o.Notion)
		}
		return nil
	case release.FeatureDP:
		if pub == 0 || sens == 0 {
			return fmt.Errorf("Notion %s needs at least one public and one sensitive feature (the schema has %d and %d): mark the public columns, or use %s", o.Notion, pub, sens, release.DP)
		}
		return nil
	case release.CorrDP:
		return fmt.Errorf("Notion %s: a CorrDP release is not available yet (its honest guarantee is reported by PrivacyReport); use %s or %s", o.Notion, release.FeatureDP, release.DP)
	}
	return fmt.Errorf("Notion %q: want %s or %s", o.Notion, release.FeatureDP, release.DP)
}

// pickModel sets the default model kind for the schema's task.
func (o *TrainOptions) pickModel(schema data.Schema) error {
	classify := schema.Task == data.Classification
	switch o.Model {
	case "":
		o.Model = release.KindLinear
		if classify {
			o.Model = release.KindLogistic // softmax for > 2 classes, decided on the encoding
		}
	case release.KindLogistic, release.KindSoftmax:
		if !classify {
			return fmt.Errorf("Model %s needs a classification schema (the task is %v): use %s", o.Model, schema.Task, release.KindLinear)
		}
	case release.KindLinear:
		if classify {
			return fmt.Errorf("Model %s needs a regression schema: use %s or %s", o.Model, release.KindLogistic, release.KindMLP)
		}
	case release.KindMLP:
	default:
		return fmt.Errorf("Model %q: want %s, %s, %s or %s", o.Model, release.KindLogistic, release.KindSoftmax, release.KindLinear, release.KindMLP)
	}
	if schema.Task == data.Unsupervised {
		return errors.New("the schema has no label: a release trains a predictor (set the label column's Role to data.Label)")
	}
	return nil
}

// FloatingPointNote is the note every release certificate carries: what
// its ε does not cover (docs/accounting.md, "Threat model and guarantees").
const FloatingPointNote = "the ε is proven for the Gaussian mechanism on real numbers: the parameters are float64 functions of " +
	"continuous Gaussian noise, so floating-point effects on their low-order bits are not covered " +
	"(docs/accounting.md, \"Threat model and guarantees\")"

// trainRun is one calibrated private training.
type trainRun struct {
	method fdp.Method
	setup  fdp.Setup
	kind   string
	hidden int
	d, k   int
	steps  int
}

// newTrainRun builds the model, the data views and the calibrated setup.
func newTrainRun(x *data.Encoded, o TrainOptions, cal calibration) (*trainRun, error) {
	full, err := design.NewData(x.X, x.Y, x.N, x.D) // wraps, no copy
	if err != nil {
		return nil, err
	}
	psi, err := fdp.EncodedRows(x, allRows(x.N), true) // the public view Ψ(x): sensitive columns zeroed
	if err != nil {
		return nil, err
	}
	r := &trainRun{method: fdp.DP, kind: o.Model, hidden: o.Hidden, d: x.D, k: len(x.Classes)}
	if o.Notion == release.FeatureDP {
		r.method = fdp.Alg1
	}
	if r.kind == release.KindLogistic && r.k > 2 {
		r.kind = release.KindSoftmax
	}
	model, err := r.model()
	if err != nil {
		return nil, err
	}
	r.steps = cal.steps
	mode := mechanisms.Secure
	if o.Reproducible {
		mode = mechanisms.Reproducible
	}
	r.setup = fdp.Setup{Model: model, Data: full, PubData: psi, Rate: o.SampleRate, Multiplier: cal.z, Clip: o.Clip,
		Steps: r.steps, Optimizer: mechanisms.SGD{LR: o.LR}, Mode: mode, Seed: o.Seed}
	if o.Rows > 0 {
		r.setup.ExpectedBatch = o.SampleRate * float64(o.Rows) // public: n stays out of the update
	}
	if o.Progress != nil {
		r.setup.OnStep = func(t int, _ []float64) { o.Progress(t, r.steps) }
	}
	return r, nil
}

// model builds the model of the run.
func (r *trainRun) model() (models.Model, error) {
	switch r.kind {
	case release.KindLogistic:
		return models.NewLogistic(r.d, true, 0)
	case release.KindSoftmax:
		return models.NewSoftmax(r.d, r.k)
	case release.KindLinear:
		return models.NewLinear(r.d, true, 0)
	}
	k, head := r.k, models.HeadSoftmaxCE
	if k < 2 {
		k, head = 1, models.HeadMSE
	}
	return models.NewMLP(r.d, r.hidden, k, models.Tanh, head)
}

// spec is the model file's description of the trained model.
func (r *trainRun) spec(theta []float64) release.ModelSpec {
	s := release.ModelSpec{Kind: r.kind, Features: r.d, Theta: slices.Clone(theta)}
	switch r.kind {
	case release.KindLogistic, release.KindLinear:
		s.Intercept = true
	case release.KindSoftmax:
		s.Classes = r.k
	case release.KindMLP:
		s.Classes, s.Hidden = r.k, r.hidden
	}
	return s
}

// certificate composes the run's losses on a ledger and reads the
// certificate off it, with the attribute-inference bound of every
// protected column.
func (r *trainRun) certificate(res *mechanisms.Result, enc *data.Encoder, o TrainOptions) (*release.Certificate, error) {
	rel, losses := accounting.RelationAddRemove, []accounting.Loss(nil)
	var err error
	if o.Notion == release.FeatureDP {
		rel = accounting.RelationFeatureSimulator
		losses, err = fdp.Losses(r.method, r.setup, res, o.Delta)
	} else {
		losses, err = res.Losses()
	}
	if err != nil {
		return nil, err
	}
	l, err := accounting.NewLedger(rel, o.Orders)
	if err != nil {
		return nil, err
	}
	for _, loss := range losses {
		if err := l.Add(loss); err != nil {
			return nil, err
		}
	}
	spec := release.Spec{Notion: o.Notion, TargetEpsilon: o.Epsilon, Secure: !o.Reproducible,
		Training: release.Training{Model: r.kind, Sampling: "Poisson", SampleRate: o.SampleRate, Steps: r.steps,
			NoiseMultiplier: r.setup.Multiplier, ClipNorm: o.Clip, LearningRate: o.LR, Epochs: o.Epochs, Rows: o.Rows}}
	for _, fe := range enc.Features {
		switch {
		case o.Notion == release.DP || fe.Column.Role == data.Sensitive:
			spec.Protected = append(spec.Protected, fe.Column.Name)
		default:
			spec.Public = append(spec.Public, fe.Column.Name)
		}
	}
	if lab, ok := enc.Schema.Label(); ok {
		spec.Label = lab.Name
	}
	if o.Notion == release.DP {
		spec.Notes = append(spec.Notes, "record-level DP: every column of a record, the label included, is protected")
	}
	spec.Notes = append(spec.Notes, FloatingPointNote)
	c, err := release.New(l, o.Delta, accounting.DefaultConversion, spec)
	if err != nil {
		return nil, err
	}
	c.AttributeInference, c.Notes = attributeBounds(enc, c, o)
	return c, nil
}

// attributeBounds is the Thm 4 bound min(1, e^ε·Ball + δ) of every
// protected feature with a Ball in o.Ball; the notes name the columns
// without one (no prior is assumed: fdp.NoBallReason).
func attributeBounds(enc *data.Encoder, c *release.Certificate, o TrainOptions) ([]release.ColumnBound, []string) {
	var out []release.ColumnBound
	notes := c.Notes
	for _, fe := range enc.Features {
		if !slices.Contains(c.Protected, fe.Column.Name) {
			continue
		}
		ball, given := o.Ball[fe.Column.Name]
		if !given {
			col := fe.Column
			col.Levels = fe.Levels
			notes = append(notes, fmt.Sprintf("no attribute-inference bound for %s: %s; give it (TrainOptions.Ball; featuredp train --ball %s=P)",
				fe.Column.Name, fdp.NoBallReason(col), fe.Column.Name))
			continue
		}
		why := "given by the user"
		b, err := fdp.AttributeInferenceBound(c.Epsilon, c.Delta, ball)
		if err != nil {
			notes = append(notes, fmt.Sprintf("no attribute-inference bound for %s: %v", fe.Column.Name, err))
			continue
		}
		out = append(out, release.ColumnBound{Column: fe.Column.Name, Ball: ball, Bound: b, Why: why})
	}
	return out, notes
}
