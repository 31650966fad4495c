package corrdp

import (
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/internal/valid"
)

// The model-free check of a continuous insensitive feature u (Checked,
// docs/corrdp.md "TV estimation"): Def. 2.8 takes TV(u) as the max over all
// pairs (x1, x2) of TV(P(X^S | u = x1), P(X^S | u = x2)). The parametric
// estimate compares u = min vs u = max only, which is that max for a
// monotone linear-Gaussian dependence alone. The binned estimate compares
// the conditional laws of every pair of bins of u with the discrete-u
// estimators (Ex. D.1 plug-in, Ex. D.2 histogram).

// maxUBins caps the default number of bins of a continuous u.
const maxUBins = 10

// MaxUBins caps TVOptions.UBins: the binned estimate compares every pair
// of bins, k(k − 1)/2 of them.
const MaxUBins = 1000

// minBinRows is the fewest rows a group of bins holds (a bin of one row
// makes its conditional law a point mass); small groups still inflate the
// plug-in TV, which the confidence term's MinGroup reflects.
const minBinRows = 5

// uBins returns the number of equal-width bins of a continuous u:
// opts.UBins, or k = max(2, min(10, round(n^{1/3}))) (the Θ(n^{−1/3})
// bin width of Ex. D.2).
func (o TVOptions) uBins(n int) int {
	if o.UBins > 0 {
		return o.UBins
	}
	return max(2, min(maxUBins, int(math.Round(math.Cbrt(float64(n))))))
}

// check validates the Estimator, UBins and the public Bounds: every name
// must be a column of the schema, and every range finite with Lo < Hi.
func (o TVOptions) check(schema data.Schema) error {
	if o.Estimator != Checked && o.Estimator != ModelOnly {
		return fmt.Errorf("Estimator = %d: want corrdp.Checked (the default) or corrdp.ModelOnly", o.Estimator)
	}
	if o.UBins < 0 || o.UBins > MaxUBins {
		return fmt.Errorf("UBins = %d: want 0 (the default number of bins) to MaxUBins = %d (pairs of bins are compared: the cost grows with its square)", o.UBins, MaxUBins)
	}
	for name, b := range o.Bounds {
		if _, ok := schema.Lookup(name); !ok {
			return fmt.Errorf("Bounds names %q, which is not a column of the schema: give public bounds of continuous insensitive features only", name)
		}
		if !valid.Finite(b.Lo) || !valid.Finite(b.Hi) || !(b.Lo < b.Hi) {
			return fmt.Errorf("Bounds of %q are [%v, %v]: want finite Lo < Hi", name, b.Lo, b.Hi)
		}
	}
	return nil
}

// binnedTV is the model-free TV of a continuous u: the discrete-u estimate
// (groupTV) over the bins of binGroups.
func (e *tvEstimator) binnedTV(c *rawColumn) (TVFeature, error) {
	groups, labels := e.uGroups(c)
	f, err := e.groupTV(groups, func(g int) string { return labels[g] })
	f.Discrete = false
	return f, err
}

// uGroups are the groups of the binned estimate of a continuous u:
// opts.uBins equal-width bins over its public Bounds (else its observed
// range), merged until each group holds max(MinGroup, ⌈n/(4k)⌉, 5) rows
// (binGroups).
func (e *tvEstimator) uGroups(c *rawColumn) ([]int, []string) {
	k := e.opts.uBins(e.n)
	minRows := max(e.opts.MinGroup, (e.n+4*k-1)/(4*k), minBinRows)
	lo, hi := c.lo, c.hi
	if b, ok := e.opts.Bounds[c.name]; ok {
		lo, hi = b.Lo, b.Hi
	}
	return binGroups(c.raw, lo, hi, k, minRows)
}

// binIndex returns the equal-width bin of v among k bins over [lo, hi]
// (values outside fall into the end bins; lo = hi puts all in bin 0).
func binIndex(v, lo, hi float64, k int) int {
	w := hi/2 - lo/2 // halves: a range near MaxFloat64 does not overflow
	if !(w > 0) {
		return 0
	}
	j := int(math.Floor((v/2 - lo/2) / w * float64(k)))
	return min(max(j, 0), k-1)
}

// binGroups cuts vals into k equal-width bins over [lo, hi] and merges
// runs of adjacent bins until every group holds at least minRows rows (a
// short last group joins its predecessor). It returns the group of every
// row and the groups' labels "u ∈ [a, b)".
func binGroups(vals []float64, lo, hi float64, k, minRows int) ([]int, []string) {
	bin := make([]int, len(vals))
	counts := make([]int, k)
	for i, v := range vals {
		bin[i] = binIndex(v, lo, hi, k)
		counts[bin[i]]++
	}
	group := mergeBins(counts, minRows)
	edge := func(j int) float64 { // lo + (hi − lo)·j/k in halves (no overflow)
		a := (hi/2 - lo/2) * float64(j) / float64(k)
		return lo + a + a
	}
	var labels []string
	for j := 0; j < k; j++ {
		if j == 0 || group[j] != group[j-1] {
			last := j
			for last+1 < k && group[last+1] == group[j] {
				last++
			}
			labels = append(labels, fmt.Sprintf("u ∈ [%.4g, %.4g)", edge(j), edge(last+1)))
		}
	}
	for i, b := range bin {
		bin[i] = group[b]
	}
	return bin, labels
}

// mergeBins maps each of the bins with the given row counts to a group of
// adjacent bins holding at least minRows rows (one group if all rows are
// fewer).
func mergeBins(counts []int, minRows int) []int {
	group := make([]int, len(counts))
	g, acc := 0, 0
	for j, c := range counts {
		group[j] = g
		acc += c
		if acc >= minRows && j < len(counts)-1 {
			g, acc = g+1, 0
		}
	}
	if acc < minRows && g > 0 { // the last group is short: join it to its predecessor
		for j := range group {
			if group[j] == g {
				group[j] = g - 1
			}
		}
	}
	return group
}

// continuousTV is the TV of a continuous u: the parametric estimate
// (modelTV) and, under Checked, the larger of it and the binned one.
// Under Checked a singular Σ_c of eq. (22) (a continuous sensitive
// feature that is, in the data, a linear function of u or of the others)
// gives the conservative TV = 1: the near-singular case gives ≈ 1 anyway,
// and which of the two occurs is a matter of rounding.
func (e *tvEstimator) continuousTV(c *rawColumn) (TVFeature, error) {
	f, err := e.modelTV(c)
	if e.opts.Estimator == ModelOnly {
		return f, err
	}
	if errors.Is(err, errSingularCov) {
		f = TVFeature{TVCont: 1, TV: 1, TVModel: 1, Gamma: 0.5,
			Pair: "Σ_c of eq. (22) is singular (a sensitive feature is linear in u or in the others): TV = 1, conservatively"}
	} else if err != nil {
		return f, err
	}
	b, err := e.binnedTV(c)
	if err != nil {
		return f, fmt.Errorf("binned estimate: %w", err)
	}
	return maxTV(f, b), nil
}

// maxTV returns the larger of the parametric and binned estimates of a
// continuous u, with both recorded and the smaller rate γ.
func maxTV(model, binned TVFeature) TVFeature {
	out := model
	if binned.TV > model.TV {
		out = binned
		out.Pair = "bins of u: " + binned.Pair
	}
	out.TVModel, out.TVBinned = model.TV, binned.TV
	out.Gamma = math.Min(model.Gamma, binned.Gamma)
	out.MinGroup = binned.MinGroup
	return out
}
