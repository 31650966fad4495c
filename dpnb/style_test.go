package dpnb

import (
	"fmt"
	"testing"
)

// Every series of a chart of up to 14 series has its own colour (bars and
// lines take SeriesColor(i)), and lines stay distinct beyond that through
// their dashes (#28: the ninth series used to repeat the first's blue).
func TestSeriesColoursDistinct(t *testing.T) {
	colours := map[string]int{}
	for i := range len(Palette) {
		c := fmt.Sprint(SeriesColor(i))
		if j, dup := colours[c]; dup {
			t.Errorf("series %d and %d share colour %s", j, i, c)
		}
		colours[c] = i
	}
	if len(Palette) < 14 {
		t.Errorf("%d colours: charts of up to 14 series would repeat one", len(Palette))
	}
	lines := map[string]int{}
	for i := range 3 * len(Palette) {
		l := seriesLine(i)
		k := fmt.Sprint(l.Color, l.Dashes)
		if j, dup := lines[k]; dup {
			t.Errorf("line series %d repeats the colour and dashes of series %d", i, j)
		}
		lines[k] = i
	}
}
