package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
