package mechanisms

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
)

// The user models below have an honest PerExampleGrads (they forward it
// to models.Logistic) and a fast path of their own that the engine uses
// for per-example clipping instead: each fast path breaks the clipped
// sum's sensitivity C in one way.

// honestNorms gives a forward the true per-example gradient norms and
// weighted sums of the model it wraps.
type honestNorms struct{ forward }

func (w honestNorms) PerExampleGradNorms(theta []float64, data *design.Data, idx []int, out []float64) {
	w.m.(models.GradNormer).PerExampleGradNorms(theta, data, idx, out)
}
func (w honestNorms) WeightedGradSum(theta []float64, data *design.Data, idx []int, wt, out []float64) {
	w.m.(models.WeightedGradSummer).WeightedGradSum(theta, data, idx, wt, out)
}

// normsByRowCount reports each row's gradient norm divided by the row
// count (its GradNormer reads data.N): the engine then clips too little.
type normsByRowCount struct{ honestNorms }

func (w normsByRowCount) PerExampleGradNorms(theta []float64, data *design.Data, idx []int, out []float64) {
	w.honestNorms.PerExampleGradNorms(theta, data, idx, out)
	for k := range out {
		out[k] /= float64(data.N)
	}
}

// weightsOfNextRow weights each row's gradient by the clip weight of the
// next selected row (its WeightedGradSum reads another row's weight).
type weightsOfNextRow struct{ honestNorms }

func (w weightsOfNextRow) WeightedGradSum(theta []float64, data *design.Data, idx []int, wt, out []float64) {
	shifted := make([]float64, len(wt))
	for k := range wt {
		shifted[k] = wt[(k+1)%len(wt)]
	}
	w.honestNorms.WeightedGradSum(theta, data, idx, shifted, out)
}

// unclippedSum is a ClippedGradSummer that does not clip: it ignores
// weight and adds every row's gradient with weight 1.
type unclippedSum struct{ honestNorms }

func (w unclippedSum) ClippedGradSum(theta []float64, data *design.Data, idx []int, _ func(float64) float64, norms, weights, out []float64) {
	w.PerExampleGradNorms(theta, data, idx, norms)
	for k := range weights {
		weights[k] = 1
	}
	w.WeightedGradSum(theta, data, idx, weights, out)
}

// diffNormsHalved is the Full loss of a models.LossDiff whose
// DiffGradNorms reports half of every row's norm of ∇ℓ − ∇ℓ_pub.
type diffNormsHalved struct{ honestNorms }

func (w diffNormsHalved) DiffGradNorms(pub models.Model, theta []float64, data, pubData *design.Data, idx []int, out []float64) bool {
	d := &models.LossDiff{Full: w.honestNorms, Pub: pub, PubData: pubData}
	d.PerExampleGradNorms(theta, data, idx, out)
	for k := range out {
		out[k] /= 2
	}
	return true
}

// diffUnclipped is the Full loss of a models.LossDiff whose
// DiffClippedGradSum does not clip ∇ℓ − ∇ℓ_pub.
type diffUnclipped struct{ honestNorms }

func (w diffUnclipped) DiffClippedGradSum(pub models.Model, theta []float64, data, pubData *design.Data, idx []int, _ func(float64) float64, norms, weights, out []float64) bool {
	d := &models.LossDiff{Full: w.honestNorms, Pub: pub, PubData: pubData}
	d.PerExampleGradNorms(theta, data, idx, norms)
	for k := range weights {
		weights[k] = 1
	}
	d.WeightedGradSum(theta, data, idx, weights, out)
	return true
}

// hideFeatures returns data with every feature set to 0 (a public view
// Ψ(X) that keeps the labels only).
func hideFeatures(data *design.Data) *design.Data {
	return &design.Data{N: data.N, D: data.D, X: make([]float64, len(data.X)), Y: data.Y}
}

// addRemoveShift runs one step of SGD (rate 1) from θ₀ = 0 with the same
// streams on data and on data plus one record, and returns ‖Δθ‖·m/C (the
// change of the clipped sum in units of C) and the second run's result,
// or Train's error.
func addRemoveShift(model func(*design.Data) models.Model, small, big *design.Data, smp Sampler, m, clip float64, seed uint64) (float64, *Result, error) {
	plan, err := DPSGD(model(small).NumParams(), 1, clip, m)
	if err != nil {
		return 0, nil, err
	}
	run := func(data *design.Data) (*Result, error) {
		return Train(context.Background(), Config{Model: model(data), Data: data, Steps: 1, Sampler: smp, Clip: ClipPerExample,
			ClipNorm: clip, Noise: plan, NormalizeBy: m, Optimizer: SGD{LR: 1}, Init: make([]float64, len(plan.Std)), Seed: seed})
	}
	a, err := run(small)
	if err != nil {
		return 0, nil, err
	}
	b, err := run(big)
	if err != nil {
		return 0, nil, err
	}
	var ss float64
	for j := range a.Theta {
		ss += (a.Theta[j] - b.Theta[j]) * (a.Theta[j] - b.Theta[j])
	}
	return math.Sqrt(ss) * m / clip, b, nil
}

// TestTrainFastPathSensitivity: a model whose fast path (ghost clipping:
// GradNormer + WeightedGradSummer, ClippedGradSummer, and through
// models.LossDiff DiffGradNormer and DiffClippedGradSummer) disagrees
// with its clipped per-example gradients is refused, with an error naming
// the method and the fix. These models used to get add/remove phases
// while one added record moved the clipped sum by several C (the shift is
// measured as in TestTrainAddRemoveSensitivity), so ε was under-reported.
func TestTrainFastPathSensitivity(t *testing.T) {
	const n, clip = 50, 1.0
	logit := must(models.NewLogistic(3, true, 0))
	h := honestNorms{forward{logit}}
	plain := func(m models.Model) func(*design.Data) models.Model {
		return func(*design.Data) models.Model { return m }
	}
	diff := func(full models.Model) func(*design.Data) models.Model {
		return func(d *design.Data) models.Model { return must(models.NewLossDiff(full, logit, hideFeatures(d))) }
	}
	cases := []struct {
		name   string
		model  func(*design.Data) models.Model
		method string // named by the error
	}{
		{"GradNormer reads the row count", plain(normsByRowCount{h}), "PerExampleGradNorms"},
		{"WeightedGradSum reads another row", plain(weightsOfNextRow{h}), "WeightedGradSum"},
		{"ClippedGradSum does not clip", plain(unclippedSum{h}), "ClippedGradSum"},
		{"DiffGradNorms halves the norm", diff(diffNormsHalved{h}), "DiffGradNorms"},
		{"DiffClippedGradSum does not clip", diff(diffUnclipped{h}), "DiffClippedGradSum"},
	}
	r := rand.New(rand.NewPCG(3, 17))
	x, y, addX, addY := randomRows(3, func(r *rand.Rand) float64 { return float64(r.IntN(2)) })(r, n)
	small := mustData(t, x, y, n, 3)
	big := mustData(t, append(append([]float64(nil), x...), addX...), append(append([]float64(nil), y...), addY), n+1, 3)
	for _, c := range cases {
		for _, smp := range []struct {
			s Sampler
			q float64
		}{{FullBatch{}, 1}, {Poisson{Rate: 0.5}, 0.5}} {
			shift, res, err := addRemoveShift(c.model, small, big, smp.s, smp.q*n, clip, 1)
			if err == nil {
				t.Errorf("%s/%T: Train states %d phase(s) under %v, and one added record moved the clipped sum by %.3g·C; want an error naming %s",
					c.name, smp.s, len(res.Phases), res.PhasesRelation, shift, c.method)
				continue
			}
			for _, s := range []string{c.method, "PerExampleGrads", "synthetic rows", "remove the method"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("%s/%T: error %q does not name %q", c.name, smp.s, err, s)
				}
			}
		}
	}
	// The honest fast path of the same wrapper is accepted, with the
	// add/remove relation and a shift of at most C.
	for _, m := range []func(*design.Data) models.Model{plain(h), diff(h)} {
		shift, res, err := addRemoveShift(m, small, big, Poisson{Rate: 0.5}, 0.5*n, clip, 1)
		if err != nil || len(res.Phases) == 0 || res.PhasesRelation != accounting.RelationAddRemove || shift > 1+1e-6 {
			t.Errorf("honest fast path: err %v, result %+v, shift %v·C", err, res, shift)
		}
	}
}

// intervalTarget is a regression on targets in the open interval (0, 1)
// (a legitimate model: its LabelChecker refuses labels 0 and 1, hence
// every synthetic row of the probe).
type intervalTarget struct{ forward }

func (w intervalTarget) CheckLabels(d *design.Data) error {
	for i, y := range d.Y {
		if !(y > 0 && y < 1) {
			return fmt.Errorf("label %d is %v, want in (0, 1)", i, y)
		}
	}
	return nil
}

// integerPanics panics on a row whose first feature is an integer (it
// validates its input by panicking); the probe's rows are all 0 or 1.
type integerPanics struct{ forward }

func (w integerPanics) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	for _, i := range idx {
		if x := data.X[i*data.D]; x == math.Trunc(x) {
			panic(fmt.Sprintf("feature 0 of row %d is the integer %v", i, x))
		}
	}
	w.forward.PerExampleGrads(theta, data, idx, out)
}

// onePerCall has a fast path (ghost clipping) and a PerExampleGrads that
// panics when asked for more than one row: the fast path cannot be
// compared with it.
type onePerCall struct{ honestNorms }

func (w onePerCall) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	if len(idx) != 1 {
		panic("one row per call")
	}
	w.honestNorms.PerExampleGrads(theta, data, idx, out)
}

// jittered adds a random perturbation of its own (not models.Stochastic)
// to every per-example gradient.
type jittered struct{ forward }

func (w jittered) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	w.forward.PerExampleGrads(theta, data, idx, out)
	for j := range out {
		out[j] += 1e-3 * rand.NormFloat64()
	}
}

// TestTrainUnprobedModel: a model the probe cannot evaluate on its
// synthetic rows (it panics on them, its LabelChecker refuses them all,
// it is not deterministic, or its fast path cannot be compared with its
// PerExampleGrads) gets no phase and a note saying why and what to do.
// All used to get add/remove phases: a panic, a refusal or randomness
// counted as "reads its own row", and the fast path was not checked.
func TestTrainUnprobedModel(t *testing.T) {
	const n = 40
	data, _ := regression(t, n, 3, 3)
	interval := &design.Data{N: n, D: 3, X: data.X, Y: make([]float64, n)}
	for i := range interval.Y {
		interval.Y[i] = 0.1 + 0.8*float64(i)/n
	}
	lin := must(models.NewLinear(3, true, 0))
	for _, c := range []struct {
		name string
		m    models.Model
		data *design.Data
		note []string
	}{
		{"panics", integerPanics{forward{lin}}, data, []string{"integerPanics", "panicked", "integer", "LabelChecker"}},
		{"refuses every row", intervalTarget{forward{lin}}, interval, []string{"intervalTarget", "refused every synthetic", "0 and 1"}},
		{"not deterministic", jittered{forward{lin}}, data, []string{"jittered", "two different", "models.Stochastic"}},
		{"fast path not comparable", onePerCall{honestNorms{forward{lin}}}, data, []string{"onePerCall", "WeightedGradSum", "could not be compared"}},
	} {
		plan, _ := DPSGD(lin.NumParams(), 1, 1, 0.5*n)
		res := mustTrain(t, Config{Model: c.m, Data: c.data, Steps: 1, Optimizer: SGD{LR: 0.1}, Sampler: Poisson{Rate: 0.5},
			Clip: ClipPerExample, ClipNorm: 1, Noise: plan, NormalizeBy: 0.5 * n})
		if len(res.Phases) > 0 {
			t.Errorf("%s: phases %+v under %v; want none (the probe cannot tell what ℓ_i reads)", c.name, res.Phases, res.PhasesRelation)
		}
		for _, s := range c.note {
			if !strings.Contains(res.PhasesNote, s) {
				t.Errorf("%s: note %q does not name %q", c.name, res.PhasesNote, s)
			}
		}
	}
}

// unclippedWhenBatched is a ClippedGradSummer that clips in its row loop
// but not in its batched kernel, which it takes above 32 rows (as
// models.MLP does): the two-row datasets of the probe never reach it.
type unclippedWhenBatched struct{ honestNorms }

func (w unclippedWhenBatched) ClippedGradSum(theta []float64, data *design.Data, idx []int, weight func(float64) float64, norms, weights, out []float64) {
	w.PerExampleGradNorms(theta, data, idx, norms)
	for k, v := range norms {
		weights[k] = weight(v)
		if len(norms) > 32 {
			weights[k] = 1
		}
	}
	w.WeightedGradSum(theta, data, idx, weights, out)
}

// TestTrainFastPathWideBatch: the fast path is checked on a batch large
// enough to take the batched kernels. A fast path that does not clip
// above 32 rows used to get add/remove phases (checked on two rows only)
// while one added record moved the clipped sum by several C; it is
// refused now. The built-in batched kernels are accepted with their
// phases: MLP and LabelSplitSoftmax above their row loops, in float32
// (MLP.Float32, alone and as a LossDiff pair), whose rounding is within
// the wide check's tolerance.
func TestTrainFastPathWideBatch(t *testing.T) {
	const n, clip = 50, 1.0
	logit := must(models.NewLogistic(3, true, 0))
	bad := unclippedWhenBatched{honestNorms{forward{logit}}}
	r := rand.New(rand.NewPCG(5, 21))
	x, y, addX, addY := randomRows(3, func(r *rand.Rand) float64 { return float64(r.IntN(2)) })(r, n)
	small := mustData(t, x, y, n, 3)
	big := mustData(t, append(append([]float64(nil), x...), addX...), append(append([]float64(nil), y...), addY), n+1, 3)
	shift, res, err := addRemoveShift(func(*design.Data) models.Model { return bad }, small, big, FullBatch{}, n, clip, 1)
	if err == nil {
		t.Errorf("fast path unclipped above 32 rows: Train states %d phase(s) under %v, and one added record moved the clipped sum by %.3g·C; want an error",
			len(res.Phases), res.PhasesRelation, shift)
	} else {
		for _, s := range []string{"ClippedGradSum", "66 synthetic rows", "batched kernels", "remove the method"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not name %q", err, s)
			}
		}
	}
	mlp := func(f32 bool) *models.MLP {
		m := must(models.NewMLP(64, 16, 3, models.Tanh, models.HeadSoftmaxCE))
		m.Float32 = f32
		return m
	}
	pub := &design.Data{N: 1, D: 64, X: make([]float64, 64), Y: []float64{0}}
	for _, c := range []struct {
		name string
		m    models.Model
	}{
		{"MLP", mlp(false)},
		{"MLP/Float32", mlp(true)},
		{"LossDiff/MLP Float32 pair", must(models.NewLossDiff(mlp(true), mlp(true), pub))},
		{"LabelSplitSoftmax/full", must(models.NewLabelSplitSoftmax(64, 3, models.PartFull))},
		{"LabelSplitSoftmax/public", must(models.NewLabelSplitSoftmax(64, 3, models.PartPublic))},
	} {
		for _, c0 := range []float64{1e-3, 1, 1e3} {
			ft := fastTrainer(c.m, c0)
			if err := ft.checkFastPath(); err != nil || ft.fastUnchecked != "" {
				t.Errorf("%s: clip norm %v: fast path check %v (unchecked: %q), want it accepted", c.name, c0, err, ft.fastUnchecked)
			}
		}
	}
}

// TestTrainFloat32LossDiff: feature-DP training of a LossDiff of two
// MLPs in float32 (MLP.Float32: fdp.CompareConfig.Float32,
// dpnb.FeatureDPOptions.Float32) trains with its phases. Its fast path
// (the rank-2 ghost norms and weighted sum of the pair) computes in
// float32 on every batch, 2.6e-7 of the clipped sum's scale from the
// float64 PerExampleGrads on the probe's two rows; the fast-path check
// held it to 1e-9 and Train refused the run.
func TestTrainFloat32LossDiff(t *testing.T) {
	const n, d = 60, 8
	mlp := func() *models.MLP {
		m := must(models.NewMLP(d, 6, 3, models.Tanh, models.HeadSoftmaxCE))
		m.Float32 = true
		return m
	}
	r := rand.New(rand.NewPCG(2, 9))
	x, y := make([]float64, n*d), make([]float64, n)
	for i := range y {
		y[i] = float64(r.IntN(3))
		for j := range d {
			x[i*d+j] = r.NormFloat64()
		}
	}
	data := mustData(t, x, y, n, d)
	pub := hideFeatures(data)
	model := must(models.NewLossDiff(mlp(), mlp(), pub))
	plan := must(DPSGD(model.NumParams(), 1, 1, 0.5*n))
	res, err := Train(context.Background(), Config{Model: model, Data: data, Steps: 2, Sampler: Poisson{Rate: 0.5}, NormalizeBy: 0.5 * n,
		Clip: ClipPerExample, ClipNorm: 1, Noise: plan, Optimizer: SGD{LR: 0.1}, Seed: 1})
	if err != nil {
		t.Fatalf("LossDiff of two Float32 MLPs refused: %v", err)
	}
	if len(res.Phases) == 0 {
		t.Errorf("LossDiff of two Float32 MLPs: no phase (%s)", res.PhasesNote)
	}
}

// ignoresBatch is a ClippedGradSummer that clips correctly but sums every
// row of the data, whichever rows the batch selects: a Poisson batch then
// adds the whole dataset (no amplification by subsampling).
type ignoresBatch struct{ honestNorms }

func (w ignoresBatch) ClippedGradSum(theta []float64, data *design.Data, idx []int, weight func(float64) float64, norms, weights, out []float64) {
	all := make([]int, data.N)
	for i := range all {
		all[i] = i
	}
	n, wt := make([]float64, data.N), make([]float64, data.N)
	w.PerExampleGradNorms(theta, data, all, n)
	for k, v := range n {
		wt[k] = weight(v)
	}
	w.WeightedGradSum(theta, data, all, wt, out)
	copy(norms, n)
	copy(weights, wt)
}

// unclippedWhenSmall is a ClippedGradSummer that does not clip in its row
// loop, which it takes up to 32 rows, and clips in its batched kernel
// above (the converse of unclippedWhenBatched): a small Poisson batch is
// added unclipped.
type unclippedWhenSmall struct{ honestNorms }

func (w unclippedWhenSmall) ClippedGradSum(theta []float64, data *design.Data, idx []int, weight func(float64) float64, norms, weights, out []float64) {
	w.PerExampleGradNorms(theta, data, idx, norms)
	for k, v := range norms {
		weights[k] = weight(v)
		if len(norms) <= 32 {
			weights[k] = 1
		}
	}
	w.WeightedGradSum(theta, data, idx, weights, out)
}

// nanOnProbeRows is a ClippedGradSummer that does not clip, and returns
// NaN on data whose features are all 0 or 1 (the probe's synthetic rows).
type nanOnProbeRows struct{ unclippedSum }

func (w nanOnProbeRows) ClippedGradSum(theta []float64, data *design.Data, idx []int, weight func(float64) float64, norms, weights, out []float64) {
	w.unclippedSum.ClippedGradSum(theta, data, idx, weight, norms, weights, out)
	for _, x := range data.X {
		if x != 0 && x != 1 {
			return
		}
	}
	for j := range out {
		out[j] = math.NaN()
	}
}

// TestTrainFastPathRefusedOnProbe: fast paths that break the clipped sum's
// sensitivity in ways the two-row check at the run's clip norm alone does
// not show are refused, with an error naming the method: one that does not
// clip (always, or on batches of up to 32 rows), under a clip norm C = 50
// above every synthetic row's gradient norm (only the checks at half the
// smallest norm clip them; real rows with large features are then added
// unclipped); one that sums every row
// whatever the batch (only the single-row subset shows it); one that
// gives NaN on the synthetic rows (a NaN disagreement must refuse, not
// pass). Each was accepted, with phases, by a mutant of the check.
func TestTrainFastPathRefusedOnProbe(t *testing.T) {
	const n = 40
	h := honestNorms{forward{must(models.NewLogistic(3, true, 0))}}
	x, y, _, _ := randomRows(3, func(r *rand.Rand) float64 { return float64(r.IntN(2)) })(rand.New(rand.NewPCG(5, 9)), n)
	data := mustData(t, x, y, n, 3)
	for _, c := range []struct {
		name string
		m    models.Model
		clip float64
	}{
		{"no clipping, C above the synthetic norms", unclippedSum{h}, 50},
		{"no clipping on small batches, C above the synthetic norms", unclippedWhenSmall{h}, 50},
		{"sums every row", ignoresBatch{h}, 1},
		{"NaN on the synthetic rows", nanOnProbeRows{unclippedSum{h}}, 1},
	} {
		plan, err := DPSGD(c.m.NumParams(), 1, c.clip, 0.5*n)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Train(context.Background(), Config{Model: c.m, Data: data, Steps: 1, Sampler: Poisson{Rate: 0.5}, Clip: ClipPerExample,
			ClipNorm: c.clip, Noise: plan, NormalizeBy: 0.5 * n, Optimizer: SGD{LR: 0.1}, Seed: 1})
		if err == nil {
			t.Errorf("%s: accepted, %d phase(s) under %v; want an error naming ClippedGradSum", c.name, len(res.Phases), res.PhasesRelation)
			continue
		}
		if !strings.Contains(err.Error(), "ClippedGradSum") {
			t.Errorf("%s: error %q does not name ClippedGradSum", c.name, err)
		}
	}
}
