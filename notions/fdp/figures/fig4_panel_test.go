package figures

import (
	"strings"
	"testing"

	"github.com/featuredp/featuredp/experiments"
)

// TestFig4SettingsNameAMissingPanel: fdp-fig4 has a Fashion-MNIST panel
// only when the files are found; its settings (report.md) say so exactly
// when the cells leave that panel out, so a one-panel figure is never
// silent about it.
func TestFig4SettingsNameAMissingPanel(t *testing.T) {
	fig, ok := experiments.Lookup("fdp-fig4")
	if !ok {
		t.Fatal("fdp-fig4 not registered")
	}
	hasFashion := false
	for _, c := range Fig4Cells(Fig4Profile(experiments.Quick)) {
		if c.Config.(fig4Cell).Dataset == "fashion-mnist" {
			hasFashion = true
		}
	}
	said := strings.Contains(fig.Settings(experiments.Quick), "NO FASHION-MNIST PANEL")
	if said == hasFashion {
		t.Errorf("Fashion-MNIST cells %v, settings say the panel is missing %v", hasFashion, said)
	}
}
