package data

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func gzNamed(t *testing.T, content []byte, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Name = name
	if _, err := zw.Write(content); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A gzip file verifies by its bytes or by its decompressed content (a
// recompressed copy, as Debian ships Fashion-MNIST); other content, a
// non-gzip file and a file without a content checksum do not.
func TestVerifyFileContent(t *testing.T) {
	dir := t.TempDir()
	content := []byte("the official content")
	official := gzNamed(t, content, "official-name")
	repacked := gzNamed(t, content, "")
	other := gzNamed(t, []byte("other content"), "")
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f := File{Name: "x.gz", SHA256: sha(official), ContentSHA256: sha(content)}
	bare := f
	bare.ContentSHA256 = ""
	for _, tc := range []struct {
		name string
		file File
		b    []byte
		want bool
	}{
		{"official bytes", f, official, true},
		{"recompressed, same content", f, repacked, true},
		{"recompressed, no content checksum", bare, repacked, false},
		{"other content", f, other, false},
		{"not gzip", f, content, false},
		{"truncated gzip", f, repacked[:len(repacked)-5], false},
	} {
		ok, got, err := verifyFile(write(tc.name, tc.b), tc.file)
		if err != nil || ok != tc.want || got != sha(tc.b) {
			t.Errorf("%s: ok %v (want %v), got %s, err %v", tc.name, ok, tc.want, got, err)
		}
	}
}

// A file is found in a sub-directory named after its dataset and in its
// System directory, after the usual places.
func TestLocateDatasetSubdirAndSystem(t *testing.T) {
	opts := isolated(t)
	data, root := t.TempDir(), t.TempDir()
	t.Setenv(EnvSystemData, root)
	also := filepath.Join(root, "sys")
	if err := os.Mkdir(also, 0o755); err != nil {
		t.Fatal(err)
	}
	opts.Dir = data
	content := []byte("labels")
	b := gzNamed(t, content, "")
	withRegistry(t, File{Name: "l.gz", SHA256: sha(b), Dataset: "set", System: "sys"})
	if _, ok := Locate("l.gz", opts); ok {
		t.Fatal("found before it exists")
	}
	if err := os.WriteFile(filepath.Join(also, "l.gz"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if p, ok := Locate("l.gz", opts); !ok || p != filepath.Join(also, "l.gz") {
		t.Fatalf("system dir: %q %v", p, ok)
	}
	if err := os.MkdirAll(filepath.Join(data, "set"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(data, "set", "l.gz")
	if err := os.WriteFile(sub, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if p, ok := Locate("l.gz", opts); !ok || p != sub {
		t.Fatalf("dataset sub-directory: %q %v, want %s first", p, ok, sub)
	}
	opts.Offline = true
	if p, err := Fetch("l.gz", opts); err != nil || p != sub {
		t.Fatalf("Fetch: %q %v", p, err)
	}
}

// Debian's copy of Fashion-MNIST (its gzip headers differ from the
// official files) verifies by content and loads through OpenFashionMNIST.
func TestOpenFashionMNISTDebianCopy(t *testing.T) {
	if _, err := os.Stat(filepath.Join(FashionMNISTDir, FashionMNISTFiles[0])); err != nil {
		t.Skipf("Fashion-MNIST test skipped: %s is absent (install the Debian package dataset-fashion-mnist, or `featuredp data fetch fashion-mnist`)", FashionMNISTDir)
	}
	opts := isolated(t)
	opts.Offline = true
	t.Setenv(EnvSystemData, DefaultSystemData)
	st, err := Status(opts)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range st {
		if s.Dataset == "fashion-mnist" {
			n++
			if !s.Verified || filepath.Dir(s.Path) != FashionMNISTDir {
				t.Errorf("%s: path %q verified %v", s.Name, s.Path, s.Verified)
			}
		}
	}
	if n != 4 {
		t.Fatalf("%d fashion-mnist files in the status", n)
	}
	fm, err := OpenFashionMNIST(opts)
	if err != nil {
		t.Fatal(err)
	}
	if fm.Train.N != 60000 || fm.Test.N != 10000 || fm.Train.Rows != 28 {
		t.Errorf("loaded %d + %d images of %d rows", fm.Train.N, fm.Test.N, fm.Train.Rows)
	}
}

// Without any copy and offline, OpenFashionMNIST names the fetch command.
func TestOpenFashionMNISTMissing(t *testing.T) {
	opts := isolated(t)
	opts.Offline = true
	t.Setenv(EnvSystemData, "")
	_, err := OpenFashionMNIST(opts)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("got %v, want ErrNotFound", err)
	}
}

// A download whose gzip wrapper differs from the official file but whose
// content matches (a mirror serving Debian's copy) is installed; one with
// other content is refused and leaves nothing behind.
func TestDownloadVerifiesContent(t *testing.T) {
	content := []byte("idx bytes")
	official := gzNamed(t, content, "official")
	repacked := gzNamed(t, content, "")
	bad := gzNamed(t, []byte("tampered"), "")
	srv := serve(t, map[string][]byte{"/ok.gz": repacked, "/bad.gz": bad})
	for _, tc := range []struct {
		path string
		ok   bool
	}{{"/ok.gz", true}, {"/bad.gz", false}} {
		opts := isolated(t)
		withRegistry(t, File{Name: "f.gz", SHA256: sha(official), ContentSHA256: sha(content), URL: srv.URL + tc.path})
		p, err := Fetch("f.gz", opts)
		if tc.ok != (err == nil) {
			t.Fatalf("%s: path %q err %v", tc.path, p, err)
		}
		if !tc.ok && !errors.Is(err, ErrChecksum) {
			t.Errorf("%s: %v, want ErrChecksum", tc.path, err)
		}
		if ents, _ := os.ReadDir(opts.CacheDir); tc.ok != (len(ents) == 1) {
			t.Errorf("%s: cache holds %d entries", tc.path, len(ents))
		}
	}
}
