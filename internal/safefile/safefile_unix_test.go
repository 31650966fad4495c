//go:build unix

package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/featuredp/featuredp/internal/safefile/swaptest"
)

// With overwrite, a named pipe (like a device: not a regular file) is
// written into, not replaced by a plain file.
func TestWriteIntoPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	// A reader that does not block: the write then finds it, and the few
	// bytes fit in the pipe's buffer.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := Write(fifo, true, writeString("into the pipe")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, _ := r.Read(buf); string(buf[:n]) != "into the pipe" {
		t.Errorf("the reader got %q", buf[:n])
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", fi.Mode(), err)
	}
}

// Replace writes a new file and replaces a regular one, but refuses a
// symbolic link (to a file, to nothing, to a directory) and a named pipe,
// leaving them and what they name as they were.
func TestReplace(t *testing.T) {
	for _, tc := range []struct {
		name    string
		plant   func(t *testing.T, path, victim string)
		refused bool
	}{
		{"new file", func(*testing.T, string, string) {}, false},
		{"regular file", func(t *testing.T, path, _ string) { must(t, os.WriteFile(path, []byte("old"), 0o644)) }, false},
		{"private file", func(t *testing.T, path, _ string) { must(t, os.WriteFile(path, []byte("old"), 0o600)) }, false},
		{"link to a file", func(t *testing.T, path, victim string) { must(t, os.Symlink(victim, path)) }, true},
		{"dangling link", func(t *testing.T, path, victim string) { must(t, os.Symlink(victim+".none", path)) }, true},
		{"named pipe", func(t *testing.T, path, _ string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Skipf("no named pipe here: %v", err)
			}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path, victim := filepath.Join(dir, "out.csv"), filepath.Join(dir, "victim")
			must(t, os.WriteFile(victim, []byte("precious"), 0o644))
			tc.plant(t, path, victim)
			before, _ := os.Lstat(path)
			err := Replace(path, writeString("new"))
			if got, _ := os.ReadFile(victim); string(got) != "precious" {
				t.Errorf("the file the link names was written: %q", got)
			}
			if tc.refused {
				after, _ := os.Lstat(path)
				if !errors.Is(err, ErrNotRegular) || after.Mode() != before.Mode() {
					t.Errorf("Replace: %v (mode %v → %v), want ErrNotRegular and the path left as it was", err, before.Mode(), after.Mode())
				}
				return
			}
			if got, rerr := os.ReadFile(path); err != nil || rerr != nil || string(got) != "new" {
				t.Errorf("Replace: %v; the file holds %q (%v)", err, got, rerr)
			}
			if after, _ := os.Lstat(path); before != nil && after.Mode().Perm() != before.Mode().Perm() {
				t.Errorf("permissions %v became %v", before.Mode().Perm(), after.Mode().Perm())
			}
		})
	}
}

// Write asked to overwrite a file keeps its permissions, as Replace does:
// a 0600 file of predictions (of private rows) or a model stays 0600
// instead of becoming 0644, and a symbolic link to a 0600 file is replaced
// by a 0600 file (the file it names left as it was); the temporary file is
// never more open than the file it replaces.
func TestWriteKeepsPermissions(t *testing.T) {
	dir := t.TempDir()
	user, link := filepath.Join(dir, "pred.csv"), filepath.Join(dir, "link.csv")
	if err := os.WriteFile(user, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(user, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(user, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, user} {
		var during os.FileMode
		err := Write(p, true, func(w io.Writer) error {
			if f, ok := w.(*os.File); ok {
				if st, err := f.Stat(); err == nil {
					during = st.Mode().Perm()
				}
			}
			_, err := io.WriteString(w, "new "+filepath.Base(p))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode() != 0o600 || during&^0o600 != 0 {
			t.Errorf("over %s: mode %v after, %v while writing; want a 0600 file", filepath.Base(p), st.Mode(), during)
		}
	}
	for p, want := range map[string]string{user: "new pred.csv", link: "new link.csv"} {
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("%s holds %q, want %q", filepath.Base(p), b, want)
		}
	}
}

// writeInto, which Write uses for a device or a named pipe, neither
// follows a symbolic link nor truncates a regular file put at the path
// after Write's check: on the old code it opened the path with O_TRUNC,
// following links, and wrote through.
func TestWriteIntoSwapped(t *testing.T) {
	dir := t.TempDir()
	victim, link := filepath.Join(dir, "victim"), filepath.Join(dir, "link")
	must(t, os.WriteFile(victim, []byte("precious"), 0o644))
	must(t, os.Symlink(victim, link))
	for _, p := range []string{link, victim} {
		if err := writeInto(p, writeString("x")); err == nil || !strings.Contains(err.Error(), "run again") {
			t.Errorf("writeInto %s: %v, want a refusal that says to run again", filepath.Base(p), err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the regular file holds %q", b)
	}
}

// openWithin runs Open(path) and fails the test if it does not return
// within 5 s (opening a named pipe without a writer blocks for ever).
func openWithin(t *testing.T, path string) error {
	t.Helper()
	var err error
	swaptest.Within(t, 5*time.Second, path, func() {
		var fh *os.File
		if fh, _, err = Open(path); fh != nil {
			fh.Close()
		}
	})
	return err
}

// Open refuses a named pipe and a link to one without blocking, and a
// pipe swapped in for a regular file at any moment never blocks it: the
// kind is checked on the file opened without blocking. Before Open, the
// callers stat'ed the path and then opened it, so a pipe swapped in
// between blocked them for ever.
func TestOpenSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo, link := filepath.Join(dir, "fifo"), filepath.Join(dir, "link")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	must(t, os.Symlink(fifo, link))
	for _, p := range []string{fifo, link} {
		if err := openWithin(t, p); !IsNotRegular(err) || !strings.Contains(err.Error(), p+" is not a regular file") || !strings.Contains(err.Error(), "save the data to a regular file") {
			t.Errorf("Open %s: %v, want a NotRegularError naming it and the fix", p, err)
		}
	}
	path := filepath.Join(dir, "swapped")
	swaptest.Swap(t, path, []byte("x"))
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		if err := openWithin(t, path); err != nil && !IsNotRegular(err) && !os.IsNotExist(err) {
			t.Fatalf("Open of the swapped path: %v", err)
		}
	}
}
