package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/release"
)

// TestReleaseProgram runs the program, as the README says, on the table
// examples/patients writes: it trains, signs, saves, loads, verifies and
// predicts (the prediction for a private row and the accuracy on the
// private rows marked as not for publication), shows an edited
// certificate refused, leaves a signed version-2 model file and no key
// file (the throwaway pair lives in the temporary directory and is
// removed), and a second run refuses to replace the model file.
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
	tmp := t.TempDir()
	run := exec.Command(bin, "patients.csv", "model.json")
	run.Dir = dir
	run.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("release: %v\n%s", err, out)
	}
	f, err := release.Load(filepath.Join(dir, "model.json"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != release.SignedFileVersion || f.Signer() == "" {
		t.Errorf("the model file is not signed: version %d, signer %q", f.Version, f.Signer())
	}
	for _, want := range []string{"feature-dp with respect to a simulator", "| private release | true |", "saved model.json", "accuracy on the file",
		"computed on the private rows without privacy (not for publication): P(yes) of the first row",
		"signed by " + f.Signer() + ", verified with its public key", "edited certificate refused: release: the signature of key " + f.Signer() + " does not cover"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, d := range []string{dir, tmp} {
		names, err := filepath.Glob(filepath.Join(d, "*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if b := filepath.Base(n); b != "release" && b != "patients.csv" && b != "model.json" {
				t.Errorf("the program left %s behind", n)
			}
		}
	}
	again := exec.Command(bin, "patients.csv", "model.json")
	again.Dir = dir
	if out, err := again.CombinedOutput(); err == nil || !strings.Contains(string(out), "exists") {
		t.Errorf("a second run replaced the model file: %v\n%s", err, out)
	}
}
