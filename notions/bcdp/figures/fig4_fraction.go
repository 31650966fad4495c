package figures

import (
	"fmt"
	"math"

	"github.com/featuredp/featuredp/experiments"
)

// Fig4FractionSetting: n = 5000, d = 50, ε = 2, δ0 = 0.2 on
// round(f·50) coordinates, q = 0.01 (authors' Figure 4 left).
func Fig4FractionSetting(mode string, f float64) MeanSetting {
	k := int(math.Round(f * 50))
	return MeanSetting{N: 5000, Delta: sensitiveDelta(50, k, 0.2, 2), Eps: 2, Q: 0.01, Mode: mode, BaselineProjected: true}
}

var fig4Fractions = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}

func init() {
	experiments.MustRegister(experiments.Figure{
		ID:      "bcdp-fig4-fraction",
		Paper:   "bcdp",
		Title:   "Fig. 4 left: error vs fraction of sensitive coordinates",
		XLabel:  "fraction f of coordinates with δ0 = 0.2",
		YLabel:  "squared ℓ2 error",
		LogY:    true,
		Metric:  "sq_error",
		GroupBy: []string{"mode"},
		Plot:    experiments.LinesQuantile,
		Cells: func(p experiments.Profile) ([]experiments.Cell, error) {
			return meanCells("bcdp-fig4-fraction", fig4Fractions, fig4Trials(p), Fig4FractionSetting), nil
		},
		Run: runMean,
		Settings: func(p experiments.Profile) string {
			return fmt.Sprintf("n = 5000, d = 50, ε = 2, δ0 = 0.2 on round(50 f) coordinates (others ε), q = 0.01, f ∈ {0, 0.1, …, 1}, %d trials.", fig4Trials(p))
		},
		Notes: "Figure 4 is not in our copy of the paper (the October 2024 version has only Figure 3); the settings are those of the authors' public Figure 4 scripts. " + modeNote + " The baseline is projected in both modes (as in the authors' Figure 4 scripts).",
	})
}
