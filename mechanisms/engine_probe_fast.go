package mechanisms

import (
	"fmt"
	"math"
	"strings"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
)

// This file checks, on the probe's synthetic rows, that the clipped-sum
// fast path Train uses for per-example clipping (ghost clipping) adds
// what its definition, the clipped per-example gradients, adds.

// fastPath is a model's clipped sum Σ_k w_k·∇ℓ_{i_k} without materialised
// per-example gradients, w_k = weight(‖∇ℓ_{i_k}‖): the model's
// ClippedGradSum when it has one, else its PerExampleGradNorms followed
// by its WeightedGradSum. The zero value is no fast path.
type fastPath struct {
	fused models.ClippedGradSummer
	norms models.GradNormer
	sum   models.WeightedGradSummer
}

// fastPathOf returns m's fast path (the zero fastPath if it has none).
func fastPathOf(m models.Model) fastPath {
	if c, ok := m.(models.ClippedGradSummer); ok {
		return fastPath{fused: c}
	}
	n, ok1 := m.(models.GradNormer)
	w, ok2 := m.(models.WeightedGradSummer)
	if ok1 && ok2 {
		return fastPath{norms: n, sum: w}
	}
	return fastPath{}
}

// bound reports whether f is a fast path.
func (f fastPath) bound() bool { return f.fused != nil || f.norms != nil }

// clippedSum writes the norms and weights of the rows and adds their
// weighted gradient sum into out (models.ClippedGradSummer).
func (f fastPath) clippedSum(theta []float64, data *design.Data, rows []int, weight func(float64) float64, norms, weights, out []float64) {
	if f.fused != nil {
		f.fused.ClippedGradSum(theta, data, rows, weight, norms, weights, out)
		return
	}
	f.norms.PerExampleGradNorms(theta, data, rows, norms)
	for k, v := range norms {
		weights[k] = weight(v)
	}
	f.sum.WeightedGradSum(theta, data, rows, weights, out)
}

// describe names the methods of m that f calls, for an error message.
func (f fastPath) describe(m models.Model) string {
	s := fmt.Sprintf("PerExampleGradNorms then WeightedGradSum of %T", m)
	if f.fused != nil {
		s = fmt.Sprintf("ClippedGradSum of %T", m)
	}
	d, ok := m.(*models.LossDiff)
	if !ok {
		return s
	}
	var parts []string
	if _, ok := d.Full.(models.DiffClippedGradSummer); ok {
		parts = append(parts, "DiffClippedGradSum")
	}
	if _, ok := d.Full.(models.DiffGradNormer); ok {
		parts = append(parts, "DiffGradNorms")
	}
	parts = append(parts, "WeightedGradSum")
	return fmt.Sprintf("%s, through the %s of its Full %T and the WeightedGradSum of its Pub %T", s, strings.Join(parts, ", "), d.Full, d.Pub)
}

// checkFastPath compares, when Train will use a fast path (per-example
// clipping of a model with one, bindModel), the fast path's clipped sum
// with its definition on synthetic rows (probeFastSets, at θ =
// probeTheta): the clipped sum Σ_k min(1, C/‖a_k‖)·a_k of the model's own
// PerExampleGrads a_k (Abadi et al. 2016, Algorithm 1), for all rows (as
// a full batch passes them) and row subsets (as a Poisson batch does),
// with the run's clip norm C and with half the smallest non-zero
// per-example norm (every row clipped, so a fast path that does not clip
// shows). The row
// probe (probeRows) checks that a_k reads row k only; a fast path that
// agrees with the clipped a_k within probeRelTol inherits that, one that
// does not (it reads the row count or another row, or does not clip)
// would release a sum whose sensitivity is not C, so Train refuses it
// with an error naming the method and the fix. Refusing is chosen over
// falling back to the materialised per-example path: the disagreement is
// a bug of the model that the user must see (the same methods serve other
// callers), and a silent fallback would also change the run's cost.
// Datasets the model's LabelChecker refuses, and those on which
// PerExampleGrads panics or is not finite, are skipped; if no dataset is
// left, fastUnchecked says why and no phase is stated. The check runs
// whenever the fast path will be used, phases or not: a plan without a
// Multiplier (notion-specific accounting) assumes sensitivity C as well.
// Only synthetic rows and fixed parameters are read, no random stream is
// drawn from, and the model's state is not touched (a LossDiff is
// probed through a copy), so a run that passes trains bit for bit as
// before.
func (t *trainer) checkFastPath() error {
	if !t.fast.bound() {
		return nil
	}
	m := t.cfg.Model
	theta := t.probeParams()
	checked := 0
	for _, rows := range probeFastSets {
		if checked == probeFastWant {
			break
		}
		pm, data, ok := probeModelOn(m, rows)
		if !ok {
			continue
		}
		pe, ok := probePerExample(pm, theta, data, []int{0, 1})
		if !ok {
			continue
		}
		checked++
		fast := fastPathOf(pm)
		for _, idx := range probeSubsets {
			if err := checkFastOn(fast, theta, data, idx, pe, t.cfg.ClipNorm); err != nil {
				return fmt.Errorf("mechanisms: the model's clipped-sum fast path (%s) %w, on the synthetic rows %v ({feature value, label} of each row; %s): "+
					"DP-SGD's sensitivity is the clip norm C only if the fast path adds Σ_i min(1, C/‖∇ℓ_i‖)·∇ℓ_i of each row's own gradient; "+
					"fix the fast path (it must read neither other rows nor the row count, and weight each row by the weight of its own norm) "+
					"or remove the method (Train then clips the materialised PerExampleGrads)", t.fast.describe(m), err, rows, selection(idx))
			}
		}
	}
	if checked == 0 {
		t.fastUnchecked = fmt.Sprintf("its clipped-sum fast path (%s) could not be compared with its PerExampleGrads: "+
			"every synthetic pair of rows was refused by its LabelChecker, or PerExampleGrads panicked or was not finite on it", t.fast.describe(m))
	}
	return nil
}

// probeFastSets are the synthetic datasets of checkFastPath: two rows
// that differ in features and label (so a fast path that reads the other
// row, or the row count 2, shows), in order of preference; the first
// probeFastWant that the model accepts are checked. The later ones are
// for a model that refuses one label (they share it) or one feature
// value (a categorical column of one category takes only 0).
var probeFastSets = [][]probeRow{
	{{1, 1}, {0, 0}}, {{1, 0}, {0, 1}},
	{{1, 1}, {0, 1}}, {{1, 0}, {0, 0}},
	{{0, 1}, {0, 0}}, {{1, 1}, {1, 0}},
}

// probeFastWant is the number of datasets checkFastPath checks: one
// (every way of breaking the sensitivity that the tests try shows on it,
// and each more dataset costs as much again, a third of the probe for an
// MLP 784-256-10).
const probeFastWant = 1

// probeSubsets are the row selections checkFastPath compares: nil (all
// rows, as a full batch passes them), both rows in reverse order and row
// 0 alone (as a Poisson batch passes its rows; row 0 of the preferred
// sets has every feature 1, so its gradient is not zero in a model
// without intercept).
var probeSubsets = [][]int{nil, {1, 0}, {0}}

// selection describes a row selection of probeSubsets.
func selection(idx []int) string {
	if idx == nil {
		return "all rows"
	}
	return fmt.Sprintf("rows %v", idx)
}

// probeModelOn returns the model the probe evaluates on the synthetic
// rows and their dataset: m with key probeKey if it is models.Stochastic,
// and for a models.LossDiff a copy whose PubData is publicView of the
// rows (with Pub's features). It reports false if a LabelChecker of the
// model (or of Pub) refuses the rows.
func probeModelOn(m models.Model, rows []probeRow) (models.Model, *design.Data, bool) {
	data := probeData(m.NumFeatures(), rows...)
	if d, ok := m.(*models.LossDiff); ok {
		pub := probeData(d.Pub.NumFeatures(), publicView(rows)...)
		if !labelsAccepted(d.Pub, pub) {
			return nil, nil, false
		}
		m = &models.LossDiff{Full: d.Full, Pub: d.Pub, PubData: pub}
	}
	if !labelsAccepted(m, data) {
		return nil, nil, false
	}
	if s, ok := m.(models.Stochastic); ok {
		m = s.WithKey(probeKey)
	}
	return m, data, true
}

// publicView returns the rows' synthetic public view Ψ: every feature x
// becomes 1 − x, the label is kept. It differs from the rows, so that
// ∇ℓ − ∇ℓ_pub is not zero when Full and Pub are the same model.
func publicView(rows []probeRow) []probeRow {
	pub := make([]probeRow, len(rows))
	for i, r := range rows {
		pub[i] = probeRow{1 - r.x, r.y}
	}
	return pub
}

// labelsAccepted reports whether m's LabelChecker, if any, accepts data.
func labelsAccepted(m models.Model, data *design.Data) bool {
	lc, ok := m.(models.LabelChecker)
	return !ok || lc.CheckLabels(data) == nil
}

// checkFastOn compares fast's clipped sum of the rows idx of data with
// the clipped sum of the model's per-example gradients pe of all rows of
// data (see checkFastPath), for the clip norm c and for half the smallest
// non-zero per-example norm.
func checkFastOn(fast fastPath, theta []float64, data *design.Data, idx []int, pe []float64, c float64) error {
	p := len(theta)
	sel := pe
	if idx != nil {
		sel = make([]float64, 0, len(idx)*p)
		for _, i := range idx {
			sel = append(sel, pe[i*p:(i+1)*p]...)
		}
	}
	clips := []float64{c}
	if h := 0.5 * minRowNorm(sel, p); h > 0 {
		clips = append(clips, h)
	}
	for _, ci := range clips {
		want := make([]float64, p)
		addClipped(want, sel, p, ci)
		got, err := probeFastSum(fast, theta, data, idx, len(sel)/p, ci)
		if err != nil {
			return fmt.Errorf("panicked (%v) at clip norm %.3g where the model's PerExampleGrads did not", err, ci)
		}
		if d := sumDiff(want, got, sel, p, ci); !(d <= probeRelTol) {
			return fmt.Errorf("disagrees with the clipped sum of the model's PerExampleGrads by %.3g of the rows' largest clipped entries at clip norm %.3g", d, ci)
		}
	}
	return nil
}

// probePerExample returns m's per-example gradients of the rows, or false
// if m panics or a gradient is not finite.
func probePerExample(m models.Model, theta []float64, data *design.Data, rows []int) (pe []float64, ok bool) {
	defer func() {
		if recover() != nil {
			pe, ok = nil, false
		}
	}()
	pe = make([]float64, len(rows)*len(theta))
	m.PerExampleGrads(theta, data, rows, pe)
	for _, v := range pe {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
	}
	return pe, true
}

// probeFastSum returns fast's clipped sum of the rows idx (b of them) of
// data with clip norm c, or the value it panicked with as an error.
func probeFastSum(fast fastPath, theta []float64, data *design.Data, idx []int, b int, c float64) (out []float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("%v", r)
		}
	}()
	out = make([]float64, len(theta))
	weight := func(norm float64) float64 { return clipFactor(norm, c) }
	fast.clippedSum(theta, data, idx, weight, make([]float64, b), make([]float64, b), out)
	return out, nil
}

// minRowNorm returns the smallest non-zero Euclidean norm of the rows of
// p entries of pe (0 if every row is zero: a zero row stays zero when
// clipped).
func minRowNorm(pe []float64, p int) float64 {
	m := math.Inf(1)
	for k := 0; k < len(pe); k += p {
		if n := norm2(pe[k : k+p]); n > 0 {
			m = min(m, n)
		}
	}
	if math.IsInf(m, 1) {
		return 0
	}
	return m
}

// sumDiff returns max_j |want_j − got_j| relative to the scale of the
// clipped sum, Σ_k max_j |clip_c(a_k)_j| over the rows a_k of pe (plus
// probeAbsTol): the rounding of a sum is relative to its terms, not to
// the sum, which cancels to about 0 for two rows clipped to opposite
// directions. A NaN entry gives NaN.
func sumDiff(want, got, pe []float64, p int, c float64) float64 {
	scale := probeAbsTol
	for k := 0; k < len(pe); k += p {
		a := pe[k : k+p]
		f := clipFactor(norm2(a), c)
		var m float64
		for _, v := range a {
			m = max(m, math.Abs(f*v))
		}
		scale += m
	}
	var d float64
	for j := range want {
		e := math.Abs(want[j] - got[j])
		if math.IsNaN(e) {
			return e
		}
		d = max(d, e)
	}
	return d / scale
}
