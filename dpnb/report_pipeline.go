package dpnb

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/internal/mdtext"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/notions/smoothdp"
	"github.com/go-gota/gota/dataframe"
	reportseries "github.com/go-gota/gota/series"
)

// ReportPipeline describes the pre-processing a user plans before a DP
// mechanism, for PrivacyReport's smooth-RDP part: min–max scaling of every
// continuous feature column (with the PUBLIC ranges of Bounds, or with the
// data's own extremes for a column without one), optional deduplication,
// mean imputation, quantization and PCA, then DP-GD with T steps calibrated
// for the report's (ε, δ) as if the pre-processing were data-independent.
// The sensitivities are those of docs/smooth-rdp.md (replace-one).
type ReportPipeline struct {
	Bounds map[string]data.Range
	// Dedup adds exact deduplication of the records (their feature and
	// label columns; ignored columns are dropped first): k = 2·max(2, g),
	// η = 2Rk with g the largest group of identical records —
	// MaxDuplicates if given (a public bound ≥ 1, which the data must not
	// exceed), else counted in df (data-dependent: the report says so).
	Dedup         bool
	MaxDuplicates int
	// Impute lists feature columns whose missing values (NaN, or an empty
	// string) are replaced by the column mean: k = m, η = 2Rm/(n − m) with
	// m the number of records with a missing value — MaxMissing if given
	// (a public bound, which the data must not exceed), else counted in df
	// (data-dependent: the report says so).
	Impute     []string
	MaxMissing int
	// QuantizeRadius r > 0 adds r-approximate quantization of the records
	// with largest cluster QuantizeCluster (a public bound, required):
	// k = 2·cluster, η = r·k (Proposition 3).
	QuantizeRadius  float64
	QuantizeCluster int
	// PCARank s > 0 adds PCA rank reduction of the scaled features, with
	// PCAGap a public lower bound g_min on the eigen-gap λ_s − λ_{s+1}
	// (required): k = n, η = 12R³/g_min (Zwald–Blanchard) when
	// n > 24R²/g_min, else the unconditional 12√2·R³/g_min
	// (smoothdp.PreprocessingSensitivity; docs/smooth-rdp.md).
	PCARank int
	PCAGap  float64
	// Steps is DP-GD's T [200].
	Steps int
}

// PipelineCost is the smooth-RDP accounting of the planned pipeline.
type PipelineCost struct {
	// DataDependent accounts for the min–max bounds taken from the data
	// for the columns without public bounds; Public with every column's
	// bounds public (the other planned steps stay in both).
	DataDependent, Public *SmoothPipelineReport
	// PerStep is the best ε of DP-GD after each planned step alone, in
	// the order min–max (data bounds), deduplication, imputation,
	// quantization, PCA.
	PerStep []StepCost
}

// StepCost is the smooth-RDP cost of one planned step alone.
type StepCost struct {
	Step    string
	Columns []string // the columns it touches
	EpsBest float64
}

// pipeline fills MinMaxC per column and the pipeline costs.
func (r *PrivacyReportResult) pipeline(df dataframe.DataFrame, schema data.Schema) error {
	p := r.Options.Pipeline
	if p == nil {
		return nil
	}
	if p.Steps == 0 {
		p.Steps = 200
	}
	// The mechanism sees the features and the label, not the ignored
	// columns (a unique id left out must not make every record unique).
	var kept []string
	for _, c := range schema.Columns {
		if c.Role != data.Ignore {
			kept = append(kept, c.Name)
		}
	}
	df = df.Select(kept)
	var cols [][]float64
	var names, features []string
	all := data.Columns(df)
	for _, c := range schema.Features() {
		features = append(features, c.Name)
		if c.Kind != data.Continuous {
			continue
		}
		col, err := numericColumn(all[c.Name], c.Name)
		if err != nil {
			return err
		}
		b, public := p.Bounds[c.Name]
		if public && slices.ContainsFunc(col, func(v float64) bool { return v < b.Lo || v > b.Hi }) {
			r.Notes = append(r.Notes, fmt.Sprintf("Column %s has values outside its public bounds [%g, %g]: the planned min–max scaling clips them "+
				"to the bounds (as featuredp train does; the clipping depends on the bounds alone), which the pipeline's ε assumes. "+
				"Widen the bounds if the clipped values matter.", c.Name, b.Lo, b.Hi))
			if row := r.col(c.Name); row != nil {
				row.FromData = append(row.FromData, "values outside the public bounds")
			}
		}
		if row := r.col(c.Name); row != nil && !public {
			lo, hi := unknownDomain(1)
			st, err := SmoothMinMaxStep([][]float64{col}, []string{c.Name}, lo, hi)
			if err != nil {
				return err
			}
			row.MinMaxC = st.Eta / float64(len(col))
			row.FromData = append(row.FromData, "min–max bounds")
		}
		if !public {
			cols, names = append(cols, col), append(names, c.Name)
		}
	}
	cost, err := pipelineCost(df, cols, names, features, p, r.Options, r.missing)
	if err != nil {
		return err
	}
	r.Pipeline = cost
	for _, sc := range cost.PerStep {
		for _, c := range sc.Columns {
			if row := r.col(c); row != nil {
				row.Preprocessing = append(row.Preprocessing, sc.Step)
			}
		}
	}
	if p.Dedup && p.MaxDuplicates == 0 {
		for _, c := range kept {
			if row := r.col(c); row != nil {
				row.FromData = append(row.FromData, "duplicate groups")
			}
		}
		r.Notes = append(r.Notes, "Deduplication: the largest group of identical records was counted in the data (a data-dependent quantity); give ReportPipeline.MaxDuplicates, a public bound, to remove that dependence.")
	}
	if len(p.Impute) > 0 && p.MaxMissing == 0 {
		for _, c := range p.Impute {
			if row := r.col(c); row != nil {
				row.FromData = append(row.FromData, "missing count")
			}
		}
		r.Notes = append(r.Notes, "Imputation: the number of records with a missing value was counted in the data (a data-dependent quantity); give ReportPipeline.MaxMissing, a public bound, to remove that dependence.")
	}
	return nil
}

// validate checks the planned steps against the schema (once, with the
// report's other options).
func (p *ReportPipeline) validate(schema data.Schema) error {
	nf := len(schema.Features())
	for _, c := range p.Impute {
		col, ok := schema.Lookup(c)
		if !ok || col.Role == data.Label || col.Role == data.Ignore || col.Kind != data.Continuous {
			return fmt.Errorf("Pipeline.Impute: %q is not a continuous feature column of the schema (mean imputation)", c)
		}
	}
	for c, r := range p.Bounds {
		col, ok := schema.Lookup(c)
		if !ok || col.Role == data.Label || col.Role == data.Ignore || col.Kind != data.Continuous {
			return fmt.Errorf("Pipeline.Bounds: %q is not a continuous feature column of the schema (min–max scaling)", c)
		}
		if !(r.Lo < r.Hi) || !valid.Finite(r.Lo) || !valid.Finite(r.Hi) {
			return fmt.Errorf("Pipeline.Bounds: %q has range [%v, %v], want finite Lo < Hi", c, r.Lo, r.Hi)
		}
	}
	switch {
	case p.MaxMissing < 0:
		return fmt.Errorf("Pipeline.MaxMissing = %d, want ≥ 0", p.MaxMissing)
	case p.MaxDuplicates < 0:
		return fmt.Errorf("Pipeline.MaxDuplicates = %d, want ≥ 0 (0: count the largest group of identical records in the data)", p.MaxDuplicates)
	case !valid.Finite(p.QuantizeRadius) || p.QuantizeRadius < 0:
		return fmt.Errorf("Pipeline.QuantizeRadius = %v, want finite ≥ 0", p.QuantizeRadius)
	case p.QuantizeRadius > 0 && p.QuantizeCluster < 1:
		return fmt.Errorf("Pipeline.QuantizeCluster = %d: quantization needs a public bound ≥ 1 on the largest cluster", p.QuantizeCluster)
	case p.PCARank < 0 || p.PCARank > 0 && p.PCARank >= nf:
		return fmt.Errorf("Pipeline.PCARank = %d, want 0 (none) or in [1, %d)", p.PCARank, nf)
	case p.PCARank > 0 && (!(p.PCAGap > 0) || math.IsInf(p.PCAGap, 0)):
		return fmt.Errorf("Pipeline.PCAGap = %v: PCA needs a public eigen-gap bound > 0", p.PCAGap)
	case p.Steps < 0:
		return fmt.Errorf("Pipeline.Steps = %d, want ≥ 1 (0 = 200)", p.Steps)
	}
	return nil
}

// pipelineCost accounts DP-GD after the planned steps, data-dependent and
// public bounds (R = √(number of features): min–max puts every feature in
// [0, 1]).
func pipelineCost(df dataframe.DataFrame, cols [][]float64, names []string, features []string, p *ReportPipeline, o ReportOptions, missing int) (*PipelineCost, error) {
	R := math.Sqrt(float64(len(features)))
	n, T, B := df.Nrow(), p.Steps, 1.0
	sigma, err := smoothdp.CalibrateSigma(func(s float64) (smoothdp.RDPCurve, error) { return smoothdp.DPGDRDP(n, T, R, s) }, o.Eps, o.Delta)
	if err != nil {
		return nil, err
	}
	params := smoothdp.MechParams{R: R, L: R, Delta: 2 * R, Beta: 1 + R*B/4, Sigma: sigma, N: n, T: T}
	base, touched, err := plannedSteps(df, features, R, p, missing)
	if err != nil {
		return nil, err
	}
	account := func(steps []SmoothStep) (*SmoothPipelineReport, error) {
		if len(steps) == 0 {
			steps = []SmoothStep{{Name: "none (data-independent)", Note: "every bound public, no other step"}}
		}
		return SmoothPreprocCost(SmoothPipeline{Steps: steps, Mechanism: smoothdp.MechDPGD, Params: params, Delta: o.Delta})
	}
	pub, err := account(base)
	if err != nil {
		return nil, err
	}
	cost := &PipelineCost{DataDependent: pub, Public: pub}
	all := base
	if len(cols) > 0 {
		lo, hi := unknownDomain(len(cols))
		mm, err := SmoothMinMaxStep(cols, names, lo, hi)
		if err != nil {
			return nil, err
		}
		all = append([]SmoothStep{mm}, base...)
		touched = append([][]string{names}, touched...)
		if cost.DataDependent, err = account(all); err != nil {
			return nil, err
		}
	}
	for i, st := range all {
		one, err := account([]SmoothStep{st})
		if err != nil {
			return nil, err
		}
		cost.PerStep = append(cost.PerStep, StepCost{Step: st.Name, Columns: touched[i], EpsBest: one.EpsBest})
	}
	return cost, nil
}

// plannedDedup is the deduplication step of the records df holds (the
// report's features and label): with the public bound maxDup on the
// largest group of identical records, which the data must not exceed, or
// (maxDup = 0) with the largest group counted in df.
func plannedDedup(df dataframe.DataFrame, R float64, maxDup int) (SmoothStep, error) {
	d, g, err := SmoothDuplicateStep(df, R)
	if err != nil || maxDup == 0 {
		return d, err
	}
	if g > maxDup {
		return SmoothStep{}, fmt.Errorf("Pipeline.MaxDuplicates = %d, but the data has a group of %d identical records: "+
			"the public bound must hold for the data; raise it", maxDup, g)
	}
	return duplicateStep(maxDup, R, "MaxDuplicates (public bound)"), nil
}

// unknownDomain returns the domain ends of k columns that have no public
// bounds: (−∞, +∞). One replaced record may then hold any value and move an
// extreme anywhere, so min–max scaling fitted on the data has unbounded
// smooth sensitivity (c = ∞) and only group privacy over every record
// bounds its cost; assuming the observed range instead would be assuming a
// statistic of the private data.
func unknownDomain(k int) (lo, hi []float64) {
	lo, hi = make([]float64, k), make([]float64, k)
	for j := range k {
		lo[j], hi[j] = math.Inf(-1), math.Inf(1)
	}
	return lo, hi
}

// plannedSteps returns the planned steps other than min–max (dedup,
// imputation, quantization, PCA) with the columns each touches.
func plannedSteps(df dataframe.DataFrame, features []string, R float64, p *ReportPipeline, missing int) ([]SmoothStep, [][]string, error) {
	n := df.Nrow()
	var steps []SmoothStep
	var touched [][]string
	if p.Dedup {
		d, err := plannedDedup(df, R, p.MaxDuplicates)
		if err != nil {
			return nil, nil, err
		}
		steps, touched = append(steps, d), append(touched, df.Names())
	}
	if len(p.Impute) > 0 {
		m, note := p.MaxMissing, "m = MaxMissing (public bound)"
		if m > 0 && missing > m {
			return nil, nil, fmt.Errorf("Pipeline.MaxMissing = %d, but %d records of the data have a missing value in %s: "+
				"the public bound must hold for the data; raise it", m, missing, data.QuoteNames(p.Impute))
		}
		if m == 0 {
			m = missing
			note = "m counted in the data (data-dependent: give MaxMissing to make it public)"
		}
		steps = append(steps, SmoothStep{Name: fmt.Sprintf("mean imputation (m = %d)", m), K: m, Eta: smoothdp.EtaMeanImpute(R, m, n), Note: note})
		touched = append(touched, p.Impute)
	}
	if p.QuantizeRadius > 0 {
		k := smoothdp.KDedup(p.QuantizeCluster, accounting.RelationReplaceOne)
		steps = append(steps, SmoothStep{Name: fmt.Sprintf("quantization (r = %g, cluster ≤ %d)", p.QuantizeRadius, p.QuantizeCluster), K: k,
			Eta: smoothdp.EtaQuant(p.QuantizeRadius, k, false), Note: "Proposition 3, public radius and cluster bound"})
		touched = append(touched, features)
	}
	if p.PCARank > 0 {
		st, err := plannedPCA(R, p, n)
		if err != nil {
			return nil, nil, err
		}
		steps, touched = append(steps, st), append(touched, features)
	}
	return steps, touched, nil
}

// plannedPCA is the PCA rank-reduction step with the library's
// sensitivity (smoothdp.PreprocessingSensitivity, PrePCA): Zwald–Blanchard's
// η = 12R³/g_min only when n > 24R²/g_min, else the unconditional
// 12√2·R³/g_min; k = n.
func plannedPCA(R float64, p *ReportPipeline, n int) (SmoothStep, error) {
	eta, k, err := smoothdp.PreprocessingSensitivity(smoothdp.PrePCA, smoothdp.MechParams{R: R, GMin: p.PCAGap, N: n})
	if err != nil {
		return SmoothStep{}, fmt.Errorf("Pipeline.PCARank: %w", err)
	}
	note := "Zwald–Blanchard (n > 24R²/g_min), public gap bound"
	if eta == smoothdp.EtaPCADim(R, p.PCAGap) {
		note = fmt.Sprintf("n = %d ≤ 24R²/g_min = %.4g: Zwald–Blanchard does not apply, unconditional 12√2·R³/g_min; public gap bound", n, 24*R*R/p.PCAGap)
	}
	return SmoothStep{Name: fmt.Sprintf("PCA rank %d (g_min = %g)", p.PCARank, p.PCAGap), K: k, Eta: eta, Note: note}, nil
}

// meanImpute returns df with the missing values (NaN, empty or "?") of
// the continuous columns cols replaced by the column means, and the number
// of records that had a missing value in any of them.
func meanImpute(df dataframe.DataFrame, cols []string) (dataframe.DataFrame, int, error) {
	rows := map[int]bool{}
	for _, name := range cols {
		s := df.Col(name)
		if s.Err != nil {
			return df, 0, fmt.Errorf("Pipeline.Impute: %w", s.Err)
		}
		vals := make([]float64, s.Len())
		var sum float64
		var k int
		miss := make([]bool, s.Len())
		for i := range vals {
			if data.IsMissing(s, i) {
				miss[i], rows[i] = true, true
				continue
			}
			v, err := data.NumericAt(s, i)
			if err != nil {
				// Only a missing cell is imputed: a typo or an infinite
				// value is not, as without imputation.
				return df, 0, fmt.Errorf("Pipeline.Impute: column %q, row %d (0-based): %v: only missing cells (NaN, empty or \"?\") are imputed; clean the value", name, i, err)
			}
			vals[i], sum, k = v, sum+v, k+1
		}
		if k == 0 {
			return df, 0, fmt.Errorf("Pipeline.Impute: column %q has no value to take the mean of", name)
		}
		for i := range vals {
			if miss[i] {
				vals[i] = sum / float64(k)
			}
		}
		df = df.Mutate(reportseries.New(vals, reportseries.Float, name))
	}
	return df, len(rows), nil
}

// numericColumn reads the column s named name as float64 (an error names
// the row).
func numericColumn(s reportseries.Series, name string) ([]float64, error) {
	out := make([]float64, s.Len())
	for i := range out {
		v, err := data.NumericAt(s, i)
		if err != nil {
			return nil, fmt.Errorf("column %q row %d: %w", name, i, err)
		}
		out[i] = v
	}
	return out, nil
}

// pipelineMarkdown renders the pipeline part of the report.
func (r *PrivacyReportResult) pipelineMarkdown() string {
	c := r.Pipeline
	if c == nil {
		return ""
	}
	var b strings.Builder
	valid := "best valid ε"
	if c.Public.Chained || c.DataDependent.Chained {
		valid = "best ε under the sum rule (chained steps: an approximation, not a proven bound; the per-step ε below are bounds)"
	}
	fmt.Fprintf(&b, "\n**Planned pre-processing** (smooth RDP, DP-GD calibrated for ε = %g as if the pre-processing were data-independent): "+
		"with the data's own min–max bounds the "+valid+" is **%.4g**; with public bounds it is **%.4g**. "+
		"Per column, c is how far one replaced record can move that column's scaled values: 0 with public bounds, "+
		"∞ with the data's own (a replaced record may hold any value and move an extreme anywhere, so only group privacy "+
		"over all n records bounds the cost). The sensitivities and smooth-RDP curves are reconstructed from the smooth-RDP paper, "+
		"whose text lost its formulas (docs/smooth-rdp.md): these ε are bounds only if the reconstructed constants are.\n",
		r.Options.Eps, c.DataDependent.EpsBest, c.Public.EpsBest)
	var moving []string
	for _, col := range r.Columns {
		if col.MinMaxC > 0 {
			moving = append(moving, fmt.Sprintf("%s (c = %.3g)", col.Column, col.MinMaxC))
		}
	}
	if len(moving) > 0 {
		b.WriteString("\nColumns with data-dependent bounds that one record can move: " + strings.Join(moving, ", ") + ".\n")
	}
	if len(c.PerStep) > 0 {
		b.WriteString("\n| planned step | columns it touches | best ε with this step alone |\n|---|---|---:|\n")
		for _, st := range c.PerStep {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", mdCell(st.Step), mdCell(strings.Join(st.Columns, ", ")), mdtext.Upward(st.EpsBest, 4))
		}
	}
	return b.String()
}
