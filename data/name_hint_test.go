package data

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestMisspeltNameHint: a misspelt column name, in a schema, an
// EncodeCSV header, WithRole or the Bounds and Levels options, gets the
// nearest name suggested, even when the list of columns the error shows is
// cut after 20 names (before, it listed only those 20).
func TestMisspeltNameHint(t *testing.T) {
	var header []string
	for i := range 30 {
		header = append(header, fmt.Sprintf("feature_%02d", i))
	}
	header = append(header, "income_class")
	text := strings.Join(header, ",") + "\n" + strings.Repeat("1,", 30) + "a\n"
	df, err := ReadCSV(strings.NewReader(text), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	schema := DefaultSchema(df, "income_class", Classification)
	schema.Columns[25].Name = "Feature_52" // feature_25 misspelt: case and two swapped digits
	var encodeErr error
	if enc, err := NewPublicEncoder(schema, EncodeOptions{Levels: map[string][]string{"income_class": {"a"}}}); err != nil {
		t.Fatal(err)
	} else {
		_, encodeErr = enc.EncodeCSV(strings.NewReader(text), CSVOptions{})
	}
	_, roleErr := schema.WithRole(Public, "featur_03")
	good := DefaultSchema(df, "income_class", Classification)
	_, boundsErr := NewPublicEncoder(good, EncodeOptions{Scale: MinMax, Bounds: map[string]Range{"feature-07": {0, 1}}})
	_, levelsErr := NewPublicEncoder(good, EncodeOptions{Levels: map[string][]string{"income-class": {"a"}}})
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"Validate", schema.Validate(df), `(did you mean "feature_25"?)`},
		{"EncodeCSV", encodeErr, `(did you mean "feature_25"?)`},
		{"WithRole", roleErr, `(did you mean "feature_03"?)`},
		{"Bounds", boundsErr, `(did you mean "feature_07"?)`},
		{"Levels", levelsErr, `(did you mean "income_class"?)`},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v, want it to say %s", tc.name, tc.err, tc.want)
		}
	}
	if err := schema.Validate(df); !errors.Is(err, ErrUnknownColumn) {
		t.Errorf("Validate: %v, want ErrUnknownColumn", err)
	}
}
