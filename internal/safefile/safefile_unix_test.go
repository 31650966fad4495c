//go:build unix

package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
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

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Write asked to overwrite a file keeps its permissions, as Replace does:
// a 0600 file of predictions (of private rows) or a model stays 0600
// instead of becoming 0644, and so does the file a symbolic link names;
// the temporary file is never more open than the file it replaces.
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
	for _, p := range []string{user, link} {
		var during os.FileMode
		err := Write(p, true, func(w io.Writer) error {
			if f, ok := w.(*os.File); ok {
				if st, err := f.Stat(); err == nil {
					during = st.Mode().Perm()
				}
			}
			_, err := io.WriteString(w, "new")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(user)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 || during&^0o600 != 0 {
			t.Errorf("over %s: mode %v after, %v while writing; want 0600", filepath.Base(p), st.Mode().Perm(), during)
		}
	}
}
