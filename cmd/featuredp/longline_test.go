package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file with one line longer than the default cap (4 MiB: here an
// ignored free-text column of 5 MiB) is refused by train and predict with
// an error naming the flag that raises the cap, --max-line-bytes, which
// both take (the error used to name CSVOptions.MaxLineBytes, a Go option
// the command line cannot set); with --max-line-bytes -1 both read it.
func TestTrainPredictLongLine(t *testing.T) {
	text, err := os.ReadFile(trainFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	lines[0] += ",note"
	for i := 1; i < len(lines); i++ {
		note := "n"
		if i == 5 {
			note = strings.Repeat("x", 5<<20)
		}
		lines[i] += "," + note
	}
	dir := t.TempDir()
	csv := filepath.Join(dir, "long.csv")
	if err := os.WriteFile(csv, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "m.json")
	train := trainArgs(csv, model, "--ignore", "note", "--reproducible")
	if code, _, errs := runReproduceCLI(train...); code != 2 || !strings.Contains(errs, "--max-line-bytes") {
		t.Errorf("train: code %d, want 2 and an error naming --max-line-bytes:\n%s", code, errs)
	}
	if code, out, errs := runReproduceCLI(append(train, "--max-line-bytes", "-1")...); code != 0 {
		t.Fatalf("train --max-line-bytes -1: code %d\n%s\n%s", code, out, errs)
	}
	predict := []string{"predict", "--model", model, "--csv", csv}
	if code, _, errs := runReproduceCLI(predict...); code != 2 || !strings.Contains(errs, "--max-line-bytes") {
		t.Errorf("predict: code %d, want 2 and an error naming --max-line-bytes:\n%s", code, errs)
	}
	if code, out, errs := runReproduceCLI(append(predict, "--max-line-bytes", "-1")...); code != 0 || strings.Count(out, "\n") != len(lines) {
		t.Errorf("predict --max-line-bytes -1: code %d, %d lines for %d rows\n%s", code, strings.Count(out, "\n"), len(lines)-1, errs)
	}
	for _, bad := range []string{"0", "-2"} {
		if code, _, errs := runReproduceCLI(append(predict, "--max-line-bytes", bad)...); code != 2 || !strings.Contains(errs, "--max-line-bytes") {
			t.Errorf("predict --max-line-bytes %s: code %d\n%s", bad, code, errs)
		}
	}
}
