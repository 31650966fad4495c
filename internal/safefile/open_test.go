package safefile

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Open reads a regular file (through a symbolic link too) and refuses a
// directory and a link to one, naming the path and the fix.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file, link, dirLink := filepath.Join(dir, "rows.csv"), filepath.Join(dir, "link.csv"), filepath.Join(dir, "dirlink")
	must(t, os.WriteFile(file, []byte("a,b\n"), 0o644))
	must(t, os.Symlink(file, link))
	must(t, os.Symlink(dir, dirLink))
	for _, p := range []string{file, link} {
		fh, st, err := Open(p)
		if err != nil {
			t.Fatalf("Open %s: %v", filepath.Base(p), err)
		}
		b, err := io.ReadAll(fh)
		fh.Close()
		if err != nil || string(b) != "a,b\n" || st.Size() != 4 || !st.Mode().IsRegular() {
			t.Errorf("Open %s read %q (%v), size %d, mode %v", filepath.Base(p), b, err, st.Size(), st.Mode())
		}
	}
	for _, p := range []string{dir, dirLink} {
		fh, _, err := Open(p)
		if fh != nil || !IsNotRegular(err) || !strings.Contains(err.Error(), p+" is a directory, not a regular file: give a file") {
			t.Errorf("Open %s: %v, want a NotRegularError naming it", filepath.Base(p), err)
		}
	}
	if _, _, err := Open(filepath.Join(dir, "none")); err == nil || IsNotRegular(err) {
		t.Errorf("Open of a missing file: %v", err)
	}
}

// must fails the test on an error of its set-up.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
