package dpnb

import (
	"context"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/release"
)

// A release whose δ is at least 1/n, or whose steps sample fewer than one
// row on average, is refused with the fix; n is the public Rows, and under
// feature DP also the actual count (under DP the actual count is private
// and never read). Before, every case but the last trained: a 1,000,000-row
// release at the default δ = 1e-5, and a one-row model of probabilities 1
// and 1e-225. Fails on the old code.
func TestTrainRowCount(t *testing.T) {
	with := func(edit func(*TrainOptions)) TrainOptions {
		o := trainOpts() // feature DP, q = 0.05, δ = 1e-5
		edit(&o)
		return o
	}
	for _, tc := range []struct {
		name string
		rows int
		o    TrainOptions
		want []string // "" when the run trains
	}{
		{"feature DP, δ ≥ 1/n", 1500, with(func(o *TrainOptions) { o.Delta = 1e-3 }),
			[]string{"Delta = 0.001 is at least 1/n", "1500 rows", "e.g. 1e-06", "--delta"}},
		{"feature DP, one row", 1, trainOpts(), []string{"SampleRate·n = 0.05·1", "at least 1/n = 1", "--sample-rate"}},
		{"feature DP, q·n < 1", 10, trainOpts(), []string{"SampleRate·n = 0.05·10 = 0.5 < 1"}},
		{"feature DP, public Rows with δ ≥ 1/Rows", 1500, with(func(o *TrainOptions) { o.Rows = 1_000_000 }),
			[]string{"Delta = 1e-05 is at least 1/n = 1e-06 for Rows = 1000000", "e.g. 1e-08"}},
		{"DP, public Rows with δ ≥ 1/Rows", 1500, with(func(o *TrainOptions) { o.Notion, o.Rows = release.DP, 200_000 }),
			[]string{"for Rows = 200000, the public row count"}},
		{"DP, q·Rows < 1", 1500, with(func(o *TrainOptions) { o.Notion, o.Rows = release.DP, 10 }),
			[]string{"SampleRate·n = 0.05·10"}},
		{"DP, few actual rows: private, not read", 10, with(func(o *TrainOptions) { o.Notion, o.Rows = release.DP, 1000 }), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			df, schema := corrdpUserFrame(tc.rows)
			_, err := Train(context.Background(), df, schema, tc.o)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("trained")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
		})
	}
}
