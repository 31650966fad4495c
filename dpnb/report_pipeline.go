package dpnb

import (
	"fmt"
	"math"
	"strings"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/notions/smoothdp"
	"github.com/go-gota/gota/dataframe"
)

// ReportPipeline describes the pre-processing a user plans before a DP
// mechanism, for PrivacyReport's smooth-RDP part: min–max scaling of every
// continuous feature column (with the PUBLIC ranges of Bounds, or with the
// data's own extremes for a column without one), optional deduplication,
// then DP-GD with T steps calibrated for the report's (ε, δ) as if the
// pre-processing were data-independent.
type ReportPipeline struct {
	Bounds map[string]data.Range
	Dedup  bool
	// Steps is DP-GD's T [200].
	Steps int
}

// PipelineCost is the smooth-RDP accounting of the planned pipeline.
type PipelineCost struct {
	// DataDependent accounts for the min–max bounds taken from the data
	// for the columns without public bounds; Public with every column's
	// bounds public (only deduplication, if planned, stays data-dependent).
	DataDependent, Public *SmoothPipelineReport
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
	var cols [][]float64
	var names []string
	nFeatures := 0
	for _, c := range schema.Features() {
		nFeatures++
		if c.Kind != data.Continuous {
			continue
		}
		col, err := numericColumn(df, c.Name)
		if err != nil {
			return err
		}
		_, public := p.Bounds[c.Name]
		if row := r.col(c.Name); row != nil && !public {
			st, err := SmoothMinMaxStep([][]float64{col}, []string{c.Name}, nil, nil)
			if err != nil {
				return err
			}
			row.MinMaxC = st.Eta / float64(len(col))
		}
		if !public {
			cols, names = append(cols, col), append(names, c.Name)
		}
	}
	cost, err := pipelineCost(df, cols, names, nFeatures, p, r.Options)
	if err != nil {
		return err
	}
	r.Pipeline = cost
	return nil
}

// pipelineCost accounts DP-GD after the planned steps, data-dependent and
// public bounds (R = √(number of features): min–max puts every feature in
// [0, 1]).
func pipelineCost(df dataframe.DataFrame, cols [][]float64, names []string, nFeatures int, p *ReportPipeline, o ReportOptions) (*PipelineCost, error) {
	R := math.Sqrt(float64(nFeatures))
	n, T, B := df.Nrow(), p.Steps, 1.0
	sigma, err := smoothdp.CalibrateSigma(func(s float64) (smoothdp.RDPCurve, error) { return smoothdp.DPGDRDP(n, T, R, s) }, o.Eps, o.Delta)
	if err != nil {
		return nil, err
	}
	params := smoothdp.Table2Params{R: R, L: R, Delta: 2 * R, Beta: 1 + R*B/4, Sigma: sigma, N: n, T: T}
	var base []SmoothStep
	if p.Dedup {
		d, _, err := SmoothDuplicateStep(df, R)
		if err != nil {
			return nil, err
		}
		base = append(base, d)
	}
	account := func(steps []SmoothStep) (*SmoothPipelineReport, error) {
		if len(steps) == 0 {
			steps = []SmoothStep{{Name: "none (data-independent)", Note: "every bound public, no deduplication"}}
		}
		return SmoothPreprocCost(SmoothPipeline{Steps: steps, Mechanism: smoothdp.MechDPGD, Params: params, Delta: o.Delta})
	}
	pub, err := account(base)
	if err != nil {
		return nil, err
	}
	dep := pub
	if len(cols) > 0 {
		mm, err := SmoothMinMaxStep(cols, names, nil, nil)
		if err != nil {
			return nil, err
		}
		if dep, err = account(append(append([]SmoothStep(nil), base...), mm)); err != nil {
			return nil, err
		}
	}
	return &PipelineCost{DataDependent: dep, Public: pub}, nil
}

// numericColumn reads a column as float64 (an error names the row).
func numericColumn(df dataframe.DataFrame, name string) ([]float64, error) {
	s := df.Col(name)
	out := make([]float64, df.Nrow())
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
	fmt.Fprintf(&b, "\n**Planned pre-processing** (smooth RDP, DP-GD calibrated for ε = %g as if the pre-processing were data-independent): "+
		"with the data's own min–max bounds the best valid ε is **%.4g**; with public bounds it is **%.4g**. "+
		"Per column, c is how far one replaced record can move that column's scaled values (0 with public bounds).\n",
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
	return b.String()
}
