package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// Write creates a new file, refuses an existing one (a file, a dangling
// link) unless asked, replaces it when asked, and leaves no temporary file
// behind, a failed write included.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	user, link, fresh := filepath.Join(dir, "user"), filepath.Join(dir, "link"), filepath.Join(dir, "fresh")
	if err := os.WriteFile(user, []byte("user data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{user, link} {
		if err := Write(p, false, writeString("new")); !errors.Is(err, fs.ErrExist) {
			t.Errorf("over %s: %v, want fs.ErrExist", filepath.Base(p), err)
		}
	}
	if b, _ := os.ReadFile(user); string(b) != "user data" {
		t.Fatal("the user file changed")
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("the dangling link's target was created")
	}
	if err := Write(fresh, false, writeString("fresh")); err != nil {
		t.Fatal(err)
	}
	if err := Write(user, true, writeString("replaced")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Write(filepath.Join(dir, "failed"), false, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); err != boom {
		t.Errorf("a failed write returned %v, want its own error", err)
	}
	for p, want := range map[string]string{user: "replaced", fresh: "fresh"} {
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("%s holds %q, want %q", filepath.Base(p), b, want)
		}
	}
	// The mode os.WriteFile(…, 0o644) gives, not os.CreateTemp's 0600.
	plain := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(fresh)
	pi, _ := os.Stat(plain)
	if fi.Mode().Perm() != pi.Mode().Perm() {
		t.Errorf("mode %v, want %v (0644 less the umask)", fi.Mode().Perm(), pi.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("%d entries in the directory, want user, link and fresh alone", len(ents))
	}
}

// A file that appears between Write's check and its move is not replaced:
// the move without overwrite is a hard link, which fails on an existing
// path.
func TestPlaceNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	tmp, user := filepath.Join(dir, "tmp"), filepath.Join(dir, "user")
	for p, b := range map[string]string{tmp: "model", user: "user data"} {
		if err := os.WriteFile(p, []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Move(tmp, user, false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Move over a file: %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(user); string(b) != "user data" {
		t.Fatal("the user file changed")
	}
	if err := Move(tmp, user, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(user); string(b) != "model" {
		t.Errorf("overwrite: %q", b)
	}
}

// With overwrite, a symbolic link is replaced by the new file and never
// followed: the file it names keeps its content (on the old code the write
// went through the link into that file), a failed write leaves the link
// as it was, and a dangling link is replaced too (a named pipe:
// safefile_unix_test.go).
func TestWriteIntoSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	if err := os.WriteFile(target, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Write(link, true, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); err != boom {
		t.Errorf("a failed write over the link: %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("a failed write replaced the link: %v %v", fi.Mode(), err)
	}
	if err := Write(link, true, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the link was not replaced by a file: %v %v", fi.Mode(), err)
	}
	for p, want := range map[string]string{target: "precious", link: "new"} {
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("%s holds %q, want %q", filepath.Base(p), b, want)
		}
	}
	dangling := filepath.Join(t.TempDir(), "dangling")
	if err := os.Symlink(filepath.Join(dir, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	if err := Write(dangling, true, writeString("x")); err != nil {
		t.Errorf("a dangling link with overwrite: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); !errors.Is(err, fs.ErrNotExist) {
		t.Error("the dangling link's target was created")
	}
	if err := Write(dir, true, writeString("x")); err == nil || !strings.Contains(err.Error(), dir+" is a directory: give a file path") {
		t.Errorf("over a directory: %v, want a refusal naming it", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d entries in the directory, want target and link alone", len(ents))
	}
}
