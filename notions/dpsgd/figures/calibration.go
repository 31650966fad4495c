package figures

import (
	"context"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/experiments"
)

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
