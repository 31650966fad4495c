package data

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// FuzzEncodeCSV feeds EncodeCSV arbitrary CSV text under a public encoder
// with bounds, levels, DropFirst and an intercept: it returns an error or
// a matrix of N×D values in [0, 1] (clipped MinMax, one-hot, intercept)
// with class indices 0 or 1, never panics; EncodeCSVChunks fails exactly
// when EncodeCSV does and otherwise delivers the same rows.
func FuzzEncodeCSV(f *testing.F) {
	f.Add(streamCSV(5))
	f.Add("age,region,note,income,y\n120,north,,-5,yes\n")
	f.Add("age,region,income,y\n1e999,east,3,no\n")
	f.Add("\ufeffage;region;income;y\r\n\"1\";\"south\";2;no\r\n")
	f.Add("age,region,income,y,y\n1,north,2,no,no\n")
	schema, opts := streamSchema()
	enc, err := NewPublicEncoder(schema, opts)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		x, err := enc.EncodeCSV(strings.NewReader(text), CSVOptions{MaxBytes: 1 << 16})
		cx, cy, cerr := chunked(enc, text, 2)
		if (err == nil) != (cerr == nil) {
			t.Fatalf("EncodeCSV: %v, EncodeCSVChunks: %v", err, cerr)
		}
		if err != nil {
			return
		}
		if !slices.Equal(cx, x.X) || !slices.Equal(cy, x.Y) {
			t.Fatal("EncodeCSVChunks delivered other rows than EncodeCSV")
		}
		if x.D != enc.Width() || len(x.X) != x.N*x.D || len(x.Y) != x.N {
			t.Fatalf("shape: N %d D %d (width %d), %d values, %d labels", x.N, x.D, enc.Width(), len(x.X), len(x.Y))
		}
		for i, v := range x.X {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("X[%d] = %v outside [0, 1]", i, v)
			}
		}
		for i, y := range x.Y {
			if y != 0 && y != 1 {
				t.Fatalf("Y[%d] = %v, want a class index", i, y)
			}
		}
	})
}

// chunked concatenates the chunks of EncodeCSVChunks.
func chunked(enc *Encoder, text string, rows int) (x, y []float64, err error) {
	err = enc.EncodeCSVChunks(strings.NewReader(text), CSVOptions{MaxBytes: 1 << 16}, rows, func(c *Encoded) error {
		if c.N < 1 || c.N > rows || len(c.X) != c.N*c.D || len(c.Y) != c.N {
			return fmt.Errorf("chunk of %d rows, %d values, %d labels (at most %d rows)", c.N, len(c.X), len(c.Y), rows)
		}
		x, y = append(x, c.X...), append(y, c.Y...)
		return nil
	})
	return x, y, err
}
