package data

import (
	"errors"
	"strings"
	"testing"
)

// TestCSVReadErrors: a ragged line or a bad quote says how to fix it, and
// the streaming readers count the SkipLines lines in its line number as
// ReadCSV does (before, EncodeCSV's parse errors were SkipLines lines
// early, and neither reader said what the widths were or what to do).
func TestCSVReadErrors(t *testing.T) {
	enc, err := NewPublicEncoder(Schema{Columns: []Column{{Name: "a"}, {Name: "b"}}, Task: Unsupervised}, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const skip = "comment line\n"
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"ragged", skip + "a,b\n1,2\n3\n", []string{"line 4", "it has 1 field(s), the first record 2", "quote a cell that holds the delimiter"}},
		{"wide", skip + "a,b\n1,2\n3,4,5\n", []string{"line 4", "it has 3 field(s), the first record 2"}},
		{"bad quote", skip + "a,b\n1,2\n\"3\"x,4\n", []string{"line 4", "CSVOptions.LazyQuotes"}},
		{"bare quote", skip + "a,b\n1,2\n3\"x,4\n", []string{"line 4", "CSVOptions.LazyQuotes"}},
	} {
		opts := CSVOptions{SkipLines: 1}
		_, readErr := ReadCSV(strings.NewReader(tc.text), opts)
		_, encErr := enc.EncodeCSV(strings.NewReader(tc.text), opts)
		chunkErr := enc.EncodeCSVChunks(strings.NewReader(tc.text), opts, 1, func(*Encoded) error { return nil })
		for _, got := range []error{readErr, encErr, chunkErr} {
			if !errors.Is(got, ErrCSV) {
				t.Errorf("%s: %v, want ErrCSV", tc.name, got)
				continue
			}
			for _, w := range tc.want {
				if !strings.Contains(got.Error(), w) {
					t.Errorf("%s: %v, want it to say %q", tc.name, got, w)
				}
			}
		}
	}
}
