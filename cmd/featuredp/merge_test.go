package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Three shards run as separate processes and merged give every CSV of the
// one-process run byte for byte (quick profile, small figures).
func TestShardsMergeByteIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds and runs the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "featuredp")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	figs := []string{"accounting", "bcdp-fig4-dimension", "smoothdp-fig2-pca", "corrdp-fig1a", "fdp-theory"}
	runBin := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			t.Fatalf("featuredp %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	var shards []string
	for _, k := range []string{"1", "2", "3"} {
		d := filepath.Join(dir, "shard"+k)
		runBin(append(append([]string{"reproduce"}, figs...), "--shard", k+"/3", "--workers", "1", "--out", d)...)
		shards = append(shards, d)
	}
	runBin(append([]string{"merge", "--out", filepath.Join(dir, "merged")}, shards...)...)
	runBin(append(append([]string{"reproduce"}, figs...), "--out", filepath.Join(dir, "whole"))...)
	whole, err := filepath.Glob(filepath.Join(dir, "whole", "*.csv"))
	if err != nil || len(whole) < 6 {
		t.Fatalf("%d CSVs from the whole run (%v)", len(whole), err)
	}
	for _, w := range whole {
		a, _ := os.ReadFile(w)
		b, err := os.ReadFile(filepath.Join(dir, "merged", filepath.Base(w)))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: merged CSV differs from the whole run (%v)", filepath.Base(w), err)
		}
	}
	// A missing shard is an error naming it.
	code, _, errs := runReproduceCLI("merge", "--out", filepath.Join(dir, "bad"), shards[0], shards[1])
	if code != 1 || !strings.Contains(errs, "a shard is missing") {
		t.Errorf("merge without shard 3: code %d, %s", code, errs)
	}
}

func TestShardUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"reproduce", "accounting", "--shard", "4/3"}, {"reproduce", "--shard", "x"}, {"merge"}} {
		if code, _, _ := runReproduceCLI(args...); code != 2 {
			t.Errorf("%v: code %d, want 2", args, code)
		}
	}
}

// shardDirs runs accounting-eps-vs-steps in three shards (in process)
// into dir/s1, s2, s3 and returns the directories.
func shardDirs(t *testing.T, dir string) []string {
	t.Helper()
	var dirs []string
	for _, k := range []string{"1", "2", "3"} {
		d := filepath.Join(dir, "s"+k)
		if code, _, errs := runReproduceCLI("reproduce", "accounting-eps-vs-steps", "--shard", k+"/3", "--workers", "1", "--out", d); code != 0 {
			t.Fatalf("shard %s/3: code %d\n%s", k, code, errs)
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// copyDir copies the regular files of src into a new directory dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// editManifest rewrites the manifest at path with edit applied to its
// fields; with resum, it records the checksum of the CSV beside it (as
// someone would who edits both files).
func editManifest(t *testing.T, path string, resum bool, edit func(m map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	if resum {
		csv, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".csv")
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(csv)
		m["csv"] = map[string]any{"rows": bytes.Count(csv, []byte("\n")) - 1, "bytes": len(csv), "sha256": hex.EncodeToString(h[:])}
	}
	if b, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every hostile merge of issue #25 exits 1 with a message naming the
// shard's file and what is wrong, and writes no figure.
func TestMergeRefusesHostileShardFiles(t *testing.T) {
	base := t.TempDir()
	shards := shardDirs(t, base)
	file := func(d, k, ext string) string {
		return filepath.Join(d, "s"+k, "accounting-eps-vs-steps.shard-"+k+"-of-3"+ext)
	}
	edit := func(path string, f func([]byte) []byte) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set := func(key string, v any) func(map[string]any) { return func(m map[string]any) { m[key] = v } }
	// The shards as written merge into the one-process CSV.
	whole := filepath.Join(base, "whole")
	if code, _, errs := runReproduceCLI("reproduce", "accounting-eps-vs-steps", "--out", whole); code != 0 {
		t.Fatalf("whole run: code %d\n%s", code, errs)
	}
	if code, _, errs := runReproduceCLI(append([]string{"merge", "--out", filepath.Join(base, "merged")}, shards...)...); code != 0 {
		t.Fatalf("merge: code %d\n%s", code, errs)
	}
	a, _ := os.ReadFile(filepath.Join(whole, "accounting-eps-vs-steps.csv"))
	b, err := os.ReadFile(filepath.Join(base, "merged", "accounting-eps-vs-steps.csv"))
	if err != nil || len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("merged CSV differs from the whole run's (%v)", err)
	}
	for i, tc := range []struct {
		name  string
		edit  func(d string)
		shard string // the shard the message names
		want  string
	}{
		{"CSV cut to its header", func(d string) {
			edit(file(d, "2", ".csv"), func(b []byte) []byte { return b[:bytes.IndexByte(b, '\n')+1] })
		}, "2", "does not match the manifest's checksum: it holds 0 rows"},
		{"CSV copied over another", func(d string) {
			edit(file(d, "2", ".csv"), func([]byte) []byte { b, _ := os.ReadFile(file(d, "1", ".csv")); return b })
		}, "2", "the CSV was cut, replaced or edited after shard 2/3 ran"},
		{"another figure's rows", func(d string) {
			edit(file(d, "2", ".csv"), func(b []byte) []byte {
				return bytes.ReplaceAll(b, []byte("\naccounting-eps-vs-steps,"), []byte("\naccounting-calibration,"))
			})
			editManifest(t, file(d, "2", ".json"), true, func(map[string]any) {})
		}, "2", `is of figure "accounting-calibration", not accounting-eps-vs-steps`},
		{"a _cell the manifest does not list", func(d string) {
			edit(file(d, "2", ".csv"), func(b []byte) []byte { return setFirstCell(t, b, "0") })
			editManifest(t, file(d, "2", ".json"), true, func(map[string]any) {})
		}, "2", "row 1 is of cell 0, which the manifest does not list (shard 2/3 of 102 cells)"},
		{"cells_total -1", func(d string) { editManifest(t, file(d, "2", ".json"), false, set("cells_total", -1)) },
			"2", `"cells_total" -1 is negative`},
		{"cells_total 9e18", func(d string) {
			edit(file(d, "3", ".json"), func(b []byte) []byte {
				return regexp.MustCompile(`"cells_total": \d+`).ReplaceAll(b, []byte(`"cells_total": 9000000000000000000`))
			})
		}, "3", "shard 3/3 of 9000000000000000000 cells has 3000000000000000000"},
		{"another featuredp build", func(d string) {
			editManifest(t, file(d, "3", ".json"), false, set("featuredp_version", "v0.0.1 go1.20"))
		},
			"3", `was written by featuredp "v0.0.1 go1.20"`},
		{"another profile", func(d string) {
			for _, k := range []string{"1", "2", "3"} {
				editManifest(t, file(d, k, ".json"), false, set("profile", "full"))
			}
		}, "1", "splits 102 cells, but figure accounting-eps-vs-steps has"},
		{"a manifest of an older featuredp", func(d string) {
			editManifest(t, file(d, "1", ".json"), false, func(m map[string]any) { delete(m, "format") })
		}, "1", `no "format" field`},
		{"a renamed shard", func(d string) {
			for _, ext := range []string{".json", ".csv"} {
				if err := os.Rename(file(d, "3", ext), filepath.Join(d, "s3", "accounting-eps-vs-steps.shard-2-of-3"+ext)); err != nil {
					t.Fatal(err)
				}
			}
			for _, ext := range []string{".json", ".csv"} {
				edit(filepath.Join(d, "s3", "accounting-eps-vs-steps.shard-2-of-3"+ext), func([]byte) []byte { b, _ := os.ReadFile(file(d, "1", ext)); return b })
			}
		}, "", "the manifest is of figure accounting-eps-vs-steps shard 1/3, which featuredp writes as accounting-eps-vs-steps.shard-1-of-3.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := filepath.Join(base, "case"+strconv.Itoa(i))
			var dirs []string
			for _, s := range shards {
				copyDir(t, s, filepath.Join(d, filepath.Base(s)))
				dirs = append(dirs, filepath.Join(d, filepath.Base(s)))
			}
			tc.edit(d)
			out := filepath.Join(d, "merged")
			code, _, errs := runReproduceCLI(append([]string{"merge", "--out", out}, dirs...)...)
			named := filepath.Join(d, "s3", "accounting-eps-vs-steps.shard-2-of-3.json")
			if tc.shard != "" {
				named = file(d, tc.shard, ".json")
			}
			if code != 1 || !strings.Contains(errs, named) || !strings.Contains(errs, tc.want) || strings.Contains(errs, "panic") {
				t.Errorf("code %d, stderr %q; want 1 and a message naming %s and containing %q", code, errs, named, tc.want)
			}
			if _, err := os.Stat(filepath.Join(out, "accounting-eps-vs-steps.csv")); err == nil {
				t.Error("the refused merge wrote the figure's CSV")
			}
		})
	}
}

// setFirstCell sets the _cell column of the first row of a shard CSV.
func setFirstCell(t *testing.T, b []byte, cell string) []byte {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("shard CSV: %v", err)
	}
	col := slices.Index(recs[0], "_cell")
	if col < 0 {
		t.Fatal("shard CSV without _cell")
	}
	recs[1][col] = cell
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	if err := w.WriteAll(recs); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// A shard manifest or CSV that is a named pipe (or a directory) is
// refused by name before it is opened; on the old code opening the pipe
// blocked for ever (this test timed out).
func TestMergeRefusesNonRegularShardFiles(t *testing.T) {
	for _, tc := range []struct{ name, ext string }{{"manifest pipe", ".json"}, {"CSV pipe", ".csv"}, {"manifest directory", ".json"}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			good := filepath.Join(dir, "accounting-eps-vs-steps.shard-1-of-1")
			for _, ext := range []string{".json", ".csv"} {
				if ext == tc.ext {
					continue
				}
				if err := os.WriteFile(good+ext, []byte("{}\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			bad := good + tc.ext
			if strings.HasSuffix(tc.name, "directory") {
				if err := os.Mkdir(bad, 0o755); err != nil {
					t.Fatal(err)
				}
			} else {
				mkfifo(t, bad)
			}
			type result struct {
				code int
				errs string
			}
			done := make(chan result, 1)
			go func() {
				code, _, errs := runReproduceCLI("merge", "--out", filepath.Join(dir, "out"), dir)
				done <- result{code, errs}
			}()
			select {
			case r := <-done:
				if r.code != 1 || !strings.Contains(r.errs, bad+" is not a regular file") {
					t.Errorf("code %d, stderr %q: want a refusal naming %s", r.code, r.errs, bad)
				}
			case <-time.After(10 * time.Second):
				// Release the blocked open so the test binary can end.
				if f, err := os.OpenFile(bad, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
				t.Fatalf("merge blocked on %s", bad)
			}
		})
	}
}
