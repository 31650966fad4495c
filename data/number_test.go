package data

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/go-gota/gota/series"
)

// ParseNumber reads a plain decimal, spaces around it trimmed, and refuses
// what strconv.ParseFloat alone would read as a number though no
// spreadsheet does: hex floats, digit underscores, spelt-out infinities.
func TestParseNumber(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    float64
		decimal bool // false: ErrNotDecimal
		ok      bool
	}{
		{"40", 40, true, true}, {" -1.5\t", -1.5, true, true}, {".5", 0.5, true, true}, {"5.", 5, true, true},
		{"+4e1", 40, true, true}, {"4E-1", 0.4, true, true}, {"1e-400", 0, true, true},
		{"1e400", 0, true, false}, {"0x1p3", 0, false, false}, {"0X1.4P5", 0, false, false}, {"1_000", 0, false, false},
		{"Inf", 0, false, false}, {"-infinity", 0, false, false}, {"NaN", 0, false, false}, {"1,000", 0, false, false},
		{"", 0, false, false}, {".", 0, false, false}, {"e5", 0, false, false}, {"1e", 0, false, false}, {"--1", 0, false, false},
		{"١", 0, false, false},
	} {
		got, err := ParseNumber(c.in)
		if (err == nil) != c.ok || (err != nil && errors.Is(err, ErrNotDecimal) == c.decimal) || got != c.want {
			t.Errorf("ParseNumber(%q) = %v, %v; want %v, ok %v, decimal %v", c.in, got, err, c.want, c.ok, c.decimal)
		}
	}
}

// ReadCSV reads a hex float or digits with underscores as text, never as
// the number strconv.ParseFloat would make of them, so that the column
// is not numeric (and Transform refuses it as continuous), as EncodeCSV
// refuses the cell.
func TestReadCSVDecimalOnly(t *testing.T) {
	for _, cell := range []string{"0x1p3", "1_000"} {
		df, err := ReadCSV(strings.NewReader("a\n1\n"+cell+"\n"), CSVOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := NumericAt(df.Col("a"), 1); err == nil {
			t.Errorf("%q read as the number %v", cell, df.Col("a").Elem(1))
		}
	}
}

// A declared level with white space around it is refused, in the schema
// and in EncodeOptions.Levels: every reader trims a cell's spaces, so no
// cell could be that level, and " m" beside "m" would make the paths
// disagree.
func TestSpacedLevelRefused(t *testing.T) {
	schema := Schema{Task: Classification, Columns: []Column{
		{Name: "sex", Role: Sensitive, Kind: Categorical, Levels: []string{"f", " m"}},
		{Name: "y", Role: Label, Kind: Categorical, Levels: []string{"no", "yes"}},
	}}
	if _, err := NewPublicEncoder(schema, EncodeOptions{}); err == nil || !strings.Contains(err.Error(), `declare "m"`) {
		t.Errorf("schema level \" m\": %v", err)
	}
	schema.Columns[0].Levels = nil
	opts := EncodeOptions{Levels: map[string][]string{"sex": {"f", "m"}, "y": {"no", "yes\t"}}}
	if _, err := NewPublicEncoder(schema, opts); err == nil || !strings.Contains(err.Error(), `list "yes"`) {
		t.Errorf("class \"yes\\t\": %v", err)
	}
}

// Training reads the cells of both paths alike too: a file with spaces
// around its cells (and CRLF line ends) encodes to the same matrix through
// EncodeCSV as through ReadCSV + Transform, and a hex float is refused by
// both.
func TestEncodeCSVTrimsAsTransform(t *testing.T) {
	schema, opts := streamSchema()
	enc, err := NewPublicEncoder(schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	text := "age,region,note,income,y\r\n 30 ,north ,a, 12.5,yes \r\n40,\tsouth,b,7e2 ,no\r\n"
	df, err := ReadCSV(strings.NewReader(text), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := enc.Transform(df)
	if err != nil {
		t.Fatal(err)
	}
	got, err := enc.EncodeCSV(strings.NewReader(text), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.X, want.X) || !slices.Equal(got.Y, want.Y) {
		t.Errorf("EncodeCSV %v %v, Transform %v %v", got.X, got.Y, want.X, want.Y)
	}
	hex := strings.Replace(text, "7e2", "0x1p9", 1)
	if _, err := enc.EncodeCSV(strings.NewReader(hex), CSVOptions{}); err == nil {
		t.Error("EncodeCSV read a hex float")
	}
	if df, err := ReadCSV(strings.NewReader(hex), CSVOptions{}); err == nil {
		if _, err := enc.Transform(df); err == nil {
			t.Error("Transform read a hex float")
		}
	}
}

// EncodeCSV (and so TrainCSV, PredictCSV) reads the header row by name and
// cannot apply NoHeader, Names or Types: given, they are an error naming
// them, not silently ignored (Names: ["income", …] over a header "age,…"
// would otherwise read the header's columns, not the ones the caller
// named).
func TestEncodeCSVRefusesHeaderOptions(t *testing.T) {
	schema, opts := streamSchema()
	enc, err := NewPublicEncoder(schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	text := streamCSV(5)
	for name, o := range map[string]CSVOptions{
		"NoHeader": {NoHeader: true},
		"Names":    {Names: []string{"income", "region", "note", "age", "y"}},
		"Types":    {Types: map[string]series.Type{"age": series.Float}},
	} {
		if _, err := enc.EncodeCSV(strings.NewReader(text), o); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want an error naming it", name, err)
		}
		if err := enc.EncodeCSVChunks(strings.NewReader(text), o, 2, func(*Encoded) error { return nil }); err == nil {
			t.Errorf("%s: EncodeCSVChunks accepted it", name)
		}
	}
}

// TestNumberErrorsNameTheFix: a continuous cell that is not a finite
// decimal gets an error saying what to write instead, on the streaming
// path too (before, EncodeCSV said only "is not a finite number", and
// ParseNumber "is not a finite float64", for "1e400").
func TestNumberErrorsNameTheFix(t *testing.T) {
	enc, err := NewPublicEncoder(Schema{Columns: []Column{{Name: "x"}, {Name: "y", Role: Label}}, Task: Regression}, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ text, want string }{
		{"x,y\n1e400,1\n", "rescale the column"},
		{"x,y\n1,-1e999\n", "rescale the column"},
		{"x,y\n0x1p3,1\n", "write it as a plain decimal"},
		{"x,y\n1,1_000\n", "write it as a plain decimal"},
	} {
		_, err := enc.EncodeCSV(strings.NewReader(tc.text), CSVOptions{})
		if !errors.Is(err, ErrNotNumeric) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "is not a finite number") {
			t.Errorf("%q: %v, want ErrNotNumeric saying %q", tc.text, err, tc.want)
		}
	}
	if _, err := ParseNumber("1e400"); err == nil || !strings.Contains(err.Error(), "rescale the column") {
		t.Errorf("ParseNumber(1e400): %v, want the fix", err)
	}
}
