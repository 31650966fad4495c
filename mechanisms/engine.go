package mechanisms

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/models"
)

// ClipMode selects how gradients are clipped before noise is added.
type ClipMode int

const (
	// ClipNone does not clip.
	ClipNone ClipMode = iota
	// ClipPerExample clips each per-example gradient a_i (all parameters
	// as one vector) to L2 norm C: a_i·min(1, C/‖a_i‖₂), before summing
	// (DP-SGD; fdp.md §2.3). Required for the accountant's guarantee.
	ClipPerExample
	// ClipBatch clips the L2 norm of the normalised private batch gradient
	// to C before noise, like PyTorch's clip_grad_norm_ (corrdp.md §2.4 and
	// §6 item 14: the CorrDP NN experiments). It bounds no per-example
	// sensitivity. The public gradient (PublicTerm) is never clipped.
	ClipBatch
)

// String names the mode.
func (c ClipMode) String() string {
	switch c {
	case ClipNone:
		return "none"
	case ClipPerExample:
		return "per-example"
	case ClipBatch:
		return "batch"
	}
	return fmt.Sprintf("ClipMode(%d)", int(c))
}

// Normalization selects the divisor of the private gradient sum.
type Normalization int

const (
	// NormalizeExpected divides by the sampler's expected batch size
	// (q·n for Poisson, m for fixed-size batches, n for the full batch):
	// the DP-SGD / Opacus convention, required for the accountant with
	// Poisson sampling (fdp.md §2.3: "m = q·n, NOT |B_priv|").
	NormalizeExpected Normalization = iota
	// NormalizeRealised divides by the realised batch size |B_t| (an
	// empty batch gives a zero gradient). With Poisson sampling the noise
	// then no longer has a fixed multiplier and no phase is reported.
	NormalizeRealised
)

// String names the normalisation.
func (n Normalization) String() string {
	switch n {
	case NormalizeExpected:
		return "expected"
	case NormalizeRealised:
		return "realised"
	}
	return fmt.Sprintf("Normalization(%d)", int(n))
}

// PublicTerm configures the two-batch feature-DP step of fdp.md §2.3
// (Algorithm 1 as implemented in the experiments):
//
//	a_i   = ∇ℓ(θ; x_i) − ∇ℓ_pub(θ; Ψ(x_i))   (SubtractFromPrivate; else ∇ℓ(θ; x_i))
//	g̃_priv = (Σ_{i∈B_priv} clip_C(a_i) + N(0, z²C²I)) / m
//	g_pub = (1/m') Σ_{i∈B_pub} ∇ℓ_pub(θ; Ψ(x_i)),  B_pub uniform of size m'
//	g     = g_pub + α·g̃_priv
//
// B_pub is drawn without replacement from its own stream (PurposePublicSampling),
// independently of B_priv, and the public gradient gets neither noise nor
// clipping. Public-only steps (Config.PublicPretrainSteps) cost no privacy.
type PublicTerm struct {
	// Data is Ψ(X), the public-feature view of Config.Data: the same rows
	// in the same order (Data.N must match), with the columns Model
	// expects. nil means Config.Data itself (for a public model that reads
	// only public columns).
	Data *design.Data
	// Model is the public surrogate loss ℓ_pub; it must have the same
	// number of parameters as Config.Model. nil means Config.Model.
	Model models.Model
	// BatchSize is m', 1 ≤ m' ≤ n. 0 means the expected private batch
	// size rounded to an integer (at least 1) — fdp.md's [ext] default
	// m' = m.
	BatchSize int
	// Alpha is the weight α > 0 of the noisy private gradient (fixed for
	// all steps). No default: α = 1 is DP-SGD's scale.
	Alpha float64
	// SubtractFromPrivate makes the private per-example gradient
	// ∇ℓ(x) − ∇ℓ_pub(Ψ(x)) (ℓ_priv = ℓ − ℓ_pub, fdp.md §2.1) instead of
	// ∇ℓ(x).
	SubtractFromPrivate bool
	// PretrainOnly uses the public term only for the
	// Config.PublicPretrainSteps public steps; the private steps are then
	// plain noisy SGD on ℓ (the "FDP (DP-SGD)" method of fdp.md §2.6).
	PretrainOnly bool
	// SameBatch computes the public gradient of the private steps on the
	// private batch B_priv itself, g_pub = (1/m) Σ_{i∈B_priv} ∇ℓ_pub(θ; Ψ(x_i))
	// with m the expected private batch size, instead of on an independent
	// uniform batch: the single-batch ablation the paper warns against
	// (fdp.md §2.3). It loses amplification by subsampling, so Result.Phases
	// is then empty; account with fdp.SingleBatchEpsilon (notions/fdp).
	// Pre-training steps still use uniform batches of size m'.
	SameBatch bool
}

// Config configures Train. Zero values give the documented defaults; the
// required fields are Model, Data, Steps and Optimizer.
type Config struct {
	// Model is the loss ℓ(θ; x, y) to minimise (required).
	Model models.Model
	// Data holds the training rows (required); Data.D must equal
	// Model.NumFeatures().
	Data *design.Data
	// Init is the initial θ (len NumParams, finite; copied). nil means the
	// model's Init (models.Initializer) with the PurposeInit stream, or
	// zeros if the model has none.
	Init []float64
	// Steps is the number T ≥ 1 of private steps (required).
	Steps int

	// Sampler draws the private batches. nil means FullBatch{}. Stateful
	// samplers are reset (Fresh) at the start of every run.
	Sampler Sampler
	// Clip selects the clipping (default ClipNone).
	Clip ClipMode
	// ClipNorm is C > 0 for ClipPerExample and ClipBatch; it must be 0
	// with ClipNone.
	ClipNorm float64
	// Noise is the Gaussian noise added to the normalised private
	// gradient. nil means no noise (non-private training).
	Noise *NoisePlan
	// Normalize selects the divisor of the gradient sum (default
	// NormalizeExpected).
	Normalize Normalization

	// Optimizer is SGD, Momentum, Adam or your own (required).
	Optimizer Optimizer
	// Schedule multiplies the learning rate at step t (1-based, restarting
	// at 1 after public pre-training). nil means Constant().
	Schedule Schedule
	// ProjectRadius R > 0 projects θ onto the L2 ball {‖θ‖₂ ≤ R} after
	// every step: θ ← θ·min(1, R/‖θ‖). 0 means no projection.
	ProjectRadius float64

	// Public enables the feature-DP public term (see PublicTerm). nil
	// means none.
	Public *PublicTerm
	// PublicPretrainSteps ≥ 0 public-only steps (g = g_pub, no noise, no
	// privacy cost; fdp.md Remark 2) run before the private steps with
	// their own optimizer state. Requires Public.
	PublicPretrainSteps int

	// Average also returns the average iterate θ̄ = (1/T)Σ_{t=1..T} θ_t
	// over the private steps (DP-GD of smoothdp.md §7.2).
	Average bool
	// OnStep, if set, is called after every step with the global step
	// number t (1..PublicPretrainSteps+Steps, pre-training first) and the
	// current θ. theta is the live buffer: read it, do not keep or modify
	// it.
	OnStep func(t int, theta []float64)
	// TraceEvery > 0 records the full-data loss Model.Loss(θ, Data, nil)
	// at global step 0, every TraceEvery steps and at the last step into
	// Result.Trace. 0 records nothing.
	TraceEvery int
	// FullGrad, if set, replaces Model.GradSum over all rows: it must
	// write Σ_{i=1..n} ∇ℓ(θ; x_i, y_i) into out (which Train zeroes
	// first), e.g. the linear sufficient-statistics gradient. It is used
	// only with the FullBatch sampler and without per-example clipping.
	FullGrad func(theta, out []float64)

	// Seed selects the random streams NewStreams(Seed) when Streams is
	// nil.
	Seed uint64
	// Streams, if non-nil, supplies the streams instead of Seed (for
	// example a grid cell's Split(i)).
	Streams *Streams
	// SecureNoise draws the privacy noise from a CryptoSource instead of
	// the seeded Noise stream. Runs are then NOT reproducible.
	SecureNoise bool
}

// TracePoint is one recorded loss value.
type TracePoint struct {
	// Step is the global step (0 = before the first step).
	Step int
	// Loss is Model.Loss(θ, Data, nil) on all rows.
	Loss float64
}

// Result is the outcome of Train.
type Result struct {
	// Theta is the last iterate θ_{T}.
	Theta []float64
	// Average is θ̄ = (1/T)Σ_{t=1..T} θ_t if Config.Average, else nil.
	Average []float64
	// BatchSizes[t−1] is the realised private batch size |B_t|.
	BatchSizes []int
	// MeanBatchSize is the mean of BatchSizes.
	MeanBatchSize float64
	// ExpectedBatchSize is the sampler's expected batch size m.
	ExpectedBatchSize float64
	// PublicBatchSize is m' (0 without a public term).
	PublicBatchSize int
	// Phases are the private steps for the Poisson-subsampled Gaussian
	// accountant: one Phase{SampleRate q, NoiseMultiplier z, Steps T}
	// when the plan has a Multiplier, clipping is per-example, and the
	// sampler is Poisson (q = Rate, normalised by the expected size) or
	// FullBatch (q = 1). Public pre-training adds no phase. The guarantee
	// is (ε, δ)-DP for add/remove neighbours (and feature DP for the
	// two-batch step, fdp.md §2.5); Semi / Weighted plans need the
	// notion-specific accounting of package accounting instead.
	Phases []accounting.Phase
	// PhasesNote explains why Phases is empty (empty when it is not).
	PhasesNote string
	// Trace holds the recorded losses (Config.TraceEvery).
	Trace []TracePoint
}

// exampleChunk is the number of per-example gradients materialised at a
// time.
const exampleChunk = 64

// trainer is a validated configuration plus the run's buffers.
type trainer struct {
	cfg      Config
	model    models.Model
	data     *design.Data
	p, n     int
	sampler  Sampler
	full     bool    // FullBatch sampler
	m        float64 // expected batch size
	sched    Schedule
	radius   float64
	std      []float64 // nil: no noise
	ghostN   models.GradNormer
	ghostW   models.WeightedGradSummer
	pub      bool // public term present
	pubPriv  bool // public term used in private steps
	subtract bool
	pubModel models.Model
	pubData  *design.Data
	pubM     int
	same     bool  // PublicTerm.SameBatch in the private steps
	batch    []int // the last private batch
	alpha    float64
	phases   []accounting.Phase
	note     string

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
	if valid.IsNil(cfg.Model) {
		return nil, errors.New("mechanisms: Config.Model is nil")
	}
	if err := checkDataArg("Config.Data", cfg.Data); err != nil {
		return nil, err
	}
	t.p, t.n = cfg.Model.NumParams(), cfg.Data.N
	if t.p <= 0 {
		return nil, fmt.Errorf("mechanisms: model has %d parameters, want > 0", t.p)
	}
	if err := checkModelData("Config.Data", cfg.Model, cfg.Data); err != nil {
		return nil, err
	}
	if cfg.Steps <= 0 {
		return nil, fmt.Errorf("mechanisms: Config.Steps = %d, want ≥ 1", cfg.Steps)
	}
	if cfg.Init != nil {
		if len(cfg.Init) != t.p {
			return nil, fmt.Errorf("mechanisms: Config.Init has length %d, model has %d parameters", len(cfg.Init), t.p)
		}
		for j, v := range cfg.Init {
			if !valid.Finite(v) {
				return nil, fmt.Errorf("mechanisms: Config.Init[%d] = %v, want finite", j, v)
			}
		}
	}

	// Sampler.
	t.sampler = cfg.Sampler
	if t.sampler == nil {
		t.sampler = FullBatch{}
	}
	if valid.IsNil(t.sampler) {
		return nil, fmt.Errorf("mechanisms: Config.Sampler is a nil %T", t.sampler)
	}
	if err := t.sampler.Validate(t.n); err != nil {
		return nil, fmt.Errorf("mechanisms: Config.Sampler: %w", err)
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
		return nil, fmt.Errorf("mechanisms: expected batch size %v of sampler %T, want finite > 0 (a Poisson rate of 0 samples nothing)", t.m, t.sampler)
	}

	// Clipping, noise, normalisation.
	switch cfg.Clip {
	case ClipNone:
		if cfg.ClipNorm != 0 {
			return nil, fmt.Errorf("mechanisms: Config.ClipNorm = %v with Clip = none (set Clip)", cfg.ClipNorm)
		}
	case ClipPerExample, ClipBatch:
		if !valid.Finite(cfg.ClipNorm) || cfg.ClipNorm <= 0 {
			return nil, fmt.Errorf("mechanisms: Config.ClipNorm = %v with %v clipping, want finite > 0", cfg.ClipNorm, cfg.Clip)
		}
	default:
		return nil, fmt.Errorf("mechanisms: unknown Config.Clip %v", cfg.Clip)
	}
	if err := cfg.Noise.Validate(t.p); err != nil {
		return nil, fmt.Errorf("mechanisms: Config.Noise: %w", err)
	}
	if cfg.Noise != nil {
		t.std = cfg.Noise.Std
	}
	if cfg.Normalize != NormalizeExpected && cfg.Normalize != NormalizeRealised {
		return nil, fmt.Errorf("mechanisms: unknown Config.Normalize %v", cfg.Normalize)
	}

	// Optimisation.
	if valid.IsNil(cfg.Optimizer) {
		return nil, errors.New("mechanisms: Config.Optimizer is nil (use SGD{LR: …}, Momentum or Adam)")
	}
	if err := cfg.Optimizer.Validate(); err != nil {
		return nil, fmt.Errorf("mechanisms: Config.Optimizer: %w", err)
	}
	t.sched = cfg.Schedule
	if t.sched == nil {
		t.sched = Constant()
	}
	if !(cfg.ProjectRadius >= 0) || math.IsInf(cfg.ProjectRadius, -1) {
		return nil, fmt.Errorf("mechanisms: Config.ProjectRadius = %v, want ≥ 0 (0 = no projection)", cfg.ProjectRadius)
	}
	t.radius = cfg.ProjectRadius
	if math.IsInf(t.radius, 1) {
		t.radius = 0
	}
	if cfg.TraceEvery < 0 {
		return nil, fmt.Errorf("mechanisms: Config.TraceEvery = %d, want ≥ 0", cfg.TraceEvery)
	}

	// Public term.
	if cfg.PublicPretrainSteps < 0 {
		return nil, fmt.Errorf("mechanisms: Config.PublicPretrainSteps = %d, want ≥ 0", cfg.PublicPretrainSteps)
	}
	if cfg.PublicPretrainSteps > 0 && cfg.Public == nil {
		return nil, errors.New("mechanisms: Config.PublicPretrainSteps > 0 needs Config.Public")
	}
	if pt := cfg.Public; pt != nil {
		if err := t.setPublic(pt); err != nil {
			return nil, err
		}
	}

	// Ghost clipping: clipped sum from per-example norms, no materialised
	// per-example gradients.
	if cfg.Clip == ClipPerExample && !t.subtract {
		gn, ok1 := cfg.Model.(models.GradNormer)
		gw, ok2 := cfg.Model.(models.WeightedGradSummer)
		if ok1 && ok2 {
			t.ghostN, t.ghostW = gn, gw
		}
	}

	if err := t.setPhases(); err != nil {
		return nil, err
	}
	return t, nil
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
	zEff := minStd * t.m / cfg.ClipNorm
	if z := cfg.Noise.Multiplier; z > zEff*(1+1e-9) {
		return fmt.Errorf("mechanisms: noise plan claims multiplier z = %v but delivers only min σ_j·m/C = %v·%v/%v = %v", z, minStd, t.m, cfg.ClipNorm, zEff)
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
	t.phases = []accounting.Phase{{SampleRate: q, NoiseMultiplier: cfg.Noise.Multiplier, Steps: cfg.Steps}}
	return nil
}

// Train runs noisy gradient descent as configured (see Config, PublicTerm
// and NoisePlan). Each private step t = 1..T:
//
//  1. B_t ← Sampler (stream PurposeSampling);
//  2. s = Σ_{i∈B_t} clip_C(a_i), a_i = ∇ℓ(θ; x_i) [− ∇ℓ_pub(θ; Ψ(x_i))],
//     with per-example clipping, else the plain gradient sum (GradSum,
//     FullGrad, or ghost clipping when the model supports it);
//  3. g̃ = s/m (m expected or realised batch size); with ClipBatch,
//     g̃ ← g̃·min(1, C/‖g̃‖);
//  4. g̃ ← g̃ + b, b ~ N(0, diag σ²) (stream PurposeNoise; exactly P
//     normals per step, even where σ_j = 0);
//  5. with a public term, g = g_pub + α·g̃ (public batch from stream
//     PurposePublicSampling); else g = g̃;
//  6. θ ← Optimizer step with learning-rate multiplier Schedule(t), then
//     projection onto the L2 ball of ProjectRadius.
//
// Public pre-training steps (g = g_pub) run first. The context is checked
// before every step; on cancellation Train returns an error wrapping
// ctx.Err(). A non-finite θ (divergence) or schedule value stops training
// with an error. The same Config gives bit-identical results on every run,
// whatever GOMAXPROCS is (unless SecureNoise).
func Train(ctx context.Context, cfg Config) (*Result, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	t, err := newTrainer(cfg)
	if err != nil {
		return nil, err
	}
	streams := cfg.Streams
	if streams == nil {
		streams = NewStreams(cfg.Seed)
	}
	t.rngS, t.rngP = streams.Sampling(), streams.PublicSampling()
	if cfg.SecureNoise {
		t.rngN = NewCryptoRand()
	} else {
		t.rngN = streams.Noise()
	}
	t.alloc()
	if err := t.init(streams); err != nil {
		return nil, err
	}
	return t.run(ctx)
}

// alloc preallocates the per-run buffers.
func (t *trainer) alloc() {
	p := t.p
	t.theta = make([]float64, p)
	t.grad = make([]float64, p)
	capB := int(math.Min(float64(t.n), t.m+6*math.Sqrt(t.m)+16))
	t.idx = make([]int, 0, capB)
	if t.full {
		t.all = make([]int, t.n)
		for i := range t.all {
			t.all[i] = i
		}
	}
	if t.cfg.Clip == ClipPerExample {
		if t.ghostN != nil {
			t.norms = make([]float64, 0, capB)
			t.weights = make([]float64, 0, capB)
		} else {
			t.pe = make([]float64, exampleChunk*p)
		}
	}
	if t.subtract {
		t.pe2 = make([]float64, max(exampleChunk*p, p))
	}
	if t.pub {
		t.pubGrad = make([]float64, p)
		t.pubIdx = make([]int, 0, t.pubM)
	}
}

// init sets θ₀.
func (t *trainer) init(streams *Streams) error {
	switch {
	case t.cfg.Init != nil:
		copy(t.theta, t.cfg.Init)
		return nil
	default:
		in, ok := t.model.(models.Initializer)
		if !ok {
			return nil // zeros
		}
		in.Init(t.theta, streams.Init())
		for j, v := range t.theta {
			if !valid.Finite(v) {
				return fmt.Errorf("mechanisms: model Init produced θ[%d] = %v", j, v)
			}
		}
		return nil
	}
}

// run executes the pre-training and private steps.
func (t *trainer) run(ctx context.Context) (*Result, error) {
	cfg := t.cfg
	res := &Result{
		BatchSizes:        make([]int, 0, min(cfg.Steps, 1<<20)),
		ExpectedBatchSize: t.m,
		Phases:            t.phases,
		PhasesNote:        t.note,
	}
	if t.pub {
		res.PublicBatchSize = t.pubM
	}
	var avg []float64
	if cfg.Average {
		avg = make([]float64, t.p)
	}
	total := cfg.PublicPretrainSteps + cfg.Steps
	trace := func(step int) {
		if cfg.TraceEvery > 0 && (step%cfg.TraceEvery == 0 || step == total) {
			res.Trace = append(res.Trace, TracePoint{Step: step, Loss: t.model.Loss(t.theta, t.data, nil)})
		}
	}
	trace(0)

	// Public pre-training.
	if cfg.PublicPretrainSteps > 0 {
		opt := cfg.Optimizer.NewState(t.p)
		for s := 1; s <= cfg.PublicPretrainSteps; s++ {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("mechanisms: training cancelled before public step %d: %w", s, err)
			}
			t.publicGrad()
			if err := t.update(opt, t.pubGrad, s, s); err != nil {
				return nil, err
			}
			if cfg.OnStep != nil {
				cfg.OnStep(s, t.theta)
			}
			trace(s)
		}
	}

	// Private steps.
	opt := cfg.Optimizer.NewState(t.p)
	var sumB float64
	for s := 1; s <= cfg.Steps; s++ {
		global := cfg.PublicPretrainSteps + s
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("mechanisms: training cancelled before step %d: %w", global, err)
		}
		b, err := t.privateGrad()
		if err != nil {
			return nil, fmt.Errorf("mechanisms: step %d: %w", global, err)
		}
		res.BatchSizes = append(res.BatchSizes, b)
		sumB += float64(b)
		g := t.grad
		if t.pubPriv && t.same {
			t.sameBatchPublicGrad()
			for j := range g {
				t.pubGrad[j] += t.alpha * g[j]
			}
			g = t.pubGrad
		} else if t.pubPriv {
			t.publicGrad()
			for j := range g {
				t.pubGrad[j] += t.alpha * g[j]
			}
			g = t.pubGrad
		}
		if err := t.update(opt, g, s, global); err != nil {
			return nil, err
		}
		if avg != nil {
			for j, v := range t.theta {
				avg[j] += v
			}
		}
		if cfg.OnStep != nil {
			cfg.OnStep(global, t.theta)
		}
		trace(global)
	}
	res.MeanBatchSize = sumB / float64(cfg.Steps)
	if avg != nil {
		inv := 1 / float64(cfg.Steps)
		for j := range avg {
			avg[j] *= inv
		}
		res.Average = avg
	}
	res.Theta = t.theta
	return res, nil
}

// update applies one optimizer step with schedule value at local step s,
// projects, and checks for divergence.
func (t *trainer) update(opt OptimizerState, g []float64, s, global int) error {
	lr := t.sched(s)
	if !valid.Finite(lr) || lr < 0 {
		return fmt.Errorf("mechanisms: step %d: schedule value %v, want finite ≥ 0", global, lr)
	}
	opt.Step(t.theta, g, lr)
	if t.radius > 0 {
		projectL2(t.theta, t.radius)
	}
	for j, v := range t.theta {
		if !valid.Finite(v) {
			return fmt.Errorf("mechanisms: step %d: θ[%d] = %v (training diverged; lower the learning rate or clip)", global, j, v)
		}
	}
	return nil
}

// projectL2 projects v onto {‖v‖₂ ≤ r}: v ← v·min(1, r/‖v‖).
func projectL2(v []float64, r float64) {
	n := norm2(v)
	if n > r {
		f := r / n
		for j := range v {
			v[j] *= f
		}
	}
}

// norm2 is the Euclidean norm, scaled to avoid overflow for huge entries.
func norm2(v []float64) float64 {
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	if !math.IsInf(ss, 1) {
		return math.Sqrt(ss)
	}
	var scale float64
	for _, x := range v {
		scale = max(scale, math.Abs(x))
	}
	ss = 0
	for _, x := range v {
		y := x / scale
		ss += y * y
	}
	return scale * math.Sqrt(ss)
}

// clipFactor returns min(1, c/‖v‖) (1 for a zero vector).
func clipFactor(norm, c float64) float64 {
	if norm > c {
		return c / norm
	}
	return 1
}

// sample draws the private batch and checks its indices.
func (t *trainer) sample() ([]int, error) {
	if t.full {
		return t.all, nil
	}
	idx, err := t.sampler.Sample(t.rngS, t.n, t.idx[:0])
	if err != nil {
		return nil, err
	}
	for _, i := range idx {
		if i < 0 || i >= t.n {
			return nil, fmt.Errorf("sampler %T returned row %d outside [0, %d)", t.sampler, i, t.n)
		}
	}
	t.idx = idx
	return idx, nil
}

// privateGrad writes the normalised, clipped, noisy private gradient g̃ into
// t.grad and returns the realised batch size.
func (t *trainer) privateGrad() (int, error) {
	idx, err := t.sample()
	if err != nil {
		return 0, err
	}
	t.batch = idx
	g := t.grad
	clear(g)
	var rows []int // nil = all rows, for the models' full-data fast paths
	if !t.full {
		rows = idx
	}
	b := len(idx)
	switch {
	case b == 0:
	case t.cfg.Clip == ClipPerExample && t.ghostN != nil:
		t.norms = grow(t.norms, b)
		t.weights = grow(t.weights, b)
		t.ghostN.PerExampleGradNorms(t.theta, t.data, rows, t.norms)
		for k, nk := range t.norms {
			t.weights[k] = clipFactor(nk, t.cfg.ClipNorm)
		}
		t.ghostW.WeightedGradSum(t.theta, t.data, rows, t.weights, g)
	case t.cfg.Clip == ClipPerExample:
		t.clippedSum(idx)
	default:
		if t.full && t.cfg.FullGrad != nil {
			t.cfg.FullGrad(t.theta, g)
		} else {
			t.model.GradSum(t.theta, t.data, rows, g)
		}
		if t.subtract {
			pg := t.pe2[:t.p]
			clear(pg)
			t.pubModel.GradSum(t.theta, t.pubData, rows, pg)
			for j := range g {
				g[j] -= pg[j]
			}
		}
	}
	div := t.m
	if t.cfg.Normalize == NormalizeRealised {
		div = float64(b)
	}
	if b > 0 {
		inv := 1 / div
		for j := range g {
			g[j] *= inv
		}
	}
	if t.cfg.Clip == ClipBatch {
		if f := clipFactor(norm2(g), t.cfg.ClipNorm); f < 1 {
			for j := range g {
				g[j] *= f
			}
		}
	}
	if t.std != nil {
		addGaussian(t.rngN, g, t.std)
	}
	return b, nil
}

// clippedSum adds Σ_{i∈idx} clip_C(a_i) into t.grad, materialising
// exampleChunk per-example gradients at a time.
func (t *trainer) clippedSum(idx []int) {
	p, c := t.p, t.cfg.ClipNorm
	g := t.grad
	for start := 0; start < len(idx); start += exampleChunk {
		sub := idx[start:min(start+exampleChunk, len(idx))]
		pe := t.pe[:len(sub)*p]
		t.model.PerExampleGrads(t.theta, t.data, sub, pe)
		if t.subtract {
			pe2 := t.pe2[:len(sub)*p]
			t.pubModel.PerExampleGrads(t.theta, t.pubData, sub, pe2)
			for j := range pe {
				pe[j] -= pe2[j]
			}
		}
		for k := range sub {
			a := pe[k*p : (k+1)*p]
			f := clipFactor(norm2(a), c)
			for j, v := range a {
				g[j] += f * v
			}
		}
	}
}

// publicGrad writes g_pub = (1/m') Σ_{i∈B_pub} ∇ℓ_pub(θ; Ψ(x_i)) into
// t.pubGrad, B_pub uniform of size m' from the public stream.
func (t *trainer) publicGrad() {
	t.pubIdx = UniformSubset{Size: t.pubM}.sample(t.rngP, t.n, t.pubIdx[:0])
	pg := t.pubGrad
	clear(pg)
	t.pubModel.GradSum(t.theta, t.pubData, t.pubIdx, pg)
	inv := 1 / float64(t.pubM)
	for j := range pg {
		pg[j] *= inv
	}
}

// sameBatchPublicGrad writes g_pub = (1/m) Σ_{i∈B_priv} ∇ℓ_pub(θ; Ψ(x_i))
// into t.pubGrad (PublicTerm.SameBatch).
func (t *trainer) sameBatchPublicGrad() {
	pg := t.pubGrad
	clear(pg)
	if len(t.batch) == 0 {
		return
	}
	rows := t.batch
	if t.full {
		rows = nil
	}
	t.pubModel.GradSum(t.theta, t.pubData, rows, pg)
	div := t.m
	if t.cfg.Normalize == NormalizeRealised {
		div = float64(len(t.batch))
	}
	inv := 1 / div
	for j := range pg {
		pg[j] *= inv
	}
}

// grow returns s resized to length n, reallocating if needed.
func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n, n+n/4)
	}
	return s[:n]
}

// checkDataArg returns an error if d is nil or malformed (see design.Data.Check).
func checkDataArg(what string, d *design.Data) error { return d.Check(what) }
