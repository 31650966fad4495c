package data

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// An Encoder that FitEncoder did not make (decoded from a damaged or
// hostile file) is checked field by field, and Transform and EncodeCSV
// refuse it with an error naming the field instead of panicking.
func TestEncoderValidate(t *testing.T) {
	fit := func(t *testing.T, s Schema, o EncodeOptions) *Encoder {
		t.Helper()
		e, err := FitEncoder(smallFrame(t), s, o)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	regression := regressionSchema()
	for _, tc := range []struct {
		name   string
		schema Schema
		opts   EncodeOptions
		edit   func(*Encoder)
		want   string
	}{
		{"fitted", smallSchema(), EncodeOptions{Scale: MinMax}, func(*Encoder) {}, ""},
		{"zscore regression", regression, EncodeOptions{Scale: ZScore, LabelScale: MinMax}, func(*Encoder) {}, ""},
		{"feature dropped", smallSchema(), EncodeOptions{}, func(e *Encoder) { e.Features = e.Features[:2] }, "has 2 features, its schema 3"},
		{"feature renamed", smallSchema(), EncodeOptions{}, func(e *Encoder) { e.Features[1].Column.Name = "town" }, `feature "town"`},
		{"kind changed", smallSchema(), EncodeOptions{}, func(e *Encoder) { e.Features[0].Column.Kind = Categorical }, "does not match"},
		{"role changed", smallSchema(), EncodeOptions{}, func(e *Encoder) { e.Features[0].Column.Role = Public }, "does not match"},
		{"schema broken", smallSchema(), EncodeOptions{}, func(e *Encoder) { e.Schema.Columns[0].Name = "" }, "empty name"},
		{"no levels", smallSchema(), EncodeOptions{}, func(e *Encoder) { e.Features[1].Levels = nil }, "no levels"},
		{"level twice", smallSchema(), EncodeOptions{}, func(e *Encoder) { e.Features[1].Levels = []string{"Oslo", "Rome", "Oslo"} }, `level "Oslo" listed twice`},
		{"continuous with levels", smallSchema(), EncodeOptions{}, func(e *Encoder) { e.Features[0].Levels = []string{"a"} }, "continuous feature with levels"},
		{"unknown scaling", smallSchema(), EncodeOptions{}, func(e *Encoder) { e.Features[0].Scale = 7 }, "unknown scaling"},
		{"NaN bound", smallSchema(), EncodeOptions{Scale: MinMax}, func(e *Encoder) { e.Features[0].Lo = math.NaN() }, "MinMax bounds"},
		{"bounds reversed", smallSchema(), EncodeOptions{Scale: MinMax}, func(e *Encoder) { e.Features[0].Lo = 100 }, "Lo ≤ Hi"},
		{"bounds width overflows", smallSchema(), EncodeOptions{Scale: MinMax}, func(e *Encoder) { e.Features[0].Lo, e.Features[0].Hi = -1e308, 1e308 },
			"width Hi − Lo that overflows float64"},
		{"negative sd", smallSchema(), EncodeOptions{Scale: ZScore}, func(e *Encoder) { e.Features[0].SD = -1 }, "SD ≥ 0"},
		{"no classes", smallSchema(), EncodeOptions{}, func(e *Encoder) { e.Classes = nil }, "no label classes"},
		{"class twice", smallSchema(), EncodeOptions{}, func(e *Encoder) { e.Classes = []string{"no", "no"} }, `class "no" twice`},
		{"zero divisor", regression, EncodeOptions{}, func(e *Encoder) { e.LabelDiv = 0 }, "non-zero divisor"},
		{"infinite shift", regression, EncodeOptions{}, func(e *Encoder) { e.LabelShift = math.Inf(1) }, "non-zero divisor"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := fit(t, tc.schema, tc.opts)
			tc.edit(e)
			err := e.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate: %v, want %q", err, tc.want)
			}
			if _, err := e.Transform(smallFrame(t)); err == nil {
				t.Error("Transform accepted the encoder")
			}
			if _, err := e.EncodeCSV(strings.NewReader("age,city,income,y\n30,Oslo,1.5,yes\n"), CSVOptions{}); err == nil {
				t.Error("EncodeCSV accepted the encoder")
			}
		})
	}
	var nilEnc *Encoder
	if err := nilEnc.Validate(); !errors.Is(err, ErrEncoder) {
		t.Errorf("nil encoder: %v", err)
	}
}

// A NoScaling continuous feature fits nothing on the data, so FitEncoder
// marks it public.
func TestFitEncoderNoScalingIsPublic(t *testing.T) {
	e, err := FitEncoder(smallFrame(t), smallSchema(), EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, fe := range e.Features {
		if got, want := fe.Public, fe.Column.Kind == Continuous; got != want {
			t.Errorf("%s: Public = %v, want %v", fe.Column.Name, got, want)
		}
	}
}
