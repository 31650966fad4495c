package smoothdp

// Figures of "Provable Privacy with Non-Private Pre-Processing" (smooth RDP;
// specs/smoothdp.md §8). The paper prints no numeric results and its
// formulas were lost in the seed text: every closed form is RECONSTRUCTED
// (spec §0) and every parameter below is the spec's proposal (§8, §12 A16).
// PaperValues therefore hold the spec's §11 reference values (computed from
// the reconstructed formulas), not numbers printed in the paper.

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
)

// figDelta is the δ of every smoothdp figure.
const figDelta = 1e-5

// banner is appended to the notes of every smoothdp figure.
const banner = " Constants of Tables 1–3 are RECONSTRUCTED (the seed lost every formula; see specs/smoothdp.md §0): " +
	"a corrected constant changes a plotted number, never the validity of the tight calculator."

func figEps(c RDPCurve) (float64, string, error) {
	e, a, err := ToApproxDP(c, figDelta)
	return e, strconv.FormatFloat(a, 'g', 6, 64), err
}

// ---------------------------------------------------------------------------
// smoothdp-table1: RDP and SRDP at α = 2 of every Table 1 mechanism.

// table1Params holds the Table 1 settings: n = 1000, T = 100, L = Δ = β = 1,
// σ = 10 for every Gaussian-type mechanism, ε = 1 for Laplace/Exponential,
// ω = 1/n for DP-SGD-sub, K = 10 for DP-SGD-iter.
var table1Params = Table2Params{R: 1, L: 1, Delta: 1, Beta: 1, Sigma: 10, Eps: 1, N: 1000, T: 100}

var table1Mechs = []Mechanism{MechGaussian, MechLaplace,
	MechExponential, MechDPGD, MechSGDSub, MechSGDIter}

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
			var ms []string
			for _, m := range table1Mechs {
				ms = append(ms, m.String())
			}
			return experiments.Grid("smoothdp-table1", 0, ms, table1EtaGrid(p), 1), nil
		},
		Run: func(ctx context.Context, c experiments.Cell, _ experiments.Env) ([]experiments.Measurement, error) {
			var mech Mechanism = -1
			for _, m := range table1Mechs {
				if m.String() == c.Method {
					mech = m
				}
			}
			r, s, err := BaseCurves(mech, table1Params, 10)
			if err != nil {
				return nil, err
			}
			g := int(math.Max(1, math.Ceil(c.X)))
			return []experiments.Measurement{
				{Metric: "srdp", Value: s.At(2, c.X)},
				{Metric: "rdp", Value: r.At(2)},
				{Metric: "srdp_over_rdp", Value: s.At(2, c.X) / r.At(2), Extra: map[string]string{"group_g": strconv.Itoa(g)}},
			}, nil
		},
		Settings: func(p experiments.Profile) string {
			return fmt.Sprintf("n = 1000, T = 100, L = Δ = β = 1, σ = 10 (Gaussian-type), ε = 1 (Laplace, Exponential), ω = 1/n (DP-SGD-sub), "+
				"K = 10 (DP-SGD-iter); α = 2; %d values of η from 0.01 to 1000.", len(table1EtaGrid(p)))
		},
		Notes: "Metric `srdp` is ε̃(2, η) (Table 1, column SRDP), `rdp` the mechanism's RDP ε(2), `srdp_over_rdp` their ratio: " +
			"η² (Gaussian with L = Δ), η²β²/(4L²) (DP-GD), η (Laplace/Exponential) — versus g² (resp. g) for group privacy. " +
			"DP-SGD-iter's SRDP is [D] (derived by the spec) and is +Inf where σ² < α(α−1)β²η²/2." + banner,
	})
}

// ---------------------------------------------------------------------------
// smoothdp-table2: ε at δ = 1e-5 of every mechanism × pre-processing.

var table2Pre = []Preprocessing{PreDedup, PreQuant, PreMeanImpute, PrePCA}

// table2Params are spec §11's Table 2 parameters (R = 1, L = Δ = 1,
// σ = 10, n = 1000; dedup k = 4, quantization k = 10 with r = 0.01, mean
// imputation m = 100, PCA g_min = 0.1), with DP-GD T = 100, σ = 0.05, β = 1
// and Laplace ε = 1.
func table2Params(m Mechanism, pre Preprocessing) Table2Params {
	p := Table2Params{R: 1, L: 1, Delta: 1, Beta: 1, Sigma: 10, Eps: 1, N: 1000, T: 100, QuantR: 0.01, GMin: 0.1}
	switch m {
	case MechDPGD:
		p.Sigma = 0.05
	case MechSGDSub:
		p.Sigma = 2
	case MechSGDIter:
		p.Sigma = 4
	}
	switch pre {
	case PreDedup:
		p.K = 4
	case PreQuant:
		p.K = 10
	case PreMeanImpute:
		p.K = 100
	}
	return p
}

var table2Forms = []string{"paper-style", "min-form", "tight", "group", "base"}

func init() {
	experiments.MustRegister(experiments.Figure{
		ID: "smoothdp-table2", Paper: "smoothdp",
		Title:  "Table 2: ε (δ = 1e-5) of pre-processed pipelines (reconstructed constants)",
		XLabel: "1 dedup, 2 quantization, 3 mean imputation, 4 PCA",
		YLabel: "ε at δ = 1e-5", LogY: true, Metric: "epsilon", Plot: experiments.LinesSD,
		Cells: func(p experiments.Profile) ([]experiments.Cell, error) {
			var cells []experiments.Cell
			for _, m := range []Mechanism{MechGaussian, MechDPGD, MechLaplace} {
				for _, f := range table2Forms {
					for i, pre := range table2Pre {
						if m == MechLaplace && (f == "min-form" || f == "tight") {
							continue // pure: one pipeline value ε + ε̃(η)
						}
						if m == MechDPGD && f == "min-form" {
							continue // keep the plot readable; the notebook prints every form
						}
						meth := m.String() + " " + f
						c := experiments.Cell{Method: meth, X: float64(i + 1), Seed: experiments.CellSeed(0, "smoothdp-table2", meth, float64(i+1), 0)}
						c.Config = mechPre{int(m), int(pre)}
						c.Params = map[string]float64{"form": float64(indexOf(table2Forms, f))}
						cells = append(cells, c)
					}
				}
			}
			return cells, nil
		},
		Run: func(ctx context.Context, c experiments.Cell, _ experiments.Env) ([]experiments.Measurement, error) {
			mp, ok := c.Config.(mechPre)
			if !ok {
				return nil, fmt.Errorf("cell config is %T", c.Config)
			}
			m, pre := Mechanism(mp[0]), Preprocessing(mp[1])
			e, err := Table2(m, pre, table2Params(m, pre))
			if err != nil {
				return nil, err
			}
			curve := map[string]RDPCurve{"paper-style": e.PaperStyle, "min-form": e.MinForm, "tight": e.Tight, "group": e.Group, "base": e.Base}[table2Forms[int(c.Params["form"])]]
			eps, order, err := figEps(curve)
			if err != nil {
				return nil, err
			}
			extra := map[string]string{"preprocessing": pre.String(), "eta": strconv.FormatFloat(e.Eta, 'g', 6, 64), "k": strconv.Itoa(e.K),
				"g": strconv.Itoa(e.G), "order": order, "closed_form": e.ClosedForm}
			out := []experiments.Measurement{{Metric: "epsilon", Value: eps, Extra: extra}}
			if curve.Linear {
				out = append(out, experiments.Measurement{Metric: "coef", Value: curve.Coef, Extra: extra})
			}
			return out, nil
		},
		Settings: func(experiments.Profile) string {
			return "Spec §11: R = 1, L = Δ = 1, n = 1000, σ = 10 (Gaussian), ε = 1 (Laplace/Exponential), DP-GD T = 100, σ = 0.05, β = 1; " +
				"dedup k = 4 (η = 2Rk = 8), quantization k = 10, r = 0.01 (η = 0.1), " +
				"mean imputation m = 100 (η = 2Rm/(n−m) = 0.222), PCA rank g_min = 0.1 (η = 12R³/g = 120, k = n). Mironov conversion, pipeline orders α ≥ 3/2."
		},
		PaperValues: table2Refs(),
		Notes: "Forms: `paper-style` = 2ε(2α) + 2ε̃(2α, η) (Table 2's conservative form), `min-form` = min of the two p = 2 constructions, " +
			"`tight` = Theorem 2 optimised over p and both constructions, `group` = group privacy with g = min(n, k+1), `base` = no pre-processing. " +
			"Dedup with R = 1 is worse than group privacy (spec §12 A20), as expected. The CSV column `closed_form` prints each entry. " +
			"The figure shows the Gaussian, DP-GD and Laplace rows (Exponential = Laplace); the DP-SGD rows are printed by notebook " +
			"30-smoothdp-accounting from Table2." + banner,
	})
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

// table2Refs are spec §11's reference values (ε at δ = 1e-5, Gaussian
// σ = 10 and Laplace ε = 1), computed by the spec author from the same
// reconstructed formulas (the paper prints only symbols).
func table2Refs() []experiments.PaperValue {
	note := "spec §11 reference (reconstructed formulas; the paper prints no numbers)"
	var out []experiments.PaperValue
	add := func(q string, v float64, meth string, x float64) {
		out = append(out, experiments.PaperValue{Quantity: q, Value: v, Method: meth, X: x, Metric: "epsilon", Note: note})
	}
	add("Gaussian base ε", 0.484853, "Gaussian base", 1)
	for i, r := range []struct {
		name               string
		paper, min, group  float64
		lapPaper, lapGroup float64
	}{
		{"dedup k=4", 9.0374, 6.1731, 2.5243, 9, 5},
		{"quant k=10", 0.9847, 0.6956, 5.8834, 1.1, 11},
		{"mean m=100", 1.0041, 0.7223, 99.4701, 1.2222, 101},
		{"PCA g=0.1", 455.0559, 239.0559, 5479.8526, 121, 1000},
	} {
		x := float64(i + 1)
		add("Gaussian paper-style, "+r.name, r.paper, "Gaussian paper-style", x)
		add("Gaussian min-form, "+r.name, r.min, "Gaussian min-form", x)
		add("Gaussian group, "+r.name, r.group, "Gaussian group", x)
		add("Laplace pipeline, "+r.name, r.lapPaper, "Laplace paper-style", x)
		add("Laplace group, "+r.name, r.lapGroup, "Laplace group", x)
	}
	return out
}

// ---------------------------------------------------------------------------
// smoothdp-fig2-{quantization,imputation,pca}: the three panels of Figure 2.

// fig2Sigma makes the un-pre-processed Gaussian mechanism exactly
// (1.0, 1e-5)-DP (spec §8.1).
const fig2Sigma = 4.900555

var fig2Methods = []string{"SRDP paper-style", "SRDP tight", "group privacy", "no pre-processing"}

// fig2Eps returns the four ε of Figure 2 for a Gaussian mechanism
// (Δ = L = 1, σ = 4.900555) after a pre-processing with (η, k) on n points.
func fig2Eps(method string, eta float64, k, n int) (float64, string, error) {
	r, err := GaussianRDP(1, fig2Sigma, ReplaceOne)
	if err != nil {
		return 0, "", err
	}
	s, err := GaussianSRDP(1, fig2Sigma)
	if err != nil {
		return 0, "", err
	}
	var c RDPCurve
	switch method {
	case "SRDP paper-style":
		c, err = PipelineCurve(r, s, eta, PaperStyle)
	case "SRDP tight":
		c, err = PipelineCurve(r, s, eta, Tight)
	case "group privacy":
		c, err = GroupGaussian(1, fig2Sigma, GroupSize(n, k))
	case "no pre-processing":
		c = r
	default:
		err = fmt.Errorf("unknown method %q", method)
	}
	if err != nil {
		return 0, "", err
	}
	return figEps(c)
}

func fig2Grid(p experiments.Profile, panel string) []float64 {
	var xs []float64
	switch panel {
	case "quantization":
		per := 3
		if p == experiments.Full {
			per = 10
		}
		for k := 0; k <= 3*per; k++ {
			xs = append(xs, math.Pow(10, -3+float64(k)/float64(per)))
		}
	case "imputation":
		step := 0.1
		if p == experiments.Full {
			step = 0.05
		}
		for f := 0.0; f < 0.951; f += step {
			xs = append(xs, math.Round(f*100)/100)
		}
		if xs[len(xs)-1] != 0.95 {
			xs = append(xs, 0.95)
		}
	case "pca":
		per := 2
		if p == experiments.Full {
			per = 6
		}
		for k := 0; k <= 4*per; k++ {
			xs = append(xs, math.Round(10*math.Pow(10, float64(k)/float64(per))))
		}
	}
	return xs
}

func fig2Figure(panel, title, xlabel string, logx bool, groupBy []string, settings, notes string,
	pv []experiments.PaperValue, sizes []int, etaK func(x float64, n int) (float64, int, int)) experiments.Figure {
	id := "smoothdp-fig2-" + panel
	return experiments.Figure{
		ID: id, Paper: "smoothdp", Title: title, XLabel: xlabel, YLabel: "ε at δ = 1e-5", LogX: logx, LogY: true,
		Metric: "epsilon", Plot: experiments.LinesSD, GroupBy: groupBy,
		Cells: func(p experiments.Profile) ([]experiments.Cell, error) {
			var cells []experiments.Cell
			for _, n := range sizes {
				for _, c := range experiments.Grid(id, uint64(n), fig2Methods, fig2Grid(p, panel), 1) {
					c.Params = map[string]float64{"n": float64(n)}
					cells = append(cells, c)
				}
			}
			return cells, nil
		},
		Run: func(ctx context.Context, c experiments.Cell, _ experiments.Env) ([]experiments.Measurement, error) {
			eta, k, n := etaK(c.X, int(c.Params["n"]))
			eps, order, err := fig2Eps(c.Method, eta, k, n)
			if err != nil {
				return nil, err
			}
			extra := map[string]string{"eta": strconv.FormatFloat(eta, 'g', 6, 64), "k": strconv.Itoa(k), "order": order}
			if groupBy != nil {
				extra["n"] = strconv.Itoa(n)
			}
			return []experiments.Measurement{{Metric: "epsilon", Value: eps, Extra: extra}}, nil
		},
		Settings:    func(experiments.Profile) string { return settings },
		PaperValues: pv,
		Notes:       notes + banner,
	}
}

func init() {
	common := "Gaussian mechanism with Δ = L = 1, σ = 4.900555 (the un-pre-processed mechanism is exactly (1.0, 1e-5)-DP), R = 1, " +
		"Mironov conversion (spec §8.1 proposal; the paper gives no parameters). "
	experiments.MustRegister(fig2Figure("quantization", "experiments.Figure 2(a): quantization, SRDP vs group privacy (reconstructed)", "quantization radius r", true, nil,
		common+"k = 10 (largest good cluster 5), η = rk, n = 1000.",
		"Claim (paper): SRDP is much better than group privacy for small r; group privacy is flat in r, SRDP grows with η = rk.",
		[]experiments.PaperValue{{Quantity: "no pre-processing ε (by construction)", Value: 1.0, Method: "no pre-processing", X: 0.001, Metric: "epsilon", Note: "σ chosen so that ε = 1 (spec §8.1)"}},
		[]int{1000}, func(x float64, n int) (float64, int, int) {
			return EtaQuant(x, 10, false), 10, n
		}))
	experiments.MustRegister(fig2Figure("imputation", "experiments.Figure 2(b): mean imputation, SRDP vs group privacy (reconstructed)", "fraction of points with a missing value m/n", false, []string{"n"},
		common+"k = m, η = 2Rm/(n − m); n = 100 and n = 1000 (CSV column `n`).",
		"Claim (paper): a large gap in favour of SRDP for few missing values, closing at ≥ 90% missing where SRDP approaches group privacy.",
		nil, []int{100, 1000}, func(x float64, n int) (float64, int, int) {
			m := int(math.Round(x * float64(n)))
			return EtaMeanImpute(1, m, n), m, n
		}))
	experiments.MustRegister(fig2Figure("pca", "experiments.Figure 2(c): PCA rank reduction, SRDP vs group privacy (reconstructed)", "dataset size n", true, nil,
		common+"g_min = 0.5 (η = 12R³/g = 24 when n > 24R²/g = 48, else the unconditional 12√2R³/g ≈ 33.9), k = n.",
		"Claim (paper): SRDP is constant in n while group privacy grows with n. Crossing near n ≈ 1 + η (tight) or n ≈ 2η (paper-style).",
		nil, []int{0}, func(x float64, _ int) (float64, int, int) {
			n := int(x)
			p := PCA{Rank: 1, R: 1}
			_, eta, _ := p.Theory(Collection{N: n, GMin: 0.5})
			return eta, n, n
		}))
}

// ---------------------------------------------------------------------------
// smoothdp-pathological: the §8.3 attack on deduplication.

func pathGrid(p experiments.Profile) []float64 {
	if p == experiments.Full {
		return []float64{5, 10, 20, 50, 100, 200}
	}
	return []float64{5, 10, 20, 50}
}

var pathMethods = []string{"empirical ℓ0 (attack pair)", "theoretical k (2 × largest good cluster)", "group privacy g = n"}

func init() {
	experiments.MustRegister(experiments.Figure{
		ID: "smoothdp-pathological", Paper: "smoothdp",
		Title:  "§5.1 pathological deduplication: one replacement removes n − 1 points",
		XLabel: "dataset size n", YLabel: "ℓ0 sensitivity", LogX: true, LogY: true, Metric: "l0", Plot: experiments.LinesSD,
		Cells: func(p experiments.Profile) ([]experiments.Cell, error) {
			return experiments.Grid("smoothdp-pathological", 0, pathMethods, pathGrid(p), 1), nil
		},
		Run: func(ctx context.Context, c experiments.Cell, _ experiments.Env) ([]experiments.Measurement, error) {
			n := int(c.X)
			S, S2, err := PathologicalDedup(n, n+1, 0.05, 0.9)
			if err != nil {
				return nil, err
			}
			p := Dedup{Radius: 0.05, R: 1}
			var v float64
			switch c.Method {
			case pathMethods[0]:
				e, err := EmpiricalSensitivity(p, S, S2, 1, false, 0)
				if err != nil {
					return nil, err
				}
				v = float64(e.K)
			case pathMethods[1]:
				c1, _ := p.Describe(S)
				c2, _ := p.Describe(S2)
				k, _, err := p.Theory(c1.Merge(c2))
				if err != nil {
					return nil, err
				}
				v = float64(k)
			default:
				v = float64(n)
			}
			// ε of the Gaussian mechanism (σ = 4.900555) after dedup with this k.
			k := int(v)
			eta := EtaDedup(1, k)
			eps, _, err := fig2Eps("SRDP tight", eta, k, n)
			if err != nil {
				return nil, err
			}
			return []experiments.Measurement{{Metric: "l0", Value: v}, {Metric: "epsilon_srdp_tight", Value: eps}}, nil
		},
		Settings: func(p experiments.Profile) string {
			return "Points x0 + r(1−1e-9)e_i (i < n, x0 = 0) plus a far point 0.9·e_d, d = n + 1, r = 0.05; the neighbour replaces the far point by x0 (spec §8.3)."
		},
		PaperValues: []experiments.PaperValue{{Quantity: "empirical ℓ0 at n = 50 (= n − 1)", Value: 49, Method: pathMethods[0], X: 50, Metric: "l0",
			Note: "spec §11 check 16 (prototype); the paper states ≈ n in words"}},
		Notes: "The attack makes the empirical ℓ0 sensitivity n − 1, i.e. the guarantee degrades to group privacy; the theoretical k over the " +
			"collection {S, S'} (2 × largest good cluster = 2n) covers it. Imputation with m → n and PCA with g_min → 0 are the other two " +
			"pathologies; they are the right ends of smoothdp-fig2-imputation (η = 2Rm/(n−m) → ∞) and of small gaps (η = 12R³/g)." + banner,
	})
}

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
			return experiments.Grid("smoothdp-ptr", 0, []string{"Monte Carlo", "formula (Laplace tail)"}, ptrGrid(p), reps), nil
		},
		Run: func(ctx context.Context, c experiments.Cell, env experiments.Env) ([]experiments.Measurement, error) {
			// The dataset depends on (gap, rep) only, so both methods see it.
			rng := mechanisms.NewStreams(experiments.CellSeed(0, "smoothdp-ptr", "data", c.X, c.Rep)).Rand("data")
			S, _, err := LowRank(rng, ptrN, 4, []float64{c.X + 0.05}, 0.15, 1)
			if err != nil {
				return nil, err
			}
			gap, err := Eigengap(S, 1)
			if err != nil {
				return nil, err
			}
			gam, err := PTRGamma(ptrN, gap, ptrGHat, 1)
			if err != nil {
				return nil, err
			}
			extra := map[string]string{"gap": strconv.FormatFloat(gap, 'g', 6, 64), "gamma": strconv.Itoa(gam)}
			if c.Method != "Monte Carlo" {
				p, err := PTRRefusal(gam, ptrEps0, figDelta)
				return []experiments.Measurement{{Metric: "refusal_rate", Value: p, Extra: extra}}, err
			}
			trials := 200
			if env.Profile == experiments.Full {
				trials = 2000
			}
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
				return nil, err
			}
			model, _ := models.NewLogistic(4, false, 0)
			refused := 0
			st := mechanisms.NewStreams(c.Seed)
			for t := 0; t < trials; t++ {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				res, err := PTR(ctx, PTRConfig{Model: model, Data: d, Rank: 1, GHat: ptrGHat,
					Eps0: ptrEps0, Delta: figDelta, R: 1,
					GD: GD{Sigma: 1, Steps: 1, LR: 0.1, Radius: 1, Streams: st.Split(t)}})
				if err != nil {
					return nil, err
				}
				if res.Refused {
					refused++
				}
			}
			extra["trials"] = strconv.Itoa(trials)
			return []experiments.Measurement{{Metric: "refusal_rate", Value: float64(refused) / float64(trials), Extra: extra}}, nil
		},
		Settings: func(p experiments.Profile) string {
			return fmt.Sprintf("n = 10⁴ centred points in d = 4 with spectrum (gap + 0.05, 0.05, 0.05, 0.05), R = 1; ĝ = 0.05, ε₀ = 0.5, δ = 1e-5 "+
				"(threshold log(1/δ)/ε₀ = 23.03); γ_S = ⌊n(gap − ĝ)/(12R²)⌋; %d gaps. Monte Carlo runs the full Algorithm 1 (DP-GD with one step) "+
				"200 (quick) / 2000 (full) times per dataset.", len(ptrGrid(p)))
		},
		PaperValues: []experiments.PaperValue{},
		Notes: "Formula: Pr[refuse] = ½e^{−ε₀(γ_S − log(1/δ)/ε₀)} if γ_S ≥ log(1/δ)/ε₀, else 1 − ½e^{−ε₀(log(1/δ)/ε₀ − γ_S)}. Linear y axis: Monte-Carlo rates below 1/trials read as 0. The formula uses the realised γ_S of the " +
			"same dataset (CSV columns `gap`, `gamma`). Spec §11 check 20: γ_S = 41 gives Pr[⊥] = 6.2508e-5." + banner,
	})
}

// ---------------------------------------------------------------------------
// smoothdp-fig3: PCA + DP-GD vs DP-PCA + DP-GD vs DP-GD on low-rank data.

// fig3Setting is the Figure 3 setup (spec §8.2).
type fig3Setting struct {
	n, d, s, steps int
	b              float64 // parameter ball radius B
}

func fig3Set(p experiments.Profile) fig3Setting {
	if p == experiments.Full {
		return fig3Setting{n: 5000, d: 500, s: 2, steps: 200, b: 10}
	}
	return fig3Setting{n: 2000, d: 100, s: 2, steps: 100, b: 10}
}

func fig3Eps(p experiments.Profile) []float64 {
	if p == experiments.Full {
		return []float64{0.25, 0.5, 1, 2, 4, 8}
	}
	return []float64{0.5, 2, 8}
}

var fig3Methods = []string{"PCA+DP-GD (paper-style)", "PCA+DP-GD (tight)", "DP-PCA+DP-GD", "DP-GD", "PTR+PCA+DP-GD", "PCA-dim+DP-GD (ours)"}

type fig3Data struct {
	raw    *design.Data
	gap    float64
	fit    *PCAFit // non-private rank reduction
	dimFit *PCAFit // same basis for dimension reduction
	lstar  float64
}

var fig3Cache sync.Map // key string → *fig3Data (deterministic in the key)

func fig3Dataset(ctx context.Context, set fig3Setting, rep int) (*fig3Data, error) {
	key := fmt.Sprintf("%d/%d/%d/%d", set.n, set.d, set.steps, rep)
	if v, ok := fig3Cache.Load(key); ok {
		return v.(*fig3Data), nil
	}
	st := mechanisms.NewStreams(experiments.CellSeed(0, "smoothdp-fig3", "data", float64(set.d), rep))
	rng := st.Rand("data")
	top := []float64{0.45, 0.45}
	S, basis, err := LowRank(rng, set.n, set.d, top, 0.10, 1)
	if err != nil {
		return nil, err
	}
	// θ* = 5 · unit vector in the top-2 span.
	a, b := rng.NormFloat64(), rng.NormFloat64()
	nr := math.Hypot(a, b)
	theta := make([]float64, set.d)
	for j := range theta {
		theta[j] = 5 * (a*basis.At(j, 0) + b*basis.At(j, 1)) / nr
	}
	x := make([]float64, 0, set.n*set.d)
	y := make([]float64, set.n)
	lab := st.Rand("labels")
	for i, r := range S {
		x = append(x, r...)
		z := 0.0
		for j, v := range r {
			z += v * theta[j]
		}
		if lab.Float64() < 1/(1+math.Exp(-z)) {
			y[i] = 1
		}
	}
	raw, err := design.NewData(x, y, set.n, set.d)
	if err != nil {
		return nil, err
	}
	pca := PCA{Rank: set.s, R: 1}
	fit, err := pca.FitPCA(S)
	if err != nil {
		return nil, err
	}
	out := &fig3Data{raw: raw, fit: fit, gap: fit.Values[set.s-1] - fit.Values[set.s]}
	out.dimFit = &PCAFit{V: fit.V, Values: fit.Values, Dim: true}
	// Non-private reference: projected gradient descent, step 1/β_θ = 4.
	model, _ := models.NewLogistic(set.d, false, 0)
	res, err := mechanisms.Train(ctx, mechanisms.Config{Model: model, Data: raw, Init: make([]float64, set.d), Steps: 1500,
		Optimizer: mechanisms.SGD{LR: 4}, ProjectRadius: set.b})
	if err != nil {
		return nil, fmt.Errorf("non-private reference: %w", err)
	}
	out.lstar = model.Loss(res.Theta, raw, nil)
	fig3Cache.Store(key, out)
	return out, nil
}

// CalibrateSigma returns the σ at which the Mironov conversion of
// curve(σ) equals the target ε at δ (bisection in log σ to relative 1e-10;
// ε(σ) must be non-increasing). Used by smoothdp-fig3 (spec §8.2).
func CalibrateSigma(curve func(sigma float64) (RDPCurve, error), target, delta float64) (float64, error) {
	if !(target > 0) || math.IsInf(target, 0) {
		return 0, fmt.Errorf("experiments: smoothdp: target ε = %v must be finite and > 0", target)
	}
	eps := func(s float64) (float64, error) {
		c, err := curve(s)
		if err != nil {
			return 0, err
		}
		e, _, err := ToApproxDP(c, delta)
		return e, err
	}
	lo, hi := 1e-6, 1.0
	for {
		e, err := eps(hi)
		if err != nil {
			return 0, err
		}
		if e <= target {
			break
		}
		if hi *= 2; hi > 1e12 {
			return 0, fmt.Errorf("experiments: smoothdp: target ε = %v unreachable", target)
		}
	}
	for hi/lo > 1+1e-10 {
		mid := math.Sqrt(lo * hi)
		e, err := eps(mid)
		if err != nil {
			return 0, err
		}
		if e > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

func gaussianCurve(sens float64) func(float64) (RDPCurve, error) {
	return func(s float64) (RDPCurve, error) {
		return GaussianRDP(sens, s, ReplaceOne)
	}
}

func init() {
	experiments.MustRegister(experiments.Figure{
		ID: "smoothdp-fig3", Paper: "smoothdp",
		Title:  "experiments.Figure 3: PCA+DP-GD vs DP-PCA+DP-GD vs DP-GD (logistic regression)",
		XLabel: "overall ε (δ = 1e-5)", YLabel: "excess empirical risk", LogX: true, LogY: true,
		Metric: "excess_risk", Plot: experiments.LinesSD,
		Cells: func(p experiments.Profile) ([]experiments.Cell, error) {
			reps := 2
			if p == experiments.Full {
				reps = 5
			}
			return experiments.Grid("smoothdp-fig3", 0, fig3Methods, fig3Eps(p), reps), nil
		},
		Run: func(ctx context.Context, c experiments.Cell, env experiments.Env) ([]experiments.Measurement, error) {
			set := fig3Set(env.Profile)
			ds, err := fig3Dataset(ctx, set, c.Rep)
			if err != nil {
				return nil, err
			}
			const L = 1.0
			beta := 1 + set.b/4 // smoothness in x of logistic loss (spec D7)
			lr := 4.0           // 1/β_θ with β_θ = R²/4
			eps := c.X
			st := mechanisms.NewStreams(c.Seed)
			train := ds.raw
			var sigma float64
			extra := map[string]string{"gap": strconv.FormatFloat(ds.gap, 'g', 6, 64)}
			pipeline := func(eta float64, form Theorem2Form, target float64) (float64, error) {
				return CalibrateSigma(func(s float64) (RDPCurve, error) {
					r, err := DPGDRDP(set.n, set.steps, L, s)
					if err != nil {
						return r, err
					}
					sr, err := DPGDSRDP(set.n, set.steps, beta, s)
					if err != nil {
						return r, err
					}
					return PipelineCurve(r, sr, eta, form)
				}, target, figDelta)
			}
			dpgd := func(target, delta float64) (float64, error) {
				return CalibrateSigma(func(s float64) (RDPCurve, error) {
					return DPGDRDP(set.n, set.steps, L, s)
				}, target, delta)
			}
			model, _ := models.NewLogistic(set.d, false, 0)
			evalTheta := func(th []float64) []float64 { return th }
			switch c.Method {
			case "PCA+DP-GD (paper-style)", "PCA+DP-GD (tight)":
				form := PaperStyle
				if c.Method == "PCA+DP-GD (tight)" {
					form = Tight
				}
				eta := EtaPCARank(1, ds.gap) // g_min := the dataset's gap (non-PTR "adjusted parameter")
				if sigma, err = pipeline(eta, form, eps); err != nil {
					return nil, err
				}
				if train, err = Project(ds.raw, ds.fit); err != nil {
					return nil, err
				}
				extra["eta"] = strconv.FormatFloat(eta, 'g', 6, 64)
			case "PCA-dim+DP-GD (ours)":
				eta := EtaPCADim(1, ds.gap)
				if sigma, err = pipeline(eta, Tight, eps); err != nil {
					return nil, err
				}
				if train, err = Project(ds.raw, ds.dimFit); err != nil {
					return nil, err
				}
				model, _ = models.NewLogistic(set.s, false, 0)
				V := ds.fit.V
				evalTheta = func(th []float64) []float64 {
					out := make([]float64, set.d)
					for j := range out {
						for k := 0; k < set.s; k++ {
							out[j] += V.At(j, k) * th[k]
						}
					}
					return out
				}
				extra["eta"] = strconv.FormatFloat(eta, 'g', 6, 64)
			case "DP-PCA+DP-GD":
				// Half the budget each (ε/2, δ/2), basic composition.
				sp, err := CalibrateSigma(gaussianCurve(2.0/float64(set.n)), eps/2, figDelta/2)
				if err != nil {
					return nil, err
				}
				fit, err := AnalyzeGauss(st.Rand("dp-pca"), ds.raw, set.s, sp)
				if err != nil {
					return nil, err
				}
				if train, err = Project(ds.raw, fit); err != nil {
					return nil, err
				}
				if sigma, err = dpgd(eps/2, figDelta/2); err != nil {
					return nil, err
				}
				extra["sigma_pca"] = strconv.FormatFloat(sp, 'g', 6, 64)
			case "DP-GD":
				if sigma, err = dpgd(eps, figDelta); err != nil {
					return nil, err
				}
			case "PTR+PCA+DP-GD":
				ghat := 0.5 * ds.gap
				eps0 := 0.1 * eps
				if sigma, err = pipeline(EtaPCARank(1, ghat), PaperStyle, eps-eps0); err != nil {
					return nil, err
				}
				res, err := PTR(ctx, PTRConfig{Model: model, Data: ds.raw, Rank: set.s, GHat: ghat, Eps0: eps0,
					Delta: figDelta, R: 1, GD: GD{Sigma: sigma, Steps: set.steps, LR: lr, Radius: set.b, Streams: st}})
				if err != nil {
					return nil, err
				}
				extra["sigma"] = strconv.FormatFloat(sigma, 'g', 6, 64)
				if res.Refused {
					return []experiments.Measurement{{Metric: "excess_risk", Value: math.NaN(), Extra: extra}, {Metric: "refused", Value: 1}}, nil
				}
				risk := model.Loss(res.Train.Average, ds.raw, nil) - ds.lstar
				return []experiments.Measurement{{Metric: "excess_risk", Value: risk, Extra: extra}, {Metric: "refused", Value: 0}, {Metric: "sigma", Value: sigma}}, nil
			default:
				return nil, fmt.Errorf("unknown method %q", c.Method)
			}
			cfg, err := DPGDConfig(model, train, GD{Sigma: sigma, Steps: set.steps, LR: lr, Radius: set.b, Streams: st})
			if err != nil {
				return nil, err
			}
			res, err := mechanisms.Train(ctx, cfg)
			if err != nil {
				return nil, err
			}
			full, _ := models.NewLogistic(set.d, false, 0)
			risk := full.Loss(evalTheta(res.Average), ds.raw, nil) - ds.lstar
			extra["sigma"] = strconv.FormatFloat(sigma, 'g', 6, 64)
			return []experiments.Measurement{{Metric: "excess_risk", Value: risk, Extra: extra}, {Metric: "sigma", Value: sigma}}, nil
		},
		Settings: func(p experiments.Profile) string {
			s := fig3Set(p)
			return fmt.Sprintf("Spec §8.2 proposal: n = %d, d = %d, s = %d, spectrum λ1 = λ2 = 0.45 and 0.10 shared by the other directions "+
				"(random orthonormal basis, centred, rows clipped to R = 1); labels ~ Bernoulli(σ(θ*ᵀx)), θ* = 5·unit vector in the top-2 span. "+
				"Logistic loss, Θ = ball of radius B = %g (L = 1, β = 1 + B/4 = %g, β_θ = 1/4), DP-GD with T = %d, γ = 4, averaged iterate. "+
				"σ calibrated by bisection so that the Mironov conversion of each method's curve equals ε (δ = 1e-5). DP-PCA = Analyze-Gauss with "+
				"(ε/2, δ/2), DP-GD with the other half. PCA pipelines use g_min = the dataset's gap (conditional guarantee); PTR uses ĝ = gap/2, "+
				"ε₀ = 0.1ε (unconditional). Excess risk against a non-private projected-GD reference (1500 steps). %d ε values.",
				s.n, s.d, s.s, s.b, 1+s.b/4, s.steps, len(fig3Eps(p)))
		},
		Notes: "Paper's claim: non-private PCA + DP-SGD beats DP-PCA + DP-SGD and DP-SGD, especially at small ε. Risk (spec §8.2): with the " +
			"reconstructed constants η = 12R³/g and β = 3.5 inflate σ relative to DP-GD; clipping rows to R = 1 makes the realised gap ≈ 0.28, " +
			"η ≈ 42, so σ is ≈ 75× (tight) or ≈ 150× (paper-style) larger (CSV columns sigma, gap, eta). Measured outcome: DP-GD wins at every ε " +
			"(notebook 33-smoothdp-ptr-fig3). `PCA-dim+DP-GD (ours)` trains in the s-dimensional PCA coordinates (noise in s " +
			"dimensions, η = 12√2R³/g) — an extension, not in the paper. PTR refusals are reported in metric `refused`." + banner,
	})
}

// mechPre is the cell configuration of smoothdp-table2: a mechanism and a
// pre-processing step, as indices.
type mechPre [2]int

// String describes the pair for error messages.
func (m mechPre) String() string { return fmt.Sprintf("mechanism=%d preprocessing=%d", m[0], m[1]) }
