package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/featuredp/featuredp/experiments"
)

// TestReproduceDiffusionQuick runs the diffusion study's three figures
// through the CLI (quick profile) and checks the smoke-scale
// acceptance: the non-private class-conditional samples are labelled with
// their class above chance and are well closer to the data than noise (FD
// below 0.7 of noise's; measured 0.40 and 0.55); every
// private run spent exactly its target ε; the sample grid is drawn.
func TestReproduceDiffusionQuick(t *testing.T) {
	if _, err := os.Stat("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"); err != nil && os.Getenv("FEATUREDP_DATA") == "" {
		t.Skip("Fashion-MNIST not installed (Debian dataset-fashion-mnist; make nb-deps)")
	}
	dir := t.TempDir()
	code, out, errs := runReproduceCLI("reproduce", "fdp-fig7", "fdp-fig8", "fdp-samples", "--out", dir, "--workers", "2")
	if code != 0 {
		t.Fatalf("code %d\nstdout %s\nstderr %s", code, out, errs)
	}
	read := func(id string) *experiments.Results {
		b, err := os.ReadFile(filepath.Join(dir, id+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := experiments.ReadCSV(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	mean := func(res *experiments.Results, series, metric string) float64 {
		var s float64
		n := 0
		for _, r := range res.Rows {
			if r.Method == series && r.X == 0 && r.Metric == metric {
				s += r.Value
				n++
			}
		}
		return s / float64(n)
	}
	fig7 := read("fdp-fig7")
	if acc := mean(fig7, "NonPrivate", "sample_accuracy"); !(acc > 0.1) {
		t.Errorf("non-private samples labelled with their class %.3f, want above chance (0.1)", acc)
	}
	for _, res := range []*experiments.Results{fig7, read("fdp-fig8")} {
		if np, noise := mean(res, "NonPrivate", "fd_classifier"), mean(res, "ref: N(0,I) noise", "fd_classifier"); !(np < 0.7*noise) {
			t.Errorf("non-private classifier-FD %.2f, noise %.2f", np, noise)
		}
		for _, r := range res.Rows {
			eps, ok := r.Number("epsilon")
			if !ok || r.Metric != "fd_classifier" || math.IsInf(eps, 1) || eps == 0 {
				continue
			}
			target := 8.0
			if r.Figure == "fdp-fig8" {
				target = 0.5
			}
			if math.Abs(eps-target) > 1e-6*target {
				t.Errorf("%s %s: spent ε %v, target %v", r.Figure, r.Method, eps, target)
			}
		}
	}
	png, err := os.ReadFile(filepath.Join(dir, "fdp-samples.png"))
	if err != nil || len(png) < 10000 {
		t.Errorf("sample grid: %d bytes, %v", len(png), err)
	}
}
