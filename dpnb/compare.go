package dpnb

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/mdtext"
)

// Comparison is one number the paper reports beside the same quantity
// computed by this run. Ours is NaN when this run did not compute it.
type Comparison struct {
	Quantity string
	Paper    float64
	Ours     float64
	Note     string
	// Tol is the relative tolerance of Agrees [experiments.DefaultTol].
	Tol float64
}

// Agrees reports whether this run agrees with the paper within the
// tolerance: |Ours − Paper| ≤ Tol·|Paper|, or |Ours| ≤ Tol when Paper is 0.
// ok is false when either number is NaN (nothing to judge).
func (c Comparison) Agrees() (agree, ok bool) {
	if math.IsNaN(c.Paper) || math.IsNaN(c.Ours) {
		return false, false
	}
	tol := c.Tol
	if tol <= 0 {
		tol = experiments.DefaultTol
	}
	if c.Ours == c.Paper {
		return true, true
	}
	scale := math.Abs(c.Paper)
	if c.Paper == 0 {
		scale = 1
	}
	return math.Abs(c.Ours-c.Paper) <= tol*scale, true
}

// Verdict is "agrees", "disagrees" or "—" (see Agrees), with the tolerance.
func (c Comparison) Verdict() string {
	agree, ok := c.Agrees()
	tol := c.Tol
	if tol <= 0 {
		tol = experiments.DefaultTol
	}
	switch {
	case !ok:
		return "—"
	case agree:
		return fmt.Sprintf("agrees (±%.3g%%)", 100*tol)
	}
	return fmt.Sprintf("disagrees (±%.3g%%)", 100*tol)
}

// RelDiff returns (Ours − Paper)/|Paper|: NaN if either is NaN or Paper is
// 0 while Ours is not, and 0 if both are equal.
func (c Comparison) RelDiff() float64 {
	switch {
	case math.IsNaN(c.Paper) || math.IsNaN(c.Ours):
		return math.NaN()
	case c.Ours == c.Paper:
		return 0
	case c.Paper == 0:
		return math.NaN()
	}
	return (c.Ours - c.Paper) / math.Abs(c.Paper)
}

// PaperVsRun formats the comparisons as a markdown table with the columns
// Quantity, Paper, This run, Rel. diff, Verdict and Note. Numbers are printed with
// 10 significant digits; the relative difference (Ours − Paper)/|Paper| is a
// signed percentage ("—" when it is undefined, e.g. a value this run did not
// compute). It returns "" for no rows.
func PaperVsRun(rows []Comparison) string {
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| Quantity | Paper | This run | Rel. diff | Verdict | Note |\n")
	b.WriteString("|---|---:|---:|---:|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n",
			mdCell(r.Quantity), formatNumber(r.Paper), formatNumber(r.Ours), formatRelDiff(r.RelDiff()), r.Verdict(), mdCell(r.Note))
	}
	return b.String()
}

// mdCell escapes a string for a markdown table cell: pipes are escaped,
// runs of white space (line breaks among them) become one space, and
// other control characters are written as visible escapes (mdtext).
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return mdtext.Controls(strings.Join(strings.Fields(s), " "))
}

// cells applies mdCell to every string of xs.
func cells(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = mdCell(x)
	}
	return out
}

func formatNumber(v float64) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case math.IsInf(v, 1):
		return "∞"
	case math.IsInf(v, -1):
		return "−∞"
	}
	return strconv.FormatFloat(v, 'g', 10, 64)
}

func formatRelDiff(d float64) string {
	switch {
	case math.IsNaN(d):
		return "—"
	case d == 0:
		return "0%"
	case math.IsInf(d, 0):
		return formatNumber(d)
	case math.Abs(d) >= 1e-4:
		return fmt.Sprintf("%+.2f%%", 100*d)
	}
	return fmt.Sprintf("%+.1e%%", 100*d)
}

// SummaryMarkdown pivots the summaries of one metric into a markdown table:
// one row per x value (increasing), one column per series (method, plus
// the group of grouped summaries, in order of first appearance), each cell
// "mean ± sd" with 3 decimals ("–" where the series has no point).
func SummaryMarkdown(sums []experiments.Summary, metric, xLabel string) string {
	var series []string
	seen := map[string]bool{}
	xset := map[float64]bool{}
	for _, s := range sums {
		if s.Metric != metric {
			continue
		}
		if name := s.Series(); !seen[name] {
			seen[name] = true
			series = append(series, name)
		}
		xset[s.X] = true
	}
	if len(series) == 0 {
		return ""
	}
	xs := make([]float64, 0, len(xset))
	for x := range xset {
		xs = append(xs, x)
	}
	sort.Float64s(xs)
	cell := map[string]map[float64]experiments.Summary{}
	for _, s := range sums {
		if s.Metric == metric {
			if cell[s.Series()] == nil {
				cell[s.Series()] = map[float64]experiments.Summary{}
			}
			cell[s.Series()][s.X] = s
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| %s | %s |\n|---:|%s\n", mdCell(xLabel), strings.Join(cells(series), " | "), strings.Repeat("---:|", len(series)))
	for _, x := range xs {
		fmt.Fprintf(&b, "| %g |", x)
		for _, name := range series {
			if s, ok := cell[name][x]; ok {
				fmt.Fprintf(&b, " %.3f ± %.3f |", s.Mean, s.SD)
			} else {
				b.WriteString(" – |")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
