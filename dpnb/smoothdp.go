package dpnb

// Beyond the paper (OURS): the privacy cost of the non-private
// pre-processing that featuredp's own pipelines perform, accounted with the
// smooth-RDP machinery of "Provable Privacy with Non-Private Pre-Processing"
//. Constants are reconstructed.

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/internal/mdtext"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/notions/smoothdp"
	"github.com/go-gota/gota/dataframe"
)

// SmoothBanner is the reconstructed-constants banner every smoothdp notebook
// shows.
const SmoothBanner = "> **Reconstructed constants.** The text of the paper we reproduce from lost its formulas: the constants of " +
	"Tables 1–3, Theorem 2's form and Algorithm 1's lines are *reconstructed* (labelled [R]/[D] in the documentation of " +
	"`notions/smoothdp`; see docs/smooth-rdp.md). The generic calculators (tight Theorem 2 from any RDP/SRDP curve, Mironov " +
	"conversion) do not depend on the reconstruction, but every ε printed here does: it is a valid bound only if the " +
	"reconstructed constants are, and a constant that is larger in the paper would make it too small."

// SmoothStep is one pre-processing step of a pipeline with its replace-one
// sensitivities (Definition 4): ℓ0 sensitivity K and ℓ_{1,2} sensitivity
// Eta, over the collection described in Note.
type SmoothStep struct {
	Name string
	K    int
	Eta  float64
	// Note states the collection / assumptions under which (K, Eta) hold.
	Note string
}

// SmoothPipeline is a pipeline "pre-processing steps → DP mechanism".
type SmoothPipeline struct {
	Steps []SmoothStep
	// Mechanism and Params give the DP mechanism's Table 1 curves
	// (smoothdp.MechanismCurves); Params.N is the dataset size.
	Mechanism smoothdp.Mechanism
	Params    smoothdp.MechParams
	// Delta is the δ of the (ε, δ) conversion (Mironov, the paper's).
	Delta float64
}

// SmoothPipelineReport is the privacy of a pipeline with and without
// accounting for the pre-processing (replace-one, Mironov conversion).
type SmoothPipelineReport struct {
	// K and Eta are the composite sensitivities: K = min(n, Σ k_i), Eta =
	// Σ η_i (the sum rule). For one step they are that step's (the
	// theorems' bounds); for chained steps the sum rule is not proven: a
	// later step is fitted on an earlier one's output, which differs
	// between neighbours in up to k + 1 records, not one, so its change can
	// exceed its own η (Chained says so, and Markdown marks the bounds).
	K   int
	Eta float64
	G   int // group size min(n, K+1)
	// Chained reports more than one step: the ε below then rest on the
	// sum rule, an approximation rather than a bound.
	Chained bool
	// EpsIgnoring is the mechanism's ε as if the pre-processing were
	// data-independent (what the pipeline reports today).
	EpsIgnoring float64
	// EpsConservative and EpsTight account for the pre-processing with
	// Theorem 2 (Table 2's conservative form; the tight optimised form).
	EpsConservative, EpsTight float64
	// EpsGroup is the group-privacy baseline with g = min(n, K+1).
	EpsGroup float64
	// EpsBest = min(EpsTight, EpsGroup): both are upper bounds for one
	// step (under the sum rule for chained steps).
	EpsBest float64
	Delta   float64
	Steps   []SmoothStep
}

// SmoothPreprocCost accounts for the pre-processing of a pipeline
// ("beyond the paper", ours): it composes the steps' sensitivities, builds
// the mechanism's RDP and SRDP curves and returns ε at δ ignoring the
// pre-processing, with Theorem 2 (paper-style and tight), and with group
// privacy. Errors: no δ ∈ (0,1), a negative or NaN sensitivity, or invalid
// mechanism parameters.
func SmoothPreprocCost(p SmoothPipeline) (*SmoothPipelineReport, error) {
	if !(p.Delta > 0 && p.Delta < 1) {
		return nil, fmt.Errorf("dpnb: smoothdp: δ = %v must be in (0, 1)", p.Delta)
	}
	r := &SmoothPipelineReport{Delta: p.Delta, Steps: p.Steps, Chained: len(p.Steps) > 1}
	for _, s := range p.Steps {
		if s.K < 0 || !(s.Eta >= 0) {
			return nil, fmt.Errorf("dpnb: smoothdp: step %q has invalid sensitivity (k=%d, η=%v)", s.Name, s.K, s.Eta)
		}
		r.K += s.K
		r.Eta += s.Eta
	}
	if p.Params.N > 0 && r.K > p.Params.N {
		r.K = p.Params.N
	}
	params := p.Params
	params.K, params.Eta = r.K, r.Eta
	base, _, err := smoothdp.MechanismCurves(p.Mechanism, params, r.K)
	if err != nil {
		return nil, err
	}
	if r.EpsIgnoring, _, err = smoothdp.ToApproxDP(base, p.Delta); err != nil {
		return nil, err
	}
	r.G = smoothdp.GroupSize(max(p.Params.N, 1), r.K)
	if math.IsInf(r.Eta, 1) {
		r.EpsConservative, r.EpsTight = math.Inf(1), math.Inf(1)
		params.Eta = 0
	}
	e, err := smoothdp.Pipeline(p.Mechanism, smoothdp.PreGeneric, params)
	if err != nil {
		return nil, err
	}
	if !math.IsInf(r.Eta, 1) {
		if r.EpsConservative, _, err = smoothdp.ToApproxDP(e.Conservative, p.Delta); err != nil {
			return nil, err
		}
		if r.EpsTight, _, err = smoothdp.ToApproxDP(e.Tight, p.Delta); err != nil {
			return nil, err
		}
	}
	if r.EpsGroup, _, err = smoothdp.ToApproxDP(e.Group, p.Delta); err != nil {
		return nil, err
	}
	r.EpsBest = math.Min(r.EpsTight, r.EpsGroup)
	return r, nil
}

// Markdown renders the report.
// A nil receiver renders a line naming the fix.
func (r *SmoothPipelineReport) Markdown() string {
	if r == nil {
		return nilMarkdown("SmoothPipelineReport", "SmoothPreprocCost")
	}
	var b strings.Builder
	b.WriteString("| pre-processing step | k (ℓ0) | η (ℓ_{1,2}) | assumption |\n|---|---:|---:|---|\n")
	for _, s := range r.Steps {
		fmt.Fprintf(&b, "| %s | %d | %.4g | %s |\n", mdCell(s.Name), s.K, s.Eta, mdCell(s.Note))
	}
	fmt.Fprintf(&b, "| **composite (sum rule)** | %d | %.4g | %s |\n\n", r.K, r.Eta, r.sumRuleNote())
	fmt.Fprintf(&b, "| accounting (δ = %g, replace-one, Mironov conversion) | ε |\n|---|---:|\n", r.Delta)
	fmt.Fprintf(&b, "| ignoring the pre-processing (what the pipeline reports) | %s |\n", mdtext.Upward(r.EpsIgnoring, 4))
	fmt.Fprintf(&b, "| Theorem 2, paper-style 2ε(2α)+2ε̃(2α,η) | %s |\n", mdtext.Upward(r.EpsConservative, 4))
	fmt.Fprintf(&b, "| Theorem 2, tight (optimised over p) | %s |\n", mdtext.Upward(r.EpsTight, 4))
	fmt.Fprintf(&b, "| group privacy, g = min(n, k+1) = %d | %s |\n", r.G, mdtext.Upward(r.EpsGroup, 4))
	fmt.Fprintf(&b, "| **%s** min(tight, group) | **%s** |\n", r.bestLabel(), mdtext.Upward(r.EpsBest, 4))
	return b.String()
}

// sumRuleNote qualifies the composite row: exact for one step, an
// unproven approximation for chained steps.
func (r *SmoothPipelineReport) sumRuleNote() string {
	if !r.Chained {
		return "one step: its own bound"
	}
	return "chained steps: an approximation, not a proven bound (a later step is fitted on the earlier output, which neighbours change in up to k + 1 records)"
}

// bestLabel names EpsBest: a valid bound for one step, the sum rule's
// figure for chained steps.
func (r *SmoothPipelineReport) bestLabel() string {
	if r.Chained {
		return "best bound under the sum rule (not proven for chained steps)"
	}
	return "best valid bound"
}

// SmoothDuplicateStep returns the exact-deduplication step of a DataFrame
// (r = 0 in Proposition 3: a good cluster is a set of ≥ 2 identical rows):
// k = 2 × the largest multiplicity of a duplicated row, η = 2R·k with
// removed rows at distance 2R (docs/smooth-rdp.md: the mechanism normalises by the
// original n and gives ⊥ zero weight; featuredp's pipelines instead drop the
// rows, a difference this accounting ignores). The collection is {S and its
// neighbours whose largest duplicate group is no larger}.
func SmoothDuplicateStep(df dataframe.DataFrame, radius float64) (SmoothStep, int, error) {
	if df.Err != nil {
		return SmoothStep{}, 0, df.Err
	}
	recs := df.Records()
	if len(recs) < 2 {
		return SmoothStep{}, 0, fmt.Errorf("dpnb: smoothdp: need a DataFrame with rows")
	}
	count := map[string]int{}
	for _, row := range recs[1:] {
		count[strings.Join(row, "\x1f")]++
	}
	mx := 1
	for _, c := range count {
		mx = max(mx, c)
	}
	return duplicateStep(mx, radius, "counted in the data"), mx, nil
}

// duplicateStep is exact deduplication with largest duplicate group g
// (where g came from: source): k = 2·max(2, g) (a neighbour can always
// create one pair), η = 2R·k.
func duplicateStep(g int, radius float64, source string) SmoothStep {
	k := smoothdp.KDedup(max(g, 2), accounting.RelationReplaceOne)
	return SmoothStep{Name: "exact deduplication", K: k, Eta: smoothdp.EtaDedup(radius, k),
		Note: fmt.Sprintf("largest duplicate group %d (%s) ⇒ k = 2·max(2, %d) (Prop. 3, r = 0), η = 2Rk, R = %.3g", g, source, g, radius)}
}

// SmoothMinMaxStep returns the min–max scaling step with data-dependent
// bounds, x ↦ (x − min_j)/(max_j − min_j) per continuous column (ours, [D]).
// One replacement moves min_j by at most Δm_j = max(min_j − lo_j, m2_j −
// min_j) (insertion below the minimum down to the public lower end lo_j, or
// removal of a unique minimum, m2_j = second-smallest value, 0 if the
// minimum is attained twice), and max_j likewise; each point's scaled
// coordinate then moves by at most c_j = (Δm_j + ΔM_j)/w_j with w_j the
// smallest possible range (second-largest − second-smallest). So k = n if
// any c_j > 0 (else 0) and η = n·√(Σ_j c_j²). lo and hi are the public
// domain ends: −∞ and +∞ when the domain is unknown (then c_j = ∞ and only
// group privacy bounds the cost; the privacy report does this for bounds
// fitted on the data), nil for the observed range, i.e. assuming no value
// can fall outside what was observed (an assumption about the private data:
// state it when reporting).
func SmoothMinMaxStep(cols [][]float64, names []string, lo, hi []float64) (SmoothStep, error) {
	if len(cols) == 0 || len(cols[0]) < 3 {
		return SmoothStep{}, fmt.Errorf("dpnb: smoothdp: min–max step needs columns with ≥ 3 values")
	}
	n := len(cols[0])
	sum := 0.0
	var worst []string
	for j, c := range cols {
		if len(c) != n {
			return SmoothStep{}, fmt.Errorf("dpnb: smoothdp: column %d has %d values, want %d", j, len(c), n)
		}
		if i := valid.FirstNonFinite(c); i >= 0 {
			return SmoothStep{}, fmt.Errorf("dpnb: smoothdp: column %d has NaN or Inf (%v at row %d)", j, c[i], i)
		}
		v := append([]float64(nil), c...)
		sort.Float64s(v)
		m, M := v[0], v[n-1]
		l, h := m, M
		if lo != nil {
			l = math.Min(lo[j], m)
		}
		if hi != nil {
			h = math.Max(hi[j], M)
		}
		dm := math.Max(m-l, v[1]-m)
		dM := math.Max(h-M, M-v[n-2])
		w := v[n-2] - v[1]
		var cj float64
		switch {
		case dm == 0 && dM == 0:
			cj = 0
		case w <= 0:
			cj = math.Inf(1)
		default:
			cj = (dm + dM) / w
		}
		if cj > 0 && names != nil {
			worst = append(worst, fmt.Sprintf("%s (c=%.3g)", names[j], cj))
		}
		sum += cj * cj
	}
	st := SmoothStep{Name: "min–max scaling (data-dependent bounds)"}
	if sum > 0 {
		st.K, st.Eta = n, float64(n)*math.Sqrt(sum)
	}
	dom := "public domain = observed range (an assumption about the private data)"
	switch {
	case slices.ContainsFunc(lo, func(x float64) bool { return math.IsInf(x, -1) }) || slices.ContainsFunc(hi, func(x float64) bool { return math.IsInf(x, 1) }):
		dom = "no public domain: a replaced record may hold any value"
	case lo != nil || hi != nil:
		dom = "public domain given"
	}
	if len(worst) == 0 {
		st.Note = fmt.Sprintf("[D] ours; %s; every extreme attained ≥ 2 times ⇒ one replacement cannot move min/max", dom)
	} else {
		st.Note = fmt.Sprintf("[D] ours; %s; movable extremes: %s", dom, strings.Join(worst, ", "))
	}
	return st, nil
}
