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
// shows); then the same on probeWideRows rows (checkFastWide), a batch
// large enough to take the batched kernels (models.MLP's above 32 rows,
// in float32 with MLP.Float32), which the two-row datasets never reach.
// The row probe (probeRows) checks that a_k reads row k only; a fast path
// that agrees with the clipped a_k within probeFastTol inherits that, one that
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
				return t.fastPathError(err, fmt.Sprintf("on the synthetic rows %v ({feature value, label} of each row; %s)", rows, selection(idx)))
			}
		}
		if err := checkFastWide(m, theta, rows, t.cfg.ClipNorm, 0.5*minRowNorm(pe, len(theta))); err != nil {
			return t.fastPathError(err, fmt.Sprintf("on %d synthetic rows alternating %v ({feature value, label} of each row), "+
				"as many as a batch that takes the batched kernels (e.g. models.MLP above 32 rows, in float32 with MLP.Float32)", probeWideRows, rows))
		}
	}
	if checked == 0 {
		t.fastUnchecked = fmt.Sprintf("its clipped-sum fast path (%s) could not be compared with its PerExampleGrads: "+
			"every synthetic pair of rows was refused by its LabelChecker, or PerExampleGrads panicked or was not finite on it", t.fast.describe(m))
	}
	return nil
}

// fastPathError is checkFastPath's error for a disagreement err of the
// fast path on the synthetic rows where describing where.
func (t *trainer) fastPathError(err error, where string) error {
	return fmt.Errorf("mechanisms: the model's clipped-sum fast path (%s) %w, %s: "+
		"DP-SGD's sensitivity is the clip norm C only if the fast path adds Σ_i min(1, C/‖∇ℓ_i‖)·∇ℓ_i of each row's own gradient; "+
		"fix the fast path (it must read neither other rows nor the row count, and weight each row by the weight of its own norm) "+
		"or remove the method (Train then clips the materialised PerExampleGrads)", t.fast.describe(t.cfg.Model), err, where)
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
		if err := compareFast(fast, theta, data, idx, len(sel)/p, ci, want, clippedScale(sel, p, ci)); err != nil {
			return err
		}
	}
	return nil
}

// compareFast compares fast's clipped sum of the rows idx (b of them) of
// data at clip norm c with want, the clipped sum of the model's
// PerExampleGrads, relative to scale (clippedScale), within probeFastTol.
func compareFast(fast fastPath, theta []float64, data *design.Data, idx []int, b int, c float64, want []float64, scale float64) error {
	got, err := probeFastSum(fast, theta, data, idx, b, c)
	if err != nil {
		return fmt.Errorf("panicked (%v) at clip norm %.3g where the model's PerExampleGrads did not", err, c)
	}
	if d := maxAbsDiff(want, got) / scale; !(d <= probeFastTol) {
		return fmt.Errorf("disagrees with the clipped sum of the model's PerExampleGrads by %.3g of the rows' largest clipped entries at clip norm %.3g", d, c)
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
	norms := make([]float64, 0, len(pe)/p)
	for k := 0; k < len(pe); k += p {
		norms = append(norms, norm2(pe[k:k+p]))
	}
	return minPositive(norms)
}

// clippedScale is the scale of a clipped sum against which the fast
// path's difference is measured: Σ_k max_j |clip_c(a_k)_j| over the rows
// a_k of pe (plus probeAbsTol). The rounding of a sum is relative to its
// terms, not to the sum, which cancels to about 0 for two rows clipped to
// opposite directions.
func clippedScale(pe []float64, p int, c float64) float64 {
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
	return scale
}

// probeWideRows is the row count of checkFastWide's dataset: more than
// the largest row count of a built-in model's row loop (models.MLP's 32;
// LabelSplitSoftmax's batched sums start at 64), so that the batched
// kernels a real batch takes are the ones checked, not only the row loop
// of the two-row datasets.
const probeWideRows = 66

// probeFastTol is the tolerance of checkFastPath, relative as in
// compareFast. A fast path may compute its products in float32 against the
// float64 PerExampleGrads (models.MLP.Float32: measured 1.2e-6 to 3.2e-6
// of clippedScale on the wide rows for an MLP 784-256-10 and a
// LossDiff of two, whose rank-2 path is in float32 on every batch, about
// √d·2⁻²⁴ for d inputs); 1e-4 leaves a margin of 30 for that and is far
// below the disagreements the check is for (a fast path that does not
// clip, reads the row count, or weights a row by another row's norm is
// off by a fraction of the clip norm). A disagreement below it moves the
// sum's sensitivity by about that fraction of C. Float64 kernels agree to
// about 1e-15.
const probeFastTol = 1e-4

// checkFastWide compares m's fast path on probeWideRows synthetic rows
// alternating rows[0] and rows[1] with the clipped sum of m's own
// PerExampleGrads of the rows of that dataset, within probeFastTol: all
// rows (nil, as a full batch passes them) at the clip norm c, and every
// row in reverse order (as a Poisson batch passes its rows) at h, half
// the smallest non-zero norm of the two-row check (every row clipped; h
// = 0: c). Its cost is two fast passes over the rows: the per-example
// gradients of a model that is not models.Stochastic are those of rows 0
// and 1, each counted probeWideRows/2 times (a row's gradient reads its
// own values, which repeat; the row probe checks that), and a Stochastic
// model's, whose draws depend on the row's index, are computed one row at
// a time (memory of two gradients, not probeWideRows). A dataset the
// model refuses, or on which PerExampleGrads panics or is not finite, is
// not checked (the two-row check has run).
func checkFastWide(m models.Model, theta []float64, rows []probeRow, c, h float64) error {
	wide := make([]probeRow, probeWideRows)
	for k := range wide {
		wide[k] = rows[k%2]
	}
	pm, data, ok := probeModelOn(m, wide)
	if !ok {
		return nil
	}
	if h == 0 {
		h = c
	}
	rev := make([]int, probeWideRows)
	for k := range rev {
		rev[k] = probeWideRows - 1 - k
	}
	checks := []struct {
		idx []int
		c   float64
	}{{nil, c}, {rev, h}}
	clips := []float64{c, h}
	want, scale, ok := probeClippedSums(pm, theta, data, clips)
	if !ok {
		return nil
	}
	fast := fastPathOf(pm)
	for i, ch := range checks {
		if err := compareFast(fast, theta, data, ch.idx, probeWideRows, ch.c, want[i], scale[i]); err != nil {
			return fmt.Errorf("%w (%s)", err, selection(ch.idx))
		}
	}
	return nil
}

// probeClippedSums returns, for each clip norm c, Σ_k min(1, c/‖a_k‖)·a_k
// over the rows a_k of data (m's PerExampleGrads; see checkFastWide for
// the rows computed) and clippedScale's Σ_k max_j |clip_c(a_k)_j| (plus
// probeAbsTol), or false if m panics or a gradient is not finite.
func probeClippedSums(m models.Model, theta []float64, data *design.Data, clips []float64) (want [][]float64, scale []float64, ok bool) {
	p := len(theta)
	want, scale = make([][]float64, len(clips)), make([]float64, len(clips))
	for i := range clips {
		want[i], scale[i] = make([]float64, p), probeAbsTol
	}
	computed, times := data.N, 1.0
	if !models.IsStochastic(m) {
		computed, times = 2, float64(data.N/2)
	}
	for k := range computed {
		a, ok := probePerExample(m, theta, data, []int{k})
		if !ok {
			return nil, nil, false
		}
		nk := norm2(a)
		var top float64
		for _, v := range a {
			top = max(top, math.Abs(v))
		}
		for i, ci := range clips {
			f := clipFactor(nk, ci)
			for j, v := range a {
				want[i][j] += times * f * v
			}
			scale[i] += times * f * top
		}
	}
	return want, scale, true
}

// minPositive returns the smallest positive value of v (0 if none).
func minPositive(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		if x > 0 {
			m = min(m, x)
		}
	}
	if math.IsInf(m, 1) {
		return 0
	}
	return m
}

// maxAbsDiff returns max_j |a_j − b_j| (NaN if an entry is NaN).
func maxAbsDiff(a, b []float64) float64 {
	var d float64
	for j, x := range a {
		e := math.Abs(x - b[j])
		if math.IsNaN(e) {
			return e
		}
		d = max(d, e)
	}
	return d
}
