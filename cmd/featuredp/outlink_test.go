package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// predict --out --force over a symbolic link replaces the link with the
// predictions and leaves the file it named as it was: on the old code the
// write went through the link (a link planted at --out in a shared
// directory redirected the forced write onto any file of the user's).
func TestPredictOutLinkNotFollowed(t *testing.T) {
	model, rows := releaseFixture(t)
	dir := t.TempDir()
	victim, link := filepath.Join(dir, "notes.txt"), filepath.Join(dir, "pred.csv")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	code, _, errs := runReproduceCLI("predict", "--model", model, "--csv", rows, "--out", link, "--force")
	if code != 0 {
		t.Fatalf("predict: code %d, %s", code, errs)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the file the link named holds %q", b)
	}
	st, err := os.Lstat(link)
	b, _ := os.ReadFile(link)
	if err != nil || !st.Mode().IsRegular() || !strings.HasPrefix(string(b), "prediction,") {
		t.Errorf("--out is %v (%v) holding %.40q, want a regular file of predictions", st.Mode(), err, b)
	}
}
