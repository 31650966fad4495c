package figures

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/experiments"
)

// diffusionResults builds two seeds of fd_classifier and fd_pixel rows at
// x = 0 for every series, with the given classifier-FD means (the seeds are
// mean ± 0.5) and the trained runs' columns.
func diffusionResults(fd map[string]float64) DiffusionReport {
	res := &experiments.Results{}
	for _, s := range append(DiffusionMethods(), RefNoise, RefBlurred, RefReal) {
		for seed, dev := range []float64{-0.5, 0.5} {
			num := map[string]float64{"kept": 0.75}
			if slices.Contains(DiffusionMethods(), s) {
				num["epsilon"], num["z"], num["lr"], num["noise_ratio"] = 8, 0.627, 0.003, 1.03
			}
			res.Rows = append(res.Rows,
				experiments.Row{Method: s, Seed: uint64(seed), Metric: "fd_classifier", Value: fd[s] + dev, Num: num},
				experiments.Row{Method: s, Seed: uint64(seed), Metric: "fd_pixel", Value: 2 * fd[s]})
		}
	}
	return DiffusionReport{Results: res, Summary: experiments.Summarize(res)}
}

func TestDiffusionReport(t *testing.T) {
	holds := map[string]float64{"NonPrivate": 10, "Public": 20, "DP": 40, "FDP-DPSGD": 18, "FDP-Alg1": 15, Alg1Filtered: 16,
		RefNoise: 50, RefBlurred: 12, RefReal: 1}
	fails := map[string]float64{"NonPrivate": 10, "Public": 20, "DP": 40, "FDP-DPSGD": 25, "FDP-Alg1": 15, Alg1Filtered: 16}
	for _, c := range []struct {
		name string
		fd   map[string]float64
		// hold[i]: whether claim row i holds.
		hold []bool
	}{
		{"paper's ordering", holds, []bool{true, true, true, true}},
		{"FDP-DPSGD above Public", fails, []bool{true, false, true, true}},
	} {
		r := diffusionResults(c.fd)
		for s, want := range c.fd {
			m, sd := r.Mean(s, 0, "fd_classifier")
			if math.Abs(m-want) > 1e-12 || math.Abs(sd-math.Sqrt(0.5)) > 1e-12 {
				t.Errorf("%s: Mean(%s) = %v ± %v, want %v ± %v", c.name, s, m, sd, want, math.Sqrt(0.5))
			}
		}
		want := DiffusionMethods()
		slices.SortStableFunc(want, func(a, b string) int { return int(c.fd[a] - c.fd[b]) })
		if got := r.Ordering(0, "fd_classifier"); got != strings.Join(want, " < ") {
			t.Errorf("%s: ordering %q, want %q", c.name, got, strings.Join(want, " < "))
		}
		rows := strings.Split(strings.TrimSpace(r.Claims(0, true)), "\n")[2:]
		if len(rows) != len(c.hold) {
			t.Fatalf("%s: %d claims, want %d", c.name, len(rows), len(c.hold))
		}
		for i, h := range c.hold {
			if got := !strings.Contains(rows[i], "does NOT hold"); got != h {
				t.Errorf("%s: claim %q holds = %v, want %v", c.name, rows[i], got, h)
			}
		}
		if n := strings.Count(r.Claims(0, false), "\n"); n != 2+3 {
			t.Errorf("%s: claims without Algorithm 1 have %d lines, want 5", c.name, n)
		}
	}
	r := diffusionResults(holds)
	table := r.Table(0)
	if n := strings.Count(table, "\n"); n != 2+len(DiffusionMethods())+3 {
		t.Errorf("table has %d lines, want a header and one row per series", n)
	}
	for _, want := range []string{
		fmt.Sprintf("| %s | 16.00 ± 0.71 | 32.0 ± 0.0 | – | 8 | 0.627 | 1.03 | 0.003 | 0.75 |", Alg1Filtered),
		fmt.Sprintf("| %s | 1.00 ± 0.71 | 2.0 ± 0.0 | – |  |  |  |  |  |", RefReal),
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks the row %q:\n%s", want, table)
		}
	}
	paper := map[string]float64{"NonPrivate": 25.2, "Public": 149.1, "FDP-Alg1": 101.9}
	ranks := r.PaperRanks(0, "paper FID", paper)
	for _, want := range []string{"| NonPrivate | 25.2 | 1 | 10.00 | 1 |", "| Public | 149.1 | 3 | 20.00 | 3 |", "| FDP-Alg1 | 101.9 | 2 | 15.00 | 2 |"} {
		if !strings.Contains(ranks, want) {
			t.Errorf("paper ranks lack %q:\n%s", want, ranks)
		}
	}
	if strings.Contains(ranks, "| DP |") {
		t.Errorf("paper ranks list a method without a paper value:\n%s", ranks)
	}
}
