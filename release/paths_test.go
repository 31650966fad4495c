package release

import (
	"encoding/csv"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/data"
)

// predictBoth applies f to the CSV text on both paths: Predict on the
// DataFrame data.ReadCSV reads, and PredictCSV on the stream, with the
// same options. A path's result is its predictions or the error.
func predictBoth(f *File, text string, opts data.CSVOptions) (df, stream *Predictions, dfErr, streamErr error) {
	frame, err := data.ReadCSV(strings.NewReader(text), opts)
	if err == nil {
		df, dfErr = f.Predict(frame)
	} else {
		dfErr = err
	}
	streamErr = f.PredictCSV(strings.NewReader(text), opts, func(p *Predictions) error {
		stream = p
		return nil
	})
	return df, stream, dfErr, streamErr
}

// The DataFrame path (data.ReadCSV + Predict) and the streaming path
// (PredictCSV, featuredp predict) read a cell alike: spaces around a cell
// are trimmed on both (as data.LevelAt and data.NumericAt do), and a
// number is a decimal on both — a hex float ("0x1.4p5"), digits with
// underscores ("4_0") or a non-finite value is an error on both, never a
// number on one path and an error on the other.
func TestPredictPathsAgree(t *testing.T) {
	f := modelFile(t)
	for _, c := range []struct {
		name, age, sex string
		trim           bool
		wantErr        bool
	}{
		{name: "plain", age: "40", sex: "f"},
		{name: "space before a number", age: " 40", sex: "f"},
		{name: "tab after a number", age: "40\t", sex: "f"},
		{name: "space around a level", age: "40", sex: " m "},
		{name: "no-break space after a level", age: "40", sex: "m\u00a0"},
		{name: "spaces trimmed by the option", age: " 40", sex: " m", trim: true},
		{name: "quoted number", age: `"40"`, sex: "f"},
		{name: "exponent", age: "4e1", sex: "m"},
		{name: "hex float", age: "0x1.4p5", sex: "f", wantErr: true},
		{name: "hex float with spaces", age: " 0x1.4p5", sex: "f", wantErr: true},
		{name: "underscore digits", age: "4_0", sex: "f", wantErr: true},
		{name: "thousands separator", age: `"1,000"`, sex: "f", wantErr: true},
		{name: "infinity", age: "Infinity", sex: "f", wantErr: true},
		{name: "lower-case nan", age: "nan", sex: "f", wantErr: true},
		{name: "level in another case", age: "40", sex: "F", wantErr: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := fmt.Sprintf("sex,age\r\n%s,%s\r\nf,60\r\n", c.sex, c.age)
			df, stream, dfErr, streamErr := predictBoth(f, text, data.CSVOptions{TrimSpace: c.trim})
			if (dfErr != nil) != c.wantErr || (streamErr != nil) != c.wantErr {
				t.Fatalf("want error %v: DataFrame path %v, streaming path %v", c.wantErr, dfErr, streamErr)
			}
			if !c.wantErr && !reflect.DeepEqual(df, stream) {
				t.Errorf("the paths disagree: DataFrame %+v, stream %+v", df, stream)
			}
		})
	}
}

// FuzzPredictPaths checks the rule of TestPredictPathsAgree on any two
// cells: the DataFrame path and the streaming path both refuse them or
// both predict the same.
func FuzzPredictPaths(f *testing.F) {
	for _, c := range [][2]string{{"f", "40"}, {" m ", " 40"}, {"m", "0x1p3"}, {"NA", "4_0"}, {"f", "Infinity"}, {"?", ""}, {"m", "1e400"}} {
		f.Add(c[0], c[1], false)
	}
	file := modelFile(f)
	f.Fuzz(func(t *testing.T, sex, age string, trim bool) {
		var b strings.Builder
		w := csv.NewWriter(&b)
		w.WriteAll([][]string{{"sex", "age"}, {sex, age}, {"f", "60"}})
		df, stream, dfErr, streamErr := predictBoth(file, b.String(), data.CSVOptions{TrimSpace: trim})
		if (dfErr != nil) != (streamErr != nil) {
			t.Fatalf("sex %q age %q: DataFrame path %v, streaming path %v", sex, age, dfErr, streamErr)
		}
		if dfErr == nil && !reflect.DeepEqual(df, stream) {
			t.Fatalf("sex %q age %q: DataFrame %+v, stream %+v", sex, age, df, stream)
		}
	})
}
