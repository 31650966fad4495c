package figures

import (
	"context"
	"fmt"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
	"github.com/featuredp/featuredp/notions/corrdp"
)

// Synthetic ridge regression (Fig. 1a, Fig. 2a–d; docs/corrdp.md,
// 'Synthetic experiment').

// SyntheticSettings are the synthetic experiment's settings (Sec. 5.1,
// App. E.1).
type SyntheticSettings struct {
	N, M, Ms int
	NoiseSD  float64
	Alpha    float64
	Steps    int
	Delta    float64
	C        float64 // paper-mode constant (ours: C = 1)
	C2       float64 // UCB constant of Def. 4.3 (ours: 1)
}

// SyntheticDefaults returns the paper's settings for m_s.
func SyntheticDefaults(ms int) SyntheticSettings {
	return SyntheticSettings{N: 2000, M: 100, Ms: ms, NoiseSD: 5, Alpha: 0.001, Steps: 4000, Delta: 1e-4, C: 1, C2: 1}
}

// SyntheticPrep is one synthetic data draw with everything the
// methods need.
type SyntheticPrep struct {
	Settings  SyntheticSettings
	Data      *design.Data
	Stats     *models.LinearStats
	Model     *models.Linear
	ThetaHat  []float64 // exact ridge minimiser (X^TX + I)^{-1}X^Ty
	FHat      float64   // F(θ̂)
	Sensitive []bool
	// TVHat is the plug-in TV^ (eq. 22 with the sample covariance, interval
	// width 4√(log(2m_s/δ))) per column (0 on S); UCBTerm the Def. 4.3 term
	// 2√(log((m−m_s)/δ))/√n for c2 = 1.
	TVHat   []float64
	UCBTerm float64
	// PartialGap is F(θ_P) − F(θ̂) for the ridge fit on the U columns
	// padded with zeros.
	PartialGap float64
	// Hessian is ∇²F = (2/n)(XᵀX + I) (m×m row-major).
	Hessian []float64
}

// NewSyntheticPrep draws the synthetic data with the seed and
// prepares the references and TV estimates.
func NewSyntheticPrep(s SyntheticSettings, seed uint64) (*SyntheticPrep, error) {
	st := mechanisms.NewStreams(seed).Derive("corrdp-synthetic")
	syn, err := NewSynthetic(s.N, s.M, s.Ms, s.NoiseSD, st.Rand("data"))
	if err != nil {
		return nil, err
	}
	d, err := design.NewData(syn.X, syn.Y, s.N, s.M)
	if err != nil {
		return nil, err
	}
	stats, err := models.NewLinearStats(d)
	if err != nil {
		return nil, err
	}
	lin, err := models.NewLinear(s.M, false, 1)
	if err != nil {
		return nil, err
	}
	th, err := stats.Solve(lin)
	if err != nil {
		return nil, err
	}
	p := &SyntheticPrep{Settings: s, Data: d, Stats: stats, Model: lin, ThetaHat: th, FHat: stats.Loss(lin, th)}
	p.Sensitive = make([]bool, s.M)
	for j := 0; j < s.Ms; j++ {
		p.Sensitive[j] = true
	}
	if err := p.estimateTV(syn.X); err != nil {
		return nil, err
	}
	if err := p.partialAndHessian(); err != nil {
		return nil, err
	}
	return p, nil
}

// estimateTV sets TVHat (eq. 22 on the sample covariance of x) and
// UCBTerm.
func (p *SyntheticPrep) estimateTV(x []float64) error {
	s := p.Settings
	_, cov, err := corrdp.Covariance(x, s.N, s.M)
	if err != nil {
		return err
	}
	w, err := SyntheticWidth(s.Ms, s.Delta)
	if err != nil {
		return err
	}
	if p.TVHat, err = SyntheticTV(cov, s.Ms, w); err != nil {
		return err
	}
	p.UCBTerm, err = corrdp.UCBTerm(1, s.M-s.Ms, s.Delta, s.N, 0.5)
	return err
}

// partialAndHessian sets PartialGap (the exact ridge fit on the U
// columns, θ_S = 0) and the Hessian of the objective.
func (p *SyntheticPrep) partialAndHessian() error {
	s, d, stats, lin := p.Settings, p.Data, p.Stats, p.Model
	keep := make([]int, 0, s.M-s.Ms)
	for j := s.Ms; j < s.M; j++ {
		keep = append(keep, j)
	}
	du, err := corrdp.Columns(d, keep)
	if err != nil {
		return err
	}
	lu, _ := models.NewLinear(len(keep), false, 1)
	thu, err := lu.Solve(du)
	if err != nil {
		return err
	}
	full := make([]float64, s.M)
	copy(full[s.Ms:], thu)
	p.PartialGap = stats.Loss(lin, full) - p.FHat
	p.Hessian = make([]float64, s.M*s.M)
	for a := 0; a < s.M; a++ {
		for b := 0; b < s.M; b++ {
			v := stats.G[a*(s.M+1)+b]
			if a == b {
				v++
			}
			p.Hessian[a*s.M+b] = 2 * v / float64(s.N)
		}
	}
	return nil
}

// TVTilde returns TV~ = min{1, TV^ + c2·UCBTerm} per column (Def. 4.3).
func (p *SyntheticPrep) TVTilde(c2 float64) ([]float64, error) {
	return corrdp.UCB(p.TVHat, c2*p.UCBTerm, false)
}

// Run trains one variant at ε with the given seed and returns the utility
// gap F(θ_T) − F(θ̂) and the noise variances used. c2 is the UCB constant
// of the TVs of VariantCorrDP. The NonPrivate run (the same for every ε
// and seed) is computed once per draw and kept in memo (nil: no caching).
func (p *SyntheticPrep) Run(ctx context.Context, memo *experiments.Memo, v Variant, eps, c2 float64, seed uint64) (gap float64, sigma2 []float64, err error) {
	s := p.Settings
	switch v {
	case VariantPartial:
		return p.PartialGap, make([]float64, s.M), nil
	case VariantNonPrivate:
		g, err := memo.Do(fmt.Sprintf("corrdp-synthetic-nonprivate|%p|%d", p, s.Steps), func() (any, error) {
			return p.train(ctx, nil, 0)
		})
		if err != nil {
			return 0, nil, err
		}
		return g.(float64), make([]float64, s.M), nil
	}
	meth, ok := v.Allocation()
	if !ok {
		return 0, nil, fmt.Errorf("unknown variant %v", v)
	}
	tv, err := p.TVTilde(c2)
	if err != nil {
		return 0, nil, err
	}
	s0, err := paperSigma0(s.C, eps, s.Delta)
	if err != nil {
		return 0, nil, err
	}
	plan, err := corrdp.Plan(p.Model, meth, p.Sensitive, tv, s0, corrdp.PlanOptions{})
	if err != nil {
		return 0, nil, err
	}
	if gap, err = p.train(ctx, plan, seed); err != nil {
		return 0, nil, err
	}
	sigma2 = make([]float64, s.M)
	for j, v := range plan.Std {
		sigma2[j] = v * v
	}
	return gap, sigma2, nil
}

// train runs full-batch GD from θ = 0 on the sufficient statistics with
// the noise plan (nil: none) and returns the utility gap.
func (p *SyntheticPrep) train(ctx context.Context, plan *mechanisms.NoisePlan, seed uint64) (float64, error) {
	s := p.Settings
	res, err := mechanisms.Train(ctx, mechanisms.Config{
		Model: p.Model, Data: p.Data, Init: make([]float64, s.M), Steps: s.Steps,
		Optimizer: mechanisms.SGD{LR: s.Alpha}, Noise: plan, Seed: seed,
		FullGrad: func(theta, out []float64) { p.Stats.GradSum(p.Model, theta, out) },
	})
	if err != nil {
		return 0, err
	}
	return p.Stats.Loss(p.Model, res.Theta) - p.FHat, nil
}

func syntheticPrepCached(memo *experiments.Memo, s SyntheticSettings, seed uint64) (*SyntheticPrep, error) {
	key := fmt.Sprintf("corrdp-synthetic|%+v|%d", s, seed)
	v, err := memo.Do(key, func() (any, error) { return NewSyntheticPrep(s, seed) })
	if err != nil {
		return nil, err
	}
	return v.(*SyntheticPrep), nil
}
