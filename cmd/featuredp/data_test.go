package main

import (
	"compress/gzip"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/experiments"
)

// emptyPlaces leaves the data commands no data directory and an empty
// cache, and returns the cache directory.
func emptyPlaces(t *testing.T) string {
	t.Helper()
	t.Setenv("FEATUREDP_DATA", "")
	t.Setenv(data.EnvSystemData, "") // no Debian dataset directory either
	xdg := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", xdg)
	return filepath.Join(xdg, "featuredp")
}

func dataListJSON(t *testing.T) []dataRecord {
	t.Helper()
	code, out, errs := runReproduceCLI("data", "list", "--json")
	if code != 0 {
		t.Fatalf("data list: code %d, stderr %s", code, errs)
	}
	var recs []dataRecord
	if err := json.Unmarshal([]byte(out), &recs); err != nil {
		t.Fatalf("data list --json: %v\n%s", err, out)
	}
	return recs
}

func TestDataListMissing(t *testing.T) {
	emptyPlaces(t)
	recs := dataListJSON(t)
	if len(recs) != len(data.Registry()) {
		t.Fatalf("%d records, want %d", len(recs), len(data.Registry()))
	}
	for _, r := range recs {
		if r.Status != "missing" || r.URL == "" || r.SHA256 == "" || r.Licence == "" || r.Dataset == "" {
			t.Errorf("%+v", r)
		}
	}
	code, out, _ := runReproduceCLI("data", "list")
	if code != 0 || !strings.Contains(out, "adult.data") || !strings.Contains(out, "featuredp data fetch adult") ||
		!strings.Contains(out, "featuredp data fetch fashion-mnist") {
		t.Errorf("data list: %d\n%s", code, out)
	}
}

func TestDataUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"data"}, {"data", "frobnicate"}, {"data", "fetch"}, {"data", "fetch", "adult.dat"}, {"data", "list", "--bogus"}} {
		if code, _, _ := runReproduceCLI(args...); code != 2 {
			t.Errorf("%v: code %d, want 2", args, code)
		}
	}
}

// Without a mirror, a file without a stable download prints the manual
// steps and its checksum.
func TestDataFetchManual(t *testing.T) {
	emptyPlaces(t)
	code, _, errs := runReproduceCLI("data", "fetch", "insurance.csv")
	f, _ := data.LookupFile("insurance.csv")
	if code != 1 || !strings.Contains(errs, "get it by hand") || !strings.Contains(errs, f.SHA256) {
		t.Errorf("code %d\n%s", code, errs)
	}
}

// A mirror that serves wrong bytes, nothing, or half a file: every fetch
// fails with its reason and leaves nothing in the cache.
func TestDataFetchFailures(t *testing.T) {
	cache := emptyPlaces(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/adult.data":
			w.Write([]byte("not the adult data\n"))
		case "/train-labels-idx1-ubyte.gz": // gzip, but of other content
			zw := gzip.NewWriter(w)
			zw.Write([]byte("not the labels"))
			zw.Close()
		case "/adult.test", "/t10k-images-idx3-ubyte.gz":
			w.Header().Set("Content-Length", "1000000")
			w.Write([]byte("half"))
			if hj, ok := w.(http.Hijacker); ok {
				if c, _, err := hj.Hijack(); err == nil {
					c.Close()
				}
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	code, _, errs := runReproduceCLI("data", "fetch", "adult.data", "adult.test", "insurance.csv", "fashion-mnist", "--mirror", srv.URL)
	if code != 1 {
		t.Errorf("code %d, want 1", code)
	}
	for _, want := range []string{"checksum mismatch", "download failed", "404", "7 of 7 files not fetched",
		"train-labels-idx1-ubyte.gz downloaded from", "t10k-images-idx3-ubyte.gz: data: download failed: reading",
		"t10k-labels-idx1-ubyte.gz: data: download failed: GET"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if ents, _ := os.ReadDir(cache); len(ents) != 0 {
		t.Errorf("the cache holds %d entries after failed downloads", len(ents))
	}
}

// With a local mirror of the real files, `data fetch all` makes every
// dataset present and verified, and then no figure lacks data.
func TestDataFetchAllFromMirror(t *testing.T) {
	src := os.Getenv("FEATUREDP_DATA")
	if src == "" {
		t.Skip("FEATUREDP_DATA unset: no real datasets to serve as a mirror")
	}
	// The mirror serves the CSVs of FEATUREDP_DATA and Debian's copy of
	// Fashion-MNIST (recompressed: verified by its content).
	mirror := t.TempDir()
	for _, f := range data.Registry() {
		from := filepath.Join(src, f.Name)
		if f.Dataset == "fashion-mnist" {
			from = filepath.Join(data.FashionMNISTDir, f.Name)
		}
		if _, err := os.Stat(from); err != nil {
			t.Skipf("%s not in FEATUREDP_DATA or %s", f.Name, data.FashionMNISTDir)
		}
		if err := os.Symlink(from, filepath.Join(mirror, f.Name)); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(mirror)))
	defer srv.Close()
	emptyPlaces(t)
	for _, fig := range experiments.Figures() {
		if len(fig.Datasets) > 0 && len(fig.MissingDatasets("")) == 0 {
			t.Fatalf("%s has its data before the fetch", fig.ID)
		}
	}
	if code, out, errs := runReproduceCLI("data", "fetch", "all", "--mirror", srv.URL); code != 0 {
		t.Fatalf("code %d\n%s\n%s", code, out, errs)
	}
	for _, r := range dataListJSON(t) {
		if r.Status != "present" || !r.Verified {
			t.Errorf("%s: %s", r.Name, r.Status)
		}
	}
	for _, fig := range experiments.Figures() {
		if strings.Contains(fig.ID, "testonly") {
			continue // this package's test figure needs a file no registry has
		}
		if m := fig.MissingDatasets(""); len(m) > 0 {
			t.Errorf("%s still lacks %v", fig.ID, m)
		}
	}
	code, out, _ := runReproduceCLI("data", "fetch", "adult.data")
	if code != 0 || !strings.Contains(out, "present and verified") {
		t.Errorf("second fetch: %d %s", code, out)
	}
}

// A dataset name fetches all its files; an unknown name lists the datasets.
func TestDataFetchDataset(t *testing.T) {
	src := os.Getenv("FEATUREDP_DATA")
	if src == "" {
		t.Skip("FEATUREDP_DATA unset: no real datasets to serve as a mirror")
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(src)))
	defer srv.Close()
	emptyPlaces(t)
	code, out, errs := runReproduceCLI("data", "fetch", "adult", "--mirror", srv.URL)
	if code != 0 || strings.Count(out, "downloaded and verified") != 2 {
		t.Fatalf("fetch adult: code %d\n%s\n%s", code, out, errs)
	}
	code, _, errs = runReproduceCLI("data", "fetch", "adlut")
	if code != 2 || !strings.Contains(errs, "datasets: adult, credit, insurance, sepsis, fashion-mnist") {
		t.Errorf("unknown dataset: code %d, %s", code, errs)
	}
}

// On a machine with no dataset anywhere (no FEATUREDP_DATA, an empty
// cache, no Debian dataset directory) the Fashion-MNIST figures are
// skipped with the command that gets their data, and reproduce exits 0
// (#28: they used to fail and make `make reproduce` exit 2).
func TestReproduceWithoutAnyData(t *testing.T) {
	emptyPlaces(t)
	out := filepath.Join(t.TempDir(), "res")
	ids := []string{"fdp-fig7", "fdp-samples", "fdp-fig7-eps", "fdp-fig8"}
	code, stdout, errs := runReproduceCLI(append([]string{"reproduce", "--out", out}, ids...)...)
	if code != 0 {
		t.Fatalf("code %d\n%s\n%s", code, stdout, errs)
	}
	for _, id := range ids {
		if !strings.Contains(errs, "skipped "+id+": needs train-images-idx3-ubyte.gz") {
			t.Errorf("%s not reported as skipped:\n%s", id, errs)
		}
	}
	if !strings.Contains(errs, "`featuredp data fetch fashion-mnist`") || !strings.Contains(stdout+errs, "skipped 4 for missing data") {
		t.Errorf("no fetch command or summary:\n%s\n%s", stdout, errs)
	}
	code, list, _ := runReproduceCLI("reproduce", "--list")
	if code != 0 || !strings.Contains(list, "fdp-fig7 ") || !strings.Contains(list, "[needs train-images-idx3-ubyte.gz") {
		t.Errorf("--list does not say what fdp-fig7 needs:\n%s", list)
	}
}
