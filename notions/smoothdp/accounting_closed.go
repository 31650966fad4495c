package smoothdp

// The reconstructed closed forms (one place each; labels per docs/smooth-rdp.md, Table 1)
// and the pre-processing sensitivities.

import (
	"math"

	"github.com/featuredp/featuredp/accounting"
)

// cfGaussianRDP is the Gaussian mechanism's RDP αΔ²/(2σ²) (Mironov
// 2017 Cor 3; Theorem 9) [S]: coefficient of α.
func cfGaussianRDP(delta, sigma float64) float64 { return delta * delta / (2 * sigma * sigma) }

// cfGaussianSRDP is the Gaussian SRDP αL²η²/(2σ²) (Theorem 9) [R].
func cfGaussianSRDP(l, sigma, eta float64) float64 {
	return l * l * eta * eta / (2 * sigma * sigma)
}

// cfPureSRDP is the Laplace / Exponential SRDP εLη/Δ (Theorems 10,
// 11: ℓ1 output Lipschitz for Laplace, ε/(2Δ) scaling for the
// exponential mechanism) [R].
func cfPureSRDP(eps, l, delta, eta float64) float64 { return eps * l * eta / delta }

// cfDPGDRDP is DP-GD's RDP 2αTL²/(n²σ²) (replace-one sensitivity
// 2L/n per step; Theorem 12) [R, high confidence]: coefficient of α.
func cfDPGDRDP(n, t, l, sigma float64) float64 {
	return 2 * t * l * l / (n * n * sigma * sigma)
}

// cfDPGDSRDP is DP-GD's SRDP αTβ²η²/(2n²σ²) (Theorem 12) [R].
func cfDPGDSRDP(n, t, beta, sigma, eta float64) float64 {
	return t * beta * beta * eta * eta / (2 * n * n * sigma * sigma)
}

// cfSGDSubC is the unspecified constant c of DP-SGD with subsampling,
// c = 8n/(n−1) from σ̃ = σ/(2L) (docs/smooth-rdp.md, Table 1, derivation 5) [D].
func cfSGDSubC(n float64) float64 { return 8 * n / (n - 1) }

// cfSGDSubRDP is DP-SGD with subsampling's RDP c·αTL²/(n²σ²)
// (Theorem 13 via Abadi et al. Lemma 3) [R, c D].
func cfSGDSubRDP(n, t, l, sigma float64) float64 {
	return cfSGDSubC(n) * t * l * l / (n * n * sigma * sigma)
}

// cfSGDSubSRDP is αTβ²ω²η²/(2σ²) (Theorem 13) [R].
func cfSGDSubSRDP(t, beta, omega, sigma, eta float64) float64 {
	return t * beta * beta * omega * omega * eta * eta / (2 * sigma * sigma)
}

// cfSGDIterRDP is 4αL²H_n/(nσ²) (Feldman et al. 2018 Thm 26, re-derived
// in docs/smooth-rdp.md, Table 1, derivation 6) [S].
func cfSGDIterRDP(n int, l, sigma float64) float64 {
	return 4 * l * l * Harmonic(n) / (float64(n) * sigma * sigma)
}

// cfSGDIterSRDP is αβ²η²(K − 1 + H_n)/(nσ²) (docs/smooth-rdp.md, Table 1,
// derivation 6) [D]; h is H_n (Harmonic(n), computed once per curve).
func cfSGDIterSRDP(n, k int, h, beta, sigma, eta float64) float64 {
	return beta * beta * eta * eta * (float64(k) - 1 + h) / (float64(n) * sigma * sigma)
}

// harmonicSumMax is the largest n for which Harmonic sums the terms.
const harmonicSumMax = 1 << 20

// Harmonic returns H_n = Σ_{j=1..n} 1/j (H_1000 = 7.485470860550345);
// 0 for n ≤ 0. Up to 2^20 terms it is the sum (smallest terms first);
// beyond, the asymptotic expansion ln n + γ + 1/(2n) − 1/(12n²) +
// 1/(120n⁴) (which over-estimates H_n by less than 1/(252n⁶), the first
// omitted term) raised by 10⁻¹⁵ relative to cover float64 rounding, so it
// is never below H_n.
func Harmonic(n int) float64 {
	if n > harmonicSumMax {
		x := float64(n)
		return (math.Log(x) + 0.5772156649015329 + 1/(2*x) - 1/(12*x*x) + 1/(120*x*x*x*x)) * (1 + 1e-15)
	}
	s := 0.0
	for j := n; j >= 1; j-- { // small terms first
		s += 1 / float64(j)
	}
	return s
}

// Pre-processing sensitivities. η is the ℓ_{1,2} sensitivity and k
// the ℓ0 sensitivity of Definition 4 (replace-one).

// EtaDedup is the ℓ_{1,2} sensitivity of r-approximate deduplication,
// η = 2R·k (each changed point contributes at most the diameter 2R; removal
// is a point ⊥ at distance 2R) [R].
func EtaDedup(radius float64, k int) float64 { return 2 * radius * float64(k) }

// EtaQuant is the ℓ_{1,2} sensitivity of r-approximate quantization,
// η = r·k (Proposition 3; doubled to 2rk with doubled = true, the
// reading if both fits move a point to different centres) [R].
func EtaQuant(r float64, k int, doubled bool) float64 {
	if doubled {
		return 2 * r * float64(k)
	}
	return r * float64(k)
}

// KDedup is the ℓ0 sensitivity of dedup and quantization, k = 2·(largest
// good cluster size) (Proposition 3; add/remove: 1×) [V/R].
func KDedup(maxCluster int, rel accounting.Relation) int {
	if rel == accounting.RelationAddRemove {
		return maxCluster
	}
	return 2 * maxCluster
}

// EtaMeanImpute is the ℓ_{1,2} sensitivity of mean imputation with at
// most m points having a missing value, η = 2Rm/(n − m) (Corollary 4) [R].
// It is +Inf for m ≥ n.
func EtaMeanImpute(radius float64, m, n int) float64 {
	if m >= n {
		return math.Inf(1)
	}
	return 2 * radius * float64(m) / float64(n-m)
}

// EtaMedianImpute is m·√d·(z_hi − z_lo) (Table 3, median row) [D].
func EtaMedianImpute(m, d int, zLo, zHi float64) float64 {
	return float64(m) * math.Sqrt(float64(d)) * (zHi - zLo)
}

// EtaTrimmedImpute is m·√d·(z_hi − z_lo)/(n − m − 2t) (Table 3,
// trimmed-mean row) [D]; +Inf when n − m − 2t ≤ 0.
func EtaTrimmedImpute(m, d, n, t int, zLo, zHi float64) float64 {
	if n-m-2*t <= 0 {
		return math.Inf(1)
	}
	return float64(m) * math.Sqrt(float64(d)) * (zHi - zLo) / float64(n-m-2*t)
}

// EtaLRImpute is m·√d·2R³(1 + R√(nΛ_max)/Λ_min)/Λ_min (Table 3,
// linear-regression row; Sherman–Morrison + interlacing) [D].
func EtaLRImpute(m, d, n int, radius, lamMax, lamMin float64) float64 {
	if !(lamMin > 0) {
		return math.Inf(1)
	}
	r3 := radius * radius * radius
	return float64(m) * math.Sqrt(float64(d)) * 2 * r3 * (1 + radius*math.Sqrt(float64(n)*lamMax)/lamMin) / lamMin
}

// CovPerturbation is the replace-one bound ‖Σ − Σ'‖_F ≤ 6R²/n on the
// (mean-centred) covariance (Eqs. 38–41) [R].
func CovPerturbation(radius float64, n int) float64 { return 6 * radius * radius / float64(n) }

// EtaPCARank is the ℓ_{1,2} sensitivity of PCA rank reduction,
// η = 12R³/g_min (Zwald–Blanchard with factor 2, valid for n > 24R²/g_min)
// [R]; EtaPCADim is dimension reduction with Procrustes-aligned bases,
// 12√2·R³/g_min (Davis–Kahan) [R].
func EtaPCARank(radius, gmin float64) float64 {
	if !(gmin > 0) {
		return math.Inf(1)
	}
	return 12 * radius * radius * radius / gmin
}

// EtaPCADim: see EtaPCARank.
func EtaPCADim(radius, gmin float64) float64 {
	if !(gmin > 0) {
		return math.Inf(1)
	}
	return 12 * math.Sqrt2 * radius * radius * radius / gmin
}

// GroupSize is the number of entries in which π_S(S) and π_{S'}(S')
// can differ, g = min(n, k+1) (docs/smooth-rdp.md, group baseline) [R].
func GroupSize(n, k int) int {
	if k+1 < n {
		return k + 1
	}
	return n
}
