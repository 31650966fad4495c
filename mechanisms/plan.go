package mechanisms

import (
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/models"
)

// NoisePlan is the Gaussian noise of one noisy-gradient step: the vector
// b ~ N(0, diag(Std²)) added to the NORMALISED (batch-averaged, clipped)
// private gradient, coordinate j of b having standard deviation Std[j]
// (docs/corrdp.md, b ~ N(0, diag σ²)). A nil *NoisePlan means no noise
// (non-private training).
//
// Multiplier, if > 0, is the noise multiplier z recorded for accounting
// (Result.Phases): the std of the noise on the clipped SUM divided by the
// clip norm C. Train checks that the plan really delivers it, i.e.
// z ≤ min_j Std[j]·m/C with per-example clipping at C and normalisation by
// the expected batch size m.
//
// Which plan is accounted how:
//   - DPSGD (and Standard with a Multiplier set) with per-example clipping:
//     the Poisson-subsampled Gaussian accountant (accounting.Phase) gives
//     (ε, δ)-DP, and (ε, δ)-feature-DP for the two-batch step.
//   - Semi, Weighted and FeatureWeights plans (CorrDP, semi-DP) have
//     coordinates with reduced noise: their guarantee is notion-specific
//
// and they carry no Multiplier.
type NoisePlan struct {
	// Std is σ_j ≥ 0 for each of the P parameters.
	Std []float64
	// Multiplier is z ≥ 0 for the accountant; 0 records none.
	Multiplier float64
}

// Validate returns an error unless len(Std) = numParams, every σ_j is
// finite and ≥ 0, and Multiplier is finite and ≥ 0.
func (p *NoisePlan) Validate(numParams int) error {
	if p == nil {
		return nil
	}
	if len(p.Std) != numParams {
		return fmt.Errorf("mechanisms: noise plan has %d standard deviations, model has %d parameters", len(p.Std), numParams)
	}
	for j, s := range p.Std {
		if !valid.Finite(s) || s < 0 {
			return fmt.Errorf("mechanisms: noise plan σ[%d] = %v, want finite ≥ 0", j, s)
		}
	}
	if !valid.Finite(p.Multiplier) || p.Multiplier < 0 {
		return fmt.Errorf("mechanisms: noise plan multiplier z = %v, want finite ≥ 0", p.Multiplier)
	}
	return nil
}

// checkSigma validates a base noise std σ.
func checkSigma(fn string, sigma float64) error {
	if !valid.Finite(sigma) || sigma < 0 {
		return fmt.Errorf("mechanisms: %s: σ = %v, want finite ≥ 0", fn, sigma)
	}
	return nil
}

// Standard returns the plan σ_j = σ for all P parameters (standard DP; the
// "Standard" method of docs/corrdp.md, σ² = σ0²). It has no Multiplier:
// set one yourself, or use DPSGD, to get accounting phases. It returns an
// error if P ≤ 0 or σ is negative or not finite.
func Standard(numParams int, sigma float64) (*NoisePlan, error) {
	if numParams <= 0 {
		return nil, fmt.Errorf("mechanisms: Standard: %d parameters, want > 0", numParams)
	}
	if err := checkSigma("Standard", sigma); err != nil {
		return nil, err
	}
	std := make([]float64, numParams)
	for j := range std {
		std[j] = sigma
	}
	return &NoisePlan{Std: std}, nil
}

// Semi returns the plan σ_j = σ where mask[j] is true (a sensitive
// parameter) and σ_j = 0 elsewhere ("Semi" of docs/corrdp.md: σ_i² = σ0² for
// i ∈ S, 0 for i ∈ U). Its guarantee is not standard DP (docs/corrdp.md
// item 9). It returns an error for an empty mask or a negative or
// non-finite σ.
func Semi(mask []bool, sigma float64) (*NoisePlan, error) {
	if len(mask) == 0 {
		return nil, errors.New("mechanisms: Semi: empty mask")
	}
	if err := checkSigma("Semi", sigma); err != nil {
		return nil, err
	}
	std := make([]float64, len(mask))
	for j, s := range mask {
		if s {
			std[j] = sigma
		}
	}
	return &NoisePlan{Std: std}, nil
}

// Weighted returns the plan σ_j = σ·√w_j, i.e. variance σ_j² = σ²·w_j: the
// CorrDP plan σ_i² = σ0²·TV~(i) with w = 1 on sensitive and w = TV~ on
// insensitive parameters (docs/corrdp.md eq. 4 and §2.4). w = 1 everywhere
// reproduces Standard and w ∈ {0, 1} reproduces Semi, bit for bit. Use
// FeatureWeights to build w from one weight per input feature. It returns
// an error for empty weights, a negative or non-finite weight or σ.
func Weighted(varianceWeights []float64, sigma float64) (*NoisePlan, error) {
	if len(varianceWeights) == 0 {
		return nil, errors.New("mechanisms: Weighted: empty weights")
	}
	if err := checkSigma("Weighted", sigma); err != nil {
		return nil, err
	}
	std := make([]float64, len(varianceWeights))
	for j, w := range varianceWeights {
		if !valid.Finite(w) || w < 0 {
			return nil, fmt.Errorf("mechanisms: Weighted: variance weight %d = %v, want finite ≥ 0", j, w)
		}
		std[j] = sigma * math.Sqrt(w)
	}
	return &NoisePlan{Std: std}, nil
}

// DPSGD returns the DP-SGD plan σ_j = z·C/m with Multiplier z: Gaussian
// noise of std z·C on the sum of per-example gradients clipped to norm C,
// divided by the expected batch size m = q·n (Abadi et al. 2016; Opacus;
// docs/feature-dp.md g̃_priv = (s + N(0, z²C²I))/m). Use it with per-example
// clipping at the same C and normalisation by the expected batch size. It
// returns an error if P ≤ 0, z < 0, C ≤ 0, m ≤ 0 or any is not finite.
func DPSGD(numParams int, multiplier, clipNorm, expectedBatch float64) (*NoisePlan, error) {
	if numParams <= 0 {
		return nil, fmt.Errorf("mechanisms: DPSGD: %d parameters, want > 0", numParams)
	}
	if !valid.Finite(multiplier) || multiplier < 0 {
		return nil, fmt.Errorf("mechanisms: DPSGD: noise multiplier z = %v, want finite ≥ 0", multiplier)
	}
	if !valid.Finite(clipNorm) || clipNorm <= 0 {
		return nil, fmt.Errorf("mechanisms: DPSGD: clip norm C = %v, want finite > 0", clipNorm)
	}
	if !valid.Finite(expectedBatch) || expectedBatch <= 0 {
		return nil, fmt.Errorf("mechanisms: DPSGD: expected batch size m = %v, want finite > 0", expectedBatch)
	}
	sigma := multiplier * clipNorm / expectedBatch
	if !valid.Finite(sigma) {
		return nil, fmt.Errorf("mechanisms: DPSGD: σ = zC/m = %v·%v/%v is not finite", multiplier, clipNorm, expectedBatch)
	}
	p, err := Standard(numParams, sigma)
	if err != nil {
		return nil, err
	}
	p.Multiplier = multiplier
	return p, nil
}

// FirstLayerBiaser is implemented by models whose first layer has a bias
// that is not tied to any input feature (the MLP's b1, a linear model's
// intercept). FeatureWeights gives those parameters biasWeight.
type FirstLayerBiaser interface {
	// FirstLayerBiasParams returns the indices in θ of the first-layer
	// bias (or intercept) parameters.
	FirstLayerBiasParams() []int
}

// FeatureWeights maps one variance weight per input feature onto the
// parameter vector, for Weighted: parameter p gets featureWeights[j] if p
// is in model.FeatureParams(j) (the weight of feature j in a linear model;
// for an MLP, row j of the first-layer weights), biasWeight
// if the model implements FirstLayerBiaser and p is a first-layer bias
// (docs/corrdp.md: under CorrDP paper mode b1 gets TV_max, under Semi 0), and
// otherWeight otherwise (later layers get the full variance: 1).
//
// It returns an error for a nil model, len(featureWeights) ≠
// model.NumFeatures(), a negative or non-finite weight, a parameter index
// out of range, or a parameter claimed by two features or by a feature and
// the bias.
func FeatureWeights(model models.Model, featureWeights []float64, biasWeight, otherWeight float64) ([]float64, error) {
	if model == nil {
		return nil, errors.New("mechanisms: FeatureWeights: nil model")
	}
	d, p := model.NumFeatures(), model.NumParams()
	if p <= 0 || d <= 0 {
		return nil, fmt.Errorf("mechanisms: FeatureWeights: model has %d parameters and %d features, want > 0", p, d)
	}
	if len(featureWeights) != d {
		return nil, fmt.Errorf("mechanisms: FeatureWeights: %d feature weights for a model with %d features", len(featureWeights), d)
	}
	for j, w := range featureWeights {
		if !valid.Finite(w) || w < 0 {
			return nil, fmt.Errorf("mechanisms: FeatureWeights: weight of feature %d = %v, want finite ≥ 0", j, w)
		}
	}
	if !valid.Finite(biasWeight) || biasWeight < 0 {
		return nil, fmt.Errorf("mechanisms: FeatureWeights: bias weight = %v, want finite ≥ 0", biasWeight)
	}
	if !valid.Finite(otherWeight) || otherWeight < 0 {
		return nil, fmt.Errorf("mechanisms: FeatureWeights: other weight = %v, want finite ≥ 0", otherWeight)
	}
	w := make([]float64, p)
	owner := make([]int, p) // 0 = unclaimed, j+1 = feature j, -1 = bias
	for i := range w {
		w[i] = otherWeight
	}
	for j := range d {
		for _, k := range model.FeatureParams(j) {
			if k < 0 || k >= p {
				return nil, fmt.Errorf("mechanisms: FeatureWeights: model says feature %d owns parameter %d, outside [0, %d)", j, k, p)
			}
			if owner[k] != 0 {
				return nil, fmt.Errorf("mechanisms: FeatureWeights: parameter %d belongs to features %d and %d", k, owner[k]-1, j)
			}
			owner[k] = j + 1
			w[k] = featureWeights[j]
		}
	}
	if b, ok := model.(FirstLayerBiaser); ok {
		for _, k := range b.FirstLayerBiasParams() {
			if k < 0 || k >= p {
				return nil, fmt.Errorf("mechanisms: FeatureWeights: first-layer bias parameter %d outside [0, %d)", k, p)
			}
			if owner[k] != 0 {
				return nil, fmt.Errorf("mechanisms: FeatureWeights: parameter %d is both a first-layer bias and owned by feature %d", k, owner[k]-1)
			}
			owner[k] = -1
			w[k] = biasWeight
		}
	}
	return w, nil
}
