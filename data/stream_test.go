package data

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// streamCSV is a table with a public-level categorical, two bounded
// continuous columns (one value outside its bounds), an ignored column
// and a label.
func streamCSV(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("age,region,note,income,y\n")
	for i := range n {
		age := 18 + r.IntN(80)
		if i == 3 {
			age = 120 // clipped to the bound
		}
		fmt.Fprintf(&b, "%d,%s,free text %05d,%.2f,%s\n", age, []string{"north", "south", "east"}[r.IntN(3)], i, 1000*r.Float64(), []string{"no", "yes"}[r.IntN(2)])
	}
	return b.String()
}

func streamSchema() (Schema, EncodeOptions) {
	s := Schema{Task: Classification, Columns: []Column{
		{Name: "age", Role: Public, Kind: Continuous},
		{Name: "region", Role: Public, Kind: Categorical, Levels: []string{"north", "south", "east"}},
		{Name: "note", Role: Ignore, Kind: Categorical},
		{Name: "income", Role: Sensitive, Kind: Continuous},
		{Name: "y", Role: Label, Kind: Categorical, Levels: []string{"no", "yes"}},
	}}
	return s, EncodeOptions{Scale: MinMax, DropFirst: true, Intercept: true, Bounds: map[string]Range{"age": {Lo: 18, Hi: 100}, "income": {Lo: 0, Hi: 1000}}}
}

// tempCSV writes text to a file in a temporary directory and opens it (a
// regular file: EncodeCSV reserves the matrix from its size); the test
// closes it.
func tempCSV(t *testing.T, text string) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fh.Close() })
	return fh
}

// The streaming path gives the same encoder and the same matrix, to the
// bit, as FitEncoder + Transform on the DataFrame.
func TestEncodeCSVMatchesTransform(t *testing.T) {
	text := streamCSV(500)
	schema, opts := streamSchema()
	df, err := ReadCSV(strings.NewReader(text), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fitted, err := FitEncoder(df, schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := NewPublicEncoder(schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pub, fitted) {
		t.Fatalf("NewPublicEncoder %+v\nFitEncoder %+v", pub, fitted)
	}
	want, err := fitted.Transform(df)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pub.EncodeCSV(strings.NewReader(text), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("EncodeCSV differs from Transform: N %d/%d D %d/%d", got.N, want.N, got.D, want.D)
	}
	// From a file, beyond sizeProbeRows rows: the matrix is reserved once
	// from the file's size, and the result is the same.
	big := streamCSV(3000)
	fromFile, err := pub.EncodeCSV(tempCSV(t, big), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bigDF, err := ReadCSV(strings.NewReader(big), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantBig, err := fitted.Transform(bigDF)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromFile, wantBig) {
		t.Error("EncodeCSV from a file differs from Transform")
	}
}

// Bad rows and options are errors naming the column and the line.
func TestEncodeCSVErrors(t *testing.T) {
	schema, opts := streamSchema()
	enc, err := NewPublicEncoder(schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	head := "age,region,note,income,y\n"
	for _, tc := range []struct {
		name, text string
		want       error
		msg        string
	}{
		{"missing column", "age,region,note,y\n20,north,x,no\n", ErrUnknownColumn, `no column "income"`},
		{"unseen level", head + "20,west,x,5,no\n", ErrUnknownLevel, `column "region", line 2: level "west"`},
		{"unseen class", head + "20,north,x,5,maybe\n", ErrUnknownLevel, `class "maybe"`},
		{"missing value", head + "20,north,x,NA,no\n", ErrMissingValue, `column "income", line 2`},
		{"not a number", head + "20,north,x,12k,no\n", ErrNotNumeric, `"12k"`},
		{"infinite", head + "20,north,x,+Inf,no\n", ErrNotNumeric, `"+Inf"`},
		{"short row", head + "20,north,x,5\n", ErrCSV, "wrong number of fields"},
		{"no rows", head, ErrCSV, "no data rows: the file is empty or holds only its header line; it needs at least one record"},
		{"empty", "", ErrCSV, "no data rows: the file is empty or holds only its header line; it needs at least one record"},
		{"duplicate header", "age,age,region,note,income,y\n", ErrCSV, "appears twice"},
	} {
		_, err := enc.EncodeCSV(strings.NewReader(tc.text), CSVOptions{})
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want %v with %q", tc.name, err, tc.want, tc.msg)
		}
	}
	_, err = enc.EncodeCSV(strings.NewReader(streamCSV(200)), CSVOptions{MaxBytes: 100})
	var ce *CapError
	if !errors.As(err, &ce) || ce.Option != "MaxBytes" {
		t.Errorf("byte cap: %v", err)
	}
	for name, o := range map[string]EncodeOptions{
		"bounds from data": {Scale: MinMax, BoundsFromData: true},
		"no bounds":        {Scale: MinMax},
	} {
		if _, err := NewPublicEncoder(schema, o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	var nilEnc *Encoder
	if _, err := nilEnc.EncodeCSV(strings.NewReader(head), CSVOptions{}); err == nil {
		t.Error("nil encoder")
	}
}

// A declared level or class that is also a missing-value marker ("NA" for
// North America) is that level on the streaming path and in
// Schema.Validate; the same marker elsewhere stays missing, and the
// DataFrame read with the default markers gets an error naming the fix.
// A level every reader takes for missing ("", "?", "NaN") is refused.
func TestDeclaredLevelMissingMarker(t *testing.T) {
	schema := Schema{Task: Classification, Columns: []Column{
		{Name: "continent", Role: Public, Kind: Categorical, Levels: []string{"EU", "NA", "AS"}},
		{Name: "income", Role: Sensitive, Kind: Continuous},
		{Name: "y", Role: Label, Kind: Categorical, Levels: []string{"no", "NA"}},
	}}
	opts := EncodeOptions{Scale: MinMax, Bounds: map[string]Range{"income": {Lo: 0, Hi: 10}}}
	enc, err := NewPublicEncoder(schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	text := "continent,income,y\nEU,1,no\nNA,2,NA\nAS,3,no\n"
	got, err := enc.EncodeCSV(strings.NewReader(text), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// One-hot EU, NA, AS; income/10; class index.
	want := []float64{1, 0, 0, 0.1, 0, 1, 0, 0.2, 0, 0, 1, 0.3}
	if !slices.Equal(got.X, want) || !slices.Equal(got.Y, []float64{0, 1, 0}) {
		t.Errorf("X %v Y %v, want %v [0 1 0]", got.X, got.Y, want)
	}
	for name, bad := range map[string]string{
		"NA in a continuous column": "continent,income,y\nEU,NA,no\n",
		"empty level":               "continent,income,y\n,1,no\n",
		"empty class":               "continent,income,y\nEU,1,\n",
	} {
		if _, err := enc.EncodeCSV(strings.NewReader(bad), CSVOptions{}); !errors.Is(err, ErrMissingValue) {
			t.Errorf("%s: %v, want ErrMissingValue", name, err)
		}
	}
	// The DataFrame path: with the default markers "NA" is missing, and the
	// error says how to read it as the level; without "NA" among the
	// markers it is the level.
	df, err := ReadCSV(strings.NewReader(text), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(df); !errors.Is(err, ErrMissingValue) || !strings.Contains(err.Error(), "CSVOptions.Missing") {
		t.Errorf("default markers: %v, want a missing value naming CSVOptions.Missing", err)
	}
	df, err = ReadCSV(strings.NewReader(text), CSVOptions{Missing: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(df); err != nil {
		t.Fatalf("Missing without NA: %v", err)
	}
	fromDF, err := enc.Transform(df)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fromDF.X, want) || !slices.Equal(fromDF.Y, got.Y) {
		t.Errorf("Transform X %v Y %v, want EncodeCSV's", fromDF.X, fromDF.Y)
	}
	for _, l := range []string{"?", "NaN", " "} {
		s := schema.Clone()
		s.Columns[0].Levels = []string{"EU", l}
		if _, err := NewPublicEncoder(s, opts); err == nil || !strings.Contains(err.Error(), "takes for a missing value") {
			t.Errorf("declared level %q: %v", l, err)
		}
		o := opts
		o.Levels = map[string][]string{"continent": {"EU", l}}
		if _, err := NewPublicEncoder(schema, o); err == nil || !strings.Contains(err.Error(), "takes for a missing value") {
			t.Errorf("option level %q: %v", l, err)
		}
	}
}

// CSVHeader reads the names and rejects what is not a CSV header.
func TestCSVHeader(t *testing.T) {
	h, err := CSVHeader(strings.NewReader("a, b,c\n1,2,3\n"), CSVOptions{TrimSpace: true})
	if err != nil || strings.Join(h, "|") != "a|b|c" {
		t.Errorf("header %q, %v", h, err)
	}
	for name, text := range map[string]string{"empty": "", "repeated": "a,a\n", "empty name": "a,,c\n", "gzip": "\x1f\x8b\x08\x00"} {
		if _, err := CSVHeader(strings.NewReader(text), CSVOptions{}); !errors.Is(err, ErrCSV) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// reserve sizes the matrix from the rate of the rows read so far, within
// reserveRows' bounds, keeping the rows read; sizeOf knows a file's size
// only.
func TestReserve(t *testing.T) {
	budget := func(d int) int { return ReserveBytes / (8 * (d + 1)) }
	for _, tc := range []struct {
		name       string
		size, read int64
		want       int // rows of capacity
	}{
		{"10× the bytes read", 10_000, 1_000, int(10*1024*1.05) + 1},
		{"a size below the rows read", 500, 1_000, 1024},
		{"a terabyte: ReserveBytes", 1 << 40, 1_000, budget(3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := &Encoded{N: 1024, D: 3, X: make([]float64, 1024*3), Y: make([]float64, 1024)}
			out.X[5], out.Y[7] = 2, 1
			reserve(out, tc.size, tc.read)
			if cap(out.X) != tc.want*3 || cap(out.Y) != tc.want || len(out.X) != 1024*3 || len(out.Y) != 1024 || out.X[5] != 2 || out.Y[7] != 1 {
				t.Errorf("cap %d/%d len %d/%d, want %d rows of capacity", cap(out.X), cap(out.Y), len(out.X), len(out.Y), tc.want)
			}
		})
	}
	if sizeOf(strings.NewReader("abc")) != 0 {
		t.Error("a strings.Reader has no file size")
	}
	path := filepath.Join(t.TempDir(), "f")
	os.WriteFile(path, []byte("12345"), 0o644)
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if sizeOf(fh) != 5 {
		t.Errorf("sizeOf(file) = %d", sizeOf(fh))
	}
}

// reserveRows trusts an estimate up to ReserveBytes or reserveGrowth times
// the rows read, whichever is more, never past the rows EncodeCSV's size
// cap accepts, and never overflows.
func TestReserveRows(t *testing.T) {
	const d = 1 << 20
	budget := ReserveBytes / (8 * (d + 1))
	for _, tc := range []struct {
		name     string
		n        int
		estimate float64
		want     int
	}{
		{"estimate within the budget", 4, 10, 10},
		{"estimate over the budget", 1, 1e6, budget},
		{"reserveGrowth times the rows read", 10, 1e6, 80},
		{"a hostile estimate", 1, math.MaxFloat64, budget},
		{"infinite estimate", 10, math.Inf(1), 80},
		{"never past EncodeCSV's size cap", 100, 1e6, MaxEncodedValues/d + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := reserveRows(tc.n, d, tc.estimate); got != tc.want {
				t.Errorf("reserveRows(%d, %d, %g) = %d, want %d", tc.n, d, tc.estimate, got, tc.want)
			}
		})
	}
}

// A sparse file of a few short rows, then gigabytes of NUL bytes, gets
// EncodeCSV's line-length cap error after a bounded allocation (the
// reservation within ReserveBytes), whatever the file's size says and
// with or without the MaxBytes cap: not gigabytes, nor an out-of-memory
// crash.
func TestEncodeCSVSparseFileBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := 0; i < sizeProbeRows+10; i++ {
		b.WriteString("1,2,0\n")
	}
	schema := Schema{Task: Classification, Columns: []Column{{Name: "a"}, {Name: "b"},
		{Name: "y", Role: Label, Kind: Categorical, Levels: []string{"0", "1"}}}}
	enc, err := NewPublicEncoder(schema, EncodeOptions{Scale: MinMax, Bounds: map[string]Range{"a": {Lo: 0, Hi: 3}, "b": {Lo: 0, Hi: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		size     int64
		maxBytes int64
	}{
		{"2 GB under the default caps", 2 << 30, 0},
		{"1 TB without a byte cap", 1 << 40, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fh := tempCSV(t, b.String())
			if err := os.Truncate(fh.Name(), tc.size); err != nil { // sparse: no disk used
				t.Skipf("cannot make a sparse file of %d bytes here: %v", tc.size, err)
			}
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			_, err := enc.EncodeCSV(fh, CSVOptions{MaxBytes: tc.maxBytes})
			runtime.ReadMemStats(&m1)
			var ce *CapError
			if !errors.As(err, &ce) {
				t.Errorf("EncodeCSV: %v, want a *CapError", err)
			}
			if got, limit := m1.TotalAlloc-m0.TotalAlloc, uint64(ReserveBytes+8*DefaultMaxLineBytes); got > limit {
				t.Errorf("EncodeCSV allocated %d bytes, more than ReserveBytes and the line buffers (%d)", got, limit)
			}
		})
	}
}

// A file whose first rows are much shorter than the rest makes reserve
// over-estimate the rows; the result keeps only what it holds.
func TestEncodeCSVOverReserveTrimmed(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,ign,y\n")
	for i := 0; i < sizeProbeRows; i++ {
		b.WriteString("1,2,x,0\n")
	}
	wide := strings.Repeat("z", 20_000)
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "1,2,%s,1\n", wide)
	}
	schema := Schema{Task: Classification, Columns: []Column{{Name: "a", Role: Public}, {Name: "b", Role: Sensitive},
		{Name: "ign", Role: Ignore}, {Name: "y", Role: Label, Kind: Categorical, Levels: []string{"0", "1"}}}}
	enc, err := NewPublicEncoder(schema, EncodeOptions{Scale: MinMax, Bounds: map[string]Range{"a": {Lo: 0, Hi: 3}, "b": {Lo: 0, Hi: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := enc.EncodeCSV(tempCSV(t, b.String()), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := sizeProbeRows + 50
	if out.N != n || len(out.X) != 2*n || cap(out.X) > 2*n+2*n/4 || cap(out.Y) > n+n/4 {
		t.Errorf("N %d, len X %d, cap X %d, cap Y %d: want %d rows without the reserve's excess", out.N, len(out.X), cap(out.X), cap(out.Y), n)
	}
}

// EncodeCSVChunks delivers EncodeCSV's rows in file order, in chunks of at
// most the rows asked for, whatever the chunk size; bad arguments and an
// error from fn stop it with an error.
func TestEncodeCSVChunks(t *testing.T) {
	text := streamCSV(257)
	schema, opts := streamSchema()
	enc, err := NewPublicEncoder(schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := enc.EncodeCSV(strings.NewReader(text), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, rows := range []int{1, 2, 100, 256, 257, 258, MaxChunkRows} {
		x, y, err := chunked(enc, text, rows)
		if err != nil || !slices.Equal(x, whole.X) || !slices.Equal(y, whole.Y) {
			t.Errorf("rows %d: %v, %d values, want EncodeCSV's %d", rows, err, len(x), len(whole.X))
		}
	}
	stop := errors.New("stop")
	calls := 0
	err = enc.EncodeCSVChunks(strings.NewReader(text), CSVOptions{}, 100, func(*Encoded) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Errorf("fn's error: %v after %d calls, want it returned as it is after 1", err, calls)
	}
	for _, tc := range []struct {
		name, text string
		rows       int
		fn         func(*Encoded) error
		want       string
	}{
		{"no rows per chunk", text, 0, func(*Encoded) error { return nil }, "rows per chunk"},
		{"too many rows per chunk", text, MaxChunkRows + 1, func(*Encoded) error { return nil }, "rows per chunk"},
		{"nil fn", text, 10, nil, "nil fn"},
		{"header only", "age,region,note,income,y\n", 10, func(*Encoded) error { return nil }, "EncodeCSVChunks: no data rows"},
		{"empty", "", 10, func(*Encoded) error { return nil }, "EncodeCSVChunks: no data rows"},
		{"bad row after a chunk", streamCSV(3) + "x,north,,1,no\n", 2, func(*Encoded) error { return nil }, `EncodeCSVChunks: column "age", line 5`},
		{"spaces after the commas", "age, region, note, income, y\n30, north, x, 5, no\n", 2, func(*Encoded) error { return nil }, `the header has " region", with spaces around the name: read with CSVOptions.TrimSpace`},
	} {
		err := enc.EncodeCSVChunks(strings.NewReader(tc.text), CSVOptions{}, tc.rows, tc.fn)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	var nilEnc *Encoder
	if err := nilEnc.EncodeCSVChunks(strings.NewReader(text), CSVOptions{}, 10, func(*Encoded) error { return nil }); err == nil {
		t.Error("nil encoder: no error")
	}
}

// Public LabelBounds clip a regression label and scale it to [0, 1], the
// same on the streaming path and in Transform; wrong uses are errors.
func TestLabelBounds(t *testing.T) {
	schema := Schema{Task: Regression, Columns: []Column{{Name: "x", Role: Sensitive}, {Name: "y", Role: Label}}}
	opts := EncodeOptions{Scale: MinMax, Bounds: map[string]Range{"x": {Lo: 0, Hi: 1}}, LabelBounds: &Range{Lo: 100, Hi: 300}}
	enc, err := NewPublicEncoder(schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	if enc.LabelShift != 100 || enc.LabelDiv != 200 || !enc.LabelClip || enc.Validate() != nil {
		t.Fatalf("encoder label: shift %v div %v clip %v (%v)", enc.LabelShift, enc.LabelDiv, enc.LabelClip, enc.Validate())
	}
	text := "x,y\n0.5,50\n0.5,200\n0.5,400\n"
	got, err := enc.EncodeCSV(strings.NewReader(text), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0, 0.5, 1}; !slices.Equal(got.Y, want) {
		t.Errorf("Y %v, want %v (clipped to [100, 300], scaled)", got.Y, want)
	}
	df, err := ReadCSV(strings.NewReader(text), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fromDF, err := enc.Transform(df); err != nil || !slices.Equal(fromDF.Y, got.Y) {
		t.Errorf("Transform Y %v (%v), want %v", fromDF.Y, err, got.Y)
	}
	for name, o := range map[string]EncodeOptions{
		"with LabelScale": {Scale: MinMax, Bounds: opts.Bounds, LabelBounds: opts.LabelBounds, LabelScale: MinMax},
		"empty range":     {Scale: MinMax, Bounds: opts.Bounds, LabelBounds: &Range{Lo: 1, Hi: 1}},
		"infinite":        {Scale: MinMax, Bounds: opts.Bounds, LabelBounds: &Range{Lo: 0, Hi: math.Inf(1)}},
	} {
		if _, err := NewPublicEncoder(schema, o); err == nil || !strings.Contains(err.Error(), "LabelBounds") {
			t.Errorf("%s: %v", name, err)
		}
	}
	class := Schema{Task: Classification, Columns: []Column{{Name: "x", Role: Sensitive}, {Name: "y", Role: Label, Kind: Categorical, Levels: []string{"a", "b"}}}}
	if _, err := NewPublicEncoder(class, opts); err == nil || !strings.Contains(err.Error(), "regression label") {
		t.Errorf("LabelBounds on a classifier: %v", err)
	}
}

// Public Bounds whose width Hi − Lo overflows float64 are refused by
// NewPublicEncoder, naming the fix, rather than encoding 1e308 as NaN and
// every ordinary value as 0.
func TestNewPublicEncoderOverflowingBounds(t *testing.T) {
	schema := Schema{Task: Classification, Columns: []Column{{Name: "a"},
		{Name: "y", Role: Label, Kind: Categorical, Levels: []string{"0", "1"}}}}
	for _, tc := range []struct {
		name string
		b    Range
		want string
	}{
		{"symmetric", Range{Lo: -1e308, Hi: 1e308}, "width Hi − Lo overflows float64"},
		{"largest floats", Range{Lo: -math.MaxFloat64, Hi: math.MaxFloat64}, "narrow the Bounds entry (featuredp: --bounds a=LO:HI)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc, err := NewPublicEncoder(schema, EncodeOptions{Scale: MinMax, Bounds: map[string]Range{"a": tc.b}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewPublicEncoder: %v (encoder %+v), want %q", err, enc, tc.want)
			}
		})
	}
	wide := Range{Lo: -1e307, Hi: 1e307} // the widest ranges float64 holds still encode
	enc, err := NewPublicEncoder(schema, EncodeOptions{Scale: MinMax, Bounds: map[string]Range{"a": wide}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := enc.EncodeCSV(strings.NewReader("a,y\n1e307,1\n0,0\n-1e307,0\n"), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1, 0.5, 0}; !slices.Equal(out.X, want) {
		t.Errorf("encoded %v, want %v", out.X, want)
	}
}

// TestEncodeCSVSizeCap: EncodeCSV caps the design matrix at
// MaxEncodedValues values, as Transform does, while its reading caps are
// on (before, a 30 kB file of 10,000 rows "z1" and a public encoder of
// 20,000 levels took 7.8 GB; Transform refused the same matrix). The cap
// is lowered here so that the test needs no GiB.
func TestEncodeCSVSizeCap(t *testing.T) {
	defer func(c int) { encodedValuesCap = c }(encodedValuesCap)
	encodedValuesCap = 1 << 16
	lv := make([]string, 1000)
	for i := range lv {
		lv[i] = fmt.Sprint("z", i)
	}
	enc, err := NewPublicEncoder(Schema{Columns: []Column{{Name: "c", Kind: Categorical, Levels: lv}}, Task: Unsupervised}, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := "c\n" + strings.Repeat("z1\n", 100) // 100 × 1,000 values > 2^16
	_, err = enc.EncodeCSV(strings.NewReader(text), CSVOptions{})
	if err == nil || !strings.Contains(err.Error(), "EncodeCSVChunks") || !strings.Contains(err.Error(), `"c" with 1000 levels`) {
		t.Errorf("EncodeCSV: %v, want the size error naming the feature and EncodeCSVChunks", err)
	}
	if _, err := enc.Transform(dataframe.New(series.New(strings.Split(strings.Repeat("z1 ", 100)[:299], " "), series.String, "c"))); err == nil {
		t.Errorf("Transform: no error for the same matrix")
	}
	if x, err := enc.EncodeCSV(strings.NewReader(text), CSVOptions{MaxBytes: -1}); err != nil || x.N != 100 {
		t.Errorf("EncodeCSV with no reading caps: %v", err)
	}
	if x, err := enc.EncodeCSV(strings.NewReader("c\n"+strings.Repeat("z1\n", 65)), CSVOptions{}); err != nil || x.N != 65 {
		t.Errorf("EncodeCSV under the cap: %v", err)
	}
	if err := enc.EncodeCSVChunks(strings.NewReader(text), CSVOptions{}, 10, func(*Encoded) error { return nil }); err != nil {
		t.Errorf("EncodeCSVChunks: %v", err)
	}
}
