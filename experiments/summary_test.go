package experiments

import (
	"bytes"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func rowsOf(method string, x float64, metric string, vals ...float64) []Row {
	rows := make([]Row, len(vals))
	for i, v := range vals {
		rows[i] = Row{Figure: "f", Method: method, X: x, Seed: uint64(i), Metric: metric, Value: v}
	}
	return rows
}

func eqNaN(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b))
}

func TestSummarizeHandComputed(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		vals []float64
		want Summary
	}{
		// mean 2.5, SS = 5, SD = sqrt(5/3); type 7: h = 3p.
		{"four values", []float64{4, 1, 3, 2}, Summary{N: 4, Mean: 2.5, SD: math.Sqrt(5.0 / 3), Median: 2.5, Q25: 1.75, Q75: 3.25, Min: 1, Max: 4}},
		// h = 4p: Q25 = v[1] = 2, Q75 = v[3] = 8.
		{"five values", []float64{10, 2, 8, 4, 6}, Summary{N: 5, Mean: 6, SD: math.Sqrt(10), Median: 6, Q25: 4, Q75: 8, Min: 2, Max: 10}},
		{"single", []float64{3}, Summary{N: 1, Mean: 3, SD: 0, Median: 3, Q25: 3, Q75: 3, Min: 3, Max: 3}},
		{"two", []float64{0, 1}, Summary{N: 2, Mean: 0.5, SD: math.Sqrt(0.5), Median: 0.5, Q25: 0.25, Q75: 0.75, Min: 0, Max: 1}},
		{"NaN skipped", []float64{nan, 1, 3}, Summary{N: 2, NaN: 1, Mean: 2, SD: math.Sqrt(2), Median: 2, Q25: 1.5, Q75: 2.5, Min: 1, Max: 3}},
		{"all NaN", []float64{nan}, Summary{N: 0, NaN: 1, Mean: nan, SD: nan, Median: nan, Q25: nan, Q75: nan, Min: nan, Max: nan}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Summarize(&Results{Rows: rowsOf("m", 1, "v", tc.vals...)})
			if len(s) != 1 {
				t.Fatalf("got %d summaries", len(s))
			}
			g, w := s[0], tc.want
			if g.Method != "m" || g.X != 1 || g.Metric != "v" || g.N != w.N || g.NaN != w.NaN {
				t.Fatalf("keys/counts: got %+v", g)
			}
			got := []float64{g.Mean, g.SD, g.Median, g.Q25, g.Q75, g.Min, g.Max}
			want := []float64{w.Mean, w.SD, w.Median, w.Q25, w.Q75, w.Min, w.Max}
			for i := range got {
				if !eqNaN(got[i], want[i]) {
					t.Errorf("stat %d: got %v, want %v", i, got[i], want[i])
				}
			}
		})
	}
}

func TestSummarizeOrder(t *testing.T) {
	var rows []Row
	rows = append(rows, rowsOf("b", 2, "acc", 1)...)
	rows = append(rows, rowsOf("b", 1, "acc", 1)...)
	rows = append(rows, rowsOf("a", 1, "loss", 1)...)
	rows = append(rows, rowsOf("b", 1, "loss", 1)...)
	rows = append(rows, rowsOf("a", 1, "acc", 1)...)
	s := Summarize(&Results{Rows: rows})
	var got []string
	for _, x := range s {
		got = append(got, x.Method+"/"+x.Metric+"/"+formatFloat(x.X))
	}
	want := []string{"b/acc/1", "b/acc/2", "b/loss/1", "a/acc/1", "a/loss/1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	if _, ok := FindSummary(s, "b", 2+1e-12, "acc"); !ok {
		t.Error("FindSummary with tolerance failed")
	}
	if _, ok := FindSummary(s, "b", 3, "acc"); ok {
		t.Error("FindSummary found a missing x")
	}
	df := SummaryFrame(s)
	if r, c := df.Dims(); r != 5 || c != 12 {
		t.Fatalf("SummaryFrame dims = %d×%d", r, c)
	}
}

func TestQuantileSorted(t *testing.T) {
	v := []float64{1, 2, 3, 4}
	cases := []struct{ p, want float64 }{{0, 1}, {1, 4}, {0.5, 2.5}, {1.0 / 3, 2}, {0.9, 3.7}, {-0.1, math.NaN()}, {1.1, math.NaN()}}
	for _, tc := range cases {
		if got := QuantileSorted(v, tc.p); !eqNaN(got, tc.want) {
			t.Errorf("p=%v: got %v want %v", tc.p, got, tc.want)
		}
	}
	if !math.IsNaN(QuantileSorted(nil, 0.5)) {
		t.Error("empty slice should give NaN")
	}
}

func TestPaperValueOurs(t *testing.T) {
	s := Summarize(&Results{Rows: rowsOf("m", 10, "eps", 1, 2, 3, 10)})
	cases := []struct {
		stat string
		want float64
		ok   bool
	}{{"", 4, true}, {"median", 2.5, true}, {"max", 10, true}, {"min", 1, true}, {"bogus", 0, false}}
	for _, tc := range cases {
		got, ok := PaperValue{Method: "m", X: 10, Metric: "eps", Stat: tc.stat}.Ours(s)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("stat %q: got %v,%v want %v,%v", tc.stat, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := (PaperValue{Method: "other", X: 10, Metric: "eps"}).Ours(s); ok {
		t.Error("unknown method matched")
	}
}

func TestCSVRoundTrip(t *testing.T) {
	res := &Results{Rows: []Row{
		{Figure: "f", Method: `q=0.01,z=1 "improved"`, X: 0.1, Seed: math.MaxUint64, Metric: "eps", Value: 1.0 / 3, Extra: map[string]string{"order": "3.9"}},
		{Figure: "f", Method: "m", X: 1e-300, Seed: 0, Metric: "eps", Value: math.Inf(1)},
		{Figure: "f", Method: "m", X: -2, Seed: 5, Metric: "loss", Value: math.Inf(-1), Extra: map[string]string{"note": "a,b\nc"}},
	}}
	var buf bytes.Buffer
	if err := res.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSV(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res, back) {
		t.Fatalf("round trip differs:\n%+v\n%+v", res, back)
	}
	// NaN does not compare equal; check it separately.
	nanRes := &Results{Rows: rowsOf("m", 1, "v", math.NaN())}
	buf.Reset()
	if err := nanRes.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	back, err = ReadCSV(&buf)
	if err != nil || !math.IsNaN(back.Rows[0].Value) {
		t.Fatalf("NaN round trip: %v %v", back, err)
	}
}

func TestReadCSVErrors(t *testing.T) {
	cases := map[string]string{
		"empty":          "",
		"missing column": "figure,method,x,seed,metric\nf,m,1,1,v\n",
		"bad x":          "figure,method,x,seed,metric,value\nf,m,abc,1,v,1\n",
		"bad seed":       "figure,method,x,seed,metric,value\nf,m,1,-1,v,1\n",
		"duplicate col":  "figure,method,x,seed,metric,value,value\n",
	}
	for name, in := range cases {
		if _, err := ReadCSV(strings.NewReader(in)); err == nil {
			t.Errorf("%s: expected an error", name)
		}
	}
}

func TestDataFrame(t *testing.T) {
	res := &Results{Rows: []Row{
		{Figure: "f", Method: "a", X: 1, Seed: math.MaxUint64, Metric: "v", Value: 2, Extra: map[string]string{"order": "4"}},
		{Figure: "f", Method: "b", X: 2, Seed: 3, Metric: "v", Value: 5},
	}}
	df := res.DataFrame()
	if err := df.Error(); err != nil {
		t.Fatal(err)
	}
	if got, want := df.Names(), []string{"figure", "method", "x", "seed", "metric", "value", "order"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("names = %v", got)
	}
	if got := df.Col("seed").Records()[0]; got != "18446744073709551615" {
		t.Errorf("seed = %q", got)
	}
	if got := df.Col("value").Float(); !reflect.DeepEqual(got, []float64{2, 5}) {
		t.Errorf("value = %v", got)
	}
	if got := df.Col("order").Records(); !reflect.DeepEqual(got, []string{"4", ""}) {
		t.Errorf("order = %v", got)
	}
}

func TestSummarizeBy(t *testing.T) {
	var rows []Row
	add := func(method, mode string, x float64, vals ...float64) {
		for _, r := range rowsOf(method, x, "sq_error", vals...) {
			r.Extra = map[string]string{"mode": mode}
			rows = append(rows, r)
		}
	}
	add("BCDP", "paper", 0.1, 1, 3)
	add("BCDP", "unbiased", 0.1, 10, 30)
	add("LDP", "paper", 0.1, 5)
	r := &Results{Rows: rows}

	tests := []struct {
		name   string
		extras []string
		want   []string // Series() + mean
	}{
		{"ungrouped mixes modes", nil, []string{"BCDP 11", "LDP 5"}},
		{"by mode", []string{"mode"}, []string{"BCDP [mode=paper] 2", "BCDP [mode=unbiased] 20", "LDP [mode=paper] 5"}},
		{"missing column groups as empty", []string{"dataset"}, []string{"BCDP [dataset=] 11", "LDP [dataset=] 5"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sums := SummarizeBy(r, tc.extras...)
			var got []string
			for _, s := range sums {
				got = append(got, s.Series()+" "+strconv.FormatFloat(s.Mean, 'g', -1, 64))
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("SummarizeBy(%v) = %v, want %v", tc.extras, got, tc.want)
			}
		})
	}

	sums := SummarizeBy(r, "mode")
	if s, ok := FindSummary(sums, "BCDP [mode=unbiased]", 0.1, "sq_error"); !ok || s.Mean != 20 {
		t.Errorf("FindSummary by series = %+v, %v; want mean 20", s, ok)
	}
	if _, ok := FindSummary(sums, "BCDP", 0.1, "sq_error"); ok {
		t.Error("FindSummary by bare method matched a grouped summary")
	}
	df := SummaryFrame(sums)
	if names := df.Names(); len(names) < 2 || names[1] != "group" {
		t.Errorf("SummaryFrame columns %v, want group second", names)
	}
	if names := SummaryFrame(Summarize(r)).Names(); names[1] != "x" {
		t.Errorf("ungrouped SummaryFrame columns %v, want no group column", names)
	}
}

// Rows whose x is NaN summarise together (last, after the numeric x) and
// −0 with +0; before, each NaN-x row was a summary of its own with N = 0:
// its value silently lost.
func TestSummarizeNaNX(t *testing.T) {
	nan := math.NaN()
	r := &Results{Rows: []Row{
		{Method: "m", X: nan, Metric: "acc", Value: 1},
		{Method: "m", X: 2, Metric: "acc", Value: 5},
		{Method: "m", X: nan, Metric: "acc", Value: 2},
		{Method: "m", X: math.Copysign(0, -1), Metric: "acc", Value: 7},
		{Method: "m", X: nan, Metric: "acc", Value: 3},
		{Method: "m", X: 0, Metric: "acc", Value: 9},
	}}
	sums := Summarize(r)
	if len(sums) != 3 {
		t.Fatalf("%d summaries, want 3 (x = 0, 2, NaN): %+v", len(sums), sums)
	}
	for i, want := range []struct {
		x    float64
		n    int
		mean float64
	}{{0, 2, 8}, {2, 1, 5}, {nan, 3, 2}} {
		s := sums[i]
		sameX := s.X == want.x || math.IsNaN(s.X) && math.IsNaN(want.x)
		if !sameX || s.N != want.n || s.Mean != want.mean {
			t.Errorf("summary %d = x %v, N %d, mean %v; want x %v, N %d, mean %v", i, s.X, s.N, s.Mean, want.x, want.n, want.mean)
		}
	}
}
