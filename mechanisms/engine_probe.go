package mechanisms

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
)

// This file checks, on synthetic rows, that a model's per-example gradient
// reads its own row only (probeRows), before the engine states a relation
// for its phases; engine_probe_fast.go checks that the fast path the
// engine uses for per-example clipping adds the clipped per-example
// gradients (checkFastPath).

// rowProbe is what probeRows found about the per-example gradient of row 0.
type rowProbe int

const (
	// probeOwnRow: no dependence on the row count or on other rows was
	// seen.
	probeOwnRow rowProbe = iota
	// probeRowCount: row 0's gradient changes when a copy of row 0 is
	// added (it reads data.N or a statistic of all rows).
	probeRowCount
	// probeUnknown: the probe could not tell: the model panicked on a
	// synthetic dataset its LabelChecker accepts, gave two different or
	// non-finite gradients for the same call, or its LabelChecker
	// refused every pair of datasets the probe compares.
	probeUnknown
	// probeOtherRows: row 0's gradient changes with the values of
	// another row.
	probeOtherRows
)

// Fixed inputs of the probe. They depend on nothing of the run, so the
// relation the engine states does not depend on the private data.
const (
	probeSeed1, probeSeed2 = 0x5eed_0f_9a0be, 0xc0ffee_d00d
	probeKey               = 0x70be_5eed // models.Stochastic key of every evaluation
	// probeRelTol is the relative tolerance of two gradients of row 0.
	// Blocked and SIMD kernels may group one row differently from two
	// (another summation order or tail), which moves the last few bits;
	// 1e-9 of the largest entry is far above that rounding (≈1e-16) and
	// below the dependences the probe is for: a ridge term (λ/N)‖w‖²
	// moves the gradient of a weight w_j by 2λw_j/N, by λ·w_j between
	// N = 1 and N = 2 (a λ below about 1e-9 of the gradient is not
	// seen).
	probeRelTol = 1e-9
	// probeAbsTol is the absolute floor for all-zero gradients.
	probeAbsTol = 1e-300
)

// probeTheta returns the probe's parameters: a fixed pseudo-random vector
// of p entries of magnitude in [0.5, 1.5) with random signs (no entry near
// zero, so a penalty on any parameter shows).
func probeTheta(p int) []float64 {
	r := rand.New(rand.NewPCG(probeSeed1, probeSeed2))
	theta := make([]float64, p)
	for j := range theta {
		v := 0.5 + r.Float64()
		if r.IntN(2) == 0 {
			v = -v
		}
		theta[j] = v
	}
	return theta
}

// probeParams returns probeTheta of Config.Model's parameter count,
// computed once per trainer (every model the probe evaluates has as many
// parameters).
func (t *trainer) probeParams() []float64 {
	if t.probeθ == nil {
		t.probeθ = probeTheta(t.cfg.Model.NumParams())
	}
	return t.probeθ
}

// probeRow is a synthetic row: every feature x and label y.
type probeRow struct{ x, y float64 }

// probeData returns the synthetic dataset of the given rows with d
// features.
func probeData(d int, rows ...probeRow) *design.Data {
	data := &design.Data{N: len(rows), D: d, X: make([]float64, len(rows)*d), Y: make([]float64, len(rows))}
	for i, r := range rows {
		for j := range d {
			data.X[i*d+j] = r.x
		}
		data.Y[i] = r.y
	}
	return data
}

// probeModels returns the losses whose per-example gradients the engine
// clips: Config.Model (a LossDiff's Full and Pub apart, as its Pub reads
// its own PubData) and, with SubtractFromPrivate, the public model.
func (t *trainer) probeModels() []models.Model {
	var ms []models.Model
	if d, ok := t.cfg.Model.(*models.LossDiff); ok {
		ms = append(ms, d.Full, d.Pub)
	} else {
		ms = append(ms, t.cfg.Model)
	}
	if t.subtract {
		ms = append(ms, t.basePub)
	}
	return ms
}

// probeAll runs probeRows on every model of probeModels and returns the
// strongest dependence found, the model it was found in and, for
// probeUnknown, why the probe could not tell, skipping a row-count
// dependence that the model declares (models.RowCountReader).
func (t *trainer) probeAll() (rowProbe, models.Model, string) {
	found, which, why := probeOwnRow, models.Model(nil), ""
	for _, m := range t.probeModels() {
		v, w := probeRows(m, t.probeParams())
		if v == probeRowCount && models.ReadsRowCount(m) {
			continue
		}
		if v > found {
			found, which, why = v, m, w
		}
	}
	return found, which, why
}

// probeRows evaluates m's per-example gradient of a synthetic row r0 (all
// features 0 and label 0, then all 1) at fixed parameters θ (probeTheta,
// of length m.NumParams())
// in three datasets: A = {r0}, B = {r0, r0} and C = {r0, r1} with r1
// another synthetic row (probeRowsAll). Row 0's gradient must be the same
// in all three when ℓ_i reads row i only. It reports probeOtherRows if B
// and C differ (another row's values change row 0's gradient), else
// probeRowCount if A and B differ (the row count, or a statistic over the
// rows, changes it), else probeOwnRow.
//
// Only synthetic rows are read, never the run's data: the verdict, and the
// relation the engine states from it, depend on the model alone. A
// models.Stochastic model is evaluated with one fixed key (DDPM draws each
// row's (t, ε) from the key and the row's index, so row 0 gets the same
// draw in A, B and C). Datasets the model's LabelChecker refuses are
// skipped (a model that cannot take features or labels 0 and 1 should
// refuse them there). It reports probeUnknown, and why, when it cannot
// tell: the model refused A or B of both r0, panicked on an accepted
// dataset, or gave two different (or non-finite) gradients for the same
// call; the engine then states no phase (a model that cannot be probed
// does not get the relation of one that reads its own row). A dependence
// smaller than probeRelTol of the gradient is not seen.
func probeRows(m models.Model, theta []float64) (v rowProbe, why string) {
	defer func() {
		if r := recover(); r != nil {
			v, why = probeUnknown, fmt.Sprintf("it panicked on them (%v)", r)
		}
	}()
	if s, ok := m.(models.Stochastic); ok {
		m = s.WithKey(probeKey)
	}
	found, compared := probeOwnRow, false
	for _, r0 := range probeRows0 {
		v0, ok := probeRow0(m, theta, r0)
		if v0 == probeUnknown {
			return v0, "it gave two different or non-finite gradients for the same call (a loss with randomness of its own must implement models.Stochastic)"
		}
		found, compared = max(found, v0), compared || ok
	}
	if !compared {
		return probeUnknown, "its LabelChecker refused every synthetic dataset (every feature and the label 0, or every one 1)"
	}
	return found, ""
}

// probeRowsAll are the synthetic rows of the probe: features and label 0
// or 1 (0 is a valid code of a categorical column; 0 and 1 are valid
// binary, regression and K ≥ 2 class labels). probeRows0 are the rows r0
// whose gradient is compared: all zeros, and all ones (a row of zeros has
// a zero gradient in a model without intercept, which would hide a change
// of its data term).
var (
	probeRowsAll = []probeRow{{0, 0}, {1, 1}, {0, 1}, {1, 0}}
	probeRows0   = probeRowsAll[:2]
)

// probeRow0 is probeRows for one row r0, compared in A = {r0}, B = {r0,
// r0} and C = {r0, r1} for every other r1 of probeRowsAll. It reports
// false if the model's LabelChecker refuses A or B (nothing compared), and
// probeUnknown if the gradient of A is not finite or not the same twice.
func probeRow0(m models.Model, theta []float64, r0 probeRow) (rowProbe, bool) {
	d := m.NumFeatures()
	a := probeGrad(m, theta, probeData(d, r0))
	if a == nil {
		return probeOwnRow, false
	}
	if !closeGrads(a, probeGrad(m, theta, probeData(d, r0))) {
		return probeUnknown, true
	}
	b := probeGrad(m, theta, probeData(d, r0, r0))
	if b == nil {
		return probeOwnRow, false
	}
	for _, r1 := range probeRowsAll {
		if r1 == r0 {
			continue
		}
		if c := probeGrad(m, theta, probeData(d, r0, r1)); c != nil && !closeGrads(b, c) {
			return probeOtherRows, true
		}
	}
	if !closeGrads(a, b) {
		return probeRowCount, true
	}
	return probeOwnRow, true
}

// probeGrad returns m's per-example gradient of row 0 of data, or nil if
// the model's LabelChecker refuses data.
func probeGrad(m models.Model, theta []float64, data *design.Data) []float64 {
	if !labelsAccepted(m, data) {
		return nil
	}
	p := len(theta)
	out := make([]float64, p)
	m.PerExampleGrads(theta, data, []int{0}, out)
	return out
}

// closeGrads reports whether a and b agree entry by entry within
// probeRelTol of their largest entry (plus probeAbsTol), in one pass:
// max_j |a_j − b_j| ≤ probeRelTol·max_j max(|a_j|, |b_j|) + probeAbsTol.
// A NaN entry never agrees.
func closeGrads(a, b []float64) bool {
	var scale, diff float64
	for j, x := range a {
		y := b[j]
		d := math.Abs(x - y)
		if math.IsNaN(d) {
			return false
		}
		scale, diff = max(scale, math.Abs(x), math.Abs(y)), max(diff, d)
	}
	return diff <= probeRelTol*scale+probeAbsTol
}

// noteProbedRowCount is PhasesNote of a run whose model was found by the
// probe to read the row count without declaring it.
func noteProbedRowCount(m models.Model) string {
	return fmt.Sprintf("the per-example gradient of %T changed on synthetic rows when a copy of the row was added: "+
		"the model's per-example loss reads the data's row count n (or a statistic of all rows, e.g. a ridge term (λ/n)‖w‖² of a wrapped models.Linear) "+
		"without declaring models.RowCountReader, and n differs between add/remove neighbours "+
		"(one more record changes every other record's clipped gradient): the phases hold under the feature-simulator relation "+
		"(a simulator that knows the row count) only; declare models.RowCountReader if this is intended, or, for add/remove DP, "+
		"make ℓ_i not read n: a per-record penalty ((λ/2)‖w‖² per record, as Logistic.L2), or Ridge 0 with Config.ProjectRadius bounding θ", m)
}

// noteProbedOtherRows is PhasesNote of a run whose model was found by the
// probe to read other rows in a row's per-example gradient.
func noteProbedOtherRows(m models.Model) string {
	return fmt.Sprintf("the per-example gradient of a row of %T changed on synthetic rows when another row changed: "+
		"ℓ_i reads other rows (e.g. mean-centring or batch statistics), so DP-SGD's per-example clipping does not bound one record's influence "+
		"and no relation holds, no phase is stated; make ℓ_i read row i only (centre or scale with constants fixed before training, "+
		"from public data)", m)
}

// noteUnprobed is PhasesNote of a run whose model the probe could not
// evaluate on its synthetic rows (probeUnknown).
func noteUnprobed(m models.Model, why string) string {
	return fmt.Sprintf("Train could not check on synthetic rows (features and labels 0 and 1) what the per-example gradient of %T reads: %s; "+
		"without that check no relation is stated, no phase: make the model evaluate rows of 0s and 1s deterministically, "+
		"or have its models.LabelChecker refuse the rows it cannot take (a refused dataset is skipped; at least one with features and label 0 "+
		"or one with features and label 1, alone and twice, must be accepted)", m, why)
}
