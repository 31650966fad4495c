package accounting

import (
	"fmt"
	"math"
)

// SmoothMechanism names a Table 1 mechanism (spec §4).
type SmoothMechanism int

const (
	// SmoothMechGaussian is the Gaussian mechanism f(S) + N(0, σ²I).
	SmoothMechGaussian SmoothMechanism = iota
	// SmoothMechLaplace is the Laplace mechanism f(S) + Lap(Δ/ε).
	SmoothMechLaplace
	// SmoothMechExponential is the exponential mechanism (ε/(2Δ) scaling).
	SmoothMechExponential
	// SmoothMechDPGD is full-batch noisy gradient descent.
	SmoothMechDPGD
	// SmoothMechSGDSub is DP-SGD with subsampling (batch of one index).
	SmoothMechSGDSub
	// SmoothMechSGDIter is DP-SGD with iteration (random stopping).
	SmoothMechSGDIter
)

// String names the mechanism as in the paper's Table 1.
func (m SmoothMechanism) String() string {
	switch m {
	case SmoothMechGaussian:
		return "Gaussian"
	case SmoothMechLaplace:
		return "Laplace"
	case SmoothMechExponential:
		return "Exponential"
	case SmoothMechDPGD:
		return "DP-GD"
	case SmoothMechSGDSub:
		return "DP-SGD (subsampling)"
	case SmoothMechSGDIter:
		return "DP-SGD (iteration)"
	}
	return fmt.Sprintf("SmoothMechanism(%d)", int(m))
}

// SmoothPreprocessing names a Table 2 pre-processing column (spec §6).
type SmoothPreprocessing int

const (
	// SmoothPreNone is no pre-processing (η = 0, k = 0): the base mechanism.
	SmoothPreNone SmoothPreprocessing = iota
	// SmoothPreDedup is r-approximate deduplication (η = 2Rk).
	SmoothPreDedup
	// SmoothPreQuant is r-approximate quantization (η = rk).
	SmoothPreQuant
	// SmoothPreMeanImpute is mean imputation with m = K missing points
	// (η = 2RK/(n − K)).
	SmoothPreMeanImpute
	// SmoothPrePCA is PCA rank reduction (η = 12R³/g_min if n > 24R²/g_min,
	// else 12√2·R³/g_min; k = n).
	SmoothPrePCA
	// SmoothPreGeneric takes η and k from the parameters.
	SmoothPreGeneric
)

// String names the pre-processing.
func (p SmoothPreprocessing) String() string {
	switch p {
	case SmoothPreNone:
		return "none"
	case SmoothPreDedup:
		return "deduplication"
	case SmoothPreQuant:
		return "quantization"
	case SmoothPreMeanImpute:
		return "mean imputation"
	case SmoothPrePCA:
		return "PCA (rank)"
	case SmoothPreGeneric:
		return "generic"
	}
	return fmt.Sprintf("SmoothPreprocessing(%d)", int(p))
}

// SmoothTable2Params are the parameters of a Table 2 entry. Unused fields
// are ignored. Defaults: none (zero is a value); L and Δ are kept separate
// (spec §12 A3), set both to the same value for the paper's L = Δ.
type SmoothTable2Params struct {
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
	// or k for SmoothPreGeneric.
	K int
	// QuantR is the quantization / dedup radius r (quantization η = rK).
	QuantR float64
	// QuantDoubled uses the 2rK variant (spec §12 A6).
	QuantDoubled bool
	// GMin is the minimum eigengap of PCA.
	GMin float64
	// Eta is η for SmoothPreGeneric.
	Eta float64
}

// SmoothTable2Entry is one cell of Table 2 (Theorem 16): the base
// mechanism's curves, the pipeline's RDP curve in each Theorem 2 form, the
// group-privacy baseline and a printable closed form. Every curve is
// replace-one; linear curves (ε_π(α) = Cα) carry their coefficient.
type SmoothTable2Entry struct {
	Mechanism     SmoothMechanism
	Preprocessing SmoothPreprocessing
	Eta           float64 // ℓ_{1,2} sensitivity of π
	K             int     // ℓ0 sensitivity of π
	G             int     // group size min(n, k+1)
	Base          SmoothRDPCurve
	SRDP          SmoothSRDPCurve
	PaperStyle    SmoothRDPCurve // Table 2's conservative form 2ε(2α) + 2ε̃(2α, η)
	MinForm       SmoothRDPCurve
	Tight         SmoothRDPCurve
	Group         SmoothRDPCurve
	// ClosedForm prints the paper-style entry (reconstructed constants).
	ClosedForm string
	// ClosedCoef is the closed form's value: C of ε_π(α) = Cα for
	// Gaussian-type mechanisms, the pure ε for Laplace / Exponential.
	ClosedCoef float64
}

// SmoothTable2Eta returns (η, k) of a pre-processing column from the
// parameters (spec §5; Theorem 16 uses k = m for mean imputation and k = n
// for PCA).
func SmoothTable2Eta(pre SmoothPreprocessing, p SmoothTable2Params) (eta float64, k int, err error) {
	switch pre {
	case SmoothPreNone:
		return 0, 0, nil
	case SmoothPreDedup:
		return SmoothEtaDedup(p.R, p.K), p.K, nil
	case SmoothPreQuant:
		return SmoothEtaQuant(p.QuantR, p.K, p.QuantDoubled), p.K, nil
	case SmoothPreMeanImpute:
		if p.K >= p.N {
			return 0, 0, fmt.Errorf("accounting: smoothdp: mean imputation needs m = K < n (K=%d, n=%d)", p.K, p.N)
		}
		return SmoothEtaMeanImpute(p.R, p.K, p.N), p.K, nil
	case SmoothPrePCA:
		if !(p.GMin > 0) {
			return 0, 0, fmt.Errorf("accounting: smoothdp: PCA needs an eigengap g_min > 0 (got %v)", p.GMin)
		}
		if !(float64(p.N) > 24*p.R*p.R/p.GMin) {
			// Zwald–Blanchard needs n > 24R²/g_min; otherwise the
			// unconditional sin Θ bound 12√2·R³/g_min (spec §5.3 step 3).
			return SmoothEtaPCADim(p.R, p.GMin), p.N, nil
		}
		return SmoothEtaPCARank(p.R, p.GMin), p.N, nil
	case SmoothPreGeneric:
		return p.Eta, p.K, nil
	}
	return 0, 0, fmt.Errorf("accounting: smoothdp: unknown pre-processing %d", int(pre))
}

// smoothdpTable2Closed is the closed form of the paper-style Table 2 entry
// (spec §6; all [R], DP-SGD-iter [D]) — the only place these constants
// live. It returns C with ε_π(α) = Cα (or the pure ε) and the printable
// generic form.
func smoothdpTable2Closed(m SmoothMechanism, p SmoothTable2Params, eta float64, k int) (float64, string) {
	s2 := p.Sigma * p.Sigma
	nf, tf := float64(p.N), float64(p.T)
	switch m {
	case SmoothMechGaussian:
		return 2 * (p.Delta*p.Delta + p.L*p.L*eta*eta) / s2, "(2α/σ²)(Δ² + L²η²)"
	case SmoothMechLaplace, SmoothMechExponential:
		return p.Eps * (1 + p.L*eta/p.Delta), "ε(1 + Lη/Δ)  (pure, every α)"
	case SmoothMechDPGD:
		return 2 * tf / (nf * nf * s2) * (4*p.L*p.L + p.Beta*p.Beta*eta*eta), "(2αT/(n²σ²))(4L² + β²η²)"
	case SmoothMechSGDSub:
		return 2 * tf / (nf * nf * s2) * (2*smoothdpCFSGDSubC(nf)*p.L*p.L + p.Beta*p.Beta*eta*eta), "(2αT/(n²σ²))(2cL² + β²η²), c = 8n/(n−1), ω = 1/n"
	case SmoothMechSGDIter:
		h := SmoothHarmonic(p.N)
		return 4 / (nf * s2) * (4*p.L*p.L*h + p.Beta*p.Beta*eta*eta*(float64(k)-1+h)), "(4α/(nσ²))(4L²H_n + β²η²(k − 1 + H_n))"
	}
	return math.NaN(), "?"
}

// smoothdpEtaForm prints η of a pre-processing column.
func smoothdpEtaForm(pre SmoothPreprocessing) string {
	switch pre {
	case SmoothPreNone:
		return "η = 0"
	case SmoothPreDedup:
		return "η = 2Rk"
	case SmoothPreQuant:
		return "η = rk"
	case SmoothPreMeanImpute:
		return "η = 2Rk/(n − k)"
	case SmoothPrePCA:
		return "η = 12R³/g_min"
	}
	return "η given"
}

// SmoothBaseCurves returns the Table 1 RDP and SRDP curves of a mechanism.
// For DP-SGD-sub ω = 1/n (PCA data); for DP-SGD-iter K = k (at least 1).
func SmoothBaseCurves(m SmoothMechanism, p SmoothTable2Params, k int) (SmoothRDPCurve, SmoothSRDPCurve, error) {
	var (
		r   SmoothRDPCurve
		s   SmoothSRDPCurve
		err error
	)
	switch m {
	case SmoothMechGaussian:
		if r, err = SmoothGaussianRDP(p.Delta, p.Sigma, SmoothReplaceOne); err == nil {
			s, err = SmoothGaussianSRDP(p.L, p.Sigma)
		}
	case SmoothMechLaplace:
		if r, err = SmoothPureRDP(p.Eps, SmoothReplaceOne); err == nil {
			s, err = SmoothLaplaceSRDP(p.Eps, p.L, p.Delta)
		}
	case SmoothMechExponential:
		if r, err = SmoothPureRDP(p.Eps, SmoothReplaceOne); err == nil {
			s, err = SmoothExponentialSRDP(p.Eps, p.L, p.Delta)
		}
	case SmoothMechDPGD:
		if r, err = SmoothDPGDRDP(p.N, p.T, p.L, p.Sigma); err == nil {
			s, err = SmoothDPGDSRDP(p.N, p.T, p.Beta, p.Sigma)
		}
	case SmoothMechSGDSub:
		if r, err = SmoothSGDSubRDP(p.N, p.T, p.L, p.Sigma); err == nil && p.N > 0 {
			s, err = SmoothSGDSubSRDP(p.T, p.Beta, 1/float64(p.N), p.Sigma)
		}
	case SmoothMechSGDIter:
		if r, err = SmoothSGDIterRDP(p.N, p.L, p.Sigma); err == nil {
			s, err = SmoothSGDIterSRDP(p.N, max(k, 1), p.Beta, p.Sigma)
		}
	default:
		err = fmt.Errorf("accounting: smoothdp: unknown mechanism %d", int(m))
	}
	return r, s, err
}

// SmoothTable2 returns the Table 2 entry (Theorem 16) of mechanism m after
// pre-processing pre, with the paper-style curve (the table's conservative
// form, for α ≥ 3/2), the min-form and tight Theorem 2 curves, and the
// group-privacy baseline with g = min(n, k+1). All constants are
// reconstructed (spec §0, §6). DP-SGD-sub is defined for PCA only and
// DP-SGD-iter not for PCA (the paper's "–" cells): an error otherwise.
func SmoothTable2(m SmoothMechanism, pre SmoothPreprocessing, p SmoothTable2Params) (SmoothTable2Entry, error) {
	eta, k, err := SmoothTable2Eta(pre, p)
	if err != nil {
		return SmoothTable2Entry{}, err
	}
	if !(eta >= 0) || math.IsInf(eta, 1) {
		return SmoothTable2Entry{}, fmt.Errorf("accounting: smoothdp: η = %v must be finite and ≥ 0", eta)
	}
	if m == SmoothMechSGDSub && pre != SmoothPrePCA && pre != SmoothPreNone {
		return SmoothTable2Entry{}, fmt.Errorf("accounting: smoothdp: Table 2 has no DP-SGD (subsampling) entry for %v (ω is only known for PCA)", pre)
	}
	if m == SmoothMechSGDIter && pre == SmoothPrePCA {
		return SmoothTable2Entry{}, fmt.Errorf("accounting: smoothdp: Table 2 has no DP-SGD (iteration) entry for PCA (K = n)")
	}
	if pre == SmoothPreDedup && (m == SmoothMechDPGD || m == SmoothMechSGDSub || m == SmoothMechSGDIter) && p.L > 2*p.R*p.Beta {
		// A removed point ⊥ has zero gradient: its change is charged β·2R
		// by the SRDP bookkeeping, which bounds the true change L only if
		// L ≤ 2Rβ (spec §12 A5).
		return SmoothTable2Entry{}, fmt.Errorf("accounting: smoothdp: dedup × %v needs L ≤ 2Rβ (L=%g, R=%g, β=%g; spec §12 A5)", m, p.L, p.R, p.Beta)
	}
	base, srdp, err := SmoothBaseCurves(m, p, k)
	if err != nil {
		return SmoothTable2Entry{}, fmt.Errorf("table 2 %v × %v: %w", m, pre, err)
	}
	e := SmoothTable2Entry{Mechanism: m, Preprocessing: pre, Eta: eta, K: k, Base: base, SRDP: srdp}
	if p.N > 0 {
		e.G = SmoothGroupSize(p.N, k)
	} else {
		e.G = k + 1
	}
	for _, f := range []struct {
		form SmoothTheorem2Form
		dst  *SmoothRDPCurve
	}{{SmoothPaperStyle, &e.PaperStyle}, {SmoothMinForm, &e.MinForm}, {SmoothTight, &e.Tight}} {
		if *f.dst, err = SmoothPipelineCurve(base, srdp, eta, f.form); err != nil {
			return SmoothTable2Entry{}, err
		}
	}
	switch m {
	case SmoothMechGaussian:
		e.Group, err = SmoothGroupGaussian(p.Delta, p.Sigma, e.G)
	case SmoothMechLaplace, SmoothMechExponential:
		e.Group, err = SmoothGroupPure(p.Eps, e.G)
	case SmoothMechDPGD:
		e.Group, err = SmoothGroupDPGD(p.N, p.T, p.L, p.Sigma, e.G)
	default:
		c := int(math.Ceil(math.Log2(float64(e.G))))
		e.Group, err = SmoothGroupMironov(base, c)
	}
	if err != nil {
		return SmoothTable2Entry{}, err
	}
	coef, form := smoothdpTable2Closed(m, p, eta, k)
	e.ClosedCoef = coef
	unit := "·α"
	if m == SmoothMechLaplace || m == SmoothMechExponential {
		unit = ""
	}
	etaForm := smoothdpEtaForm(pre)
	if pre == SmoothPrePCA && eta == SmoothEtaPCADim(p.R, p.GMin) {
		etaForm = "η = 12√2R³/g_min (n ≤ 24R²/g_min)"
	}
	e.ClosedForm = fmt.Sprintf("%s, %s = %.6g → %.6g%s (reconstructed)", form, etaForm, eta, coef, unit)
	return e, nil
}
