package dpnb

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/release"
	"github.com/go-gota/gota/dataframe"
	corrdpseries "github.com/go-gota/gota/series"
)

func trainOpts() TrainOptions {
	return TrainOptions{Epsilon: 2, Encode: corrdpEncode(), SampleRate: 0.05, Epochs: 2, Reproducible: true, Seed: 7, Ball: map[string]float64{"smoker": 0.5}}
}

// Two reproducible trainings with one seed give byte-identical files whose
// certificate says "not a private release"; its ε is the ledger's for the
// run's parameters and at most the target.
func TestTrainReproducible(t *testing.T) {
	df, schema := corrdpUserFrame(1500)
	var files [2]bytes.Buffer
	var f *release.File
	for i := range files {
		var err error
		if f, err = Train(context.Background(), df, schema, trainOpts()); err != nil {
			t.Fatal(err)
		}
		if err := f.Write(&files[i]); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0].Bytes(), files[1].Bytes()) {
		t.Fatal("two reproducible trainings with one seed differ")
	}
	c := f.Certificate
	if c.PrivateRelease || !strings.HasPrefix(c.Statement, "NOT A PRIVATE RELEASE") || c.Notion != release.FeatureDP ||
		c.Relation != accounting.RelationFeatureSimulator.String() {
		t.Errorf("certificate: %+v", c)
	}
	if !slices.Equal(c.Protected, []string{"smoker", "income"}) || !slices.Equal(c.Public, []string{"region", "age"}) || c.Label != "y" {
		t.Errorf("columns: protected %v public %v label %q", c.Protected, c.Public, c.Label)
	}
	// The ledger of the run, rebuilt from the certificate's parameters
	// and order grid (dp_accounting's by default).
	if !slices.Equal(c.Accounting.Orders, accounting.OrdersDPAccounting()) {
		t.Errorf("order grid %v, want accounting.OrdersDPAccounting()", c.Accounting.Orders)
	}
	l, _ := accounting.NewLedger(accounting.RelationFeatureSimulator, c.Accounting.Orders)
	tr := c.Training
	loss, err := accounting.SubsampledGaussianLoss(accounting.Phase{SampleRate: tr.SampleRate, NoiseMultiplier: tr.NoiseMultiplier, Steps: tr.Steps})
	if err != nil {
		t.Fatal(err)
	}
	loss, _ = loss.ChangeRelation(accounting.RelationFeatureSimulator)
	if err := l.Add(loss); err != nil {
		t.Fatal(err)
	}
	rep, err := l.Epsilon(1e-5, accounting.DefaultConversion)
	if err != nil {
		t.Fatal(err)
	}
	if c.Epsilon != rep.Epsilon || c.Epsilon > 2 || tr.Steps != 40 || tr.SampleRate != 0.05 {
		t.Errorf("certificate ε %v (steps %d), ledger %v, target 2", c.Epsilon, tr.Steps, rep.Epsilon)
	}
	if len(c.AttributeInference) != 1 || c.AttributeInference[0].Column != "smoker" || c.AttributeInference[0].Ball != 0.5 {
		t.Errorf("attribute-inference bounds %+v (income has no Ball: a note)", c.AttributeInference)
	}
	// Save → load → predict gives the same predictions.
	g, err := release.Read(bytes.NewReader(files[0].Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	p1, err := f.Predict(df)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := g.Predict(df)
	if err != nil || !slices.Equal(p1.Class, p2.Class) || p1.Probs[3][1] != p2.Probs[3][1] {
		t.Fatalf("predictions differ after a round trip (%v)", err)
	}
	acc := 0.0
	for i, cl := range p1.Class {
		if cl == df.Col("y").Elem(i).String() {
			acc++
		}
	}
	if acc /= float64(len(p1.Class)); acc < 0.6 {
		t.Errorf("training accuracy %.3f: the private model learned nothing", acc)
	}
}

// Two Secure trainings give different models and private certificates.
func TestTrainSecure(t *testing.T) {
	df, schema := corrdpUserFrame(800)
	o := trainOpts()
	o.Reproducible, o.Seed, o.Notion, o.Rows = false, 0, release.DP, 400
	a, err := Train(context.Background(), df, schema, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(context.Background(), df, schema, o)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(a.Model.Theta, b.Model.Theta) {
		t.Error("two secure trainings gave the same model")
	}
	c := a.Certificate
	if !c.PrivateRelease || c.Randomness != "secure" || c.Relation != "add-remove" || len(c.Protected) != 4 || len(c.Public) != 0 {
		t.Errorf("secure DP certificate: %+v", c)
	}
}

// What would make a release wrong is an error naming the fix.
func TestTrainErrors(t *testing.T) {
	df, schema := corrdpUserFrame(300)
	noPublic := schema.Clone()
	for i := range noPublic.Columns {
		if noPublic.Columns[i].Role == data.Public {
			noPublic.Columns[i].Role = data.Sensitive
		}
	}
	oneClass := schema.Clone()
	for i, c := range oneClass.Columns {
		if c.Role == data.Label {
			oneClass.Columns[i].Levels = []string{"no"}
		}
	}
	for _, tc := range []struct {
		name   string
		schema data.Schema
		edit   func(*TrainOptions)
		want   string
	}{
		{"no epsilon", schema, func(o *TrainOptions) { o.Epsilon = 0 }, "Epsilon"},
		{"one public class", oneClass, func(*TrainOptions) {}, "a classifier needs at least 2"},
		{"NaN epsilon", schema, func(o *TrainOptions) { o.Epsilon = math.NaN() }, "Epsilon"},
		{"delta 1", schema, func(o *TrainOptions) { o.Delta = 1 }, "Delta"},
		{"rate above 1", schema, func(o *TrainOptions) { o.SampleRate = 1.5 }, "SampleRate"},
		// T = Epochs/q would overflow int (and became 1 step before).
		{"too many steps", schema, func(o *TrainOptions) { o.Epochs = 1e30 }, "at most MaxTrainSteps"},
		{"steps just above the cap", schema, func(o *TrainOptions) { o.Epochs, o.SampleRate = 1e6+1, 0.01 }, "at most MaxTrainSteps"},
		{"NaN epochs", schema, func(o *TrainOptions) { o.Epochs = math.NaN() }, "Epochs"},
		{"infinite clip", schema, func(o *TrainOptions) { o.Clip = math.Inf(1) }, "Clip"},
		{"negative lr", schema, func(o *TrainOptions) { o.LR = -1 }, "LR"},
		{"negative hidden", schema, func(o *TrainOptions) { o.Hidden = -1 }, "Hidden"},
		{"huge MLP", schema, func(o *TrainOptions) { o.Model, o.Hidden = release.KindMLP, 1_000_000_000 }, "at most MaxTrainParams"},
		{"DP without Rows", schema, func(o *TrainOptions) { o.Notion = release.DP }, "give Rows"},
		{"negative Rows", schema, func(o *TrainOptions) { o.Rows = -5 }, "Rows = -5"},
		{"bad orders", schema, func(o *TrainOptions) { o.Orders = []float64{0.5} }, "Orders"},
		// Opacus' grid stops at order 63, where the conversion alone costs
		// ε ≈ 0.10 at δ = 1e-5.
		{"small ε on Opacus' grid", schema, func(o *TrainOptions) { o.Epsilon, o.Orders = 0.05, accounting.DefaultOrders() }, "largest order 63"},
		{"ball outside (0, 1]", schema, func(o *TrainOptions) { o.Ball = map[string]float64{"income": 2} }, `Ball["income"] = 2`},
		{"ball below 1/levels", schema, func(o *TrainOptions) { o.Ball = map[string]float64{"smoker": 0.2} }, `below 1/2`},
		{"bounds from data", schema, func(o *TrainOptions) { o.Encode.BoundsFromData = true }, "public bounds and levels only"},
		{"missing bounds", schema, func(o *TrainOptions) { o.Encode.Bounds = nil }, `"age"`},
		{"feature DP without public columns", noPublic, func(o *TrainOptions) { o.Notion = release.FeatureDP }, "public and one sensitive"},
		{"corrdp", schema, func(o *TrainOptions) { o.Notion = release.CorrDP }, "not available yet"},
		{"linear on classification", schema, func(o *TrainOptions) { o.Model = release.KindLinear }, "regression schema"},
		{"unknown model", schema, func(o *TrainOptions) { o.Model = "forest" }, `"forest"`},
		// The squared loss's unclipped public gradient with an unbounded
		// feature has no stable step (review D2: θ ≈ 1e134, released).
		{"feature DP regression, unscaled feature", incomeRegression(schema), func(o *TrainOptions) {
			o.Encode.LabelBounds, o.Ball, o.Encode.Bounds = &data.Range{Lo: 0, Hi: 120}, nil, nil
			o.Encode.ScaleFor = map[string]data.Scaling{"age": data.NoScaling}
		}, "(age is not)"},
		{"feature DP regression, ZScore feature", incomeRegression(schema), func(o *TrainOptions) {
			o.Encode.LabelBounds, o.Ball, o.Encode.Bounds = &data.Range{Lo: 0, Hi: 120}, nil, nil
			o.Encode.ScaleFor = map[string]data.Scaling{"age": data.ZScore}
			o.Encode.Moments = map[string]data.Moments{"age": {Mean: 50, SD: 17}}
		}, "(age is not)"},
		// Clipped, noised steps of size 1e8 leave every weight beyond
		// MaxReleaseParam: refused, not released.
		{"diverged", schema, func(o *TrainOptions) { o.Notion, o.Rows, o.LR = release.DP, 300, 1e8 }, "training diverged"},
	} {
		o := trainOpts()
		tc.edit(&o)
		_, err := Train(context.Background(), df, tc.schema, o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// incomeRegression is corrdpUserFrame's schema with income as the
// regression label and the class label ignored.
func incomeRegression(schema data.Schema) data.Schema {
	reg := schema.Clone()
	for i, c := range reg.Columns {
		switch c.Name {
		case "income":
			reg.Columns[i].Role = data.Label
		case "y":
			reg.Columns[i].Role = data.Ignore
		}
	}
	reg.Task = data.Regression
	return reg
}

// rowRange is lo..hi−1.
func rowRange(lo, hi int) []int {
	idx := make([]int, hi-lo)
	for i := range idx {
		idx[i] = lo + i
	}
	return idx
}

// Every model kind trains, saves and predicts: the MLP and softmax on the
// classification table, linear regression on a regression schema.
func TestTrainModelKinds(t *testing.T) {
	df, schema := corrdpUserFrame(600)
	reg := incomeRegression(schema)
	for _, tc := range []struct {
		kind   string
		schema data.Schema
	}{{release.KindMLP, schema}, {release.KindSoftmax, schema}, {release.KindLinear, reg}, {"", reg}} {
		o := trainOpts()
		o.Model, o.Hidden = tc.kind, 4
		if tc.schema.Task == data.Regression { // income is the label: public label bounds, no feature bounds
			o.Encode.Bounds = map[string]data.Range{"age": {Lo: 20, Hi: 80}}
			o.Encode.LabelBounds = &data.Range{Lo: 0, Hi: 120}
		}
		f, err := Train(context.Background(), df, tc.schema, o)
		if err != nil {
			t.Fatalf("%q: %v", tc.kind, err)
		}
		var buf bytes.Buffer
		if err := f.Write(&buf); err != nil {
			t.Fatalf("%q: %v", tc.kind, err)
		}
		g, err := release.Read(&buf)
		if err != nil {
			t.Fatalf("%q: %v", tc.kind, err)
		}
		p, err := g.Predict(df)
		if err != nil {
			t.Fatalf("%q: %v", tc.kind, err)
		}
		if n := max(len(p.Class), len(p.Value)); n != 600 {
			t.Errorf("%q: %d predictions", tc.kind, n)
		}
		// A regression predicts in the label's units: the mean prediction
		// lies in its public range, not in the scaled [0, 1].
		if len(p.Value) > 0 {
			// A label scaling other than the public bounds' is refused.
			g.Encoder.LabelShift = 50
			if err := g.Write(&bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "LabelBounds") {
				t.Errorf("%q: a shift of 50 under LabelBounds [0, 120] was written: %v", tc.kind, err)
			}
			mean := 0.0
			for _, v := range p.Value {
				mean += v / float64(len(p.Value))
			}
			if !(mean > 5 && mean < 120) {
				t.Errorf("%q: mean prediction %v, want income's units (public range [0, 120])", tc.kind, mean)
			}
		}
	}
	// Under feature DP a linear regression's step stays below 1/B (B = 3
	// features + intercept here): Algorithm 1's public gradient is not
	// clipped, and the squared loss diverges above it.
	o := trainOpts()
	o.Encode.Bounds = map[string]data.Range{"age": {Lo: 20, Hi: 80}}
	o.Encode.LabelBounds = &data.Range{Lo: 0, Hi: 120}
	o.LR = 0.25
	if _, err := Train(context.Background(), df, reg, o); err == nil || !strings.Contains(err.Error(), "LR < 1/B = 0.25") {
		t.Errorf("LR 0.25 for a linear regression with B = 4: %v", err)
	}
	// Without public label bounds a regression is refused, naming them.
	o = trainOpts()
	o.Encode.Bounds = map[string]data.Range{"age": {Lo: 20, Hi: 80}}
	if _, err := Train(context.Background(), df, reg, o); err == nil || !strings.Contains(err.Error(), "--bounds income=LO:HI") {
		t.Errorf("regression without label bounds: %v", err)
	}
}

// CheckRelease on a regression reports the MSE of Predict's values (the
// label's units) against the raw test labels, one beyond the public
// bounds included.
func TestCheckReleaseRegressionUnits(t *testing.T) {
	df, schema := corrdpUserFrame(600)
	reg := incomeRegression(schema)
	o := trainOpts()
	o.Encode.Bounds = map[string]data.Range{"age": {Lo: 20, Hi: 80}}
	o.Encode.LabelBounds = &data.Range{Lo: 0, Hi: 60} // some incomes lie above
	train, test := df.Subset(allRows(400)), df.Subset(rowRange(400, 600))
	c, err := CheckRelease(context.Background(), train, test, reg, o)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Model.Predict(test)
	if err != nil {
		t.Fatal(err)
	}
	y := test.Col("income").Float()
	want := 0.0
	for i, v := range p.Value {
		want += (v - y[i]) * (v - y[i]) / float64(len(y))
	}
	if c.Metric != "mse" || math.Abs(c.Private-want) > 1e-9*want || !(c.NonPrivate > 0) || !(c.PublicOnly > 0) {
		t.Errorf("check %+v, want private MSE %v (label units, raw labels)", c, want)
	}
}

// CheckRelease puts the release's test accuracy beside the non-private and
// public-only baselines of the same model, steps and batch.
func TestCheckRelease(t *testing.T) {
	df, schema := corrdpUserFrame(2000)
	train, test := df.Subset(allRows(1500)), df.Subset(rowRange(1500, 2000))
	o := trainOpts()
	o.Epsilon = 4
	c, err := CheckRelease(context.Background(), train, test, schema, o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Metric != "accuracy" || !(c.NonPrivate > 0.75) || !(c.Private > 0.55) || !(c.PublicOnly >= 0 && c.PublicOnly <= 1) {
		t.Errorf("accuracies: private %.3f, non-private %.3f, public-only %.3f", c.Private, c.NonPrivate, c.PublicOnly)
	}
	md := c.Markdown()
	for _, want := range []string{"feature-dp release, ε = 4", "not a private release", "non-private", "public columns only", "not for publication"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	t.Logf("\n%s", md)
}

// On Adult (the CorrDP paper's sensitive columns, public encoding) a
// feature-DP release at ε = 1 is reported beside DP-SGD's and the
// non-private model's test accuracy (BENCHMARKS.md, notebook 03).
func TestAdultRelease(t *testing.T) {
	dir := os.Getenv(data.EnvDataDir)
	if dir == "" || testing.Short() {
		t.Skip("real-data test skipped: set FEATUREDP_DATA to the directory holding adult.data and adult.test (and not -short)")
	}
	ds, err := data.LoadAdult(data.Options{Offline: true})
	if err != nil {
		t.Skipf("Adult not available: %v", err)
	}
	trainIdx, testIdx, err := data.SplitIndices(ds.Frame.Nrow(), 0.3, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	train, test := ds.Frame.Subset(trainIdx), ds.Frame.Subset(testIdx)
	for _, notion := range []release.Notion{release.FeatureDP, release.DP} {
		// Rows: a public round figure for the training rows (70% of Adult's
		// 45,222 complete records), which DP needs.
		o := TrainOptions{Notion: notion, Epsilon: 1, Encode: data.AdultPublicEncoding(), Reproducible: true, Seed: 1, Rows: 30000}
		c, err := CheckRelease(context.Background(), train, test, ds.Schema, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("Adult, %s, ε = %.4g (target 1), %d train / %d test rows: private %.4f, non-private %.4f, public-only %.4f",
			notion, c.Model.Certificate.Epsilon, train.Nrow(), test.Nrow(), c.Private, c.NonPrivate, c.PublicOnly)
		if !(c.Private > 0.76) || !(c.NonPrivate > 0.8) || c.Model.Certificate.Epsilon > 1 {
			t.Errorf("%s: private %.4f, non-private %.4f, ε %v", notion, c.Private, c.NonPrivate, c.Model.Certificate.Epsilon)
		}
	}
}

// BenchmarkTrainAdult trains a feature-DP release on Adult's 31,655
// training rows at ε = 1 (defaults: q = 0.01, 500 steps): encoding,
// calibration, training and the certificate.
func BenchmarkTrainAdult(b *testing.B) {
	ds, err := data.LoadAdult(data.Options{Offline: true})
	if err != nil {
		b.Skipf("Adult not available (set FEATUREDP_DATA): %v", err)
	}
	trainIdx, _, err := data.SplitIndices(ds.Frame.Nrow(), 0.3, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	train := ds.Frame.Subset(trainIdx)
	o := TrainOptions{Epsilon: 1, Encode: data.AdultPublicEncoding()}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Train(context.Background(), train, ds.Schema, o); err != nil {
			b.Fatal(err)
		}
	}
}

// TrainCSV (streaming, no DataFrame) writes the same model file as Train
// on the DataFrame of the same CSV.
func TestTrainCSVMatchesTrain(t *testing.T) {
	df, schema := corrdpUserFrame(900)
	var csvText bytes.Buffer
	if err := df.WriteCSV(&csvText); err != nil {
		t.Fatal(err)
	}
	back, err := data.ReadCSV(bytes.NewReader(csvText.Bytes()), data.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Train(context.Background(), back, schema, trainOpts())
	if err != nil {
		t.Fatal(err)
	}
	b, err := TrainCSV(context.Background(), bytes.NewReader(csvText.Bytes()), schema, trainOpts(), data.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var fa, fb bytes.Buffer
	if err := a.Write(&fa); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(&fb); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fa.Bytes(), fb.Bytes()) {
		t.Error("TrainCSV and Train wrote different model files")
	}
	if _, err := TrainCSV(context.Background(), strings.NewReader("region,age\nnorth,3\n"), schema, trainOpts(), data.CSVOptions{}); !errors.Is(err, data.ErrUnknownColumn) {
		t.Errorf("missing columns: %v", err)
	}
}

// A small target (ε = 0.05 at δ = 1e-5, below what Opacus' order grid can
// state) trains on the default grid, whose orders reach 1024, and the
// certificate's ε is at most the target.
func TestTrainSmallEpsilon(t *testing.T) {
	df, schema := corrdpUserFrame(300)
	o := trainOpts()
	o.Epsilon = 0.05
	f, err := Train(context.Background(), df, schema, o)
	if err != nil {
		t.Fatal(err)
	}
	c := f.Certificate
	if !(c.Epsilon <= 0.05) || !(c.Epsilon > 0.049) || c.Accounting.Order <= 63 {
		t.Errorf("ε = %v at order %v, want ≤ 0.05 (tight) at an order above Opacus' 63", c.Epsilon, c.Accounting.Order)
	}
}

// On insurance.csv (label charges, public bounds, every default) feature
// DP's linear and MLP regressions stay finite and predict in dollars: the
// default steps 1/B and 1/(Hidden + 1) keep Algorithm 1's unclipped public
// gradient stable (lr 0.5 reached |θ| ≈ 1e33, predictions ≈ −2e39, and
// NaN for the MLP).
func TestTrainInsuranceRegression(t *testing.T) {
	dir := os.Getenv("FEATUREDP_DATA")
	fh, err := os.Open(filepath.Join(dir, "insurance.csv"))
	if dir == "" || err != nil {
		t.Skipf("insurance.csv not available (set FEATUREDP_DATA): %v", err)
	}
	defer fh.Close()
	df, err := data.ReadCSV(fh, data.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	schema := data.Schema{Task: data.Regression, Columns: []data.Column{
		{Name: "age", Role: data.Public}, {Name: "sex", Role: data.Public, Kind: data.Categorical, Levels: []string{"female", "male"}},
		{Name: "bmi", Role: data.Public}, {Name: "children", Role: data.Public},
		{Name: "smoker", Role: data.Sensitive, Kind: data.Categorical, Levels: []string{"no", "yes"}},
		{Name: "region", Role: data.Public, Kind: data.Categorical, Levels: []string{"northeast", "northwest", "southeast", "southwest"}},
		{Name: "charges", Role: data.Label},
	}}
	for _, kind := range []string{release.KindLinear, release.KindMLP} {
		o := TrainOptions{Model: kind, Epsilon: 2, Reproducible: true, Seed: 1, Encode: data.EncodeOptions{
			Bounds:      map[string]data.Range{"age": {Lo: 18, Hi: 64}, "bmi": {Lo: 15, Hi: 55}, "children": {Lo: 0, Hi: 5}},
			LabelBounds: &data.Range{Lo: 0, Hi: 70000}}}
		f, err := Train(context.Background(), df, schema, o)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		for j, v := range f.Model.Theta {
			if !(math.Abs(v) < 100) {
				t.Fatalf("%s: θ[%d] = %v: diverged", kind, j, v)
			}
		}
		p, err := f.Predict(df)
		if err != nil {
			t.Fatal(err)
		}
		mean := 0.0
		for _, v := range p.Value {
			mean += v / float64(len(p.Value))
		}
		if !(mean > 1000 && mean < 70000) {
			t.Errorf("%s: mean prediction %v: want dollars within the public range", kind, mean)
		}
	}
}

// The worst case of the bound: every row at the corner of its public box,
// ‖x‖² = B. The default step 1/(2B) and a step just below 1/B stay
// finite under feature DP (1/B·1.5 reached |θ| ≈ 1e87 before 1/B was the
// limit); 1/B itself is refused.
func TestTrainLinearStepWorstCase(t *testing.T) {
	n := 300
	one := make([]float64, n)
	s, y := make([]string, n), make([]float64, n)
	for i := range one {
		one[i], s[i], y[i] = 1, []string{"no", "yes"}[i%2], 1
	}
	df := dataframe.New(corrdpseries.New(one, corrdpseries.Float, "a"), corrdpseries.New(one, corrdpseries.Float, "b"), corrdpseries.New(one, corrdpseries.Float, "c"),
		corrdpseries.New(one, corrdpseries.Float, "d"), corrdpseries.New(s, corrdpseries.String, "s"), corrdpseries.New(y, corrdpseries.Float, "y"))
	schema := data.Schema{Task: data.Regression, Columns: []data.Column{
		{Name: "a", Role: data.Public}, {Name: "b", Role: data.Public}, {Name: "c", Role: data.Public}, {Name: "d", Role: data.Public},
		{Name: "s", Role: data.Sensitive, Kind: data.Categorical, Levels: []string{"no", "yes"}}, {Name: "y", Role: data.Label}}}
	bounds := map[string]data.Range{"a": {Lo: 0, Hi: 1}, "b": {Lo: 0, Hi: 1}, "c": {Lo: 0, Hi: 1}, "d": {Lo: 0, Hi: 1}}
	for _, lr := range []float64{0, 0.99 / 6} { // B = 5 features + intercept
		o := TrainOptions{Epsilon: 2, LR: lr, SampleRate: 0.1, Epochs: 20, Reproducible: true, Seed: 3,
			Encode: data.EncodeOptions{Bounds: bounds, LabelBounds: &data.Range{Lo: 0, Hi: 2}}}
		f, err := Train(context.Background(), df, schema, o)
		if err != nil {
			t.Fatalf("lr %v: %v", lr, err)
		}
		for j, v := range f.Model.Theta {
			if !(math.Abs(v) < 100) {
				t.Errorf("lr %v: θ[%d] = %v: diverged", lr, j, v)
			}
		}
	}
	o := TrainOptions{Epsilon: 2, LR: 1.0 / 6, Encode: data.EncodeOptions{Bounds: bounds, LabelBounds: &data.Range{Lo: 0, Hi: 2}}}
	if _, err := Train(context.Background(), df, schema, o); err == nil || !strings.Contains(err.Error(), "LR < 1/B") {
		t.Errorf("lr = 1/B: %v", err)
	}
}

// unreadable is a reader that fails the test when read.
type unreadable struct{ t *testing.T }

func (u unreadable) Read([]byte) (int, error) {
	u.t.Error("TrainCSV read the file before refusing its options")
	return 0, io.EOF
}

// TrainCSV refuses what the options alone decide before it reads a row:
// an oversized MLP, a budget the calibration cannot reach and a column name
// a model file cannot hold (a long file is not streamed for nothing).
func TestTrainCSVChecksBeforeReading(t *testing.T) {
	_, schema := corrdpUserFrame(10)
	badName := schema.Clone()
	badName.Columns = append(badName.Columns, data.Column{Name: "\xffz", Role: data.Ignore})
	for _, c := range []struct {
		name   string
		schema data.Schema
		edit   func(*TrainOptions)
		want   string
	}{
		{"huge MLP", schema, func(o *TrainOptions) { o.Model, o.Hidden = release.KindMLP, 1_000_000_000 }, "MaxTrainParams"},
		{"unreachable ε", schema, func(o *TrainOptions) { o.Epsilon, o.Orders = 0.05, accounting.DefaultOrders() }, "calibrating the noise"},
		{"a name JSON cannot hold", badName, func(*TrainOptions) {}, "not valid UTF-8"},
		// A grid the certificate check cannot recompose (more than
		// release.MaxOrders orders): the model could not be saved.
		{"too many orders", schema, func(o *TrainOptions) {
			o.Orders = make([]float64, release.MaxOrders+1)
			for i := range o.Orders {
				o.Orders[i] = 2 + float64(i)/100
			}
		}, "MaxOrders"},
	} {
		o := trainOpts()
		c.edit(&o)
		_, err := TrainCSV(context.Background(), unreadable{t}, c.schema, o, data.CSVOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// A sensitive ZScore feature is fine in a feature-DP regression: Ψ(x)
// zeroes it, so the unclipped public gradient never reads it (only public
// continuous features must be min–max scaled), and the run stays bounded.
func TestTrainSensitiveZScoreRegression(t *testing.T) {
	df, schema := corrdpUserFrame(1500)
	reg := incomeRegression(schema)
	for i, c := range reg.Columns {
		if c.Name == "age" {
			reg.Columns[i].Role = data.Sensitive
		}
	}
	o := trainOpts()
	o.Encode.LabelBounds, o.Ball, o.Encode.Bounds = &data.Range{Lo: 0, Hi: 120}, nil, nil
	o.Encode.ScaleFor = map[string]data.Scaling{"age": data.ZScore}
	o.Encode.Moments = map[string]data.Moments{"age": {Mean: 50, SD: 17}}
	f, err := Train(context.Background(), df, reg, o)
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range f.Model.Theta {
		if !(math.Abs(v) < 100) {
			t.Errorf("θ[%d] = %v: diverged", j, v)
		}
	}
}

// Every certificate says what its ε does not cover: the parameters are
// float64 sums of continuous Gaussian noise, whose guarantee is proven on
// real numbers (docs/accounting.md, "Threat model and guarantees"), so a
// reader of the certificate alone does not take the ε for a
// floating-point-safe one; under both notions and in both modes.
func TestTrainCertificateFloatingPointNote(t *testing.T) {
	df, schema := corrdpUserFrame(400)
	for _, notion := range []release.Notion{release.FeatureDP, release.DP} {
		o := trainOpts()
		o.Notion, o.Rows = notion, 400
		f, err := Train(context.Background(), df, schema, o)
		if err != nil {
			t.Fatal(err)
		}
		md := f.Certificate.Markdown()
		if !strings.Contains(md, "floating-point") || !strings.Contains(md, "docs/accounting.md") {
			t.Errorf("%s: the certificate does not say what its ε leaves out:\n%s", notion, md)
		}
	}
}
