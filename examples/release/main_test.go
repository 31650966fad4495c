package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReleaseProgram runs the program, as the README says, on the table
// examples/patients writes: it trains, saves, loads and predicts (the
// prediction for a private row and the accuracy on the private rows
// marked as not for publication), and a
// second run refuses to replace the model file.
func TestReleaseProgram(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the program is not run")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "release")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	csv, err := exec.Command("go", "run", "../patients").Output()
	if err != nil {
		t.Fatalf("go run ../patients: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "patients.csv"), csv, 0o644); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(bin, "patients.csv", "model.json")
	run.Dir = dir
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("release: %v\n%s", err, out)
	}
	for _, want := range []string{"feature-dp with respect to a simulator", "| private release | true |", "saved model.json", "accuracy on the file",
		"computed on the private rows without privacy (not for publication): P(yes) of the first row"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	again := exec.Command(bin, "patients.csv", "model.json")
	again.Dir = dir
	if out, err := again.CombinedOutput(); err == nil || !strings.Contains(string(out), "exists") {
		t.Errorf("a second run replaced the model file: %v\n%s", err, out)
	}
}
