package corrdp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
)

// Laplace is the CorrDP Laplace mechanism (Defs. 2.8–2.9, Thm. 2.10;
// docs/corrdp.md): it releases f(D) + (Y_1..Y_K), Y_k i.i.d. Laplace with the
// common scale b = Δ_C/ε, where Δ_C = min{Σ_S Δ_j + Σ_U Δ_j·TV(j), Δ} is the
// correlated sensitivity (CorrelatedSensitivity; l1Sens ≤
// 0 means Δ = Σ_k Δ_k). Coordinate k of the query must depend on feature k
// only. Guarantee: (ε, 0)-CorrDP for N-one neighbours (a record changes its
// sensitive block, or one insensitive feature j with budget ε/TV(j)); the
// proof does not cover several insensitive features changing at once. Accuracy: P(‖noise‖_∞ ≤ b·log(K/β)) ≥ 1 − β. It returns the noisy
// vector and b.
func Laplace(rng *rand.Rand, value, coordSens []float64, sensitive []bool, tv []float64, l1Sens, eps float64) ([]float64, float64, error) {
	if rng == nil {
		return nil, 0, mechanisms.ErrNilRand
	}
	if !valid.Finite(eps) || eps <= 0 {
		return nil, 0, fmt.Errorf("corrdp: Laplace: ε = %v, want finite > 0", eps)
	}
	if len(value) != len(coordSens) {
		return nil, 0, fmt.Errorf("corrdp: Laplace: %d values, %d sensitivities", len(value), len(coordSens))
	}
	for k, v := range value {
		if !valid.Finite(v) {
			return nil, 0, fmt.Errorf("corrdp: Laplace: value[%d] = %v", k, v)
		}
	}
	dc, err := CorrelatedSensitivity(coordSens, sensitive, tv, l1Sens)
	if err != nil {
		return nil, 0, fmt.Errorf("corrdp: Laplace: %w", err)
	}
	b := dc / eps
	out := append([]float64(nil), value...)
	if b == 0 {
		return out, 0, nil
	}
	for k := range out {
		y, err := mechanisms.Laplace(rng, b)
		if err != nil {
			return nil, 0, fmt.Errorf("corrdp: Laplace: %w", err)
		}
		out[k] += y
	}
	return out, b, nil
}

// BiasPolicy says which noise the first-layer bias b1 of an MLP gets
// (docs/corrdp.md, 'Where we differ').
type BiasPolicy int

const (
	// BiasReduced follows the CorrDP paper (App. E.3/E.5): b1 gets the reduced
	// ("insensitive") scale — weight 0 under Semi and TV_max (the largest
	// insensitive TV) under CorrDP.
	BiasReduced BiasPolicy = iota
	// BiasFull gives b1 the full variance (weight 1): b1 is not
	// tied to any input feature.
	BiasFull
)

// PlanOptions configure Plan.
type PlanOptions struct {
	// Floor applies Algorithm 1's max{TV(i), m_s²/m²} (theory mode);
	// false is paper mode. m and m_s count input
	// features (encoded columns).
	Floor bool
	// Bias is the first-layer bias policy for models with one (MLP).
	Bias BiasPolicy
}

// Plan returns the Gaussian noise plan of CorrDP-SGD (Algorithm 1 /
// relative-noise mode, Sec. 5) for a model: the variance weight of each
// input feature j is NoiseWeights(method, sensitive, tv,
// Floor) — 1 on S; 0 (Semi), TV(j) (CorrDP) or 1 (Standard) on U — mapped
// onto the parameters by FeatureWeights: the weight of feature j in a GLM,
// row j of the first-layer weights of an MLP (eq. 5); later layers and
// intercepts get 1; an MLP's b1 follows opts.Bias. The plan is σ_p =
// σ0·√w_p, i.e. σ_p² = σ0²·w_p, with σ0² = Sigma0Sq
// (relative-noise, "paper" mode) or Algorithm1Sigma2 (theory). With common random
// numbers, CorrDP with TV ≡ 1 is bit-identical to Standard and with TV ≡ 0
// to Semi. tv may be nil for Standard and Semi; for Corr a nil or short
// tv is an error (never read as TV ≡ 0). Use it with Train (Config.Noise). The plan has no
// accounting.Phase: its honest privacy loss is Noise.Loss (for a GLM,
// PlanNoise(plan, …).Loss), composed on an accounting.Ledger, and
// Honesty sets it beside the paper's claim.
func Plan(model models.Model, method Method, sensitive []bool, tv []float64, sigma0 float64, opts PlanOptions) (*mechanisms.NoisePlan, error) {
	if valid.IsNil(model) {
		return nil, errors.New("corrdp: Plan: nil model")
	}
	if len(sensitive) != model.NumFeatures() {
		return nil, fmt.Errorf("corrdp: Plan: %d S/U flags for a model with %d input features", len(sensitive), model.NumFeatures())
	}
	// tv passes through as given: NoiseWeights ignores it for Standard and
	// Semi and refuses a missing or short one for Corr (TV ≡ 0 would be
	// Semi's zero noise on every insensitive coordinate).
	fw, err := NoiseWeights(method, sensitive, tv, opts.Floor)
	if err != nil {
		return nil, fmt.Errorf("corrdp: Plan: %w", err)
	}
	bias := 1.0
	if opts.Bias == BiasReduced {
		bias = 0
		hasU := false
		for j, s := range sensitive {
			if !s {
				hasU = true
				bias = math.Max(bias, fw[j])
			}
		}
		if !hasU || method == Standard {
			bias = 1
		}
	}
	w, err := mechanisms.FeatureWeights(model, fw, bias, 1)
	if err != nil {
		return nil, fmt.Errorf("corrdp: Plan: %w", err)
	}
	p, err := mechanisms.Weighted(w, sigma0)
	if err != nil {
		return nil, fmt.Errorf("corrdp: Plan: %w", err)
	}
	return p, nil
}

// NoiseEnergy returns Σ_p σ_p²/σ0² of a plan (the noise energy in
// units of σ0²; App. E.3 and E.5: Sepsis NN 32 / 17 / 21.5, Medical NN
// 201 / 81 / 124.2 for Standard / Semi / CorrDP).
func NoiseEnergy(p *mechanisms.NoisePlan, sigma0 float64) float64 {
	if p == nil || !(sigma0 > 0) {
		return 0
	}
	var e float64
	for _, s := range p.Std {
		e += s * s
	}
	return e / (sigma0 * sigma0)
}

// Columns returns a copy of d restricted to the columns keep (in
// order): the data of the "Partial" baseline, which drops the sensitive
// columns and fits a non-private model on the insensitive ones.
func Columns(d *design.Data, keep []int) (*design.Data, error) {
	if err := d.Check("Columns data"); err != nil {
		return nil, err
	}
	if len(keep) == 0 {
		return nil, errors.New("corrdp: Columns: no columns kept")
	}
	for _, j := range keep {
		if j < 0 || j >= d.D {
			return nil, fmt.Errorf("corrdp: Columns: column %d outside [0, %d)", j, d.D)
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

// StepSize returns the theory step size of CorrDP-SGD (CorrDP
// paper, Thm. 3.9): s(t) = D/√((L² + Σ_j σ_j²)·t), with D the radius of the
// parameter ball, L the Lipschitz constant and σ_j the noise plan's
// standard deviations. Use it with mechanisms.SGD{LR: 1} so that η_t = s(t). It
// returns an error if D ≤ 0, L < 0, any σ_j < 0, any is not finite, or
// L² + Σσ² = 0.
func StepSize(radius, lipschitz float64, std []float64) (mechanisms.Schedule, error) {
	if !valid.Finite(radius) || radius <= 0 {
		return nil, fmt.Errorf("corrdp: StepSize: radius D = %v, want finite > 0", radius)
	}
	if !valid.Finite(lipschitz) || lipschitz < 0 {
		return nil, fmt.Errorf("corrdp: StepSize: Lipschitz constant L = %v, want finite ≥ 0", lipschitz)
	}
	g2 := lipschitz * lipschitz
	for j, s := range std {
		if !valid.Finite(s) || s < 0 {
			return nil, fmt.Errorf("corrdp: StepSize: σ[%d] = %v, want finite ≥ 0", j, s)
		}
		g2 += s * s
	}
	if err := valid.Positive("L² + Σσ²", g2); err != nil {
		return nil, fmt.Errorf("corrdp: StepSize: %w", err)
	}
	g := math.Sqrt(g2)
	return func(t int) float64 { return radius / (g * math.Sqrt(float64(t))) }, nil
}

// PlanNoise returns the Noise of a plan whose parameters are the feature
// coordinates — a GLM without intercept, len(p.Std) = len(sensitive) — so
// that the plan's honest privacy loss is PlanNoise(…).Loss(change, rel):
// Sigma2[j] = Std[j]², clip L = lipschitz, n examples, T = steps
// full-batch steps, under the paper model (Leakage false; set it on the
// result for the GLM leakage model). For other models read σ per feature
// from the plan yourself. It returns an error for a nil plan, a length
// mismatch or invalid noise.
func PlanNoise(p *mechanisms.NoisePlan, sensitive []bool, lipschitz float64, n, steps int) (Noise, error) {
	if p == nil {
		return Noise{}, errors.New("corrdp: PlanNoise: nil plan (no noise: no guarantee)")
	}
	if len(p.Std) != len(sensitive) {
		return Noise{}, fmt.Errorf("corrdp: PlanNoise: the plan has %d parameters for %d features; PlanNoise reads a plan whose parameters are the features (a GLM without intercept)", len(p.Std), len(sensitive))
	}
	x := Noise{Sigma2: make([]float64, len(p.Std)), Sensitive: append([]bool(nil), sensitive...), Lipschitz: lipschitz, N: n, Steps: steps}
	for j, s := range p.Std {
		x.Sigma2[j] = s * s
	}
	if err := x.validate(); err != nil {
		return Noise{}, fmt.Errorf("corrdp: PlanNoise: %w", err)
	}
	return x, nil
}
