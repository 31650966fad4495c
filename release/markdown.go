package release

import (
	"fmt"
	"strings"

	"github.com/featuredp/featuredp/internal/mdtext"
)

// Markdown renders the certificate for people: the statement first, then
// the columns, the training run, the accounting and the per-column
// attribute-inference bounds. ε, δ and the bounds are rounded up, never
// below the exact values of the certificate's JSON; a statement written by
// an older build, which rounded them to nearest, is shown rounded up.
func (c *Certificate) Markdown() string {
	if c == nil {
		return "_no certificate_\n"
	}
	var b strings.Builder
	statement := c.Statement
	if statement == c.legacyStatement() {
		statement = c.statement() // an older build's, ε and δ rounded to nearest: show them rounded up
	}
	fmt.Fprintf(&b, "## Privacy certificate\n\n**%s**\n\n", mdText(statement))
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	row := func(k, v string) { fmt.Fprintf(&b, "| %s | %s |\n", k, mdText(v)) }
	row("notion", string(c.Notion))
	row("neighbouring relation", c.Relation)
	row("protected columns", list(c.Protected))
	row("public columns (treated as known)", list(c.Public))
	row("label", c.Label)
	row("ε (target)", fmt.Sprintf("%s (%.6g)", mdtext.Upward(c.Epsilon, 6), c.TargetEpsilon))
	row("δ", mdtext.Upward(c.Delta, 3))
	row("randomness", c.Randomness)
	row("private release", fmt.Sprint(c.PrivateRelease))
	t := c.Training
	tr := fmt.Sprintf("%s; %s sampling q = %.6g, %d steps, noise multiplier %.6g, clip norm %.6g", t.Model, t.Sampling, t.SampleRate, t.Steps, t.NoiseMultiplier, t.ClipNorm)
	if t.Rows > 0 {
		tr += fmt.Sprintf("; update scaled by q·%d (a public row count)", t.Rows)
	}
	row("training", tr)
	a := c.Accounting
	route := a.Route
	if a.Order > 0 {
		route += fmt.Sprintf(" (order %g)", a.Order)
	}
	row("accounting", fmt.Sprintf("%s; route %s; conversion %s; %d orders", a.Accountant, route, a.Conversion, len(a.Orders)))
	row("row count", c.RowCount)
	row("featuredp", c.Featuredp)
	if len(a.Entries) > 0 {
		b.WriteString("\n| ledger entry | relation | part | value |\n|---|---|---|---:|\n")
		for _, e := range a.Entries {
			fmt.Fprintf(&b, "| %s | %s | %s | %.6g |\n", mdText(e.Loss), mdText(e.Relation), mdText(e.Part), e.Value)
		}
	}
	if len(c.AttributeInference) > 0 {
		b.WriteString("\n| protected column | largest prior mass (Ball) | attribute-inference bound (Thm 4) |\n|---|---:|---:|\n")
		for _, r := range c.AttributeInference {
			fmt.Fprintf(&b, "| %s | %.4g (%s) | %s |\n", mdText(r.Column), r.Ball, mdText(r.Why), mdtext.Upward(r.Bound, 4))
		}
	}
	for _, n := range append(append([]string(nil), a.Notes...), c.Notes...) {
		fmt.Fprintf(&b, "\n- %s", mdText(n))
	}
	b.WriteString("\n")
	return b.String()
}

// mdText makes text from a model file (column names, notes) safe in one
// markdown table cell or list item, and on a terminal: line breaks become
// spaces and pipes are escaped, so that a name cannot add a row to the
// certificate, and every other control character (tab aside: ESC, BEL,
// DEL, the C1 controls such as CSI) is written as a Go escape such as
// \x1b (mdtext.Controls), so that a name cannot send a terminal escape
// sequence (clear the screen, retitle the window, forge a link) when
// featuredp certificate prints it.
func mdText(s string) string { return mdtext.Controls(mdBreaks.Replace(s)) }

// mdBreaks turns line breaks into spaces and escapes table pipes.
var mdBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "|", `\|`)

func list(xs []string) string {
	if len(xs) == 0 {
		return "—"
	}
	return strings.Join(xs, ", ")
}
