package figures

import (
	"fmt"
	"math"

	"github.com/featuredp/featuredp/experiments"
)

// Fig4DimensionSetting: n = 3000, dimension d, ε = 8, δ0 = 0.8 on
// round(0.2·d) coordinates, q = 0.1 (authors' Figure 4 right).
func Fig4DimensionSetting(mode string, d float64) MeanSetting {
	dd := int(d)
	k := int(math.Round(0.2 * d))
	return MeanSetting{N: 3000, Delta: sensitiveDelta(dd, k, 0.8, 8), Eps: 8, Q: 0.1, Mode: mode, BaselineProjected: true}
}

var fig4Dims = []float64{5, 10, 15, 20, 30, 40, 50, 60, 75, 90, 120}

func init() {
	experiments.MustRegister(experiments.Figure{
		ID:      "bcdp-fig4-dimension",
		Paper:   "bcdp",
		Title:   "Fig. 4 right: error vs dimension",
		XLabel:  "dimension d",
		YLabel:  "squared ℓ2 error",
		LogY:    true,
		Metric:  "sq_error",
		GroupBy: []string{"mode"},
		Plot:    experiments.LinesQuantile,
		Cells: func(p experiments.Profile) ([]experiments.Cell, error) {
			return meanCells("bcdp-fig4-dimension", fig4Dims, fig4Trials(p), Fig4DimensionSetting), nil
		},
		Run: runMean,
		Settings: func(p experiments.Profile) string {
			return fmt.Sprintf("n = 3000, ε = 8, δ0 = 0.8 on round(0.2 d) coordinates (others ε), q = 0.1, d ∈ {5, …, 120}, %d trials.", fig4Trials(p))
		},
		Notes: "Figure 4 is not in our copy of the paper (the October 2024 version has only Figure 3); the settings are those of the authors' public Figure 4 scripts. " + modeNote + " The baseline is projected in both modes (as in the authors' Figure 4 scripts).",
	})
}
