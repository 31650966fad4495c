package dpnb

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/featuredp/featuredp/experiments"
	"gonum.org/v1/plot"
)

// TestRenderRefusesOverflowingAxis: a band of ± 1e308 is finite at every
// point, but the y axis it spans, Max − Min, overflows to +Inf, on which
// gonum's tick marker never returns. Rendering says so instead of hanging
// (before, RenderPNG did not return within minutes).
func TestRenderRefusesOverflowingAxis(t *testing.T) {
	sums := []experiments.Summary{
		{Method: "DP", X: 1, Metric: "accuracy", Mean: 1, SD: 1e308},
		{Method: "DP", X: 2, Metric: "accuracy", Mean: 1, SD: 0.1},
	}
	p, err := LinePlot(sums, LineOptions{Metric: "accuracy", Band: BandSD})
	if err != nil {
		t.Fatal(err)
	}
	for name, render := range map[string]func() error{
		"RenderPNG":       func() error { _, err := RenderPNG(p, 0, 0); return err },
		"RenderSVG":       func() error { _, err := RenderSVG(p, 0, 0); return err },
		"RenderPanelsPNG": func() error { _, err := RenderPanelsPNG([]*plot.Plot{p, p}); return err },
	} {
		done := make(chan error, 1)
		go func() { done <- render() }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "beyond the float64 range") {
				t.Errorf("%s: %v, want an error saying the axis spans beyond the float64 range", name, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s did not return within 20 s (an axis spanning %g)", name, math.Inf(1))
		}
	}
}
