package dpnb

import (
	"strings"
	"testing"
)

// The reports state an ε or a bound rounded up, never below the exact
// value (mdtext.Upward): on the old code %.4g printed 1.23444 as 1.234.
func TestReportsRoundEpsilonUp(t *testing.T) {
	const eps = 1.2344399999999998 // %.4g: 1.234, below
	for _, tc := range []struct {
		name, md string
	}{
		{"smooth pipeline", (&SmoothPipelineReport{EpsIgnoring: eps, EpsConservative: eps, EpsTight: eps, EpsGroup: eps, EpsBest: eps, Delta: 1e-5}).Markdown()},
	} {
		if strings.Contains(tc.md, "1.234 ") || strings.Contains(tc.md, "1.234*") || strings.Contains(tc.md, "1.234-") || !strings.Contains(tc.md, "1.235") {
			t.Errorf("%s: ε %v not rounded up to 1.235:\n%s", tc.name, eps, tc.md)
		}
	}
}
