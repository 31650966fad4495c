package experiments

import (
	"math"
	"sort"
	"strings"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// Summary aggregates the values of one (method, x, metric) over seeds.
//
// NaN values are left out of every statistic and counted in NaN. SD is the
// sample standard deviation (divisor N−1; 0 when N = 1). Quantiles use the
// "type 7" convention of Hyndman & Fan (1996), the default of R and NumPy:
// for sorted values v[0..N−1] the p-quantile is v[h₀] + (h−h₀)(v[h₀+1]−v[h₀])
// with h = (N−1)p and h₀ = ⌊h⌋ (linear interpolation between order
// statistics). With N = 0 every statistic is NaN.
type Summary struct {
	Method string
	// Group holds the values of the extra columns the rows were split by
	// (SummarizeBy, Figure.GroupBy) as "key=value, key=value"; "" if none.
	Group  string
	X      float64
	Metric string
	N      int // number of non-NaN values
	NaN    int // number of NaN values left out
	Mean   float64
	SD     float64
	Median float64
	Q25    float64
	Q75    float64
	Min    float64
	Max    float64
}

// Series is the name of the summary's curve in plots and legends: Method,
// or "Method [Group]" when the rows were split by extra columns.
func (s Summary) Series() string {
	if s.Group == "" {
		return s.Method
	}
	return s.Method + " [" + s.Group + "]"
}

// summaryKey identifies a summary's rows. It holds x as the bits of x
// with one NaN and +0 for −0: a float NaN, unequal to itself, would make
// each NaN-x row a group of its own that no value reaches.
type summaryKey struct {
	method, group, metric string
	xBits                 uint64
}

// newSummaryKey is the key of a row's summary.
func newSummaryKey(method, group, metric string, x float64) summaryKey {
	bits := math.Float64bits(x + 0) // −0 + 0 = +0
	if math.IsNaN(x) {
		bits = math.Float64bits(math.NaN())
	}
	return summaryKey{method: method, group: group, metric: metric, xBits: bits}
}

// x is the key's x value.
func (k summaryKey) x() float64 { return math.Float64frombits(k.xBits) }

// xLess orders x values ascending with NaN last.
func xLess(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return !math.IsNaN(a) && math.IsNaN(b)
	}
	return a < b
}

// Summarize groups the rows of r by (method, x, metric) and computes the
// statistics of each group. The output is ordered by method and metric in
// order of first appearance, and by increasing x within a method and metric
// (rows with x NaN form one summary, last).
func Summarize(r *Results) []Summary { return SummarizeBy(r) }

// SummarizeBy is Summarize with the rows further split by the values of the
// named extra columns (e.g. "mode" or "dataset"): rows that differ in one of
// them are summarised separately, and Summary.Group records the values. A row
// lacking one of the columns groups under an empty value.
func SummarizeBy(r *Results, extras ...string) []Summary {
	if r == nil {
		return nil
	}
	methodRank := rank(r.Methods())
	metricRank := rank(r.Metrics())
	groups := map[summaryKey][]float64{}
	var keys []summaryKey
	groupRank := map[string]int{}
	for _, row := range r.Rows {
		k := newSummaryKey(row.Method, groupLabel(row, extras), row.Metric, row.X)
		if _, ok := groupRank[k.group]; !ok {
			groupRank[k.group] = len(groupRank)
		}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], row.Value)
	}
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.method != b.method {
			return methodRank[a.method] < methodRank[b.method]
		}
		if a.group != b.group {
			return groupRank[a.group] < groupRank[b.group]
		}
		if a.metric != b.metric {
			return metricRank[a.metric] < metricRank[b.metric]
		}
		return xLess(a.x(), b.x())
	})
	out := make([]Summary, len(keys))
	for i, k := range keys {
		out[i] = summarize(k, groups[k])
	}
	return out
}

// groupLabel formats the values of the extra columns as "k=v, k=v".
func groupLabel(row Row, keys []string) string {
	if len(keys) == 0 {
		return ""
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + row.cell(k)
	}
	return strings.Join(parts, ", ")
}

func rank(names []string) map[string]int {
	m := make(map[string]int, len(names))
	for i, n := range names {
		m[n] = i
	}
	return m
}

func summarize(k summaryKey, vals []float64) Summary {
	s := Summary{Method: k.method, Group: k.group, X: k.x(), Metric: k.metric}
	v := make([]float64, 0, len(vals))
	for _, x := range vals {
		if math.IsNaN(x) {
			s.NaN++
		} else {
			v = append(v, x)
		}
	}
	s.N = len(v)
	if s.N == 0 {
		nan := math.NaN()
		s.Mean, s.SD, s.Median, s.Q25, s.Q75, s.Min, s.Max = nan, nan, nan, nan, nan, nan, nan
		return s
	}
	sort.Float64s(v)
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	s.Mean = sum / float64(s.N)
	if s.N > 1 {
		ss := 0.0
		for _, x := range v {
			d := x - s.Mean
			ss += d * d
		}
		s.SD = math.Sqrt(ss / float64(s.N-1))
	}
	s.Min, s.Max = v[0], v[s.N-1]
	s.Median = QuantileSorted(v, 0.5)
	s.Q25 = QuantileSorted(v, 0.25)
	s.Q75 = QuantileSorted(v, 0.75)
	return s
}

// QuantileSorted returns the p-quantile (type 7, linear interpolation; see
// Summary) of the ascending slice v. It returns NaN for an empty slice or p
// outside [0, 1].
func QuantileSorted(v []float64, p float64) float64 {
	n := len(v)
	if n == 0 || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return v[n-1]
	}
	frac := h - float64(lo)
	if frac == 0 {
		return v[lo]
	}
	return v[lo] + frac*(v[lo+1]-v[lo])
}

// FindSummary returns the summary of (method, x, metric); x matches within a
// relative tolerance of 1e-9. method matches Summary.Method of an ungrouped
// summary, or Summary.Series() ("Method [key=value]") of a grouped one.
func FindSummary(sums []Summary, method string, x float64, metric string) (Summary, bool) {
	for _, s := range sums {
		if (s.Method == method && s.Group == "" || s.Series() == method) && s.Metric == metric && (s.X == x || math.Abs(s.X-x) <= 1e-9*math.Max(math.Abs(s.X), math.Abs(x))) {
			return s, true
		}
	}
	return Summary{}, false
}

// SummaryFrame returns the summaries as a gota DataFrame with columns method,
// x, metric, n, nan, mean, sd, median, q25, q75, min, max, and a column group
// after method when any summary is grouped (SummarizeBy).
func SummaryFrame(sums []Summary) dataframe.DataFrame {
	n := len(sums)
	meth, met, grp := make([]string, n), make([]string, n), make([]string, n)
	grouped := false
	cnt, nans := make([]int, n), make([]int, n)
	fcols := make([][]float64, 8)
	for j := range fcols {
		fcols[j] = make([]float64, n)
	}
	for i, s := range sums {
		meth[i], met[i], cnt[i], nans[i], grp[i] = s.Method, s.Metric, s.N, s.NaN, s.Group
		grouped = grouped || s.Group != ""
		for j, v := range []float64{s.X, s.Mean, s.SD, s.Median, s.Q25, s.Q75, s.Min, s.Max} {
			fcols[j][i] = v
		}
	}
	cols := []series.Series{series.New(meth, series.String, "method")}
	if grouped {
		cols = append(cols, series.New(grp, series.String, "group"))
	}
	return dataframe.New(append(cols,
		series.New(fcols[0], series.Float, "x"),
		series.New(met, series.String, "metric"),
		series.New(cnt, series.Int, "n"),
		series.New(nans, series.Int, "nan"),
		series.New(fcols[1], series.Float, "mean"),
		series.New(fcols[2], series.Float, "sd"),
		series.New(fcols[3], series.Float, "median"),
		series.New(fcols[4], series.Float, "q25"),
		series.New(fcols[5], series.Float, "q75"),
		series.New(fcols[6], series.Float, "min"),
		series.New(fcols[7], series.Float, "max"),
	)...)
}
