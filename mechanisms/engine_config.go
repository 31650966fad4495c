package mechanisms

import (
	"fmt"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
)

// This file holds the configuration and result types of Train.

// ClipMode selects how gradients are clipped before noise is added.
type ClipMode int

const (
	// ClipNone does not clip.
	ClipNone ClipMode = iota
	// ClipPerExample clips each per-example gradient a_i (all parameters
	// as one vector) to L2 norm C: a_i·min(1, C/‖a_i‖₂), before summing
	// (DP-SGD). Required for the accountant's guarantee.
	ClipPerExample
	// ClipBatch clips the L2 norm of the normalised private batch gradient
	// to C before noise, like PyTorch's clip_grad_norm_ (the CorrDP paper's
	// network experiments, docs/corrdp.md). It bounds no per-example
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
	// Poisson sampling (docs/feature-dp.md: "m = q·n, NOT |B_priv|").
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

// PublicTerm configures the two-batch feature-DP step of docs/feature-dp.md
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
	// expects. nil means Config.Data itself, for a public model that reads
	// only the public part of a row (models.PublicPart); with any other
	// model the run reports no phases (Result.PhasesNote), as it does for
	// a Data that is Config.Data or shares its feature array. A copy of
	// the private rows (other arrays, the same values) is not detected:
	// comparing values would make the stated phases depend on the private
	// data; never pass one.
	Data *design.Data
	// Model is the public surrogate loss ℓ_pub; it must have the same
	// number of parameters as Config.Model. nil means Config.Model.
	Model models.Model
	// BatchSize is m', 1 ≤ m' ≤ n. 0 means the expected private batch
	// size rounded to an integer (at least 1) — our default m' = m
	// (docs/feature-dp.md).
	BatchSize int
	// Alpha is the weight α > 0 of the noisy private gradient (fixed for
	// all steps). No default: α = 1 is DP-SGD's scale.
	Alpha float64
	// SubtractFromPrivate makes the private per-example gradient
	// ∇ℓ(x) − ∇ℓ_pub(Ψ(x)) (ℓ_priv = ℓ − ℓ_pub) instead of
	// ∇ℓ(x).
	SubtractFromPrivate bool
	// PretrainOnly uses the public term only for the
	// Config.PublicPretrainSteps public steps; the private steps are then
	// plain noisy SGD on ℓ (the "FDP (DP-SGD)" method of docs/feature-dp.md).
	PretrainOnly bool
	// SameBatch computes the public gradient of the private steps on the
	// private batch B_priv itself, g_pub = (1/m) Σ_{i∈B_priv} ∇ℓ_pub(θ; Ψ(x_i))
	// with m the private term's divisor (NormalizeBy, else the expected
	// private batch size), instead of on an independent uniform batch: the
	// single-batch ablation the paper warns against. It loses
	// amplification by subsampling, so Result.Phases
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
	// zeros if the model has none. Like every field of Config, θ₀ is
	// taken as public: the phases do not cover an Init fitted on the
	// private rows (fit it on public data, or use PublicPretrainSteps).
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
	// NormalizeBy > 0 replaces, with NormalizeExpected, the sampler's
	// expected batch size q·n as the divisor of the private gradient sum
	// (and as the m of the noise check z ≤ min σ_j·m/C): a public value,
	// q times a public row count, keeps the number of rows — private under
	// add/remove — out of the update. The noise plan must be built with
	// the same m (DPSGD's expectedBatch). 0 means q·n.
	NormalizeBy float64

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
	// privacy cost; Remark 2 of the feature-DP paper) run before the private steps with
	// their own optimizer state. Requires Public.
	PublicPretrainSteps int

	// Average also returns the average iterate θ̄ = (1/T)Σ_{t=1..T} θ_t
	// over the private steps (DP-GD of docs/smooth-rdp.md).
	Average bool
	// OnStep, if set, is called after every step with the global step
	// number t (1..PublicPretrainSteps+Steps, pre-training first) and the
	// current θ. theta is the live buffer: read it, do not keep or modify
	// it.
	OnStep func(t int, theta []float64)
	// TraceEvery > 0 records the full-data loss Model.Loss(θ, Data, nil)
	// at global step 0, every TraceEvery steps and at the last step into
	// Result.Trace. 0 records nothing. The losses read every row without
	// noise: a diagnostic, not covered by Result.Phases.
	TraceEvery int
	// FullGrad, if set, replaces Model.GradSum over all rows: it must
	// write Σ_{i=1..n} ∇ℓ(θ; x_i, y_i) into out (which Train zeroes
	// first), e.g. the linear sufficient-statistics gradient. It is used
	// only with the FullBatch sampler and without per-example clipping.
	FullGrad func(theta, out []float64)

	// Mode chooses the randomness: Reproducible (the default) draws
	// everything from seeded streams — NewStreams(Seed), Seed 0 when
	// unset, or Streams — and is not a private release; Secure draws
	// batch sampling, noise and initialisation from the OS CSPRNG and
	// ignores Seed (Streams must then be nil or NewSecureStreams()). A
	// secure Streams in Reproducible mode is an error too (StreamsFor), so
	// Result.Mode always names the randomness actually used.
	Mode Mode
	// Seed selects the random streams NewStreams(Seed) when Streams is
	// nil (Reproducible mode; 0 when unset).
	Seed uint64
	// Streams, if non-nil, supplies the streams instead of Seed (for
	// example a grid cell's Split(i)).
	Streams *Streams
}

// TracePoint is one recorded loss value.
type TracePoint struct {
	// Step is the global step (0 = before the first step).
	Step int
	// Loss is Model.Loss(θ, Data, nil) on all rows.
	Loss float64
}

// Result is the outcome of Train.
//
// What the privacy phases cover: Theta, Average and the iterates OnStep
// sees (post-processing of the noisy gradients). The other fields are
// statistics of the private data for diagnostics, not covered by Phases
// and not to be published with the model: BatchSizes and MeanBatchSize are
// the realised Poisson batch sizes (their law depends on the row count,
// and the accountant assumes them hidden), ExpectedBatchSize is q times
// the data's row count n (a divisor set by NormalizeBy does not hide it),
// and Trace holds noiseless losses on all rows.
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
	// FullBatch (q = 1). Public pre-training adds no phase. Their
	// guarantee holds under PhasesRelation; Semi / Weighted plans need the
	// notion-specific accounting of package accounting instead.
	Phases []accounting.Phase
	// PhasesRelation is the neighbouring relation of Phases:
	//
	//   - accounting.RelationAddRemove ((ε, δ)-DP, Mironov, Talwar &
	//     Zhang 2019) without a public term and with Config.NormalizeBy
	//     set: the divisor is then a public constant;
	//   - accounting.RelationFeatureSimulator with Config.Public (the
	//     public term, pre-training included, reads its rows without
	//     noise, so only feature DP with respect to the columns it reads
	//     holds — Thm 5 of the feature-DP paper; Public.Data must hold
	//     only public columns, which the engine cannot check in general;
	//     a public term on Config.Data itself, Public.Data nil or the same
	//     rows (its feature array), with a model that is not
	//     models.PublicPart protects nothing, and Phases is then empty
	//     with a note; a copy of the rows is not detected, as comparing
	//     values would make the stated phases depend on the private data);
	//   - accounting.RelationFeatureSimulator without NormalizeBy: the
	//     divisor q·n reads the row count n, which an added record
	//     changes, so the added record moves every other record's share
	//     (up to 2C/(q·n) instead of C/(q·n)); the subsampled-Gaussian
	//     bound holds against a simulator that knows n (Def. 6 of the
	//     feature-DP paper with no public column), not against the
	//     smaller dataset. PhasesNote says so;
	//   - accounting.RelationFeatureSimulator, for the same reason, when
	//     the model's per-example loss reads the row count
	//     (models.RowCountReader: Linear with a ridge term (λ/n)‖w‖²),
	//     whatever NormalizeBy is, or when Train finds that it does
	//     without declaring it (a ridge Linear inside a user's wrapper):
	//     before stating phases, Train evaluates the per-example gradient
	//     of a synthetic row at fixed parameters alone, next to a copy of
	//     itself and next to other synthetic rows (never the private
	//     rows, so the relation does not depend on them; a change below
	//     10⁻⁹ of the gradient is not seen). PhasesNote says so. If a
	//     row's gradient changes with another row (mean-centring, batch
	//     statistics), per-example clipping does not bound one record's
	//     influence and Phases is empty with a note. If the model cannot
	//     be evaluated on the synthetic rows (it panics on them, is not
	//     deterministic on them, or its LabelChecker refuses them all),
	//     Phases is empty with a note as well. With per-example clipping,
	//     Train also checks on synthetic rows that the model's fast path
	//     (ClippedGradSum, or PerExampleGradNorms and WeightedGradSum, and
	//     through a LossDiff its Full's DiffClippedGradSum and
	//     DiffGradNorms) adds the clipped sum of its PerExampleGrads, and
	//     returns an error naming the method if it does not.
	PhasesRelation accounting.Relation
	// PhasesNote explains why Phases is empty, or why PhasesRelation is
	// not add/remove without a public term (empty otherwise).
	PhasesNote string
	// Trace holds the recorded losses (Config.TraceEvery).
	Trace []TracePoint
	// Mode is the randomness the run used (Config.Mode): only a Secure
	// run is a private release.
	Mode Mode
}

// streams returns the run's stream tree (StreamsFor with the Config's
// Mode, Seed and Streams).
func (cfg Config) streams() (*Streams, error) {
	st, err := StreamsFor(cfg.Mode, cfg.Seed, cfg.Streams)
	if err != nil {
		return nil, fmt.Errorf("%w (Train: Config.Mode, Config.Streams)", err)
	}
	return st, nil
}
