package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/featuredp/featuredp/dpnb"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/eta"
)

// A test-only figure that needs a dataset nobody has, to exercise skipping.
func init() {
	experiments.MustRegister(experiments.Figure{
		ID: "corrdp-testonly-needs-data", Paper: "corrdp", Title: "test figure needing data",
		Datasets: []string{"no-such-file.csv"},
		Cells: func(experiments.Profile) ([]experiments.Cell, error) {
			return []experiments.Cell{{Method: "m", X: 1}}, nil
		},
		Run: func(context.Context, experiments.Cell, experiments.Env) ([]experiments.Measurement, error) {
			return []experiments.Measurement{{Metric: "v", Value: 1}}, nil
		},
	})
}

func runReproduceCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestReproduceList(t *testing.T) {
	t.Setenv("FEATUREDP_DATA", "")
	code, out, errs := runReproduceCLI("reproduce", "--list")
	if code != 0 || errs != "" {
		t.Fatalf("code %d, stderr %q", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(experiments.Figures()) {
		t.Errorf("%d lines for %d figures:\n%s", len(lines), len(experiments.Figures()), out)
	}
	if !strings.Contains(out, "accounting-eps-vs-steps") || !strings.Contains(out, "ε of DP-SGD versus steps") {
		t.Errorf("list lacks the accounting figure:\n%s", out)
	}
	if !strings.Contains(out, "[needs no-such-file.csv; 1 missing]") {
		t.Errorf("list does not show datasets:\n%s", out)
	}
	// Flags after a positional argument, selection by paper.
	code, out, _ = runReproduceCLI("reproduce", "accounting", "--list")
	if code != 0 || strings.Contains(out, "corrdp-") || !strings.Contains(out, "accounting-eps-vs-steps") {
		t.Errorf("paper selection: code %d\n%s", code, out)
	}
}

func TestReproduceAccountingFigure(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runReproduceCLI("reproduce", "accounting-eps-vs-steps", "--out", dir, "--workers", "2", "--profile", "quick")
	if code != 0 {
		t.Fatalf("code %d\nstdout %s\nstderr %s", code, out, errs)
	}
	if !strings.Contains(errs, "accounting-eps-vs-steps: ") || strings.Contains(errs, "\r") {
		t.Errorf("expected plain progress lines on a non-terminal stderr, got %q", errs)
	}
	for _, ext := range []string{".csv", ".png", ".svg"} {
		b, err := os.ReadFile(filepath.Join(dir, "accounting-eps-vs-steps"+ext))
		if err != nil || len(b) < 1000 {
			t.Fatalf("%s: %d bytes, %v", ext, len(b), err)
		}
		if ext == ".png" && !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
			t.Error("PNG magic missing")
		}
		if ext == ".csv" {
			res, err := experiments.ReadCSV(bytes.NewReader(b))
			if err != nil || len(res.Rows) == 0 {
				t.Fatalf("CSV does not read back: %v", err)
			}
		}
	}
	report, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# featuredp reproduce", "randomness: reproducible (seeded; not a private release)", "## Summary", "| accounting-eps-vs-steps | ran | ", " agree, 0 disagree |",
		"## accounting-eps-vs-steps", "Paper vs this run", "7.32911117", "![accounting-eps-vs-steps](accounting-eps-vs-steps.png)"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// A second run into the same directory replaces the report: one header,
	// one summary, one section.
	if code, _, errs := runReproduceCLI("reproduce", "accounting-eps-vs-steps", "--out", dir, "--workers", "2"); code != 0 {
		t.Fatalf("second run: code %d, stderr %s", code, errs)
	}
	again, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# featuredp reproduce", "## Summary", "## accounting-eps-vs-steps"} {
		if n := strings.Count(string(again), want); n != 1 {
			t.Errorf("second report holds %q %d times, want once", want, n)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "report.md.tmp")); err == nil {
		t.Error("temporary report left behind")
	}
}

func TestClaimsSummary(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		cs   []dpnb.Comparison
		want string
	}{
		{"none", nil, "none reported"},
		{"agree", []dpnb.Comparison{{Quantity: "a", Paper: 1, Ours: 1.05}}, "1 agree, 0 disagree"},
		{"disagree", []dpnb.Comparison{{Quantity: "acc", Paper: 0.69, Ours: 0.86}, {Quantity: "b", Paper: 2, Ours: 2}},
			"1 agree, 1 disagree (acc: paper 0.69, this run 0.86)"},
		{"tolerance", []dpnb.Comparison{{Quantity: "acc", Paper: 0.69, Ours: 0.86, Tol: 0.3}}, "1 agree, 0 disagree"},
		{"not computed", []dpnb.Comparison{{Quantity: "x", Paper: 1, Ours: nan}}, "0 agree, 0 disagree, 1 not computed"},
	} {
		if got := claimsSummary(tc.cs); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestReproduceSkipsMissingData(t *testing.T) {
	t.Setenv("FEATUREDP_DATA", "")
	dir := t.TempDir()
	code, out, errs := runReproduceCLI("reproduce", "corrdp-testonly-needs-data", "--out", dir)
	if code != 0 {
		t.Fatalf("code %d, stderr %q", code, errs)
	}
	if !strings.Contains(errs, "skipped corrdp-testonly-needs-data: needs no-such-file.csv, not found in $FEATUREDP_DATA (unset)") ||
		!strings.Contains(errs, "put no-such-file.csv in the data directory") {
		t.Errorf("stderr %q", errs)
	}
	if !strings.Contains(out, "skipped 1 for missing data") {
		t.Errorf("stdout %q", out)
	}
	report, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.Contains(string(report), "| corrdp-testonly-needs-data | skipped: needs no-such-file.csv") {
		t.Errorf("report:\n%s", report)
	}
	if _, err := os.Stat(filepath.Join(dir, "corrdp-testonly-needs-data.csv")); err == nil {
		t.Error("a skipped figure wrote a CSV")
	}
}

func TestReproduceUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"nope"}, `unknown figure or paper "nope" (valid: all, accounting, bcdp, corrdp`},
		{[]string{"--profile", "medium", "--list"}, `unknown profile "medium"`},
		{[]string{"--workers", "0", "--list"}, "--workers must be at least 1"},
		{[]string{"--workers", "two"}, "invalid value"},
		{[]string{"--bogus"}, "flag provided but not defined"},
		{[]string{"--data", "/nonexistent/dir", "--list"}, "is not a directory"},
		{[]string{"--out", "", "--list"}, "--out must not be empty"},
	}
	for _, tc := range cases {
		code, out, errs := runReproduceCLI(append([]string{"reproduce"}, tc.args...)...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: code %d, stdout %q, stderr %q (want one line containing %q)", tc.args, code, out, errs, tc.want)
		}
	}
	code, out, _ := runReproduceCLI("reproduce", "-h")
	if code != 0 || !strings.Contains(out, "usage: featuredp reproduce") || !strings.Contains(out, "-profile") {
		t.Errorf("-h: code %d, %q", code, out)
	}
}

// runBar feeds a bar (not a terminal) counting unit of workers workers
// the reports 0, 1, …, total, report done at(done) after the start on a
// fake clock, and returns what the bar printed.
func runBar(unit string, workers, total int, at func(done int) time.Duration) string {
	var b bytes.Buffer
	bar := newProgressBar(&b, "fig")
	bar.counting(unit, workers)
	t0 := time.Now()
	var tick time.Time
	bar.start, bar.now = t0, func() time.Time { return tick }
	for done := 0; done <= total; done++ {
		tick = t0.Add(at(done))
		bar.update(done, total)
	}
	bar.finish(true)
	return b.String()
}

func TestReproduceProgressBar(t *testing.T) {
	got := runBar("cells", 1, 8, func(done int) time.Duration { return time.Duration(done) * 10 * time.Second }) // 10 s per cell
	want := "fig: 2/8 cells (25%), elapsed 20s, about 1m00s left\nfig: 4/8 cells (50%), elapsed 40s, about 40s left\n" +
		"fig: 6/8 cells (75%), elapsed 1m00s, about 20s left\nfig: 8/8 cells (100%), elapsed 1m20s\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Steps (a lock-step figure's unit) come after a setup: the time left is
// at the pace of the steps (1 a second, here after a 60 s setup), not of
// the setup and the steps together (the 25% line would say 4m30s).
func TestReproduceProgressBarSteps(t *testing.T) {
	got := runBar("steps", 2, 120, func(done int) time.Duration {
		if done == 0 {
			return 0
		}
		return time.Duration(60+done) * time.Second
	})
	want := "fig: 30/120 steps (25%), elapsed 1m30s, about 1m30s left\nfig: 60/120 steps (50%), elapsed 2m00s, about 1m00s left\n" +
		"fig: 90/120 steps (75%), elapsed 2m30s, about 30s left\nfig: 120/120 steps (100%), elapsed 3m00s\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Every registered figure has a measured full-profile wall time, and the
// estimate names the long ones.
func TestFullWallTimeKnown(t *testing.T) {
	for _, f := range experiments.Figures() {
		if _, ok := fullWallTime[f.ID]; !ok && !strings.Contains(f.ID, "testonly") {
			t.Errorf("%s has no measured full-profile wall time in fullWallTime (expected.go)", f.ID)
		}
	}
	var b bytes.Buffer
	fdp, _ := experiments.Select([]string{"fdp"})
	printExpected(&b, fdp)
	for _, id := range []string{"fdp-fig4", "fdp-fig7"} {
		if want := id + " ≈ " + eta.Format(fullWallTime[id]); !strings.Contains(b.String(), want) {
			t.Errorf("%q lacks %q", b.String(), want)
		}
	}
	if !strings.Contains(b.String(), "measured on "+referenceCPU) {
		t.Errorf("%q does not say which CPU the times were measured on", b.String())
	}
}

// Cells of two workers whose first cells wait for a shared 60 s setup
// (corrdp-fig1c's calibration), finish together at 61 s, and then one
// every 0.5 s: the 25% line says the 15 s left at the workers' pace, not
// 3m15s (the setup counted as cell time: the estimate before).
func TestReproduceProgressBarCellsAfterSetup(t *testing.T) {
	got := runBar("cells", 2, 40, func(done int) time.Duration {
		if done == 0 {
			return 0
		}
		return 61*time.Second + time.Duration(max(done-2, 0))*500*time.Millisecond
	})
	want := "fig: 10/40 cells (25%), elapsed 1m05s, about 15s left\nfig: 20/40 cells (50%), elapsed 1m10s, about 10s left\n" +
		"fig: 30/40 cells (75%), elapsed 1m15s, about 5s left\nfig: 40/40 cells (100%), elapsed 1m20s\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
