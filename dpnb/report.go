package dpnb

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/mdtext"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/notions/bcdp"
	"github.com/featuredp/featuredp/notions/corrdp"
	"github.com/featuredp/featuredp/notions/fdp"
	"github.com/go-gota/gota/dataframe"
	reportseries "github.com/go-gota/gota/series"
	"gonum.org/v1/plot"
)

// ReportOptions configure PrivacyReport. Zero values give the defaults in
// brackets.
type ReportOptions struct {
	// Eps is the budget ε every notion is read at [1]; Delta is δ [1e-5].
	Eps, Delta float64
	// Ball is the prior mass of the best guess of a sensitive column given
	// the record's public columns and label, for feature DP's
	// attribute-inference bound (Thm 4): public knowledge you state, at
	// least 1/levels [none: the column gets no bound; no prior is assumed].
	Ball map[string]float64
	// Levels are the BCDP levels δ_i demanded for sensitive columns (none:
	// no BCDP rows); Q is the public correlation bound q of Assumption 1,
	// required with Levels (no default): Q in (0, 1], or
	// IndependentCoordinates for q = 0 (bcdp.CheckQ). Markdown prints it.
	Levels map[string]float64
	Q      float64
	// IndependentCoordinates states BCDP's q = 0 explicitly.
	IndependentCoordinates bool
	// C2 is the UCB constant c2 of CorrDP's TV~ (Def. 4.3) [1]. The
	// paper gives no c2 for which TV~ ≥ TV holds with probability 1 − δ
	// (Ass. 4.1) for these estimators, so TV~ is a heuristic bound for any
	// C2 and the report does not claim Lemma A.1's (ε, 2δ).
	C2 float64
	// Pipeline, if set, is the planned pre-processing whose smooth-RDP
	// cost the report adds (nil: none).
	Pipeline *ReportPipeline
	// ObservedLevels names the categorical columns whose schema Levels the
	// caller took from df itself rather than from a public domain (the
	// command line's --levels-from-data). The levels enter CorrDP's TV
	// estimate and the lower limit 1/levels of a given Ball, so the report
	// lists these columns among what it read from the private data
	// (PrivacyReportResult.FromData).
	ObservedLevels []string
}

// ColumnPrivacy is what each notion promises one column.
type ColumnPrivacy struct {
	Column, Role, Kind string
	// TV is CorrDP's plug-in TV of a public column to the sensitive ones
	// (corrdp.EstimateTV with the Checked estimator: for a continuous
	// column the larger of the paper's linear/Gaussian estimate and a
	// binned, model-free one), TVUCB its heuristic upper confidence bound
	// TV~ (1 when no TV could be estimated), and CorrDPWeight the noise
	// weight CorrDP gives the column's coordinates (TV~ for a public
	// column, 1 for a sensitive one, 0 for a label); NaN where not
	// applicable. Leaking marks a public column with TV~ ≥
	// 0.99 and TV ≥ 0.9: it reveals the sensitive columns about as much as
	// they do (the bound alone can be near 1 on a small sample).
	TV, TVUCB, CorrDPWeight float64
	Leaking                 bool
	// CorrDPHonestEps is the (ε, δ) a change of this column alone really
	// costs under one full-batch step of CorrDP's paper-mode noise
	// σ_i² = σ0²·weight_i, σ0² = (log(1/δ) + 1)/ε² (C = 1, corrdp.Sigma0Sq;
	// per-example clip 1) on the gradient of the GLMs CorrDP trains: the
	// ρ-zCDP loss under replace-one composed on an accounting.Ledger and
	// read by its zCDP route (corrdp.Honesty with leakage). A change of any
	// column moves every coordinate of a GLM's gradient ℓ'(θᵀx)·x, so the
	// least-noised coordinate bounds every column alike (corrdp.Noise,
	// Leakage). CorrDPClaimedEps is what the paper claims for it (ε for a
	// sensitive column, ε/TV~ for a public one: the TV~ its noise uses,
	// not the plug-in TV).
	CorrDPHonestEps, CorrDPClaimedEps float64
	// FDPProtected: feature DP protects the column (sensitive columns);
	// FDPBound is Thm 4's bound on guessing it at Eps (NaN: FDPNote says
	// why not).
	FDPProtected bool
	FDPBound     float64
	FDPNote      string
	// BCDPLevel is the demanded level δ_i (+Inf for a public column) and
	// BCDPAlloc the Theorem 2 allocation c_i (NaN without Levels).
	BCDPLevel, BCDPAlloc float64
	// MinMaxC is how far one replaced record can move this continuous
	// column's min–max-scaled values when its bounds come from the data
	// (0: public bounds, or no Pipeline).
	MinMaxC float64
	// Preprocessing names the planned pre-processing steps that touch the
	// column (their costs are in PrivacyReportResult.Pipeline.PerStep).
	Preprocessing []string
	// FromData lists what the report read from the private data for this
	// column ("TV", "levels", "min–max bounds", "missing count",
	// "duplicate groups").
	FromData []string
}

// PrivacyReportResult is the outcome of PrivacyReport; it renders itself
// as a table, a plot and markdown (nb.Renderable).
type PrivacyReportResult struct {
	Columns []ColumnPrivacy
	Options ReportOptions
	// Notes say which quantities read the private data.
	Notes []string
	// FromData states, one item per kind of quantity, what the report
	// computed from the private data (none of it is differentially
	// private); Markdown puts it first, Table in a column.
	FromData []string
	// Pipeline is the smooth-RDP cost of Options.Pipeline (nil without).
	Pipeline *PipelineCost
	missing  int            // records with a missing value in Pipeline.Impute's columns
	index    map[string]int // row of each column in Columns
}

// PrivacyReport says, before anything is trained, what each notion would
// promise every column of df at budget ε (roles from schema): CorrDP's TV
// of each public column to the sensitive ones and the noise weight it
// implies (estimated from df: the report says so), feature DP's protection
// and attribute-inference bound, BCDP's allocation for demanded levels,
// and, with ReportOptions.Pipeline, the smooth-RDP cost of the planned
// pre-processing (whole pipeline and each step alone; columns listed in
// Pipeline.Impute are mean-imputed before the other analyses, as the
// mechanism would see them). The call shape is that of the one-call
// helpers.
func PrivacyReport(ctx context.Context, df dataframe.DataFrame, schema data.Schema, opts ReportOptions) (*PrivacyReportResult, error) {
	opts, err := opts.withDefaults(schema)
	if err != nil {
		return nil, fmt.Errorf("dpnb: PrivacyReport: %w", err)
	}
	if df.Err != nil {
		return nil, fmt.Errorf("dpnb: PrivacyReport: the DataFrame: %w", df.Err)
	}
	if n := df.Nrow(); n < 2 {
		return nil, fmt.Errorf("dpnb: PrivacyReport: the DataFrame has %d row(s): the report needs at least 2 records", n)
	}
	missing := 0
	if p := opts.Pipeline; p != nil && len(p.Impute) > 0 {
		// The mechanism sees the imputed frame: report on it.
		if df, missing, err = meanImpute(df, p.Impute); err != nil {
			return nil, fmt.Errorf("dpnb: PrivacyReport: %w", err)
		}
	}
	if err := schema.Validate(df); err != nil {
		return nil, fmt.Errorf("dpnb: PrivacyReport: %w", err)
	}
	r := &PrivacyReportResult{Options: opts, missing: missing, index: map[string]int{}}
	for _, c := range schema.Columns {
		if c.Role == data.Ignore {
			continue
		}
		r.index[c.Name] = len(r.Columns)
		r.Columns = append(r.Columns, ColumnPrivacy{Column: c.Name, Role: c.Role.String(), Kind: c.Kind.String(),
			TV: math.NaN(), TVUCB: math.NaN(), CorrDPWeight: math.NaN(), CorrDPHonestEps: math.NaN(), CorrDPClaimedEps: math.NaN(), FDPBound: math.NaN(), BCDPLevel: math.NaN(), BCDPAlloc: math.NaN()})
	}
	for _, step := range []func(dataframe.DataFrame, data.Schema) error{r.corrdp, r.featureDP, r.bcdp, r.pipeline} {
		if err := step(df, schema); err != nil {
			return nil, fmt.Errorf("dpnb: PrivacyReport: %w", err)
		}
	}
	r.statePrivateInputs()
	return r, nil
}

// statePrivateInputs fills FromData from the rows' FromData and the
// options: every quantity the report computed from the private data.
func (r *PrivacyReportResult) statePrivateInputs() {
	for _, c := range r.Options.ObservedLevels {
		if row := r.col(c); row != nil {
			row.FromData = append(row.FromData, "levels")
		}
	}
	byKind := map[string][]string{}
	for _, c := range r.Columns {
		for _, k := range c.FromData {
			byKind[k] = append(byKind[k], c.Column)
		}
	}
	for _, k := range []struct{ kind, what string }{
		{"TV", "CorrDP's TVs of the public columns to the sensitive ones"},
		{"level counts", "the number of distinct values (too many for CorrDP's TV estimate, which was skipped) of"},
		{"levels", "the category levels observed in the data of"},
		{"min–max bounds", "the min–max bounds the planned scaling takes from the data for"},
		{"missing count", "the number of records with a missing value in"},
		{"duplicate groups", "the largest group of identical records over"},
		{"values outside the public bounds", "whether values lie outside the public bounds (clipped by the planned scaling) of"},
	} {
		if cols := byKind[k.kind]; len(cols) > 0 {
			r.FromData = append(r.FromData, fmt.Sprintf("%s %s", k.what, data.QuoteNames(cols)))
		}
	}
}

func (o ReportOptions) withDefaults(schema data.Schema) (ReportOptions, error) {
	if o.Eps == 0 {
		o.Eps = 1
	}
	if o.Delta == 0 {
		o.Delta = 1e-5
	}
	if o.C2 == 0 {
		o.C2 = 1
	}
	byName := columnsByName(schema)
	for _, c := range o.ObservedLevels {
		if col, ok := byName[c]; !ok || col.Kind != data.Categorical {
			return o, fmt.Errorf("ObservedLevels: %q is not a categorical column of the schema", c)
		}
	}
	if err := valid.First(valid.Positive("ε", o.Eps), valid.Open01("δ", o.Delta), valid.Unit("q", o.Q)); err != nil {
		return o, err
	}
	if o.Pipeline != nil {
		cp := *o.Pipeline // the defaults go on the report's copy, not the caller's value
		o.Pipeline = &cp
		if err := o.Pipeline.validate(schema); err != nil {
			return o, err
		}
	}
	for _, m := range []map[string]float64{o.Ball, o.Levels} {
		for k := range m {
			if c, ok := byName[k]; !ok || c.Role != data.Sensitive {
				return o, fmt.Errorf("%q is not a Sensitive column of the schema", k)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(o.Ball)) {
		if err := fdp.CheckBall(byName[k], o.Ball[k]); err != nil {
			return o, err
		}
	}
	if len(o.Levels) > 0 {
		if err := bcdp.CheckQ(o.Q, o.IndependentCoordinates); err != nil {
			return o, fmt.Errorf("BCDP Levels: %w", err)
		}
	}
	return o, nil
}

// columnsByName maps the schema's column names to their columns, so that
// per-column lookups stay linear in the width (schema.Lookup is a scan).
func columnsByName(schema data.Schema) map[string]data.Column {
	m := make(map[string]data.Column, len(schema.Columns))
	for _, c := range schema.Columns {
		m[c.Name] = c
	}
	return m
}

// col returns the report row of name (nil: none), in constant time.
func (r *PrivacyReportResult) col(name string) *ColumnPrivacy {
	if i, ok := r.index[name]; ok {
		return &r.Columns[i]
	}
	return nil
}

// corrdp fills the TVs (estimated from the data) and CorrDP's weights.
func (r *PrivacyReportResult) corrdp(df dataframe.DataFrame, schema data.Schema) error {
	for i := range r.Columns {
		switch r.Columns[i].Role {
		case data.Sensitive.String():
			r.Columns[i].CorrDPWeight = 1
		case data.Label.String():
			r.Columns[i].CorrDPWeight = 0
		}
	}
	if w, heavy, err := corrdp.TVWork(df, schema, r.tvOptions()); err == nil && w > corrdp.MaxTVWork {
		r.conservativeTV()
		r.markLevelCounts(schema)
		r.Notes = append(r.Notes, fmt.Sprintf("CorrDP: no TV estimate: the estimate compares every pair of levels of a public column with "+
			"every joint value of the sensitive columns, and fits the joint value on a continuous public column by Newton's method; "+
			"for %s it would take about %.2g operations, beyond the report's bound of %.0g. Every public column gets the "+
			"conservative weight TV~ = 1 (Standard's noise on it, and the claimed ε of a sensitive column). An identifier or free-text "+
			"column is best left out (--ignore, data.Ignore); merge the rare levels of a column with many.", data.QuoteNames(heavy), w, corrdp.MaxTVWork))
		return r.honesty(df.Nrow())
	}
	rep, err := corrdp.EstimateTV(df, schema, r.tvOptions())
	if err != nil {
		r.conservativeTV()
		r.Notes = append(r.Notes, "CorrDP: no TV estimate ("+err.Error()+"); every public column gets the conservative weight TV~ = 1 "+
			"(Standard's noise on it, and the claimed ε of a sensitive column).")
		return r.honesty(df.Nrow())
	}
	tilde, err := corrdp.TVTilde(rep, r.Options.C2, r.Options.Delta, false)
	if err != nil {
		return err
	}
	for _, f := range rep.Features {
		if c := r.col(f.Name); c != nil {
			c.TV, c.TVUCB, c.CorrDPWeight = f.TV, tilde[f.Name], tilde[f.Name]
			c.Leaking = tilde[f.Name] >= 0.99 && f.TV >= 0.9
			c.FromData = append(c.FromData, "TV")
		}
	}
	if err := r.honesty(df.Nrow()); err != nil {
		return err
	}
	r.Notes = append(r.Notes, fmt.Sprintf("CorrDP's TVs are estimated from this DataFrame (n = %d): the estimate reads the private data. "+
		"A continuous public column's TV is the larger of the paper's linear/Gaussian estimate (u = min vs max) and a model-free one over %s; "+
		"both are plug-in estimates. TV~ adds the UCB term of Def. 4.3 with c2 = %g, a heuristic upper confidence bound: "+
		"no coverage guarantee, so the (ε, 2δ) statement of Lemma A.1 of the CorrDP paper does not apply. "+
		"Estimate the TVs on a public sample, or read the weights as a heuristic.", rep.N, r.binsAssumption(), r.Options.C2))
	return nil
}

// markLevelCounts records, when the TV estimate was skipped for its work,
// that the report counted the distinct values of the sensitive and public
// feature columns in the data.
func (r *PrivacyReportResult) markLevelCounts(schema data.Schema) {
	for _, c := range schema.Features() {
		if row := r.col(c.Name); row != nil {
			row.FromData = append(row.FromData, "level counts")
		}
	}
}

// tvOptions are the TV estimate's options: the Checked estimator, binned
// over the Pipeline's public bounds when given.
func (r *PrivacyReportResult) tvOptions() corrdp.TVOptions {
	o := corrdp.TVOptions{Estimator: corrdp.Checked}
	if p := r.Options.Pipeline; p != nil {
		o.Bounds = p.Bounds
	}
	return o
}

// binsAssumption says over which range the continuous public columns are
// binned: the public bounds, or the observed range (a statistic of the
// data).
func (r *PrivacyReportResult) binsAssumption() string {
	if p := r.Options.Pipeline; p != nil && len(p.Bounds) > 0 {
		return "equal-width bins of the column over its public bounds (--bounds; the observed range for a column without)"
	}
	return "equal-width bins of the column over its observed range (give public bounds to bin over them)"
}

// conservativeTV gives every public column the weight TV~ = 1 when no TV
// could be estimated: a missing estimate must never read as independence
// (nor leave NaN weights).
func (r *PrivacyReportResult) conservativeTV() {
	for i := range r.Columns {
		if r.Columns[i].Role == data.Public.String() {
			r.Columns[i].TVUCB, r.Columns[i].CorrDPWeight = 1, 1
		}
	}
}

// honesty fills the honest and claimed CorrDP ε of every feature column
// (one step of paper-mode noise with C = 1, see ColumnPrivacy): each ε
// comes from a ledger (corrdp.Honesty), none is converted here.
func (r *PrivacyReportResult) honesty(n int) error {
	var idx []int
	var sigma2, tv []float64
	var sens []bool
	s0, err := corrdp.Sigma0Sq(1, r.Options.Eps, r.Options.Delta)
	if err != nil {
		return err
	}
	if math.IsInf(s0, 1) {
		return fmt.Errorf("ε = %g is so small that CorrDP's noise variance overflows float64: give a larger ε", r.Options.Eps)
	}
	for i, c := range r.Columns {
		switch c.Role {
		case data.Sensitive.String():
			idx, sigma2, tv, sens = append(idx, i), append(sigma2, s0), append(tv, 1), append(sens, true)
		case data.Public.String():
			if !math.IsNaN(c.TVUCB) {
				idx, sigma2, tv, sens = append(idx, i), append(sigma2, s0*c.TVUCB), append(tv, c.TVUCB), append(sens, false)
			}
		}
	}
	if len(idx) == 0 {
		return nil
	}
	// Leakage: a GLM's gradient ℓ'(θᵀx)·x moves every coordinate when any
	// column changes (the paper's per-coordinate model would under-report).
	rows, err := corrdp.Honesty(sigma2, sens, tv, 1, n, 1, r.Options.Eps, r.Options.Delta, accounting.RelationReplaceOne, true)
	if err != nil {
		return err
	}
	for _, h := range rows {
		if h.Coord >= 0 {
			if h.Coord < len(idx) {
				r.Columns[idx[h.Coord]].CorrDPHonestEps, r.Columns[idx[h.Coord]].CorrDPClaimedEps = h.Eps, h.Claimed
			}
			continue
		}
		for k, i := range idx { // the sensitive block's row
			if sens[k] {
				r.Columns[i].CorrDPHonestEps, r.Columns[i].CorrDPClaimedEps = h.Eps, h.Claimed
			}
		}
	}
	return nil
}

// featureDP marks the protected columns and their Thm 4 bounds.
func (r *PrivacyReportResult) featureDP(_ dataframe.DataFrame, schema data.Schema) error {
	byName := columnsByName(schema)
	for i := range r.Columns {
		c := &r.Columns[i]
		if c.Role != data.Sensitive.String() {
			c.FDPNote = "public under feature DP (known to the adversary)"
			continue
		}
		c.FDPProtected = true
		ball, given := r.Options.Ball[c.Column]
		if !given {
			c.FDPNote = fdp.NoBallReason(byName[c.Column]) + "; give it: ReportOptions.Ball, or --ball " + c.Column + "=P on the command line"
			continue
		}
		b, err := fdp.AttributeInferenceBound(r.Options.Eps, r.Options.Delta, ball)
		if err != nil {
			return fmt.Errorf("column %s: Ball: %w", c.Column, err)
		}
		c.FDPBound, c.FDPNote = b, fmt.Sprintf("Ball = %.3g (given)", ball)
	}
	return nil
}

// bcdp allocates the demanded levels (Theorem 2 of the BCDP paper).
func (r *PrivacyReportResult) bcdp(_ dataframe.DataFrame, _ data.Schema) error {
	if len(r.Options.Levels) == 0 {
		return nil
	}
	var idx []int
	var delta []float64
	for i, c := range r.Columns {
		if c.Role == data.Label.String() {
			continue
		}
		lv, ok := r.Options.Levels[c.Column]
		if !ok {
			if c.Role == data.Sensitive.String() {
				return fmt.Errorf("sensitive column %q has no BCDP level in Levels", c.Column)
			}
			lv = math.Inf(1)
		}
		idx, delta = append(idx, i), append(delta, lv)
	}
	a, err := bcdp.Allocate(delta, r.Options.Eps, r.Options.Q, bcdp.ZetaHeuristic(r.Options.Q))
	if err != nil {
		return err
	}
	for k, i := range idx {
		r.Columns[i].BCDPLevel, r.Columns[i].BCDPAlloc = delta[k], a.C[k]
	}
	r.Notes = append(r.Notes, fmt.Sprintf("BCDP: the allocation assumes %s, ζ = %.4g: the levels δ_i hold only for priors that satisfy it (BCDP paper, Theorem 2; docs/bcdp.md).",
		bcdpQText(r.Options.Q, r.Options.IndependentCoordinates), a.Zeta))
	if cat := r.categoricalCoordinates(idx); len(cat) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("BCDP: the categorical column(s) %s count as one coordinate each; BCDP's mean estimation "+
			"(dpnb.BCDPMeanEstimation) takes numeric columns only, and a mechanism that one-hot encodes a column has one coordinate per level, "+
			"whose allocation differs.", strings.Join(cat, ", ")))
	}
	return nil
}

// categoricalCoordinates names the categorical columns among the BCDP
// coordinates idx.
func (r *PrivacyReportResult) categoricalCoordinates(idx []int) []string {
	var cat []string
	for _, i := range idx {
		if r.Columns[i].Kind == data.Categorical.String() {
			cat = append(cat, strconv.Quote(r.Columns[i].Column))
		}
	}
	return cat
}

// Table returns one row per column; its last column,
// read_from_private_data, lists what the report computed from the private
// data for that column (FromData).
// A nil receiver gives an empty DataFrame whose Err names the fix.
func (r *PrivacyReportResult) Table() dataframe.DataFrame {
	if r == nil {
		return nilTable("PrivacyReportResult", "PrivacyReport")
	}
	n := len(r.Columns)
	name, role, kind, note, pre, from := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	tv, ucb, w, fb, lv, al := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	honest, claimed := make([]float64, n), make([]float64, n)
	leaks, prot := make([]bool, n), make([]bool, n)
	for i, c := range r.Columns {
		name[i], role[i], kind[i], note[i], pre[i] = c.Column, c.Role, c.Kind, c.FDPNote, strings.Join(c.Preprocessing, "; ")
		from[i] = strings.Join(c.FromData, "; ")
		tv[i], ucb[i], w[i], fb[i], lv[i], al[i] = c.TV, c.TVUCB, c.CorrDPWeight, c.FDPBound, c.BCDPLevel, c.BCDPAlloc
		honest[i], claimed[i], leaks[i], prot[i] = c.CorrDPHonestEps, c.CorrDPClaimedEps, c.Leaking, c.FDPProtected
	}
	f := func(v []float64, n string) reportseries.Series { return reportseries.New(v, reportseries.Float, n) }
	str := func(v []string, n string) reportseries.Series { return reportseries.New(v, reportseries.String, n) }
	return dataframe.New(str(name, "column"), str(role, "role"), str(kind, "kind"), f(tv, "corrdp_tv"), f(ucb, "corrdp_tv_ucb"),
		reportseries.New(leaks, reportseries.Bool, "corrdp_leaks"), f(w, "corrdp_weight"),
		f(honest, "corrdp_honest_eps"), f(claimed, "corrdp_claimed_eps"),
		reportseries.New(prot, reportseries.Bool, "fdp_protected"), f(fb, "fdp_attribute_bound"), str(note, "fdp_note"),
		f(lv, "bcdp_level"), f(al, "bcdp_allocation"), str(pre, "preprocessing"), str(from, "read_from_private_data"))
}

// ReportLegend explains every column of the report, by its markdown
// heading and its name in Table (the csv and json formats); Markdown
// prints it under the table. docs/README.md, "The privacy report", says
// the same at length.
var ReportLegend = []struct{ Heading, Fields, Meaning string }{
	{"column, role, kind", "`column`, `role`, `kind`", "the column, its role (sensitive, public, label) and how it was read (continuous: numbers; categorical: levels)"},
	{"CorrDP TV (UCB)", "`corrdp_tv`, `corrdp_tv_ucb`, `corrdp_leaks`", "for a public column, the total-variation distance between its distributions given different sensitive values (plug-in estimate from the data, and its upper confidence bound TV~); **leaks** when TV~ ≥ 0.99 and the plug-in TV ≥ 0.9 (a bound near 1 from a small sample alone is not a leak): the column reveals the sensitive ones about as much as they reveal themselves"},
	{"CorrDP weight", "`corrdp_weight`", "the share of the sensitive columns' noise variance CorrDP gives the column's coordinates, σ_i² = weight·σ0² (1 sensitive, TV~ public, 0 label); its noise scale is √weight·σ0"},
	{"CorrDP ε of a change (honest / claimed)", "`corrdp_honest_eps`, `corrdp_claimed_eps`", "honest: the ε that a change of this column alone really costs under one full-batch step of CorrDP's noise at budget ε on the gradient of the GLMs CorrDP trains (its zCDP loss under replace-one, read on the privacy ledger): a change of any column moves every coordinate of a GLM's gradient, so the least-noised coordinate bounds every column alike, and a public column with a small TV~ weakens the protection of all of them; claimed: what CorrDP's guarantee promises for it (ε for a sensitive column, ε/TV~ for a public one: the TV~ its noise uses, not the plug-in TV); honest ≤ claimed means the promise holds for that one step (the noise of CorrDP's paper mode, clip norm C = 1, n rows; T steps compose: `featuredp epsilon` gives the run's ε), a small honest value means the column gets far more protection than promised"},
	{"feature DP", "`fdp_protected`, `fdp_attribute_bound`, `fdp_note`", "whether feature DP protects the column (sensitive: yes; public: known to the adversary), and the bound min(1, e^ε·Ball + δ) on any adversary's chance of guessing it from the model (Thm 4), with the prior mass Ball you gave (--ball: the best guess given the public columns and label; without it no bound, as no prior is assumed)"},
	{"BCDP δ_i → c_i", "`bcdp_level`, `bcdp_allocation`", "the demanded BCDP level δ_i of a sensitive column (--bcdp-level; public columns: no demand) and the per-coordinate budget c_i Theorem 2 allocates; — without levels"},
	{"(pipeline)", "`preprocessing`", "the planned pre-processing steps that touch the column (--pipeline)"},
	{"(first line)", "`read_from_private_data`", "what the report computed from the private data for the column (not differentially private)"},
}

// Markdown renders the report with its notes, led by what it read from
// the private data (FromData).
// A nil receiver renders a line naming the fix.
func (r *PrivacyReportResult) Markdown() string {
	if r == nil {
		return nilMarkdown("PrivacyReportResult", "PrivacyReport")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**Privacy report** at ε = %g, δ = %g.\n\n", r.Options.Eps, r.Options.Delta)
	if len(r.FromData) > 0 {
		b.WriteString("> **Read from the private data** (not differentially private; share this report as you would share the data): " +
			strings.Join(r.FromData, "; ") + ".\n\n")
	}
	b.WriteString("| column | role | kind | CorrDP TV (UCB) | CorrDP weight | CorrDP ε of a change (honest / claimed) | feature DP | BCDP δ_i → c_i |\n|---|---|---|---|---:|---|---|---|\n")
	for _, c := range r.Columns {
		tv := "—"
		if !math.IsNaN(c.TV) {
			tv = fmt.Sprintf("%.3f (%.3f)", c.TV, c.TVUCB)
			if c.Leaking {
				tv += " **leaks**"
			}
		}
		f := c.FDPNote
		if c.FDPProtected && !math.IsNaN(c.FDPBound) {
			f = fmt.Sprintf("protected; guess ≤ %s (%s)", mdtext.Upward(c.FDPBound, 3), c.FDPNote)
		}
		bc := "—"
		switch {
		case math.IsInf(c.BCDPLevel, 1):
			bc = fmt.Sprintf("no demand → %.3g", c.BCDPAlloc)
		case !math.IsNaN(c.BCDPAlloc):
			bc = fmt.Sprintf("%g → %.3g", c.BCDPLevel, c.BCDPAlloc)
		}
		w := "—"
		if !math.IsNaN(c.CorrDPWeight) {
			w = fmt.Sprintf("%.3g", c.CorrDPWeight)
		}
		h := "—"
		if !math.IsNaN(c.CorrDPHonestEps) {
			h = mdtext.Upward(c.CorrDPHonestEps, 3) + " / " + mdtext.Upward(c.CorrDPClaimedEps, 3)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", mdCell(c.Column), c.Role, c.Kind, tv, w, h, mdCell(f), bc)
	}
	b.WriteString("\n**Columns** (the csv and json formats name them in backticks):\n\n")
	for _, l := range ReportLegend {
		fmt.Fprintf(&b, "- **%s** (%s): %s.\n", l.Heading, l.Fields, l.Meaning)
	}
	b.WriteString(r.pipelineMarkdown())
	for _, n := range r.Notes {
		b.WriteString("\n" + n + "\n")
	}
	return mdtext.Controls(b.String()) // names and notes from the user's data
}

// Plot draws CorrDP's TV~ per public column.
// A nil receiver is an error naming the fix.
func (r *PrivacyReportResult) Plot() (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResult("PrivacyReportResult", "PrivacyReport")
	}
	var sums []experiments.Summary
	var names []string
	for _, c := range r.Columns {
		if !math.IsNaN(c.TVUCB) {
			sums = append(sums, experiments.Summary{Method: "TV~ (CorrDP weight)", X: float64(len(names)), Metric: "tv", Mean: c.TVUCB, N: 1},
				experiments.Summary{Method: "plug-in TV", X: float64(len(names)), Metric: "tv", Mean: c.TV, N: 1})
			names = append(names, c.Column)
		}
	}
	if len(sums) == 0 {
		return nil, errors.New("dpnb: PrivacyReport: no public column with a TV to plot")
	}
	return BarPlot(sums, BarOptions{Title: "How much each public column reveals of the sensitive ones", YLabel: "TV", Metric: "tv",
		Band: BandNone, XFormat: func(x float64) string { return names[int(x)] }})
}
