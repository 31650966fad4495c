package dpnb

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/notions/corrdp"
	"github.com/go-gota/gota/dataframe"
	reportseries "github.com/go-gota/gota/series"
)

// handFrame is a small table whose report numbers are computed by hand
// in TestPrivacyReportByHand: two sensitive categorical columns s1, s2,
// a public column p with three levels and one c with two, and a label.
// Row i has s1 = a iff i mod 4 < pA(i), where the share of a differs by
// level of p; s2 and c follow fixed patterns.
func handFrame() (dataframe.DataFrame, data.Schema) {
	var s1, s2, p, c, y []string
	add := func(ps string, n, na int) {
		for i := range n {
			s1 = append(s1, map[bool]string{true: "a", false: "b"}[i < na])
			s2 = append(s2, []string{"u", "v"}[i%2])
			p = append(p, ps)
			c = append(c, []string{"k", "l"}[(i/2)%2])
			y = append(y, []string{"0", "1"}[(i/3)%2])
		}
	}
	add("x", 40, 30) // P(s1 = a | x) = 0.75
	add("y", 40, 10) // 0.25
	add("z", 20, 10) // 0.5
	str := func(v []string, n string) reportseries.Series { return reportseries.New(v, reportseries.String, n) }
	df := dataframe.New(str(s1, "s1"), str(s2, "s2"), str(p, "p"), str(c, "c"), str(y, "y"))
	return df, data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "s1", Role: data.Sensitive, Kind: data.Categorical, Levels: []string{"a", "b"}},
		{Name: "s2", Role: data.Sensitive, Kind: data.Categorical, Levels: []string{"u", "v"}},
		{Name: "p", Role: data.Public, Kind: data.Categorical, Levels: []string{"x", "y", "z"}},
		{Name: "c", Role: data.Public, Kind: data.Categorical, Levels: []string{"k", "l"}},
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"0", "1"}},
	}}
}

// jointTV is the plug-in TV of Def. 2.5 for a discrete public column u:
// the largest ½‖P(s | u = g) − P(s | u = h)‖₁ over pairs of levels, s the
// joint value of the sensitive columns; written out independently of
// corrdp.
func jointTV(u []string, s [][]string) float64 {
	cnt := map[string]map[string]float64{}
	tot := map[string]float64{}
	for i, g := range u {
		key := ""
		for _, col := range s {
			key += col[i] + "|"
		}
		if cnt[g] == nil {
			cnt[g] = map[string]float64{}
		}
		cnt[g][key]++
		tot[g]++
	}
	best := 0.0
	for g := range cnt {
		for h := range cnt {
			keys := map[string]bool{}
			for k := range cnt[g] {
				keys[k] = true
			}
			for k := range cnt[h] {
				keys[k] = true
			}
			d := 0.0
			for k := range keys {
				d += math.Abs(cnt[g][k]/tot[g] - cnt[h][k]/tot[h])
			}
			best = math.Max(best, d/2)
		}
	}
	return best
}

// TestPrivacyReportByHand recomputes every per-column number of the
// report on a small table from the papers' formulas: CorrDP's plug-in TV
// (Def. 2.5), TV~ = min(1, TV + 2c2·√(log(m_U/δ))/√n) (Def. 4.3, γ = ½),
// the noise weights, the honest ε of one full-batch step with the
// least-noised coordinate (ρ = (2/n)²/(2σ0²·w_min), ε = ρ + 2√(ρ log(1/δ)))
// and the claims ε and ε/TV~; feature DP's split and min(1, e^ε·Ball + δ);
// BCDP's Theorem 2 allocation for d = 4 coordinates (two public with no
// demand).
func TestPrivacyReportByHand(t *testing.T) {
	df, schema := handFrame()
	const eps, delta, q = 1.0, 1e-5, 0.3
	levels := map[string]float64{"s1": 0.2, "s2": 0.5}
	r, err := PrivacyReport(context.Background(), df, schema, ReportOptions{Eps: eps, Delta: delta, Q: q, Levels: levels,
		Ball: map[string]float64{"s1": 0.6}})
	if err != nil {
		t.Fatal(err)
	}
	n := float64(df.Nrow())
	col := func(name string) []string { return df.Col(name).Records() }
	s := [][]string{col("s1"), col("s2")}
	term := 2 * math.Sqrt(math.Log(2/delta)) / math.Sqrt(n)
	s0 := (math.Log(1/delta) + 1) / (eps * eps)
	wMin := 1.0
	tv := map[string]float64{}
	for _, u := range []string{"p", "c"} {
		tv[u] = jointTV(col(u), s)
		wMin = math.Min(wMin, math.Min(1, tv[u]+term))
	}
	rho := (2 / n) * (2 / n) / (2 * s0 * wMin)
	honest := rho + 2*math.Sqrt(rho*math.Log(1/delta))
	// Theorem 2 by hand: sorted δ̃ = (0.2, 0.5, 1, 1), ζ = (1+q)/2.
	zeta := (1 + q) / 2
	cd := math.Min(math.Log((math.Exp(zeta*0.2)+q-1)/q), 1)
	shift := math.Log(1 + q*(math.Exp(cd)-1))
	alloc := func(dt float64) float64 {
		if cd <= dt {
			return cd
		}
		return math.Max(dt-shift, 0)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for _, want := range []struct {
		name              string
		tv, w, claimed    float64
		prot              bool
		bound, lv, bcdpAl float64
	}{
		{"s1", math.NaN(), 1, eps, true, math.Min(1, math.Exp(eps)*0.6+delta), 0.2, alloc(0.2)},
		{"s2", math.NaN(), 1, eps, true, math.NaN(), 0.5, alloc(0.5)},
		{"p", tv["p"], math.Min(1, tv["p"]+term), eps / math.Min(1, tv["p"]+term), false, math.NaN(), math.Inf(1), cd},
		{"c", tv["c"], math.Min(1, tv["c"]+term), eps / math.Min(1, tv["c"]+term), false, math.NaN(), math.Inf(1), cd},
	} {
		got := r.col(want.name)
		same := func(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) || near(a, b) }
		if !same(got.TV, want.tv) || !near(got.CorrDPWeight, want.w) || !near(got.CorrDPClaimedEps, want.claimed) ||
			!near(got.CorrDPHonestEps, honest) || got.FDPProtected != want.prot || !same(got.FDPBound, want.bound) ||
			got.BCDPLevel != want.lv || !near(got.BCDPAlloc, want.bcdpAl) {
			t.Errorf("%s: got TV %v weight %v honest/claimed %v/%v FDP %v %v BCDP %v→%v; want TV %v weight %v honest/claimed %v/%v FDP %v %v BCDP %v→%v",
				want.name, got.TV, got.CorrDPWeight, got.CorrDPHonestEps, got.CorrDPClaimedEps, got.FDPProtected, got.FDPBound, got.BCDPLevel, got.BCDPAlloc,
				want.tv, want.w, honest, want.claimed, want.prot, want.bound, want.lv, want.bcdpAl)
		}
	}
	if lbl := r.col("y"); lbl.CorrDPWeight != 0 || !math.IsNaN(lbl.BCDPAlloc) || lbl.FDPProtected {
		t.Errorf("label: %+v", *lbl)
	}
}

// TestPrivacyReportPipelineByHand recomputes the smooth-RDP part of the
// report on a small table with public bounds, deduplication
// (MaxDuplicates g), mean imputation (MaxMissing m) and T DP-GD steps
// from docs/smooth-rdp.md: R = √(features), L = R, β = 1 + R/4, σ with
// ε(α) = 2αTL²/(n²σ²) calibrated to the report's ε (linear curve: ε =
// C + 2√(C log(1/δ))); k = 2·max(2, g) and η = 2Rk for deduplication,
// k = m and η = 2Rm/(n − m) for imputation; the sum rule K = min(n, Σk),
// η = Ση; tight α(√a + √b)² with b = Tβ²η²/(2n²σ²) (the key identity) and
// group privacy 2αTg²L²/(n²σ²), g = min(n, K + 1); the best is the smaller.
func TestPrivacyReportPipelineByHand(t *testing.T) {
	const n, m, g, T, eps, delta = 60, 3, 2, 50, 1.0, 1e-5
	a, b, s, y := make([]float64, n), make([]float64, n), make([]string, n), make([]string, n)
	for i := range n {
		a[i], b[i] = float64(i%17)/16, float64((i*7)%23)/22
		s[i], y[i] = []string{"p", "q"}[i%2], []string{"0", "1"}[(i/5)%2]
	}
	for i := range m {
		a[3*i+1] = math.NaN()
	}
	df := dataframe.New(reportseries.New(a, reportseries.Float, "a"), reportseries.New(b, reportseries.Float, "b"),
		reportseries.New(s, reportseries.String, "s"), reportseries.New(y, reportseries.String, "y"))
	schema := data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "a", Role: data.Public, Kind: data.Continuous}, {Name: "b", Role: data.Public, Kind: data.Continuous},
		{Name: "s", Role: data.Sensitive, Kind: data.Categorical, Levels: []string{"p", "q"}},
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"0", "1"}},
	}}
	unit := data.Range{Lo: 0, Hi: 1}
	r, err := PrivacyReport(context.Background(), df, schema, ReportOptions{Eps: eps, Delta: delta, Pipeline: &ReportPipeline{
		Bounds: map[string]data.Range{"a": unit, "b": unit}, Dedup: true, MaxDuplicates: g, Impute: []string{"a"}, MaxMissing: m, Steps: T}})
	if err != nil {
		t.Fatal(err)
	}
	lg := math.Log(1 / delta)
	conv := func(c float64) float64 { return c + 2*math.Sqrt(c*lg) }
	R := math.Sqrt(3)
	beta := 1 + R/4
	c0 := math.Pow(math.Sqrt(lg+eps)-math.Sqrt(lg), 2) // conv(c0) = ε
	sigma2 := 2 * T * R * R / (n * n * c0)
	base := 2 * T * R * R / (n * n * sigma2)
	best := func(k int, eta float64) float64 {
		k = min(k, n)
		tight := math.Pow(math.Sqrt(base)+math.Sqrt(T*beta*beta*eta*eta/(2*n*n*sigma2)), 2)
		gs := float64(min(n, k+1))
		return math.Min(conv(tight), conv(base*gs*gs))
	}
	kd := 2 * max(2, g)
	etaD, etaI := 2*R*float64(kd), 2*R*m/float64(n-m)
	near := func(got, want float64) bool { return math.Abs(got-want) <= 1e-6*want }
	c := r.Pipeline
	if !near(c.Public.EpsBest, best(kd+m, etaD+etaI)) || c.DataDependent != c.Public {
		t.Errorf("whole pipeline: best ε %v, want %v (data-dependent report %p, public %p)", c.Public.EpsBest, best(kd+m, etaD+etaI), c.DataDependent, c.Public)
	}
	if len(c.PerStep) != 2 || !near(c.PerStep[0].EpsBest, best(kd, etaD)) || !near(c.PerStep[1].EpsBest, best(m, etaI)) {
		t.Errorf("per step: %+v, want dedup %v, imputation %v", c.PerStep, best(kd, etaD), best(m, etaI))
	}
	if md := r.Markdown(); !strings.Contains(md, "reconstructed") {
		t.Errorf("the pipeline section does not say its ε rest on the reconstructed constants:\n%s", md)
	}
	if !near(c.Public.EpsIgnoring, eps) {
		t.Errorf("ε ignoring the pre-processing %v, want the calibrated %v", c.Public.EpsIgnoring, eps)
	}
}

// TestPrivacyReportTVWorkBounded: CorrDP's plug-in TV compares every pair
// of levels of a public column against every joint value of the sensitive
// ones, so a sensitive identifier (3000 names) and a public column of 1500
// levels cost about 3.4e9 operations (a 20,000-row file with 2,000 zip
// codes took 291 s; a file at the reading caps, days and tens of GB). The
// report bounds that work: beyond corrdp.MaxTVWork it gives every public column
// the conservative weight TV~ = 1, says why and names the columns.
func TestPrivacyReportTVWorkBounded(t *testing.T) {
	df, schema := identifierTable(3000)
	start := time.Now()
	r, err := PrivacyReport(context.Background(), df, schema, ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("the report took %v", el)
	}
	z := r.col("zip")
	if !math.IsNaN(z.TV) || z.TVUCB != 1 || z.CorrDPWeight != 1 {
		t.Errorf("zip: TV %v, TV~ %v, weight %v; want no estimate and the conservative weight 1", z.TV, z.TVUCB, z.CorrDPWeight)
	}
	if !slices.ContainsFunc(r.Notes, func(s string) bool { return strings.Contains(s, `"zip"`) && strings.Contains(s, "TV~ = 1") }) {
		t.Errorf("no note names zip and the conservative weight: %q", r.Notes)
	}
}

// TestPrivacyReportTVModelWorkBounded: for a continuous public column the
// paper's estimate fits a multinomial logistic regression of the joint
// sensitive value on it by Newton's method, at n·(2k_S)² per iteration
// for k_S joint values: 600 distinct names took minutes (1,000 took 217 s
// with featuredp report). The work bound counts it: beyond it the report
// falls back to TV~ = 1 and says why.
func TestPrivacyReportTVModelWorkBounded(t *testing.T) {
	const n = 600
	name, age, y := make([]string, n), make([]float64, n), make([]string, n)
	for i := range n {
		name[i], age[i], y[i] = fmt.Sprintf("p%d", i), float64(18+i%71), []string{"0", "1"}[i%2]
	}
	df := dataframe.New(reportseries.New(name, reportseries.String, "name"), reportseries.New(age, reportseries.Float, "age"),
		reportseries.New(y, reportseries.String, "y"))
	schema := data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "name", Role: data.Sensitive, Kind: data.Categorical, Levels: name},
		{Name: "age", Role: data.Public, Kind: data.Continuous},
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"0", "1"}},
	}}
	start := time.Now()
	r, err := PrivacyReport(context.Background(), df, schema, ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("the report took %v", el)
	}
	if a := r.col("age"); !math.IsNaN(a.TV) || a.TVUCB != 1 {
		t.Errorf("age: TV %v, TV~ %v; want no estimate and the conservative TV~ = 1", a.TV, a.TVUCB)
	}
	if !slices.ContainsFunc(r.Notes, func(s string) bool { return strings.Contains(s, `"age"`) && strings.Contains(s, "TV~ = 1") }) {
		t.Errorf("no note names age: %q", r.Notes)
	}
}

// TestPrivacyReportKeepsCallerPipeline: the report fills the pipeline's
// defaults on its own copy; the caller's ReportPipeline is left as given
// (it used to get Steps = 200 written into it).
func TestPrivacyReportKeepsCallerPipeline(t *testing.T) {
	df, schema := reportFrame(200)
	p := &ReportPipeline{Dedup: true, MaxDuplicates: 200}
	r, err := PrivacyReport(context.Background(), df, schema, ReportOptions{Pipeline: p})
	if err != nil {
		t.Fatal(err)
	}
	if p.Steps != 0 || r.Options.Pipeline.Steps != 200 {
		t.Errorf("caller's Steps %d (want 0, as given), report's %d (want the default 200)", p.Steps, r.Options.Pipeline.Steps)
	}
}

// TestCorrDPCompareTVWorkBounded: the comparison helper estimates the TV
// with the same estimator as the report; an identifier-like public column
// (1,500 zip codes of two rows each) would take minutes and gigabytes, so it
// is refused at once with an error naming the column and the fixes.
func TestCorrDPCompareTVWorkBounded(t *testing.T) {
	df, schema := identifierTable(3000)
	for _, tc := range []struct {
		name string
		tv   map[string]float64
	}{
		{"estimated", nil},
		// A given TV draws the paper curve beside the estimated one, so
		// the estimate still runs: it was not bounded before.
		{"given", map[string]float64{"zip": 0.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := CorrDPvsSemiVsStandard(context.Background(), df, schema, CorrDPOptions{Eps: []float64{1}, Seeds: 1, Steps: 10, TV: tc.tv})
			if err == nil || !strings.Contains(err.Error(), `"zip"`) || !strings.Contains(err.Error(), "data.Ignore") {
				t.Fatalf("err = %v; want the work bound, naming zip and data.Ignore", err)
			}
			if el := time.Since(start); el > 10*time.Second {
				t.Errorf("refusing took %v", el)
			}
		})
	}
}

// identifierTable is n rows of a unique sensitive "name", a public "zip"
// shared by two rows each and a binary label: an identifier-like table
// whose TV estimate is quadratic in the zips.
func identifierTable(n int) (dataframe.DataFrame, data.Schema) {
	name, zip, y := make([]string, n), make([]string, n), make([]string, n)
	for i := range n {
		name[i], zip[i], y[i] = fmt.Sprintf("p%d", i), fmt.Sprintf("z%d", i/2), []string{"0", "1"}[i%2]
	}
	str := func(v []string, c string) reportseries.Series { return reportseries.New(v, reportseries.String, c) }
	df := dataframe.New(str(name, "name"), str(zip, "zip"), str(y, "y"))
	return df, data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "name", Role: data.Sensitive, Kind: data.Categorical, Levels: name},
		{Name: "zip", Role: data.Public, Kind: data.Categorical, Levels: slices.Compact(slices.Clone(zip))},
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"0", "1"}},
	}}
}

// TestCorrDPCompareTVWorkJointU: under N-jointU the TV estimate compares
// the joint configurations of all public columns, not each column's
// levels, so the work bound counts those. Three public columns of 30
// levels each on 8,000 rows make about 6,900 configurations, whose pairs
// against 300 sensitive values took 35 s (and grow with n²) while the
// N-one count read 3.9e5 operations: it is refused at once. Conversely a
// sensitive column of 300 values beside a continuous public one is
// refused under N-one (the multinomial fit) but costs nothing under
// N-jointU (four bins of the public column): it runs.
func TestCorrDPCompareTVWorkJointU(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	levels := func(k int) []string {
		out := make([]string, k)
		for i := range out {
			out[i] = strconv.Itoa(i)
		}
		return out
	}
	str := func(v []string, c string) reportseries.Series { return reportseries.New(v, reportseries.String, c) }
	n := 8000
	var cols []reportseries.Series
	schema := data.Schema{Task: data.Classification}
	for j := range 3 {
		v := make([]string, n)
		for i := range v {
			v[i] = strconv.Itoa(rng.IntN(30))
		}
		name := fmt.Sprintf("p%d", j)
		cols = append(cols, str(v, name))
		schema.Columns = append(schema.Columns, data.Column{Name: name, Role: data.Public, Kind: data.Categorical, Levels: levels(30)})
	}
	s, y := make([]string, n), make([]string, n)
	for i := range s {
		s[i], y[i] = strconv.Itoa(rng.IntN(300)), []string{"0", "1"}[rng.IntN(2)]
	}
	cols = append(cols, str(s, "s"), str(y, "y"))
	schema.Columns = append(schema.Columns, data.Column{Name: "s", Role: data.Sensitive, Kind: data.Categorical, Levels: levels(300)},
		data.Column{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"0", "1"}})
	df := dataframe.New(cols...)
	opts := CorrDPOptions{Eps: []float64{1}, Seeds: 1, Steps: 10, Neighbours: corrdp.JointU}
	start := time.Now()
	_, err := CorrDPvsSemiVsStandard(context.Background(), df, schema, opts)
	if err == nil || !strings.Contains(err.Error(), "opts.TV") || !strings.Contains(err.Error(), "N-one") {
		t.Errorf("N-jointU over 6,900 configurations: err = %v; want the work bound, naming opts.TV and N-one", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("refusing took %v", el)
	}

	n = 4000
	u := make([]float64, n)
	s, y = make([]string, n), make([]string, n)
	for i := range u {
		u[i], s[i], y[i] = rng.Float64(), strconv.Itoa(rng.IntN(300)), []string{"0", "1"}[rng.IntN(2)]
	}
	df = dataframe.New(reportseries.New(u, reportseries.Float, "u"), str(s, "s"), str(y, "y"))
	schema = data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "u", Role: data.Public, Kind: data.Continuous},
		{Name: "s", Role: data.Sensitive, Kind: data.Categorical, Levels: levels(300)},
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"0", "1"}},
	}}
	opts.Encode = data.EncodeOptions{Scale: data.MinMax, Bounds: map[string]data.Range{"u": {Lo: 0, Hi: 1}}}
	if w, _, err := corrdp.TVWork(df, schema, corrdp.TVOptions{}); err != nil || w <= corrdp.MaxTVWork {
		t.Fatalf("N-one work %.3g (%v): the case must be beyond the bound under N-one", w, err)
	}
	if _, err := CorrDPvsSemiVsStandard(context.Background(), df, schema, opts); err != nil {
		t.Errorf("N-jointU with one continuous public column (four configurations): %v", err)
	}
}

// TestTVWorkFloatLevels: the work bound counts the levels of a column as
// corrdp reads them (data.LevelAt: a Float column's shortest decimal). It
// counted gota's "%f" text, six decimals, so 1,500 distinct public codes
// below 1e-6 beside 3,000 unique sensitive names counted one level and no
// work, while corrdp compares 1.1e6 pairs of levels at 3,000 values each.
func TestTVWorkFloatLevels(t *testing.T) {
	df, schema := identifierTable(3000)
	zip := make([]float64, df.Nrow())
	for i := range zip {
		zip[i] = float64(i/2+1) * 1e-10
	}
	df = df.Mutate(reportseries.New(zip, reportseries.Float, "zip"))
	schema.Columns[1].Levels = nil
	w, _, err := corrdp.TVWork(df, schema, corrdp.TVOptions{})
	if err != nil || w <= corrdp.MaxTVWork {
		t.Errorf("1,500 Float levels below 1e-6: work %.3g (%v), want beyond the bound %.0g", w, err, corrdp.MaxTVWork)
	}
}
