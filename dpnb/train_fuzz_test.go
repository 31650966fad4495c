package dpnb

import (
	"context"
	"math"
	"testing"

	"github.com/featuredp/featuredp/release"
)

// FuzzTrainOptions trains with arbitrary numeric options: Train returns an
// error or a model file, never panics, and a file it returns is valid, with
// a certificate whose ε is at most the target and whose δ is the one asked
// for. Runs longer than 4,000 steps are skipped (time, not correctness).
func FuzzTrainOptions(f *testing.F) {
	df, schema := corrdpUserFrame(120)
	f.Add(2.0, 1e-5, 0.05, 2.0, 1.0, 0.5, 0, uint8(0))
	f.Add(0.05, 1e-5, 1.0, 3.0, 1e-300, 1e300, 1, uint8(1))
	f.Add(1e300, 0.999, 1e-300, 1e-300, 5e-324, 0.0, 2, uint8(2))
	f.Add(2.0, 1e-5, 0.05, 2.0, 1.0, 1.7e308, 0, uint8(5)) // diverges: an error, not a file with θ = ±Inf
	f.Fuzz(func(t *testing.T, eps, delta, rate, epochs, clip, lr float64, hidden int, kind uint8) {
		o := trainOpts()
		o.Epsilon, o.Delta, o.SampleRate, o.Epochs, o.Clip, o.LR, o.Hidden = eps, delta, rate, epochs, clip, lr, hidden%64
		o.Model = []string{"", release.KindLogistic, release.KindMLP, "forest"}[kind%4]
		o.Notion = []release.Notion{"", release.FeatureDP, release.DP}[kind/4%3]
		if o.Notion == release.DP {
			o.Rows = 120 // public row count, required under DP
		}
		r, e := o.SampleRate, o.Epochs
		if r == 0 {
			r = 0.01
		}
		if e == 0 {
			e = 5
		}
		if e/r > 4000 || math.IsNaN(e/r) {
			return
		}
		m, err := Train(context.Background(), df, schema, o)
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("Train returned an invalid file: %v", err)
		}
		c := m.Certificate
		want := o.Delta
		if want == 0 {
			want = 1e-5
		}
		if !(c.Epsilon <= eps*(1+1e-12)) || c.Delta != want {
			t.Fatalf("certificate (ε = %v, δ = %v) for target ε = %v, δ = %v", c.Epsilon, c.Delta, eps, want)
		}
	})
}
