package dpnb

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/valid"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// Band selects the centre line and the shaded band of a LinePlot.
type Band int

const (
	// BandSD draws the mean with a band of ± one sample standard deviation.
	BandSD Band = iota
	// BandIQR draws the median with a band from the 25% to the 75% quantile.
	BandIQR
	// BandNone draws the mean without a band.
	BandNone
)

// LineOptions configures LinePlot.
type LineOptions struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	// Metric selects the metric to plot; "" is allowed when the summaries
	// hold a single metric.
	Metric string
	Band   Band
	// Legend positions the legend; the default LegendAuto puts it in a
	// corner free of data, or outside on the right.
	Legend LegendPos
}

// bandAlpha is the opacity of the bands (0–255).
const bandAlpha = 0x48

// series is one method's points, sorted by x.
type series struct {
	method        string
	x, y, lo, hi  []float64
	hasBand       bool
	droppedPoints int
}

// metricSummaries keeps the summaries of one metric; metric "" is allowed
// only when there is exactly one.
func metricSummaries(sums []experiments.Summary, metric string) ([]experiments.Summary, error) {
	var metrics []string
	seen := map[string]bool{}
	for _, s := range sums {
		if !seen[s.Metric] {
			seen[s.Metric] = true
			metrics = append(metrics, s.Metric)
		}
	}
	if len(sums) == 0 {
		return nil, errors.New("no summaries to plot")
	}
	if metric == "" {
		if len(metrics) > 1 {
			return nil, fmt.Errorf("the summaries hold several metrics (%s): set Metric", strings.Join(metrics, ", "))
		}
		metric = metrics[0]
	}
	if !seen[metric] {
		return nil, fmt.Errorf("no summaries for metric %q (have %s)", metric, strings.Join(metrics, ", "))
	}
	var out []experiments.Summary
	for _, s := range sums {
		if s.Metric == metric {
			out = append(out, s)
		}
	}
	return out, nil
}

// groupByMethod returns the series (Summary.Series: the method, plus the
// group of grouped summaries) in order of first appearance and their
// summaries sorted by x.
func groupByMethod(sums []experiments.Summary) ([]string, map[string][]experiments.Summary) {
	var methods []string
	by := map[string][]experiments.Summary{}
	for _, s := range sums {
		name := s.Series()
		if _, ok := by[name]; !ok {
			methods = append(methods, name)
		}
		by[name] = append(by[name], s)
	}
	for _, m := range methods {
		ss := by[m]
		sort.SliceStable(ss, func(i, j int) bool { return ss[i].X < ss[j].X })
	}
	return methods, by
}

// LinePlot draws one line with markers per method through the summaries of
// one metric, with a translucent band per line (see Band), in the house
// style of NewPlot.
//
// Points whose centre value is NaN or ±Inf are left out (the legend entry
// says how many). On a log axis every x (LogX) and every plotted centre
// value (LogY) must be positive, otherwise LinePlot returns an error; band
// edges that are not positive on a log y axis (mean − SD ≤ 0) are clipped to
// half the smallest plotted value.
func LinePlot(sums []experiments.Summary, opts LineOptions) (*plot.Plot, error) {
	sums, err := metricSummaries(sums, opts.Metric)
	if err != nil {
		return nil, fmt.Errorf("dpnb: LinePlot: %w", err)
	}
	all, minPos, err := lineSeries(sums, opts)
	if err != nil {
		return nil, fmt.Errorf("dpnb: LinePlot: %w", err)
	}
	p := NewPlot(opts.Title, opts.XLabel, opts.YLabel)
	if opts.LogX {
		setLogAxis(&p.X)
	}
	if opts.LogY {
		setLogAxis(&p.Y)
	}
	var occupied []plotter.XY // everything drawn, for LegendAuto
	// Bands first, so that every line is drawn above every band.
	if opts.Band != BandNone {
		if occupied, err = addBands(p, all, minPos, opts); err != nil {
			return nil, fmt.Errorf("dpnb: LinePlot: %w", err)
		}
	}
	lines, plotted, err := addLines(p, all, opts)
	if err != nil {
		return nil, fmt.Errorf("dpnb: LinePlot: %w", err)
	}
	if plotted == 0 {
		return nil, errors.New("dpnb: LinePlot: no finite values to plot")
	}
	occupied = append(occupied, lines...)
	pos := opts.Legend
	if pos == LegendAuto {
		pos = freeCorner(p, occupied, opts.LogX, opts.LogY)
	}
	PlaceLegend(p, pos)
	return p, nil
}

// lineSeries turns the summaries of one metric into one series per method
// (centre and band per opts.Band, non-finite points counted and left out)
// and returns the smallest positive centre value, used to clip bands on a
// log y axis.
func lineSeries(sums []experiments.Summary, opts LineOptions) ([]*series, float64, error) {
	methods, by := groupByMethod(sums)
	var all []*series
	minPos := math.Inf(1)
	for _, m := range methods {
		s := &series{method: m}
		for _, sm := range by[m] {
			c, lo, hi := sm.Mean, sm.Mean-sm.SD, sm.Mean+sm.SD
			switch opts.Band {
			case BandIQR:
				c, lo, hi = sm.Median, sm.Q25, sm.Q75
			case BandNone:
				lo, hi = c, c
			}
			if !valid.Finite(c) || !valid.Finite(sm.X) {
				s.droppedPoints++
				continue
			}
			if opts.LogX && sm.X <= 0 {
				return nil, 0, fmt.Errorf("log x axis needs positive x values, method %q has x = %g", m, sm.X)
			}
			if opts.LogY && c <= 0 {
				return nil, 0, fmt.Errorf("log y axis needs positive values, method %q has %g at x = %g", m, c, sm.X)
			}
			if !valid.Finite(lo) {
				lo = c
			}
			if !valid.Finite(hi) {
				hi = c
			}
			if hi > lo {
				s.hasBand = true
			}
			s.x, s.y, s.lo, s.hi = append(s.x, sm.X), append(s.y, c), append(s.lo, lo), append(s.hi, hi)
			if c > 0 && c < minPos {
				minPos = c
			}
		}
		all = append(all, s)
	}
	return all, minPos, nil
}

// addBands draws the translucent band of every series with a band and at
// least two points, and returns the points they cover (for LegendAuto).
func addBands(p *plot.Plot, all []*series, minPos float64, opts LineOptions) ([]plotter.XY, error) {
	var occupied []plotter.XY
	for i, s := range all {
		if !s.hasBand || len(s.x) < 2 {
			continue
		}
		ring := make(plotter.XYs, 0, 2*len(s.x))
		for k := range s.x {
			ring = append(ring, plotter.XY{X: s.x[k], Y: s.hi[k]})
		}
		for k := len(s.x) - 1; k >= 0; k-- {
			lo := s.lo[k]
			if opts.LogY && lo <= 0 {
				lo = minPos / 2
			}
			ring = append(ring, plotter.XY{X: s.x[k], Y: lo})
		}
		occupied = append(occupied, densify(ring[:len(s.x)], opts.LogX, opts.LogY)...)
		occupied = append(occupied, densify(ring[len(s.x):], opts.LogX, opts.LogY)...)
		poly, err := plotter.NewPolygon(ring)
		if err != nil {
			return nil, fmt.Errorf("band of %q: %w", s.method, err)
		}
		poly.Color = translucent(SeriesColor(i), bandAlpha)
		poly.LineStyle = draw.LineStyle{}
		p.Add(poly)
	}
	return occupied, nil
}

// addLines draws every non-empty series as a line with markers and a legend
// entry; it returns the points covered and the number of lines drawn.
func addLines(p *plot.Plot, all []*series, opts LineOptions) ([]plotter.XY, int, error) {
	var occupied []plotter.XY
	plotted := 0
	for i, s := range all {
		if len(s.x) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(s.x))
		for k := range s.x {
			xys[k] = plotter.XY{X: s.x[k], Y: s.y[k]}
		}
		occupied = append(occupied, densify(xys, opts.LogX, opts.LogY)...)
		line, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, 0, fmt.Errorf("line of %q: %w", s.method, err)
		}
		line.LineStyle = seriesLine(i)
		pts.GlyphStyle = seriesGlyph(i)
		p.Add(line, pts)
		name := s.method
		if s.droppedPoints > 0 {
			name = fmt.Sprintf("%s (%d non-finite points left out)", name, s.droppedPoints)
		}
		p.Legend.Add(name, line, pts)
		plotted++
	}
	return occupied, plotted, nil
}
