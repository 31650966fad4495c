package mechanisms

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/models"
)

// CorrDPLaplace is the CorrDP Laplace mechanism (Defs. 2.8–2.9, Thm. 2.10;
// spec §2.1): it releases f(D) + (Y_1..Y_K), Y_k i.i.d. Laplace with the
// common scale b = Δ_C/ε, where Δ_C = min{Σ_S Δ_j + Σ_U Δ_j·TV(j), Δ} is the
// correlated sensitivity (accounting.CorrDPCorrelatedSensitivity; l1Sens ≤
// 0 means Δ = Σ_k Δ_k). Coordinate k of the query must depend on feature k
// only. Guarantee: (ε, 0)-CorrDP for N-one neighbours (a record changes its
// sensitive block, or one insensitive feature j with budget ε/TV(j)); the
// proof does not cover several insensitive features changing at once (spec
// §6.6). Accuracy: P(‖noise‖_∞ ≤ b·log(K/β)) ≥ 1 − β. It returns the noisy
// vector and b.
func CorrDPLaplace(rng *rand.Rand, value, coordSens []float64, sensitive []bool, tv []float64, l1Sens, eps float64) ([]float64, float64, error) {
	if rng == nil {
		return nil, 0, ErrNilRand
	}
	if !valid.Finite(eps) || eps <= 0 {
		return nil, 0, fmt.Errorf("mechanisms: CorrDPLaplace: ε = %v, want finite > 0", eps)
	}
	if len(value) != len(coordSens) {
		return nil, 0, fmt.Errorf("mechanisms: CorrDPLaplace: %d values, %d sensitivities", len(value), len(coordSens))
	}
	for k, v := range value {
		if !valid.Finite(v) {
			return nil, 0, fmt.Errorf("mechanisms: CorrDPLaplace: value[%d] = %v", k, v)
		}
	}
	dc, err := accounting.CorrDPCorrelatedSensitivity(coordSens, sensitive, tv, l1Sens)
	if err != nil {
		return nil, 0, fmt.Errorf("mechanisms: CorrDPLaplace: %w", err)
	}
	b := dc / eps
	out := append([]float64(nil), value...)
	if b == 0 {
		return out, 0, nil
	}
	for k := range out {
		y, err := Laplace(rng, b)
		if err != nil {
			return nil, 0, fmt.Errorf("mechanisms: CorrDPLaplace: %w", err)
		}
		out[k] += y
	}
	return out, b, nil
}

// CorrDPBiasPolicy says which noise the first-layer bias b1 of an MLP gets
// (spec §2.4, §6.13).
type CorrDPBiasPolicy int

const (
	// CorrDPBiasPaper follows App. E.3/E.5: b1 gets the reduced
	// ("insensitive") scale — weight 0 under Semi and TV_max (the largest
	// insensitive TV) under CorrDP.
	CorrDPBiasPaper CorrDPBiasPolicy = iota
	// CorrDPBiasFull gives b1 the full variance (weight 1): b1 is not
	// tied to any input feature.
	CorrDPBiasFull
)

// CorrDPPlanOptions configure CorrDPPlan.
type CorrDPPlanOptions struct {
	// Floor applies Algorithm 1's max{TV(i), m_s²/m²} (theory mode);
	// false is paper mode (spec §2.4, §6.4). m and m_s count input
	// features (encoded columns).
	Floor bool
	// Bias is the first-layer bias policy for models with one (MLP).
	Bias CorrDPBiasPolicy
}

// CorrDPPlan returns the Gaussian noise plan of CorrDP-SGD (Algorithm 1 /
// paper mode, spec §2.2–2.4) for a model: the variance weight of each
// input feature j is accounting.CorrDPNoiseWeights(method, sensitive, tv,
// Floor) — 1 on S; 0 (Semi), TV(j) (CorrDP) or 1 (Standard) on U — mapped
// onto the parameters by FeatureWeights: the weight of feature j in a GLM,
// row j of the first-layer weights of an MLP (eq. 5); later layers and
// intercepts get 1; an MLP's b1 follows opts.Bias. The plan is σ_p =
// σ0·√w_p, i.e. σ_p² = σ0²·w_p, with σ0² = accounting.CorrDPPaperSigma0Sq
// (paper mode) or CorrDPAlgorithm1Sigma2 (theory). With common random
// numbers, CorrDP with TV ≡ 1 is bit-identical to Standard and with TV ≡ 0
// to Semi (check C19). Use it with Train (Config.Noise); the guarantee is
// the notion-specific one of accounting.CorrDPHonesty, not a Phase.
func CorrDPPlan(model models.Model, method accounting.CorrDPMethod, sensitive []bool, tv []float64, sigma0 float64, opts CorrDPPlanOptions) (*NoisePlan, error) {
	if valid.IsNil(model) {
		return nil, errors.New("mechanisms: CorrDPPlan: nil model")
	}
	if len(sensitive) != model.NumFeatures() {
		return nil, fmt.Errorf("mechanisms: CorrDPPlan: %d S/U flags for a model with %d input features", len(sensitive), model.NumFeatures())
	}
	tvIn := tv
	if tvIn == nil {
		tvIn = make([]float64, len(sensitive))
	}
	fw, err := accounting.CorrDPNoiseWeights(method, sensitive, tvIn, opts.Floor)
	if err != nil {
		return nil, fmt.Errorf("mechanisms: CorrDPPlan: %w", err)
	}
	bias := 1.0
	if opts.Bias == CorrDPBiasPaper {
		bias = 0
		hasU := false
		for j, s := range sensitive {
			if !s {
				hasU = true
				bias = math.Max(bias, fw[j])
			}
		}
		if !hasU || method == accounting.CorrDPStandard {
			bias = 1
		}
	}
	w, err := FeatureWeights(model, fw, bias, 1)
	if err != nil {
		return nil, fmt.Errorf("mechanisms: CorrDPPlan: %w", err)
	}
	p, err := Weighted(w, sigma0)
	if err != nil {
		return nil, fmt.Errorf("mechanisms: CorrDPPlan: %w", err)
	}
	return p, nil
}

// CorrDPNoiseEnergy returns Σ_p σ_p²/σ0² of a plan (the noise energy in
// units of σ0², spec §3.3/§3.5: Sepsis NN 32 / 17 / 21.5, Medical NN
// 201 / 81 / 124.2 for Standard / Semi / CorrDP).
func CorrDPNoiseEnergy(p *NoisePlan, sigma0 float64) float64 {
	if p == nil || !(sigma0 > 0) {
		return 0
	}
	var e float64
	for _, s := range p.Std {
		e += s * s
	}
	return e / (sigma0 * sigma0)
}

// CorrDPColumns returns a copy of d restricted to the columns keep (in
// order): the data of the "Partial" baseline, which drops the sensitive
// columns and fits a non-private model on the insensitive ones (spec §1.6).
func CorrDPColumns(d *design.Data, keep []int) (*design.Data, error) {
	if err := checkDataArg("CorrDPColumns data", d); err != nil {
		return nil, err
	}
	if len(keep) == 0 {
		return nil, errors.New("mechanisms: CorrDPColumns: no columns kept")
	}
	for _, j := range keep {
		if j < 0 || j >= d.D {
			return nil, fmt.Errorf("mechanisms: CorrDPColumns: column %d outside [0, %d)", j, d.D)
		}
	}
	k := len(keep)
	x := make([]float64, d.N*k)
	for i := 0; i < d.N; i++ {
		row := d.X[i*d.D : (i+1)*d.D]
		for a, j := range keep {
			x[i*k+a] = row[j]
		}
	}
	return design.NewData(x, append([]float64(nil), d.Y...), d.N, k)
}
