package figures

import (
	"context"
	"fmt"

	"github.com/featuredp/featuredp/experiments"
)

// The machinery shared by the mean-estimation figures bcdp-fig3,
// bcdp-fig4-fraction and bcdp-fig4-dimension.

// meanCell is the Config of a mean-estimation cell.
type meanCell struct {
	Method   Method
	Setting  MeanSetting
	DataSeed uint64
}

// String describes the cell configuration for error messages.
func (c meanCell) String() string {
	type plain meanCell // no String method: no recursion
	return fmt.Sprintf("method=%v %+v", c.Method, plain(c))
}

var modes = []string{ModePaper, ModeUnbiased}
var meanMethods = []Method{MethodBCDP, MethodLDP}

// meanCells expands (modes × methods × xs × trials) cells; setting maps
// (mode, x) to the trial's setting. The data seed depends only on (figure,
// x, rep), so both methods and both modes of a trial see the same users.
func meanCells(fig string, xs []float64, trials int, setting func(mode string, x float64) MeanSetting) []experiments.Cell {
	var cells []experiments.Cell
	for _, mode := range modes {
		for _, meth := range meanMethods {
			for _, x := range xs {
				st := setting(mode, x)
				for r := 0; r < trials; r++ {
					cells = append(cells, experiments.Cell{
						Method: meth.String(), X: x, Rep: r,
						Seed:   experiments.CellSeed(0, fig, meth.String()+"|"+mode, x, r),
						Config: meanCell{Method: meth, Setting: st, DataSeed: experiments.CellSeed(0, fig, "data", x, r)},
					})
				}
			}
		}
	}
	return cells
}

// runMean is the Run of the mean-estimation figures: one row per trial,
// metric sq_error, Extra column mode.
func runMean(ctx context.Context, c experiments.Cell, _ experiments.Env) ([]experiments.Measurement, error) {
	cfg, ok := c.Config.(meanCell)
	if !ok {
		return nil, fmt.Errorf("bcdp: cell config is %T, want meanCell", c.Config)
	}
	e, err := MeanTrial(ctx, cfg.Setting, cfg.Method, cfg.DataSeed, c.Seed)
	if err != nil {
		return nil, err
	}
	return []experiments.Measurement{{Metric: "sq_error", Value: e, Extra: map[string]string{"mode": cfg.Setting.Mode}}}, nil
}

func fig4Trials(p experiments.Profile) int {
	if p == experiments.Full {
		return 100
	}
	return 20
}

// sensitiveDelta returns d levels, the first k equal to small and the
// rest to eps.
func sensitiveDelta(d, k int, small, eps float64) []float64 {
	out := make([]float64, d)
	for i := range out {
		out[i] = eps
		if i < k {
			out[i] = small
		}
	}
	return out
}

const modeNote = "Two modes (column `mode`): `paper` = the authors' scripts (printed Duchi constant, which is 2× the " +
	"unbiased one so every estimate is centred on 2x̄ and every variance is 4× larger; each round's mean projected onto the ℓ2 ball " +
	"of radius √D_k and the estimate onto radius √d); `unbiased` = corrected constant, both methods clipped to [−1,1]^d. " +
	"Data: ±1 records from prior (60), fresh per trial and shared by both methods and modes (the authors' scripts draw the data once, " +
	"with seed 0; for ±1 data the Duchi variance does not depend on the data). ζ = (1+q)/2 (paper heuristic). " +
	"Error: squared ℓ2 distance to the users' empirical mean; median with 25–75% band over trials (type-7 quantiles)."
