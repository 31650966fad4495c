package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeProgram checks that README.md shows this program verbatim and
// that it runs, as the README says, on the table examples/patients writes.
func TestReadmeProgram(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, append(append([]byte("```go\n"), src...), "```"...)) {
		t.Fatal("README.md does not hold examples/owndata/main.go verbatim in a ```go block: copy the file into the README")
	}
	if testing.Short() {
		t.Skip("-short: the program is not run")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "owndata")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	gen := exec.Command("go", "run", "../patients")
	csv, err := gen.Output()
	if err != nil {
		t.Fatalf("go run ../patients: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "patients.csv"), csv, 0o644); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(bin, "patients.csv")
	run.Dir = dir
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("owndata: %v\n%s", err, out)
	}
	for _, want := range []string{"**DP vs feature DP.**", "CorrDP vs Semi vs Standard on your data", "**BCDP mean estimation**"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "feature-dp.png")); err != nil || st.Size() < 1000 {
		t.Errorf("feature-dp.png: %v", err)
	}
}
