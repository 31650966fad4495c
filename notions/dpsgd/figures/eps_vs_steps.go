package figures

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/experiments"
)

// qz is one (sample rate, noise multiplier) setting of DP-SGD.
type qz struct{ q, z float64 }

// epsVsStepsSettings are the DP-SGD settings of accounting-eps-vs-steps:
// (0.04, 1.5) is reference case R1 (Opacus' test suite), (0.0025, 1.3) is
// the MNIST setting of TF Privacy's tutorial (batch 150 of 60000), and
// (0.01, 1.0) a common small-noise setting.
var epsVsStepsSettings = []qz{{0.01, 1.0}, {0.04, 1.5}, {0.0025, 1.3}}

// stepsConfig is the cell configuration of accounting-eps-vs-steps.
type stepsConfig struct {
	setting qz
	conv    accounting.Conversion
	delta   float64
}

// String describes the cell for error messages.
func (c stepsConfig) String() string {
	return fmt.Sprintf("q=%g, z=%g, conversion=%s, delta=%g", c.setting.q, c.setting.z, c.conv, c.delta)
}

var conversions = []accounting.Conversion{accounting.ConversionImproved, accounting.ConversionClassic}

func qzMethod(s qz, conv accounting.Conversion) string {
	return fmt.Sprintf("q=%g,z=%g %s", s.q, s.z, conv)
}

// stepsGrid returns integers from 10 to max, perDecade per decade
// (log-spaced, rounded), plus 2250 (reference case R1), sorted and unique.
func stepsGrid(max float64, perDecade int) []float64 {
	set := map[float64]bool{2250: true}
	n := int(math.Round(math.Log10(max/10) * float64(perDecade)))
	for i := 0; i <= n; i++ {
		set[math.Round(10*math.Pow(10, float64(i)/float64(perDecade)))] = true
	}
	xs := make([]float64, 0, len(set))
	for x := range set {
		xs = append(xs, x)
	}
	sort.Float64s(xs)
	return xs
}

func epsVsStepsGrid(p experiments.Profile) []float64 {
	if p == experiments.Full {
		return stepsGrid(1e5, 20)
	}
	return stepsGrid(1e4, 5)
}

func init() {
	experiments.MustRegister(experiments.Figure{
		ID:     "accounting-eps-vs-steps",
		Paper:  "accounting",
		Title:  "ε of DP-SGD versus steps (RDP, δ = 1e-5)",
		XLabel: "steps T",
		YLabel: "ε at δ = 1e-5",
		LogX:   true,
		LogY:   true,
		Metric: "epsilon",
		Plot:   experiments.LinesSD,
		Cells: func(p experiments.Profile) ([]experiments.Cell, error) {
			var cells []experiments.Cell
			for _, s := range epsVsStepsSettings {
				for _, conv := range conversions {
					m := qzMethod(s, conv)
					for _, c := range experiments.Grid("accounting-eps-vs-steps", 0, []string{m}, epsVsStepsGrid(p), 1) {
						c.Config = stepsConfig{setting: s, conv: conv, delta: accountingDelta}
						cells = append(cells, c)
					}
				}
			}
			return cells, nil
		},
		Run: func(ctx context.Context, c experiments.Cell, _ experiments.Env) ([]experiments.Measurement, error) {
			cfg, ok := c.Config.(stepsConfig)
			if !ok {
				return nil, fmt.Errorf("cell config is %T, want dpsgd.stepsConfig", c.Config)
			}
			if c.X != math.Trunc(c.X) || c.X < 0 || c.X > math.MaxInt32 {
				return nil, fmt.Errorf("steps %v is not a non-negative integer", c.X)
			}
			ph := accounting.Phase{SampleRate: cfg.setting.q, NoiseMultiplier: cfg.setting.z, Steps: int(c.X)}
			eps, order, err := accounting.Epsilon([]accounting.Phase{ph}, cfg.delta, accounting.OrdersOpacus(), cfg.conv)
			if err != nil {
				return nil, err
			}
			return []experiments.Measurement{{Metric: "epsilon", Value: eps,
				Num:   map[string]float64{"order": order},
				Extra: map[string]string{"conversion": cfg.conv.String()},
			}}, nil
		},
		Settings: func(p experiments.Profile) string {
			xs := epsVsStepsGrid(p)
			var pairs []string
			for _, s := range epsVsStepsSettings {
				pairs = append(pairs, fmt.Sprintf("(q=%g, z=%g)", s.q, s.z))
			}
			return fmt.Sprintf("Poisson-subsampled Gaussian, add/remove-one neighbours, δ = 1e-5; "+
				"settings %s; conversions improved (Balle et al. 2020, Thm 21) and classic (Mironov 2017); "+
				"Opacus order grid 1.1–10.9 step 0.1 and 12–63; %d step counts from %g to %g.",
				strings.Join(pairs, ", "), len(xs), xs[0], xs[len(xs)-1])
		},
		PaperValues: []experiments.PaperValue{
			{Quantity: "R1: ε, z=1.5, q=0.04, T=2250, improved", Value: 7.32911117143,
				Method: qzMethod(qz{0.04, 1.5}, accounting.ConversionImproved), X: 2250, Metric: "epsilon",
				Note: "Opacus test suite (best order 3.9); docs/accounting.md"},
			{Quantity: "R1: ε, z=1.5, q=0.04, T=2250, classic", Value: 8.07385,
				Method: qzMethod(qz{0.04, 1.5}, accounting.ConversionClassic), X: 2250, Metric: "epsilon",
				Note: "reference table gives 6 significant digits (order 4.1)"},
		},
		Notes: "Deterministic privacy accounting: one cell per (setting, T), so the SD bands have zero width. " +
			"The classic conversion is always looser than the improved one. " +
			"The best RDP order of every point is in the CSV column `order`.",
	})
}
