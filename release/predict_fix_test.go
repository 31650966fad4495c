package release

import (
	"strings"
	"testing"

	"github.com/featuredp/featuredp/data"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// A cell the model cannot read is an error whose fix is the rows, not the
// schema: the encoder's advice ("add it", "make it Categorical", "mark
// the column Ignore") needs another model. Fails on the old code.
func TestPredictNamesTheRowFix(t *testing.T) {
	const fix = "at prediction the model's columns, kinds and levels are fixed: fix those rows"
	f := modelFile(t)
	for _, tc := range []struct {
		name string
		df   dataframe.DataFrame
	}{
		{"unseen level", frame([]string{"x"}, []float64{3}, nil)},
		{"text in a continuous column", dataframe.New(series.New([]string{"f"}, series.String, "sex"), series.New([]string{"old"}, series.String, "age"))},
		{"missing value", dataframe.New(series.New([]string{"f"}, series.String, "sex"), series.New([]string{"NaN"}, series.Float, "age"))},
	} {
		if _, err := f.Predict(tc.df); err == nil || !strings.Contains(err.Error(), fix) {
			t.Errorf("Predict, %s: %v, want %q", tc.name, err, fix)
		}
	}
	keep := func(*Predictions) error { return nil }
	for name, text := range map[string]string{
		"unseen level":                "sex,age\nx,3\n",
		"text in a continuous column": "sex,age\nf,old\n",
		"missing value":               "sex,age\nf,\n",
	} {
		if err := f.PredictCSV(strings.NewReader(text), data.CSVOptions{}, keep); err == nil || !strings.Contains(err.Error(), fix) {
			t.Errorf("PredictCSV, %s: %v, want %q", name, err, fix)
		}
	}
	if err := f.PredictCSV(strings.NewReader("sex\nf\n"), data.CSVOptions{}, keep); err == nil || strings.Contains(err.Error(), fix) {
		t.Errorf("a missing column: %v, want no row fix", err)
	}
}
