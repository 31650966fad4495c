package figures

import (
	"context"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/smoothdp"
)

// ---------------------------------------------------------------------------
// smoothdp-table1: RDP and SRDP at α = 2 of every Table 1 mechanism.

// table1Params holds the Table 1 settings: n = 1000, T = 100, L = Δ = β = 1,
// σ = 10 for every Gaussian-type mechanism, ε = 1 for Laplace/Exponential,
// ω = 1/n for DP-SGD-sub, K = 10 for DP-SGD-iter.
var table1Params = smoothdp.MechParams{R: 1, L: 1, Delta: 1, Beta: 1, Sigma: 10, Eps: 1, N: 1000, T: 100}

var table1Mechs = []smoothdp.Mechanism{smoothdp.MechGaussian, smoothdp.MechLaplace,
	smoothdp.MechExponential, smoothdp.MechDPGD, smoothdp.MechSGDSub, smoothdp.MechSGDIter}

func table1EtaGrid(p experiments.Profile) []float64 {
	per := 2
	if p == experiments.Full {
		per = 8
	}
	var xs []float64
	for k := 0; k <= 5*per; k++ {
		xs = append(xs, math.Pow(10, -2+float64(k)/float64(per)))
	}
	return xs
}

func init() {
	experiments.MustRegister(experiments.Figure{
		ID: "smoothdp-table1", Paper: "smoothdp",
		Title:  "Table 1: SRDP ε̃(2, η) of each mechanism vs RDP ε(2) (reconstructed)",
		XLabel: "ℓ_{1,2} distance η", YLabel: "Rényi divergence bound at α = 2", LogX: true, LogY: true,
		Metric: "srdp", Plot: experiments.LinesSD,
		Cells: func(p experiments.Profile) ([]experiments.Cell, error) {
			var cells []experiments.Cell
			for _, m := range table1Mechs {
				for _, c := range experiments.Grid("smoothdp-table1", 0, []string{m.String()}, table1EtaGrid(p), 1) {
					c.Config = table1Config{mech: m}
					cells = append(cells, c)
				}
			}
			return cells, nil
		},
		Run: runTable1,
		Settings: func(p experiments.Profile) string {
			return fmt.Sprintf("n = 1000, T = 100, L = Δ = β = 1, σ = 10 (Gaussian-type), ε = 1 (Laplace, Exponential), ω = 1/n (DP-SGD-sub), "+
				"K = 10 (DP-SGD-iter); α = 2; %d values of η from 0.01 to 1000.", len(table1EtaGrid(p)))
		},
		Notes: "Metric `srdp` is ε̃(2, η) (Table 1, column SRDP), `rdp` the mechanism's RDP ε(2), `srdp_over_rdp` their ratio: " +
			"η² (Gaussian with L = Δ), η²β²/(4L²) (DP-GD), η (Laplace/Exponential) — versus g² (resp. g) for group privacy. " +
			"DP-SGD-iter's SRDP is [D] (derived by us) and is +Inf where σ² < α(α−1)β²η²/2." + banner,
	})
}

// table1Config is the cell configuration of smoothdp-table1: the mechanism.
type table1Config struct{ mech smoothdp.Mechanism }

// String describes the cell for error messages.
func (c table1Config) String() string { return "mechanism=" + c.mech.String() }

// runTable1 evaluates one mechanism's SRDP and RDP at α = 2 and η = c.X.
func runTable1(_ context.Context, c experiments.Cell, _ experiments.Env) ([]experiments.Measurement, error) {
	cfg, ok := c.Config.(table1Config)
	if !ok {
		return nil, fmt.Errorf("cell config is %T, want figures.table1Config", c.Config)
	}
	r, s, err := smoothdp.MechanismCurves(cfg.mech, table1Params, 10)
	if err != nil {
		return nil, err
	}
	g := math.Max(1, math.Ceil(c.X))
	return []experiments.Measurement{
		{Metric: "srdp", Value: s.At(2, c.X)},
		{Metric: "rdp", Value: r.At(2)},
		{Metric: "srdp_over_rdp", Value: s.At(2, c.X) / r.At(2), Num: map[string]float64{"group_g": g}},
	}, nil
}
