package mechanisms

import (
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
)

// forward delegates the methods of models.Model to m, and nothing else
// (explicit methods, no embedding of m): a RowCountReader or LabelChecker
// of m is hidden.
type forward struct{ m models.Model }

func (w forward) NumParams() int            { return w.m.NumParams() }
func (w forward) NumFeatures() int          { return w.m.NumFeatures() }
func (w forward) FeatureParams(j int) []int { return w.m.FeatureParams(j) }
func (w forward) Loss(theta []float64, data *design.Data, idx []int) float64 {
	return w.m.Loss(theta, data, idx)
}
func (w forward) GradSum(theta []float64, data *design.Data, idx []int, out []float64) {
	w.m.GradSum(theta, data, idx, out)
}
func (w forward) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	w.m.PerExampleGrads(theta, data, idx, out)
}

// hiddenRidge wraps a ridge models.Linear so that its RowCountReader is
// hidden from the engine.
type hiddenRidge struct{ forward }

// wrappedLogistic is a correct user wrapper of models.Logistic: ℓ_i reads
// row i only.
type wrappedLogistic struct{ forward }

func (w wrappedLogistic) CheckLabels(d *design.Data) error {
	return w.m.(models.LabelChecker).CheckLabels(d)
}

// centred evaluates m on the data transformed by centre (computed from all
// the rows given): ℓ_i reads every row.
type centred struct {
	forward
	centre func(*design.Data) *design.Data
}

func (w centred) Loss(theta []float64, data *design.Data, idx []int) float64 {
	return w.m.Loss(theta, w.centre(data), idx)
}
func (w centred) GradSum(theta []float64, data *design.Data, idx []int, out []float64) {
	w.m.GradSum(theta, w.centre(data), idx, out)
}
func (w centred) PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64) {
	w.m.PerExampleGrads(theta, w.centre(data), idx, out)
}

// centreFeatures returns data with every column's mean subtracted.
func centreFeatures(data *design.Data) *design.Data {
	c := &design.Data{N: data.N, D: data.D, X: append([]float64(nil), data.X...), Y: data.Y}
	for j := range data.D {
		var s float64
		for i := range data.N {
			s += data.X[i*data.D+j]
		}
		for i := range data.N {
			c.X[i*data.D+j] -= s / float64(data.N)
		}
	}
	return c
}

// centreLabels returns data with the labels' mean subtracted.
func centreLabels(data *design.Data) *design.Data {
	var s float64
	for _, y := range data.Y {
		s += y
	}
	c := &design.Data{N: data.N, D: data.D, X: data.X, Y: make([]float64, data.N)}
	for i, y := range data.Y {
		c.Y[i] = y - s/float64(data.N)
	}
	return c
}

// must returns v; a constructor error is a bug of the test (panic).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestProbeRowsModels: the probe flags no model of package models except
// a ridge Linear, which reads the row count and declares it
// (models.RowCountReader, so probeAll does not report it); the figures,
// which train these models, keep their relation. User models that hide a
// ridge term or read other rows are flagged. The fast path of every model
// (ghost clipping; LossDiff pairs of MLPs, DDPMs, EmbedLogistic) agrees
// with its clipped per-example gradients at clip norms that clip every
// row, some rows or none (checkFastPath).
func TestProbeRowsModels(t *testing.T) {
	mlp := func(act models.Activation, head models.Head) models.Model {
		k := 3
		if head == models.HeadMSE {
			k = 1
		}
		return must(models.NewMLP(3, 4, k, act, head))
	}
	ddpmEvery := must(models.NewDDPM(3, 2, 4, 2, 10, 1e-4, 0.02))
	ddpmEvery.ClassEveryLayer = true
	ridge := must(models.NewLinear(3, true, 0.7))
	pubView := &design.Data{N: 5, D: 3, X: make([]float64, 15), Y: []float64{0, 1, 0, 1, 1}}
	mlpPair := must(models.NewMLP(3, 4, 2, models.Tanh, models.HeadSoftmaxCE))
	ddpm := must(models.NewDDPM(3, 2, 4, 2, 10, 1e-4, 0.02))
	logit := must(models.NewLogistic(3, true, 0))
	embed := must(models.NewEmbedLogistic(2, []int{3, 4}, false))
	embedPub := must(models.NewEmbedLogistic(2, []int{3, 4}, true))
	embedView := &design.Data{N: 5, D: 4, X: make([]float64, 20), Y: []float64{0, 1, 0, 1, 1}}
	type c struct {
		name string
		m    models.Model
		raw  rowProbe // probeRows of the model (every part of a LossDiff)
		all  rowProbe // probeAll: declared row counts are not reported
	}
	cases := []c{
		{"Linear", must(models.NewLinear(3, true, 0)), probeOwnRow, probeOwnRow},
		{"Linear/no intercept", must(models.NewLinear(3, false, 0)), probeOwnRow, probeOwnRow},
		{"Linear/ridge", ridge, probeRowCount, probeOwnRow},
		{"Logistic", logit, probeOwnRow, probeOwnRow},
		{"Logistic/L2", must(models.NewLogistic(3, true, 0.3)), probeOwnRow, probeOwnRow},
		{"Softmax", must(models.NewSoftmax(3, 3)), probeOwnRow, probeOwnRow},
		{"Softmax/L2", &models.Softmax{D: 3, K: 3, L2: 0.2}, probeOwnRow, probeOwnRow},
		{"EmbedLogistic", must(models.NewEmbedLogistic(2, []int{3, 4}, false)), probeOwnRow, probeOwnRow},
		{"EmbedLogistic/public only", must(models.NewEmbedLogistic(2, []int{3, 4}, true)), probeOwnRow, probeOwnRow},
		{"EmbedLogistic/vocab 1", must(models.NewEmbedLogistic(1, []int{1}, false)), probeOwnRow, probeOwnRow},
		{"LabelSplitSoftmax/full", must(models.NewLabelSplitSoftmax(3, 3, models.PartFull)), probeOwnRow, probeOwnRow},
		{"LabelSplitSoftmax/public", must(models.NewLabelSplitSoftmax(3, 3, models.PartPublic)), probeOwnRow, probeOwnRow},
		{"LabelSplitSoftmax/private", must(models.NewLabelSplitSoftmax(3, 3, models.PartPrivate)), probeOwnRow, probeOwnRow},
		{"LabelSplitSoftmax/L2", &models.LabelSplitSoftmax{D: 3, K: 3, Part: models.PartFull, L2: 0.5}, probeOwnRow, probeOwnRow},
		{"DDPM/unconditional", must(models.NewDDPM(3, 0, 4, 2, 10, 1e-4, 0.02)), probeOwnRow, probeOwnRow},
		{"DDPM/classes", ddpm, probeOwnRow, probeOwnRow},
		{"DDPM/class every layer", ddpmEvery, probeOwnRow, probeOwnRow},
		{"LossDiff/MLP pair", must(models.NewLossDiff(mlpPair, mlpPair, pubView)), probeOwnRow, probeOwnRow},
		{"LossDiff/DDPM pair", must(models.NewLossDiff(ddpm, ddpm, pubView)), probeOwnRow, probeOwnRow},
		{"LossDiff/EmbedLogistic pair", must(models.NewLossDiff(embed, embedPub, embedView)), probeOwnRow, probeOwnRow},
		{"LossDiff/Logistic pair", must(models.NewLossDiff(logit, logit, pubView)), probeOwnRow, probeOwnRow},
		{"LossDiff/ridge pair", must(models.NewLossDiff(ridge, ridge, &design.Data{N: 5, D: 3, X: make([]float64, 15), Y: make([]float64, 5)})), probeRowCount, probeOwnRow},
		{"hidden ridge", hiddenRidge{forward{ridge}}, probeRowCount, probeRowCount},
		{"LossDiff/hidden ridge", &models.LossDiff{Full: hiddenRidge{forward{ridge}}, Pub: ridge, PubData: pubView}, probeRowCount, probeRowCount},
		{"wrapped Logistic", wrappedLogistic{forward{logit}}, probeOwnRow, probeOwnRow},
		{"mean-centred features", centred{forward{logit}, centreFeatures}, probeOtherRows, probeOtherRows},
		{"mean-centred labels", centred{forward{must(models.NewLinear(3, true, 0))}, centreLabels}, probeOtherRows, probeOtherRows},
		{"LossDiff/mean-centred", &models.LossDiff{Full: centred{forward{logit}, centreFeatures}, Pub: logit, PubData: pubView}, probeOtherRows, probeOtherRows},
	}
	for _, act := range []models.Activation{models.Softplus, models.ReLU, models.Tanh, models.SiLU} {
		for _, head := range []models.Head{models.HeadSoftmaxCE, models.HeadMSE} {
			cases = append(cases, c{"MLP/" + act.String() + "/" + head.String(), mlp(act, head), probeOwnRow, probeOwnRow})
		}
	}
	noWeightedSum := map[string]bool{"LossDiff/hidden ridge": true, "LossDiff/mean-centred": true}
	for _, tc := range cases {
		tr := &trainer{cfg: Config{Model: tc.m}}
		raw := probeOwnRow
		for _, m := range tr.probeModels() {
			v, _ := probeRows(m, probeTheta(m.NumParams()))
			raw = max(raw, v)
		}
		if all, _, _ := tr.probeAll(); raw != tc.raw || all != tc.all {
			t.Errorf("%s: probeRows %v, probeAll %v; want %v and %v", tc.name, raw, all, tc.raw, tc.all)
		}
		for _, c := range []float64{1e-3, 1, 1e3} {
			// A LossDiff literal whose Full has no WeightedGradSum
			// (NewLossDiff refuses it) panics in its fast path: Train
			// refuses it before the first step.
			ft := fastTrainer(tc.m, c)
			err := ft.checkFastPath()
			if refused := noWeightedSum[tc.name]; (err != nil) != refused || (refused && !strings.Contains(err.Error(), "WeightedGradSum")) {
				t.Errorf("%s: clip norm %v: fast path check %v, want an error %v", tc.name, c, err, refused)
			}
			if ft.fastUnchecked != "" {
				t.Errorf("%s: clip norm %v: fast path not checked: %s", tc.name, c, ft.fastUnchecked)
			}
		}
	}
}

// fastTrainer returns a trainer of m with per-example clipping at norm c
// and m's fast path bound, as setPublicTerm binds it.
func fastTrainer(m models.Model, c float64) *trainer {
	tr := &trainer{cfg: Config{Model: m, Clip: ClipPerExample, ClipNorm: c}, p: m.NumParams()}
	tr.clipWeight = func(norm float64) float64 { return clipFactor(norm, c) }
	tr.bindModel(m)
	return tr
}

// TestTrainProbedRelation: the relation Train states for user models that
// hide what their per-example gradient reads. A ridge Linear wrapped in a
// type of its own (delegating methods, no models.RowCountReader) used to
// get add/remove phases; it gets the feature-simulator relation now, with
// a note naming the fix. A model that centres the features by their mean
// used to get add/remove phases as well; it gets none now. A correct
// wrapper of Logistic keeps add/remove.
func TestTrainProbedRelation(t *testing.T) {
	const n = 40
	data, _ := regression(t, n, 3, 3)
	labels := &design.Data{N: n, D: 3, X: data.X, Y: make([]float64, n)}
	for i := range labels.Y {
		labels.Y[i] = float64(i % 2)
	}
	ridge := must(models.NewLinear(3, true, 0.5))
	logit := must(models.NewLogistic(3, true, 0))
	for _, c := range []struct {
		name   string
		m      models.Model
		data   *design.Data
		phases bool
		rel    accounting.Relation
		note   []string // substrings of PhasesNote; nil: no note
	}{
		{"hidden ridge", hiddenRidge{forward{ridge}}, data, true, accounting.RelationFeatureSimulator, []string{"hiddenRidge", "RowCountReader", "Ridge 0", "ProjectRadius"}},
		{"mean-centred", centred{forward{logit}, centreFeatures}, labels, false, accounting.RelationAddRemove, []string{"mechanisms.centred", "other rows", "row i only"}},
		{"wrapped Logistic", wrappedLogistic{forward{logit}}, labels, true, accounting.RelationAddRemove, nil},
	} {
		p := c.m.NumParams()
		plan, _ := DPSGD(p, 1, 1, 0.5*n)
		res := mustTrain(t, Config{Model: c.m, Data: c.data, Steps: 1, Optimizer: SGD{LR: 0.1}, Sampler: Poisson{Rate: 0.5},
			Clip: ClipPerExample, ClipNorm: 1, Noise: plan, NormalizeBy: 0.5 * n})
		if (len(res.Phases) > 0) != c.phases || (c.phases && res.PhasesRelation != c.rel) || (c.note == nil) != (res.PhasesNote == "") {
			t.Errorf("%s: phases %v under %v, note %q; want phases %v under %v", c.name, res.Phases, res.PhasesRelation, res.PhasesNote, c.phases, c.rel)
		}
		for _, s := range c.note {
			if !strings.Contains(res.PhasesNote, s) {
				t.Errorf("%s: note %q does not name %q", c.name, res.PhasesNote, s)
			}
		}
	}
}

// TestCloseGrads: the probe's tolerance absorbs rounding, not a change.
func TestCloseGrads(t *testing.T) {
	for _, c := range []struct {
		a, b []float64
		want bool
	}{
		{[]float64{1, 2}, []float64{1, 2}, true},
		{[]float64{1, 2}, []float64{1, 2 * (1 + 1e-15)}, true},
		{[]float64{1, 2}, []float64{1, 2 * (1 + 1e-6)}, false},
		{[]float64{0, 0}, []float64{0, 0}, true},
		{[]float64{0, 0}, []float64{0, 1e-200}, false},
	} {
		if got := closeGrads(c.a, c.b); got != c.want {
			t.Errorf("closeGrads(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
