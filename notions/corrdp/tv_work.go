package corrdp

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/featuredp/featuredp/data"
	"github.com/go-gota/gota/dataframe"
)

// MaxTVWork bounds the work (TVWork) of a TV estimate that a caller runs
// on a user's data unasked (dpnb's privacy report and comparison helper):
// about twenty seconds on one core. EstimateTV compares every pair of
// groups of a public feature at a cost per pair of the joint values of the
// sensitive features (and of the occupied histogram cells of the
// continuous ones), and fits, for a continuous public feature, a
// multinomial logistic regression of the joint sensitive value by Newton's
// method; an identifier makes either quadratic in the rows or worse, in
// time and memory.
const MaxTVWork = 3e9

// newtonWorkSteps is the number of Newton steps TVWork counts per
// multinomial fit: an estimate of a fit's steps (Adult's fit on fnlwgt
// takes 9), not FitMultinomialLR's cap (maxNewtonSteps, ten times more),
// which would count Adult's report (1.5e10 operations) beyond MaxTVWork.
const newtonWorkSteps = 10

// tally, when set (by tests only), is told the work of every pair
// comparison (maxPairTV: the pairs of groups compared × the values per
// pair) and of every Newton step (newton: newtonStepWork) as they run, so
// that a test can check TVWork against the estimate's own loops.
var tally func(newton bool, ops float64)

// TVWork returns the work of EstimateTV(df, schema, opts) — a count of the
// operations of its loops that grow faster than the reading of the
// columns — and the (at most five) public features that cost most (under
// N-jointU, all of them). It reads the columns as EstimateTV does
// (prepareTV: readRawColumn, jointCodes) and forms the same groups
// (jointGroups, uGroups), so the two cannot diverge; it fails where
// EstimateTV fails before its estimate. With k_S the joint values of the
// discrete sensitive features (jointCodes), d the continuous sensitive
// features and n the rows, the work is a sum of:
//
//   - pairs of groups (pairWork): K(K − 1)/2 · (k_S + min(n, k^d)) for
//     the K groups of a discrete u (its levels), of a continuous u under
//     Checked (its merged bins) and, under N-jointU, of the joint
//     configurations of all public features; k_S is counted when
//     k_S > 1 (TVDiscrete), min(n, k^d) when d > 0 (the occupied cells of
//     TVHistogram's grid, k = opts.Bins or HistogramBins at the smallest
//     group);
//   - the multinomial fit of a continuous u under N-one (fitWork):
//     10·(n·m² + m³/3) with m = 2k_S parameters, ten Newton steps of
//     newtonStepWork when k_S > 1 and m ≤ 2000 (beyond, the fit refuses at
//     once). The fit may take up to 100 steps (its cap), so this term is
//     an estimate, not an upper bound; the pair terms bound the pairs
//     compared.
func TVWork(df dataframe.DataFrame, schema data.Schema, opts TVOptions) (work float64, heavy []string, err error) {
	costs, err := tvWorkCosts(df, schema, opts)
	if err != nil {
		return 0, nil, fmt.Errorf("corrdp: TVWork: %w", err)
	}
	for _, c := range costs {
		work += c.pairs + c.fit
	}
	if opts.Neighbours == JointU {
		for _, c := range costs[1:] {
			heavy = append(heavy, c.name)
		}
		return work, heavy, nil
	}
	slices.SortStableFunc(costs, func(a, b workCost) int { return cmp.Compare(b.pairs+b.fit, a.pairs+a.fit) })
	for _, c := range costs[:min(len(costs), 5)] {
		if c.pairs+c.fit > 0 {
			heavy = append(heavy, c.name)
		}
	}
	return work, heavy, nil
}

// workCost is the work of one public feature (under N-jointU, the first
// entry carries the whole work and every feature follows with none): its
// pairs of groups (pairWork) and its multinomial fit (fitWork).
type workCost struct {
	name       string
	pairs, fit float64
}

// tvWorkCosts are TVWork's terms per public feature.
func tvWorkCosts(df dataframe.DataFrame, schema data.Schema, opts TVOptions) ([]workCost, error) {
	e, us, err := prepareTV(df, schema, &opts)
	if err != nil {
		return nil, err
	}
	if opts.Neighbours == JointU {
		groups, _ := jointGroups(us, e.n, opts.JointBins)
		costs := []workCost{{name: "N-jointU configurations", pairs: e.pairWork(groups)}}
		for _, c := range us {
			costs = append(costs, workCost{name: c.name})
		}
		return costs, nil
	}
	costs := make([]workCost, 0, len(us))
	for _, c := range us {
		w := workCost{name: c.name}
		switch {
		case c.discrete:
			w.pairs = e.pairWork(c.codes)
		case opts.Estimator == Checked:
			groups, _ := e.uGroups(c)
			w.pairs, w.fit = e.pairWork(groups), e.fitWork()
		default:
			w.fit = e.fitWork()
		}
		costs = append(costs, w)
	}
	return costs, nil
}

// pairWork is the work of groupTV over groups (each row's group in
// [0, K)): K(K − 1)/2 pairs, each at k_S values of the discrete sensitive
// block (TVDiscrete, when k_S > 1) and at most min(n, k^d) occupied cells
// of the continuous block's histogram (TVHistogram, when d > 0; k its bins
// per dimension, opts.Bins or defaultBins).
func (e *tvEstimator) pairWork(groups []int) float64 {
	k := slices.Max(groups) + 1
	per := 0.0
	if e.joint != nil && e.kJoint > 1 {
		per += float64(e.kJoint)
	}
	if e.d > 0 {
		bins := e.opts.Bins
		if bins <= 0 {
			tot := make([]float64, k)
			for _, g := range groups {
				tot[g]++
			}
			bins = defaultBins(tot, e.opts.MinGroup, e.d)
		}
		per += math.Min(float64(e.n), math.Pow(float64(bins), float64(e.d)))
	}
	return float64(k) * float64(k-1) / 2 * per
}

// fitWork is the work of modelTV's multinomial fit of the k_S joint values
// on one input (m = 2k_S parameters): newtonWorkSteps Newton steps of
// newtonStepWork, or 0 when nothing is fitted (k_S < 2) or the fit refuses
// at once (m > maxNewtonParams).
func (e *tvEstimator) fitWork() float64 {
	m := 2 * e.kJoint
	if e.joint == nil || e.kJoint < 2 || m > maxNewtonParams {
		return 0
	}
	return newtonWorkSteps * newtonStepWork(e.n, m)
}
