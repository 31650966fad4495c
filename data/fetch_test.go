package data

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// withRegistry replaces the file registry for one test.
func withRegistry(t *testing.T, files ...File) {
	t.Helper()
	old := registry
	registry = files
	t.Cleanup(func() { registry = old })
}

// isolated returns Options that search only fresh temporary directories.
func isolated(t *testing.T) Options {
	t.Helper()
	t.Setenv(EnvDataDir, "")
	return Options{CacheDir: t.TempDir()}
}

func serve(t *testing.T, files map[string][]byte) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestFetchDownload(t *testing.T) {
	content := []byte("a,b\n1,2\n")
	withRegistry(t,
		File{Name: "good.csv", SHA256: sha(content), URL: "https://example.invalid/good.csv"},
		File{Name: "bad.csv", SHA256: sha([]byte("other")), URL: "https://example.invalid/bad.csv"},
		File{Name: "gone.csv", SHA256: sha(content), URL: "https://example.invalid/gone.csv"},
	)
	srv := serve(t, map[string][]byte{"/good.csv": content, "/bad.csv": content})
	opts := isolated(t)
	opts.HTTPClient = srv.Client()
	opts.URLs = map[string]string{
		"good.csv": srv.URL + "/good.csv", "bad.csv": srv.URL + "/bad.csv", "gone.csv": srv.URL + "/gone.csv",
	}

	t.Run("success", func(t *testing.T) {
		p, err := Fetch("good.csv", opts)
		if err != nil {
			t.Fatal(err)
		}
		if p != filepath.Join(opts.CacheDir, "good.csv") {
			t.Errorf("path %s", p)
		}
		if b, _ := os.ReadFile(p); !bytes.Equal(b, content) {
			t.Errorf("content %q", b)
		}
		// Now cached: found even offline.
		off := opts
		off.Offline = true
		if p2, err := Fetch("good.csv", off); err != nil || p2 != p {
			t.Errorf("cached fetch: %s %v", p2, err)
		}
	})
	t.Run("checksum mismatch", func(t *testing.T) {
		_, err := Fetch("bad.csv", opts)
		if !errors.Is(err, ErrChecksum) {
			t.Fatalf("got %v", err)
		}
		for _, w := range []string{"expected SHA-256 " + sha([]byte("other")), "got " + sha(content), "deleted"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not mention %q", err, w)
			}
		}
		for _, f := range leftovers(t, opts.CacheDir) {
			if f != "good.csv" {
				t.Errorf("left behind %s", f)
			}
		}
	})
	t.Run("404", func(t *testing.T) {
		_, err := Fetch("gone.csv", opts)
		if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), EnvDataDir) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("unknown file", func(t *testing.T) {
		_, err := Fetch("nope.csv", opts)
		if err == nil || !strings.Contains(err.Error(), "known: good.csv, bad.csv, gone.csv") {
			t.Fatalf("got %v", err)
		}
	})
}

func makeZip(t *testing.T, members map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, b := range members {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFetchZip(t *testing.T) {
	primary := []byte("age_years,sex_0male_1female,episode_number,hospital_outcome_1alive_0dead\n21,1,1,1\n")
	study := []byte("age_years,sex_0male_1female,episode_number,hospital_outcome_1alive_0dead\n7,1,1,0\n")
	const zipURL = "https://example.invalid/sepsis.zip"
	withRegistry(t,
		File{Name: "p_primary.csv", SHA256: sha(primary), URL: zipURL, ZipMember: "p_primary.csv"},
		File{Name: "p_study.csv", SHA256: sha(study), URL: zipURL, ZipMember: "p_study.csv"},
	)
	good := makeZip(t, map[string][]byte{
		"dir/":                                nil,
		"dir/s41598_p_primary.csv":            primary,
		"__MACOSX/dir/._s41598_p_primary.csv": []byte("junk"),
		"dir/s41598_p_study.csv":              study,
	})
	corrupt := makeZip(t, map[string][]byte{"p_primary.csv": []byte("tampered")})
	empty := makeZip(t, map[string][]byte{"readme.txt": []byte("hi")})
	srv := serve(t, map[string][]byte{"/good.zip": good, "/corrupt.zip": corrupt, "/empty.zip": empty, "/notzip": []byte("PK? no")})

	tests := []struct {
		name string
		path string
		is   error
		want string
	}{
		{"extraction", "/good.zip", nil, ""},
		{"member checksum", "/corrupt.zip", ErrChecksum, "expected SHA-256 " + sha(primary)},
		{"no member", "/empty.zip", ErrDownload, "no member named *p_primary.csv"},
		{"not a zip", "/notzip", ErrDownload, "not a valid zip"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := isolated(t)
			opts.HTTPClient = srv.Client()
			opts.URLs = map[string]string{"p_primary.csv": srv.URL + tc.path}
			p, err := Fetch("p_primary.csv", opts)
			if tc.is != nil {
				if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %v, want %v mentioning %q", err, tc.is, tc.want)
				}
				if left := leftovers(t, opts.CacheDir); len(left) != 0 {
					t.Errorf("left behind %v", left)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(p); !bytes.Equal(b, primary) {
				t.Errorf("extracted %q", b)
			}
			// The sibling cohort was extracted from the same archive.
			if b, err := os.ReadFile(filepath.Join(opts.CacheDir, "p_study.csv")); err != nil || !bytes.Equal(b, study) {
				t.Errorf("sibling: %q %v", b, err)
			}
			if left := leftovers(t, opts.CacheDir); len(left) != 2 {
				t.Errorf("cache holds %v, want the two CSVs only", left)
			}
		})
	}
}

func TestFetchLocal(t *testing.T) {
	content := []byte("x\n1\n")
	withRegistry(t,
		File{Name: "f.csv", SHA256: sha(content), URL: "https://example.invalid/f.csv"},
		File{Name: "manual.csv", SHA256: sha(content), URL: "https://example.invalid/m.zip", Manual: "convert the workbook by hand"},
	)
	write := func(dir string, b []byte) string {
		p := filepath.Join(dir, "f.csv")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	t.Run("env path list", func(t *testing.T) {
		opts := isolated(t)
		a, b := t.TempDir(), t.TempDir()
		want := write(b, content)
		t.Setenv(EnvDataDir, a+string(os.PathListSeparator)+b)
		opts.Offline = true
		if p, err := Fetch("f.csv", opts); err != nil || p != want {
			t.Errorf("got %s %v, want %s", p, err, want)
		}
	})
	t.Run("Dir before env", func(t *testing.T) {
		opts := isolated(t)
		opts.Dir = t.TempDir()
		want := write(opts.Dir, content)
		env := t.TempDir()
		write(env, content)
		t.Setenv(EnvDataDir, env)
		if p, err := Fetch("f.csv", opts); err != nil || p != want {
			t.Errorf("got %s %v, want %s", p, err, want)
		}
	})
	t.Run("local mismatch", func(t *testing.T) {
		opts := isolated(t)
		opts.Dir = t.TempDir()
		p := write(opts.Dir, []byte("edited\n"))
		_, err := Fetch("f.csv", opts)
		if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "AllowUnverified") {
			t.Fatalf("got %v", err)
		}
		opts.AllowUnverified = true
		if got, err := Fetch("f.csv", opts); err != nil || got != p {
			t.Errorf("AllowUnverified: %s %v", got, err)
		}
	})
	t.Run("offline and missing", func(t *testing.T) {
		opts := isolated(t)
		opts.Dir = t.TempDir()
		opts.Offline = true
		_, err := Fetch("f.csv", opts)
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("got %v", err)
		}
		for _, w := range []string{"f.csv", opts.Dir, "$FEATUREDP_DATA (unset)", opts.CacheDir, "Offline", "https://example.invalid/f.csv", "Options.Dir"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not mention %q", err, w)
			}
		}
	})
	t.Run("manual", func(t *testing.T) {
		opts := isolated(t)
		opts.HTTPClient = &http.Client{Transport: failingTransport{t}}
		_, err := Fetch("manual.csv", opts)
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "convert the workbook by hand") ||
			!strings.Contains(err.Error(), "cannot be downloaded automatically") {
			t.Fatalf("got %v", err)
		}
	})
}

// failingTransport fails the test if any request is made.
type failingTransport struct{ t *testing.T }

func (f failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.t.Errorf("unexpected request to %s", r.URL)
	return nil, errors.New("no network in tests")
}

func TestRegistry(t *testing.T) {
	reg := Registry()
	if len(reg) != 11 {
		t.Fatalf("%d files", len(reg))
	}
	for _, f := range reg {
		if len(f.SHA256) != 64 || f.URL == "" || f.Dataset == "" || f.Licence == "" {
			t.Errorf("%s: incomplete entry %+v", f.Name, f)
		}
		if f.ContentSHA256 != "" && len(f.ContentSHA256) != 64 {
			t.Errorf("%s: content checksum %q", f.Name, f.ContentSHA256)
		}
	}
	for _, name := range FashionMNISTFiles {
		if f, ok := LookupFile(name); !ok || f.Dataset != "fashion-mnist" || f.ContentSHA256 == "" || f.Manual != "" {
			t.Errorf("%s: want a downloadable fashion-mnist entry with a content checksum, got %+v (known %v)", name, f, ok)
		}
	}
	if f, ok := LookupFile("UCI_Credit_Card.csv"); !ok || f.Manual == "" {
		t.Error("credit must be a manual download")
	}
	reg[0].Name = "changed"
	if f, _ := LookupFile("adult.data"); f.Name != "adult.data" {
		t.Error("Registry returned the internal slice")
	}
}
