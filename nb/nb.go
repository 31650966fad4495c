// Package nb shows featuredp results inside a GoNB (Go kernel for Jupyter)
// notebook: plots, DataFrames as HTML tables, markdown (with LaTeX) and a live
// progress bar. It is the only package of featuredp that imports gonbui.
//
// Every Show function is a no-op outside a kernel (when the GONB_PIPE
// environment variable is not set), so library code and tests may call them
// freely. The rendering helpers (TableHTML, ProgressHTML) are pure and work
// everywhere.
package nb

import (
	"bytes"

	"fmt"
	"html"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/eta"
	"github.com/featuredp/featuredp/internal/plotrender"

	"github.com/go-gota/gota/dataframe"
	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// InKernel reports whether the program runs inside a GoNB kernel.
func InKernel() bool { return gonbui.IsNotebook }

// Default plot size used by ShowPlot when w or h is zero: 6 × 4 inches.
const (
	DefaultWidth  = plotrender.DefaultWidth
	DefaultHeight = plotrender.DefaultHeight
)

func render(p *plot.Plot, w, h vg.Length, format string) ([]byte, error) {
	if p == nil {
		return nil, fmt.Errorf("nb: nil plot")
	}
	if err := plotrender.CheckAxes(p); err != nil {
		return nil, fmt.Errorf("nb: %w", err)
	}
	w, h = plotrender.Fit(p, w, h) // defaults, grown so that the legend is never clipped
	wt, err := p.WriterTo(w, h, format)
	if err != nil {
		return nil, fmt.Errorf("nb: rendering plot as %s: %w", format, err)
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("nb: writing %s: %w", format, err)
	}
	return buf.Bytes(), nil
}

// ShowPlot renders p as a PNG of size w × h (zero means the default 6 × 4 in)
// and displays it inline. The rendering runs (and can fail) outside a kernel
// too, so a broken plot is caught by tests.
func ShowPlot(p *plot.Plot, w, h vg.Length) error {
	b, err := render(p, w, h, "png")
	if err != nil {
		return err
	}
	gonbui.DisplayPng(b)
	return nil
}

// ShowPlotSVG renders p as SVG and displays it with the image/svg+xml MIME
// type (gonbui.DisplaySvg would wrap it in HTML instead).
func ShowPlotSVG(p *plot.Plot, w, h vg.Length) error {
	b, err := render(p, w, h, "svg")
	if err != nil {
		return err
	}
	if InKernel() {
		gonbui.SendData(&protocol.DisplayData{Data: map[protocol.MIMEType]any{protocol.MIMEImageSVG: string(b)}})
	}
	return nil
}

// ShowMarkdown displays markdown; $…$ and $$…$$ LaTeX is rendered by Jupyter.
func ShowMarkdown(md string) { gonbui.DisplayMarkdown(md) }

// ShowHTML displays raw HTML.
func ShowHTML(h string) { gonbui.DisplayHtml(h) }

// ShowTable displays df as an HTML table with at most maxRows rows
// (maxRows ≤ 0 means 50); a final row says how many rows were left out.
func ShowTable(df dataframe.DataFrame, maxRows int) error {
	s, err := TableHTML(df, maxRows)
	if err != nil {
		return err
	}
	gonbui.DisplayHtml(s)
	return nil
}

// TableHTML renders df as an HTML table (cells escaped; floats printed with
// 6 significant digits). maxRows ≤ 0 means 50.
func TableHTML(df dataframe.DataFrame, maxRows int) (string, error) {
	if df.Err != nil {
		return "", fmt.Errorf("nb: table: %w", df.Err)
	}
	if maxRows <= 0 {
		maxRows = 50
	}
	nrow, ncol := df.Dims()
	var b strings.Builder
	b.WriteString(`<table style="border-collapse:collapse;font-size:90%"><thead><tr>`)
	for _, name := range df.Names() {
		fmt.Fprintf(&b, `<th style="text-align:right;padding:2px 8px;border-bottom:1px solid #888">%s</th>`, html.EscapeString(name))
	}
	b.WriteString("</tr></thead><tbody>")
	shown := min(nrow, maxRows)
	cols := make([][]string, ncol)
	for j := 0; j < ncol; j++ {
		s := df.Col(df.Names()[j])
		vals := make([]string, shown)
		for i := 0; i < shown; i++ {
			e := s.Elem(i)
			if e.Type() == "float" {
				f := e.Float()
				if math.IsNaN(f) {
					vals[i] = "NaN"
				} else {
					vals[i] = fmt.Sprintf("%.6g", f)
				}
			} else {
				vals[i] = e.String()
			}
		}
		cols[j] = vals
	}
	for i := 0; i < shown; i++ {
		b.WriteString("<tr>")
		for j := 0; j < ncol; j++ {
			fmt.Fprintf(&b, `<td style="text-align:right;padding:2px 8px">%s</td>`, html.EscapeString(cols[j][i]))
		}
		b.WriteString("</tr>")
	}
	if nrow > shown {
		fmt.Fprintf(&b, `<tr><td colspan="%d" style="font-style:italic;padding:2px 8px">… %d more rows</td></tr>`, max(ncol, 1), nrow-shown)
	}
	b.WriteString("</tbody></table>")
	return b.String(), nil
}

// Renderable is a result that can show itself as markdown, a plot and a
// table (dpnb.Result implements it).
type Renderable interface {
	Markdown() string
	Plot() (*plot.Plot, error)
	Table() dataframe.DataFrame
}

// Paneled is a Renderable drawn as several panels side by side (a figure
// with one panel per dataset, say; dpnb.Result implements it).
type Paneled interface {
	Panels() ([]*plot.Plot, error)
}

// ShowResult displays r's markdown report, its plot (its panels side by
// side when r is Paneled) and the first maxRows rows of its table.
func ShowResult(r Renderable, maxRows int) error {
	if r == nil {
		return fmt.Errorf("nb: nil result")
	}
	ShowMarkdown(r.Markdown())
	if err := showResultPlot(r); err != nil {
		return err
	}
	return ShowTable(r.Table(), maxRows)
}

// showResultPlot displays r's panels, or its plot.
func showResultPlot(r Renderable) error {
	if pr, ok := r.(Paneled); ok {
		panels, err := pr.Panels()
		if err != nil {
			return fmt.Errorf("nb: result panels: %w", err)
		}
		if len(panels) > 1 {
			b, err := plotrender.Tiles(panels, "png", 144)
			if err != nil {
				return fmt.Errorf("nb: %w", err)
			}
			gonbui.DisplayPng(b)
			return nil
		}
	}
	p, err := r.Plot()
	if err != nil {
		return fmt.Errorf("nb: result plot: %w", err)
	}
	return ShowPlot(p, 0, 0)
}

// Progress is a live progress bar in a notebook cell. Its Update method has
// the signature of the experiment runner's progress callback. Safe for
// concurrent use. Its estimate of the time left is the command line's
// (eta.ForUnits): at the pace after the setup.
type Progress struct {
	mu    sync.Mutex
	id    string
	label string
	done  int
	total int
	start time.Time
	pace  eta.Pace         // the time left, at the pace after the setup
	now   func() time.Time // the clock (time.Now; tests replace it)
}

// NewProgress creates a progress bar with a label; nothing is shown until the
// first Update. It counts cells run on every core (a figure run with
// experiments.Env{}), which also serves finer units; NewFigureProgress
// knows what a figure counts.
func NewProgress(label string) *Progress {
	return newProgress(label, "cells", 0)
}

// NewFigureProgress creates the progress bar of a run of figure f with
// workers parallel workers (0: every core, as experiments.Env.Workers),
// labelled with its ID: it counts what the runner reports for f (cells,
// or the units of f.Work such as training steps) and estimates the time
// left as the command line's bar does.
func NewFigureProgress(f experiments.Figure, workers int) *Progress {
	return newProgress(f.ID, f.ProgressUnit(), workers)
}

// newProgress is a bar counting unit, cells run by workers workers.
func newProgress(label, unit string, workers int) *Progress {
	return &Progress{id: "featuredp-progress-" + gonbui.UniqueId(), label: label, pace: eta.ForUnits(unit, workers), now: time.Now}
}

// Update sets the bar to done of total and redraws it.
func (p *Progress) Update(done, total int) {
	p.mu.Lock()
	s := p.html(done, total)
	p.mu.Unlock()
	gonbui.UpdateHtml(p.id, s)
}

// html records done of total and renders the bar (p.mu held): the time
// left at the pace after the setup (p.pace), from the first Update on.
func (p *Progress) html(done, total int) string {
	now := p.now()
	if p.start.IsZero() {
		p.start = now
	}
	p.done, p.total = done, total
	elapsed := now.Sub(p.start)
	total, done = barRange(done, total)
	return progressHTML(p.label, done, total, p.pace.Status(elapsed, done, total))
}

// Done replaces the bar with a final one-line summary.
func (p *Progress) Done() {
	p.mu.Lock()
	s := fmt.Sprintf("%s: %d/%d done in %s", html.EscapeString(p.label), p.done, p.total, eta.Format(p.now().Sub(p.start)))
	p.mu.Unlock()
	gonbui.UpdateHtml(p.id, s)
}

// ProgressHTML renders a progress bar as HTML: a <progress> element, the
// "done/total" count, the time elapsed and an estimate of the time left.
// total ≤ 0 renders an empty bar.
func ProgressHTML(label string, done, total int, elapsed time.Duration) string {
	total, done = barRange(done, total)
	return progressHTML(label, done, total, eta.Status(elapsed, done, total))
}

// barRange returns total and done as the bar shows them: total ≤ 0 as an
// empty bar of 1, done within [0, total].
func barRange(done, total int) (int, int) {
	if total <= 0 {
		return 1, 0
	}
	return total, max(0, min(done, total))
}

// progressHTML renders the bar with its status (the time elapsed and left).
func progressHTML(label string, done, total int, status string) string {
	return fmt.Sprintf(`<div>%s <progress value="%d" max="%d" style="width:40%%"></progress> %d/%d (%.0f%%), %s</div>`,
		html.EscapeString(label), done, total, done, total, 100*float64(done)/float64(total), status)
}
