package release

import (
	"errors"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/data"
)

// A row whose encoded value overflows (a ZScore feature far beyond its
// public moments, here 1e10 with sd 1e-300 → +Inf) makes the model's
// output NaN: Predict and PredictCSV return an error naming the row
// rather than NaN probabilities and the first class as its prediction.
func TestPredictNonFiniteOutput(t *testing.T) {
	f := modelFile(t)
	enc, err := data.NewPublicEncoder(schema(), data.EncodeOptions{Scale: data.ZScore, Moments: map[string]data.Moments{"age": {Mean: 0, SD: 1e-300}}})
	if err != nil {
		t.Fatal(err)
	}
	f.Encoder = enc
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	rows := frame([]string{"f", "m"}, []float64{0, 1e10}, nil)
	if p, err := f.Predict(rows); err == nil || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("Predict: %v, want an error naming row 1 (got %+v)", err, p)
	}
	var got *Predictions
	err = f.PredictCSV(strings.NewReader("sex,age\nf,0\nm,1e10\n"), data.CSVOptions{}, func(p *Predictions) error { got = p; return nil })
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("PredictCSV: %v, want an error naming line 3 (got %+v)", err, got)
	}
}

// A finite encoded row can still overflow the model's arithmetic (an
// unscaled feature of 1.7e308 times a weight of 2 is +Inf, its other
// logit −Inf): the output guard refuses it, naming the row on both paths.
func TestPredictOverflowingModel(t *testing.T) {
	f := modelFile(t)
	enc, err := data.NewPublicEncoder(schema(), data.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.Encoder = enc
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Predict(frame([]string{"f", "m"}, []float64{0, 1.7e308}, nil)); !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "row 1 (0-based)") {
		t.Errorf("Predict: %v, want ErrNonFinite naming row 1", err)
	}
	err = f.PredictCSV(strings.NewReader("sex,age\nf,0\nm,1.7e308\n"), data.CSVOptions{}, func(*Predictions) error { return nil })
	if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "data row 2") {
		t.Errorf("PredictCSV: %v, want ErrNonFinite naming data row 2", err)
	}
}

// A regression value brought back to the label's units can overflow too
// (a prediction of 2.5 on public label bounds [0, 1e308] is +Inf): an
// error naming the row, not +Inf as the value.
func TestPredictOverflowingRegression(t *testing.T) {
	f := regressionFile(t, 1e308, []float64{0, 0, 2, 0.5})
	p, err := f.Predict(frame([]string{"f", "m"}, []float64{0, 100}, nil))
	if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "row 1 (0-based)") {
		t.Errorf("Predict: %v, want ErrNonFinite naming row 1 (got %+v)", err, p)
	}
}
