package data

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A mirror serves every file by name, plain: also a registry file that is
// normally a zip member or has no automatic download. Progress sees every
// byte, and an interrupted download leaves no file behind.
func TestFetchMirrorProgressInterrupted(t *testing.T) {
	content := []byte("x,y\n1,2\n3,4\n")
	withRegistry(t,
		File{Name: "member.csv", SHA256: sha(content), URL: "https://example.invalid/a.zip", ZipMember: "member.csv"},
		File{Name: "manual.csv", SHA256: sha(content), URL: "https://example.invalid/", Manual: "by hand"},
		File{Name: "cut.csv", SHA256: sha(content), URL: "https://example.invalid/cut.csv"},
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/m/member.csv", "/m/manual.csv":
			w.Write(content)
		case "/m/cut.csv": // promises more bytes than it sends, then hangs up
			w.Header().Set("Content-Length", strconv.Itoa(10*len(content)))
			w.Write(content)
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					c.Close()
				}
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	opts := isolated(t)
	opts.HTTPClient, opts.Mirror = srv.Client(), srv.URL+"/m/"
	var last, total int64
	opts.Progress = func(d, tot int64) { last, total = d, tot }
	for _, name := range []string{"member.csv", "manual.csv"} {
		p, err := Fetch(name, opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b, _ := os.ReadFile(p); !bytes.Equal(b, content) {
			t.Errorf("%s: content %q", name, b)
		}
	}
	if last != int64(len(content)) || total != int64(len(content)) {
		t.Errorf("progress %d of %d, want %d of %d", last, total, len(content), len(content))
	}
	if _, err := Fetch("cut.csv", opts); !errors.Is(err, ErrDownload) {
		t.Errorf("interrupted download: %v", err)
	}
	if _, err := os.Stat(filepath.Join(opts.CacheDir, "cut.csv")); err == nil {
		t.Error("an interrupted download left cut.csv")
	}
	for _, f := range leftovers(t, opts.CacheDir) {
		if f != "member.csv" && f != "manual.csv" {
			t.Errorf("left behind %s", f)
		}
	}
	if p, ok := Locate("member.csv", opts); !ok || filepath.Base(p) != "member.csv" {
		t.Errorf("Locate: %q %v", p, ok)
	}
	st, err := Status(opts)
	if err != nil || len(st) != 3 || !st[0].Verified || st[2].Path != "" {
		t.Errorf("Status: %+v %v", st, err)
	}
}

// A dataset path that is a device or a pipe is an error, not an endless
// read: Fetch used to hash a link to /dev/zero forever.
func TestFetchRegularFilesOnly(t *testing.T) {
	withRegistry(t, File{Name: "x.csv", SHA256: sha([]byte("x")), URL: "https://example.invalid/x.csv"})
	for _, tc := range []struct {
		name string
		make func(p string) error
	}{
		{"link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"named pipe", makeFifo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := isolated(t)
			opts.Dir, opts.Offline = t.TempDir(), true
			if err := tc.make(filepath.Join(opts.Dir, "x.csv")); err != nil {
				t.Skip(err)
			}
			done := make(chan error, 1)
			go func() { _, err := Fetch("x.csv", opts); done <- err }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), "not a regular file") {
					t.Errorf("error %v, want \"not a regular file\"", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Fetch did not return within 5 s")
			}
			if _, ok := Locate("x.csv", opts); ok {
				t.Error("Locate accepted a non-regular file")
			}
		})
	}
}

// The checksum error says how to fix the file, for the command line and
// for Go code.
func TestFetchChecksumMessage(t *testing.T) {
	withRegistry(t, File{Name: "x.csv", SHA256: sha([]byte("x")), URL: "https://example.invalid/x.csv"})
	opts := isolated(t)
	opts.Dir, opts.Offline = t.TempDir(), true
	if err := os.WriteFile(filepath.Join(opts.Dir, "x.csv"), []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Fetch("x.csv", opts)
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "featuredp data fetch x.csv") || !strings.Contains(err.Error(), "AllowUnverified") {
		t.Errorf("error %v", err)
	}
}
