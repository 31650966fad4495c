package mechanisms

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/models"
)

// This file validates a Config and builds the trainer (buffers, streams,
// the public term, the privacy phases).

// exampleChunk is the number of per-example gradients materialised at a
// time.
const exampleChunk = 64

// trainer is a validated configuration plus the run's buffers.
type trainer struct {
	cfg     Config
	model   models.Model
	data    *design.Data
	p, n    int
	sampler Sampler
	full    bool    // FullBatch sampler
	m       float64 // expected batch size
	div     float64 // divisor of the private gradient sum (NormalizeBy, else m)
	sched   Schedule
	radius  float64
	std     []float64 // nil: no noise
	// normals holds the step's standard normals, drawn concurrently with
	// the gradient (privateGrad).
	normals []float64
	noiseWG sync.WaitGroup
	// fast is the model's clipped-sum fast path (ghost clipping), bound
	// with per-example clipping only; it is used with weights clipWeight.
	fast fastPath
	// fastUnchecked says why checkFastPath could not check fast (no
	// phase is then stated); "" if it checked it or there is none.
	fastUnchecked string
	probeθ        []float64 // the probe's parameters (probeParams)
	// basePub is the resolved public model; with stochastic set (a
	// models.Stochastic loss), model and pubModel are the keyed copies of
	// Config.Model and basePub for the current step (rekey, stream rngK).
	basePub    models.Model
	stochastic bool
	rngK       *rand.Rand
	clipWeight func(float64) float64
	pub        bool // public term present
	pubPriv    bool // public term used in private steps
	subtract   bool
	pubModel   models.Model
	pubData    *design.Data
	pubM       int
	same       bool  // PublicTerm.SameBatch in the private steps
	batch      []int // the last private batch
	alpha      float64
	phases     []accounting.Phase
	phasesRel  accounting.Relation // the relation Phases hold under
	note       string

	theta, grad, pubGrad, pe, pe2, norms, weights []float64
	idx, pubIdx, all                              []int
	rngS, rngP, rngN                              *rand.Rand
}

// checkModelData validates a model against its data.
func checkModelData(what string, m models.Model, d *design.Data) error {
	if d.D != m.NumFeatures() {
		return fmt.Errorf("mechanisms: %s has %d features, its model expects %d", what, d.D, m.NumFeatures())
	}
	if lc, ok := m.(models.LabelChecker); ok {
		if err := lc.CheckLabels(d); err != nil {
			return fmt.Errorf("mechanisms: %s: %w", what, err)
		}
	}
	return nil
}

// newTrainer validates cfg and resolves its defaults (no buffers yet).
func newTrainer(cfg Config) (*trainer, error) {
	t := &trainer{cfg: cfg, model: cfg.Model, data: cfg.Data}
	for _, step := range []func() error{t.setModel, t.setSampler, t.setNoise, t.setOptimisation, t.setPublicTerm, t.checkFastPath, t.setPhases} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// setModel validates the model, the data, the step count and the initial
// parameters.
func (t *trainer) setModel() error {
	cfg := t.cfg
	if valid.IsNil(cfg.Model) {
		return errors.New("mechanisms: Config.Model is nil")
	}
	if err := checkDataArg("Config.Data", cfg.Data); err != nil {
		return err
	}
	t.p, t.n = cfg.Model.NumParams(), cfg.Data.N
	if t.p <= 0 {
		return fmt.Errorf("mechanisms: model has %d parameters, want > 0", t.p)
	}
	if err := checkModelData("Config.Data", cfg.Model, cfg.Data); err != nil {
		return err
	}
	if cfg.Steps <= 0 {
		return fmt.Errorf("mechanisms: Config.Steps = %d, want ≥ 1", cfg.Steps)
	}
	if cfg.Init != nil {
		if len(cfg.Init) != t.p {
			return fmt.Errorf("mechanisms: Config.Init has length %d, model has %d parameters", len(cfg.Init), t.p)
		}
		for j, v := range cfg.Init {
			if !valid.Finite(v) {
				return fmt.Errorf("mechanisms: Config.Init[%d] = %v, want finite", j, v)
			}
		}
	}
	return nil
}

// setSampler validates the sampler (default FullBatch) and its expected
// batch size.
func (t *trainer) setSampler() error {
	t.sampler = t.cfg.Sampler
	if t.sampler == nil {
		t.sampler = FullBatch{}
	}
	if valid.IsNil(t.sampler) {
		return fmt.Errorf("mechanisms: Config.Sampler is a nil %T", t.sampler)
	}
	if err := t.sampler.Validate(t.n); err != nil {
		return fmt.Errorf("mechanisms: Config.Sampler: %w", err)
	}
	if st, ok := t.sampler.(Stateful); ok {
		t.sampler = st.Fresh()
	}
	switch t.sampler.(type) {
	case FullBatch, *FullBatch:
		t.full = true
	}
	t.m = t.sampler.Expected(t.n)
	if !valid.Finite(t.m) || t.m <= 0 {
		return fmt.Errorf("mechanisms: expected batch size %v of sampler %T, want finite > 0 (a Poisson rate of 0 samples nothing)", t.m, t.sampler)
	}
	t.div = t.m
	switch by := t.cfg.NormalizeBy; {
	case by == 0:
	case !valid.Finite(by) || by < 0:
		return fmt.Errorf("mechanisms: NormalizeBy = %v, want finite > 0 (0: the expected batch size)", by)
	case t.cfg.Normalize != NormalizeExpected:
		return errors.New("mechanisms: NormalizeBy applies to NormalizeExpected only")
	default:
		t.div = by
	}
	return nil
}

// setNoise validates clipping, the noise plan and the normalisation.
func (t *trainer) setNoise() error {
	cfg := t.cfg
	switch cfg.Clip {
	case ClipNone:
		if cfg.ClipNorm != 0 {
			return fmt.Errorf("mechanisms: Config.ClipNorm = %v with Clip = none (set Clip)", cfg.ClipNorm)
		}
	case ClipPerExample, ClipBatch:
		if !valid.Finite(cfg.ClipNorm) || cfg.ClipNorm <= 0 {
			return fmt.Errorf("mechanisms: Config.ClipNorm = %v with %v clipping, want finite > 0", cfg.ClipNorm, cfg.Clip)
		}
	default:
		return fmt.Errorf("mechanisms: unknown Config.Clip %v", cfg.Clip)
	}
	if err := cfg.Noise.Validate(t.p); err != nil {
		return fmt.Errorf("mechanisms: Config.Noise: %w", err)
	}
	if cfg.Noise != nil {
		t.std = cfg.Noise.Std
	}
	if cfg.Normalize != NormalizeExpected && cfg.Normalize != NormalizeRealised {
		return fmt.Errorf("mechanisms: unknown Config.Normalize %v", cfg.Normalize)
	}
	return nil
}

// setOptimisation validates the optimizer, the schedule, the projection
// radius and the trace interval.
func (t *trainer) setOptimisation() error {
	cfg := t.cfg
	if valid.IsNil(cfg.Optimizer) {
		return errors.New("mechanisms: Config.Optimizer is nil (use SGD{LR: …}, Momentum or Adam)")
	}
	if err := cfg.Optimizer.Validate(); err != nil {
		return fmt.Errorf("mechanisms: Config.Optimizer: %w", err)
	}
	t.sched = cfg.Schedule
	if t.sched == nil {
		t.sched = Constant()
	}
	if !(cfg.ProjectRadius >= 0) || math.IsInf(cfg.ProjectRadius, -1) {
		return fmt.Errorf("mechanisms: Config.ProjectRadius = %v, want ≥ 0 (0 = no projection)", cfg.ProjectRadius)
	}
	t.radius = cfg.ProjectRadius
	if math.IsInf(t.radius, 1) {
		t.radius = 0
	}
	if cfg.TraceEvery < 0 {
		return fmt.Errorf("mechanisms: Config.TraceEvery = %d, want ≥ 0", cfg.TraceEvery)
	}
	return nil
}

// setPublicTerm validates public pre-training and the public term, then
// chooses ghost clipping (the clipped sum from per-example norms, no
// materialised per-example gradients) where the model supports it.
func (t *trainer) setPublicTerm() error {
	cfg := t.cfg
	if cfg.PublicPretrainSteps < 0 {
		return fmt.Errorf("mechanisms: Config.PublicPretrainSteps = %d, want ≥ 0", cfg.PublicPretrainSteps)
	}
	if cfg.PublicPretrainSteps > 0 && cfg.Public == nil {
		return errors.New("mechanisms: Config.PublicPretrainSteps > 0 needs Config.Public")
	}
	if pt := cfg.Public; pt != nil {
		if err := t.setPublic(pt); err != nil {
			return err
		}
	}
	if cfg.Clip == ClipPerExample && !t.subtract {
		c := cfg.ClipNorm
		t.clipWeight = func(norm float64) float64 { return clipFactor(norm, c) }
	}
	t.bindModel(cfg.Model)
	t.basePub = t.pubModel
	t.stochastic = models.IsStochastic(cfg.Model) || (t.pub && models.IsStochastic(t.pubModel))
	return nil
}

// bindModel makes m the private model and chooses ghost clipping (norms
// and the clipped sum without materialised per-example gradients) where m
// supports it.
func (t *trainer) bindModel(m models.Model) {
	t.model = m
	if t.clipWeight != nil {
		t.fast = fastPathOf(m)
	}
}

// publicKeySalt separates the key of the public batch's draws from the
// private batch's (models.Stochastic).
const publicKeySalt = 0x9e3779b97f4a7c15

// rekey gives the step's models a fresh key from the model stream when one
// of them is models.Stochastic: the private model and, through LossDiff or
// SubtractFromPrivate, its public part share the key; otherwise the public
// batch's model gets the salted key. Nothing is drawn for other models.
func (t *trainer) rekey() {
	if !t.stochastic {
		return
	}
	key := t.rngK.Uint64()
	if s, ok := t.cfg.Model.(models.Stochastic); ok {
		t.bindModel(s.WithKey(key))
	}
	if s, ok := t.basePub.(models.Stochastic); ok && t.pub {
		if t.subtract { // ∇ℓ(x_i) − ∇ℓ_pub(Ψ(x_i)) shares the draw
			t.pubModel = s.WithKey(key)
		} else {
			t.pubModel = s.WithKey(key ^ publicKeySalt)
		}
	}
}

// setPublic validates and resolves the public term.
func (t *trainer) setPublic(pt *PublicTerm) error {
	t.pub = true
	t.pubPriv = !pt.PretrainOnly
	t.subtract = pt.SubtractFromPrivate && t.pubPriv
	if pt.SameBatch && pt.PretrainOnly {
		return errors.New("mechanisms: Public.SameBatch with PretrainOnly: the private steps have no public term")
	}
	t.same = pt.SameBatch
	if pt.PretrainOnly && t.cfg.PublicPretrainSteps == 0 {
		return errors.New("mechanisms: Public.PretrainOnly with PublicPretrainSteps = 0 would never use the public term")
	}
	if !valid.Finite(pt.Alpha) || pt.Alpha <= 0 {
		return fmt.Errorf("mechanisms: Public.Alpha = %v, want finite > 0 (α weights the private gradient; use PublicPretrainSteps for public-only steps)", pt.Alpha)
	}
	t.alpha = pt.Alpha
	t.pubModel = pt.Model
	if t.pubModel == nil {
		t.pubModel = t.cfg.Model
	}
	if valid.IsNil(t.pubModel) {
		return errors.New("mechanisms: Public.Model is a nil pointer")
	}
	if t.pubModel.NumParams() != t.p {
		return fmt.Errorf("mechanisms: Public.Model has %d parameters, Config.Model has %d", t.pubModel.NumParams(), t.p)
	}
	t.pubData = pt.Data
	if t.pubData == nil {
		t.pubData = t.cfg.Data
	} else if err := checkDataArg("Public.Data", t.pubData); err != nil {
		return err
	}
	if t.pubData.N != t.n {
		return fmt.Errorf("mechanisms: Public.Data has %d rows, Config.Data has %d (Ψ(X) must have the same rows)", t.pubData.N, t.n)
	}
	if err := checkModelData("Public.Data", t.pubModel, t.pubData); err != nil {
		return err
	}
	t.pubM = pt.BatchSize
	if t.pubM < 0 {
		return fmt.Errorf("mechanisms: Public.BatchSize = %d, want ≥ 0 (0 = expected private batch size)", t.pubM)
	}
	if t.pubM == 0 {
		t.pubM = max(1, int(math.Round(t.m)))
	}
	if t.pubM > t.n {
		return fmt.Errorf("mechanisms: Public.BatchSize m' = %d exceeds the %d rows", t.pubM, t.n)
	}
	return nil
}

// setPhases decides what the accountant may be told, and checks that a
// plan's Multiplier is delivered.
func (t *trainer) setPhases() error {
	cfg := t.cfg
	switch {
	case cfg.Noise == nil:
		t.note = "no noise plan: training is not private"
		return nil
	case cfg.Noise.Multiplier == 0:
		t.note = "the noise plan has no Multiplier (Standard/Semi/Weighted plans need notion-specific accounting)"
		return nil
	case cfg.Clip != ClipPerExample:
		t.note = fmt.Sprintf("clipping is %v: the subsampled-Gaussian accountant needs per-example clipping", cfg.Clip)
		return nil
	}
	// Multiplier with per-example clipping: the noise on the clipped sum
	// has std ≥ min_j σ_j·m in every direction, i.e. z_eff = min σ_j·m/C.
	minStd := math.Inf(1)
	for _, s := range t.std {
		minStd = min(minStd, s)
	}
	zEff := minStd * t.div / cfg.ClipNorm
	// The slack covers the float64 rounding of σ = z·C/m and of zEff (a
	// few units in the last place), nothing more: a shortfall of the
	// noise would under-state ε.
	if z := cfg.Noise.Multiplier; z > zEff*(1+multiplierSlack) {
		return fmt.Errorf("mechanisms: noise plan claims multiplier z = %v but delivers only min σ_j·m/C = %v·%v/%v = %v: "+
			"build the plan for this run's divisor m (NormalizeBy, or the expected batch size q·n), mechanisms.DPSGD(%d, %v, %v, %v)",
			z, minStd, t.div, cfg.ClipNorm, zEff, t.p, z, cfg.ClipNorm, t.div)
	}
	var q float64
	switch s := t.sampler.(type) {
	case FullBatch, *FullBatch:
		q = 1
	case Poisson:
		q = s.Rate
	case *Poisson:
		q = s.Rate
	default:
		t.note = fmt.Sprintf("sampler %T is not Poisson or FullBatch: the Poisson-subsampled RDP accountant does not cover it", t.sampler)
		return nil
	}
	if q < 1 && cfg.Normalize != NormalizeExpected {
		t.note = "Poisson batches normalised by the realised size: the noise multiplier is not fixed, no phase"
		return nil
	}
	if t.same && q < 1 {
		t.note = "Public.SameBatch: the public gradient on the private batch reveals which steps sampled a record, so there is no amplification by subsampling; use fdp.SingleBatchEpsilon"
		return nil
	}
	if t.pub && sameRows(t.pubData, cfg.Data) && !models.ReadsPublicPartOnly(t.basePub) {
		t.note = notePublicOnPrivate
		return nil
	}
	// The probe reads synthetic rows only: what it finds depends on the
	// model, not on the private data.
	probe, probed, why := t.probeAll()
	switch {
	case probe == probeOtherRows:
		t.note = noteProbedOtherRows(probed)
		return nil
	case probe == probeUnknown:
		t.note = noteUnprobed(probed, why)
		return nil
	case t.fastUnchecked != "":
		t.note = noteUnprobed(cfg.Model, t.fastUnchecked)
		return nil
	}
	t.phases = []accounting.Phase{{SampleRate: q, NoiseMultiplier: cfg.Noise.Multiplier, Steps: cfg.Steps}}
	t.phasesRel = accounting.RelationAddRemove
	switch {
	case cfg.Public != nil:
		// The public term reads rows without noise: the phases bound
		// only what it does not read (feature DP, Thm 5 / Prop. 2).
		t.phasesRel = accounting.RelationFeatureSimulator
	case cfg.NormalizeBy == 0:
		// The divisor q·n reads the row count, which add/remove
		// neighbours change: only a simulator that knows the count
		// (S and x's presence, nothing of x's values) is matched.
		t.phasesRel = accounting.RelationFeatureSimulator
		t.note = noteRowCount
	case models.ReadsRowCount(cfg.Model):
		// The per-example loss itself reads the row count (a ridge
		// term split over the n rows): an added record moves every
		// other record's clipped gradient, whatever the divisor.
		t.phasesRel = accounting.RelationFeatureSimulator
		t.note = noteModelRowCount
	case probe == probeRowCount:
		// The same, found by the probe in a model that does not
		// declare it (a wrapped ridge Linear, a loss that reads
		// data.N).
		t.phasesRel = accounting.RelationFeatureSimulator
		t.note = noteProbedRowCount(probed)
	}
	return nil
}

// noteModelRowCount is PhasesNote of a run whose model reads the row count
// (models.RowCountReader).
const noteModelRowCount = "the model's per-example loss reads the data's row count n (models.RowCountReader, e.g. a ridge term (λ/n)‖w‖²), " +
	"and n differs between add/remove neighbours (one more record changes every other record's clipped gradient): " +
	"the phases hold under the feature-simulator relation (a simulator that knows the row count) only; " +
	"for add/remove DP use a model whose per-example loss does not read n: a Linear regression with Ridge 0 " +
	"(Config.ProjectRadius bounds θ without reading n), or a per-record penalty (Logistic.L2, Softmax.L2: (λ/2)‖w‖² per record)"

// notePublicOnPrivate is PhasesNote of a run whose public term reads the
// private rows themselves.
const notePublicOnPrivate = "the public term reads Config.Data itself with a model that does not declare models.PublicPart: " +
	"its gradient is an unnoised function of the private records (Ψ(X) = X), so no relation protects anything; " +
	"pass the public view Ψ(X) as Public.Data, or a public model that reads only the public part of a row (models.PublicPart)"

// sameRows reports whether a and b are the same data: the same value or
// the same feature array. It compares identities, never values: a value
// comparison would make whether phases are stated depend on the private
// data (a private column that happens to equal its mask everywhere, a rare
// attribute absent from a small cohort, would give no phase, and one
// record holding it would give phases), so a published result would reveal
// it. A copy of the private rows passed as Public.Data is therefore not
// detected (PublicTerm.Data).
func sameRows(a, b *design.Data) bool {
	return a == b || (a.N == b.N && a.D == b.D && len(a.X) > 0 && len(a.X) == len(b.X) && &a.X[0] == &b.X[0])
}

// multiplierSlack is the relative rounding tolerated between a plan's
// Multiplier and the multiplier its noise delivers (about 20 units in the
// last place).
const multiplierSlack = 1e-14

// noteRowCount is PhasesNote of a run whose divisor reads the row count.
const noteRowCount = "the update divides by the expected batch size q·n of the data's n rows, and n differs between add/remove neighbours " +
	"(one more record moves every other record's share): the phases hold under the feature-simulator relation " +
	"(a simulator that knows the row count) only; set Config.NormalizeBy to q times a public row count for add/remove DP"

// checkDataArg returns an error if d is nil or malformed (see design.Data.Check).
func checkDataArg(what string, d *design.Data) error { return d.Check(what) }
