package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/release"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// releaseFixture saves a small softmax model over sex (sensitive) and age
// (public) with a feature-DP certificate, and a CSV of rows to predict.
func releaseFixture(t *testing.T) (model, rows string) {
	t.Helper()
	return releaseFixtureClasses(t, []string{"no", "yes"})
}

// releaseFixtureClasses is releaseFixture with the two label classes
// named by classes.
func releaseFixtureClasses(t *testing.T, classes []string) (model, rows string) {
	t.Helper()
	dir := t.TempDir()
	schema := data.Schema{Columns: []data.Column{
		{Name: "sex", Role: data.Sensitive, Kind: data.Categorical, Levels: []string{"f", "m"}},
		{Name: "age", Role: data.Public, Kind: data.Continuous},
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: classes},
	}}
	df := dataframe.New(series.New([]string{"f", "m"}, series.String, "sex"), series.New([]float64{20, 60}, series.Float, "age"),
		series.New(classes, series.String, "y"))
	enc, err := data.FitEncoder(df, schema, data.EncodeOptions{Scale: data.MinMax, Bounds: map[string]data.Range{"age": {Lo: 0, Hi: 100}}})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := accounting.NewLedger(accounting.RelationFeatureSimulator, accounting.DefaultOrders())
	loss, _ := accounting.SubsampledGaussianLoss(accounting.Phase{SampleRate: 0.01, NoiseMultiplier: 1.1, Steps: 500})
	loss, _ = loss.ChangeRelation(accounting.RelationFeatureSimulator)
	if err := l.Add(loss); err != nil {
		t.Fatal(err)
	}
	cert, err := release.New(l, 1e-5, accounting.DefaultConversion, release.Spec{Notion: release.FeatureDP,
		Protected: []string{"sex"}, Public: []string{"age"}, Label: "y", TargetEpsilon: 2,
		Training: release.Training{Model: release.KindSoftmax, Sampling: "Poisson", SampleRate: 0.01, Steps: 500, NoiseMultiplier: 1.1, ClipNorm: 1}})
	if err != nil {
		t.Fatal(err)
	}
	f := &release.File{Format: release.FileFormat, Version: release.FileVersion, Encoder: enc, Certificate: cert,
		Model: release.ModelSpec{Kind: release.KindSoftmax, Features: 3, Classes: 2, Theta: []float64{1, -1, 0.5, -0.5, 3, -3, 0, 0}}}
	model = filepath.Join(dir, "m.json")
	if err := f.Save(model, false); err != nil {
		t.Fatal(err)
	}
	rows = filepath.Join(dir, "new.csv")
	if err := os.WriteFile(rows, []byte("age,sex,other\n30,m,x\n90,f,y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return model, rows
}

func TestCertificateCLI(t *testing.T) {
	model, _ := releaseFixture(t)
	code, out, errs := runReproduceCLI("certificate", model)
	if code != 0 || !strings.Contains(out, "NOT A PRIVATE RELEASE") || !strings.Contains(out, "| protected columns | sex |") {
		t.Fatalf("markdown: %d %s %s", code, out, errs)
	}
	code, out, _ = runReproduceCLI("certificate", model, "--format", "json")
	var c release.Certificate
	if code != 0 || json.Unmarshal([]byte(out), &c) != nil || c.Notion != release.FeatureDP || c.Relation != "feature-simulator" {
		t.Fatalf("json: %d %s", code, out)
	}
	b, _ := os.ReadFile(model)
	edited := filepath.Join(t.TempDir(), "edited.json")
	os.WriteFile(edited, []byte(strings.Replace(string(b), `"epsilon": 1.3`, `"epsilon": 0.3`, 1)), 0o644)
	for _, args := range [][]string{{"certificate"}, {"certificate", model, "--format", "yaml"}, {"certificate", edited}, {"certificate", "/nonexistent"}} {
		if code, _, errs := runReproduceCLI(args...); code != 2 || errs == "" {
			t.Errorf("%v: code %d, stderr %q", args, code, errs)
		}
	}
	if _, _, errs := runReproduceCLI("certificate", edited); !strings.Contains(errs, "checksum mismatch") {
		t.Errorf("edited file: %s", errs)
	}
}

func TestPredictCLI(t *testing.T) {
	model, rows := releaseFixture(t)
	code, out, errs := runReproduceCLI("predict", "--model", model, "--csv", rows)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || lines[0] != "prediction,p_no,p_yes" {
		t.Fatalf("predict: %d %q %s", code, out, errs)
	}
	dst := filepath.Join(t.TempDir(), "p.csv")
	os.WriteFile(dst, []byte("keep"), 0o644)
	if code, _, errs := runReproduceCLI("predict", "--model", model, "--csv", rows, "--out", dst); code != 2 || !strings.Contains(errs, "--force") {
		t.Errorf("existing --out: %d %s", code, errs)
	}
	if b, _ := os.ReadFile(dst); string(b) != "keep" {
		t.Error("--out replaced a file without --force")
	}
	if code, _, _ := runReproduceCLI("predict", "--model", model, "--csv", rows, "--out", dst, "--force"); code != 0 {
		t.Error("--force refused")
	}
	if b, _ := os.ReadFile(dst); string(b) != out {
		t.Errorf("--out wrote %q, stdout was %q", b, out)
	}
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("sex\nf\n"), 0o644)
	unseen := filepath.Join(t.TempDir(), "unseen.csv")
	os.WriteFile(unseen, []byte("sex,age\nx,3\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", model}, "required"},
		{[]string{"--model", model, "--csv", bad}, `no column "age"`},
		{[]string{"--model", model, "--csv", unseen}, `column "sex", line 2: level "x" is not among the public levels`},
		{[]string{"--model", rows, "--csv", rows}, "--model"},
		{[]string{"--model", model, "--csv", rows, "--out", filepath.Dir(dst), "--force"}, "is a directory: give a file path"},
		{[]string{"--model", model, "--csv", rows, "--out", rows, "--force"}, "is the --csv file"},
		{[]string{"--model", model, "--csv", rows, "--out", model, "--force"}, "is the --model file"},
		{[]string{"--model", model, "--csv", rows, "--out", filepath.Join(dst, "sub", "p.csv")}, "--out " + filepath.Join(dst, "sub", "p.csv")},
	} {
		code, _, errs := runReproduceCLI(append([]string{"predict"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: code %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
	// A bad row after a full chunk of good ones leaves no --out file.
	var late strings.Builder
	late.WriteString("sex,age\n")
	for range release.PredictChunkRows + 10 {
		late.WriteString("f,30\n")
	}
	late.WriteString("f,old\n")
	lateCSV, lateOut := filepath.Join(t.TempDir(), "late.csv"), filepath.Join(t.TempDir(), "late-p.csv")
	os.WriteFile(lateCSV, []byte(late.String()), 0o644)
	code, _, errs = runReproduceCLI("predict", "--model", model, "--csv", lateCSV, "--out", lateOut)
	if _, err := os.Stat(lateOut); code != 2 || !strings.Contains(errs, `"old" is not a finite number`) || err == nil {
		t.Errorf("a bad late row: code %d, stderr %q, --out left: %v", code, errs, err == nil)
	}
}

// TestPredictFormulaInjection: a class name of a (hostile) model file that
// a spreadsheet would run as a formula is written with a leading quote;
// the class names -1 and +1 stay numbers. The old code wrote
// =HYPERLINK(...) as it was.
func TestPredictFormulaInjection(t *testing.T) {
	for _, tc := range []struct {
		classes, want []string
	}{
		{[]string{`=HYPERLINK("http://x","y")`, "@SUM(1+1)"}, []string{`'=HYPERLINK("http://x","y")`, "'@SUM(1+1)"}},
		{[]string{"-1", "+1"}, []string{"-1", "+1"}},
		{[]string{"-x", "+2.5e3"}, []string{"'-x", "+2.5e3"}},
	} {
		model, rows := releaseFixtureClasses(t, tc.classes)
		code, out, errs := runReproduceCLI("predict", "--model", model, "--csv", rows)
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if code != 0 || err != nil || len(recs) != 3 {
			t.Fatalf("%q: code %d, %v, stdout %q, stderr %s", tc.classes, code, err, out, errs)
		}
		if head := []string{"prediction", "p_" + tc.classes[0], "p_" + tc.classes[1]}; !slices.Equal(recs[0], head) {
			t.Errorf("%q: header %q, want %q", tc.classes, recs[0], head)
		}
		for _, r := range recs[1:] {
			if !slices.Contains(tc.want, r[0]) {
				t.Errorf("%q: predicted class cell %q, want one of %q", tc.classes, r[0], tc.want)
			}
		}
	}
}

func TestSpreadsheetSafe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""}, {"yes", "yes"}, {"1", "1"}, {"-1", "-1"}, {"+1", "+1"}, {"-2.5e-3", "-2.5e-3"}, {"+.5", "+.5"},
		{"=1+1", "'=1+1"}, {"+A1", "'+A1"}, {"-A1", "'-A1"}, {"@SUM(A1)", "'@SUM(A1)"}, {"-", "'-"}, {"+", "'+"},
		{"\t=1", "'\t=1"}, {"\r=1", "'\r=1"}, {"-1 ", "'-1 "}, {"-0x1p3", "'-0x1p3"}, {"-Inf", "'-Inf"}, {"+1_0", "'+1_0"},
		{"a=1", "a=1"}, {" =1", " =1"},
	} {
		if got := spreadsheetSafe(tc.in); got != tc.want {
			t.Errorf("spreadsheetSafe(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
