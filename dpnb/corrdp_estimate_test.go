package dpnb

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/data"
	"github.com/go-gota/gota/dataframe"
	estseries "github.com/go-gota/gota/series"
)

// tvEdgeFrame has a public u on an even grid of [0, 1], a sensitive s and
// a label: s = "a" iff |u − 0.5| < 0.25 ("non-monotone": u determines s,
// TV = 1, which the paper's min-vs-max estimate misses), or the continuous
// s = 2u + 1 ("collinear": eq. (22) has no conditional law, so no TV can be
// estimated).
func tvEdgeFrame(n int, kind string) (dataframe.DataFrame, data.Schema) {
	u, y := make([]float64, n), make([]string, n)
	disc, cont := make([]string, n), make([]float64, n)
	for i := range n {
		u[i] = float64(i) / float64(n-1)
		disc[i] = map[bool]string{true: "a", false: "b"}[math.Abs(u[i]-0.5) < 0.25]
		cont[i] = 2*u[i] + 1
		y[i] = []string{"0", "1"}[(i/7)%2]
	}
	s := estseries.New(disc, estseries.String, "s")
	sCol := data.Column{Name: "s", Role: data.Sensitive, Kind: data.Categorical, Levels: []string{"a", "b"}}
	if kind == "collinear" {
		s, sCol = estseries.New(cont, estseries.Float, "s"), data.Column{Name: "s", Role: data.Sensitive}
	}
	df := dataframe.New(estseries.New(u, estseries.Float, "u"), s, estseries.New(y, estseries.String, "y"))
	return df, data.Schema{Task: data.Classification, Columns: []data.Column{{Name: "u", Role: data.Public}, sCol,
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"0", "1"}}}}
}

// The report's CorrDP weights are safe at the edges of the paper's
// estimator: a public column that determines the sensitive one
// (non-monotonically, or linearly so that eq. (22) is singular) gets
// TV ≈ 1, weight 1 and is marked as leaking; a failed estimate (3 rows,
// fewer than EstimateTV needs) gives weight 1 (never NaN) and says why;
// the note calls TV~ heuristic and does not claim Lemma A.1's (ε, 2δ).
func TestPrivacyReportCorrDPEdges(t *testing.T) {
	for _, c := range []struct {
		kind     string
		n        int
		leaking  bool
		wantNote string
	}{
		{"non-monotone", 2000, true, "heuristic upper confidence bound"},
		{"collinear", 2000, true, "heuristic upper confidence bound"},
		{"non-monotone", 3, false, "conservative weight TV~ = 1"},
	} {
		t.Run(fmt.Sprint(c.kind, c.n), func(t *testing.T) {
			df, schema := tvEdgeFrame(c.n, c.kind)
			r, err := PrivacyReport(context.Background(), df, schema, ReportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			u := r.col("u")
			if u.CorrDPWeight != 1 || u.TVUCB != 1 || u.Leaking != c.leaking || math.IsNaN(u.CorrDPHonestEps) || u.CorrDPClaimedEps != r.Options.Eps {
				t.Errorf("public u: weight %v, TV~ %v, leaking %v (want %v), honest ε %v, claimed ε %v", u.CorrDPWeight, u.TVUCB, u.Leaking, c.leaking, u.CorrDPHonestEps, u.CorrDPClaimedEps)
			}
			if c.leaking && !(u.TV >= 0.99) {
				t.Errorf("TV of u = %v, want ≈ 1", u.TV)
			}
			notes := strings.Join(r.Notes, "\n")
			if !strings.Contains(notes, c.wantNote) || strings.Contains(notes, "is (ε, 2δ)-CorrDP") {
				t.Errorf("notes %q: want %q and no (ε, 2δ) claim", notes, c.wantNote)
			}
		})
	}
}

// The report bins a continuous public column over its public bounds when
// the pipeline gives them, and says so: over [0, 4] the data fill three
// bins of width 0.4 and the TV of the non-monotone frame is 0.875, not 1.
func TestPrivacyReportTVPublicBounds(t *testing.T) {
	df, schema := tvEdgeFrame(2000, "non-monotone")
	p := &ReportPipeline{Bounds: map[string]data.Range{"u": {Lo: 0, Hi: 4}}}
	r, err := PrivacyReport(context.Background(), df, schema, ReportOptions{Pipeline: p})
	if err != nil {
		t.Fatal(err)
	}
	if tv := r.col("u").TV; math.Abs(tv-0.875) > 0.01 {
		t.Errorf("TV of u binned over [0, 4] = %v, want ≈ 0.875", tv)
	}
	if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "over its public bounds") }) {
		t.Errorf("notes %q do not state the public bins", r.Notes)
	}
}

// The helper estimates TVs with the safe estimator: a public column that
// determines the sensitive one (non-monotonically, or linearly) gets
// TV~ = 1, and the Markdown shows the binned TV and calls TV~ heuristic.
func TestCorrDPvsSemiVsStandardTVEdges(t *testing.T) {
	for _, kind := range []string{"non-monotone", "collinear"} {
		t.Run(kind, func(t *testing.T) {
			opts := CorrDPOptions{Eps: []float64{1}, Seeds: 1, Steps: 5, C: 0.01, Workers: 1,
				Encode: data.EncodeOptions{Scale: data.MinMax, Bounds: map[string]data.Range{"u": {Lo: 0, Hi: 1}}}}
			if kind == "collinear" {
				opts.Encode.Bounds["s"] = data.Range{Lo: 1, Hi: 3}
			}
			df, schema := tvEdgeFrame(600, kind)
			res, err := CorrDPvsSemiVsStandard(context.Background(), df, schema, opts)
			if err != nil {
				t.Fatal(err)
			}
			if f := res.TVReport.Features[0]; !(f.TV >= 0.99) || res.TVEstimated["u"] != 1 {
				t.Errorf("u: TV^ %v (model %v, bins %v), TV~ %v; want ≈ 1", f.TV, f.TVModel, f.TVBinned, res.TVEstimated["u"])
			}
			if md := res.Markdown(); !strings.Contains(md, "heuristic upper confidence bound") || !strings.Contains(md, "TV_bins") {
				t.Errorf("Markdown does not call TV~ heuristic or lacks the binned TV:\n%s", md)
			}
		})
	}
}
