package dpnb

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Comparison is one number the paper reports beside the same quantity
// computed by this run. Ours is NaN when this run did not compute it.
type Comparison struct {
	Quantity string
	Paper    float64
	Ours     float64
	Note     string
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
// Quantity, Paper, This run, Rel. diff and Note. Numbers are printed with
// 10 significant digits; the relative difference (Ours − Paper)/|Paper| is a
// signed percentage ("—" when it is undefined, e.g. a value this run did not
// compute). It returns "" for no rows.
func PaperVsRun(rows []Comparison) string {
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("| Quantity | Paper | This run | Rel. diff | Note |\n")
	b.WriteString("|---|---:|---:|---:|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n",
			mdCell(r.Quantity), formatNumber(r.Paper), formatNumber(r.Ours), formatRelDiff(r.RelDiff()), mdCell(r.Note))
	}
	return b.String()
}

// mdCell escapes a string for a markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.Join(strings.Fields(s), " ")
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
