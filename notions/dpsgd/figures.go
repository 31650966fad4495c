package dpsgd

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/experiments"
)

// accountingDelta is the δ of the accounting figures.
const accountingDelta = 1e-5

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

// calibrationSetting is one (sample rate, steps) setting of the calibration
// figure.
type calibrationSetting struct {
	q     float64
	steps int
}

// calibrationSettings: (0.04, 2250) is reference case R2 (Opacus), (0.0025,
// 6000) is TF Privacy's MNIST tutorial (batch 150 of 60000, 15 epochs).
var calibrationSettings = []calibrationSetting{{0.04, 2250}, {0.0025, 6000}}

// calibrator names one of the two calibration procedures of package
// accounting.
type calibrator string

// String returns the calibrator's name.
func (c calibrator) String() string { return string(c) }

// The two calibration procedures of package accounting.
const (
	calOpacus calibrator = "Opacus bisection" // accounting.NoiseMultiplierOpacus
	calTight  calibrator = "tight"            // accounting.NoiseMultiplier
)

// calibrators are the two calibration procedures of package accounting.
var calibrators = []calibrator{calOpacus, calTight}

// calibrationConfig is the cell configuration of accounting-calibration.
type calibrationConfig struct {
	setting calibrationSetting
	cal     calibrator
	delta   float64
}

// String describes the cell for error messages.
func (c calibrationConfig) String() string {
	return fmt.Sprintf("q=%g, steps=%d, calibrator=%s, delta=%g", c.setting.q, c.setting.steps, c.cal, c.delta)
}

func calibrationMethod(s calibrationSetting, calibrator string) string {
	return fmt.Sprintf("q=%g,T=%d %s", s.q, s.steps, calibrator)
}

// calibrationGrid returns the target ε values: 0.5–16 by doublings (quick)
// or 0.25–16 at four points per doubling (full).
func calibrationGrid(p experiments.Profile) []float64 {
	var xs []float64
	if p == experiments.Full {
		for k := -8; k <= 16; k++ {
			xs = append(xs, math.Pow(2, float64(k)/4))
		}
		return xs
	}
	for k := -1; k <= 4; k++ {
		xs = append(xs, math.Pow(2, float64(k)))
	}
	return xs
}

func init() {
	experiments.MustRegister(experiments.Figure{
		ID:     "accounting-calibration",
		Paper:  "accounting",
		Title:  "Noise multiplier for a target ε (RDP, δ = 1e-5)",
		XLabel: "target ε",
		YLabel: "noise multiplier z",
		LogX:   true,
		LogY:   true,
		Metric: "noise_multiplier",
		Plot:   experiments.LinesSD,
		Cells: func(p experiments.Profile) ([]experiments.Cell, error) {
			var cells []experiments.Cell
			for _, s := range calibrationSettings {
				for _, cal := range calibrators {
					m := calibrationMethod(s, string(cal))
					for _, c := range experiments.Grid("accounting-calibration", 0, []string{m}, calibrationGrid(p), 1) {
						c.Config = calibrationConfig{setting: s, cal: cal, delta: accountingDelta}
						cells = append(cells, c)
					}
				}
			}
			return cells, nil
		},
		Run: func(ctx context.Context, c experiments.Cell, _ experiments.Env) ([]experiments.Measurement, error) {
			cfg, ok := c.Config.(calibrationConfig)
			if !ok {
				return nil, fmt.Errorf("cell config is %T, want dpsgd.calibrationConfig", c.Config)
			}
			q, steps, delta := cfg.setting.q, cfg.setting.steps, cfg.delta
			var (
				z   float64
				err error
			)
			switch cfg.cal {
			case calOpacus:
				z, err = accounting.NoiseMultiplierOpacus(c.X, delta, q, steps)
			case calTight:
				z, err = accounting.NoiseMultiplier(c.X, delta, q, steps, accounting.DefaultOrders(), accounting.DefaultConversion)
			default:
				return nil, fmt.Errorf("unknown calibrator %v", cfg.cal)
			}
			if err != nil {
				return nil, err
			}
			eps, _, err := accounting.Epsilon([]accounting.Phase{{SampleRate: q, NoiseMultiplier: z, Steps: steps}}, delta, accounting.DefaultOrders(), accounting.DefaultConversion)
			if err != nil {
				return nil, err
			}
			return []experiments.Measurement{
				{Metric: "noise_multiplier", Value: z},
				{Metric: "epsilon_achieved", Value: eps},
			}, nil
		},
		Settings: func(p experiments.Profile) string {
			xs := calibrationGrid(p)
			return fmt.Sprintf("Poisson-subsampled Gaussian, add/remove-one neighbours, δ = 1e-5, Opacus orders, improved conversion; "+
				"settings (q=0.04, T=2250) and (q=0.0025, T=6000); %d target ε values from %g to %g. "+
				"\"Opacus bisection\" reproduces Opacus' get_noise_multiplier (tolerance 0.01 in ε, returns the upper end); "+
				"\"tight\" solves ε(z) = target to 1e-13 relative in z.", len(xs), xs[0], xs[len(xs)-1])
		},
		PaperValues: []experiments.PaperValue{
			{Quantity: "R2: z for ε=8, δ=1e-5, q=0.04, T=2250 (Opacus)", Value: 1.416015625,
				Method: calibrationMethod(calibrationSettings[0], "Opacus bisection"), X: 8, Metric: "noise_multiplier",
				Note: "Opacus get_noise_multiplier; docs/accounting.md"},
		},
		Notes: "The Opacus bisection stops as soon as ε(z) is within 0.01 below the target, so its z is slightly larger " +
			"than the tight one (metric `epsilon_achieved` in the CSV shows the ε actually reached).",
	})
}
