package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrivacyReportCLI(t *testing.T) {
	dir := t.TempDir()
	csv := "s,copy,indep,y\n"
	for i := 0; i < 400; i++ {
		v := []string{"no", "yes"}[i%2]
		csv += v + "," + v + "," + []string{"a", "b", "c"}[(i/2)%3] + "," + []string{"no", "yes"}[(i/7)%2] + "\n"
	}
	path := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runReproduceCLI("report", "--csv", path, "--sensitive", "s", "--label", "y", "--levels-from-data")
	if code != 0 || !strings.Contains(out, "| copy | public | categorical | 1.000 (1.000) **leaks**") || !strings.Contains(out, "| s | sensitive |") {
		t.Fatalf("code %d\n%s\n%s", code, out, errs)
	}
	// The notes name the flags, not the library's fields, in every format;
	// without --ball the sensitive column gets no attribute-inference bound.
	for _, format := range []string{"markdown", "csv"} {
		code, out, errs := runReproduceCLI("report", "--csv", path, "--sensitive", "s", "--label", "y", "--levels-from-data",
			"--dedup", "--duplicates-from-data", "--format", format)
		text := out + errs
		if code != 0 || strings.Contains(text, "Report--") || strings.Contains(text, "ReportPipeline.") || strings.Contains(text, "ReportOptions.") ||
			!strings.Contains(text, "--max-duplicates") || !strings.Contains(text, "--ball s=P") {
			t.Errorf("%s: code %d, library names in the notes or no --ball hint:\n%s", format, code, text)
		}
	}
	code, out, _ = runReproduceCLI("report", "--csv", path, "--sensitive", "s", "--label", "y", "--format", "json", "--levels-from-data")
	var rows []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 4 {
		t.Fatalf("json: code %d\n%s", code, out)
	}
	for _, args := range [][]string{
		{"report", "--csv", path, "--sensitive", "ss", "--label", "y"},
		{"report", "--csv", path, "--sensitive", "s", "--label", "yy"},
		{"report", "--csv", path, "--sensitive", "s", "--label", "y", "--epsilon", "-1"},
		{"report", "--csv", path, "--sensitive", "s", "--label", "y", "--format", "xml"},
		{"report", "--sensitive", "s", "--label", "y"},
	} {
		if code, _, errs := runReproduceCLI(args...); code != 2 || errs == "" {
			t.Errorf("%v: code %d, stderr %q", args, code, errs)
		}
	}
}

// The pipeline flags: public bounds for one column leave the other's
// data-dependent bounds priced; imputation with a public bound; bad flags
// are errors.
func TestPrivacyReportCLIPipeline(t *testing.T) {
	dir := t.TempDir()
	csv := "s,age,income,y\n"
	for i := 0; i < 300; i++ {
		inc := []string{"10", "20", "35", "", "50"}[i%5]
		csv += []string{"no", "yes"}[i%2] + "," + []string{"20", "40", "60"}[i%3] + "," + inc + "," + []string{"no", "yes"}[(i/7)%2] + "\n"
	}
	path := filepath.Join(dir, "p.csv")
	if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runReproduceCLI("report", "--csv", path, "--sensitive", "s", "--label", "y", "--levels", "s=no|yes",
		"--bounds", "age=18:90", "--bounds-from-data", "--impute", "income", "--max-missing", "80")
	if code != 0 || !strings.Contains(out, "Planned pre-processing") || !strings.Contains(out, "mean imputation (m = 80)") ||
		!strings.Contains(out, "min–max scaling") {
		t.Fatalf("code %d\n%s\n%s", code, out, errs)
	}
	for _, args := range [][]string{
		{"--bounds", "age=90:18"},
		{"--bounds", "age"},
		{"--bounds", "agee=0:1"},
		{"--impute", "s"},
		{"--max-missing", "-1"},
		{"--impute", "income", "--max-missing", "59"}, // 60 records have no income
		{"--dedup"},
		{"--max-duplicates", "3"},
		{"--dedup", "--max-duplicates", "3", "--duplicates-from-data"},
		{"--dedup", "--max-duplicates", "-2"},
		{"--dedup", "--max-duplicates", "3", "--impute", "income", "--max-missing", "60"}, // groups of 7 identical records once imputed
	} {
		all := append([]string{"report", "--csv", path, "--sensitive", "s", "--label", "y", "--levels-from-data", "--bounds-from-data"}, args...)
		if code, _, errs := runReproduceCLI(all...); code != 2 || errs == "" {
			t.Errorf("%v: code %d, stderr %q", args, code, errs)
		}
	}
}

// --levels-from-data reads levels as the validation does: " male" and
// "male" are one level (two levels: a Ball of at least 1/2, not 1/4).
func TestPrivacyReportCLIObservedLevelsTrimmed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.csv")
	if err := os.WriteFile(path, []byte("sex,y\n male,1\nmale,0\nfemale,1\n female,0\nmale,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runReproduceCLI("report", "--csv", path, "--sensitive", "sex", "--label", "y", "--levels-from-data", "--format", "csv")
	if code != 0 || !strings.Contains(out, "1/2 holds only if sex is uniform") {
		t.Fatalf("code %d\n%s\n%s", code, out, errs)
	}
}

// A file written with ", " between fields: a column named without the
// spaces gets a hint to add --trim-space, in report, train and predict,
// and with it the names match.
func TestTrimSpaceFlag(t *testing.T) {
	dir := t.TempDir()
	path, model := filepath.Join(dir, "sp.csv"), filepath.Join(dir, "m.json")
	var b strings.Builder
	b.WriteString("age, sex, y\n")
	for i := range 60 {
		fmt.Fprintf(&b, "%d, %s, %d\n", 20+i, []string{"female", "male"}[i%2], (i/3)%2)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	report := []string{"report", "--csv", path, "--sensitive", "sex", "--label", "y", "--levels-from-data", "--format", "csv"}
	train := []string{"train", "--csv", path, "--label", "y", "--sensitive", "sex", "--public", "age", "--levels", "sex=female|male",
		"--levels", "y=0|1", "--bounds", "age=0:100", "--epsilon", "2", "--sample-rate", "0.5", "--out", model, "--reproducible", "--seed", "1"}
	predict := []string{"predict", "--model", model, "--csv", path}
	for _, args := range [][]string{report, train} {
		if code, _, errs := runReproduceCLI(args...); code != 2 || !strings.Contains(errs, "add --trim-space") {
			t.Errorf("%s without --trim-space: code %d, stderr %q", args[0], code, errs)
		}
		if code, _, errs := runReproduceCLI(append(args, "--trim-space")...); code != 0 {
			t.Errorf("%s --trim-space: code %d, stderr %q", args[0], code, errs)
		}
	}
	if code, _, errs := runReproduceCLI(predict...); code != 2 || !strings.Contains(errs, "add --trim-space") {
		t.Errorf("predict without --trim-space: code %d, stderr %q", code, errs)
	}
	if code, out, errs := runReproduceCLI(append(predict, "--trim-space")...); code != 0 || strings.Count(out, "\n") != 61 {
		t.Errorf("predict --trim-space: code %d, %d lines, stderr %q", code, strings.Count(out, "\n"), errs)
	}
}

// A column name of the data file that a spreadsheet would run as a
// formula is written with a leading quote in --format csv: no cell of the
// report starts a formula (the old code wrote =1+1 as it was).
func TestPrivacyReportCSVFormulaInjection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.csv")
	var b strings.Builder
	b.WriteString("s,=1+1,@x,y\n")
	for i := range 40 {
		fmt.Fprintf(&b, "%s,%s,%d,%d\n", []string{"no", "yes"}[i%2], []string{"a", "b"}[(i/2)%2], i, (i/3)%2)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runReproduceCLI("report", "--csv", path, "--sensitive", "s", "--label", "y", "--levels-from-data", "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil {
		t.Fatalf("code %d, %v\n%s\n%s", code, err, out, errs)
	}
	found := 0
	for _, r := range recs {
		for _, c := range r {
			if c != spreadsheetSafe(c) {
				t.Errorf("cell %q would run as a formula", c)
			}
			if c == "'=1+1" || c == "'@x" {
				found++
			}
		}
	}
	if found != 2 {
		t.Errorf("the columns =1+1 and @x: %d quoted cells, want 2\n%s", found, out)
	}
}
