package dpnb

import (
	"fmt"
	"testing"

	"github.com/featuredp/featuredp/experiments"
)

// TestBarPlotSlantsLongLabels checks that many long group labels are
// slanted (they would overlap side by side) and few or short ones are not.
func TestBarPlotSlantsLongLabels(t *testing.T) {
	for _, c := range []struct {
		name   string
		groups int
		label  string
		slant  bool
	}{
		{"ten class names", 10, "Ankle boot", true},
		{"ten short labels", 10, "ε=1", false},
		{"three long labels", 3, "Ankle boot", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var sums []experiments.Summary
			for x := range c.groups {
				sums = append(sums, experiments.Summary{Method: "m", X: float64(x), Metric: "acc", Mean: 1, N: 1})
			}
			p, err := BarPlot(sums, BarOptions{Metric: "acc", XFormat: func(x float64) string { return fmt.Sprintf("%s%g", c.label, x) }})
			if err != nil {
				t.Fatal(err)
			}
			if got := p.X.Tick.Label.Rotation != 0; got != c.slant {
				t.Errorf("slanted %v, want %v", got, c.slant)
			}
		})
	}
}
