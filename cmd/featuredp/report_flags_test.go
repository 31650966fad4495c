package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// reportFixture writes a small CSV: sensitive-looking sex, a copy of it,
// age (numeric), a column named "a,b" and the label y.
func reportFixture(t testing.TB) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("sex,copy,age,\"a,b\",y\n")
	for i := range 120 {
		sex := []string{"f", "m"}[i%2]
		b.WriteString(sex + "," + sex + "," + []string{"20", "40", "60"}[i%3] + "," + []string{"u", "v"}[(i/3)%2] + "," + []string{"0", "1"}[(i/5)%2] + "\n")
	}
	path := filepath.Join(t.TempDir(), "r.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Conflicting roles, invalid budgets and missing public levels or bounds
// are errors (exit 2) naming the flag: they used to be accepted silently
// (the label won over --sensitive, --ignore over --sensitive, ε = 0 and
// δ = 0 printed the defaults, levels and bounds were fitted on the file).
func TestPrivacyReportFlagErrors(t *testing.T) {
	path := reportFixture(t)
	base := []string{"report", "--csv", path, "--levels-from-data"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"sensitive label", []string{"--sensitive", "y", "--label", "y"}, `"y" is in both --label and --sensitive`},
		{"sensitive label among others", []string{"--sensitive", "copy,sex", "--label", "sex"}, `"sex" is in both --label and --sensitive`},
		{"ignore sensitive", []string{"--sensitive", "sex", "--label", "y", "--ignore", "sex"}, `"sex" is in both --sensitive and --ignore`},
		{"ignore label", []string{"--sensitive", "sex", "--label", "y", "--ignore", "y"}, `"y" is in both --label and --ignore`},
		{"epsilon 0", []string{"--sensitive", "sex", "--label", "y", "--epsilon", "0"}, "--epsilon 0"},
		{"epsilon NaN", []string{"--sensitive", "sex", "--label", "y", "--epsilon", "NaN"}, `invalid value "NaN" for flag --epsilon: want a finite plain decimal`},
		{"epsilon Inf", []string{"--sensitive", "sex", "--label", "y", "--epsilon", "+Inf"}, `invalid value "+Inf" for flag --epsilon: want a finite plain decimal`},
		{"delta 0", []string{"--sensitive", "sex", "--label", "y", "--delta", "0"}, "--delta 0"},
		{"delta 1", []string{"--sensitive", "sex", "--label", "y", "--delta", "1"}, "--delta 1"},
		{"empty name", []string{"--sensitive", "sex,,copy", "--label", "y"}, "empty name"},
		{"unknown sensitive", []string{"--sensitive", "sexx", "--label", "y"}, `--sensitive: no column "sexx"`},
		{"unknown level column", []string{"--sensitive", "sex", "--label", "y", "--levels", "sexx=f|m"}, `--levels: no column "sexx"`},
		{"levels of a number", []string{"--sensitive", "sex", "--label", "y", "--levels", "age=1|2"}, "--levels: column \"age\" is numeric"},
		{"bounds of a text column", []string{"--sensitive", "sex", "--label", "y", "--bounds", "copy=0:1", "--bounds-from-data"}, "--bounds: \"copy\" is not a continuous feature"},
		{"bounds of the label", []string{"--sensitive", "sex", "--label", "y", "--bounds", "y=0:1", "--bounds-from-data"}, "--bounds: \"y\""},
		{"infinite bounds", []string{"--sensitive", "sex", "--label", "y", "--bounds", "age=-Inf:1"}, "finite LO < HI"},
		{"bounds twice", []string{"--sensitive", "sex", "--label", "y", "--bounds", "age=0:1", "--bounds", "age=0:2"}, "bounds twice"},
		{"hex bound", []string{"--sensitive", "sex", "--label", "y", "--bounds", "age=0:0x1p7"}, "finite LO < HI"},
		{"underscore bound", []string{"--sensitive", "sex", "--label", "y", "--bounds", "age=0:1_000"}, "finite LO < HI"},
		{"max-missing without impute", []string{"--sensitive", "sex", "--label", "y", "--max-missing", "3"}, "give --impute"},
		{"cap 0", []string{"--sensitive", "sex", "--label", "y", "--max-bytes", "0"}, "--max-bytes 0"},
		{"stray argument", []string{"--sensitive", "sex", "--label", "y", "extra"}, `unexpected argument "extra"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runReproduceCLI(append(base, tc.args...)...)
			if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
				t.Errorf("code %d, stdout %q, stderr %q; want 2 and %q", code, out, errs, tc.want)
			}
		})
	}
}

// Without public levels or bounds the report refuses, naming the columns
// and both ways out; with the opt-in it states what it read from the data,
// first in markdown and in a column of csv and json (it used to fit the
// levels silently).
func TestPrivacyReportFromData(t *testing.T) {
	path := reportFixture(t)
	args := []string{"report", "--csv", path, "--sensitive", "sex", "--label", "y"}
	code, _, errs := runReproduceCLI(args...)
	if code != 2 || !strings.Contains(errs, `"sex", "copy", "a,b" have no public levels`) || !strings.Contains(errs, "--levels-from-data") {
		t.Errorf("no levels: code %d, stderr %q", code, errs)
	}
	pub := append(args, "--levels", `sex=f|m,copy=f|m,"a,b=u|v"`)
	code, _, errs = runReproduceCLI(append(pub, "--pipeline")...)
	if code != 2 || !strings.Contains(errs, `"age" have no public min–max bounds`) || !strings.Contains(errs, "--bounds-from-data") {
		t.Errorf("no bounds: code %d, stderr %q", code, errs)
	}
	code, out, errs := runReproduceCLI(append(pub, "--bounds", "age=18:90")...)
	if code != 0 || strings.Contains(out, "levels observed") || strings.Contains(out, "min–max bounds the planned") {
		t.Errorf("public levels and bounds: code %d, stderr %q\n%s", code, errs, out)
	}
	code, out, errs = runReproduceCLI(append(args, "--levels-from-data", "--bounds-from-data")...)
	first := strings.SplitN(out, "\n", 4)
	if code != 0 || len(first) < 3 || !strings.HasPrefix(first[2], "> **Read from the private data**") ||
		!strings.Contains(first[2], `levels observed in the data of "sex", "copy", "a,b"`) || !strings.Contains(first[2], `bounds the planned scaling takes from the data for "age"`) {
		t.Errorf("opt-in: code %d, stderr %q\n%s", code, errs, out)
	}
	code, out, errs = runReproduceCLI(append(args, "--levels-from-data", "--format", "csv")...)
	if code != 0 || !strings.Contains(out, ",read_from_private_data\n") || !strings.Contains(out, "sex,sensitive,categorical") ||
		!strings.Contains(out, ",levels\n") || !strings.Contains(errs, "read from the private data") {
		t.Errorf("csv: code %d, stderr %q\n%s", code, errs, out)
	}
}

// A column named "a,b" can be given to --sensitive in CSV quoting or by a
// repeated flag; the plain name says how (it could not be named at all).
func TestPrivacyReportQuotedColumn(t *testing.T) {
	path := reportFixture(t)
	for _, args := range [][]string{
		{"--sensitive", `"a,b"`},
		{"--sensitive", `sex, "a,b"`},
		{"--sensitive", "sex", "--sensitive", `"a,b"`},
	} {
		all := append([]string{"report", "--csv", path, "--label", "y", "--levels-from-data"}, args...)
		code, out, errs := runReproduceCLI(all...)
		if code != 0 || !strings.Contains(out, "| a,b | sensitive |") {
			t.Errorf("%q: code %d, stderr %q\n%s", args, code, errs, out)
		}
	}
	code, _, errs := runReproduceCLI("report", "--csv", path, "--label", "y", "--levels-from-data", "--sensitive", "a,b")
	if code != 2 || !strings.Contains(errs, `--sensitive '"a,b"'`) {
		t.Errorf("unquoted: code %d, stderr %q", code, errs)
	}
	code, _, errs = runReproduceCLI("report", "--csv", path, "--label", "y", "--sensitive", `a"b`)
	if code != 2 || !strings.Contains(errs, "CSV") {
		t.Errorf("bare quote: code %d, stderr %q", code, errs)
	}
}

// Hostile files end in an error naming --csv or the reading cap's flag,
// after bounded work: /dev/zero was read without end (8.5 GB in 10 s; it
// is now refused as not a regular file, before any read), a
// gzipped file gave "bare \" in non-quoted-field", a NUL header an
// invisible column list.
func TestPrivacyReportHostileFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("sex,y\nf,0\nm,1\n"))
	w.Close()
	wide := strings.Repeat("c,", 50) + "y\n"
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"gzip", []string{"--csv", write("g.csv.gz", gz.Bytes())}, "gzip-compressed; decompress it first"},
		{"NUL header", []string{"--csv", write("n.csv", []byte("\x00\x00,\x00\n1,2\n"))}, `header column 0 ("\x00\x00") contains a NUL byte`},
		{"wide", []string{"--csv", write("w.csv", []byte(wide)), "--max-columns", "20"}, "over the reading cap --max-columns 20"},
		{"cells", []string{"--csv", write("c.csv", []byte("sex,y\n"+strings.Repeat("f,0\n", 100))), "--max-cells", "50"}, "over the reading cap --max-cells 50"},
		{"bytes", []string{"--csv", write("b.csv", []byte("sex,y\n"+strings.Repeat("f,0\n", 100))), "--max-bytes", "100"}, "over the reading cap --max-bytes 100"},
		{"directory", []string{"--csv", dir}, "is a directory"},
		{"missing file", []string{"--csv", filepath.Join(dir, "none.csv")}, "--csv: open"},
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases = append(cases, struct {
			name string
			args []string
			want string
		}{"/dev/zero", []string{"--csv", "/dev/zero", "--max-line-bytes", "4096"}, "--csv /dev/zero is not a regular file"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			all := append([]string{"report", "--sensitive", "sex", "--label", "y"}, tc.args...)
			code, _, errs := runReproduceCLI(all...)
			if code != 2 || !strings.Contains(errs, tc.want) {
				t.Errorf("code %d, stderr %q; want 2 and %q", code, errs, tc.want)
			}
		})
	}
}

// `data list --data` with a missing directory or a plain file is an error
// naming --data; it used to list every file as missing.
func TestDataListBadDir(t *testing.T) {
	emptyPlaces(t)
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"data", "list", "--data", filepath.Join(t.TempDir(), "nonexistent")},
		{"data", "list", "--data", file},
		{"data", "fetch", "--data", file, "adult.data"},
	} {
		if code, out, errs := runReproduceCLI(args...); code != 2 || out != "" || !strings.Contains(errs, "--data") {
			t.Errorf("%q: code %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if code, _, errs := runReproduceCLI("data", "list", "--data", t.TempDir()); code != 0 {
		t.Errorf("existing directory: code %d, stderr %q", code, errs)
	}
}

// FuzzReportFlags runs the report on arbitrary CSV text and flag values:
// it never panics, exits 0 with output or 2 with an error that names a
// flag (every error is phrased with the flag to change).
func FuzzReportFlags(f *testing.F) {
	f.Add([]byte("s,u,y\nf,1,0\nm,2,1\nf,3,1\n"), "s", "y", "", "", "1", "1e-5", true, false)
	f.Add([]byte("s,u,y\nf,1,0\nm,2,1\n"), "y", "y", "s", "u=0:1", "0", "0", false, true)
	f.Add([]byte("\"a,b\",y\nx,0\nz,1\n"), "\"a,b\"", "y", "y", "", "NaN", "2", true, true)
	f.Add([]byte("\x1f\x8b\x00"), "a", "b", "", "a=1:0", "-1", "1", false, false)
	f.Fuzz(func(t *testing.T, csv []byte, sens, label, ignore, bounds, eps, delta string, levelsFromData, boundsFromData bool) {
		if len(csv) > 1<<12 {
			return
		}
		path := filepath.Join(t.TempDir(), "f.csv")
		if err := os.WriteFile(path, csv, 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"report", "--csv", path, "--sensitive", sens, "--label", label, "--epsilon", eps, "--delta", delta,
			"--max-cells", "400", "--max-columns", "8"}
		for _, opt := range []struct {
			flag, v string
		}{{"--ignore", ignore}, {"--bounds", bounds}} {
			if opt.v != "" {
				args = append(args, opt.flag, opt.v)
			}
		}
		if levelsFromData {
			args = append(args, "--levels-from-data")
		}
		if boundsFromData {
			args = append(args, "--bounds-from-data")
		}
		code, out, errs := runReproduceCLI(args...)
		switch code {
		case 0:
			if out == "" {
				t.Fatalf("exit 0 without output (stderr %q)", errs)
			}
		case 2:
			if !strings.HasPrefix(errs, "featuredp report: ") || !strings.Contains(errs, "--") {
				t.Fatalf("error %q does not name a flag", errs)
			}
		default:
			t.Fatalf("exit %d, stderr %q", code, errs)
		}
	})
}

// A wide file costs work linear in its width: the report read every
// column with gota's df.Col (which copies all the names: quadratic; 20 000
// text columns took 15 s, 10⁶ would take days). The bytes allocated per
// column stay bounded (deterministic, unlike timing); one df.Col per
// column allocates 16 bytes × width (320 kB) per column here.
func TestPrivacyReportWideLinear(t *testing.T) {
	const width = 20000
	var b strings.Builder
	for i := range width {
		fmt.Fprintf(&b, "c%d,", i)
	}
	b.WriteString("y\n")
	for r := range 4 {
		for i := range width {
			b.WriteString([]string{"a,", "b,"}[(i*r)%2])
		}
		fmt.Fprintf(&b, "%d\n", r%2)
	}
	path := filepath.Join(t.TempDir(), "wide.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	code, _, errs := runReproduceCLI("report", "--csv", path, "--sensitive", "c0", "--label", "y", "--levels-from-data", "--format", "csv")
	runtime.ReadMemStats(&after)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	perCol := (after.TotalAlloc - before.TotalAlloc) / width
	t.Logf("%d bytes per column", perCol)
	if perCol > 64<<10 {
		t.Errorf("%d bytes allocated per column at width %d, want a bounded amount (linear)", perCol, width)
	}
}

// One bad cell in a numeric column used to turn it categorical silently
// (#28): now it is an error naming the cells and the kind flags, and the
// flags settle the kind either way.
func TestPrivacyReportMixedKinds(t *testing.T) {
	var b strings.Builder
	b.WriteString("sex,income,y\n")
	for i := range 60 {
		income := fmt.Sprint(1000 + 10*i)
		if i == 7 {
			income = "12k"
		}
		b.WriteString([]string{"f", "m"}[i%2] + "," + income + "," + []string{"0", "1"}[(i/5)%2] + "\n")
	}
	runKindCases(t, b.String(), []kindCase{
		{"mixed", nil, 2, `column "income" is numeric but for 1 of 60 cells (line 9: "12k")`},
		{"mixed names the flags", nil, 2, "--categorical COL or --continuous COL"},
		{"continuous", []string{"--continuous", "income"}, 2, `column "income", line 9: "12k" is not`},
		{"categorical", []string{"--categorical", "income"}, 0, "income"},
		{"both kinds", []string{"--categorical", "income", "--continuous", "income"}, 2, "both --categorical and --continuous"},
		{"unknown column", []string{"--continuous", "incme"}, 2, `--categorical or --continuous names column "incme"`},
	})
}

// kindCase is one run of featuredp report on a file of columns sex and y
// (and others): extra flags, the exit code, and text the output holds.
type kindCase struct {
	name string
	args []string
	code int
	want string
}

// runKindCases writes text to a file and runs the report on it with sex
// sensitive and y the label, plus each case's flags.
func runKindCases(t *testing.T, text string, cases []kindCase) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kinds.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"report", "--csv", path, "--sensitive", "sex", "--label", "y", "--levels-from-data"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runReproduceCLI(append(base, tc.args...)...)
			if code != tc.code || !strings.Contains(out+errs, tc.want) {
				t.Errorf("code %d (want %d), stdout %q, stderr %q; want %q", code, tc.code, out, errs, tc.want)
			}
		})
	}
}

// A label (or feature) column that spells one number two ways ("01" and
// "1") used to be read as numbers, so its two spellings were one class,
// silently: now it is an error naming both cells and the kind flags, and
// --categorical keeps the spellings apart.
func TestPrivacyReportNumberSpelling(t *testing.T) {
	var b strings.Builder
	b.WriteString("sex,y\n")
	for i := range 60 {
		b.WriteString([]string{"f", "m"}[i%2] + "," + []string{"0", "1", "01"}[(i/5)%3] + "\n")
	}
	runKindCases(t, b.String(), []kindCase{
		{"two spellings", nil, 2, `column "y" reads as numbers, but line 7 ("1") and line 12 ("01") spell one number two ways`},
		{"names the flags", nil, 2, `add --categorical "y" to keep every spelling a category of its own, or --continuous "y" to read them as one number`},
		{"categorical", []string{"--categorical", "y"}, 0, "sex"},
	})
	// The fix is the flags, not the Go options a command-line user cannot
	// set (before: "CSVOptions.Types {"y": series.String} ... (malformed
	// CSV) (--categorical COL or --continuous COL)").
	path := filepath.Join(t.TempDir(), "s.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, errs := runReproduceCLI("report", "--csv", path, "--sensitive", "sex", "--label", "y", "--levels-from-data")
	for _, lib := range []string{"CSVOptions", "series.", "malformed CSV", "COL"} {
		if strings.Contains(errs, lib) {
			t.Errorf("stderr %q names %q", errs, lib)
		}
	}
}

// The three formats carry the same fields (#28): the json keys are the csv
// header, the markdown legend names every one of them, and the values the
// flags feed (--ball, --bcdp-level) reach all three.
func TestPrivacyReportFormatsComplete(t *testing.T) {
	path := reportFixture(t)
	base := []string{"report", "--csv", path, "--sensitive", "sex,age", "--label", "y", "--levels-from-data",
		"--ball", "age=0.125", "--bcdp-level", "sex=0.5,age=2", "--q", "0.1"}
	run := func(format string) string {
		code, out, errs := runReproduceCLI(append(base, "--format", format)...)
		if code != 0 {
			t.Fatalf("%s: code %d: %s", format, code, errs)
		}
		return out
	}
	md, csvOut, js := run("markdown"), run("csv"), run("json")
	header := strings.Split(strings.SplitN(csvOut, "\n", 2)[0], ",")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(js), &rows); err != nil || len(rows) == 0 {
		t.Fatalf("json: %v", err)
	}
	keys := slices.Sorted(maps.Keys(rows[0]))
	if !slices.Equal(keys, slices.Sorted(slices.Values(header))) {
		t.Errorf("json keys %v, csv header %v", keys, header)
	}
	for _, h := range header {
		if !strings.Contains(md, "`"+h+"`") {
			t.Errorf("the markdown legend does not name %s", h)
		}
	}
	var age map[string]any
	for _, r := range rows {
		if r["column"] == "age" {
			age = r
		}
	}
	if age == nil || age["bcdp_level"] != 2.0 || age["fdp_note"] != "Ball = 0.125 (given)" || age["corrdp_honest_eps"] == nil {
		t.Errorf("json row of age: %v", age)
	}
	if !strings.Contains(csvOut, "Ball = 0.125") || !strings.Contains(md, "Ball = 0.125") || !strings.Contains(md, "2 → ") {
		t.Errorf("--ball / --bcdp-level missing from csv or markdown:\n%s\n%s", csvOut, md)
	}
}

// --q is required with --bcdp-level (it used to default to 0, independent
// coordinates, without a word), --q 0 states independence explicitly, and
// the markdown prints the q the allocation used.
func TestPrivacyReportQRequired(t *testing.T) {
	base := []string{"report", "--csv", reportFixture(t), "--sensitive", "sex,age", "--label", "y", "--levels-from-data",
		"--bcdp-level", "sex=0.5,age=2"}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no --q", nil, 2, "--bcdp-level needs --q"},
		{"--q 0", []string{"--q", "0"}, 0, "q = 0 (assumed: independent coordinates)"},
		{"--q 1", []string{"--q", "1"}, 0, "q = 1 (assumed correlation bound of Assumption 1)"},
		{"--q 1.5", []string{"--q", "1.5"}, 2, "correlation bound q in [0, 1]"},
		{"--q NaN", []string{"--q", "NaN"}, 2, "correlation bound q in [0, 1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runReproduceCLI(append(base, tc.args...)...)
			if code != tc.code || !strings.Contains(out+errs, tc.want) {
				t.Errorf("code %d (want %d), stdout %q, stderr %q; want %q", code, tc.code, out, errs, tc.want)
			}
		})
	}
}
