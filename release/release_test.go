package release

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/data"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// frame is a small table: sex (categorical, sensitive), age (continuous,
// public), y (label).
func frame(sex []string, age []float64, y []string) dataframe.DataFrame {
	cols := []series.Series{series.New(sex, series.String, "sex"), series.New(age, series.Float, "age")}
	if y != nil {
		cols = append(cols, series.New(y, series.String, "y"))
	}
	return dataframe.New(cols...)
}

func schema() data.Schema {
	return data.Schema{Columns: []data.Column{
		{Name: "sex", Role: data.Sensitive, Kind: data.Categorical, Levels: []string{"f", "m"}},
		{Name: "age", Role: data.Public, Kind: data.Continuous},
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"no", "yes"}},
	}}
}

func encoder(t testing.TB) *data.Encoder {
	t.Helper()
	df := frame([]string{"f", "m", "f"}, []float64{20, 50, 80}, []string{"no", "yes", "no"})
	e, err := data.FitEncoder(df, schema(), data.EncodeOptions{Scale: data.MinMax, Bounds: map[string]data.Range{"age": {Lo: 0, Hi: 100}}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// certificate composes 500 steps of q = 0.01, z = 1.1 under the relation
// of the notion.
func certificate(t testing.TB, notion Notion, rel accounting.Relation, secure bool) *Certificate {
	t.Helper()
	l, err := accounting.NewLedger(rel, accounting.DefaultOrders())
	if err != nil {
		t.Fatal(err)
	}
	loss, err := accounting.SubsampledGaussianLoss(accounting.Phase{SampleRate: 0.01, NoiseMultiplier: 1.1, Steps: 500})
	if err != nil {
		t.Fatal(err)
	}
	if loss, err = loss.ChangeRelation(rel); err != nil {
		t.Fatal(err)
	}
	if err := l.Add(loss); err != nil {
		t.Fatal(err)
	}
	c, err := New(l, 1e-5, accounting.DefaultConversion, Spec{
		Notion: notion, Protected: []string{"sex"}, Public: []string{"age"}, Label: "y", TargetEpsilon: 2, Secure: secure,
		Training: Training{Model: KindLogistic, Sampling: "Poisson", SampleRate: 0.01, Steps: 500, NoiseMultiplier: 1.1, ClipNorm: 1, Rows: 5000},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func modelFile(t testing.TB) *File {
	t.Helper()
	return &File{Format: FileFormat, Version: FileVersion, Encoder: encoder(t),
		Model:       ModelSpec{Kind: KindSoftmax, Features: 3, Classes: 2, Theta: []float64{0.5, -0.5, 0.25, -0.25, 2, -2, 0.1, -0.1}},
		Certificate: certificate(t, FeatureDP, accounting.RelationFeatureSimulator, true)}
}

// The certificate's ε is the ledger's, to the bit; a reproducible run says
// it is not a private release.
func TestCertificateFromLedger(t *testing.T) {
	l, _ := accounting.NewLedger(accounting.RelationAddRemove, accounting.DefaultOrders())
	loss, _ := accounting.SubsampledGaussianLoss(accounting.Phase{SampleRate: 0.01, NoiseMultiplier: 1.1, Steps: 500})
	if err := l.Add(loss); err != nil {
		t.Fatal(err)
	}
	rep, err := l.Epsilon(1e-5, accounting.DefaultConversion)
	if err != nil {
		t.Fatal(err)
	}
	c := certificate(t, DP, accounting.RelationAddRemove, false)
	if c.Epsilon != rep.Epsilon || c.Delta != rep.Delta || c.Accounting.Order != rep.Order || len(c.Accounting.Entries) != 1 {
		t.Errorf("certificate ε %v δ %v order %v, ledger %v %v %v", c.Epsilon, c.Delta, c.Accounting.Order, rep.Epsilon, rep.Delta, rep.Order)
	}
	if c.PrivateRelease || !strings.HasPrefix(c.Statement, "NOT A PRIVATE RELEASE") || c.Randomness != "reproducible" {
		t.Errorf("reproducible run: %+v", c)
	}
	if s := certificate(t, DP, accounting.RelationAddRemove, true); !s.PrivateRelease || strings.Contains(s.Statement, "NOT") {
		t.Errorf("secure run: %s", s.Statement)
	}
	md := c.Markdown()
	for _, want := range []string{"NOT A PRIVATE RELEASE", "add-remove", "| protected columns | sex |", "Poisson sampling q = 0.01", "row count"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// New refuses what would make a wrong certificate.
func TestCertificateErrors(t *testing.T) {
	l, _ := accounting.NewLedger(accounting.RelationAddRemove, accounting.DefaultOrders())
	spec := Spec{Notion: DP, Label: "y", TargetEpsilon: 1}
	if _, err := New(l, 1e-5, accounting.DefaultConversion, spec); err == nil {
		t.Error("empty ledger accepted")
	}
	loss, _ := accounting.SubsampledGaussianLoss(accounting.Phase{SampleRate: 0.1, NoiseMultiplier: 0.8, Steps: 1000})
	_ = l.Add(loss)
	for name, s := range map[string]Spec{
		"above target":     spec,
		"wrong relation":   {Notion: FeatureDP, Protected: []string{"a"}, Label: "y", TargetEpsilon: 1e6},
		"unknown notion":   {Notion: "fdp", Label: "y", TargetEpsilon: 1e6},
		"no label":         {Notion: DP, TargetEpsilon: 1e6},
		"no protected":     {Notion: CorrDP, Label: "y", TargetEpsilon: 1e6},
		"infinite target":  {Notion: DP, Label: "y", TargetEpsilon: math.Inf(1)},
		"non-positive eps": {Notion: DP, Label: "y", TargetEpsilon: 0},
	} {
		if _, err := New(l, 1e-5, accounting.DefaultConversion, s); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := New(nil, 1e-5, accounting.DefaultConversion, spec); err == nil {
		t.Error("nil ledger accepted")
	}
}

// Write → Read gives the same predictions; two writes are byte-identical.
func TestRoundTrip(t *testing.T) {
	f := modelFile(t)
	var a, b bytes.Buffer
	if err := f.Write(&a); err != nil {
		t.Fatal(err)
	}
	if err := f.Write(&b); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatalf("two writes differ (%v)", err)
	}
	g, err := Read(bytes.NewReader(a.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	df := frame([]string{"m", "f"}, []float64{30, 130}, nil)
	p1, err := f.Predict(df)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := g.Predict(df)
	if err != nil {
		t.Fatal(err)
	}
	if len(p1.Probs) != 2 || p1.Probs[0][0] != p2.Probs[0][0] || p1.Probs[1][1] != p2.Probs[1][1] || p1.Class[1] != p2.Class[1] {
		t.Errorf("predictions differ: %+v vs %+v", p1, p2)
	}
	// The label column may be there, and extra columns are ignored.
	withLabel := frame([]string{"m", "f"}, []float64{30, 130}, []string{"yes", "no"})
	if p3, err := g.Predict(withLabel); err != nil || p3.Probs[0][1] != p1.Probs[0][1] {
		t.Errorf("with the label column: %v %v", p3, err)
	}
	if s := p1.Probs[0][0] + p1.Probs[0][1]; math.Abs(s-1) > 1e-12 {
		t.Errorf("probabilities sum to %v", s)
	}
}

// A damaged, edited, foreign or oversized file is a clear error.
func TestReadErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := modelFile(t).Write(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	edited := strings.Replace(good, "0.25", "0.26", 1)
	for _, tc := range []struct {
		name string
		text string
		want error
	}{
		{"truncated", good[:len(good)/2], ErrFormat},
		{"edited parameter", edited, ErrChecksum},
		{"other version", strings.Replace(good, `"version": 1`, `"version": 3`, 1), ErrFormat},
		{"other format", strings.Replace(good, FileFormat, "onnx", 1), ErrFormat},
		{"unknown field", strings.Replace(good, `"format":`, `"extra": 1, "format":`, 1), ErrFormat},
		{"empty", "", ErrFormat},
		// Forgiven by JSON decoding, not produced by Write: refused.
		{"key in another case", strings.Replace(good, `"epsilon":`, `"Epsilon":`, 1), ErrChecksum},
		{"repeated key", strings.Replace(good, `"format":`, `"format": "x", "format":`, 1), ErrChecksum},
		{"text after the document", good + `{"more": 1}`, ErrFormat},
		{"number rewritten", strings.Replace(good, `"clip_norm": 1,`, `"clip_norm": 1.0,`, 1), ErrChecksum},
	} {
		_, err := Read(strings.NewReader(tc.text))
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// A newer build's version says so (review M: it named no cause). Fails
	// on the old code.
	if _, err := Read(strings.NewReader(strings.Replace(good, `"version": 1`, `"version": 3`, 1))); err == nil || !strings.Contains(err.Error(), "a newer featuredp wrote it") {
		t.Errorf("version 3: %v, want it to say a newer featuredp wrote it", err)
	}
	if _, err := Read(strings.NewReader(strings.Replace(good, `"version": 1`, `"version": 0`, 1))); err == nil || strings.Contains(err.Error(), "newer") {
		t.Errorf("version 0: %v, want no newer-version hint", err)
	}
	defer func(old int) { maxRead = old }(maxRead)
	maxRead = 100
	if _, err := Read(strings.NewReader(good)); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "larger than 100 bytes") {
		t.Errorf("oversized: %v", err)
	}
	if _, err := Read(nil); err == nil {
		t.Error("nil reader accepted")
	}
}

// Rows that do not fit the schema are errors naming the problem.
func TestPredictErrors(t *testing.T) {
	f := modelFile(t)
	noAge := dataframe.New(series.New([]string{"f"}, series.String, "sex"))
	if _, err := f.Predict(noAge); !errors.Is(err, data.ErrUnknownColumn) || !strings.Contains(err.Error(), `"age"`) {
		t.Errorf("missing column: %v", err)
	}
	if _, err := f.Predict(frame([]string{"x"}, []float64{3}, nil)); !errors.Is(err, data.ErrUnknownLevel) {
		t.Errorf("unseen category: %v", err)
	}
	wrong := dataframe.New(series.New([]string{"f"}, series.String, "sex"), series.New([]string{"old"}, series.String, "age"))
	if _, err := f.Predict(wrong); err == nil {
		t.Error("text in a continuous column accepted")
	}
	var nilFile *File
	if _, err := nilFile.Predict(noAge); err == nil {
		t.Error("nil file")
	}
}

// A model whose shape does not match its parameters or encoding, whose
// encoding is inconsistent, or whose encoding read the data, is refused
// before it is written, and Predict refuses it too (a File built in
// memory, not read by Read).
func TestValidate(t *testing.T) {
	for name, edit := range map[string]func(*File){
		"short theta":   func(f *File) { f.Model.Theta = f.Model.Theta[:3] },
		"NaN theta":     func(f *File) { f.Model.Theta[0] = math.NaN() },
		"wrong width":   func(f *File) { f.Model.Features = 4 },
		"unknown kind":  func(f *File) { f.Model.Kind = "forest" },
		"three classes": func(f *File) { f.Model.Classes = 3; f.Model.Theta = make([]float64, 12) },
		"no cert":       func(f *File) { f.Certificate = nil },
		// A shape whose parameter count wraps around int to len(θ):
		// h·(3+1+2) + 2 = 2^64 + 4.
		"wrapping mlp": func(f *File) {
			f.Model = ModelSpec{Kind: KindMLP, Features: 3, Classes: 2, Hidden: 3074457345618258603, Theta: make([]float64, 4)}
		},
		"encoder feature renamed": func(f *File) { f.Encoder.Features[0].Column.Name = "gender" },
		"encoder feature dropped": func(f *File) { f.Encoder.Features = f.Encoder.Features[1:] },
		"encoder level twice":     func(f *File) { f.Encoder.Features[0].Levels = []string{"f", "f"} },
		"encoder without classes": func(f *File) { f.Encoder.Classes = nil },
		// A certificate that does not fit the model or its own fields.
		"certificate version 1":    func(f *File) { f.Certificate.Version = 1 },
		"certificate notion":       func(f *File) { f.Certificate.Notion = "ldp" },
		"certificate relation":     func(f *File) { f.Certificate.Relation = accounting.RelationAddRemove.String() },
		"ε above target":           func(f *File) { f.Certificate.Epsilon = 2.5 },
		"negative ε":               func(f *File) { f.Certificate.Epsilon = -1 },
		"δ of 1":                   func(f *File) { f.Certificate.Delta = 1 },
		"private, seeded":          func(f *File) { f.Certificate.Randomness = "reproducible" },
		"label renamed":            func(f *File) { f.Certificate.Label = "outcome" },
		"protected column dropped": func(f *File) { f.Certificate.Protected = nil },
		"public column protected":  func(f *File) { f.Certificate.Protected, f.Certificate.Public = []string{"sex", "age"}, nil },
		"column listed twice":      func(f *File) { f.Certificate.Protected = []string{"sex", "sex"} },
		// ε and the statement edited together: its own training (q, z,
		// T) composes to more, so the claim is refused.
		"ε below its training": func(f *File) {
			f.Certificate.Epsilon = f.Certificate.Epsilon / 100
			f.Certificate.Statement = f.Certificate.statement()
		},
		"training edited": func(f *File) { f.Certificate.Training.NoiseMultiplier /= 2 },
		"statement edited": func(f *File) {
			f.Certificate.Statement = strings.Replace(f.Certificate.Statement, "ε = ", "ε = 0.", 1)
		},
		"another run's certificate": func(f *File) {
			f.Certificate = certificate(t, DP, accounting.RelationAddRemove, true)
		},
		"private classes":     func(f *File) { f.Encoder.Classes = []string{"yes", "no"} },
		"clipped class label": func(f *File) { f.Encoder.LabelClip = true },
		"level not UTF-8": func(f *File) {
			f.Encoder.Features[0].Levels[0] = "f\xff"
			f.Encoder.Schema.Columns[0].Levels[0] = "f\xff"
		},

		"scaled regression label": func(f *File) {
			f.Encoder.Schema.Task, f.Encoder.Classes, f.Encoder.LabelShift, f.Encoder.LabelDiv = data.Regression, nil, 41.5, 12
		},
		"private levels": func(f *File) {
			df := frame([]string{"f", "m"}, []float64{1, 2}, []string{"no", "yes"})
			s := schema()
			s.Columns[0].Levels = nil
			e, err := data.FitEncoder(df, s, data.EncodeOptions{Scale: data.MinMax, Bounds: map[string]data.Range{"age": {Lo: 0, Hi: 100}}, LevelsFromData: true})
			if err != nil {
				t.Fatal(err)
			}
			f.Encoder = e
		},
	} {
		f := modelFile(t)
		edit(f)
		if err := f.Write(&bytes.Buffer{}); err == nil {
			t.Errorf("%s: written", name)
		}
		if _, err := f.Predict(frame([]string{"f"}, []float64{30}, nil)); err == nil {
			t.Errorf("%s: predicted", name)
		}
	}
}

// More than MaxLevels levels anywhere in the encoder (features, schema,
// options) are refused, naming the cap, before anything else is checked.
func TestMaxLevels(t *testing.T) {
	lv := make([]string, MaxLevels+1)
	for i := range lv {
		lv[i] = strconv.Itoa(i)
	}
	for name, edit := range map[string]func(*File){
		"feature levels": func(f *File) { f.Encoder.Features[0].Levels = lv },
		"schema levels":  func(f *File) { f.Encoder.Schema.Columns[0].Levels = lv },
		"option levels":  func(f *File) { f.Encoder.Options.Levels = map[string][]string{"sex": lv} },
	} {
		f := modelFile(t)
		edit(f)
		if err := f.Validate(); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "MaxLevels") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// One feature's levels listed in the schema too count once per place:
	// MaxLevels − 2 levels and two classes fit.
	f := modelFile(t)
	f.Encoder.Features[0].Levels, f.Encoder.Schema.Columns[0].Levels = lv[:MaxLevels-2], lv[:MaxLevels-2]
	if err := CheckLevels(f.Encoder); err != nil {
		t.Errorf("MaxLevels − 2 levels, 2 classes: %v", err)
	}
}

// Save never replaces a file unless asked, and Load reads what it wrote.
func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.json")
	if err := os.WriteFile(path, []byte("user data"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := modelFile(t)
	if err := f.Save(path, false); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Save over a user file: %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "user data" {
		t.Fatal("the user file changed")
	}
	if err := f.Save(path, true); err != nil {
		t.Fatal(err)
	}
	g, err := Load(path)
	if err != nil || g.Certificate.Epsilon != f.Certificate.Epsilon {
		t.Fatalf("Load: %v", err)
	}
	if _, err := Load(dir); err == nil {
		t.Error("a directory loaded")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries left in the directory", len(ents))
	}
	fresh := filepath.Join(dir, "new.json")
	if err := f.Save(fresh, false); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d entries in the directory, want the two models alone", len(ents))
	}
}

// A DP certificate protects every feature; a feature-DP one the sensitive
// features, with the public ones known. Both fit their encoder.
func TestCertificateFitsEncoder(t *testing.T) {
	dp := certificate(t, DP, accounting.RelationAddRemove, true)
	dp.Protected, dp.Public = []string{"age", "sex"}, nil
	dp.Statement = dp.statement()
	for name, c := range map[string]*Certificate{
		"feature DP":               certificate(t, FeatureDP, accounting.RelationFeatureSimulator, true),
		"feature DP, reproducible": certificate(t, FeatureDP, accounting.RelationFeatureSimulator, false),
		"DP":                       dp,
	} {
		f := modelFile(t)
		f.Certificate = c
		if err := f.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// PredictCSV streams: its chunks, concatenated, are Predict's predictions
// of the same rows to the bit, whatever the columns around the features;
// bad rows are errors naming the column and the line, and fn's error is
// returned as it is.
func TestPredictCSV(t *testing.T) {
	f := modelFile(t)
	n := 2*PredictChunkRows + 5
	sex, age := make([]string, n), make([]float64, n)
	var b strings.Builder
	b.WriteString("note,age,sex\n")
	for i := range n {
		sex[i], age[i] = []string{"f", "m"}[i%2], float64(i%130)-10
		fmt.Fprintf(&b, "row %d,%s,%s\n", i, strconv.FormatFloat(age[i], 'g', -1, 64), sex[i])
	}
	want, err := f.Predict(frame(sex, age, nil))
	if err != nil {
		t.Fatal(err)
	}
	got, chunks := &Predictions{}, 0
	err = f.PredictCSV(strings.NewReader(b.String()), data.CSVOptions{}, func(p *Predictions) error {
		chunks++
		got.Classes = p.Classes
		got.Probs, got.Class = append(got.Probs, p.Probs...), append(got.Class, p.Class...)
		return nil
	})
	if err != nil || chunks != 3 || !reflect.DeepEqual(got, want) {
		t.Fatalf("PredictCSV: %v, %d chunks, equal to Predict: %v", err, chunks, reflect.DeepEqual(got, want))
	}
	stop := errors.New("stop")
	if err := f.PredictCSV(strings.NewReader(b.String()), data.CSVOptions{}, func(*Predictions) error { return stop }); err != stop {
		t.Errorf("fn's error came back as %v", err)
	}
	keep := func(*Predictions) error { return nil }
	for _, tc := range []struct {
		name, text string
		fn         func(*Predictions) error
		want       string
	}{
		{"no age column", "sex\nf\n", keep, `no column "age"`},
		{"unseen level", "sex,age\nf,3\nx,3\n", keep, `column "sex", line 3: level "x"`},
		{"missing age", "sex,age\nf,\n", keep, `column "age", line 2: missing value`},
		{"header only", "sex,age\n", keep, "no data rows"},
		{"nil fn", "sex,age\nf,3\n", nil, "nil fn"},
	} {
		err := f.PredictCSV(strings.NewReader(tc.text), data.CSVOptions{}, tc.fn)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	var none *File
	if err := none.PredictCSV(strings.NewReader(b.String()), data.CSVOptions{}, keep); err == nil {
		t.Error("nil file: no error")
	}
	f.Model.Theta = f.Model.Theta[1:]
	if err := f.PredictCSV(strings.NewReader(b.String()), data.CSVOptions{}, keep); err == nil {
		t.Error("an inconsistent file predicted")
	}
}

// New refuses a certificate that File.Validate would refuse: a Training
// that is not Poisson-subsampled Gaussian steps (the package's own
// example stated none, and its certificate was refused in a saved file as
// "edited or damaged"), and a ledger whose ε is below what its Training
// composes to (here z = 2 in the ledger, z = 1.1 stated: ε 0.479 vs 1.32).
func TestNewRefusesWhatValidateRefuses(t *testing.T) {
	phase := accounting.Phase{SampleRate: 0.01, NoiseMultiplier: 2, Steps: 500}
	loss, _ := accounting.SubsampledGaussianLoss(phase)
	loss, _ = loss.ChangeRelation(accounting.RelationFeatureSimulator)
	l, _ := accounting.NewLedger(accounting.RelationFeatureSimulator, accounting.DefaultOrders())
	if err := l.Add(loss); err != nil {
		t.Fatal(err)
	}
	training := Training{Model: KindLogistic, Sampling: "Poisson", SampleRate: 0.01, Steps: 500, NoiseMultiplier: 2, ClipNorm: 1}
	spec := Spec{Notion: FeatureDP, Protected: []string{"income"}, Public: []string{"age"}, Label: "y", TargetEpsilon: 2, Training: training}
	if _, err := New(l, 1e-5, accounting.DefaultConversion, spec); err != nil {
		t.Fatalf("the training's own ledger: %v", err)
	}
	for name, tr := range map[string]Training{
		"no training": {},
		"shuffling":   {Model: KindLogistic, Sampling: "shuffle", SampleRate: 0.01, Steps: 500, NoiseMultiplier: 2, ClipNorm: 1},
		"no noise":    {Model: KindLogistic, Sampling: "Poisson", SampleRate: 0.01, Steps: 500, ClipNorm: 1},
		"less noise":  {Model: KindLogistic, Sampling: "Poisson", SampleRate: 0.01, Steps: 500, NoiseMultiplier: 1.1, ClipNorm: 1},
		"more steps":  {Model: KindLogistic, Sampling: "Poisson", SampleRate: 0.01, Steps: 5000, NoiseMultiplier: 2, ClipNorm: 1},
	} {
		s := spec
		s.Training = tr
		c, err := New(l, 1e-5, accounting.DefaultConversion, s)
		if err == nil {
			t.Errorf("%s: New accepted it; checkEpsilon gives %v", name, c.checkEpsilon())
		} else if !strings.Contains(err.Error(), "Training") {
			t.Errorf("%s: %v; want the error to name Training", name, err)
		}
	}
}
