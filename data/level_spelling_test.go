package data

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-gota/gota/series"
)

// TestLevelSpelling: a declared level of a column ReadCSV reads as numbers,
// spelt otherwise than LevelAt writes its cells ("01" for 1), is an error
// naming the fix, on Validate and on Transform, for features and classes;
// before, the cell "01" was silently encoded as the declared level "1".
func TestLevelSpelling(t *testing.T) {
	// "01" and "02" alone: ReadCSV refuses "01" beside "1" (ErrNumberSpelling).
	df, err := ReadCSV(strings.NewReader("x,code,y\n1,01,1.0\n2,02,2.0\n3,01,1.0\n"), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cols := func(code, y []string) Schema {
		return Schema{Columns: []Column{{Name: "x"}, {Name: "code", Kind: Categorical, Levels: code},
			{Name: "y", Role: Label, Kind: Categorical, Levels: y}}}
	}
	for _, tc := range []struct {
		name   string
		schema Schema
		opts   EncodeOptions
		want   string
	}{
		{"schema levels", cols([]string{"01", "1"}, []string{"1", "2"}), EncodeOptions{}, `declared level "01"`},
		{"option levels", cols(nil, []string{"1", "2"}), EncodeOptions{Levels: map[string][]string{"code": {"1", "01", "2"}}}, `declared level "01"`},
		{"float classes", cols([]string{"1", "2"}, nil), EncodeOptions{Levels: map[string][]string{"y": {"1.0", "2.0"}}}, `declared level "1.0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc, err := Encode(df, tc.schema, tc.opts)
			if !errors.Is(err, ErrLevelSpelling) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "CSVOptions.Types") {
				t.Fatalf("Encode: %v (encoded %v), want an ErrLevelSpelling error naming %s and CSVOptions.Types", err, enc != nil, tc.want)
			}
		})
	}
	// Canonical spellings still encode, and read as text the cells are compared as written.
	if _, err := Encode(df, cols([]string{"1", "2"}, []string{"1", "2"}), EncodeOptions{}); err != nil {
		t.Errorf("canonical levels: %v", err)
	}
	asText, err := ReadCSV(strings.NewReader("x,code,y\n1,01,1.0\n2,1,2.0\n3,01,1.0\n"), CSVOptions{Types: map[string]series.Type{"code": series.String}})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Encode(asText, cols([]string{"01", "1"}, []string{"1", "2"}), EncodeOptions{})
	if err != nil || e.X[1] != 1 || e.X[2] != 0 || e.X[4] != 0 || e.X[5] != 1 {
		t.Errorf("code read as text: %v, X %v, want rows 01 and 1 in different columns", err, e)
	}
}
