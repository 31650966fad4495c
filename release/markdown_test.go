package release

import (
	"strings"
	"testing"

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
