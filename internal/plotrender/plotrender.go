// Package plotrender sizes and renders figures for files and notebooks:
// a legend is never clipped, and a paneled figure is drawn as tiles. dpnb
// and nb both use it.
package plotrender

import (
	"bytes"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Default figure size.
const (
	DefaultWidth  = 6 * vg.Inch
	DefaultHeight = 4 * vg.Inch
	// MinDataWidth is the data area kept beside a legend on the right when
	// the width is chosen automatically: the figure grows by the legend's
	// width rather than squeezing the data (about what a figure of
	// DefaultWidth without a legend gives its data).
	MinDataWidth = 5.2 * vg.Inch
)

// Fit returns w × h with the defaults for non-positive values; a default
// dimension grows so that the legend is never clipped: a legend drawn
// outside on the right (top, not left, no offset) keeps MinDataWidth beside
// it, and every legend fits in the height with an inch to spare for the
// title and the x axis. Sizes given by the caller are kept.
func Fit(p *plot.Plot, w, h vg.Length) (vg.Length, vg.Length) {
	autoW, autoH := w <= 0, h <= 0
	if autoW {
		w = DefaultWidth
	}
	if autoH {
		h = DefaultHeight
	}
	if p == nil {
		return w, h
	}
	r := p.Legend.Rectangle(draw.Canvas{})
	lw, lh := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	right := p.Legend.Top && !p.Legend.Left && p.Legend.XOffs == 0
	if autoW && right && lw+MinDataWidth > w {
		w = lw + MinDataWidth
	}
	if need := lh + vg.Inch; autoH && need > h {
		h = need
	}
	return w, h
}

// Tiles renders panels side by side in one row as "png" (at dpi) or "svg":
// each tile is as large as the largest panel's Fit size, so no legend is
// clipped; the panels' axes are aligned (plot.Align).
func Tiles(panels []*plot.Plot, format string, dpi int) ([]byte, error) {
	if len(panels) == 0 {
		return nil, errors.New("plotrender: no panels")
	}
	var tw, th vg.Length
	for i, p := range panels {
		if p == nil {
			return nil, fmt.Errorf("plotrender: panel %d is nil", i)
		}
		w, h := Fit(p, 0, 0)
		tw, th = max(tw, w), max(th, h)
	}
	pad := vg.Points(12)
	w := vg.Length(len(panels))*tw + vg.Length(len(panels)-1)*pad
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, th), vgimg.UseDPI(dpi))}
	case "svg":
		c = vgsvg.New(w, th)
	default:
		return nil, fmt.Errorf("plotrender: unknown format %q (png or svg)", format)
	}
	if err := drawTiles(panels, c, pad); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plotrender: encoding %s: %w", format, err)
	}
	return buf.Bytes(), nil
}

// CheckAxes returns an error if an axis of p spans a range that is not a
// finite float64 (Max − Min overflows, e.g. a band of ± 1e308, or a bound
// is ±Inf): gonum's tick marker never returns on such an axis, so drawing
// it would hang rather than fail.
func CheckAxes(p *plot.Plot) error {
	if p == nil {
		return errors.New("nil plot")
	}
	for _, a := range []struct {
		name string
		ax   plot.Axis
	}{{"x", p.X}, {"y", p.Y}} {
		if span := a.ax.Max - a.ax.Min; math.IsNaN(span) || math.IsInf(span, 0) {
			return fmt.Errorf("the %s axis spans [%g, %g], beyond the float64 range (a value or error band of ±Inf or near ±1.8e308): "+
				"leave such values out or set the axis limits by hand", a.name, a.ax.Min, a.ax.Max)
		}
	}
	return nil
}

// drawTiles draws the panels on one row of c, turning a panic of the
// plotting library into an error.
func drawTiles(panels []*plot.Plot, c vg.CanvasSizer, pad vg.Length) (err error) {
	for _, p := range panels {
		if err := CheckAxes(p); err != nil {
			return fmt.Errorf("plotrender: %w", err)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plotrender: drawing the panels failed: %v", r)
		}
	}()
	tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: pad}
	cells := plot.Align([][]*plot.Plot{panels}, tiles, draw.New(c))
	for j, p := range panels {
		p.Draw(cells[0][j])
	}
	return nil
}
