package dpnb

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/data"
	"github.com/go-gota/gota/dataframe"
	reportseries "github.com/go-gota/gota/series"
)

// reportFrame has a sensitive yes/no column, a public column independent of
// it, a public copy of it and a label.
func reportFrame(n int) (dataframe.DataFrame, data.Schema) {
	rng := rand.New(rand.NewPCG(11, 12))
	s, indep, cp, y := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i := range n {
		s[i] = map[bool]string{true: "yes", false: "no"}[rng.IntN(2) == 0]
		indep[i] = []string{"a", "b", "c"}[rng.IntN(3)]
		cp[i] = s[i]
		y[i] = map[bool]string{true: "yes", false: "no"}[rng.IntN(2) == 0]
	}
	df := dataframe.New(reportseries.New(s, reportseries.String, "smoker"), reportseries.New(indep, reportseries.String, "region"),
		reportseries.New(cp, reportseries.String, "smoker_copy"), reportseries.New(y, reportseries.String, "y"))
	yn := []string{"no", "yes"}
	return df, data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "smoker", Role: data.Sensitive, Kind: data.Categorical, Levels: yn},
		{Name: "region", Role: data.Public, Kind: data.Categorical, Levels: []string{"a", "b", "c"}},
		{Name: "smoker_copy", Role: data.Public, Kind: data.Categorical, Levels: yn},
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: yn},
	}}
}

// An independent public column has TV ≈ 0; a public copy of the sensitive
// column has TV = 1 and is marked as leaking; the sensitive column is
// protected by feature DP with the Thm 4 bound, and gets its BCDP level.
func TestPrivacyReport(t *testing.T) {
	df, schema := reportFrame(4000)
	r, err := PrivacyReport(context.Background(), df, schema, ReportOptions{Eps: 0.5, Levels: map[string]float64{"smoker": 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	indep, cp, s := r.col("region"), r.col("smoker_copy"), r.col("smoker")
	if !(indep.TV < 0.05) || indep.Leaking {
		t.Errorf("independent column: TV %v, leaking %v", indep.TV, indep.Leaking)
	}
	if math.Abs(cp.TV-1) > 1e-9 || !cp.Leaking || cp.CorrDPWeight != 1 {
		t.Errorf("copy: TV %v, weight %v, leaking %v", cp.TV, cp.CorrDPWeight, cp.Leaking)
	}
	if !s.FDPProtected || math.Abs(s.FDPBound-(math.Exp(0.5)*0.5+1e-5)) > 1e-12 || s.CorrDPWeight != 1 {
		t.Errorf("sensitive: %+v", *s)
	}
	if s.BCDPLevel != 0.2 || !(s.BCDPAlloc > 0 && s.BCDPAlloc <= 0.2) || !math.IsInf(indep.BCDPLevel, 1) {
		t.Errorf("BCDP: sensitive %v → %v, public level %v", s.BCDPLevel, s.BCDPAlloc, indep.BCDPLevel)
	}
	md := r.Markdown()
	if !strings.Contains(md, "**leaks**") || !strings.Contains(md, "reads the private data") {
		t.Errorf("markdown:\n%s", md)
	}
	if r.Table().Nrow() != 4 {
		t.Errorf("table rows %d", r.Table().Nrow())
	}
	if _, err := r.Plot(); err != nil {
		t.Error(err)
	}
}

func TestPrivacyReportBadInput(t *testing.T) {
	df, schema := reportFrame(200)
	bad := schema.Clone()
	bad.Columns[1].Name = "regoin"
	for _, tc := range []struct {
		name   string
		schema data.Schema
		opts   ReportOptions
		want   string
	}{
		{"ε < 0", schema, ReportOptions{Eps: -1}, "ε"},
		{"δ = 1", schema, ReportOptions{Delta: 1}, "δ"},
		{"q = 2", schema, ReportOptions{Q: 2}, "q"},
		{"misspelt column", bad, ReportOptions{}, "regoin"},
		{"Levels of a public column", schema, ReportOptions{Levels: map[string]float64{"region": 1}}, `"region" is not a Sensitive column`},
		{"Ball misspelt", schema, ReportOptions{Ball: map[string]float64{"smokr": 0.5}}, `"smokr"`},
	} {
		if _, err := PrivacyReport(context.Background(), df, tc.schema, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
