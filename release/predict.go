package release

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/go-gota/gota/dataframe"
)

// Predictions holds one prediction per input row, in input order.
type Predictions struct {
	// Classes names the classes (classification): the columns of Probs.
	Classes []string
	// Probs are the class probabilities of each row (classification).
	Probs [][]float64
	// Class is each row's most probable class (classification; the first
	// of equal ones).
	Class []string
	// Value is each row's prediction (regression), in the label's units
	// (a public LabelBounds scaling undone).
	Value []float64
}

// Predict applies the file's public encoding and model to df, which must
// hold every feature column of the schema with the same kinds (the label
// column may be absent; other columns are ignored). A missing column, a
// value of the wrong type, a missing value or a category outside the
// public levels is an error naming the column (data.ErrUnknownLevel for an
// unseen category: there is no "other" level; map such values to a known
// level first). It validates the file first (as Validate does), so a File
// built or edited in memory gets an error, not a panic, when it is
// inconsistent.
func (f *File) Predict(df dataframe.DataFrame) (*Predictions, error) {
	if f == nil {
		return nil, fmt.Errorf("release: Predict: %w", errNilFile)
	}
	if f.Encoder == nil {
		return nil, errors.New("release: Predict on an empty model file (no encoder): Load one first")
	}
	if df.Err != nil {
		return nil, fmt.Errorf("release: Predict: the DataFrame carries an error: %w", df.Err)
	}
	if df.Nrow() == 0 {
		return nil, errors.New("release: Predict: no rows to predict")
	}
	p, err := f.predictor()
	if err != nil {
		return nil, err
	}
	fe := featuresOnly(f.Encoder)
	names := fe.Schema.Names()
	have := df.Names()
	for _, n := range names {
		if !slices.Contains(have, n) {
			return nil, fmt.Errorf("release: Predict: the data has no column %q (%w); the model needs %s", n, data.ErrUnknownColumn, data.QuoteNames(names))
		}
	}
	enc, err := fe.Transform(df.Select(names))
	if err != nil {
		return nil, fmt.Errorf("release: Predict: %w%s", err, rowFix(err))
	}
	out, err := f.run(p, enc, func(i int) string { return fmt.Sprintf("row %d (0-based)", i) })
	if err != nil {
		return nil, fmt.Errorf("release: Predict: %w", err)
	}
	return out, nil
}

// PredictChunkRows is the most rows PredictCSV encodes and predicts at a
// time.
const PredictChunkRows = 4096

// PredictChunkValues bounds the values PredictCSV holds for one chunk,
// its encoded rows and their outputs (2^24 float64s, 128 MiB): a chunk has
// PredictChunkRows rows when the model's encoded width D plus its outputs
// K fit, fewer (PredictChunkValues/(D+K), at least one) for a wider model,
// so that a model file's width (up to MaxLevels one-hot columns or
// classes) never multiplies the memory by PredictChunkRows.
const PredictChunkValues = 1 << 24

// chunkValues is PredictChunkValues (a variable so that a test can lower
// it).
var chunkValues = PredictChunkValues

// chunkRows is the rows of one PredictCSV chunk for a model of encoded
// width d and k outputs: at most chunkValues values, 1 to PredictChunkRows
// rows.
func chunkRows(d, k int) int {
	return max(1, min(PredictChunkRows, chunkValues/max(d+k, 1)))
}

// PredictCSV applies the model to the CSV rows read from r (header row),
// as Predict does to a DataFrame, but streaming: it encodes and predicts
// a chunk of rows at a time (PredictChunkRows, or fewer for a model so
// wide that they would hold more than PredictChunkValues values) and hands
// each chunk's predictions to fn in file order, so memory does not grow
// with the file nor with the model's width beyond one row (opts' MaxBytes
// cap still applies; -1 lifts it). Cells are parsed as featuredp train and
// dpnb.TrainCSV parse them (data.Encoder.EncodeCSVChunks), and as Predict
// reads a DataFrame's cells: a category is its cell's text, a continuous
// value a finite plain decimal (data.ParseNumber), each with the white
// space around it trimmed (docs/release.md, "How a cell is read"). The header must name
// every feature column of the schema (the label and other columns are
// ignored); a missing value, a non-numeric continuous value or a category
// outside the public levels is an error naming the column and the line. An
// error from fn stops the reading and is returned as it is; the chunks
// already handed over stay valid.
func (f *File) PredictCSV(r io.Reader, opts data.CSVOptions, fn func(*Predictions) error) error {
	if f == nil {
		return fmt.Errorf("release: PredictCSV: %w", errNilFile)
	}
	if f.Encoder == nil {
		return errors.New("release: PredictCSV on an empty model file (no encoder): Load one first")
	}
	if fn == nil {
		return errors.New("release: PredictCSV: nil fn: give the function that takes each chunk of predictions")
	}
	p, err := f.predictor()
	if err != nil {
		return err
	}
	var fnErr error
	rows, done := chunkRows(f.Encoder.Width(), p.outputs), 0
	err = featuresOnly(f.Encoder).EncodeCSVChunks(r, opts, rows, func(enc *data.Encoded) error {
		out, err := f.run(p, enc, func(i int) string { return fmt.Sprintf("data row %d (1-based, the header not counted)", done+i+1) })
		done += enc.N
		if err != nil {
			return err
		}
		fnErr = fn(out)
		return fnErr
	})
	if err != nil && fnErr == nil {
		return fmt.Errorf("release: PredictCSV: %w%s", err, rowFix(err))
	}
	return err
}

// rowFix is the fix of a cell a model cannot read (a missing value, a
// non-numeric continuous value, a category outside the public levels):
// the rows, since the model file's schema and levels are fixed — the
// encoder's own advice (add the level, make the column categorical, mark
// it Ignore) would need another model. "" for other errors.
func rowFix(err error) string {
	if !errors.Is(err, data.ErrMissingValue) && !errors.Is(err, data.ErrNotNumeric) && !errors.Is(err, data.ErrUnknownLevel) {
		return ""
	}
	return " (at prediction the model's columns, kinds and levels are fixed: fix those rows — drop them, or replace the value with one " +
		"the model reads, a declared level or a plain finite number; a new level needs a new model)"
}

// featuresOnly returns a copy of e that encodes the features alone: the
// label and ignored columns are dropped from the schema, so that new rows
// need none of them.
func featuresOnly(e *data.Encoder) *data.Encoder {
	c := *e
	c.Schema = data.Schema{Columns: e.Schema.Clone().Features(), Task: data.Unsupervised}
	return &c
}

// ErrNonFinite is wrapped by the error of Predict and PredictCSV for a row
// whose model output is not finite (a feature value so far outside its
// public scaling that the model's arithmetic overflows).
var ErrNonFinite = errors.New("model output not finite")

// run evaluates the model on every encoded row; a row whose output is not
// finite (named by rowName) is an error, never NaN probabilities with a
// class.
func (f *File) run(p *predictor, enc *data.Encoded, rowName func(int) string) (*Predictions, error) {
	out := &Predictions{}
	classify := f.Encoder.Schema.Task == data.Classification
	if classify {
		out.Classes = slices.Clone(f.Encoder.Classes)
	}
	k := p.outputs
	vals := make([]float64, enc.N*k) // one backing array for every row's outputs
	if classify {
		out.Probs, out.Class = make([][]float64, 0, enc.N), make([]string, 0, enc.N)
	} else {
		out.Value = make([]float64, 0, enc.N)
	}
	for i := range enc.N {
		y := vals[i*k : (i+1)*k : (i+1)*k]
		p.predict(enc.X[i*enc.D:(i+1)*enc.D], y)
		if !classify {
			// Back to the label's units (a public LabelBounds scaling).
			y[0] = y[0]*f.Encoder.LabelDiv + f.Encoder.LabelShift
		}
		if valid.FirstNonFinite(y) >= 0 {
			return nil, fmt.Errorf("%s: the model's output %v is not finite: %w (a feature value far outside its public scaling; clip it to public bounds first)",
				rowName(i), y, ErrNonFinite)
		}
		if !classify {
			out.Value = append(out.Value, y[0])
			continue
		}
		out.Probs = append(out.Probs, y)
		best := 0
		for k := range y {
			if y[k] > y[best] {
				best = k
			}
		}
		out.Class = append(out.Class, out.Classes[best])
	}
	return out, nil
}
