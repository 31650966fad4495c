package dpnb

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/go-gota/gota/dataframe"
	corrdpseries "github.com/go-gota/gota/series"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/mdtext"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/notions/corrdp"
	corrdpfig "github.com/featuredp/featuredp/notions/corrdp/figures"
)

// CorrDPOptions configure CorrDPvsSemiVsStandard. Zero values give the
// defaults in brackets.
type CorrDPOptions struct {
	// Eps is the ε grid [EpsGrid of notions/corrdp/figures].
	Eps []float64
	// Seeds per (method, ε) [5], at most corrdpfig.MaxSeeds (10,000);
	// each ε of Eps once.
	Seeds int
	// TV gives the TV of each insensitive raw feature (the "paper" mode);
	// nil estimates it from the data (TV~ = plug-in + Def. 4.3 UCB, c2 = 1,
	// capped at 1). The plug-in of a continuous feature is the larger of
	// the paper's linear/Gaussian estimate and a model-free one over
	// equal-width bins of the feature (corrdp.Checked; over Encode.Bounds
	// when given, else over its observed range). TV~ is a heuristic bound:
	// no coverage guarantee, so Lemma A.1's (ε, 2δ) does not apply. The
	// estimate is always reported.
	TV map[string]float64
	// Neighbours is N-one (one TV per feature) or N-jointU (one TV_max).
	Neighbours corrdp.TVScope
	// C is the paper-mode noise constant of σ0² = C(log(1/δ)+1)/ε²; 0
	// selects it by the Standard-only rule of docs/corrdp.md (never by CorrDP).
	C float64
	// Alpha is the constant GD step [0.05 classification, 0.001 regression];
	// Steps is T [1000].
	Alpha float64
	Steps int
	// Delta is δ [1e-5].
	Delta float64
	// Encode are the encoding options [the zero value: MinMax scaling of
	// continuous features, full one-hot; regression adds an intercept;
	// any other value is used as given, as in FeatureDPOptions]. Give public
	// Bounds for the continuous columns and public levels (Encode.Levels
	// or the schema's Column.Levels) for the categorical ones and the
	// label, else the helper returns an error naming the columns; or opt in
	// explicitly with Encode.BoundsFromData / Encode.LevelsFromData to fit
	// them on the data (not differentially private: the result says so).
	Encode data.EncodeOptions
	// Workers [all cores] and Progress (may be nil) drive the runner.
	Workers  int
	Progress func(done, total int)
	// Mode must be mechanisms.Reproducible (the default): the comparison
	// is a seeded experiment of relative noise levels (paper mode, no ε
	// accounted), never a private release, so Secure is rejected.
	Mode mechanisms.Mode
}

// CorrDPResult is the outcome of CorrDPvsSemiVsStandard: the comparison as
// a Result (Table, Plot, Markdown), the TV report and the constant used.
type CorrDPResult struct {
	*Result
	// TVReport is the plug-in estimate (before the UCB).
	TVReport *corrdp.TVReport
	// TVUsed maps each insensitive raw feature to the TV the CorrDP curve
	// used (given or TV~); TVEstimated to the UCB estimate TV~.
	TVUsed, TVEstimated map[string]float64
	// C is the noise constant (given or calibrated on Standard); CTuned
	// reports that it was picked on this data (CorrDPOptions.C = 0).
	C      float64
	CTuned bool
	// FromData lists the encoding parameters fitted on the private data by
	// the caller's opt-in; empty when the encoding used public values only.
	FromData data.DataDependence
}

// CorrDPvsSemiVsStandard runs the CorrDP paper's comparison on any
// DataFrame with roles in one call (docs/corrdp.md, paper mode): it
// encodes df with schema (Sensitive / Public / Label roles), estimates the
// TV of every Public feature (corrdp.EstimateTV; with opts.TV given, both
// the given TV and the estimate are drawn), picks C by the Standard-only rule unless given, and trains logistic
// (binary classification) or linear (regression) models by full-batch GD
// with Standard, Semi, CorrDP and no noise over the ε grid × seeds (methods
// paired on the random numbers). The metric is the training accuracy or the
// utility gap F(θ) − F(θ̂). No ε is accounted: paper mode calibrates only
// relative noise (see corrdp.Honesty for the honest ε), and the
// TV estimate reads the data (it is reported; beyond corrdp.MaxTVWork,
// the privacy report's work bound, counted by corrdp.TVWork for
// opts.Neighbours — e.g. with an identifier column, or under N-jointU
// with many joint configurations of the public columns — it is refused
// with an error naming the columns). The encoder reads the data
// only by explicit opt-in (opts.Encode.BoundsFromData, LevelsFromData):
// without public bounds and levels it returns an error naming the columns.
func CorrDPvsSemiVsStandard(ctx context.Context, df dataframe.DataFrame, schema data.Schema, opts CorrDPOptions) (*CorrDPResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Mode != mechanisms.Reproducible {
		return nil, fmt.Errorf("dpnb: CorrDPvsSemiVsStandard: mode %v: the comparison is a seeded experiment (paper mode, no ε accounted), not a release; only the Reproducible mode is available", opts.Mode)
	}
	// The estimate runs whether or not opts.TV is given (both curves are
	// drawn), so its work is bounded in both cases.
	tvOpts := corrdp.TVOptions{Neighbours: opts.Neighbours, Bounds: opts.Encode.Bounds}
	if w, heavy, err := corrdp.TVWork(df, schema, tvOpts); err == nil && w > corrdp.MaxTVWork {
		joint := ""
		if opts.Neighbours == corrdp.JointU {
			joint = " (under N-jointU every pair of joint configurations of the public columns is compared: " +
				"N-one, opts.Neighbours = corrdp.NOne, compares each column's own levels)"
		}
		return nil, fmt.Errorf("dpnb: CorrDPvsSemiVsStandard: estimating the TV of the public columns would take about %.2g operations "+
			"(bound %.0g, mostly %s%s): leave an identifier or free-text column out (data.Ignore), or merge the rare levels of a column "+
			"with many (the estimate runs even with opts.TV given, whose curve is drawn beside it)", w, corrdp.MaxTVWork, data.QuoteNames(heavy), joint)
	}
	cmp, err := corrdpfig.NewComparison(df, schema, corrdpfig.CompareOptions{Eps: opts.Eps, Seeds: opts.Seeds, TV: opts.TV,
		Neighbours: opts.Neighbours, C: opts.C, Alpha: opts.Alpha, Steps: opts.Steps, Delta: opts.Delta, Encode: encodeOrDefault(opts.Encode)})
	if err != nil {
		return nil, fmt.Errorf("dpnb: CorrDPvsSemiVsStandard: %w", err)
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	start := time.Now()
	// The comparison's T, grid and seeds are the options, not a profile:
	// the Result carries no Profile (its report does not say "profile").
	res, err := cmp.Figure.Execute(ctx, experiments.Full, experiments.Env{Workers: workers}, opts.Progress)
	if err != nil {
		return nil, fmt.Errorf("dpnb: CorrDPvsSemiVsStandard: %w", err)
	}
	out := &CorrDPResult{
		Result: &Result{Figure: cmp.Figure, Results: res, Summary: experiments.SummarizeBy(res, cmp.Figure.GroupBy...),
			Workers: workers, Elapsed: time.Since(start)},
		TVReport: cmp.Prep.TVReport,
		FromData: cmp.FromData,
	}
	out.TVUsed, out.TVEstimated = cmp.TVs()
	out.C, _ = corrdpfig.Constant(res)
	out.CTuned = opts.C == 0
	return out, nil
}

// TVTable returns the TV report as a DataFrame: one row per insensitive
// feature with the discrete and continuous parts, the parametric and
// binned estimates of a continuous feature (0 for a discrete one), TV^,
// TV~ (UCB, heuristic) and the TV the CorrDP curve used.
// A nil receiver gives an empty DataFrame whose Err names the fix.
func (r *CorrDPResult) TVTable() dataframe.DataFrame {
	if r == nil {
		return nilTable("CorrDPResult", "CorrDPvsSemiVsStandard")
	}
	var names, pairs []string
	var disc, cont, model, binned, hat, tilde, used []float64
	for _, f := range r.TVReport.Features {
		names = append(names, f.Name)
		disc = append(disc, f.TVDisc)
		cont = append(cont, f.TVCont)
		model = append(model, f.TVModel)
		binned = append(binned, f.TVBinned)
		hat = append(hat, f.TV)
		tilde = append(tilde, r.TVEstimated[f.Name])
		used = append(used, r.TVUsed[f.Name])
		pairs = append(pairs, f.Pair)
	}
	return dataframe.New(
		corrdpseries.New(names, corrdpseries.String, "feature"),
		corrdpseries.New(disc, corrdpseries.Float, "TV_disc"),
		corrdpseries.New(cont, corrdpseries.Float, "TV_cont"),
		corrdpseries.New(model, corrdpseries.Float, "TV_model"),
		corrdpseries.New(binned, corrdpseries.Float, "TV_bins"),
		corrdpseries.New(hat, corrdpseries.Float, "TV^"),
		corrdpseries.New(tilde, corrdpseries.Float, "TV~ (UCB)"),
		corrdpseries.New(used, corrdpseries.Float, "TV used"),
		corrdpseries.New(pairs, corrdpseries.String, "maximising pair"),
	)
}

// Table is the Result's table plus the column FromDataColumn, which says on
// every row what was read from the private data: the TVs CorrDP's noise
// uses (estimated on it), the noise constant C when it was picked on it
// (CTuned), and the encoding when it was fitted on it — paper mode, no ε
// accounted, as the Markdown says.
// A nil receiver gives an empty DataFrame whose Err names the fix.
func (r *CorrDPResult) Table() dataframe.DataFrame {
	if r == nil {
		return nilTable("CorrDPResult", "CorrDPvsSemiVsStandard")
	}
	t := r.Result.Table()
	parts := []string{"CorrDP's TVs estimated on this data"}
	if r.CTuned {
		parts = append(parts, "noise constant C picked on this data")
	}
	if !r.FromData.Empty() {
		parts = append(parts, r.FromData.String())
	}
	v := make([]string, t.Nrow())
	for i := range v {
		v[i] = strings.Join(parts, "; ")
	}
	return t.Mutate(corrdpseries.New(v, corrdpseries.String, FromDataColumn))
}

// Markdown is the Result's report plus the table of the metric per ε and
// method, the TV report and the constant C, after a warning when the
// encoding was fitted on the data (FromData).
// A nil receiver renders a line naming the fix.
func (r *CorrDPResult) Markdown() string {
	if r == nil {
		return nilMarkdown("CorrDPResult", "CorrDPvsSemiVsStandard")
	}
	var b strings.Builder
	b.WriteString(fromDataWarning(r.FromData, encodeFix))
	b.WriteString("> **Paper mode, no ε accounted.** The ε below label CorrDP's noise levels (σ0² per step), not a privacy " +
		"guarantee of the run: T steps compose to far more (`featuredp epsilon`, `corrdp.Honesty`). The TVs are estimated from this data")
	if r.CTuned {
		b.WriteString(", and the noise constant C was picked on it (Standard's accuracy)")
	}
	b.WriteString(": an experiment to compare the methods, not a release.\n\n")
	b.WriteString(r.Result.Markdown())
	if t := SummaryMarkdown(r.Summary, r.Metric(), "ε"); t != "" {
		fmt.Fprintf(&b, "\n**%s** (mean ± SD over seeds):\n\n%s", r.Metric(), t)
	}
	fmt.Fprintf(&b, "\n**Noise constant** C = %g (σ0² = C(log(1/δ)+1)/ε²).\n\n**TV report** (%s, n = %d):\n\n| feature | TV_disc | TV_cont | TV_model | TV_bins | TV^ | TV~ (UCB) | TV used |\n|---|---|---|---|---|---|---|---|\n",
		r.C, r.TVReport.Neighbours, r.TVReport.N)
	feats := append([]corrdp.TVFeature(nil), r.TVReport.Features...)
	sort.SliceStable(feats, func(i, j int) bool { return feats[i].Name < feats[j].Name })
	for _, f := range feats {
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", mdCell(f.Name), f.TVDisc, f.TVCont, f.TVModel, f.TVBinned, f.TV, r.TVEstimated[f.Name], r.TVUsed[f.Name])
	}
	b.WriteString("\n" + r.TVReport.Notes + "\n")
	b.WriteString("\nTV~ adds the UCB term of Def. 4.3 with c2 = 1: a heuristic upper confidence bound with no coverage guarantee, " +
		"so the (ε, 2δ) statement of Lemma A.1 of the CorrDP paper does not apply.\n")
	return mdtext.Controls(b.String()) // names and notes from the user's data
}

// encodeOrDefault returns nil (the comparison's default encoding) for the
// zero EncodeOptions and a copy of e otherwise.
func encodeOrDefault(e data.EncodeOptions) *data.EncodeOptions {
	if reflect.ValueOf(e).IsZero() {
		return nil
	}
	return &e
}
