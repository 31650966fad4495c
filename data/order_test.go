package data

import (
	"strings"
	"testing"

	"github.com/go-gota/gota/series"
)

// TestOptionErrorsDeterministic: the errors about the map-valued options
// (EncodeOptions.ScaleFor and Moments, CSVOptions.Types) come in the
// order of the names, whatever the order of map iteration; before, the
// same call gave its errors in a random order (ScaleFor, Moments) or
// reported a random one of the bad Types.
func TestOptionErrorsDeterministic(t *testing.T) {
	schema := Schema{Columns: []Column{{Name: "x"}, {Name: "y", Role: Label, Kind: Categorical, Levels: []string{"a"}}}}
	opts := EncodeOptions{
		ScaleFor: map[string]Scaling{"d": MinMax, "b": MinMax, "a": MinMax, "c": MinMax},
		Moments:  map[string]Moments{"h": {0, 1}, "f": {0, 1}, "e": {0, 1}, "g": {0, 1}},
	}
	types := map[string]series.Type{"q": series.Int, "p": series.Int, "r": series.Int}
	var first, firstCSV string
	for i := range 50 {
		_, err := NewPublicEncoder(schema, opts)
		_, csvErr := ReadCSV(strings.NewReader("x,y\n1,a\n"), CSVOptions{Types: types})
		if err == nil || csvErr == nil {
			t.Fatalf("errors %v, %v, want both", err, csvErr)
		}
		if i == 0 {
			first, firstCSV = err.Error(), csvErr.Error()
			continue
		}
		if err.Error() != first || csvErr.Error() != firstCSV {
			t.Fatalf("call %d:\n%v\n%v\nwant, as the first call:\n%s\n%s", i, err, csvErr, first, firstCSV)
		}
	}
	if a, d, e, h := strings.Index(first, `"a"`), strings.Index(first, `"d"`), strings.Index(first, `"e"`), strings.Index(first, `"h"`); !(a < d && d < e && e < h) {
		t.Errorf("errors not in name order: %s", first)
	}
	if !strings.Contains(firstCSV, `"p"`) {
		t.Errorf("Types error %s, want it to name the first bad name, \"p\"", firstCSV)
	}
}
