package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// endless repeats a pattern forever (an endless device such as /dev/zero
// or `yes`) and counts the bytes read from it.
type endless struct {
	pattern []byte
	read    int64
}

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.pattern[(e.read+int64(i))%int64(len(e.pattern))]
	}
	e.read += int64(len(p))
	return len(p), nil
}

// Hostile inputs stop at a reading cap with a *CapError naming it, after
// reading a bounded number of bytes; they used to be read without end
// (`featuredp report --csv /dev/zero` reached 8.5 GB in 10 s).
func TestReadCSVCaps(t *testing.T) {
	wide := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "c%d,", i)
		}
		return strings.TrimSuffix(b.String(), ",") + "\n"
	}
	for _, tc := range []struct {
		name   string
		in     io.Reader
		opts   CSVOptions
		option string
		most   int64 // bytes it may read
	}{
		{"zeros", &endless{pattern: []byte{0}}, CSVOptions{}, "MaxLineBytes", DefaultMaxLineBytes + 1<<16},
		{"zeros, small line cap", &endless{pattern: []byte{0}}, CSVOptions{MaxLineBytes: 100}, "MaxLineBytes", 1 << 16},
		{"endless rows", &endless{pattern: []byte("1,2,3,4,5,6,7,8,9,10\n")}, CSVOptions{MaxCells: -1, MaxBytes: 1 << 20}, "MaxBytes", 1<<20 + 1<<16},
		{"endless cells", &endless{pattern: []byte("1,2,3,4,5,6,7,8,9,10\n")}, CSVOptions{MaxCells: 1000}, "MaxCells", 1 << 16},
		{"wide header", strings.NewReader(wide(2000) + "1\n"), CSVOptions{MaxColumns: 1000}, "MaxColumns", 1 << 20},
		{"wide row", strings.NewReader(strings.Repeat("1,", 50) + "1\n"), CSVOptions{MaxColumns: 50, NoHeader: true}, "MaxColumns", 1 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV(tc.in, tc.opts)
			var ce *CapError
			if !errors.As(err, &ce) || ce.Option != tc.option || !errors.Is(err, ErrCSV) {
				t.Fatalf("error %v, want a %s *CapError wrapping ErrCSV", err, tc.option)
			}
			if !strings.Contains(err.Error(), "CSVOptions."+tc.option) {
				t.Errorf("error %q does not name CSVOptions.%s", err, tc.option)
			}
			if e, ok := tc.in.(*endless); ok && e.read > tc.most {
				t.Errorf("read %d bytes, want at most %d", e.read, tc.most)
			}
		})
	}
	// A negative cap is none; the defaults leave ordinary input alone.
	if _, err := ReadCSV(strings.NewReader(wide(2000)+strings.Repeat("1,", 1999)+"1\n"), CSVOptions{MaxColumns: -1}); err != nil {
		t.Errorf("MaxColumns -1: %v", err)
	}
}

// Compressed or binary input is named as such; it used to give "bare \" in
// non-quoted-field" (gzip) or an invisible column name (NUL bytes).
func TestReadCSVBinary(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("a,b\n1,2\n"))
	w.Close()
	for _, tc := range []struct {
		name, in, want string
	}{
		{"gzip", gz.String(), "gzip-compressed; decompress it first (gunzip"},
		{"zip", "PK\x03\x04\x14\x00rest", "zip-compressed"},
		{"NUL header", "\x00\x00,\x00\n1,2\n", "contains a NUL byte"},
		{"NUL in one name", "a\x00b,c\n1,2\n", `header column 0 ("a\x00b")`},
		{"BOM then gzip", "\xef\xbb\xbf" + gz.String(), "gzip-compressed"},
		{"UTF-16LE", "\xff\xfea\x00,\x00b\x00\n\x001\x00,\x002\x00\n\x00", "UTF-16LE text (its byte-order mark); convert it to UTF-8"},
		{"UTF-16BE", "\xfe\xff\x00a\x00,\x00b\x00\n\x001\x00,\x002\x00\n", "UTF-16BE text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(tc.in), CSVOptions{})
			if !errors.Is(err, ErrBinary) || !errors.Is(err, ErrCSV) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrBinary mentioning %q", err, tc.want)
			}
			// The streaming readers say the same, not "the header has no column".
			enc, err := NewPublicEncoder(Schema{Columns: []Column{{Name: "a"}}, Task: Unsupervised}, EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := enc.EncodeCSV(strings.NewReader(tc.in), CSVOptions{}); tc.name[:3] == "UTF" && !errors.Is(err, ErrBinary) {
				t.Errorf("EncodeCSV: %v, want ErrBinary", err)
			}
		})
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// Reading and validating a wide file is linear in the width: the schema
// check called gota's df.Col once per column, and df.Col copies every
// column name, so 10 000 columns took 6.7 s and 10⁶ would take hours. The
// bytes allocated per column stay bounded (no timing: allocation counts
// are deterministic up to small noise); a quadratic check allocates
// 16 bytes × width per column (320 kB here).
func TestWideCSVLinear(t *testing.T) {
	const width = 20000
	var b strings.Builder
	for i := range width {
		fmt.Fprintf(&b, "c%d,", i)
	}
	b.WriteString("y\n")
	b.WriteString(strings.Repeat("1,", width) + "0\n")
	b.WriteString(strings.Repeat("2,", width) + "1\n")
	df, err := ReadCSV(strings.NewReader(b.String()), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := DefaultSchema(df, "y", Classification)
	perCol := allocated(func() {
		if err := s.Validate(df); err != nil {
			t.Fatal(err)
		}
		if _, _, err := DropMissing(df); err != nil {
			t.Fatal(err)
		}
	}) / width
	if perCol > 20<<10 {
		t.Errorf("Validate + DropMissing allocate %d bytes per column at width %d, want a bounded amount (linear)", perCol, width)
	}
}

func TestQuoteNames(t *testing.T) {
	many := make([]string, 25)
	for i := range many {
		many[i] = fmt.Sprint(i)
	}
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"a", "b c", ""}, `"a", "b c", ""`},
		{[]string{"\x00"}, `"\x00"`},
		{many, `"19", … (25 columns in all)`},
	} {
		if got := QuoteNames(tc.in); !strings.HasSuffix(got, tc.want) {
			t.Errorf("QuoteNames(%q) = %q, want suffix %q", tc.in, got, tc.want)
		}
	}
}

// TestMaxLineBytesEveryLine: the line cap applies to every line, not only
// to the one a read ends in, and the error names the long line. With the
// whole text in one read, a 100-byte line 3 under a 30-byte cap was
// accepted (the reader every path shares: ReadCSV, EncodeCSV; the check saw only the last,
// partial line of each read), and a long header was reported at the line
// the read ended in.
func TestMaxLineBytesEveryLine(t *testing.T) {
	long := strings.Repeat("9", 100)
	for _, c := range []struct {
		name, text string
		line       string
	}{
		{"long data line", "a,b\n1,2\n" + long + ",3\n4,5\n6,7\n", "line 3 "},
		{"long header", "a," + long + "\n1,2\n3,4\n", "line 1 "},
		{"long last line, no newline", "a,b\n1,2\n3," + long, "line 3 "},
	} {
		_, err := ReadCSV(strings.NewReader(c.text), CSVOptions{MaxLineBytes: 30})
		var ce *CapError
		if !errors.As(err, &ce) || ce.Option != "MaxLineBytes" || !strings.Contains(err.Error(), c.line) {
			t.Errorf("%s: ReadCSV err = %v; want the MaxLineBytes cap at %q", c.name, err, c.line)
		}
	}
	// A line of exactly the cap passes (the newline not counted).
	if _, err := ReadCSV(strings.NewReader("a,b\n"+strings.Repeat("1", 28)+",2\n"), CSVOptions{MaxLineBytes: 30}); err != nil {
		t.Errorf("a 30-byte line under a 30-byte cap: %v", err)
	}
}
