package plotrender

import (
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendPlot has n legend entries named with width characters each, its
// legend on the right (right) or inside top right.
func legendPlot(t *testing.T, n, width int, right bool) *plot.Plot {
	p := plot.New()
	for i := range n {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: float64(i)}, {X: 1, Y: float64(i)}})
		if err != nil {
			t.Fatal(err)
		}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%d%s", i, strings.Repeat("m", width)), l)
	}
	p.Legend.Top = true
	if !right {
		p.Legend.XOffs = -5
	}
	return p
}

func TestFit(t *testing.T) {
	for _, tc := range []struct {
		name         string
		n, width     int
		right        bool
		w, h         vg.Length
		wider, taler bool
	}{
		{"legend on the right widens, not squeezes", 3, 5, true, 0, 0, true, false},
		{"wide legend on the right widens", 3, 60, true, 0, 0, true, false},
		{"small legend inside keeps the default", 3, 5, false, 0, 0, false, false},
		{"wide legend inside keeps the width", 3, 60, false, 0, 0, false, false},
		{"tall legend heightens", 40, 5, true, 0, 0, true, true},
		{"given sizes are kept", 40, 60, true, 5 * vg.Inch, 3 * vg.Inch, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := legendPlot(t, tc.n, tc.width, tc.right)
			w, h := Fit(p, tc.w, tc.h)
			baseW, baseH := DefaultWidth, DefaultHeight
			if tc.w > 0 {
				baseW, baseH = tc.w, tc.h
			}
			if (w > baseW) != tc.wider || (h > baseH) != tc.taler {
				t.Errorf("size %v × %v from %v × %v: wider %v, taller %v", w, h, baseW, baseH, w > baseW, h > baseH)
			}
			r := p.Legend.Rectangle(draw.Canvas{})
			if tc.w <= 0 && (tc.right && r.Max.X-r.Min.X+MinDataWidth > w || r.Max.Y-r.Min.Y > h) {
				t.Errorf("legend %v does not fit %v × %v", r, w, h)
			}
		})
	}
	if w, h := Fit(nil, 0, 0); w != DefaultWidth || h != DefaultHeight {
		t.Errorf("nil plot: %v × %v", w, h)
	}
}

func TestTiles(t *testing.T) {
	a, b := legendPlot(t, 2, 5, true), legendPlot(t, 2, 5, true)
	png, err := Tiles([]*plot.Plot{a, b}, "png", 72)
	if err != nil || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Fatalf("png: %v", err)
	}
	svg, err := Tiles([]*plot.Plot{a, b}, "svg", 72)
	if err != nil || !strings.Contains(string(svg), "<svg") {
		t.Fatalf("svg: %v", err)
	}
	for _, tc := range []struct {
		name   string
		panels []*plot.Plot
		format string
		want   string
	}{
		{"none", nil, "png", "no panels"},
		{"nil panel", []*plot.Plot{a, nil}, "png", "panel 1 is nil"},
		{"format", []*plot.Plot{a}, "gif", "unknown format"},
	} {
		if _, err := Tiles(tc.panels, tc.format, 72); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}
