package figures

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/featuredp/featuredp/notions/bcdp"

	"github.com/featuredp/featuredp/experiments"
)

// lsCell is the Config of a least-squares cell; Bound cells compute
// Theorem 3's bound for the method instead of a trial.
type lsCell struct {
	Method   Method
	Design   string
	DataSeed uint64
	Bound    bool
}

// Thm3Bound returns Theorem 3's bound on the expected excess risk of
// Algorithm 3 with method m's levels c in setting s, with the constant of
// its ≲ set to 1:
//
//	max_{θ∈Θ}(‖θ‖² + ‖θ‖) · min( (log d/√n)(r² + r·d), d ),
//
// Θ the ball of radius s.Radius (so the max is R² + R) and r² the Theorem 2
// quantity Σ_i 1/(Σ_{k≤i}(c_k − c_{k−1})²/(d−k+1)) of the halved levels the
// two releases use (Lemma 1), and also r².
func Thm3Bound(s LSSetting, m Method) (bound, r2 float64, err error) {
	_, q, err := LSPrior(s)
	if err != nil {
		return 0, 0, err
	}
	c, err := s.Levels(m, q)
	if err != nil {
		return 0, 0, err
	}
	half := make([]float64, len(c))
	for i, v := range c {
		half[i] = v / 2
	}
	sort.Float64s(half)
	if r2, err = bcdp.ErrorProxy(half); err != nil {
		return 0, 0, err
	}
	d, n, R := float64(len(c)), float64(s.N), s.Radius
	return (R*R + R) * math.Min(math.Log(d)/math.Sqrt(n)*(r2+math.Sqrt(r2)*d), d), r2, nil
}

// String describes the cell configuration for error messages.
func (c lsCell) String() string {
	return fmt.Sprintf("method=%v design=%s data seed=%d", c.Method, c.Design, c.DataSeed)
}

func init() {
	ns := func(p experiments.Profile) []float64 {
		if p == experiments.Full {
			return []float64{1e4, 1e5, 1e6}
		}
		return []float64{1e4, 1e5}
	}
	trials := func(p experiments.Profile) int {
		if p == experiments.Full {
			return 20
		}
		return 5
	}
	experiments.MustRegister(experiments.Figure{
		ID:      "bcdp-least-squares",
		Paper:   "bcdp",
		Title:   "Least squares, Alg. 3 (our extension, not in the paper)",
		XLabel:  "number of users n",
		YLabel:  "excess empirical risk f(θ̂) − f*",
		LogX:    true,
		LogY:    true,
		Metric:  "excess_risk",
		Plot:    experiments.LinesQuantile,
		GroupBy: []string{"design"},
		Cells: func(p experiments.Profile) ([]experiments.Cell, error) {
			var cells []experiments.Cell
			for _, des := range LSDesigns {
				for _, meth := range meanMethods {
					for _, n := range ns(p) {
						for r := 0; r < trials(p); r++ {
							cells = append(cells, experiments.Cell{Method: meth.String(), X: n, Rep: r,
								Seed:   experiments.CellSeed(0, "bcdp-least-squares", meth.String()+"|"+des, n, r),
								Config: lsCell{Method: meth, Design: des, DataSeed: experiments.CellSeed(0, "bcdp-least-squares", "data|"+des, n, r)}})
						}
					}
				}
			}
			// Theorem 3's bound beside the trials (no randomness: one cell each).
			for _, des := range LSDesigns {
				for _, meth := range meanMethods {
					for _, n := range ns(p) {
						cells = append(cells, experiments.Cell{Method: "Thm 3 bound, " + meth.String(), X: n,
							Seed: experiments.CellSeed(0, "bcdp-least-squares", "bound|"+meth.String()+"|"+des, n, 0), Config: lsCell{Method: meth, Design: des, Bound: true}})
					}
				}
			}
			return cells, nil
		},
		Run: func(ctx context.Context, c experiments.Cell, _ experiments.Env) ([]experiments.Measurement, error) {
			cfg, ok := c.Config.(lsCell)
			if !ok {
				return nil, fmt.Errorf("bcdp-least-squares: cell config is %T, want lsCell", c.Config)
			}
			s := LSDefault(cfg.Design, int(c.X))
			if cfg.Bound {
				b, r2, err := Thm3Bound(s, cfg.Method)
				if err != nil {
					return nil, err
				}
				return []experiments.Measurement{{Metric: "excess_risk", Value: b, Num: map[string]float64{"r2": r2}, Extra: map[string]string{"design": cfg.Design}}}, nil
			}
			ex, pe, err := LSTrial(ctx, s, cfg.Method, cfg.DataSeed, c.Seed)
			if err != nil {
				return nil, err
			}
			x := map[string]string{"design": cfg.Design}
			return []experiments.Measurement{{Metric: "excess_risk", Value: ex, Extra: x}, {Metric: "param_error", Value: pe, Extra: x}}, nil
		},
		Settings: func(p experiments.Profile) string {
			_, q1, _ := LSPrior(LSDefault("strong-label", 1))
			_, q2, _ := LSPrior(LSDefault("weak-label", 1))
			return fmt.Sprintf("OUR EXTENSION (the paper's Sec. 5 has no experiment): d = 6 (5 ±1 features from prior (60) with "+
				"parameter q0, ±1 label last with P(l=1|z) = (1+βᵀz)/2); δ = (1, 4, 4, 4, 4, 4), ε = 4; Θ = ℓ2 ball of radius 2. "+
				"Designs (column `design`): strong-label: β = (0.1, 0.3, 0.2, 0.1, 0.1), q0 = 0.1, Assumption-1 q = %.4f; "+
				"weak-label: β = (0.05, 0.1, 0.05, 0.05, 0.05), q0 = 0.01, q = %.4f (q computed exactly with the label inside x_{−i}). "+
				"BCDP = Algorithm 3 with the Theorem 2 allocation (ζ = (1+q)/2), LDP = Algorithm 3 with c = 1·1; n ∈ %v, %d trials.",
				q1, q2, ns(p), trials(p))
		},
		Notes: "Not in the paper. Excess empirical risk over the non-private minimiser on the same ball; exact trust-region solve of the " +
			"(possibly indefinite) quadratic. Metric param_error = ‖θ̂ − θ*‖ is in the CSV. The 'Thm 3 bound' series are Theorem 3's bound " +
			"(R² + R)·min((log d/√n)(r² + r·d), d) with its constant set to 1 (column r2: Σ_i 1/(Σ_{k≤i}Δc_k²/(d−k+1)) of the halved levels); " +
			"every trial's mean lies below it.",
	})
}
