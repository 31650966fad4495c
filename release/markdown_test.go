package release

import (
	"strings"
	"testing"
	"unicode"

	"github.com/featuredp/featuredp/accounting"
)

// Names in a certificate come from the user's (or a hostile) file: one
// holding a line break and table pipes cannot add a row to the printed
// certificate (here a forged "ε (target)" row claiming 0.001): every line
// of the markdown is the renderer's.
func TestMarkdownEscapesNames(t *testing.T) {
	c := certificate(t, FeatureDP, accounting.RelationFeatureSimulator, true)
	forged := "sex |\n| ε (target) | 0.001 (0.001) |\n| x"
	c.Protected = []string{forged}
	c.Label = "y\r\n| private release | true |"
	c.Notes = append(c.Notes, "a note\n| δ | 0 |")
	md := c.Markdown()
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| ε (target) | 0.001") || strings.HasPrefix(line, "| δ | 0 |") || strings.Count(md, "| private release |") != 1 {
			t.Fatalf("a name added a row to the certificate:\n%s", md)
		}
	}
	if !strings.Contains(md, `sex \|`) {
		t.Errorf("the pipe of a name is not escaped:\n%s", md)
	}
}

// A name from a (hostile) model file cannot send a terminal escape
// sequence through the printed certificate: ESC, BEL, DEL and the C1 CSI
// are written as visible escapes (the old markdown wrote them raw).
func TestMarkdownEscapesControls(t *testing.T) {
	c := certificate(t, FeatureDP, accounting.RelationFeatureSimulator, true)
	c.Protected = []string{"sex\x1b[2J\x1b]0;title\x07", "a\u009b31m"}
	c.Label = "y\x7f\x00"
	c.Notes = append(c.Notes, "note\x1b]8;;http://x\x1b\\link")
	md := c.Markdown()
	if i := strings.IndexFunc(md, func(r rune) bool { return r != '\n' && r != '\t' && unicode.IsControl(r) }); i >= 0 {
		t.Fatalf("a control character %q at byte %d of the markdown:\n%q", md[i:i+1], i, md)
	}
	for _, want := range []string{`sex\x1b[2J\x1b]0;title\x07`, `a\x9b31m`, `y\x7f\x00`, `note\x1b]8;;http://x\x1b\link`} {
		if !strings.Contains(md, want) {
			t.Errorf("no %s in the markdown:\n%s", want, md)
		}
	}
	if got := mdText("tab\there, ε, \u00e9"); got != "tab\there, ε, \u00e9" {
		t.Errorf("mdText changed printable text: %q", got)
	}
}
