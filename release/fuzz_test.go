package release

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/featuredp/featuredp/data"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// FuzzRead feeds Read hostile model files: as given, and resealed (the
// bytes decoded leniently, the checksum recomputed) so that the fuzzer
// gets past the checksum to the content checks. Read must return a file
// or an error, never panic; a file it accepts must predict on a row built
// from its own schema without panicking.
func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	if err := modelFile(f).Write(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"format":"featuredp-model","version":1}`))
	f.Add([]byte(`{"format":"featuredp-model","version":1,"encoder":{},"certificate":{},"model":{"kind":"mlp","features":0,"hidden":1000000000000}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		readAndPredict(t, b)
		if b, ok := reseal(b); ok {
			readAndPredict(t, b)
		}
	})
}

// reseal decodes b leniently and encodes it again with its checksum
// recomputed (a signature is left as it is), so that a fuzzer gets past
// the checksum; ok is false when b does not decode.
func reseal(b []byte) (_ []byte, ok bool) {
	var g File
	if json.Unmarshal(b, &g) != nil {
		return nil, false
	}
	sum, err := g.checksum()
	if err != nil {
		return nil, false
	}
	g.SHA256 = sum
	b, err = json.Marshal(&g)
	return b, err == nil
}

// readAndPredict reads b and, if Read accepts it, predicts one row.
func readAndPredict(t *testing.T, b []byte) {
	g, err := Read(bytes.NewReader(b))
	if err != nil {
		if g != nil {
			t.Fatalf("Read returned a file and an error: %v", err)
		}
		return
	}
	if _, err := g.Predict(rowFor(g.Encoder.Schema)); err != nil {
		return
	}
	_ = g.Certificate.Markdown()
}

// rowFor builds one row with every feature column of s: the first level of
// a categorical column (or "a"), 0.5 for a continuous one.
func rowFor(s data.Schema) dataframe.DataFrame {
	var cols []series.Series
	for _, c := range s.Features() {
		if c.Kind == data.Categorical {
			v := "a"
			if len(c.Levels) > 0 {
				v = c.Levels[0]
			}
			cols = append(cols, series.New([]string{v}, series.String, c.Name))
			continue
		}
		cols = append(cols, series.New([]float64{0.5}, series.Float, c.Name))
	}
	return dataframe.New(cols...)
}
