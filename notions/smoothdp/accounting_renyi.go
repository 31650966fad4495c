package smoothdp

import (
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/internal/valid"
	"gonum.org/v1/gonum/mat"
)

// GaussianRenyi returns the Rényi divergence of order α > 1 between
// multivariate Gaussians (Lemma C; Gil, Alajaji & Linder 2013) [S]:
//
//	D_α(N(μ₁,Σ₁)‖N(μ₂,Σ₂)) = (α/2)(μ₁−μ₂)ᵀΣ_α⁻¹(μ₁−μ₂) − ln(|Σ_α| / (|Σ₁|^{1−α}|Σ₂|^α)) / (2(α−1)),
//
// with Σ_α = αΣ₂ + (1−α)Σ₁, which must be positive definite (else the
// divergence is +Inf and +Inf is returned). With Σ₁ = Σ₂ = σ²I it is
// α‖μ₁−μ₂‖²/(2σ²), the Gaussian mechanism's RDP (docs/smooth-rdp.md,
// Table 1). Errors: α ≤ 1, mismatched dimensions, non-finite input, or a
// covariance that is not positive definite.
func GaussianRenyi(mu1, mu2 []float64, s1, s2 mat.Symmetric, alpha float64) (float64, error) {
	if err := valid.Above("order α", alpha, 1); err != nil {
		return 0, fmt.Errorf("smoothdp: %w", err)
	}
	d := len(mu1)
	if d == 0 || len(mu2) != d || valid.IsNil(s1) || valid.IsNil(s2) || s1.SymmetricDim() != d || s2.SymmetricDim() != d {
		return 0, errors.New("smoothdp: Gaussian Rényi needs means and covariances of one dimension d ≥ 1")
	}
	diff := mat.NewVecDense(d, nil)
	for i := range mu1 {
		if err := errors.Join(valid.FiniteValue(fmt.Sprintf("μ1[%d]", i), mu1[i]), valid.FiniteValue(fmt.Sprintf("μ2[%d]", i), mu2[i])); err != nil {
			return 0, fmt.Errorf("smoothdp: non-finite mean: %w", err)
		}
		diff.SetVec(i, mu1[i]-mu2[i])
	}
	logdet := func(s mat.Symmetric) (float64, bool) {
		var ch mat.Cholesky
		if !ch.Factorize(s) {
			return 0, false
		}
		return ch.LogDet(), true
	}
	l1, ok1 := logdet(s1)
	l2, ok2 := logdet(s2)
	if !ok1 || !ok2 {
		return 0, errors.New("smoothdp: covariance is not positive definite")
	}
	sa := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			sa.SetSym(i, j, alpha*s2.At(i, j)+(1-alpha)*s1.At(i, j))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sa) {
		return math.Inf(1), nil
	}
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, diff); err != nil {
		return math.Inf(1), nil
	}
	quad := mat.Dot(diff, &x)
	return alpha/2*quad - (ch.LogDet()-(1-alpha)*l1-alpha*l2)/(2*(alpha-1)), nil
}
