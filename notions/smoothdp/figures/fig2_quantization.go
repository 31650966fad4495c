package figures

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/smoothdp"
)

// ---------------------------------------------------------------------------
// smoothdp-fig2-{quantization,imputation,pca}: the three panels of Figure 2.

// fig2Sigma makes the un-pre-processed Gaussian mechanism exactly
// (1.0, 1e-5)-DP.
const fig2Sigma = 4.900555

// fig2Method is one of the four ε of Figure 2.
type fig2Method int

const (
	fig2PaperStyle fig2Method = iota // Theorem 2, paper-style form
	fig2Tight                        // Theorem 2, tight form
	fig2Group                        // group privacy with g = min(n, k+1)
	fig2None                         // the mechanism without pre-processing
)

var fig2Methods = []fig2Method{fig2PaperStyle, fig2Tight, fig2Group, fig2None}

// String is the method label of the figures.
func (m fig2Method) String() string {
	switch m {
	case fig2PaperStyle:
		return "SRDP paper-style"
	case fig2Tight:
		return "SRDP tight"
	case fig2Group:
		return "group privacy"
	case fig2None:
		return "no pre-processing"
	}
	return fmt.Sprintf("fig2Method(%d)", int(m))
}

// fig2Config is the cell configuration of the smoothdp-fig2-* panels: the
// method and the dataset size n (0 when x is n itself).
type fig2Config struct {
	method fig2Method
	n      int
}

// String describes the cell for error messages.
func (c fig2Config) String() string { return fmt.Sprintf("method=%v n=%d", c.method, c.n) }

// fig2Eps returns the four ε of Figure 2 for a Gaussian mechanism
// (Δ = L = 1, σ = 4.900555) after a pre-processing with (η, k) on n points.
func fig2Eps(method fig2Method, eta float64, k, n int) (float64, string, error) {
	r, err := smoothdp.GaussianRDP(1, fig2Sigma, accounting.RelationReplaceOne)
	if err != nil {
		return 0, "", err
	}
	s, err := smoothdp.GaussianSRDP(1, fig2Sigma)
	if err != nil {
		return 0, "", err
	}
	var c smoothdp.RDPCurve
	switch method {
	case fig2PaperStyle:
		c, err = smoothdp.PipelineCurve(r, s, eta, smoothdp.Conservative)
	case fig2Tight:
		c, err = smoothdp.PipelineCurve(r, s, eta, smoothdp.Tight)
	case fig2Group:
		c, err = smoothdp.GroupGaussian(1, fig2Sigma, smoothdp.GroupSize(n, k))
	case fig2None:
		c = r
	default:
		err = fmt.Errorf("unknown method %v", method)
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
				for _, m := range fig2Methods {
					for _, c := range experiments.Grid(id, uint64(n), []string{m.String()}, fig2Grid(p, panel), 1) {
						c.Config = fig2Config{method: m, n: n}
						cells = append(cells, c)
					}
				}
			}
			return cells, nil
		},
		Run: func(_ context.Context, c experiments.Cell, _ experiments.Env) ([]experiments.Measurement, error) {
			cfg, ok := c.Config.(fig2Config)
			if !ok {
				return nil, fmt.Errorf("cell config is %T, want figures.fig2Config", c.Config)
			}
			eta, k, n := etaK(c.X, cfg.n)
			eps, order, err := fig2Eps(cfg.method, eta, k, n)
			if err != nil {
				return nil, err
			}
			// eta and order are labels with 6 significant digits.
			extra := map[string]string{"eta": strconv.FormatFloat(eta, 'g', 6, 64), "order": order}
			num := map[string]float64{"k": float64(k)}
			if groupBy != nil {
				num["n"] = float64(n)
			}
			return []experiments.Measurement{{Metric: "epsilon", Value: eps, Num: num, Extra: extra}}, nil
		},
		Settings:    func(experiments.Profile) string { return settings },
		PaperValues: pv,
		Notes:       notes + banner,
	}
}

func init() {
	common := "Gaussian mechanism with Δ = L = 1, σ = 4.900555 (the un-pre-processed mechanism is exactly (1.0, 1e-5)-DP), R = 1, " +
		"Mironov conversion (our setting, docs/smooth-rdp.md; the paper gives no parameters). "
	experiments.MustRegister(fig2Figure("quantization", "Figure 2(a): quantization, SRDP vs group privacy (reconstructed)", "quantization radius r", true, nil,
		common+"k = 10 (largest good cluster 5), η = rk, n = 1000.",
		"Claim (paper): SRDP is much better than group privacy for small r; group privacy is flat in r, SRDP grows with η = rk.",
		[]experiments.PaperValue{{Quantity: "no pre-processing ε (by construction)", Value: 1.0, Method: "no pre-processing", X: 0.001, Metric: "epsilon", Note: "σ chosen so that ε = 1"}},
		[]int{1000}, func(x float64, n int) (float64, int, int) {
			return smoothdp.EtaQuant(x, 10, false), 10, n
		}))
	experiments.MustRegister(fig2Figure("imputation", "Figure 2(b): mean imputation, SRDP vs group privacy (reconstructed)", "fraction of points with a missing value m/n", false, []string{"n"},
		common+"k = m, η = 2Rm/(n − m); n = 100 and n = 1000 (CSV column `n`).",
		"Claim (paper): a large gap in favour of SRDP for few missing values, closing at ≥ 90% missing where SRDP approaches group privacy.",
		nil, []int{100, 1000}, func(x float64, n int) (float64, int, int) {
			m := int(math.Round(x * float64(n)))
			return smoothdp.EtaMeanImpute(1, m, n), m, n
		}))
	experiments.MustRegister(fig2Figure("pca", "Figure 2(c): PCA rank reduction, SRDP vs group privacy (reconstructed)", "dataset size n", true, nil,
		common+"g_min = 0.5 (η = 12R³/g = 24 when n > 24R²/g = 48, else the unconditional 12√2R³/g ≈ 33.9), k = n.",
		"Claim (paper): SRDP is constant in n while group privacy grows with n. Crossing near n ≈ 1 + η (tight) or n ≈ 2η (paper-style).",
		nil, []int{0}, func(x float64, _ int) (float64, int, int) {
			n := int(x)
			p := smoothdp.PCA{Rank: 1, R: 1}
			_, eta, _ := p.Theory(smoothdp.Collection{N: n, GMin: 0.5})
			return eta, n, n
		}))
}
