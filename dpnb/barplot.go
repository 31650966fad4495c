package dpnb

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/valid"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BarOptions configures BarPlot.
type BarOptions struct {
	Title, XLabel, YLabel string
	// Metric selects the metric to plot; "" is allowed when the summaries
	// hold a single metric.
	Metric string
	// Band selects the bar height and error bars: BandSD = mean ± SD,
	// BandIQR = median with a Q25–Q75 bar, BandNone = mean without error
	// bars.
	Band Band
	// Legend positions the legend; the default (LegendAuto, which for bars
	// means LegendRight) keeps it outside the data area.
	Legend LegendPos
	// XFormat formats the x value of a group label; nil means %g.
	XFormat func(x float64) string
}

// BarPlot draws grouped bars: one group per x value (in increasing order,
// labelled on a nominal axis) and one bar per method, with error bars, in
// the house style of NewPlot. A missing (method, x) combination or a
// non-finite value leaves a gap. The y axis is linear (bars on a log axis
// are misleading).
func BarPlot(sums []experiments.Summary, opts BarOptions) (*plot.Plot, error) {
	sums, err := metricSummaries(sums, opts.Metric)
	if err != nil {
		return nil, fmt.Errorf("dpnb: BarPlot: %w", err)
	}
	methods, by := groupByMethod(sums)
	xs, col := barGroups(sums)
	if len(xs) == 0 {
		return nil, errors.New("dpnb: BarPlot: no finite x values")
	}

	p := NewPlot(opts.Title, opts.XLabel, opts.YLabel)
	// Groups sit at 0, 1, …, n−1 on an axis from −0.5 to n−0.5; the data
	// area is about 4 in wide in a 6 in figure, and each group is 80% bars.
	p.X.Min, p.X.Max = -0.5, float64(len(xs))-0.5
	nb := len(xs) * len(methods)
	width := vg.Length(math.Min(float64(vg.Points(40)), float64(4*vg.Inch)*0.8/float64(nb)))
	plotted := 0
	for i, m := range methods {
		vals, errs, n := barValues(by[m], col, len(xs), opts.Band)
		plotted += n
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, fmt.Errorf("dpnb: BarPlot: bars of %q: %w", m, err)
		}
		off := width * vg.Length(float64(i)-float64(len(methods)-1)/2)
		bars.Color = SeriesColor(i)
		bars.LineStyle = draw.LineStyle{Color: color.White, Width: vg.Points(0.5)}
		bars.Offset = off
		p.Add(bars)
		if len(errs) > 0 {
			p.Add(&offsetErrBars{bars: errs, offset: off, style: draw.LineStyle{Color: color.Black, Width: vg.Points(1)}, cap: width / 3})
		}
		p.Legend.Add(m, bars)
	}
	if plotted == 0 {
		return nil, errors.New("dpnb: BarPlot: no finite values to plot")
	}
	labels := make([]string, len(xs))
	for i, x := range xs {
		if opts.XFormat != nil {
			labels[i] = opts.XFormat(x)
		} else {
			labels[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
	}
	p.NominalX(labels...)
	slantLongLabels(p, labels)
	PlaceLegend(p, opts.Legend)
	return p, nil
}

// slantLongLabels slants the group labels when they would run into each
// other side by side: more than five groups with a label longer than five
// characters (the class names of a ten-class figure, say).
func slantLongLabels(p *plot.Plot, labels []string) {
	if len(labels) <= 5 || slices.IndexFunc(labels, func(l string) bool { return utf8.RuneCountInString(l) > 5 }) < 0 {
		return
	}
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
}

// barGroups returns the finite x values in increasing order and the group
// index of each.
func barGroups(sums []experiments.Summary) ([]float64, map[float64]int) {
	xset := map[float64]bool{}
	for _, s := range sums {
		if valid.Finite(s.X) {
			xset[s.X] = true
		}
	}
	xs := make([]float64, 0, len(xset))
	for x := range xset {
		xs = append(xs, x)
	}
	sort.Float64s(xs)
	col := make(map[float64]int, len(xs))
	for i, x := range xs {
		col[x] = i
	}
	return xs, col
}

// barValues returns one method's bar heights per group (0 where missing or
// non-finite), its error bars per band, and the number of bars with a value.
func barValues(sums []experiments.Summary, col map[float64]int, groups int, band Band) (plotter.Values, []errBar, int) {
	vals := make(plotter.Values, groups)
	var errs []errBar
	n := 0
	for _, s := range sums {
		c, lo, hi := s.Mean, s.Mean-s.SD, s.Mean+s.SD
		switch band {
		case BandIQR:
			c, lo, hi = s.Median, s.Q25, s.Q75
		case BandNone:
			lo, hi = c, c
		}
		j, ok := col[s.X]
		if !ok || !valid.Finite(c) {
			continue
		}
		vals[j] = c
		if valid.Finite(lo) && valid.Finite(hi) && hi > lo {
			errs = append(errs, errBar{x: float64(j), lo: lo, hi: hi})
		}
		n++
	}
	return vals, errs, n
}

// errBar is a vertical error bar at a group index.
type errBar struct{ x, lo, hi float64 }

// offsetErrBars draws error bars shifted horizontally by a canvas offset,
// to sit on top of the bars of a grouped bar chart.
type offsetErrBars struct {
	bars   []errBar
	offset vg.Length
	style  draw.LineStyle
	cap    vg.Length
}

// Plot implements plot.Plotter.
func (e *offsetErrBars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for _, b := range e.bars {
		x := trX(b.x) + e.offset
		ylo, yhi := trY(b.lo), trY(b.hi)
		c.StrokeLine2(e.style, x, ylo, x, yhi)
		c.StrokeLine2(e.style, x-e.cap/2, ylo, x+e.cap/2, ylo)
		c.StrokeLine2(e.style, x-e.cap/2, yhi, x+e.cap/2, yhi)
	}
}

// DataRange implements plot.DataRanger so that the axes include the error
// bars.
func (e *offsetErrBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, b := range e.bars {
		xmin, xmax = math.Min(xmin, b.x), math.Max(xmax, b.x)
		ymin, ymax = math.Min(ymin, b.lo), math.Max(ymax, b.hi)
	}
	return
}
