package smoothdp

import (
	"fmt"
	"math"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/internal/valid"
)

// Mechanism names a DP mechanism whose RDP and SRDP curves the paper
// derives (Table 1; Theorems 9–14).
type Mechanism int

const (
	// MechGaussian is the Gaussian mechanism f(S) + N(0, σ²I).
	MechGaussian Mechanism = iota
	// MechLaplace is the Laplace mechanism f(S) + Lap(Δ/ε).
	MechLaplace
	// MechExponential is the exponential mechanism (ε/(2Δ) scaling).
	MechExponential
	// MechDPGD is full-batch noisy gradient descent.
	MechDPGD
	// MechSGDSub is DP-SGD with subsampling (batch of one index).
	MechSGDSub
	// MechSGDIter is DP-SGD with iteration (random stopping).
	MechSGDIter
)

// String names the mechanism ("Gaussian", "DP-GD", …).
func (m Mechanism) String() string {
	switch m {
	case MechGaussian:
		return "Gaussian"
	case MechLaplace:
		return "Laplace"
	case MechExponential:
		return "Exponential"
	case MechDPGD:
		return "DP-GD"
	case MechSGDSub:
		return "DP-SGD (subsampling)"
	case MechSGDIter:
		return "DP-SGD (iteration)"
	}
	return fmt.Sprintf("Mechanism(%d)", int(m))
}

// Preprocessing names a non-private pre-processing step with a known
// sensitivity (Theorem 16; Table 2 of the paper).
type Preprocessing int

const (
	// PreNone is no pre-processing (η = 0, k = 0): the base mechanism.
	PreNone Preprocessing = iota
	// PreDedup is r-approximate deduplication (η = 2Rk).
	PreDedup
	// PreQuant is r-approximate quantization (η = rk).
	PreQuant
	// PreMeanImpute is mean imputation with m = K missing points
	// (η = 2RK/(n − K)).
	PreMeanImpute
	// PrePCA is PCA rank reduction (η = 12R³/g_min if n > 24R²/g_min,
	// else 12√2·R³/g_min; k = n).
	PrePCA
	// PreGeneric takes η and k from the parameters.
	PreGeneric
)

// String names the pre-processing.
func (p Preprocessing) String() string {
	switch p {
	case PreNone:
		return "none"
	case PreDedup:
		return "deduplication"
	case PreQuant:
		return "quantization"
	case PreMeanImpute:
		return "mean imputation"
	case PrePCA:
		return "PCA (rank)"
	case PreGeneric:
		return "generic"
	}
	return fmt.Sprintf("Preprocessing(%d)", int(p))
}

// MechParams are the parameters of a mechanism and of the
// pre-processing before it (Pipeline, MechanismCurves). Unused fields
// are ignored. Defaults: none. A length scale or constant a used curve or
// sensitivity is proportional to (R, QuantR, L, Δ, β) must be > 0: zero,
// the unset value, is an error naming the field, never a free step. L and
// Δ are kept separate; set both to the same value for the paper's L = Δ.
type MechParams struct {
	R     float64 // radius of the instance ball X
	L     float64 // Lipschitz constant of f / u / ℓ
	Delta float64 // global sensitivity of f (Gaussian: ℓ2; Laplace: ℓ1; Exponential: of u)
	Beta  float64 // smoothness in the data argument (Definition 6)
	Sigma float64 // Gaussian noise std (Gaussian, DP-GD, DP-SGD)
	Eps   float64 // ε of Laplace / Exponential
	N     int     // dataset size
	T     int     // iterations (DP-GD, DP-SGD-sub)
	// K is the ℓ0 sensitivity k of dedup / quantization (twice the largest
	// good cluster), the number m of missing points for mean imputation,
	// or k for PreGeneric.
	K int
	// QuantR is the quantization / dedup radius r (quantization η = rK).
	QuantR float64
	// QuantDoubled uses the 2rK variant.
	QuantDoubled bool
	// GMin is the minimum eigengap of PCA.
	GMin float64
	// Eta is η for PreGeneric.
	Eta float64
}

// PipelineBounds is the privacy of a pre-processed pipeline A∘π (Theorem
// 16; one cell of the paper's Table 2): the base mechanism's curves, the
// pipeline's RDP curve in each Theorem 2 form, the group-privacy baseline
// and a printable closed form. Every curve is replace-one (its Loss is an
// accounting.Loss under accounting.RelationReplaceOne); linear curves
// (ε_π(α) = Cα) carry their coefficient.
type PipelineBounds struct {
	Mechanism     Mechanism
	Preprocessing Preprocessing
	Eta           float64 // ℓ_{1,2} sensitivity of π
	K             int     // ℓ0 sensitivity of π
	G             int     // group size min(n, k+1)
	Base          RDPCurve
	SRDP          SRDPCurve
	Conservative  RDPCurve // the conservative form 2ε(2α) + 2ε̃(2α, η)
	MinForm       RDPCurve
	Tight         RDPCurve
	Group         RDPCurve
	// ClosedForm prints the paper-style entry (reconstructed constants).
	ClosedForm string
	// ClosedCoef is the closed form's value: C of ε_π(α) = Cα for
	// Gaussian-type mechanisms, the pure ε for Laplace / Exponential.
	ClosedCoef float64
}

// PreprocessingSensitivity returns the ℓ_{1,2} sensitivity η and the ℓ0
// sensitivity k of a pre-processing step from the parameters (docs/smooth-rdp.md; Theorem 16 uses k = m for mean imputation and k = n
// for PCA). R must be finite > 0 for deduplication, mean imputation and
// PCA, QuantR for quantization, and K ≥ 1 for deduplication and
// quantization (an error names the field).
func PreprocessingSensitivity(pre Preprocessing, p MechParams) (eta float64, k int, err error) {
	if err := requireScale(pre, p); err != nil {
		return 0, 0, err
	}
	if err := requireK(pre, p.K); err != nil {
		return 0, 0, err
	}
	switch pre {
	case PreNone:
		return 0, 0, nil
	case PreDedup:
		return EtaDedup(p.R, p.K), p.K, nil
	case PreQuant:
		return EtaQuant(p.QuantR, p.K, p.QuantDoubled), p.K, nil
	case PreMeanImpute:
		if p.K >= p.N {
			return 0, 0, fmt.Errorf("smoothdp: mean imputation needs m = K < n (K=%d, n=%d)", p.K, p.N)
		}
		return EtaMeanImpute(p.R, p.K, p.N), p.K, nil
	case PrePCA:
		if !(p.GMin > 0) {
			return 0, 0, fmt.Errorf("smoothdp: PCA needs an eigengap g_min > 0 (got %v)", p.GMin)
		}
		if !(float64(p.N) > 24*p.R*p.R/p.GMin) {
			// Zwald–Blanchard needs n > 24R²/g_min; otherwise the
			// unconditional sin Θ bound 12√2·R³/g_min (docs/smooth-rdp.md, PCA sensitivity).
			return EtaPCADim(p.R, p.GMin), p.N, nil
		}
		return EtaPCARank(p.R, p.GMin), p.N, nil
	case PreGeneric:
		return p.Eta, p.K, nil
	}
	return 0, 0, fmt.Errorf("smoothdp: unknown pre-processing %d", int(pre))
}

// requireScale checks the length scale a pre-processing step's η is
// proportional to: the radius R of the instance ball for deduplication,
// mean imputation and PCA (η ∝ R, R, R³), the quantization radius QuantR
// for quantization (η = rk). Zero, its unset value, would make the step
// free (η = 0) and the pipeline as private as the bare mechanism, so it is
// an error naming the field.
func requireScale(pre Preprocessing, p MechParams) error {
	field, v, what := "MechParams.R", p.R, "the public radius of the instance ball X"
	switch pre {
	case PreDedup, PreMeanImpute, PrePCA:
	case PreQuant:
		field, v, what = "MechParams.QuantR", p.QuantR, "the quantization radius r"
	default:
		return nil
	}
	if err := valid.Positive(field, v); err != nil {
		return fmt.Errorf("smoothdp: %v: %w: set it to %s (0 would make the step free, η = 0)", pre, err, what)
	}
	return nil
}

// requireCurveParams checks the constants that mechanism m's Table 1
// curves scale with: Δ and L (Gaussian), L (Laplace, Exponential; their Δ
// and ε are checked by the constructors), L and β (DP-GD, DP-SGD). Zero,
// their unset value, would report the mechanism (L, Δ) or every
// pre-processing step (L, β: ε̃ = 0) as free, so it is an error naming
// the field.
func requireCurveParams(m Mechanism, p MechParams) error {
	type field struct {
		name, what string
		v          float64
	}
	lip := field{"MechParams.L", "the Lipschitz constant of f, u or the loss", p.L}
	var need []field
	switch m {
	case MechGaussian:
		need = []field{{"MechParams.Delta", "the global ℓ2 sensitivity Δ of f", p.Delta}, lip}
	case MechLaplace, MechExponential:
		need = []field{lip}
	case MechDPGD, MechSGDSub, MechSGDIter:
		need = []field{lip, {"MechParams.Beta", "the smoothness β of the loss in the data (Definition 6)", p.Beta}}
	}
	for _, f := range need {
		if err := valid.Positive(f.name, f.v); err != nil {
			return fmt.Errorf("smoothdp: %v: %w: set it to %s (0 would make the curve 0)", m, err, f.what)
		}
	}
	return nil
}

// requireK checks the ℓ0 sensitivity K: at least 1 for deduplication and
// quantization, whose η = 2RK or rK is proportional to it (0, its unset
// value, would make the step free; a changed point moves at least itself),
// and not negative for the generic step.
func requireK(pre Preprocessing, k int) error {
	switch {
	case (pre == PreDedup || pre == PreQuant) && k < 1:
		return fmt.Errorf("smoothdp: %v: MechParams.K = %d, want ≥ 1: set it to the ℓ0 sensitivity k = 2·(largest good cluster) "+
			"(KDedup; 0 would make the step free, η = 0)", pre, k)
	case pre == PreGeneric && k < 0:
		return fmt.Errorf("smoothdp: %v: MechParams.K = %d, want ≥ 0 (the ℓ0 sensitivity of the step)", pre, k)
	}
	return nil
}

// pipelineClosed is the closed form of the conservative pipeline bound
// (docs/smooth-rdp.md; all [R], DP-SGD-iter [D]) — the only place these constants
// live. It returns C with ε_π(α) = Cα (or the pure ε) and the printable
// generic form.
func pipelineClosed(m Mechanism, p MechParams, eta float64, k int) (float64, string) {
	s2 := p.Sigma * p.Sigma
	nf, tf := float64(p.N), float64(p.T)
	switch m {
	case MechGaussian:
		return 2 * (p.Delta*p.Delta + p.L*p.L*eta*eta) / s2, "(2α/σ²)(Δ² + L²η²)"
	case MechLaplace, MechExponential:
		return p.Eps * (1 + p.L*eta/p.Delta), "ε(1 + Lη/Δ)  (pure, every α)"
	case MechDPGD:
		return 2 * tf / (nf * nf * s2) * (4*p.L*p.L + p.Beta*p.Beta*eta*eta), "(2αT/(n²σ²))(4L² + β²η²)"
	case MechSGDSub:
		return 2 * tf / (nf * nf * s2) * (2*cfSGDSubC(nf)*p.L*p.L + p.Beta*p.Beta*eta*eta), "(2αT/(n²σ²))(2cL² + β²η²), c = 8n/(n−1), ω = 1/n"
	case MechSGDIter:
		h := Harmonic(p.N)
		return 4 / (nf * s2) * (4*p.L*p.L*h + p.Beta*p.Beta*eta*eta*(float64(k)-1+h)), "(4α/(nσ²))(4L²H_n + β²η²(k − 1 + H_n))"
	}
	return math.NaN(), "?"
}

// etaFormula prints η of a pre-processing step.
func etaFormula(pre Preprocessing) string {
	switch pre {
	case PreNone:
		return "η = 0"
	case PreDedup:
		return "η = 2Rk"
	case PreQuant:
		return "η = rk"
	case PreMeanImpute:
		return "η = 2Rk/(n − k)"
	case PrePCA:
		return "η = 12R³/g_min"
	}
	return "η given"
}

// MechanismCurves returns the RDP and SRDP curves of a mechanism (Table 1).
// For DP-SGD-sub ω = 1/n (PCA data); for DP-SGD-iter K = k (at least 1).
// The constants the curves scale with must be finite > 0: Δ and L
// (Gaussian), L (Laplace, Exponential), L and β (DP-GD, DP-SGD); an error
// names the unset field.
func MechanismCurves(m Mechanism, p MechParams, k int) (RDPCurve, SRDPCurve, error) {
	var (
		r   RDPCurve
		s   SRDPCurve
		err error
	)
	if err := requireCurveParams(m, p); err != nil {
		return r, s, err
	}
	switch m {
	case MechGaussian:
		if r, err = GaussianRDP(p.Delta, p.Sigma, accounting.RelationReplaceOne); err == nil {
			s, err = GaussianSRDP(p.L, p.Sigma)
		}
	case MechLaplace:
		if r, err = PureRDP(p.Eps, accounting.RelationReplaceOne); err == nil {
			s, err = LaplaceSRDP(p.Eps, p.L, p.Delta)
		}
	case MechExponential:
		if r, err = PureRDP(p.Eps, accounting.RelationReplaceOne); err == nil {
			s, err = ExponentialSRDP(p.Eps, p.L, p.Delta)
		}
	case MechDPGD:
		if r, err = DPGDRDP(p.N, p.T, p.L, p.Sigma); err == nil {
			s, err = DPGDSRDP(p.N, p.T, p.Beta, p.Sigma)
		}
	case MechSGDSub:
		if r, err = SGDSubRDP(p.N, p.T, p.L, p.Sigma); err == nil && p.N > 0 {
			s, err = SGDSubSRDP(p.T, p.Beta, 1/float64(p.N), p.Sigma)
		}
	case MechSGDIter:
		if r, err = SGDIterRDP(p.N, p.L, p.Sigma); err == nil {
			s, err = SGDIterSRDP(p.N, max(k, 1), p.Beta, p.Sigma)
		}
	default:
		err = fmt.Errorf("smoothdp: unknown mechanism %d", int(m))
	}
	return r, s, err
}

// Pipeline returns the privacy of mechanism m after pre-processing pre
// (Theorem 16; the paper's Table 2), with the conservative curve (for
// α ≥ 3/2), the min-form and tight Theorem 2 curves, and the
// group-privacy baseline with g = min(n, k+1). All constants are
// reconstructed (docs/smooth-rdp.md, 'Table 2'). DP-SGD-sub is defined for
// PCA only and DP-SGD-iter not for PCA (the paper's "–" cells): an error
// otherwise.
func Pipeline(m Mechanism, pre Preprocessing, p MechParams) (PipelineBounds, error) {
	eta, k, err := PreprocessingSensitivity(pre, p)
	if err != nil {
		return PipelineBounds{}, err
	}
	if err := valid.NonNegative("η", eta); err != nil {
		return PipelineBounds{}, fmt.Errorf("smoothdp: %w", err)
	}
	if m == MechSGDSub && pre != PrePCA && pre != PreNone {
		return PipelineBounds{}, fmt.Errorf("smoothdp: Table 2 has no DP-SGD (subsampling) entry for %v (ω is only known for PCA)", pre)
	}
	if m == MechSGDIter && pre == PrePCA {
		return PipelineBounds{}, fmt.Errorf("smoothdp: Table 2 has no DP-SGD (iteration) entry for PCA (K = n)")
	}
	if pre == PreDedup && (m == MechDPGD || m == MechSGDSub || m == MechSGDIter) && p.L > 2*p.R*p.Beta {
		// A removed point ⊥ has zero gradient: its change is charged β·2R
		// by the SRDP bookkeeping, which bounds the true change L only if
		// L ≤ 2Rβ.
		return PipelineBounds{}, fmt.Errorf("smoothdp: dedup × %v needs L ≤ 2Rβ (L=%g, R=%g, β=%g)", m, p.L, p.R, p.Beta)
	}
	base, srdp, err := MechanismCurves(m, p, k)
	if err != nil {
		return PipelineBounds{}, fmt.Errorf("table 2 %v × %v: %w", m, pre, err)
	}
	e := PipelineBounds{Mechanism: m, Preprocessing: pre, Eta: eta, K: k, Base: base, SRDP: srdp}
	if p.N > 0 {
		e.G = GroupSize(p.N, k)
	} else {
		e.G = k + 1
	}
	for _, f := range []struct {
		form Theorem2Form
		dst  *RDPCurve
	}{{Conservative, &e.Conservative}, {MinForm, &e.MinForm}, {Tight, &e.Tight}} {
		if *f.dst, err = PipelineCurve(base, srdp, eta, f.form); err != nil {
			return PipelineBounds{}, err
		}
	}
	switch m {
	case MechGaussian:
		e.Group, err = GroupGaussian(p.Delta, p.Sigma, e.G)
	case MechLaplace, MechExponential:
		e.Group, err = GroupPure(p.Eps, e.G)
	case MechDPGD:
		e.Group, err = GroupDPGD(p.N, p.T, p.L, p.Sigma, e.G)
	default:
		c := int(math.Ceil(math.Log2(float64(e.G))))
		e.Group, err = GroupMironov(base, c)
	}
	if err != nil {
		return PipelineBounds{}, err
	}
	coef, form := pipelineClosed(m, p, eta, k)
	e.ClosedCoef = coef
	unit := "·α"
	if m == MechLaplace || m == MechExponential {
		unit = ""
	}
	etaForm := etaFormula(pre)
	if pre == PrePCA && eta == EtaPCADim(p.R, p.GMin) {
		etaForm = "η = 12√2R³/g_min (n ≤ 24R²/g_min)"
	}
	e.ClosedForm = fmt.Sprintf("%s, %s = %.6g → %.6g%s (reconstructed)", form, etaForm, eta, coef, unit)
	return e, nil
}
