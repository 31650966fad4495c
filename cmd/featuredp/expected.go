package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/eta"
)

// referenceCPU names the machine fullWallTime was measured on (lscpu's
// model name; BENCHMARKS.md names the CPU of every table).
const referenceCPU = "2 cores of an AMD EPYC"

// fullWallTime is each figure's measured wall time for --profile full on
// the reference machine (referenceCPU) with 2 workers (BENCHMARKS.md, the
// section of each paper; the diffusion figures measured alone on the idle
// machine, most others under load, so an idle machine can be faster). A new
// figure adds its measurement here (a test checks every figure has one).
var fullWallTime = map[string]time.Duration{
	"accounting-calibration":  time.Second,
	"accounting-eps-vs-steps": time.Second,
	"bcdp-fig3":               67 * time.Second,
	"bcdp-fig4-dimension":     6 * time.Second,
	"bcdp-fig4-fraction":      10 * time.Second,
	"bcdp-least-squares":      58 * time.Second,
	"bcdp-notions":            time.Second,
	"corrdp-fig1a":            2 * time.Second,
	"corrdp-fig1b":            2*time.Minute + 35*time.Second,
	"corrdp-fig1c":            46 * time.Second,
	"corrdp-fig1d":            46 * time.Second,
	"corrdp-fig1e":            time.Second,
	"corrdp-fig1f":            time.Minute + 15*time.Second,
	"corrdp-fig2a":            2 * time.Second,
	"corrdp-fig2b":            2 * time.Second,
	"corrdp-fig2c":            2 * time.Second,
	"corrdp-fig2d":            2 * time.Second,
	"corrdp-table2":           4 * time.Second,
	"fdp-fig4":                22*time.Minute + 32*time.Second, // idle, 2026-11-27 (14 min 09 s on 2026-11-25, a fast period)
	"fdp-fig5":                2*time.Minute + 44*time.Second,
	"fdp-fig7":                28*time.Minute + 24*time.Second, // idle, 2026-11-27 (74 min under load 6–10)
	"fdp-fig7-eps":            9*time.Minute + 36*time.Second,  // idle, 2026-11-27
	"fdp-fig8":                14*time.Minute + 46*time.Second, // idle, 2026-11-27
	// fdp-samples reuses fdp-fig7's runs when both run together (as in
	// `reproduce fdp`, which runs it right after fdp-fig7); alone it
	// retrains fdp-fig7's first-seed models.
	"fdp-samples":                time.Second,
	"fdp-labeldp":                7*time.Minute + 2*time.Second,
	"fdp-table1":                 time.Second,
	"fdp-theory":                 24 * time.Second,
	"smoothdp-fig2-imputation":   time.Second,
	"smoothdp-fig2-pca":          time.Second,
	"smoothdp-fig2-quantization": time.Second,
	"smoothdp-fig3":              2*time.Minute + 30*time.Second,
	"smoothdp-pathological":      time.Second,
	"smoothdp-ptr":               6*time.Minute + 42*time.Second,
	"smoothdp-table1":            time.Second,
	"smoothdp-table2":            time.Second,
}

// printExpected prints, before a full-profile run, each figure's measured
// wall time and the total.
func printExpected(w io.Writer, figs []experiments.Figure) {
	var total time.Duration
	var parts []string
	for _, f := range figs {
		d, ok := fullWallTime[f.ID]
		if !ok {
			parts = append(parts, f.ID+" (not measured)")
			continue
		}
		total += d
		if d >= 10*time.Second {
			parts = append(parts, fmt.Sprintf("%s ≈ %s", f.ID, eta.Format(d)))
		}
	}
	fmt.Fprintf(w, "expected wall time with --profile full, measured on %s (BENCHMARKS.md): ≈ %s", referenceCPU, eta.Format(total))
	if len(parts) > 0 {
		fmt.Fprintf(w, " (%s; the rest under 10 s each)", strings.Join(parts, ", "))
	}
	fmt.Fprintln(w)
}
