package figures

// The choice of ζ in the Figure 3 setting (notebook 41, section 3b): the
// exact predicted error of every method as a curve in q, and a simulation of
// the ζ choices against the exact formula. OUR analysis, not in the paper.

import (
	"context"
	"fmt"

	"github.com/featuredp/featuredp/experiments"
)

// ZetaMethods are the methods compared in the ζ analysis: the paper's
// heuristic, Corollary 1's ζ = 1/2, our ζ-opt and the min-δ baseline.
var ZetaMethods = []Method{MethodBCDP, MethodZetaHalf, MethodZetaOpt, MethodLDP}

// PredictedCurves returns, for every method and every q, the exact
// predicted unprojected error of setting(q) (MeanSetting.PredictedMSE) as
// a summary with metric "predicted_mse" (N = 1, every statistic equal to
// the value), ready for dpnb.LinePlot.
func PredictedCurves(setting func(q float64) MeanSetting, methods []Method, qs []float64) ([]experiments.Summary, error) {
	var out []experiments.Summary
	for _, m := range methods {
		for _, q := range qs {
			v, err := setting(q).PredictedMSE(m)
			if err != nil {
				return nil, fmt.Errorf("bcdp: predicted curve of %v at q = %v: %w", m, q, err)
			}
			out = append(out, experiments.Summary{Method: m.String(), X: q, Metric: "predicted_mse", N: 1,
				Mean: v, Median: v, Q25: v, Q75: v, Min: v, Max: v})
		}
	}
	return out, nil
}

// ZetaRow is one (q, method) point of CompareZeta: the Monte Carlo mean of
// the unprojected error and the exact prediction.
type ZetaRow struct {
	Q         float64
	Method    Method
	Simulated float64 // mean unprojected squared error over the trials
	Predicted float64 // MeanSetting.PredictedMSE
}

// ZetaComparison is the outcome of CompareZeta.
type ZetaComparison struct {
	// Summary holds metrics sq_error (box-clipped estimate) and
	// sq_error_unprojected, per method label and q.
	Summary []experiments.Summary
	// Rows compare the simulation with the exact formula, per q then
	// method.
	Rows []ZetaRow
}

// zetaCell is the Config of a CompareZeta cell.
type zetaCell struct {
	Method   Method
	Setting  MeanSetting
	DataSeed uint64
}

// String describes the cell configuration for error messages.
func (c zetaCell) String() string {
	return fmt.Sprintf("method=%v q=%v unprojected=%v data seed=%d", c.Method, c.Setting.Q, c.Setting.Unprojected, c.DataSeed)
}

// CompareZeta simulates ZetaMethods in the Figure 3 setting (unbiased
// mode) at every q, trials times each, both box-clipped and unprojected
// (data shared by the methods of a trial), and compares the unprojected
// mean error with the exact formula. progress may be nil.
func CompareZeta(ctx context.Context, qs []float64, trials int, progress func(done, total int)) (*ZetaComparison, error) {
	var cells []experiments.Cell
	for _, unproj := range []bool{false, true} {
		for _, m := range ZetaMethods {
			for _, q := range qs {
				s := Fig3Setting(ModeUnbiased, q)
				s.Unprojected = unproj
				for r := 0; r < trials; r++ {
					cells = append(cells, experiments.Cell{Method: m.String(), X: q, Rep: r,
						Seed:   experiments.CellSeed(1, "nb41-zeta", fmt.Sprint(m, unproj), q, r),
						Config: zetaCell{Method: m, Setting: s, DataSeed: experiments.CellSeed(1, "nb41-data", "", q, r)}})
				}
			}
		}
	}
	res, err := experiments.Run(ctx, cells, func(ctx context.Context, c experiments.Cell) ([]experiments.Measurement, error) {
		cfg := c.Config.(zetaCell)
		metric := "sq_error"
		if cfg.Setting.Unprojected {
			metric = "sq_error_unprojected"
		}
		e, err := MeanTrial(ctx, cfg.Setting, cfg.Method, cfg.DataSeed, c.Seed)
		return []experiments.Measurement{{Metric: metric, Value: e}}, err
	}, experiments.RunOptions{Progress: progress, Figure: "bcdp-zeta"})
	if err != nil {
		return nil, err
	}
	out := &ZetaComparison{Summary: experiments.Summarize(res)}
	for _, q := range qs {
		for _, m := range ZetaMethods {
			sm, _ := experiments.FindSummary(out.Summary, m.String(), q, "sq_error_unprojected")
			pred, err := Fig3Setting(ModeUnbiased, q).PredictedMSE(m)
			if err != nil {
				return nil, err
			}
			out.Rows = append(out.Rows, ZetaRow{Q: q, Method: m, Simulated: sm.Mean, Predicted: pred})
		}
	}
	return out, nil
}
