package dpnb

import (
	"context"
	"fmt"
	"strings"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/mdtext"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/notions/bcdp"
	"github.com/go-gota/gota/dataframe"
	bcdpseries "github.com/go-gota/gota/series"
	"gonum.org/v1/plot"
)

// BCDPMeanOptions configure BCDPMeanEstimation: the per-column levels
// (Levels, for the Sensitive columns), ε, the public correlation bound q
// (required: Q in (0, 1], or IndependentCoordinates for q = 0),
// ζ, the PUBLIC bounds of every estimated column (Bounds
// map[string]data.Range, as in data.EncodeOptions; BoundsFromData is the
// explicit, non-private opt-in to fit missing ones on the data), the number
// of simulated releases and their seed. See bcdp.MeanEstimationOptions for
// every field.
type BCDPMeanOptions = bcdp.MeanEstimationOptions

// BCDPMeanResult is the output of BCDPMeanEstimation (see
// bcdp.MeanEstimation for the fields). Errors are squared errors in the
// columns' original units. Its estimates come from a reproducible
// simulation seeded by Options.Seed, not from a private release, unless
// Options.Mode is mechanisms.Secure: then Estimate alone is the c_d-LDP
// release, and the baseline, the other simulated releases and the errors
// are not part of it (bcdp.MeanEstimationOptions.Mode). It renders
// itself as a table, a plot and markdown (nb.Renderable).
type BCDPMeanResult struct {
	*bcdp.MeanEstimation
}

// BCDPMeanEstimation estimates the means of the Sensitive and Public
// columns of df (roles from schema, as in CorrDPvsSemiVsStandard and
// FeatureDPvsDP; Label and Ignore columns are not used) under ε-LDP and the
// per-column BCDP levels opts.Levels, with Mechanism 1 and the Theorem 2
// allocation (BCDP paper §4), beside the min-δ LDP baseline (Prop. 3). Each
// row is one user. It returns the allocation, the exact predicted error and
// the Monte Carlo error of opts.Trials releases of both methods, simulated
// from opts.Seed (see bcdp.EstimateMeans). A key of opts.Levels or
// opts.Bounds that is not a column of the right role is an error naming it,
// and so is a column without Bounds unless opts.BoundsFromData (then the
// result's Markdown and Table say that those bounds came from the data).
func BCDPMeanEstimation(ctx context.Context, df dataframe.DataFrame, schema data.Schema, opts BCDPMeanOptions) (*BCDPMeanResult, error) {
	r, err := bcdp.EstimateMeans(ctx, df, schema, opts)
	if err != nil {
		return nil, fmt.Errorf("dpnb: BCDPMeanEstimation: %w", err)
	}
	return &BCDPMeanResult{r}, nil
}

// bcdpScaledSum adds v[j]/scale[j]² (errors on the [−1, 1] scale).
func bcdpScaledSum(v, scale []float64) float64 {
	s := 0.0
	for j, x := range v {
		s += x / (scale[j] * scale[j])
	}
	return s
}

// bcdpSum adds a slice.
func bcdpSum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

// Table returns one row per column: δ, the allocated c, the true mean, the
// first simulated release of each method (seeded: not a private release),
// and the predicted and Monte Carlo squared errors; plus the column
// FromDataColumn when bounds were fitted on the data.
func (r BCDPMeanResult) Table() dataframe.DataFrame {
	return withFromDataColumn(dataframe.New(
		bcdpseries.New(r.Columns, bcdpseries.String, "column"),
		bcdpseries.New(r.Delta, bcdpseries.Float, "delta"),
		bcdpseries.New(r.C, bcdpseries.Float, "c_BCDP"),
		bcdpseries.New(r.TrueMean, bcdpseries.Float, "true_mean"),
		bcdpseries.New(r.Estimate, bcdpseries.Float, "BCDP_simulated_estimate"),
		bcdpseries.New(r.BaselineEstimate, bcdpseries.Float, "LDP_simulated_estimate"),
		bcdpseries.New(r.Predicted, bcdpseries.Float, "BCDP_pred_mse"),
		bcdpseries.New(r.PredictedBaseline, bcdpseries.Float, "LDP_pred_mse"),
		bcdpseries.New(r.MC, bcdpseries.Float, "BCDP_mc_mse"),
		bcdpseries.New(r.MCBaseline, bcdpseries.Float, "LDP_mc_mse"),
	), r.fromData())
}

// fromData describes the bounds fitted on the data (FittedBounds).
func (r BCDPMeanResult) fromData() data.DataDependence {
	return data.DataDependence{Scaling: r.FittedBounds}
}

// Plot draws the Monte Carlo squared error per column on the [−1, 1] scale
// (error / Scale²), BCDP beside the min-δ LDP baseline.
func (r BCDPMeanResult) Plot() (*plot.Plot, error) {
	var sums []experiments.Summary
	for j := range r.Columns {
		s2 := r.Scale[j] * r.Scale[j]
		for mi, v := range []float64{r.MC[j] / s2, r.MCBaseline[j] / s2} {
			name := []string{"BCDP", fmt.Sprintf("LDP (min δ = %g)", r.Baseline)}[mi]
			sums = append(sums, experiments.Summary{Method: name, X: float64(j + 1), Metric: "mse", N: 1, Mean: v, Median: v, Q25: v, Q75: v, Min: v, Max: v})
		}
	}
	cols := r.Columns
	return BarPlot(sums, BarOptions{
		Title: "Mean estimation: Monte Carlo squared error per column" + fromDataTitle(r.fromData()), XLabel: "column", YLabel: "squared error (column scaled to [−1, 1])",
		Metric: "mse", Band: BandNone,
		XFormat: func(x float64) string {
			i := int(x) - 1
			if i >= 0 && i < len(cols) {
				return cols[i]
			}
			return fmt.Sprint(x)
		},
	})
}

// Markdown summarises the allocation and the errors, after a warning when
// bounds were fitted on the data (Options.BoundsFromData).
func (r BCDPMeanResult) Markdown() string {
	var b strings.Builder
	b.WriteString(fromDataWarning(r.fromData(), "public Bounds for every estimated column"))
	fmt.Fprintf(&b, "**BCDP mean estimation** of %d columns over %d users: ε = %g, %s, ζ = %.4g. ", len(r.Columns), r.N, r.Options.Eps,
		bcdpQText(r.Options.Q, r.Options.IndependentCoordinates), r.Allocation.Zeta)
	fmt.Fprintf(&b, "Allocation c = (%s); each BCDP release is %s-LDP. Baseline: Duchi channel at min δ = %g on all columns.\n\n",
		bcdpFmt(r.C), mdtext.Upward(r.LDPLevel, 4), r.Baseline)
	fmt.Fprintf(&b, "Squared errors summed over the columns, each column scaled to [−1, 1]:\n\n")
	fmt.Fprintf(&b, "| | BCDP | LDP baseline |\n|---|---:|---:|\n")
	fmt.Fprintf(&b, "| predicted MSE (exact, unprojected) | %.4g | %.4g |\n", bcdpScaledSum(r.Predicted, r.Scale), bcdpScaledSum(r.PredictedBaseline, r.Scale))
	fmt.Fprintf(&b, "| Monte Carlo MSE (%d simulated releases, %s projection) | %.4g | %.4g |\n", r.Options.Trials, r.Options.Projection, bcdpScaledSum(r.MC, r.Scale), bcdpScaledSum(r.MCBaseline, r.Scale))
	if r.Options.Mode == mechanisms.Secure {
		fmt.Fprintf(&b, "\nRandomness: %s. Every user's noise came from the operating system's CSPRNG, as a real release draws it on each device; the errors are over %d such releases. "+
			"Only the first BCDP estimate (Estimate) is the %.4g-LDP release: the baseline estimate and the other releases ran the mechanisms again on the same users (publishing them too spends more budget), "+
			"and the true means and errors come from the raw data; do not publish them with it.\n", r.Options.Mode, r.Options.Trials, r.LDPLevel)
	} else {
		fmt.Fprintf(&b, "\nRandomness: %s. The estimates and errors are a simulation from seed %d: anyone with the seed can regenerate the noise. A real release draws fresh, secret noise on each user's device (Mode: mechanisms.Secure).\n", r.Options.Mode, r.Options.Seed)
	}
	b.WriteString(r.worseNote())
	return mdtext.Controls(b.String()) // names and notes from the user's data
}

// worseNote says when BCDP's error is above the baseline's, by the exact
// prediction, the simulation or both, and gives the allocation's reason
// only when it holds (some c_j < min δ).
func (r BCDPMeanResult) worseNote() string {
	pred := bcdpScaledSum(r.Predicted, r.Scale) > bcdpScaledSum(r.PredictedBaseline, r.Scale)
	mc := bcdpScaledSum(r.MC, r.Scale) > bcdpScaledSum(r.MCBaseline, r.Scale)
	var s string
	switch {
	case pred && mc:
		s = "\nHere BCDP is **worse** than the min-δ baseline, by the predicted MSE and in the simulation."
	case pred:
		s = "\nBy the predicted MSE BCDP is **worse** than the min-δ baseline here; the simulation's errors happen to order them the other way."
	case mc:
		return fmt.Sprintf("\nIn this simulation BCDP's error is above the baseline's, although its predicted MSE is below: the %d simulated releases (and the %s projection) did not settle the difference; more Trials would.\n", r.Options.Trials, r.Options.Projection)
	default:
		return ""
	}
	if j := argMin(r.C); j >= 0 && r.C[j] < r.Baseline {
		s += fmt.Sprintf(" With this q the allocation gives column %s a smaller budget than the baseline gives every column (c = %.3g < min δ = %g); see the mean-estimation notebook.", r.Columns[j], r.C[j], r.Baseline)
	}
	return s + "\n"
}

// bcdpQText prints the correlation bound q of Assumption 1 that an
// allocation used (bcdp.CheckQ: q is given, never defaulted).
func bcdpQText(q float64, independent bool) string {
	if independent {
		return "q = 0 (assumed: independent coordinates)"
	}
	return fmt.Sprintf("q = %g (assumed correlation bound of Assumption 1)", q)
}

func bcdpFmt(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.3g", x)
	}
	return strings.Join(s, ", ")
}

// argMin returns the index of the smallest entry of v, −1 for none.
func argMin(v []float64) int {
	j := -1
	for i, x := range v {
		if j < 0 || x < v[j] {
			j = i
		}
	}
	return j
}
