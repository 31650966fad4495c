package data

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gota/gota/series"
)

// TestDetectedSpellingsNotMerged: two cells that spell one number two ways
// ("01" and "1", "1.0" and "1e0") in a column whose type ReadCSV detects
// are never silently one category. Before, ReadCSV read the column as
// numbers, so levels fitted on the data (and the classes of a label)
// merged them: rows of different categories were encoded the same. Now
// ReadCSV either keeps the spellings distinct or refuses with an error
// naming the cells and the fix (CSVOptions.Types).
func TestDetectedSpellingsNotMerged(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b string // the two spellings, rows 0 and 1 (row 2 is "7")
	}{
		{"leading zero", "01", "1"},
		{"plus sign", "+1", "1"},
		{"minus zero", "-0", "0"},
		{"decimal point", "1.0", "1"},
		{"decimal point second", "1", "1.0"},
		{"two trailing zeros", "1.00", "1.0"},
		{"exponent", "1e0", "1"},
		{"trailing zero", "0.10", "0.1"},
		{"float minus zero", "-0.0", "-0"},
		{"beyond float64 precision", "0.1000000000000000000001", "0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := "code,y\n" + tc.a + "," + tc.a + "\n" + tc.b + "," + tc.b + "\n7,7\n"
			df, err := ReadCSV(strings.NewReader(text), CSVOptions{})
			if err != nil {
				for _, want := range []string{`"code"`, `"` + tc.a + `"`, `"` + tc.b + `"`, "line 2", "line 3", "series.String"} {
					if !errors.Is(err, ErrNumberSpelling) || !errors.Is(err, ErrCSV) || !strings.Contains(err.Error(), want) {
						t.Fatalf("ReadCSV: %v; want an ErrNumberSpelling (and ErrCSV) error naming %s", err, want)
					}
				}
				if se := (*NumberSpellingError)(nil); !errors.As(err, &se) || se.Column != "code" || se.Cells != [2]string{tc.a, tc.b} || se.Lines != [2]int{2, 3} {
					t.Fatalf("ReadCSV: %#v; want a *NumberSpellingError of column code, cells %q and %q at lines 2 and 3", se, tc.a, tc.b)
				}
				return
			}
			schema := Schema{Columns: []Column{{Name: "code", Kind: Categorical}, {Name: "y", Role: Label, Kind: Categorical}}}
			e, err := Encode(df, schema, EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if slices.Equal(e.X[:e.D], e.X[e.D:2*e.D]) {
				t.Errorf("features %q and %q are both encoded %v (levels %q): one category, silently", tc.a, tc.b, e.X[:e.D], e.Columns)
			}
			if e.Y[0] == e.Y[1] {
				t.Errorf("labels %q and %q are both class %v of %q: one class, silently", tc.a, tc.b, e.Y[0], e.Classes)
			}
		})
	}
}

// TestDetectedSpellingsStillNumbers: a detected numeric column whose every
// number has one spelling (spaces around a cell do not count, as every
// reader trims them) is read as numbers as before, and a fixed type reads
// two spellings of a number as that number, or as text.
func TestDetectedSpellingsStillNumbers(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		opts CSVOptions
		typ  series.Type
	}{
		{"leading zeros alone", "x\n01\n02\n01\n", CSVOptions{}, series.Int},
		{"spaces around", "x\n 1\n1\n1 \n", CSVOptions{}, series.Float},
		{"one spelling each", "x\n1.0\n2.50\n1.0\n1234567\n", CSVOptions{}, series.Float},
		{"as many decimals", "x\n1.0\n2.0\n2.5\n", CSVOptions{}, series.Float},
		{"shortest round trips", "x\n0.30000000000000004\n0.3\n1e-05\n2.50\n-0\n0\n", CSVOptions{}, series.Float},
		{"minus zero apart", "x\n-0.0\n0.0\n", CSVOptions{}, series.Float},
		{"missing cells", "x\n1\nNA\n\n2\n", CSVOptions{}, series.Int},
		{"fixed Int", "x\n01\n1\n", CSVOptions{Types: map[string]series.Type{"x": series.Int}}, series.Int},
		{"fixed Float", "x\n1.0\n1\n", CSVOptions{Types: map[string]series.Type{"x": series.Float}}, series.Float},
		{"fixed String", "x\n01\n1\n", CSVOptions{Types: map[string]series.Type{"x": series.String}}, series.String},
		{"text column", "x\n01\n1\nabc\n", CSVOptions{}, series.String},
	} {
		t.Run(tc.name, func(t *testing.T) {
			df, err := ReadCSV(strings.NewReader(tc.text), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := df.Col("x").Type(); got != tc.typ {
				t.Errorf("type %v, want %v", got, tc.typ)
			}
		})
	}
}

// TestNumberSpellingFastPaths: ReadCSV's check (its map-free fast path and
// its map of the cells that are not minimal) finds a clash exactly when a
// plain comparison of every pair of cells does, on random columns drawn
// from spellings of a few numbers.
func TestNumberSpellingFastPaths(t *testing.T) {
	pool := []string{"1", "1.0", "01", "+1", "1e0", " 1", "0.1", "0.10", "1e-1", "2", "2.50", "2.5", "-0", "0", "0.0", "-0.0",
		"1234567", "1.234567e6", "0.30000000000000004", "0.3", "7", "7.00", "7.0", "1.00", "123456789012345678", "NA", "-2.50"}
	rng := rand.New(rand.NewPCG(7, 11))
	for k := range 3000 {
		raw := make([]string, 1+rng.IntN(6))
		for i := range raw {
			raw[i] = pool[rng.IntN(len(pool))]
		}
		df, err := ReadCSV(strings.NewReader("x\n"+strings.Join(raw, "\n")+"\n"), CSVOptions{})
		want := pairClash(raw)
		if got := errors.Is(err, ErrNumberSpelling); got != want || (err != nil && !got) {
			t.Fatalf("column %d %q: ReadCSV %v (type %v), want a clash: %v", k, raw, err, df.Types(), want)
		}
	}
}

// pairClash reports whether two cells, trimmed, differ as text but are
// one number of the type ReadCSV detects for the column.
func pairClash(raw []string) bool {
	isNA := map[string]bool{"": true, "?": true, "NA": true, "NaN": true}
	typ := detectType(raw, isNA)
	num := func(v string) (float64, bool) {
		if typ == series.Int {
			n, err := strconv.Atoi(v)
			return float64(n), err == nil && n < 1<<53
		}
		f, err := ParseNumber(v)
		return f, err == nil
	}
	for i, a := range raw {
		for _, b := range raw[:i] {
			x, okx := num(a)
			y, oky := num(b)
			if typ != series.String && !isNA[a] && !isNA[b] && okx && oky && strings.TrimSpace(a) != strings.TrimSpace(b) &&
				math.Float64bits(x) == math.Float64bits(y) {
				return true
			}
		}
	}
	return false
}

// TestRealDataOneSpelling: every column of the papers' CSV files whose
// type ReadCSV detects as numbers takes the spelling check's map-free fast
// path, and StrictKinds changes no column's type, so neither check changes
// what the loaders (and the figures) read.
func TestRealDataOneSpelling(t *testing.T) {
	dir := realDataDir(t)
	for _, f := range []struct {
		name string
		opts CSVOptions
	}{
		{"UCI_Credit_Card.csv", CSVOptions{}},
		{"insurance.csv", CSVOptions{}},
		{"sepsis_survival_primary_cohort.csv", CSVOptions{}},
		{"adult.data", CSVOptions{NoHeader: true, TrimSpace: true}},
		{"adult.test", CSVOptions{NoHeader: true, TrimSpace: true, SkipLines: 1}},
	} {
		t.Run(f.name, func(t *testing.T) {
			fh, err := os.Open(filepath.Join(dir, f.name))
			if err != nil {
				t.Skip(err)
			}
			defer fh.Close()
			header, rows, _, err := readRecords(fh, f.opts)
			if err != nil {
				t.Fatal(err)
			}
			isNA, raw := f.opts.missingSet(), make([]string, len(rows))
			for j, name := range header {
				for i, rec := range rows {
					raw[i] = rec[j]
				}
				if typ := detectType(raw, isNA); typ != series.String && !oneSpelling(typ, raw, isNA) {
					t.Errorf("column %q (%v) leaves the fast path", name, typ)
				}
			}
			lenient, errL := buildFrame(header, rows, make([]int, len(rows)), f.opts)
			f.opts.StrictKinds = true
			strict, errS := buildFrame(header, rows, make([]int, len(rows)), f.opts)
			if errL != nil || errS != nil || !slices.Equal(lenient.Types(), strict.Types()) {
				t.Errorf("lenient %v (%v), strict %v (%v)", lenient.Types(), errL, strict.Types(), errS)
			}
		})
	}
}
