package dpnb

import (
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Palette is the colour-blind-safe palette of Okabe & Ito (2008), ordered so
// that the first colours have the most contrast on white (yellow last).
var Palette = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xFF}, // blue
	{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	{0x00, 0x9E, 0x73, 0xFF}, // bluish green
	{0xE6, 0x9F, 0x00, 0xFF}, // orange
	{0xCC, 0x79, 0xA7, 0xFF}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xFF}, // sky blue
	{0x00, 0x00, 0x00, 0xFF}, // black
	{0xF0, 0xE4, 0x42, 0xFF}, // yellow
	// Beyond Okabe & Ito's eight, colours of Paul Tol's "muted" scheme
	// (also colour-blind-safe), so that a chart of up to 14 series never
	// repeats a colour.
	{0x33, 0x22, 0x88, 0xFF}, // indigo
	{0x88, 0x22, 0x55, 0xFF}, // wine
	{0x99, 0x99, 0x33, 0xFF}, // olive
	{0x44, 0xAA, 0x99, 0xFF}, // teal
	{0xAA, 0x44, 0x99, 0xFF}, // purple
	{0x88, 0x88, 0x88, 0xFF}, // grey
}

// glyphs cycle with the colours so that series stay distinguishable in
// grey-scale prints.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{},
	draw.RingGlyph{}, draw.BoxGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{},
}

// dashes are used once the palette is exhausted (series 14 and later).
var dashes = [][]vg.Length{
	nil,
	{vg.Points(5), vg.Points(3)},
	{vg.Points(1.5), vg.Points(2)},
	{vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)},
}

// SeriesColor returns the colour of the i-th series.
func SeriesColor(i int) color.NRGBA { return Palette[i%len(Palette)] }

// seriesLine returns the line style of the i-th series.
func seriesLine(i int) draw.LineStyle {
	return draw.LineStyle{
		Color:  SeriesColor(i),
		Width:  vg.Points(1.6),
		Dashes: dashes[(i/len(Palette))%len(dashes)],
	}
}

// seriesGlyph returns the marker style of the i-th series.
func seriesGlyph(i int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: SeriesColor(i), Radius: vg.Points(2.6), Shape: glyphs[i%len(glyphs)]}
}

// translucent returns c with the given alpha (0–255), premultiplied as
// color.NRGBA expects it not to be.
func translucent(c color.NRGBA, alpha uint8) color.NRGBA {
	c.A = alpha
	return c
}

// Font sizes of the house style, readable in a 6 × 4 in figure.
const (
	titleSize  = 13
	labelSize  = 11
	tickSize   = 9.5
	legendSize = 9.5
)

func sans(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// NewPlot returns an empty plot in the house style: sans-serif fonts sized
// for a 6 × 4 in figure, light grid lines, legend at the top left. LinePlot
// and BarPlot start from it (and then move the legend, see PlaceLegend); use
// it for custom plots so that every figure looks the same.
func NewPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(titleSize)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = sans(labelSize)
		a.Tick.Label.Font = sans(tickSize)
		a.Padding = vg.Points(3)
	}
	p.Legend.TextStyle.Font = sans(legendSize)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(4)
	p.Legend.YOffs = -vg.Points(2)
	p.Legend.ThumbnailWidth = vg.Points(22)
	g := plotter.NewGrid()
	g.Vertical = draw.LineStyle{Color: color.Gray{Y: 225}, Width: vg.Points(0.5)}
	g.Horizontal = g.Vertical
	p.Add(g)
	return p
}

// setLogAxis switches an axis to a log scale with readable ticks.
func setLogAxis(a *plot.Axis) {
	a.Scale = plot.LogScale{}
	a.Tick.Marker = logTicks{}
}

// logTicks labels powers of ten when the range spans at least one of them
// (thinning them out over many decades), and 1-2-5 or all mantissas in
// narrower ranges, so a log axis always carries at least two labels when
// possible. It returns no ticks for a non-positive range instead of
// panicking like plot.LogTicks.
type logTicks struct{}

// Ticks implements plot.Ticker.
func (logTicks) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max >= min) || math.IsInf(max, 0) {
		return nil
	}
	lo := int(math.Floor(math.Log10(min)))
	hi := int(math.Ceil(math.Log10(max)))
	if hi == lo {
		hi++
	}
	inRange := func(v float64) bool { return v >= min*(1-1e-12) && v <= max*(1+1e-12) }
	step := 1
	if hi-lo > 8 {
		step = (hi - lo + 7) / 8
	}
	for _, labelled := range []func(m, e int) bool{
		func(m, e int) bool { return m == 1 && (e-lo)%step == 0 },
		func(m, e int) bool { return m == 1 || m == 2 || m == 5 },
		func(m, e int) bool { return true },
	} {
		var ticks []plot.Tick
		n := 0
		for e := lo; e <= hi; e++ {
			for m := 1; m <= 9; m++ {
				v := float64(m) * math.Pow(10, float64(e))
				t := plot.Tick{Value: v}
				if labelled(m, e) {
					t.Label = formatTick(v)
					if inRange(v) {
						n++
					}
				}
				ticks = append(ticks, t)
			}
		}
		if n >= 2 {
			return ticks
		}
	}
	// A very narrow range (within one mantissa step): linear ticks.
	var ticks []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(min, max) {
		if t.Value > 0 {
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// formatTick prints a tick value compactly: 0.001, 20, 1e5, 2.5e-7.
func formatTick(v float64) string {
	s := strconv.FormatFloat(v, 'g', 4, 64)
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		mant, exp := s[:i], s[i+1:]
		exp = strings.TrimPrefix(exp, "+")
		neg := strings.HasPrefix(exp, "-")
		exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
		if neg {
			exp = "-" + exp
		}
		return mant + "e" + exp
	}
	return s
}

// LegendPos says where the legend goes.
type LegendPos int

const (
	// LegendAuto (the default) puts the legend inside the data area in the
	// first corner (top left, top right, bottom right, bottom left) that no
	// line, marker or band passes through, and outside on the right when
	// every corner is busy.
	LegendAuto LegendPos = iota
	// LegendRight puts the legend outside the data area, on the right, top
	// aligned; the data area shrinks to make room, so it never hides data.
	LegendRight
	// LegendTopLeft puts the legend inside the data area, top left.
	LegendTopLeft
	// LegendTopRight puts the legend inside the data area, top right.
	LegendTopRight
	// LegendBottomRight puts the legend inside the data area, bottom right.
	LegendBottomRight
	// LegendBottomLeft puts the legend inside the data area, bottom left.
	LegendBottomLeft
)

// PlaceLegend positions p's legend; call it after the last Legend.Add.
// LegendAuto without data points to avoid behaves like LegendRight; LinePlot
// resolves LegendAuto from its data.
func PlaceLegend(p *plot.Plot, pos LegendPos) {
	in := vg.Points(5)
	switch pos {
	case LegendTopLeft:
		p.Legend.Top, p.Legend.Left = true, true
		p.Legend.XOffs, p.Legend.YOffs = in, -in
	case LegendTopRight:
		p.Legend.Top, p.Legend.Left = true, false
		p.Legend.XOffs, p.Legend.YOffs = -in, -in
	case LegendBottomRight:
		p.Legend.Top, p.Legend.Left = false, false
		p.Legend.XOffs, p.Legend.YOffs = -in, in
	case LegendBottomLeft:
		p.Legend.Top, p.Legend.Left = false, true
		p.Legend.XOffs, p.Legend.YOffs = in, in
	default:
		p.Legend.Top, p.Legend.Left = true, false
		p.Legend.XOffs, p.Legend.YOffs = 0, 0
		r := p.Legend.Rectangle(draw.Canvas{})
		if w := r.Max.X - r.Min.X; w > 0 {
			p.Add(legendSpace{width: w + vg.Points(10)})
		}
	}
}

// freeCorner returns the first inside corner (top left, top right, bottom
// right, bottom left) whose legend-sized box contains none of the points,
// or LegendRight. Points are in data coordinates; the data area is assumed
// to be that of a DefaultWidth × DefaultHeight figure with the legend
// inside.
func freeCorner(p *plot.Plot, pts []plotter.XY, logX, logY bool) LegendPos {
	r := p.Legend.Rectangle(draw.Canvas{})
	lw, lh := r.Max.X-r.Min.X, r.Max.Y-r.Min.Y
	if lw <= 0 || len(pts) == 0 {
		return LegendRight
	}
	dataW, dataH := DefaultWidth-0.8*vg.Inch, DefaultHeight-0.9*vg.Inch
	fx := float64(lw+vg.Points(12)) / float64(dataW)
	fy := float64(lh+vg.Points(10)) / float64(dataH)
	if fx > 0.6 || fy > 0.6 {
		return LegendRight
	}
	tr := func(v float64, log bool) float64 {
		if log {
			return math.Log(v)
		}
		return v
	}
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, q := range pts {
		x, y := tr(q.X, logX), tr(q.Y, logY)
		xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
	}
	norm := func(v, lo, hi float64) float64 {
		if hi <= lo {
			return 0.5
		}
		return (v - lo) / (hi - lo)
	}
	busy := func(pos LegendPos) bool {
		for _, q := range pts {
			x, y := norm(tr(q.X, logX), xmin, xmax), norm(tr(q.Y, logY), ymin, ymax)
			left, top := x <= fx, y >= 1-fy
			right, bottom := x >= 1-fx, y <= fy
			switch {
			case pos == LegendTopLeft && left && top,
				pos == LegendTopRight && right && top,
				pos == LegendBottomRight && right && bottom,
				pos == LegendBottomLeft && left && bottom:
				return true
			}
		}
		return false
	}
	for _, pos := range []LegendPos{LegendTopLeft, LegendTopRight, LegendBottomRight, LegendBottomLeft} {
		if !busy(pos) {
			return pos
		}
	}
	return LegendRight
}

// densify returns the vertices of a polyline plus 24 points on each
// segment (interpolated in the axes' scales), so that a box crossed by a
// segment is seen as busy.
func densify(xys plotter.XYs, logX, logY bool) []plotter.XY {
	const k = 24
	interp := func(a, b, t float64, log bool) float64 {
		if log && a > 0 && b > 0 {
			return math.Exp(math.Log(a) + t*(math.Log(b)-math.Log(a)))
		}
		return a + t*(b-a)
	}
	out := make([]plotter.XY, 0, len(xys)*(k+1))
	for i, q := range xys {
		out = append(out, q)
		if i+1 < len(xys) {
			n := xys[i+1]
			for j := 1; j <= k; j++ {
				t := float64(j) / float64(k+1)
				out = append(out, plotter.XY{X: interp(q.X, n.X, t, logX), Y: interp(q.Y, n.Y, t, logY)})
			}
		}
	}
	return out
}

// legendSpace is an invisible plotter whose glyph box makes the plot keep
// a margin of the given width right of the data area, where LegendRight
// draws the legend.
type legendSpace struct{ width vg.Length }

// Plot implements plot.Plotter; it draws nothing.
func (legendSpace) Plot(draw.Canvas, *plot.Plot) {}

// GlyphBoxes implements plot.GlyphBoxer.
func (l legendSpace) GlyphBoxes(*plot.Plot) []plot.GlyphBox {
	return []plot.GlyphBox{{X: 1, Y: 1, Rectangle: vg.Rectangle{Max: vg.Point{X: l.width}}}}
}
