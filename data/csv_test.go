package data

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-gota/gota/series"
)

func TestReadCSV(t *testing.T) {
	df, err := ReadCSV(strings.NewReader("a,b,c,d\n1,x,1.5,true\n2,?,2,false\n,y,NA,true\n"), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := df.Dims(); r != 3 || c != 4 {
		t.Fatalf("dims %dx%d, want 3x4", r, c)
	}
	wantTypes := []series.Type{series.Int, series.String, series.Float, series.String}
	for i, ty := range df.Types() {
		if ty != wantTypes[i] {
			t.Errorf("column %d type %v, want %v", i, ty, wantTypes[i])
		}
	}
	if !df.Col("a").Elem(2).IsNA() || !df.Col("b").Elem(1).IsNA() || !df.Col("c").Elem(2).IsNA() {
		t.Errorf("missing values not NA: %v", df)
	}
	if got := df.Col("c").Elem(1).Float(); got != 2 {
		t.Errorf("c[1] = %v", got)
	}
}

func TestReadCSVOptions(t *testing.T) {
	in := "|header junk\n39, State-gov, 1\n50, ?, 0\n"
	df, err := ReadCSV(strings.NewReader(in), CSVOptions{
		NoHeader: true, Names: []string{"age", "work", "y"}, TrimSpace: true, SkipLines: 1,
		Types: map[string]series.Type{"y": series.Bool}, Missing: []string{"?"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := df.Col("work").Elem(0).String(); got != "State-gov" {
		t.Errorf("work[0] = %q (not trimmed?)", got)
	}
	if !df.Col("work").Elem(1).IsNA() {
		t.Error(`"?" not missing`)
	}
	if df.Col("y").Type() != series.Bool {
		t.Errorf("y type %v", df.Col("y").Type())
	}
	df, err = ReadCSV(strings.NewReader("1;2\n3;4\n"), CSVOptions{NoHeader: true, Comma: ';'})
	if err != nil {
		t.Fatal(err)
	}
	if names := df.Names(); names[0] != "X0" || names[1] != "X1" || df.Nrow() != 2 {
		t.Errorf("auto names / rows: %v %d", names, df.Nrow())
	}
	df, err = ReadCSV(strings.NewReader("a\nNA\n"), CSVOptions{Missing: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	if df.Col("a").Elem(0).IsNA() {
		t.Error(`with Missing = {} the value "NA" must be kept`)
	}
}

func TestReadCSVErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts CSVOptions
		want string
	}{
		{"empty", "", CSVOptions{}, "empty input"},
		{"header only", "a,b\n", CSVOptions{}, "no data rows: the file is empty or holds only its header line"},
		{"no rows without header", "", CSVOptions{NoHeader: true}, "no data rows"},
		{"ragged", "a,b\n1,2\n3\n", CSVOptions{}, "wrong number of fields"},
		{"bare quote", "a,b\n1,x\"y\n", CSVOptions{}, "bare \""},
		{"duplicate names", "a,a\n1,2\n", CSVOptions{}, `both named "a"`},
		{"empty name", "a,\n1,2\n", CSVOptions{}, "empty name"},
		{"bad int", "a\n1\nx\n", CSVOptions{Types: map[string]series.Type{"a": series.Int}}, `line 3: "x" is not an integer`},
		{"bad float", "a\n1\ninf\n", CSVOptions{Types: map[string]series.Type{"a": series.Float}}, "finite number"},
		{"bad bool", "a\nmaybe\n", CSVOptions{Types: map[string]series.Type{"a": series.Bool}}, "boolean"},
		{"type for unknown column", "a\n1\n", CSVOptions{Types: map[string]series.Type{"b": series.Int}}, `column "b", which is not in the data`},
		{"unsupported type", "a\n1\n", CSVOptions{Types: map[string]series.Type{"a": "complex"}}, "unsupported type"},
		{"names count", "1,2\n", CSVOptions{NoHeader: true, Names: []string{"a"}}, "1 names given for 2 columns"},
		{"skip past end", "a\n", CSVOptions{SkipLines: 3}, "while skipping"},
		{"negative skip", "a\n1\n", CSVOptions{SkipLines: -1}, "negative SkipLines"},
		{"bad delimiter", "a\n1\n", CSVOptions{Comma: '"'}, "delimiter"},
		{"skip lines counted", "junk\na,b\n1,2\n3\n", CSVOptions{SkipLines: 1}, "line 4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(tc.in), tc.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrCSV) {
				t.Errorf("%v does not wrap ErrCSV", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
	if _, err := ReadCSV(nil, CSVOptions{}); err == nil {
		t.Error("nil reader: no error")
	}
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n",
		"a,b,c\n1,x,1.5\n?,,NA\n",
		"age,sex\n39,Male\n\"4,0\",\"Fe\"\"male\"\n",
		"x\n1e308\n-0\n+5\n0x1p3\n",
		"a,a\n1,2\n",
		"a\n\"unterminated\n",
		"|1x3 Cross validator\n25, Private, <=50K.\n",
		"\xff\xfe,\x00\n1,2\n",
	} {
		f.Add([]byte(s), false, uint8(0))
	}
	f.Add([]byte("1;2;3\n4;5;6\n"), true, uint8(';'))
	f.Fuzz(func(t *testing.T, in []byte, noHeader bool, comma uint8) {
		opts := CSVOptions{NoHeader: noHeader, Comma: rune(comma), TrimSpace: comma%2 == 1}
		df, err := ReadCSV(strings.NewReader(string(in)), opts)
		if err != nil {
			return
		}
		r, c := df.Dims()
		if r < 1 || c < 1 {
			t.Fatalf("ReadCSV returned a %dx%d DataFrame without error", r, c)
		}
		for _, s := range df.Names() {
			if s == "" {
				t.Fatal("empty column name")
			}
		}
		// The result must be usable by the rest of the package.
		s := DefaultSchema(df, "", Unsupervised)
		_ = s.Validate(df)
		if _, _, err := Deduplicate(df); err != nil {
			t.Fatal(err)
		}
		if _, _, err := DropMissing(df); err != nil {
			t.Fatal(err)
		}
		// One-hot encoding is O(rows × levels): keep the fuzzer fast.
		if r*r*c <= 1<<16 {
			_, _ = Encode(df, s, EncodeOptions{Scale: MinMax})
		}
	})
}

// A UTF-8 byte-order mark at the start of the file is dropped: it used to
// stick to the first column's name ("\ufeffage"), so the schema's "age"
// was reported missing.
func TestReadCSVByteOrderMark(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		opts CSVOptions
	}{
		{"header", "\xef\xbb\xbfage,y\n30,1\n", CSVOptions{}},
		{"skipped line", "\xef\xbb\xbf# comment\nage,y\n30,1\n", CSVOptions{SkipLines: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			df, err := ReadCSV(strings.NewReader(tc.in), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := df.Names(); got[0] != "age" {
				t.Errorf("first column %q, want \"age\"", got[0])
			}
		})
	}
	// A BOM-like sequence inside a value is kept.
	df, err := ReadCSV(strings.NewReader("a,b\nx\xef\xbb\xbfy,1\n"), CSVOptions{})
	if err != nil || df.Elem(0, 0).String() != "x\xef\xbb\xbfy" {
		t.Errorf("value with an inner BOM: %v, %v", df.Elem(0, 0), err)
	}
}

// StrictKinds: a column of numbers with a few text cells is an error that
// names them; text columns, clean numeric columns and a fixed type are not
// affected, and without StrictKinds the column is read as text.
func TestStrictKinds(t *testing.T) {
	mk := func(bad int, total int) string {
		var b strings.Builder
		b.WriteString("x\n")
		for i := range total {
			if i < bad {
				b.WriteString("n/a-" + fmt.Sprint(i) + "\n")
			} else {
				b.WriteString(fmt.Sprint(i) + ".5\n")
			}
		}
		return b.String()
	}
	for _, tc := range []struct {
		name   string
		csv    string
		opts   CSVOptions
		errHas string
		typ    series.Type
	}{
		{"one bad of 20", mk(1, 20), CSVOptions{StrictKinds: true}, `numeric but for 1 of 20 cells (line 2: "n/a-0")`, ""},
		{"seven bad of 70 lists five", mk(7, 70), CSVOptions{StrictKinds: true}, "and 2 more", ""},
		{"half text is text", mk(10, 20), CSVOptions{StrictKinds: true}, "", series.String},
		{"clean numbers", mk(0, 20), CSVOptions{StrictKinds: true}, "", series.Float},
		{"not strict", mk(1, 20), CSVOptions{}, "", series.String},
		{"type fixed", mk(1, 20), CSVOptions{StrictKinds: true, Types: map[string]series.Type{"x": series.String}}, "", series.String},
		{"missing marker skipped", "x\n1\n2\nNA\n3\n", CSVOptions{StrictKinds: true}, "", series.Int},
	} {
		t.Run(tc.name, func(t *testing.T) {
			df, err := ReadCSV(strings.NewReader(tc.csv), tc.opts)
			if tc.errHas != "" {
				if !errors.Is(err, ErrMixedKind) || !errors.Is(err, ErrCSV) || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("err %v, want ErrMixedKind (and ErrCSV, as every ReadCSV error) with %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := df.Col("x").Type(); got != tc.typ {
				t.Errorf("type %v, want %v", got, tc.typ)
			}
		})
	}
}
