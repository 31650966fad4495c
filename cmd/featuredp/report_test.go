package main

import (
	"encoding/json"
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
	} {
		all := append([]string{"report", "--csv", path, "--sensitive", "s", "--label", "y", "--levels-from-data", "--bounds-from-data"}, args...)
		if code, _, errs := runReproduceCLI(all...); code != 2 || errs == "" {
			t.Errorf("%v: code %d, stderr %q", args, code, errs)
		}
	}
}
