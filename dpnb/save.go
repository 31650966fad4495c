package dpnb

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/featuredp/featuredp/internal/plotrender"
	"github.com/featuredp/featuredp/internal/safefile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Default figure size and PNG resolution.
const (
	DefaultWidth  = plotrender.DefaultWidth
	DefaultHeight = plotrender.DefaultHeight
	PNGDPI        = 144
)

// sizeOrDefault replaces non-positive sizes by the defaults.
func sizeOrDefault(w, h vg.Length) (vg.Length, vg.Length) {
	if w <= 0 {
		w = DefaultWidth
	}
	if h <= 0 {
		h = DefaultHeight
	}
	return w, h
}

// drawSafely draws p on c, turning a panic of the plotting library (for
// example a log axis with a non-positive value set by hand) into an error.
func drawSafely(p *plot.Plot, c draw.Canvas) (err error) {
	if err := plotrender.CheckAxes(p); err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing the plot failed: %v", r)
		}
	}()
	p.Draw(c)
	return nil
}

// RenderPNG renders p as a PNG of w × h at PNGDPI dots per inch; ≤ 0 means
// the default 6 × 4 in, widened or heightened where the legend needs it
// (see plotrender.Fit).
func RenderPNG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	w, h = plotrender.Fit(p, w, h)
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))
	if err := drawSafely(p, draw.New(c)); err != nil {
		return nil, fmt.Errorf("dpnb: PNG: %w", err)
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("dpnb: encoding PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// RenderSVG renders p as an SVG document of w × h (≤ 0: as RenderPNG).
// Fonts are referenced by name, not embedded.
func RenderSVG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	w, h = plotrender.Fit(p, w, h)
	c := vgsvg.New(w, h)
	if err := drawSafely(p, draw.New(c)); err != nil {
		return nil, fmt.Errorf("dpnb: SVG: %w", err)
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("dpnb: encoding SVG: %w", err)
	}
	return buf.Bytes(), nil
}

// PNGBytes renders p as a 6 × 4 in PNG.
func PNGBytes(p *plot.Plot) ([]byte, error) { return RenderPNG(p, 0, 0) }

// SVGBytes renders p as a 6 × 4 in SVG.
func SVGBytes(p *plot.Plot) ([]byte, error) { return RenderSVG(p, 0, 0) }

// SavePNG writes p as a PNG file of w × h (≤ 0 means the default 6 × 4 in)
// at path, replacing a file already there.
func SavePNG(p *plot.Plot, path string, w, h vg.Length) error {
	b, err := RenderPNG(p, w, h)
	if err != nil {
		return err
	}
	return writeFile(path, b)
}

// SaveSVG writes p as an SVG file of w × h (≤ 0 means the default 6 × 4 in)
// at path, replacing a file already there.
func SaveSVG(p *plot.Plot, path string, w, h vg.Length) error {
	b, err := RenderSVG(p, w, h)
	if err != nil {
		return err
	}
	return writeFile(path, b)
}

// writeFile writes b at path through a temporary file renamed into place
// (safefile.Write with overwrite): a file already there is replaced, a
// symbolic link is replaced by the new file rather than followed (the file
// it names is left as it was), and a failed write leaves no partial file.
func writeFile(path string, b []byte) error {
	err := safefile.Write(path, true, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return fmt.Errorf("dpnb: %w", err)
	}
	return nil
}

// RenderPanelsPNG renders panels side by side in one PNG at PNGDPI (see
// Result.Panels); one panel renders as RenderPNG would.
func RenderPanelsPNG(panels []*plot.Plot) ([]byte, error) {
	if len(panels) == 1 {
		return RenderPNG(panels[0], 0, 0)
	}
	b, err := plotrender.Tiles(panels, "png", PNGDPI)
	if err != nil {
		return nil, fmt.Errorf("dpnb: %w", err)
	}
	return b, nil
}

// RenderPanelsSVG renders panels side by side in one SVG document.
func RenderPanelsSVG(panels []*plot.Plot) ([]byte, error) {
	if len(panels) == 1 {
		return RenderSVG(panels[0], 0, 0)
	}
	b, err := plotrender.Tiles(panels, "svg", PNGDPI)
	if err != nil {
		return nil, fmt.Errorf("dpnb: %w", err)
	}
	return b, nil
}

// SavePanels writes panels side by side as path (PNG or SVG by its
// extension, .png or .svg), replacing a file already there.
func SavePanels(panels []*plot.Plot, path string) error {
	var b []byte
	var err error
	switch {
	case strings.HasSuffix(path, ".png"):
		b, err = RenderPanelsPNG(panels)
	case strings.HasSuffix(path, ".svg"):
		b, err = RenderPanelsSVG(panels)
	default:
		return fmt.Errorf("dpnb: SavePanels: %q: want a .png or .svg file", path)
	}
	if err != nil {
		return err
	}
	return writeFile(path, b)
}
