package dpnb

import (
	"strings"
	"testing"
	"unicode"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/corrdp"
	"github.com/featuredp/featuredp/notions/fdp"
)

// hostile is a column name of a third-party CSV that, printed raw, would
// retitle the terminal window (OSC), clear the screen (CSI), ring the bell
// and, through the pipe, break the table row.
const hostile = "age\x1b]0;pwned\x07\x1b[2J|x\u009b1m"

// rawControl returns the first control character other than tab and line
// feed in s, or -1.
func rawControl(s string) rune {
	for _, r := range s {
		if r != '\t' && r != '\n' && unicode.IsControl(r) {
			return r
		}
	}
	return -1
}

// TestMarkdownEscapesControlCharacters: no report or table dpnb renders
// carries a control character from a column name or note raw to the
// terminal; each is written as a visible escape such as \x1b.
func TestMarkdownEscapesControlCharacters(t *testing.T) {
	report := &PrivacyReportResult{
		Columns:  []ColumnPrivacy{{Column: hostile, FDPNote: "note " + hostile}},
		Notes:    []string{"a note naming " + hostile},
		FromData: []string{"the levels of " + hostile},
	}
	cmp := &FeatureDPResult{Comparison: &fdp.Comparison{
		Public: []string{hostile}, Private: []string{hostile},
		NoBound: []fdp.UnboundedColumn{{Column: hostile, Reason: "no prior"}},
	}}
	corr := &CorrDPResult{Result: &Result{}, TVReport: &corrdp.TVReport{
		Features: []corrdp.TVFeature{{Name: hostile}}, Notes: "notes on " + hostile,
	}}
	sums := []experiments.Summary{{Method: "DP", Group: hostile, Metric: "accuracy", X: 1}}
	for _, c := range []struct{ name, md string }{
		{"PrivacyReportResult", report.Markdown()},
		{"FeatureDPResult", cmp.Markdown()},
		{"CorrDPResult", corr.Markdown()},
		{"PaperVsRun", PaperVsRun([]Comparison{{Quantity: hostile, Note: hostile}})},
		{"SummaryMarkdown", SummaryMarkdown(sums, "accuracy", hostile)},
	} {
		if r := rawControl(c.md); r != -1 {
			t.Errorf("%s.Markdown holds the raw control character %U:\n%q", c.name, r, c.md)
		}
		for _, line := range strings.Split(c.md, "\n") {
			if strings.HasPrefix(line, "|") && strings.Contains(line, "[2J|x") {
				t.Errorf("%s.Markdown leaves the name's pipe unescaped in a table row (it splits the cell): %q", c.name, line)
			}
		}
		if !strings.Contains(c.md, `\x1b]0;pwned\x07`) {
			t.Errorf("%s.Markdown does not show the name's escape sequence as visible text:\n%q", c.name, c.md)
		}
	}
}
