package fdp

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
)

// Method names one of the methods compared in the Feature-DP paper
// (Sec. 6), plus our single-batch ablation. The string values
// are the method names of the tidy experiment CSVs.
type Method string

const (
	// NonPrivate is ordinary training on full records (no privacy).
	NonPrivate Method = "NonPrivate"
	// PublicOnly trains on the public surrogate ℓ_pub(Ψ(x)) only:
	// (0, 0)-FDP.
	PublicOnly Method = "Public"
	// DP is DP-SGD from scratch on full records: (ε, δ)-DP, hence
	// (ε, δ)-FDP for every Ψ (Prop. 2).
	DP Method = "DP"
	// DPSGD is public pre-training followed by plain DP-SGD on full
	// records: (ε, δ)-FDP (Prop. 2 + Remark 2), not DP.
	DPSGD Method = "FDP-DPSGD"
	// Alg1 is public pre-training followed by Algorithm 1 (two
	// independent batches, ℓ_priv = ℓ − ℓ_pub clipped and noised):
	// (ε, δ)-FDP (Thm 5).
	Alg1 Method = "FDP-Alg1"
	// SingleBatch is Algorithm 1 with the public gradient computed on the
	// private batch: no amplification; accounted with
	// SingleBatchEpsilon (our ablation).
	SingleBatch Method = "FDP-SingleBatch"
)

// Methods lists the methods in the order of docs/feature-dp.md.
func Methods() []Method {
	return []Method{NonPrivate, PublicOnly, DP, DPSGD, Alg1, SingleBatch}
}

// Setup is the common description of a feature-DP training problem from
// which EngineConfig builds the engine configuration of each method. Every
// method is a configuration of Train, not a new loop.
type Setup struct {
	// Model is ℓ on full records; Data the full records (required).
	Model models.Model
	Data  *design.Data
	// PubModel is the public surrogate ℓ_pub (nil: Model) and PubData the
	// public view Ψ(X) or the padded g(Ψ(X)) (nil: Data), same rows as
	// Data. The public term reads them without clipping or noise, so the
	// methods that use it (FDP-Alg1, FDP-SingleBatch, FDP-DPSGD with
	// PretrainSteps) need PubData to be the public view Ψ(X) (ZeroMasking,
	// GaussianPadding), or a PubModel that reads only the public part of a
	// row by construction (models.PublicPart: EmbedLogistic with
	// PublicOnly, LabelSplitSoftmax with PartPublic). EngineConfig refuses
	// anything else for those methods: that "public" gradient would read
	// the private records, and no ε would bound it.
	PubModel models.Model
	PubData  *design.Data

	// Rate is the Poisson rate q = m/n of the private batches.
	Rate float64
	// ExpectedBatch > 0 is the m that divides the private gradient sum and
	// sets σ = z·C/m, instead of Rate·n: q times a public row count keeps
	// the number of rows, private under add/remove, out of the update
	// (mechanisms.Config.NormalizeBy). 0 means Rate·n.
	ExpectedBatch float64
	// Multiplier is the noise multiplier z (std z·C on the clipped sum).
	Multiplier float64
	// Clip is the per-example clip norm C of ∇ℓ_priv (FDP-Alg1,
	// FDP-SingleBatch); DPClip that of ∇ℓ (DP, FDP-DPSGD; 0 means Clip).
	Clip, DPClip float64
	// Steps is the number T of private steps.
	Steps int
	// PretrainSteps public-only steps run before the private steps of
	// FDP-DPSGD, FDP-Alg1 and FDP-SingleBatch (free, Remark 2).
	PretrainSteps int
	// PublicBatch is m' (0: the expected private batch size, rounded).
	PublicBatch int
	// Alpha is the weight α of the noisy private gradient in FDP-Alg1 and
	// FDP-SingleBatch (0 means 1).
	Alpha float64

	// Optimizer is used by every method (required); DPOptimizer, if set,
	// replaces it for DP and FDP-DPSGD (the paper tunes the two separately).
	Optimizer, DPOptimizer mechanisms.Optimizer
	// Schedule is the learning-rate schedule (nil: constant).
	Schedule mechanisms.Schedule
	// ProjectRadius > 0 projects onto an L2 ball after every step.
	ProjectRadius float64

	// NonPrivateSteps and NonPrivateBatch configure NonPrivate and Public
	// training: shuffled epochs of NonPrivateBatch rows (0: the expected
	// private batch size) for NonPrivateSteps steps (0: PretrainSteps +
	// Steps).
	NonPrivateSteps, NonPrivateBatch int

	// Init is θ₀ (nil: the model's initialiser on the Init stream).
	Init []float64
	// Seed or Streams select the random streams (see Config).
	Seed    uint64
	Streams *mechanisms.Streams
	// Mode is the engine's randomness (mechanisms.Mode): Reproducible
	// (default; seeded) or Secure (OS CSPRNG; Seed and a seeded Streams
	// are then not used).
	Mode mechanisms.Mode
	// OnStep, if set, is Config.OnStep: called after every step with the
	// global step number (public pre-training first) and the live θ.
	OnStep func(t int, theta []float64)
}

// EngineConfig returns the Train configuration of method for the problem s:
//
//	NonPrivate       Model on Data, shuffled batches, no clipping/noise
//	Public           PubModel on PubData, shuffled batches, no clipping/noise
//	DP               Poisson(q), per-example clip DPClip, noise z·DPClip, Steps
//	FDP-DPSGD        PretrainSteps public steps, then DP
//	FDP-Alg1         PretrainSteps public steps, then Algorithm 1: private
//	                 model ℓ_priv = ℓ − ℓ_pub (models.LossDiff, ghost norms),
//	                 clip C, noise z·C, independent public batch m', weight α
//	FDP-SingleBatch  as FDP-Alg1 with PublicTerm.SameBatch
//
// Privacy (add/remove neighbours, or FDP_i^Ψ with a simulator): DP, FDP-DPSGD
// and FDP-Alg1 report one Result.Phases entry (q, z, T) — the same ε for
// the same (q, z, T) (Thm 5); FDP-SingleBatch reports none.
func EngineConfig(method Method, s Setup) (mechanisms.Config, error) {
	if valid.IsNil(s.Model) || s.Data == nil {
		return mechanisms.Config{}, errors.New("fdp: EngineConfig: Model and Data are required")
	}
	if valid.IsNil(s.Optimizer) {
		return mechanisms.Config{}, errors.New("fdp: EngineConfig: Optimizer is required")
	}
	if usesPublicTerm(method, s) && !hasPublicView(s) {
		return mechanisms.Config{}, fmt.Errorf("fdp: EngineConfig %s: the public term would read the private records without clipping or noise (PubData unset or Data, and PubModel not a models.PublicPart): set PubData to the public view Ψ(X) (fdp.ZeroMasking, fdp.GaussianPadding), or PubModel to a model that reads only the public part of a row (models.PublicPart)", method)
	}
	if valid.IsNil(s.PubModel) {
		s.PubModel = s.Model
	}
	if s.PubData == nil {
		s.PubData = s.Data
	}
	if s.Data.N <= 0 {
		return mechanisms.Config{}, errors.New("fdp: EngineConfig: empty data")
	}
	base := mechanisms.Config{Schedule: s.Schedule, ProjectRadius: s.ProjectRadius, Init: s.Init, Seed: s.Seed, Streams: s.Streams, Optimizer: s.Optimizer,
		OnStep: s.OnStep, Mode: s.Mode}
	switch method {
	case NonPrivate, PublicOnly:
		return nonPrivateConfig(method, s, base)
	case DP, DPSGD, Alg1, SingleBatch:
		return privateConfig(method, s, base)
	}
	return mechanisms.Config{}, fmt.Errorf("fdp: EngineConfig: unknown method %q", method)
}

// usesPublicTerm reports whether method trains a public term on
// s.PubModel and s.PubData.
func usesPublicTerm(method Method, s Setup) bool {
	return method == Alg1 || method == SingleBatch || (method == DPSGD && s.PretrainSteps > 0)
}

// hasPublicView reports whether s names a public view: PubData other than
// Data, or a PubModel that reads only the public part of a row
// (models.PublicPart).
func hasPublicView(s Setup) bool {
	if s.PubData != nil && s.PubData != s.Data {
		return true
	}
	return !valid.IsNil(s.PubModel) && models.ReadsPublicPartOnly(s.PubModel)
}

// nonPrivateConfig is EngineConfig of NonPrivate and Public (s.PubModel and
// s.PubData set): shuffled batches, no clipping, no noise.
func nonPrivateConfig(method Method, s Setup, base mechanisms.Config) (mechanisms.Config, error) {
	n := s.Data.N
	b := s.NonPrivateBatch
	if b == 0 {
		b = max(1, int(math.Round(s.Rate*float64(n))))
	}
	sm, err := mechanisms.NewShuffledEpochs(min(b, n))
	if err != nil {
		return mechanisms.Config{}, fmt.Errorf("fdp: EngineConfig %s: %w", method, err)
	}
	steps := s.NonPrivateSteps
	if steps == 0 {
		steps = s.PretrainSteps + s.Steps
	}
	cfg := base
	cfg.Model, cfg.Data, cfg.Sampler, cfg.Steps = s.Model, s.Data, sm, steps
	if method == PublicOnly {
		cfg.Model, cfg.Data = s.PubModel, s.PubData
	}
	return cfg, nil
}

// privateConfig is EngineConfig of DP, FDP-DPSGD, FDP-Alg1 and
// FDP-SingleBatch (s.PubModel and s.PubData set).
func privateConfig(method Method, s Setup, base mechanisms.Config) (mechanisms.Config, error) {
	if !(s.Rate > 0 && s.Rate <= 1) {
		return mechanisms.Config{}, fmt.Errorf("fdp: EngineConfig %s: Poisson rate q = %v, want in (0, 1]", method, s.Rate)
	}
	if err := valid.Positive("noise multiplier z", s.Multiplier); err != nil {
		return mechanisms.Config{}, fmt.Errorf("fdp: EngineConfig %s: %w", method, err)
	}
	clip := s.Clip
	if method == DP || method == DPSGD {
		if s.DPClip != 0 {
			clip = s.DPClip
		}
		if !valid.IsNil(s.DPOptimizer) {
			base.Optimizer = s.DPOptimizer
		}
	}
	if err := valid.Positive("clip norm", clip); err != nil {
		return mechanisms.Config{}, fmt.Errorf("fdp: EngineConfig %s: %w", method, err)
	}
	cfg := base
	cfg.Model, cfg.Data, cfg.Steps = s.Model, s.Data, s.Steps
	cfg.Sampler = mechanisms.Poisson{Rate: s.Rate}
	cfg.Clip, cfg.ClipNorm = mechanisms.ClipPerExample, clip
	m := s.Rate * float64(s.Data.N)
	if s.ExpectedBatch != 0 {
		m, cfg.NormalizeBy = s.ExpectedBatch, s.ExpectedBatch
	}
	plan, err := mechanisms.DPSGD(s.Model.NumParams(), s.Multiplier, clip, m)
	if err != nil {
		return mechanisms.Config{}, fmt.Errorf("fdp: EngineConfig %s: %w", method, err)
	}
	cfg.Noise = plan
	switch method {
	case DP:
		return cfg, nil
	case DPSGD:
		if s.PretrainSteps > 0 {
			cfg.Public = &mechanisms.PublicTerm{Model: s.PubModel, Data: s.PubData, BatchSize: s.PublicBatch, Alpha: 1, PretrainOnly: true}
			cfg.PublicPretrainSteps = s.PretrainSteps
		}
		return cfg, nil
	}
	// Algorithm 1 and the single-batch ablation.
	alpha := s.Alpha
	if alpha == 0 {
		alpha = 1
	}
	cfg.Public = &mechanisms.PublicTerm{Model: s.PubModel, Data: s.PubData, BatchSize: s.PublicBatch, Alpha: alpha, SameBatch: method == SingleBatch}
	cfg.PublicPretrainSteps = s.PretrainSteps
	if diff, err := models.NewLossDiff(s.Model, s.PubModel, s.PubData); err == nil {
		cfg.Model = diff // ghost norms of ∇ℓ − ∇ℓ_pub
	} else {
		cfg.Public.SubtractFromPrivate = true // materialised per-example gradients
	}
	return cfg, nil
}

// Train runs EngineConfig(method, s) and returns the result together with
// the final parameters (Result.Theta).
func Train(ctx context.Context, method Method, s Setup) (*mechanisms.Result, error) {
	cfg, err := EngineConfig(method, s)
	if err != nil {
		return nil, err
	}
	res, err := mechanisms.Train(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	return res, nil
}

// Losses returns the privacy losses of a finished run of method under the
// feature simulator relation FDP_i^Ψ, for the ledger (Compose):
//
//	Public           none: nothing private is used, (0, 0)
//	DP, FDP-DPSGD    Result.Losses (Poisson-subsampled Gaussian phases:
//	                 add/remove with ExpectedBatch, moved to FDP_i^Ψ as DP
//	                 implies feature DP, Prop. 2; without it FDP_i^Ψ
//	                 already, the divisor reading the row count; public
//	                 pre-training is free, Remark 2)
//	FDP-Alg1         Result.Losses moved to FDP_i^Ψ: the same curve (Thm 5)
//	FDP-SingleBatch  SingleBatchLoss(Rate, Multiplier, Steps, δ) of s
//
// Errors: NonPrivate (no guarantee), an unknown method, or a private run
// without accountable phases.
func Losses(method Method, s Setup, res *mechanisms.Result, delta float64) ([]accounting.Loss, error) {
	switch method {
	case NonPrivate:
		return nil, errors.New("fdp: Losses: NonPrivate trains on full records without noise: no privacy guarantee")
	case PublicOnly:
		return nil, nil
	case SingleBatch:
		l, err := SingleBatchLoss(s.Rate, s.Multiplier, s.Steps, delta)
		if err != nil {
			return nil, err
		}
		return []accounting.Loss{l}, nil
	case DP, DPSGD, Alg1:
	default:
		return nil, fmt.Errorf("fdp: Losses: unknown method %q", method)
	}
	losses, err := res.Losses()
	if err != nil {
		return nil, fmt.Errorf("fdp: Losses %s: %w", method, err)
	}
	for i, l := range losses {
		p := res.Phases[i]
		if losses[i], err = toFeatureSimulator(l, fmt.Sprintf("%s q=%g z=%g T=%d", method, p.SampleRate, p.NoiseMultiplier, p.Steps)); err != nil {
			return nil, err
		}
	}
	return losses, nil
}

// Epsilon returns the ε at δ of a finished run of method: the ledger's
// (ε, δ) (Compose) of its Losses — the Poisson-subsampled Gaussian RDP
// (Opacus orders, improved conversion) of Result.Phases for DP, FDP-DPSGD
// and FDP-Alg1 (Thm 5), the binomial-GDP bound for FDP-SingleBatch, 0 for
// Public — and +Inf for NonPrivate.
//
// Errors: as Losses and Compose.
func Epsilon(method Method, s Setup, res *mechanisms.Result, delta float64) (float64, error) {
	if method == NonPrivate {
		return math.Inf(1), nil
	}
	losses, err := Losses(method, s, res, delta)
	if err != nil {
		return 0, err
	}
	rep, err := Compose(delta, losses...)
	if err != nil {
		return 0, fmt.Errorf("fdp: Epsilon %s: %w", method, err)
	}
	return rep.Epsilon, nil
}
