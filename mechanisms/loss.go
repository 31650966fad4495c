package mechanisms

import (
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/accounting"
)

// NoiseKind names the noise of a Release.
type NoiseKind int

const (
	// UnknownNoise is the zero value: a Release built by hand, whose loss
	// Loss refuses to guess.
	UnknownNoise NoiseKind = iota
	// LaplaceNoise: Laplace noise calibrated to an ℓ1 sensitivity
	// (continuous in Reproducible mode, discrete on a grid in Secure mode).
	LaplaceNoise
	// GaussianNoise: Gaussian noise calibrated to an ℓ2 sensitivity
	// (continuous in Reproducible mode, discrete on a grid in Secure mode).
	GaussianNoise
)

// String names the noise kind.
func (k NoiseKind) String() string {
	switch k {
	case LaplaceNoise:
		return "Laplace"
	case GaussianNoise:
		return "Gaussian"
	}
	return fmt.Sprintf("NoiseKind(%d)", int(k))
}

// Loss returns the privacy loss of the release for the privacy ledger
// (accounting.Ledger), under the neighbouring relation rel for which the
// caller's sensitivity holds (the release cannot know it: a sensitivity
// under replace-one is a different number from one under add/remove).
//
//   - Laplace: pure ε = Sensitivity/Scale (Dwork & Roth 2014, Thm 3.6; in
//     Secure mode the discrete Laplace on the grid with Δ' = Δ + d·g,
//     exactly ε-DP: Canonne, Kamath & Steinke 2020, Prop. 1 / Ghosh et al.
//     2012).
//   - Gaussian, Reproducible mode: the continuous Gaussian with σ = Scale
//     and ℓ2 sensitivity Δ = Sensitivity (RDP αΔ²/(2σ²), and the exact
//     analytic (ε, δ) of Balle & Wang 2018 on the ledger's GDP route).
//   - Gaussian, Secure mode: zCDP ρ = Δ'²/(2σ'²) of the discrete Gaussian
//     on the grid (Canonne, Kamath & Steinke 2020, Thm 4 and, for vectors,
//     Thm 14, whose extra term τ = 10·Σ_{k≥1} exp(−2π²(σ'/g)²·k/(k+1)) is
//     below exp(−π²·2⁷⁸) for σ'/g > 2³⁹, which Granularity guarantees, and
//     so is 0 in float64). The analytic-Gaussian (ε, δ) of the continuous
//     law is not claimed (docs/accounting.md, "Threat model and
//     guarantees").
//
// Errors: a nil release, an unknown noise kind, or a release without a
// positive sensitivity and scale.
func (r *Release) Loss(rel accounting.Relation) (accounting.Loss, error) {
	if r == nil {
		return accounting.Loss{}, errors.New("mechanisms: Release.Loss: nil *Release: use the release returned by LaplaceRelease or GaussianRelease and check its error")
	}
	if !(r.Sensitivity > 0) || !(r.Scale > 0) {
		return accounting.Loss{}, fmt.Errorf("mechanisms: Release.Loss: sensitivity %v and scale %v must be > 0 (a release from LaplaceRelease or GaussianRelease records both)", r.Sensitivity, r.Scale)
	}
	var (
		l   accounting.Loss
		err error
	)
	// Scale is recorded rounded down (ratFloor); roundUp covers the
	// rounding of the float64 arithmetic here, so the loss is never below
	// the exact one.
	switch {
	case r.Kind == LaplaceNoise:
		l, err = accounting.PureLoss(roundUp(r.Sensitivity/r.Scale, 1), rel)
	case r.Kind == GaussianNoise && r.Mode == Secure:
		mu := r.Sensitivity / r.Scale
		l, err = accounting.ZCDPLoss(roundUp(mu*mu/2, 3), rel)
	case r.Kind == GaussianNoise:
		l, err = accounting.GaussianLoss(r.Scale, r.Sensitivity, rel)
	default:
		return accounting.Loss{}, fmt.Errorf("mechanisms: Release.Loss: unknown noise kind %v (LaplaceNoise or GaussianNoise)", r.Kind)
	}
	if err != nil {
		return accounting.Loss{}, fmt.Errorf("mechanisms: Release.Loss (%v): %w", r.Kind, err)
	}
	return l, nil
}

// Losses returns the privacy losses of a training run for the privacy
// ledger: one Poisson-subsampled Gaussian loss per entry of Phases, under
// PhasesRelation — add/remove one record (the relation of the accountant,
// Mironov, Talwar & Zhang 2019) without a public term and with a public
// divisor (Config.NormalizeBy); otherwise the same loss moved to the
// feature-simulator relation (feature DP, Thm 5 and Prop. 2): a public
// term (feature DP's two-batch step, Algorithm 1, or public pre-training)
// reads rows without noise, and a divisor q·n or a model's per-example loss
// (models.RowCountReader: Linear with a ridge term; or found by Train's
// probe of synthetic rows, Result.PhasesRelation) reads the row count, so
// add/remove DP does not hold. Errors: a nil result, or a run whose Phases are empty (the
// error gives PhasesNote: the plan needs its notion's own accounting).
func (r *Result) Losses() ([]accounting.Loss, error) {
	if r == nil {
		return nil, errors.New("mechanisms: Result.Losses: nil *Result: use the result returned by Train and check its error")
	}
	if len(r.Phases) == 0 {
		return nil, fmt.Errorf("mechanisms: Result.Losses: no phase for the subsampled-Gaussian accountant: %s", r.PhasesNote)
	}
	out := make([]accounting.Loss, len(r.Phases))
	for i, p := range r.Phases {
		l, err := accounting.SubsampledGaussianLoss(p)
		if err != nil {
			return nil, fmt.Errorf("mechanisms: Result.Losses: phase %d: %w", i, err)
		}
		if r.PhasesRelation != accounting.RelationAddRemove {
			if l, err = l.ChangeRelation(r.PhasesRelation); err != nil {
				return nil, fmt.Errorf("mechanisms: Result.Losses: phase %d: %w", i, err)
			}
		}
		out[i] = l
	}
	return out, nil
}

// roundUp returns x raised by k units in the last place: an upper bound
// on a value computed with k correctly rounded float64 operations.
func roundUp(x float64, k int) float64 {
	for range k {
		x = math.Nextafter(x, math.Inf(1))
	}
	return x
}
