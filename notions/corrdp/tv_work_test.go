package corrdp

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/data"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// workCol is a column of workFrame: categorical when str is set, else
// numeric (num).
type workCol struct {
	name string
	role data.Role
	str  func(i int) string
	num  func(i int) float64
}

// workFrame builds an n-row frame of cols and its schema.
func workFrame(n int, cols ...workCol) (dataframe.DataFrame, data.Schema) {
	schema := data.Schema{Task: data.Unsupervised}
	var ss []series.Series
	for _, c := range cols {
		if c.str != nil {
			v := make([]string, n)
			for i := range v {
				v[i] = c.str(i)
			}
			ss = append(ss, series.New(v, series.String, c.name))
			schema.Columns = append(schema.Columns, data.Column{Name: c.name, Role: c.role, Kind: data.Categorical})
			continue
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = c.num(i)
		}
		ss = append(ss, series.New(v, series.Float, c.name))
		schema.Columns = append(schema.Columns, data.Column{Name: c.name, Role: c.role, Kind: data.Continuous})
	}
	return dataframe.New(ss...), schema
}

// level returns a categorical column's cell function: prefix and f(i).
func level(prefix string, f func(i int) int) func(int) string {
	return func(i int) string { return fmt.Sprintf("%s%d", prefix, f(i)) }
}

// workCase is a frame whose TV work is known from its construction.
type workCase struct {
	name   string
	df     dataframe.DataFrame
	schema data.Schema
	opts   TVOptions
	want   float64
	heavy  []string
	// exact: the estimate visits every pair of groups and every cell
	// counted (no group below MinGroup, every histogram cell occupied), so
	// the pairs it compares equal the count.
	exact bool
}

// workCases are the tables of the old dpnb estimate's tests (an
// identifier, Adult-like frames with a few-valued and a continuous public
// column, N-jointU configurations) with their work written as the
// formula of TVWork over counts known by construction.
func workCases() []workCase {
	pair := func(k float64) float64 { return k * (k - 1) / 2 }
	var cases []workCase
	// An identifier: 600 unique sensitive names (k_S = 600) and 300 public
	// zips of two rows each, d = 0: the old estimate's 3.4e9-operation
	// table at n = 3000, here at 600.
	id, ids := workFrame(600,
		workCol{name: "name", role: data.Sensitive, str: level("p", func(i int) int { return i })},
		workCol{name: "zip", role: data.Public, str: level("z", func(i int) int { return i / 2 })})
	cases = append(cases, workCase{"identifier", id, ids, TVOptions{}, pair(300) * 600, []string{"zip"}, true})

	// Adult-like, n = 420: categorical sensitive m (3 levels) and r (2), a
	// sensitive 0/1 number b (read as discrete: k_S = 3·2·2 = 12, all
	// joint values present), a continuous sensitive x (d = 1); a public
	// categorical w of 4 levels of 105 rows, and a continuous public u
	// whose 7 default bins over its public bounds [0, 7] hold 60 rows each.
	const n = 420
	adult := []workCol{
		{name: "m", role: data.Sensitive, str: level("m", func(i int) int { return i % 3 })},
		{name: "r", role: data.Sensitive, str: level("r", func(i int) int { return i % 2 })},
		{name: "b", role: data.Sensitive, num: func(i int) float64 { return float64((i / 6) % 2) }},
		{name: "x", role: data.Sensitive, num: func(i int) float64 { return float64(i*7919%1000) / 1000 }},
		{name: "w", role: data.Public, str: level("w", func(i int) int { return i % 4 })},
		{name: "u", role: data.Public, num: func(i int) float64 { return float64(i%7) + 0.1 + 0.8*float64(i/7)/60 }},
	}
	df, schema := workFrame(n, adult...)
	bounds := map[string]data.Range{"u": {Lo: 0, Hi: 7}}
	w := pair(4) * (12 + float64(HistogramBins(105, 1)))
	fit := 10 * (n*24*24 + 24*24*24/3.0)
	u := pair(7) * (12 + float64(HistogramBins(60, 1)))
	cases = append(cases,
		workCase{"Adult-like, Checked", df, schema, TVOptions{Bounds: bounds}, w + fit + u, []string{"u", "w"}, false},
		workCase{"Adult-like, ModelOnly", df, schema, TVOptions{Estimator: ModelOnly}, w + fit, []string{"u", "w"}, false})

	// N-jointU: public a (3 levels), c (4) and a continuous v whose 4 bins
	// of its observed range are (i/12) mod 4 make 48 configurations of 10
	// rows each; 5 sensitive levels and a continuous x (d = 1).
	jdf, jschema := workFrame(480,
		workCol{name: "s", role: data.Sensitive, str: level("s", func(i int) int { return i % 5 })},
		workCol{name: "x", role: data.Sensitive, num: func(i int) float64 { return float64(i*7919%1000) / 1000 }},
		workCol{name: "a", role: data.Public, str: level("a", func(i int) int { return i % 3 })},
		workCol{name: "c", role: data.Public, str: level("c", func(i int) int { return (i / 3) % 4 })},
		workCol{name: "v", role: data.Public, num: func(i int) float64 { return float64((i/12)%4) + 0.001*float64(i/48) }})
	cases = append(cases, workCase{"N-jointU", jdf, jschema, TVOptions{Neighbours: JointU},
		pair(48) * (5 + float64(HistogramBins(10, 1))), []string{"a", "c", "v"}, true})

	// A sensitive identifier beside a continuous public u: 1100 names
	// make m = 2200 > 2000 parameters, which the fit refuses at once (no
	// fit counted); the 10 bins of u over [0, 10] hold 110 rows each.
	fdf, fschema := workFrame(1100,
		workCol{name: "name", role: data.Sensitive, str: level("p", func(i int) int { return i })},
		workCol{name: "u", role: data.Public, num: func(i int) float64 { return float64(i%10) + 0.1 + 0.8*float64(i/10)/110 }})
	cases = append(cases, workCase{"fit refused", fdf, fschema, TVOptions{Bounds: map[string]data.Range{"u": {Lo: 0, Hi: 10}}},
		pair(10) * 1100, []string{"u"}, false})
	return cases
}

// TestTVWork: the count is TVWork's formula over the groups the estimate
// forms. For the identifier and N-jointU tables it equals the old dpnb
// estimate (the same formula over the same counts); for a continuous u
// it counts the merged bins the estimate compares (7 here), where the old
// one restated a bound of 20.
func TestTVWork(t *testing.T) {
	for _, c := range workCases() {
		got, heavy, err := TVWork(c.df, c.schema, c.opts)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got != c.want || !slices.Equal(heavy, c.heavy) {
			t.Errorf("%s: work %.6g on %v, want %.6g on %v", c.name, got, heavy, c.want, c.heavy)
		}
	}
}

// TestTVWorkErrors: TVWork fails where EstimateTV fails before its
// estimate (the same reading), with the reason.
func TestTVWorkErrors(t *testing.T) {
	small, sschema := workFrame(3,
		workCol{name: "s", role: data.Sensitive, str: level("s", func(i int) int { return i })},
		workCol{name: "u", role: data.Public, str: level("u", func(i int) int { return i })})
	df, schema := workFrame(10,
		workCol{name: "s", role: data.Sensitive, str: level("s", func(i int) int { return i % 2 })},
		workCol{name: "u", role: data.Public, num: func(i int) float64 { return float64(i) }})
	for _, c := range []struct {
		name   string
		df     dataframe.DataFrame
		schema data.Schema
		opts   TVOptions
		want   string
	}{
		{"3 rows", small, sschema, TVOptions{}, "want ≥ 4"},
		{"bounds of no column", df, schema, TVOptions{Bounds: map[string]data.Range{"uu": {Lo: 0, Hi: 1}}}, `"uu"`},
		{"UBins", df, schema, TVOptions{UBins: MaxUBins + 1}, "UBins"},
	} {
		_, _, err := TVWork(c.df, c.schema, c.opts)
		_, estErr := EstimateTV(c.df, c.schema, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) || estErr == nil {
			t.Errorf("%s: TVWork error %v, want one containing %q (EstimateTV: %v)", c.name, err, c.want, estErr)
		}
	}
}

// TestTVWorkCountsTheLoops runs EstimateTV with its loops tallied (the
// pairs of groups maxPairTV compares times the values per pair, and the
// Newton steps FitMultinomialLR takes): the pairs compared never exceed
// TVWork's pair terms, and equal them when every pair and cell counted is
// visited (exact); the Newton work stays within the ten steps counted per
// fit (an estimate: these fits take fewer). A change to how the estimate
// reads or groups its columns, or a comparison it adds, that TVWork does
// not follow fails here.
func TestTVWorkCountsTheLoops(t *testing.T) {
	defer func() { tally = nil }()
	for _, c := range workCases() {
		costs, err := tvWorkCosts(c.df, c.schema, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var pairs, fit float64
		for _, w := range costs {
			pairs, fit = pairs+w.pairs, fit+w.fit
		}
		var donePairs, doneNewton float64
		tally = func(newton bool, ops float64) {
			if newton {
				doneNewton += ops
			} else {
				donePairs += ops
			}
		}
		_, err = EstimateTV(c.df, c.schema, c.opts)
		tally = nil
		if err != nil && c.name != "fit refused" {
			t.Errorf("%s: %v", c.name, err)
		}
		if donePairs > pairs || (c.exact && donePairs != pairs) || (err == nil && !(donePairs > 0)) || doneNewton > fit {
			t.Errorf("%s: the estimate compared %.6g (counted %.6g, exact: %v) and fitted %.6g (counted %.6g)",
				c.name, donePairs, pairs, c.exact, doneNewton, fit)
		}
	}
}
