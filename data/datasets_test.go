package data

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func count(y []float64, v float64) int {
	n := 0
	for _, x := range y {
		if x == v {
			n++
		}
	}
	return n
}

func realOpts(t *testing.T) Options {
	dir := realDataDir(t)
	return Options{Dir: dir, Offline: true, CacheDir: t.TempDir()}
}

func TestRealAdult(t *testing.T) {
	opts := realOpts(t)
	raw, err := LoadAdult(Options{Dir: opts.Dir, Offline: true, CacheDir: opts.CacheDir, KeepMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	if raw.RawRows != 48842 || raw.Frame.Nrow() != 48842 {
		t.Errorf("raw rows %d / %d, want 48,842", raw.RawRows, raw.Frame.Nrow())
	}
	noQ, n, err := DropMissing(raw.Frame)
	if err != nil || noQ.Nrow() != 45222 || n != 3620 {
		t.Errorf("after dropping \"?\": %d rows (%d dropped), want 45,222: %v", noQ.Nrow(), n, err)
	}
	dedup, n, err := Deduplicate(noQ)
	if err != nil || dedup.Nrow() != 45175 || n != 47 {
		t.Errorf("after Deduplicate: %d rows (%d dropped), want 45,175: %v", dedup.Nrow(), n, err)
	}

	opts.Deduplicate = true
	ds, err := LoadAdult(opts)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Frame.Nrow() != 45175 || ds.DroppedMissing != 3620 || ds.DroppedDuplicates != 47 {
		t.Errorf("LoadAdult(Deduplicate): %d rows, dropped %d + %d", ds.Frame.Nrow(), ds.DroppedMissing, ds.DroppedDuplicates)
	}
	enc, err := Encode(ds.Frame, ds.Schema, EncodeOptions{Scale: MinMax})
	if err != nil {
		t.Fatal(err)
	}
	if pos := count(enc.Y, 1); pos != 11202 {
		t.Errorf("%d positives, want 11,202", pos)
	}
	// The CorrDP paper's encoding: 31 columns, 16 sensitive.
	if enc.D != 31 || count(boolsToFloats(enc.Sensitive), 1) != 16 {
		t.Errorf("D = %d, sensitive %d; want 31, 16 (columns %v)", enc.D, count(boolsToFloats(enc.Sensitive), 1), enc.Columns)
	}
	if !slices.Equal(enc.Classes, []string{"<=50K", ">50K"}) {
		t.Errorf("classes %v", enc.Classes)
	}
	for _, v := range enc.X {
		if v < 0 || v > 1 {
			t.Fatalf("MinMax value %v outside [0,1]", v)
		}
	}
}

func boolsToFloats(b []bool) []float64 {
	out := make([]float64, len(b))
	for i, v := range b {
		if v {
			out[i] = 1
		}
	}
	return out
}

func TestRealCredit(t *testing.T) {
	ds, err := LoadCredit(realOpts(t))
	if err != nil {
		t.Fatal(err)
	}
	if ds.Frame.Nrow() != 30000 || ds.Frame.Ncol() != 24 {
		t.Fatalf("%dx%d, want 30,000x24", ds.Frame.Nrow(), ds.Frame.Ncol())
	}
	enc, err := Encode(ds.Frame, ds.Schema, EncodeOptions{Scale: MinMax})
	if err != nil {
		t.Fatal(err)
	}
	if d := count(enc.Y, 1); d != 6636 {
		t.Errorf("%d defaults, want 6,636", d)
	}
	if s := count(boolsToFloats(enc.FeatureSensitive), 1); s != 19 {
		t.Errorf("%d sensitive raw features, want 19", s)
	}
}

func TestRealSepsis(t *testing.T) {
	opts := realOpts(t)
	for _, tc := range []struct {
		cohort Cohort
		rows   int
	}{{SepsisPrimary, 110204}, {SepsisStudy, 19051}, {SepsisValidation, 137}} {
		ds, err := LoadSepsis(tc.cohort, opts)
		if err != nil {
			t.Fatal(err)
		}
		if ds.Frame.Nrow() != tc.rows {
			t.Errorf("%v: %d rows, want %d", tc.cohort, ds.Frame.Nrow(), tc.rows)
		}
		if tc.cohort != SepsisPrimary {
			continue
		}
		enc, err := Encode(ds.Frame, ds.Schema, EncodeOptions{Scale: MinMax})
		if err != nil {
			t.Fatal(err)
		}
		if dead := count(enc.Y, 0); dead != 8105 || enc.D != 3 {
			t.Errorf("primary: %d dead (want 8,105), D = %d (want 3)", dead, enc.D)
		}
	}
}

func TestRealInsurance(t *testing.T) {
	opts := realOpts(t)
	ds, err := LoadInsurance(opts)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Frame.Nrow() != 1338 {
		t.Errorf("%d rows, want 1,338", ds.Frame.Nrow())
	}
	opts.Deduplicate = true
	ds, err = LoadInsurance(opts)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Frame.Nrow() != 1337 {
		t.Errorf("deduplicated: %d rows, want 1,337", ds.Frame.Nrow())
	}
	enc, err := Encode(ds.Frame, ds.Schema, EncodeOptions{DropFirst: true, Scale: MinMax, LabelScale: ZScore})
	if err != nil {
		t.Fatal(err)
	}
	// The paper: 8 columns after drop-first one-hot, 3 sensitive.
	if enc.D != 8 || count(boolsToFloats(enc.Sensitive), 1) != 3 {
		t.Errorf("D = %d, sensitive %v (%v)", enc.D, enc.Sensitive, enc.Columns)
	}
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const fakeAdultRow = "39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K"

func TestLoadAdultSmallFiles(t *testing.T) {
	t.Setenv(EnvDataDir, "")
	dir := writeFiles(t, map[string]string{
		"adult.data": fakeAdultRow + "\n" + fakeAdultRow + "\n" +
			"50, ?, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, >50K\n\n",
		"adult.test": "|1x3 Cross validator\n" +
			"25, Private, 226802, 11th, 7, Never-married, Machine-op-inspct, Own-child, Black, Male, 0, 0, 40, United-States, >50K.\n" +
			strings.Replace(fakeAdultRow, "<=50K", "<=50K.", 1) + "\n",
	})
	opts := Options{Dir: dir, Offline: true, CacheDir: t.TempDir(), AllowUnverified: true}
	ds, err := LoadAdult(opts)
	if err != nil {
		t.Fatal(err)
	}
	if ds.RawRows != 5 || ds.DroppedMissing != 1 || ds.Frame.Nrow() != 4 {
		t.Errorf("raw %d, dropped %d, rows %d; want 5, 1, 4", ds.RawRows, ds.DroppedMissing, ds.Frame.Nrow())
	}
	if got := ds.Frame.Col("income").Records(); !slices.Equal(got, []string{"<=50K", "<=50K", ">50K", "<=50K"}) {
		t.Errorf("income %v (trailing dots not stripped?)", got)
	}
	opts.Deduplicate = true
	ds, err = LoadAdult(opts)
	if err != nil {
		t.Fatal(err)
	}
	// The test-file copy of the row equals the training rows once its "." is stripped.
	if ds.Frame.Nrow() != 2 || ds.DroppedDuplicates != 2 {
		t.Errorf("deduplicated rows %d (dropped %d), want 2", ds.Frame.Nrow(), ds.DroppedDuplicates)
	}
	if err := ds.Schema.Validate(ds.Frame); err != nil {
		t.Errorf("schema: %v", err)
	}
}

func TestLoaderErrors(t *testing.T) {
	t.Setenv(EnvDataDir, "")
	badLabel := writeFiles(t, map[string]string{"adult.data": strings.Replace(fakeAdultRow, "<=50K", "rich", 1) + "\n", "adult.test": "|x\n" + fakeAdultRow + "\n"})
	ragged := writeFiles(t, map[string]string{"adult.data": fakeAdultRow + "\n39, State-gov\n", "adult.test": "|x\n" + fakeAdultRow + "\n"})
	badAge := writeFiles(t, map[string]string{"adult.data": strings.Replace(fakeAdultRow, "39,", "old,", 1) + "\n", "adult.test": "|x\n" + fakeAdultRow + "\n"})
	creditWrong := writeFiles(t, map[string]string{"UCI_Credit_Card.csv": "LIMIT_BAL,SEX\n1,2\n"})
	tests := []struct {
		name string
		load func(Options) (*Dataset, error)
		dir  string
		want []string
	}{
		{"adult missing offline", LoadAdult, t.TempDir(), []string{"adult.data", "not available", "FEATUREDP_DATA", "archive.ics.uci.edu"}},
		{"adult bad label", LoadAdult, badLabel, []string{`income "rich"`, "line 1"}},
		{"adult ragged", LoadAdult, ragged, []string{"wrong number of fields", "adult.data"}},
		{"adult non-numeric age", LoadAdult, badAge, []string{`"age", line 1: "old" is not an integer`}},
		{"credit missing", LoadCredit, t.TempDir(), []string{"UCI_Credit_Card.csv", "cannot be downloaded automatically", ".xls"}},
		{"credit layout", LoadCredit, creditWrong, []string{"expected columns", "PAY_0", "has [LIMIT_BAL, SEX]"}},
		{"insurance missing", LoadInsurance, t.TempDir(), []string{"insurance.csv", "cannot be downloaded automatically"}},
		{"sepsis missing offline", func(o Options) (*Dataset, error) { return LoadSepsis(SepsisStudy, o) }, t.TempDir(),
			[]string{"sepsis_survival_study_cohort.csv", "Offline", "827"}},
		{"sepsis bad cohort", func(o Options) (*Dataset, error) { return LoadSepsis(Cohort(5), o) }, t.TempDir(),
			[]string{"unknown cohort Cohort(5)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.load(Options{Dir: tc.dir, Offline: true, CacheDir: t.TempDir(), AllowUnverified: true})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestLoadCreditKaggleLayout(t *testing.T) {
	t.Setenv(EnvDataDir, "")
	header := "ID," + strings.Join(CreditColumns[:23], ",") + ",default.payment.next.month\n"
	row := "1,20000.0,2,2,1,24,2,2,-1,-1,-2,-2,3913.0,3102.0,689.0,0.0,0.0,0.0,0.0,689.0,0.0,0.0,0.0,0.0,1\n"
	dir := writeFiles(t, map[string]string{"UCI_Credit_Card.csv": header + row + strings.Replace(row, "1,", "2,", 1)})
	ds, err := LoadCredit(Options{Dir: dir, Offline: true, CacheDir: t.TempDir(), AllowUnverified: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.Frame.Names(), CreditColumns) || ds.Frame.Nrow() != 2 {
		t.Errorf("columns %v rows %d", ds.Frame.Names(), ds.Frame.Nrow())
	}
	if err := ds.Schema.Validate(ds.Frame); err != nil {
		t.Error(err)
	}
}

func TestSchemasMatchPaper(t *testing.T) {
	tests := []struct {
		name                 string
		s                    Schema
		sensitive, public, n int
	}{
		{"adult", AdultSchema(), 5, 4, 15},
		{"credit", CreditSchema(), 19, 4, 24},
		{"insurance E.5", InsuranceSchema(), 3, 3, 7},
		{"insurance 5.2", InsuranceSchemaSec52(), 3, 3, 7},
		{"sepsis", SepsisSchema(), 1, 2, 4},
	}
	for _, tc := range tests {
		var s, p int
		for _, c := range tc.s.Columns {
			switch c.Role {
			case Sensitive:
				s++
			case Public:
				p++
			}
		}
		if s != tc.sensitive || p != tc.public || len(tc.s.Columns) != tc.n {
			t.Errorf("%s: %d sensitive, %d public, %d columns", tc.name, s, p, len(tc.s.Columns))
		}
		if _, ok := tc.s.Label(); !ok {
			t.Errorf("%s: no label", tc.name)
		}
	}
	if c, _ := InsuranceSchemaSec52().Lookup("smoker"); c.Role != Public {
		t.Error("Sec. 5.2 variant: smoker must be public")
	}
}
