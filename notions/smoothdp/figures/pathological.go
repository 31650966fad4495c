package figures

import (
	"context"
	"fmt"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/smoothdp"
)

// ---------------------------------------------------------------------------
// smoothdp-pathological: the Sec. 5.1 attack on deduplication.

func pathGrid(p experiments.Profile) []float64 {
	if p == experiments.Full {
		return []float64{5, 10, 20, 50, 100, 200}
	}
	return []float64{5, 10, 20, 50}
}

// pathKind is how smoothdp-pathological measures the ℓ0 sensitivity; it is
// the figure's cell configuration.
type pathKind int

const (
	pathEmpirical   pathKind = iota // measured on the attack pair
	pathTheoretical                 // k = 2 × largest good cluster over {S, S'}
	pathGroup                       // group privacy, g = n
)

var pathKinds = []pathKind{pathEmpirical, pathTheoretical, pathGroup}

// String is the method label.
func (k pathKind) String() string {
	switch k {
	case pathEmpirical:
		return "empirical ℓ0 (attack pair)"
	case pathTheoretical:
		return "theoretical k (2 × largest good cluster)"
	case pathGroup:
		return "group privacy g = n"
	}
	return fmt.Sprintf("pathKind(%d)", int(k))
}

// pathL0 is the ℓ0 sensitivity of deduplication of the attack pair of size n.
func pathL0(kind pathKind, n int) (int, error) {
	S, S2, err := PathologicalDedup(n, n+1, 0.05, 0.9)
	if err != nil {
		return 0, err
	}
	p := smoothdp.Dedup{Radius: 0.05, R: 1}
	switch kind {
	case pathEmpirical:
		e, err := smoothdp.EmpiricalSensitivity(p, S, S2, 1, false, 0)
		return e.K, err
	case pathTheoretical:
		c1, _ := p.Describe(S)
		c2, _ := p.Describe(S2)
		k, _, err := p.Theory(c1.Merge(c2))
		return k, err
	case pathGroup:
		return n, nil
	}
	return 0, fmt.Errorf("unknown kind %v", kind)
}

func init() {
	experiments.MustRegister(experiments.Figure{
		ID: "smoothdp-pathological", Paper: "smoothdp",
		Title:  "§5.1 pathological deduplication: one replacement removes n − 1 points",
		XLabel: "dataset size n", YLabel: "ℓ0 sensitivity", LogX: true, LogY: true, Metric: "l0", Plot: experiments.LinesSD,
		Cells: func(p experiments.Profile) ([]experiments.Cell, error) {
			var cells []experiments.Cell
			for _, k := range pathKinds {
				for _, c := range experiments.Grid("smoothdp-pathological", 0, []string{k.String()}, pathGrid(p), 1) {
					c.Config = k
					cells = append(cells, c)
				}
			}
			return cells, nil
		},
		Run: func(_ context.Context, c experiments.Cell, _ experiments.Env) ([]experiments.Measurement, error) {
			kind, ok := c.Config.(pathKind)
			if !ok {
				return nil, fmt.Errorf("cell config is %T, want figures.pathKind", c.Config)
			}
			n := int(c.X)
			k, err := pathL0(kind, n)
			if err != nil {
				return nil, err
			}
			// ε of the Gaussian mechanism (σ = 4.900555) after dedup with this k.
			eps, _, err := fig2Eps(fig2Tight, smoothdp.EtaDedup(1, k), k, n)
			if err != nil {
				return nil, err
			}
			return []experiments.Measurement{{Metric: "l0", Value: float64(k)}, {Metric: "epsilon_srdp_tight", Value: eps}}, nil
		},
		Settings: func(p experiments.Profile) string {
			return "Points x0 + r(1−1e-9)e_i (i < n, x0 = 0) plus a far point 0.9·e_d, d = n + 1, r = 0.05; the neighbour replaces the far point by x0."
		},
		PaperValues: []experiments.PaperValue{{Quantity: "empirical ℓ0 at n = 50 (= n − 1)", Value: 49, Method: pathEmpirical.String(), X: 50, Metric: "l0",
			Note: "our construction; the paper states ≈ n in words"}},
		Notes: "The attack makes the empirical ℓ0 sensitivity n − 1, i.e. the guarantee degrades to group privacy; the theoretical k over the " +
			"collection {S, S'} (2 × largest good cluster = 2n) covers it. Imputation with m → n and PCA with g_min → 0 are the other two " +
			"pathologies; they are the right ends of smoothdp-fig2-imputation (η = 2Rm/(n−m) → ∞) and of small gaps (η = 12R³/g)." + banner,
	})
}
