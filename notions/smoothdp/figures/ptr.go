package figures

import (
	"context"
	"fmt"
	"strconv"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
	"github.com/featuredp/featuredp/notions/smoothdp"
)

// ---------------------------------------------------------------------------
// smoothdp-ptr: refusal rate of Algorithm 1 vs the eigengap.

func ptrGrid(p experiments.Profile) []float64 {
	if p == experiments.Full {
		return []float64{0.05, 0.06, 0.065, 0.07, 0.075, 0.08, 0.085, 0.09, 0.1, 0.12}
	}
	return []float64{0.05, 0.065, 0.075, 0.085, 0.1}
}

// ptrSetting: n = 10⁴ points in d = 4, ĝ = 0.05, ε₀ = 0.5, δ = 1e-5.
const (
	ptrN    = 10000
	ptrGHat = 0.05
	ptrEps0 = 0.5
)

func init() {
	experiments.MustRegister(experiments.Figure{
		ID: "smoothdp-ptr", Paper: "smoothdp",
		Title:  "Algorithm 1 (PTR): refusal rate vs eigengap, Monte Carlo vs formula",
		XLabel: "target eigengap λ1 − λ2", YLabel: "refusal rate Pr[refuse]", Metric: "refusal_rate", Plot: experiments.LinesSD,
		Cells: func(p experiments.Profile) ([]experiments.Cell, error) {
			reps := 2
			if p == experiments.Full {
				reps = 5
			}
			var cells []experiments.Cell
			for _, mc := range []bool{true, false} {
				cfg := ptrConfig{monteCarlo: mc}
				for _, c := range experiments.Grid("smoothdp-ptr", 0, []string{cfg.label()}, ptrGrid(p), reps) {
					c.Config = cfg
					cells = append(cells, c)
				}
			}
			return cells, nil
		},
		Run: runPTR,
		Settings: func(p experiments.Profile) string {
			return fmt.Sprintf("n = 10⁴ centred points in d = 4 with spectrum (gap + 0.05, 0.05, 0.05, 0.05), R = 1; ĝ = 0.05, ε₀ = 0.5, δ = 1e-5 "+
				"(threshold log(1/δ)/ε₀ = 23.03); γ_S = ⌊n(gap − ĝ)/(12R²)⌋; %d gaps. Monte Carlo runs the full Algorithm 1 (DP-GD with one step) "+
				"200 (quick) / 2000 (full) times per dataset.", len(ptrGrid(p)))
		},
		PaperValues: []experiments.PaperValue{},
		Notes: "Formula: Pr[refuse] = ½e^{−ε₀(γ_S − log(1/δ)/ε₀)} if γ_S ≥ log(1/δ)/ε₀, else 1 − ½e^{−ε₀(log(1/δ)/ε₀ − γ_S)}. Linear y axis: Monte-Carlo rates below 1/trials read as 0. The formula uses the realised γ_S of the " +
			"same dataset (CSV columns `gap`, `gamma`). : γ_S = 41 gives Pr[⊥] = 6.2508e-5." + banner,
	})
}

// ptrConfig is the cell configuration of smoothdp-ptr: Monte Carlo runs of
// Algorithm 1, or the Laplace-tail formula.
type ptrConfig struct{ monteCarlo bool }

// label is the method label.
func (c ptrConfig) label() string {
	if c.monteCarlo {
		return "Monte Carlo"
	}
	return "formula (Laplace tail)"
}

// String describes the cell for error messages.
func (c ptrConfig) String() string { return "method=" + c.label() }

// runPTR measures the refusal rate of Algorithm 1 on a dataset with the
// target eigengap c.X. The label gap keeps 6 significant digits.
func runPTR(ctx context.Context, c experiments.Cell, env experiments.Env) ([]experiments.Measurement, error) {
	cfg, ok := c.Config.(ptrConfig)
	if !ok {
		return nil, fmt.Errorf("cell config is %T, want figures.ptrConfig", c.Config)
	}
	// The dataset depends on (gap, rep) only, so both methods see it.
	rng := mechanisms.NewStreams(experiments.CellSeed(0, "smoothdp-ptr", "data", c.X, c.Rep)).Rand("data")
	S, _, err := LowRank(rng, ptrN, 4, []float64{c.X + 0.05}, 0.15, 1)
	if err != nil {
		return nil, err
	}
	gap, err := smoothdp.Eigengap(S, 1)
	if err != nil {
		return nil, err
	}
	gam, err := smoothdp.PTRGamma(ptrN, gap, ptrGHat, 1)
	if err != nil {
		return nil, err
	}
	extra := map[string]string{"gap": strconv.FormatFloat(gap, 'g', 6, 64)}
	num := map[string]float64{"gamma": float64(gam)}
	if !cfg.monteCarlo {
		p, err := smoothdp.PTRRefusal(gam, ptrEps0, figDelta)
		return []experiments.Measurement{{Metric: "refusal_rate", Value: p, Num: num, Extra: extra}}, err
	}
	trials := 200
	if env.Profile == experiments.Full {
		trials = 2000
	}
	rate, err := ptrMonteCarlo(ctx, S, c.Seed, trials)
	if err != nil {
		return nil, err
	}
	num["trials"] = float64(trials)
	return []experiments.Measurement{{Metric: "refusal_rate", Value: rate, Num: num, Extra: extra}}, nil
}

// ptrMonteCarlo runs Algorithm 1 (DP-GD with one step) trials times on S
// with labels alternating 0/1 and returns the fraction of refusals.
func ptrMonteCarlo(ctx context.Context, S [][]float64, seed uint64, trials int) (float64, error) {
	x := make([]float64, 0, ptrN*4)
	for _, r := range S {
		x = append(x, r...)
	}
	y := make([]float64, ptrN)
	for i := range y {
		y[i] = float64(i % 2)
	}
	d, err := design.NewData(x, y, ptrN, 4)
	if err != nil {
		return 0, err
	}
	model, _ := models.NewLogistic(4, false, 0)
	refused := 0
	st := mechanisms.NewStreams(seed)
	for t := 0; t < trials; t++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		res, err := smoothdp.PTR(ctx, smoothdp.PTRConfig{Model: model, Data: d, Rank: 1, GHat: ptrGHat,
			Eps0: ptrEps0, Delta: figDelta, R: 1,
			GD: smoothdp.GD{Sigma: 1, Steps: 1, LR: 0.1, Radius: 1, Streams: st.Split(t)}})
		if err != nil {
			return 0, err
		}
		if res.Refused {
			refused++
		}
	}
	return float64(refused) / float64(trials), nil
}
