package dpnb

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/featuredp/featuredp/notions/bcdp"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// NotionsPicture draws the relations between the four notions of the BCDP
// paper (its Figure 1) with the exact parameters of r: boxes for ε-LDP,
// ε-BDP, c-CDP and δ-BCDP holding the exact levels of the mechanism, and
// arrows labelled with each implication and the bound it gives here; the
// dashed arrow is the non-implication of Example 1 (BCDP without LDP).
// It returns an error if r violates a relation (Relations.Check).
func NotionsPicture(r bcdp.Relations) (*plot.Plot, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	p := NewPlot(fmt.Sprintf("The notions' relations, exact: randomized response c = %s, q = %g", vec(r.C), r.Q), "", "")
	p.HideAxes()
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Add(&notionsDiagram{r: r})
	return p, nil
}

// vec formats a vector with two decimals.
func vec(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// notionsDiagram is the plot.Plotter of NotionsPicture.
type notionsDiagram struct{ r bcdp.Relations }

type box struct {
	x, y  float64 // centre in data coordinates
	lines []string
}

// Plot implements plot.Plotter.
func (d *notionsDiagram) Plot(c draw.Canvas, plt *plot.Plot) {
	r := d.r
	ldp := box{0.2, 0.8, []string{"ε-LDP", fmt.Sprintf("ε_L = %.3f", r.LDP)}}
	bdp := box{0.8, 0.8, []string{"ε-BDP", fmt.Sprintf("ε_B = %.3f", r.LDP)}}
	cdp := box{0.2, 0.2, []string{"c-CDP", "c* = " + vec(r.CDP)}}
	bc := box{0.8, 0.2, []string{"δ-BCDP", "δ* = " + vec(r.BCDP)}}
	trX, trY := plt.Transforms(&c)
	at := func(x, y float64) vg.Point { return vg.Point{X: trX(x), Y: trY(y)} }
	sty := text.Style{Color: color.Black, Font: sans(vg.Points(10)), XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: plt.Title.TextStyle.Handler}
	small := sty
	small.Font = sans(vg.Points(8))
	for _, b := range []box{ldp, bdp, cdp, bc} {
		w, h := 0.17, 0.09
		rect := []vg.Point{at(b.x-w, b.y-h), at(b.x+w, b.y-h), at(b.x+w, b.y+h), at(b.x-w, b.y+h), at(b.x-w, b.y-h)}
		c.StrokeLines(draw.LineStyle{Color: SeriesColor(0), Width: vg.Points(1.4)}, rect)
		c.FillText(sty, at(b.x, b.y+0.03), b.lines[0])
		c.FillText(small, at(b.x, b.y-0.035), b.lines[1])
	}
	solid := draw.LineStyle{Color: color.Gray{Y: 60}, Width: vg.Points(1.2)}
	dashed := draw.LineStyle{Color: SeriesColor(3), Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	arrow := func(x0, y0, x1, y1 float64, st draw.LineStyle, label string, lx, ly float64) {
		a, b := at(x0, y0), at(x1, y1)
		c.StrokeLine2(st, a.X, a.Y, b.X, b.Y)
		ang := math.Atan2(float64(b.Y-a.Y), float64(b.X-a.X))
		for _, s := range []float64{-0.45, 0.45} {
			hx := b.X - vg.Length(9*math.Cos(ang+s))
			hy := b.Y - vg.Length(9*math.Sin(ang+s))
			c.StrokeLine2(draw.LineStyle{Color: st.Color, Width: st.Width}, b.X, b.Y, hx, hy)
		}
		c.FillText(small, at(lx, ly), label)
	}
	arrow(0.37, 0.82, 0.63, 0.82, solid, "Prop 1: ε_B = ε_L", 0.5, 0.87)
	arrow(0.63, 0.78, 0.37, 0.78, solid, "", 0.5, 0.8)
	arrow(0.17, 0.71, 0.17, 0.29, solid, "c*_i ≤ ε_L", 0.09, 0.5)
	arrow(0.23, 0.29, 0.23, 0.71, solid, fmt.Sprintf("ε_L ≤ Σc* = %.3f", r.SumCDP), 0.33, 0.56)
	arrow(0.32, 0.71, 0.68, 0.29, solid, "Prop 3: δ* ≤ ε_L·1", 0.55, 0.6)
	arrow(0.37, 0.2, 0.63, 0.2, solid, fmt.Sprintf("Prop 4 (q_i = %s): δ ≤ %s", vec(r.QCoord), vec(r.Prop4)), 0.5, 0.06)
	arrow(0.8, 0.29, 0.8, 0.71, dashed, "", 0.8, 0.5)
	c.FillText(small, at(0.885, 0.58), "no implication")
	c.FillText(small, at(0.885, 0.52), "(Example 1:")
	c.FillText(small, at(0.885, 0.46), fmt.Sprintf("δ* = %s,", vec(r.Example1BCDP)))
	c.FillText(small, at(0.885, 0.40), "no finite ε_L)")
}
