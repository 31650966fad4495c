package smoothdp

// Deduplication and quantization.

import (
	"fmt"
	"math"
	"sort"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/internal/valid"
)

// Dedup is r-approximate deduplication (or quantization with Quantize)
// [V/R]: a good cluster is B(x, r) = {y ∈ S : ‖y − x‖ ≤ r} with B(x, r) =
// B(x, Outer·r) and at least 2 points; good clusters are taken in order of
// size (descending, ties by index), each claiming its members; π_S(x) = x if
// no representative c has ‖x − c‖ ≤ r or x equals the representative, else ⊥
// (removed; distance 2R to any point) or, for quantization, c. Ties and the
// first matching representative are decided by that order.
//
// Apply is value-based: every exact copy of a representative is kept (use
// Transform for the dataset-level rule keeping exactly one copy).
type Dedup struct {
	// Radius is r > 0.
	Radius float64
	// Outer is the outer factor of the good-cluster rule; 0 means 3 (our
	// reading; docs/smooth-rdp.md, 'Reconstruction choices').
	Outer float64
	// Quantize maps near-duplicates to the representative instead of
	// removing them.
	Quantize bool
	// R is the radius of the instance ball (η of dedup is 2Rk).
	R float64
	// DoubledQuantEta uses η = 2rk instead of rk.
	DoubledQuantEta bool
}

func (p Dedup) outer() float64 {
	if p.Outer == 0 {
		return 3
	}
	return p.Outer
}

// Name describes the pre-processing.
func (p Dedup) Name() string {
	if p.Quantize {
		return fmt.Sprintf("quantization r=%g", p.Radius)
	}
	return fmt.Sprintf("deduplication r=%g", p.Radius)
}

func (p Dedup) check() error {
	if err := valid.Positive("dedup radius r", p.Radius); err != nil {
		return fmt.Errorf("smoothdp: %w", err)
	}
	if err := valid.AtLeast("outer factor", p.outer(), 1); err != nil {
		return fmt.Errorf("smoothdp: %w", err)
	}
	if err := valid.Positive("ball radius R", p.R); err != nil {
		return fmt.Errorf("smoothdp: %w", err)
	}
	return nil
}

// GoodClusters returns the good clusters of S (member indices, each
// sorted; the centre first in Centres) in claiming order, with their
// centres. Clusters claimed by a larger one are dropped.
func (p Dedup) GoodClusters(S [][]float64) (clusters [][]int, centres []int, err error) {
	if err := p.check(); err != nil {
		return nil, nil, err
	}
	n, _, err := CheckDataset(S, p.R, false)
	if err != nil {
		return nil, nil, err
	}
	r, o := p.Radius, p.outer()*p.Radius
	type cand struct {
		i   int
		mem []int
	}
	var good []cand
	for i := 0; i < n; i++ {
		var in []int
		outer := 0
		for j := 0; j < n; j++ {
			d := dist(S[i], S[j])
			if d <= r {
				in = append(in, j)
			}
			if d <= o {
				outer++
			}
		}
		if len(in) >= 2 && len(in) == outer {
			good = append(good, cand{i, in})
		}
	}
	sort.SliceStable(good, func(a, b int) bool {
		if len(good[a].mem) != len(good[b].mem) {
			return len(good[a].mem) > len(good[b].mem)
		}
		return good[a].i < good[b].i
	})
	claimed := make([]bool, n)
	for _, g := range good {
		if claimed[g.i] {
			continue
		}
		for _, j := range g.mem {
			claimed[j] = true
		}
		clusters = append(clusters, g.mem)
		centres = append(centres, g.i)
	}
	return clusters, centres, nil
}

type dedupFit struct {
	reps     [][]float64
	r        float64
	quantize bool
}

func (f *dedupFit) Apply(x []float64) ([]float64, bool) {
	for _, c := range f.reps {
		if dist(x, c) <= f.r {
			if f.quantize {
				return append([]float64(nil), c...), true
			}
			same := true
			for j := range x {
				if x[j] != c[j] {
					same = false
					break
				}
			}
			if same {
				return append([]float64(nil), x...), true
			}
			return nil, false
		}
	}
	return append([]float64(nil), x...), true
}

// Fit returns π_S.
func (p Dedup) Fit(S [][]float64) (Fitted, error) {
	_, centres, err := p.GoodClusters(S)
	if err != nil {
		return nil, err
	}
	f := &dedupFit{r: p.Radius, quantize: p.Quantize}
	for _, c := range centres {
		f.reps = append(f.reps, append([]float64(nil), S[c]...))
	}
	return f, nil
}

// Transform applies π_S to S at the dataset level: for deduplication it keeps
// exactly one copy of each representative (the first) and marks the other
// removed rows; quantization replaces rows by their representative.
func (p Dedup) Transform(S [][]float64) (out [][]float64, removed []bool, err error) {
	clusters, centres, err := p.GoodClusters(S)
	if err != nil {
		return nil, nil, err
	}
	f := &dedupFit{r: p.Radius, quantize: p.Quantize}
	for _, c := range centres {
		f.reps = append(f.reps, S[c])
	}
	_ = clusters
	out = make([][]float64, len(S))
	removed = make([]bool, len(S))
	keptRep := map[int]bool{}
	for i, x := range S {
		y, ok := f.Apply(x)
		if ok && !p.Quantize {
			// x equals a representative value: keep the first copy only.
			for ri, c := range f.reps {
				if dist(x, c) <= p.Radius {
					if keptRep[ri] {
						ok = false
					}
					keptRep[ri] = true
					break
				}
			}
		}
		out[i], removed[i] = y, !ok
		if !ok {
			out[i] = nil
		}
	}
	return out, removed, nil
}

// Describe returns N, D, R and the largest good cluster of S.
func (p Dedup) Describe(S [][]float64) (Collection, error) {
	cl, _, err := p.GoodClusters(S)
	if err != nil {
		return Collection{}, err
	}
	mc := 0
	for _, c := range cl {
		mc = max(mc, len(c))
	}
	return Collection{N: len(S), D: len(S[0]), R: p.R, MaxCluster: mc, GMin: math.Inf(1), ZLo: math.Inf(1), ZHi: math.Inf(-1), LamMin: math.Inf(1)}, nil
}

// Theory returns k = 2·max cluster (Proposition 3) [V/R] and η = 2Rk
// (dedup) or rk (quantization) [R].
func (p Dedup) Theory(c Collection) (int, float64, error) {
	if err := p.check(); err != nil {
		return 0, 0, err
	}
	k := KDedup(c.MaxCluster, accounting.RelationReplaceOne)
	if p.Quantize {
		return k, EtaQuant(p.Radius, k, p.DoubledQuantEta), nil
	}
	return k, EtaDedup(p.R, k), nil
}
