package release

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/data"
)

// writeUnchecked encodes f as Write does (with its checksum) but without
// validating it: an edited file whose checksum was recomputed.
func writeUnchecked(t *testing.T, f *File) []byte {
	t.Helper()
	f.SHA256 = ""
	sum, err := f.checksum()
	if err != nil {
		t.Fatal(err)
	}
	f.SHA256 = sum
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// A feature encoding other than the one its schema and options give (the
// data's minimum and maximum as bounds, no clipping, levels reordered or
// added, another scaling) is refused by Validate, Write, Predict and Read
// (with a recomputed checksum), naming the column and what differs; an
// encoding consistent with edited options is a different release, not a
// fitted one, and passes.
func TestValidatePublicFeatures(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*File)
		want string // "" when the file is valid
	}{
		{"as written", func(*File) {}, ""},
		{"bounds from the data", func(f *File) { f.Encoder.Features[1].Lo, f.Encoder.Features[1].Hi = 20, 80 },
			`feature "age" is encoded with bounds [20, 80] (clip true), while its public Bounds give [0, 100] (clip true)`},
		{"not clipped", func(f *File) { f.Encoder.Features[1].Clip = false }, `feature "age" is encoded with bounds [0, 100] (clip false)`},
		{"options edited alone", func(f *File) { f.Encoder.Options.Bounds["age"] = data.Range{Lo: 0, Hi: 50} },
			"while its public Bounds give [0, 50]"},
		{"zscore", func(f *File) {
			fe := &f.Encoder.Features[1]
			fe.Scale, fe.Lo, fe.Hi, fe.Clip, fe.Mean, fe.SD = data.ZScore, 0, 0, false, 50, 20
		},
			`feature "age" is encoded with scaling zscore, while its options give minmax`},
		{"levels reordered", func(f *File) { f.Encoder.Features[0].Levels = []string{"m", "f"} },
			`feature "sex" is encoded with levels that differ from its public levels: level 0 is "m", the public one "f"`},
		{"level added", func(f *File) { f.Encoder.Features[0].Levels = []string{"f", "m", "x"} }, "3 levels, the public ones 2"},
		{"column levels", func(f *File) { f.Encoder.Features[0].Column.Levels = []string{"m", "f"} }, "column levels that differ from its schema's"},
		{"consistent edit of the public levels", func(f *File) {
			lv := []string{"f", "m", "x"}
			f.Encoder.Schema.Columns[0].Levels, f.Encoder.Features[0].Column.Levels, f.Encoder.Features[0].Levels = lv, lv, lv
			f.Model.Features, f.Model.Theta = 4, make([]float64, 10)
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := modelFile(t)
			tc.edit(f)
			errs := []error{f.Validate(), f.Write(&bytes.Buffer{})}
			_, err := f.Predict(frame([]string{"f"}, []float64{30}, nil))
			errs = append(errs, err)
			_, err = Read(bytes.NewReader(writeUnchecked(t, f)))
			errs = append(errs, err)
			for i, err := range errs {
				ok := err == nil
				if tc.want != "" {
					ok = errors.Is(err, ErrFormat) && strings.Contains(err.Error(), tc.want)
				}
				if !ok {
					t.Errorf("%s: %v, want %q", []string{"Validate", "Write", "Predict", "Read"}[i], err, tc.want)
				}
			}
		})
	}
}

// A JSON null where the file holds a number, a flag or a string is refused
// by Read, naming the field, not read as 0 (an ε, a bound, a parameter).
func TestReadRefusesNull(t *testing.T) {
	good := string(writeUnchecked(t, modelFile(t)))
	for _, tc := range []struct{ name, value, want string }{ // value: the key (group 1), then the value to null
		{"ε", `("epsilon": )[^,]+`, `field "certificate.epsilon" must be a number, got null`},
		{"option bound", `("Hi": )[^,\n]+`, `field "encoder.Options.Bounds.age.Hi" must be a number, got null`},
		{"moment", `("Mean": )[^,]+`, `field "encoder.Features[0].Mean" must be a number, got null`},
		{"clip", `("Clip": )true`, `field "encoder.Features[1].Clip" must be true or false, got null`},
		{"role", `("Role": )"public"`, `field "encoder.Schema.Columns[1].Role" must be a string, got null`},
		{"parameter", `("theta": \[\s*)[^,]+`, `field "model.theta[0]" must be a number, got null`},
		{"steps", `("steps": )[^,]+`, `field "certificate.training.steps" must be a number, got null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			loc := regexp.MustCompile(tc.value).FindStringSubmatchIndex(good)
			if loc == nil {
				t.Fatalf("%s is not in the file", tc.value)
			}
			text := good[:loc[3]] + "null" + good[loc[1]:] // the first match's value nulled
			_, err := Read(strings.NewReader(text))
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Read: %v, want %q", err, tc.want)
			}
		})
	}
}

// A chunk holds at most PredictChunkValues values (encoded row and
// outputs), from PredictChunkRows rows down to one, whatever the width.
func TestChunkRows(t *testing.T) {
	for _, tc := range []struct{ d, k, want int }{
		{3, 2, PredictChunkRows},
		{PredictChunkValues/PredictChunkRows - 2, 2, PredictChunkRows},
		{PredictChunkValues/PredictChunkRows - 1, 2, PredictChunkRows - 1},
		{MaxLevels, 2, PredictChunkValues / (MaxLevels + 2)},
		{2, MaxLevels, PredictChunkValues / (MaxLevels + 2)},
		{PredictChunkValues, 2, 1},
		{0, 0, PredictChunkRows},
	} {
		if got := chunkRows(tc.d, tc.k); got != tc.want || got*(tc.d+tc.k) > max(PredictChunkValues, tc.d+tc.k) {
			t.Errorf("chunkRows(%d, %d) = %d, want %d", tc.d, tc.k, got, tc.want)
		}
	}
}

// PredictCSV hands over chunks of chunkRows rows of a model wider than
// chunkValues/PredictChunkRows (here with chunkValues lowered), with the
// same predictions as Predict.
func TestPredictCSVChunksByWidth(t *testing.T) {
	defer func(old int) { chunkValues = old }(chunkValues)
	chunkValues = 50 // width 3 + 2 outputs: 10 rows a chunk
	f := modelFile(t)
	const n = 25
	sex, age := make([]string, n), make([]float64, n)
	var b strings.Builder
	b.WriteString("sex,age\n")
	for i := range n {
		sex[i], age[i] = []string{"f", "m"}[i%2], float64(i)
		fmt.Fprintf(&b, "%s,%d\n", sex[i], i)
	}
	want, err := f.Predict(frame(sex, age, nil))
	if err != nil {
		t.Fatal(err)
	}
	got, sizes := &Predictions{Classes: want.Classes}, []int{}
	err = f.PredictCSV(strings.NewReader(b.String()), data.CSVOptions{}, func(p *Predictions) error {
		sizes = append(sizes, len(p.Class))
		got.Probs, got.Class = append(got.Probs, p.Probs...), append(got.Class, p.Class...)
		return nil
	})
	if err != nil || !reflect.DeepEqual(sizes, []int{10, 10, 5}) || !reflect.DeepEqual(got, want) {
		t.Errorf("PredictCSV: %v, chunks of %v rows (want 10, 10, 5), equal to Predict: %v", err, sizes, reflect.DeepEqual(got, want))
	}
}

// A regression release whose options give LabelBounds must apply them:
// an encoder edited to the identity scaling (predictions in [0, 1]
// instead of the label's units) is refused by Validate and Read.
func TestLabelBoundsApplied(t *testing.T) {
	f := regressionFile(t, 100, []float64{0.1, 0.2, 0.3, 0.4})
	if err := f.Validate(); err != nil {
		t.Fatalf("the valid regression file: %v", err)
	}
	f.Encoder.LabelShift, f.Encoder.LabelDiv, f.Encoder.LabelClip = 0, 1, false
	if err := f.Validate(); err == nil || !strings.Contains(err.Error(), "LabelBounds") {
		t.Errorf("Validate: %v, want a refusal naming LabelBounds", err)
	}
	if _, err := Read(bytes.NewReader(writeUnchecked(t, f))); err == nil {
		t.Error("Read accepted label bounds that the encoder does not apply")
	}
}

// regressionFile is a feature-DP linear regression release on schema()
// with y continuous, age min–max scaled on [0, 100] and public label
// bounds [0, labelHi], with parameters theta.
func regressionFile(t *testing.T, labelHi float64, theta []float64) *File {
	t.Helper()
	s := schema()
	s.Task = data.Regression
	s.Columns[2] = data.Column{Name: "y", Role: data.Label, Kind: data.Continuous}
	enc, err := data.NewPublicEncoder(s, data.EncodeOptions{Scale: data.MinMax, Bounds: map[string]data.Range{"age": {Lo: 0, Hi: 100}},
		LabelBounds: &data.Range{Lo: 0, Hi: labelHi}})
	if err != nil {
		t.Fatal(err)
	}
	return &File{Format: FileFormat, Version: FileVersion, Encoder: enc,
		Model:       ModelSpec{Kind: KindLinear, Features: 3, Intercept: true, Theta: theta},
		Certificate: certificate(t, FeatureDP, accounting.RelationFeatureSimulator, true)}
}
