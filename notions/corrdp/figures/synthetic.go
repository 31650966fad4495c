package figures

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/notions/corrdp"
	"gonum.org/v1/gonum/mat"
)

// Synthetic is the synthetic ridge-regression data of the CorrDP
// paper (Sec. 5.1, App. E.1).
type Synthetic struct {
	// X is n×m row-major, Y the n responses.
	X, Y []float64
	N, M int
	// Ms is the number of sensitive features: S = the first Ms indices.
	Ms int
	// Mu, Cov are the population mean and covariance, ThetaStar the true
	// coefficients.
	Mu        []float64
	Cov       *mat.SymDense
	ThetaStar []float64
}

// SyntheticCov returns the covariance of the synthetic design (CorrDP
// paper, Sec. 5.1, App. E.1): diagonal 1 on S
// (the first ms indices) and 2 on U, 0.5 between two distinct S features,
// 0.5 between two distinct U features, 0.1 between an S and a U feature.
func SyntheticCov(m, ms int) (*mat.SymDense, error) {
	if m < 2 || ms < 1 || ms >= m {
		return nil, fmt.Errorf("corrdp: SyntheticCov: m = %d, m_s = %d, want 1 ≤ m_s < m", m, ms)
	}
	c := mat.NewSymDense(m, nil)
	for a := 0; a < m; a++ {
		for b := a; b < m; b++ {
			sa, sb := a < ms, b < ms
			var v float64
			switch {
			case a == b && sa:
				v = 1
			case a == b:
				v = 2
			case sa && sb, !sa && !sb:
				v = 0.5
			default:
				v = 0.1
			}
			c.SetSym(a, b, v)
		}
	}
	return c, nil
}

// NewSynthetic draws the synthetic data of App. E.1: X ~ N(μ, Σ) in
// R^m with μ_i = (−1)^{i+1} (1-based i), Σ of SyntheticCov,
// Y = θ*ᵀX + η with θ*_i = (−1)^{i+1}√(i+1) and η ~ N(0, noiseSD²). The
// paper uses n = 2000, m = 100, m_s ∈ {5, 10, 20, 50, 80}, noiseSD = 5.
func NewSynthetic(n, m, ms int, noiseSD float64, rng *rand.Rand) (*Synthetic, error) {
	if rng == nil {
		return nil, data.ErrNilRand
	}
	if n < 1 {
		return nil, fmt.Errorf("corrdp: NewSynthetic: n = %d, want ≥ 1", n)
	}
	if err := valid.NonNegative("noise SD", noiseSD); err != nil {
		return nil, fmt.Errorf("corrdp: NewSynthetic: %w", err)
	}
	cov, err := SyntheticCov(m, ms)
	if err != nil {
		return nil, err
	}
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		return nil, errors.New("corrdp: NewSynthetic: Σ is not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	mu := make([]float64, m)
	th := make([]float64, m)
	for i := range mu {
		sgn := 1.0
		if i%2 == 1 {
			sgn = -1
		}
		mu[i] = sgn
		th[i] = sgn * math.Sqrt(float64(i+2)) // 1-based i+1 = (i+1)+1
	}
	x := make([]float64, n*m)
	y := make([]float64, n)
	z := make([]float64, m)
	ld := l.RawTriangular()
	for r := 0; r < n; r++ {
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		row := x[r*m : (r+1)*m]
		for a := 0; a < m; a++ {
			v := mu[a]
			la := ld.Data[a*ld.Stride:]
			for b := 0; b <= a; b++ {
				v += la[b] * z[b]
			}
			row[a] = v
		}
		var t float64
		for a, v := range row {
			t += th[a] * v
		}
		y[r] = t + noiseSD*rng.NormFloat64()
	}
	return &Synthetic{X: x, Y: y, N: n, M: m, Ms: ms, Mu: mu, Cov: cov, ThetaStar: th}, nil
}

// SyntheticWidth returns the width of the paper's interval for an
// insensitive feature, 4√(log(2·k/δ)) (App. E.1: [μ_i − 2√(log(2m_s/δ)),
// μ_i + 2√(log(2m_s/δ))], k = m_s). : an honest union bound over
// the insensitive features would use k = m − m_s.
func SyntheticWidth(k int, delta float64) (float64, error) {
	if k < 1 || !(delta > 0 && delta < 1) {
		return 0, fmt.Errorf("corrdp: SyntheticWidth: k = %d, δ = %v", k, delta)
	}
	return 4 * math.Sqrt(math.Log(2*float64(k)/delta)), nil
}

// SyntheticTV returns TV(i) for every insensitive feature i of the
// synthetic design: eq. (22) with covariance cov (the population
// Σ gives the population TV; the sample covariance of the data
// gives the plug-in TV^), evaluated at the two ends of an interval of the
// given width. The result has one entry per feature (0 on S).
func SyntheticTV(cov mat.Symmetric, ms int, width float64) ([]float64, error) {
	m := cov.SymmetricDim()
	if ms < 1 || ms >= m {
		return nil, fmt.Errorf("corrdp: SyntheticTV: m_s = %d, m = %d", ms, m)
	}
	sIdx := make([]int, ms)
	for k := range sIdx {
		sIdx[k] = k
	}
	tv := make([]float64, m)
	for i := ms; i < m; i++ {
		v, err := corrdp.GaussianConditionalTV(cov, sIdx, i, width)
		if err != nil {
			return nil, fmt.Errorf("corrdp: SyntheticTV: feature %d: %w", i, err)
		}
		tv[i] = v
	}
	return tv, nil
}
