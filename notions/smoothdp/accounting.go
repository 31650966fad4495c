package smoothdp

// Smooth RDP (SRDP) accounting of pre-processed DP pipelines: "Provable
// Privacy with Non-Private Pre-Processing" (Hu, Sanyal & Schölkopf 2024;
// specs/smoothdp.md).
//
// The paper's formulas were lost in the seed text, so every closed form here
// carries the spec's confidence label (spec §0):
//
//	[V] stated by the seed's prose     [S] standard result of the cited literature
//	[R] reconstructed (structure certain, a constant may differ)
//	[D] derived by the spec (a valid bound of ours)
//
// Each closed form lives in exactly one function (the cf… helpers and
// the Eta… sensitivities), so a corrected constant is a one-line change.
// The generic calculators (Theorem2Tight, ToApproxDP) work on any
// curve; the closed forms are thin wrappers checked against them in tests.
//
// Neighbouring relation: the paper is replace-one ("differ by exactly one
// element", n fixed). Every curve carries its relation (Neighbouring);
// Theorem 2 requires a replace-one RDP curve.

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/featuredp/featuredp/accounting"
)

// Neighbouring is the neighbouring relation an RDP curve holds for.
type Neighbouring int

const (
	// ReplaceOne: datasets of the same size n differing in one entry
	// (the paper's relation, spec §1).
	ReplaceOne Neighbouring = iota
	// AddRemove: one dataset is the other with one record added
	// (Opacus/Poisson accountants, seed 001; spec §10.2).
	AddRemove
)

// String names the relation.
func (r Neighbouring) String() string {
	switch r {
	case ReplaceOne:
		return "replace-one"
	case AddRemove:
		return "add/remove"
	}
	return fmt.Sprintf("Neighbouring(%d)", int(r))
}

// RDPCurve is an RDP curve ε(α) as a value (spec §10.1): a function of
// the order on the validity interval α ∈ [AlphaMin, AlphaMax] (and α > 1),
// with the neighbouring relation it holds for. Outside the interval At
// returns +Inf (no guarantee), which keeps every derived bound valid.
//
// Special shapes enable closed forms: Pure (ε(α) = PureEps for every α, i.e.
// pure PureEps-DP, the D∞ bound) and Linear (ε(α) = Coef·α, Gaussian-type).
type RDPCurve struct {
	// Name describes the curve (e.g. "Gaussian Δ=1 σ=10").
	Name string
	// Relation is the neighbouring relation of the guarantee.
	Relation Neighbouring
	// AlphaMin ≥ 1 and AlphaMax ≤ +Inf delimit the valid orders.
	AlphaMin, AlphaMax float64
	// Pure marks a pure-DP curve ε(α) = PureEps for all α (valid as α → ∞).
	Pure    bool
	PureEps float64
	// Linear marks ε(α) = Coef·α.
	Linear bool
	Coef   float64
	// F evaluates a general curve (used when neither Pure nor Linear).
	F func(alpha float64) float64
}

// Valid reports whether α lies in the curve's validity interval.
func (c RDPCurve) Valid(alpha float64) bool {
	return alpha > 1 && alpha >= c.AlphaMin && alpha <= c.AlphaMax && !math.IsNaN(alpha)
}

// At returns ε(α), or +Inf if α is outside the validity interval (or the
// curve is malformed).
func (c RDPCurve) At(alpha float64) float64 {
	if !c.Valid(alpha) {
		return math.Inf(1)
	}
	switch {
	case c.Pure:
		return c.PureEps
	case c.Linear:
		return c.Coef * alpha
	case c.F != nil:
		v := c.F(alpha)
		if math.IsNaN(v) || v < 0 {
			return math.Inf(1)
		}
		return v
	}
	return math.Inf(1)
}

// atInf is lim_{α→∞} ε(α): PureEps for a pure curve (with AlphaMax = +Inf),
// else +Inf.
func (c RDPCurve) atInf() float64 {
	if c.Pure && math.IsInf(c.AlphaMax, 1) {
		return c.PureEps
	}
	return math.Inf(1)
}

// Scale returns the k-fold adaptive composition of the curve with itself
// (k·ε(α), Mironov 2017 Prop 1) [S]. k must be finite and ≥ 0.
func (c RDPCurve) Scale(k float64) (RDPCurve, error) {
	if !(k >= 0) || math.IsInf(k, 0) {
		return RDPCurve{}, fmt.Errorf("accounting: smoothdp: scale factor %v must be finite and ≥ 0", k)
	}
	out := c
	out.Name = fmt.Sprintf("%g×(%s)", k, c.Name)
	out.PureEps *= k
	out.Coef *= k
	if f := c.F; f != nil {
		out.F = func(a float64) float64 { return k * f(a) }
	}
	return out, nil
}

// Compose returns the adaptive composition of RDP curves: ε(α) = Σ_i
// ε_i(α) on the intersection of the validity intervals (Mironov 2017 Prop 1;
// spec §3.1, Lemma F) [S]. All curves must share one neighbouring relation.
func Compose(curves ...RDPCurve) (RDPCurve, error) {
	if len(curves) == 0 {
		return RDPCurve{}, errors.New("accounting: smoothdp: compose needs at least one curve")
	}
	out := RDPCurve{Relation: curves[0].Relation, AlphaMin: 1, AlphaMax: math.Inf(1), Pure: true, Linear: true}
	for i, c := range curves {
		if c.Relation != out.Relation {
			return RDPCurve{}, fmt.Errorf("accounting: smoothdp: compose: curve %d is %v, curve 0 is %v", i, c.Relation, out.Relation)
		}
		out.AlphaMin = math.Max(out.AlphaMin, c.AlphaMin)
		out.AlphaMax = math.Min(out.AlphaMax, c.AlphaMax)
		out.Pure = out.Pure && c.Pure
		out.Linear = out.Linear && c.Linear
		out.PureEps += c.PureEps
		out.Coef += c.Coef
		if i > 0 {
			out.Name += " + "
		}
		out.Name += c.Name
	}
	if !out.Pure && !out.Linear {
		cs := append([]RDPCurve(nil), curves...)
		out.F = func(a float64) float64 {
			s := 0.0
			for _, c := range cs {
				s += c.At(a)
			}
			return s
		}
	}
	if out.AlphaMin > out.AlphaMax {
		return RDPCurve{}, fmt.Errorf("accounting: smoothdp: compose: validity intervals do not intersect ([%g, %g])", out.AlphaMin, out.AlphaMax)
	}
	return out, nil
}

// SRDPCurve is a smooth-RDP curve ε̃(α, η) (spec D3, Definition 3)
// [R]: sup D_α(A(S)‖A(S')) over datasets S, S' ∈ Xⁿ (any number of entries
// different) with Σ_i ‖x_i − x'_i‖₂ ≤ η. Outside the validity interval (or
// where the optional Valid condition fails) At returns +Inf. At η = 0 the two
// datasets are identical, so At returns exactly 0.
type SRDPCurve struct {
	Name               string
	AlphaMin, AlphaMax float64
	// Pure marks ε̃(α, η) independent of α (a D∞ bound, valid as α → ∞).
	Pure bool
	// LinearInAlpha marks ε̃(α, η) = α·F(1, η)... i.e. F is linear in α.
	LinearInAlpha bool
	// F evaluates ε̃(α, η).
	F func(alpha, eta float64) float64
	// Valid, if non-nil, is an extra validity condition (e.g. the
	// σ² ≥ α(α−1)β²η²/2 condition of DP-SGD with iteration).
	Valid func(alpha, eta float64) bool
}

// At returns ε̃(α, η); +Inf outside validity or for η < 0 or NaN.
func (c SRDPCurve) At(alpha, eta float64) float64 {
	if !(eta >= 0) || math.IsInf(eta, 1) {
		return math.Inf(1)
	}
	if !(alpha > 1 && alpha >= c.AlphaMin && alpha <= c.AlphaMax) {
		return math.Inf(1)
	}
	if eta == 0 {
		return 0
	}
	if c.Valid != nil && !c.Valid(alpha, eta) {
		return math.Inf(1)
	}
	if c.F == nil {
		return math.Inf(1)
	}
	v := c.F(alpha, eta)
	if math.IsNaN(v) || v < 0 {
		return math.Inf(1)
	}
	return v
}

func (c SRDPCurve) atInf(eta float64) float64 {
	if eta == 0 {
		return 0
	}
	if c.Pure && math.IsInf(c.AlphaMax, 1) {
		return c.At(math.Max(2, c.AlphaMin), eta)
	}
	return math.Inf(1)
}

// Scale returns the k-fold adaptive composition k·ε̃(α, η) (Lemma 1; adaptive
// by the RDP chain rule, spec §12 A18) [V/R].
func (c SRDPCurve) Scale(k float64) (SRDPCurve, error) {
	if !(k >= 0) || math.IsInf(k, 0) {
		return SRDPCurve{}, fmt.Errorf("accounting: smoothdp: scale factor %v must be finite and ≥ 0", k)
	}
	out := c
	out.Name = fmt.Sprintf("%g×(%s)", k, c.Name)
	if f := c.F; f != nil {
		out.F = func(a, e float64) float64 { return k * f(a, e) }
	}
	return out, nil
}

// ComposeSRDP returns Σ_i ε̃_i(α, η) (Lemma 1, composition of SRDP over
// any collection; adaptive, spec §12 A18) [V/R].
func ComposeSRDP(curves ...SRDPCurve) (SRDPCurve, error) {
	if len(curves) == 0 {
		return SRDPCurve{}, errors.New("accounting: smoothdp: compose needs at least one SRDP curve")
	}
	cs := append([]SRDPCurve(nil), curves...)
	out := SRDPCurve{AlphaMin: 1, AlphaMax: math.Inf(1), Pure: true, LinearInAlpha: true}
	for i, c := range cs {
		out.AlphaMin = math.Max(out.AlphaMin, c.AlphaMin)
		out.AlphaMax = math.Min(out.AlphaMax, c.AlphaMax)
		out.Pure = out.Pure && c.Pure
		out.LinearInAlpha = out.LinearInAlpha && c.LinearInAlpha
		if i > 0 {
			out.Name += " + "
		}
		out.Name += c.Name
	}
	if out.AlphaMin > out.AlphaMax {
		return SRDPCurve{}, fmt.Errorf("accounting: smoothdp: compose: SRDP validity intervals do not intersect")
	}
	out.F = func(a, e float64) float64 {
		s := 0.0
		for _, c := range cs {
			s += c.At(a, e)
		}
		return s
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// Closed forms (one place each). Labels per spec §4 (Table 1).

// cfGaussianRDP is the Gaussian mechanism's RDP αΔ²/(2σ²) (Mironov
// 2017 Cor 3; Theorem 9) [S]: coefficient of α.
func cfGaussianRDP(delta, sigma float64) float64 { return delta * delta / (2 * sigma * sigma) }

// cfGaussianSRDP is the Gaussian SRDP αL²η²/(2σ²) (Theorem 9) [R].
func cfGaussianSRDP(l, sigma, eta float64) float64 {
	return l * l * eta * eta / (2 * sigma * sigma)
}

// cfPureSRDP is the Laplace / Exponential SRDP εLη/Δ (Theorems 10,
// 11; spec §12 A4: ℓ1 output Lipschitz for Laplace, ε/(2Δ) scaling for the
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
// c = 8n/(n−1) from σ̃ = σ/(2L) (spec §4 derivation 5) [D].
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

// cfSGDIterRDP is 4αL²H_n/(nσ²) (Feldman et al. 2018 Thm 26 as
// re-derived, spec §4 derivation 6) [S].
func cfSGDIterRDP(n int, l, sigma float64) float64 {
	return 4 * l * l * Harmonic(n) / (float64(n) * sigma * sigma)
}

// cfSGDIterSRDP is αβ²η²(K − 1 + H_n)/(nσ²) (spec §4 derivation 6)
// [D].
func cfSGDIterSRDP(n, k int, beta, sigma, eta float64) float64 {
	return beta * beta * eta * eta * (float64(k) - 1 + Harmonic(n)) / (float64(n) * sigma * sigma)
}

// Harmonic returns H_n = Σ_{j=1..n} 1/j (H_1000 = 7.485470860550345);
// 0 for n ≤ 0.
func Harmonic(n int) float64 {
	s := 0.0
	for j := n; j >= 1; j-- { // small terms first
		s += 1 / float64(j)
	}
	return s
}

// ---------------------------------------------------------------------------
// Pre-processing sensitivities (spec §5). η is the ℓ_{1,2} sensitivity and k
// the ℓ0 sensitivity of Definition 4 (replace-one).

// EtaDedup is the ℓ_{1,2} sensitivity of r-approximate deduplication,
// η = 2R·k (each changed point contributes at most the diameter 2R; removal
// is a point ⊥ at distance 2R, spec §12 A5) [R].
func EtaDedup(radius float64, k int) float64 { return 2 * radius * float64(k) }

// EtaQuant is the ℓ_{1,2} sensitivity of r-approximate quantization,
// η = r·k (Proposition 3; doubled to 2rk with paperFactor2 = true, spec §12
// A6) [R].
func EtaQuant(r float64, k int, doubled bool) float64 {
	if doubled {
		return 2 * r * float64(k)
	}
	return r * float64(k)
}

// KDedup is the ℓ0 sensitivity of dedup and quantization, k = 2·(largest
// good cluster size) (Proposition 3; add/remove: 1×) [V/R].
func KDedup(maxCluster int, rel Neighbouring) int {
	if rel == AddRemove {
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
// can differ, g = min(n, k+1) (spec §3.4, group baseline) [R].
func GroupSize(n, k int) int {
	if k+1 < n {
		return k + 1
	}
	return n
}

// ---------------------------------------------------------------------------
// Table 1 constructors.

func checkPos(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("accounting: smoothdp: %s = %v must be finite and > 0", name, v)
	}
	return nil
}

func checkNonNeg(name string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 0) {
		return fmt.Errorf("accounting: smoothdp: %s = %v must be finite and ≥ 0", name, v)
	}
	return nil
}

// GaussianRDP is the RDP of the Gaussian mechanism f(S) + N(0, σ²I) with
// global ℓ2 sensitivity Δ under rel, ε(α) = αΔ²/(2σ²) (Theorem 9; Mironov
// 2017 Cor 3) [S]. Errors for Δ < 0, σ ≤ 0 or non-finite input.
func GaussianRDP(delta, sigma float64, rel Neighbouring) (RDPCurve, error) {
	if err := checkNonNeg("Δ", delta); err != nil {
		return RDPCurve{}, err
	}
	if err := checkPos("σ", sigma); err != nil {
		return RDPCurve{}, err
	}
	return RDPCurve{Name: fmt.Sprintf("Gaussian Δ=%g σ=%g", delta, sigma), Relation: rel, AlphaMin: 1, AlphaMax: math.Inf(1),
		Linear: true, Coef: cfGaussianRDP(delta, sigma)}, nil
}

// GaussianSRDP is the SRDP of the Gaussian mechanism with f L-Lipschitz
// (Frobenius → ℓ2), ε̃(α, η) = αL²η²/(2σ²) (Theorem 9; ‖S−S'‖_F ≤
// ‖S−S'‖_{1,2}) [R].
func GaussianSRDP(l, sigma float64) (SRDPCurve, error) {
	if err := checkNonNeg("L", l); err != nil {
		return SRDPCurve{}, err
	}
	if err := checkPos("σ", sigma); err != nil {
		return SRDPCurve{}, err
	}
	return SRDPCurve{Name: fmt.Sprintf("Gaussian SRDP L=%g σ=%g", l, sigma), AlphaMin: 1, AlphaMax: math.Inf(1), LinearInAlpha: true,
		F: func(a, e float64) float64 { return a * cfGaussianSRDP(l, sigma, e) }}, nil
}

// PureRDP is the curve of a pure ε-DP mechanism, ε(α) = ε for every α
// (Laplace Theorem 10, Exponential Theorem 11) [S].
func PureRDP(eps float64, rel Neighbouring) (RDPCurve, error) {
	if err := checkPos("ε", eps); err != nil {
		return RDPCurve{}, err
	}
	return RDPCurve{Name: fmt.Sprintf("pure ε=%g", eps), Relation: rel, AlphaMin: 1, AlphaMax: math.Inf(1), Pure: true, PureEps: eps}, nil
}

// LaplaceSRDP is the SRDP of the Laplace mechanism f(S) + Lap(Δ/ε) with
// f L-Lipschitz in the ℓ1 output norm, ε̃(α, η) = εLη/Δ for every α
// (Theorem 10) [R]. ExponentialSRDP is the same bound for the
// exponential mechanism with u(·, h) L-Lipschitz (Theorem 11) [R].
func LaplaceSRDP(eps, l, delta float64) (SRDPCurve, error) {
	for _, p := range []struct {
		n string
		v float64
	}{{"ε", eps}, {"Δ", delta}} {
		if err := checkPos(p.n, p.v); err != nil {
			return SRDPCurve{}, err
		}
	}
	if err := checkNonNeg("L", l); err != nil {
		return SRDPCurve{}, err
	}
	return SRDPCurve{Name: fmt.Sprintf("pure SRDP ε=%g L=%g Δ=%g", eps, l, delta), AlphaMin: 1, AlphaMax: math.Inf(1), Pure: true,
		F: func(_, e float64) float64 { return cfPureSRDP(eps, l, delta, e) }}, nil
}

// ExponentialSRDP: see LaplaceSRDP.
func ExponentialSRDP(eps, l, delta float64) (SRDPCurve, error) {
	return LaplaceSRDP(eps, l, delta)
}

// DPGDRDP is the RDP of DP-GD (full-batch mean gradient of an
// L-Lipschitz loss + N(0, σ²I), T steps, n points, replace-one):
// ε(α) = 2αTL²/(n²σ²) (Theorem 12) [R, high confidence].
func DPGDRDP(n, steps int, l, sigma float64) (RDPCurve, error) {
	if n < 1 || steps < 0 {
		return RDPCurve{}, fmt.Errorf("accounting: smoothdp: DP-GD needs n ≥ 1 and T ≥ 0 (got n=%d, T=%d)", n, steps)
	}
	if err := checkNonNeg("L", l); err != nil {
		return RDPCurve{}, err
	}
	if err := checkPos("σ", sigma); err != nil {
		return RDPCurve{}, err
	}
	return RDPCurve{Name: fmt.Sprintf("DP-GD n=%d T=%d L=%g σ=%g", n, steps, l, sigma), Relation: ReplaceOne,
		AlphaMin: 1, AlphaMax: math.Inf(1), Linear: true, Coef: cfDPGDRDP(float64(n), float64(steps), l, sigma)}, nil
}

// DPGDSRDP is DP-GD's SRDP for a loss β-smooth in the data argument
// (Definition 6): ε̃(α, η) = αTβ²η²/(2n²σ²) (Theorem 12) [R].
func DPGDSRDP(n, steps int, beta, sigma float64) (SRDPCurve, error) {
	if n < 1 || steps < 0 {
		return SRDPCurve{}, fmt.Errorf("accounting: smoothdp: DP-GD needs n ≥ 1 and T ≥ 0 (got n=%d, T=%d)", n, steps)
	}
	if err := checkNonNeg("β", beta); err != nil {
		return SRDPCurve{}, err
	}
	if err := checkPos("σ", sigma); err != nil {
		return SRDPCurve{}, err
	}
	nf, tf := float64(n), float64(steps)
	return SRDPCurve{Name: fmt.Sprintf("DP-GD SRDP n=%d T=%d β=%g σ=%g", n, steps, beta, sigma), AlphaMin: 1, AlphaMax: math.Inf(1),
		LinearInAlpha: true, F: func(a, e float64) float64 { return a * cfDPGDSRDP(nf, tf, beta, sigma, e) }}, nil
}

// SGDSubRDP is the RDP of DP-SGD with subsampling (one uniform index
// per step, T steps, replace-one): ε(α) = c·αTL²/(n²σ²) with c = 8n/(n−1)
// (Theorem 13 via Abadi et al. 2016 Lemma 3 with σ̃ = σ/(2L), q = 1/n)
// [R; c D]. The Lemma's conditions are enforced: σ ≥ 2L, n > 8σ/L (error
// otherwise) and the validity interval α − 1 ≤ (σ/2L)² ln(2Ln/σ).
func SGDSubRDP(n, steps int, l, sigma float64) (RDPCurve, error) {
	if n < 2 || steps < 0 {
		return RDPCurve{}, fmt.Errorf("accounting: smoothdp: DP-SGD-sub needs n ≥ 2 and T ≥ 0 (got n=%d, T=%d)", n, steps)
	}
	if err := checkPos("L", l); err != nil {
		return RDPCurve{}, err
	}
	if err := checkPos("σ", sigma); err != nil {
		return RDPCurve{}, err
	}
	if sigma < 2*l {
		return RDPCurve{}, fmt.Errorf("accounting: smoothdp: DP-SGD-sub needs σ ≥ 2L (σ=%g, L=%g; Abadi et al. Lemma 3)", sigma, l)
	}
	if float64(n) <= 8*sigma/l {
		return RDPCurve{}, fmt.Errorf("accounting: smoothdp: DP-SGD-sub needs n > 8σ/L = %g (n=%d; Abadi et al. Lemma 3)", 8*sigma/l, n)
	}
	st := sigma / (2 * l)
	amax := 1 + st*st*math.Log(float64(n)/st)
	return RDPCurve{Name: fmt.Sprintf("DP-SGD-sub n=%d T=%d L=%g σ=%g", n, steps, l, sigma), Relation: ReplaceOne,
		AlphaMin: 1, AlphaMax: amax, Linear: true, Coef: cfSGDSubRDP(float64(n), float64(steps), l, sigma)}, nil
}

// SGDSubSRDP is DP-SGD with subsampling's SRDP over a collection with
// inverse point-wise distance ω (Definition 7): ε̃(α, η) = αTβ²ω²η²/(2σ²)
// (Theorem 13) [R]. ω = 1/n for PCA rank reduction.
func SGDSubSRDP(steps int, beta, omega, sigma float64) (SRDPCurve, error) {
	if steps < 0 {
		return SRDPCurve{}, fmt.Errorf("accounting: smoothdp: T=%d must be ≥ 0", steps)
	}
	if err := checkNonNeg("β", beta); err != nil {
		return SRDPCurve{}, err
	}
	if !(omega > 0 && omega <= 1) {
		return SRDPCurve{}, fmt.Errorf("accounting: smoothdp: ω = %v must be in (0, 1]", omega)
	}
	if err := checkPos("σ", sigma); err != nil {
		return SRDPCurve{}, err
	}
	tf := float64(steps)
	return SRDPCurve{Name: fmt.Sprintf("DP-SGD-sub SRDP T=%d β=%g ω=%g σ=%g", steps, beta, omega, sigma), AlphaMin: 1, AlphaMax: math.Inf(1),
		LinearInAlpha: true, F: func(a, e float64) float64 { return a * cfSGDSubSRDP(tf, beta, omega, sigma, e) }}, nil
}

// SGDIterAlphaMax is the largest order at which σ ≥ L√(2α(α−1)) holds,
// (1 + √(1 + 2σ²/L²))/2 (Feldman et al. 2018 Thm 26 condition) [S].
func SGDIterAlphaMax(l, sigma float64) float64 {
	return (1 + math.Sqrt(1+2*sigma*sigma/(l*l))) / 2
}

// SGDIterRDP is the RDP of DP-SGD with iteration (one fixed-order pass
// stopped at T ~ Unif{1..n}; convex, L-Lipschitz, β_θ-smooth loss with
// γ ≤ 2/β_θ): ε(α) = 4αL²H_n/(nσ²) for α ≤ SGDIterAlphaMax(L, σ)
// (Theorem 14 = Feldman et al. 2018 Thm 26, re-derived) [S].
func SGDIterRDP(n int, l, sigma float64) (RDPCurve, error) {
	if n < 1 {
		return RDPCurve{}, fmt.Errorf("accounting: smoothdp: n=%d must be ≥ 1", n)
	}
	if err := checkPos("L", l); err != nil {
		return RDPCurve{}, err
	}
	if err := checkPos("σ", sigma); err != nil {
		return RDPCurve{}, err
	}
	return RDPCurve{Name: fmt.Sprintf("DP-SGD-iter n=%d L=%g σ=%g", n, l, sigma), Relation: ReplaceOne, AlphaMin: 1,
		AlphaMax: SGDIterAlphaMax(l, sigma), Linear: true, Coef: cfSGDIterRDP(n, l, sigma)}, nil
}

// SGDIterSRDP is DP-SGD with iteration's SRDP over a collection with
// η-constrained maximum distance K whose differing points are consecutive:
// ε̃(α, η) = αβ²η²(K − 1 + H_n)/(nσ²), valid where σ² ≥ α(α−1)β²η²/2
// (spec §4 derivation 6) [D].
func SGDIterSRDP(n, k int, beta, sigma float64) (SRDPCurve, error) {
	if n < 1 || k < 1 || k > n {
		return SRDPCurve{}, fmt.Errorf("accounting: smoothdp: DP-SGD-iter SRDP needs 1 ≤ K ≤ n (n=%d, K=%d)", n, k)
	}
	if err := checkNonNeg("β", beta); err != nil {
		return SRDPCurve{}, err
	}
	if err := checkPos("σ", sigma); err != nil {
		return SRDPCurve{}, err
	}
	return SRDPCurve{Name: fmt.Sprintf("DP-SGD-iter SRDP n=%d K=%d β=%g σ=%g", n, k, beta, sigma), AlphaMin: 1, AlphaMax: math.Inf(1),
		LinearInAlpha: true,
		F:             func(a, e float64) float64 { return a * cfSGDIterSRDP(n, k, beta, sigma, e) },
		Valid:         func(a, e float64) bool { return sigma*sigma >= a*(a-1)*beta*beta*e*e/2 }}, nil
}

// SampledGaussianRDP wraps the exact RDP of the Poisson-subsampled
// Gaussian (RDPSubsampledGaussian; add/remove neighbours, Poisson sampling)
// composed over T steps as an add/remove curve (spec §10.1, needed by seed
// 001's pipelines).
func SampledGaussianRDP(q, z float64, steps int) (RDPCurve, error) {
	if err := accounting.ValidateSampleRate(q); err != nil {
		return RDPCurve{}, err
	}
	if err := accounting.ValidateNoiseMultiplier(z); err != nil {
		return RDPCurve{}, err
	}
	if err := accounting.ValidateSteps(steps); err != nil {
		return RDPCurve{}, err
	}
	t := float64(steps)
	return RDPCurve{Name: fmt.Sprintf("sampled Gaussian q=%g z=%g T=%d", q, z, steps), Relation: AddRemove, AlphaMin: 1, AlphaMax: math.Inf(1),
		F: func(a float64) float64 {
			v, err := accounting.RDPSubsampledGaussian(q, z, a)
			if err != nil {
				return math.Inf(1)
			}
			return t * v
		}}, nil
}

// ReplaceOneFromAddRemove turns an add/remove RDP curve into a
// replace-one one by Mironov 2017 Prop 2 with c = 1 (a replacement is two
// add/remove steps, a 2-stable transformation): ε_rep(α) = 3·ε(2α), valid for
// α ≥ 2 [S]. For Gaussian-type mechanisms doubling the sensitivity
// (4·ε(α)) is tighter; construct that curve directly.
func ReplaceOneFromAddRemove(c RDPCurve) (RDPCurve, error) {
	if c.Relation != AddRemove {
		return RDPCurve{}, fmt.Errorf("accounting: smoothdp: curve %q is already %v", c.Name, c.Relation)
	}
	if c.Pure {
		out := c
		out.Relation, out.PureEps, out.Name = ReplaceOne, 2*c.PureEps, "replace-one of "+c.Name
		return out, nil
	}
	return RDPCurve{Name: "replace-one (Mironov Prop 2) of " + c.Name, Relation: ReplaceOne,
		AlphaMin: math.Max(2, c.AlphaMin/2), AlphaMax: c.AlphaMax / 2,
		F: func(a float64) float64 { return 3 * c.At(2*a) }}, nil
}

// ---------------------------------------------------------------------------
// Group privacy baselines (spec §3.4) [R/S].

// GroupGaussian is the exact group RDP of the Gaussian mechanism for
// datasets differing in g entries, αg²Δ²/(2σ²) [S].
func GroupGaussian(delta, sigma float64, g int) (RDPCurve, error) {
	if g < 1 {
		return RDPCurve{}, fmt.Errorf("accounting: smoothdp: group size %d must be ≥ 1", g)
	}
	c, err := GaussianRDP(float64(g)*delta, sigma, ReplaceOne)
	c.Name = fmt.Sprintf("group g=%d Gaussian Δ=%g σ=%g", g, delta, sigma)
	return c, err
}

// GroupDPGD is the group RDP of DP-GD, 2αTg²L²/(n²σ²) (g ≤ n) [S].
func GroupDPGD(n, steps int, l, sigma float64, g int) (RDPCurve, error) {
	if g < 1 || g > n {
		return RDPCurve{}, fmt.Errorf("accounting: smoothdp: group size %d must be in [1, n=%d]", g, n)
	}
	c, err := DPGDRDP(n, steps, float64(g)*l, sigma)
	c.Name = fmt.Sprintf("group g=%d DP-GD n=%d T=%d L=%g σ=%g", g, n, steps, l, sigma)
	return c, err
}

// GroupPure is g·ε for a pure ε-DP mechanism [S].
func GroupPure(eps float64, g int) (RDPCurve, error) {
	if g < 1 {
		return RDPCurve{}, fmt.Errorf("accounting: smoothdp: group size %d must be ≥ 1", g)
	}
	return PureRDP(float64(g)*eps, ReplaceOne)
}

// GroupMironov is Mironov 2017 Prop 2 for a 2^c-stable transformation
// (g ≤ 2^c): ε'(α) = 3^c·ε(2^c·α), valid for α ≥ 2 [S].
func GroupMironov(curve RDPCurve, c int) (RDPCurve, error) {
	if c < 0 || c > 60 {
		return RDPCurve{}, fmt.Errorf("accounting: smoothdp: stability exponent c=%d must be in [0, 60]", c)
	}
	pc, tc := math.Pow(2, float64(c)), math.Pow(3, float64(c))
	return RDPCurve{Name: fmt.Sprintf("group 2^%d (Mironov Prop 2) of %s", c, curve.Name), Relation: curve.Relation,
		AlphaMin: math.Max(2, curve.AlphaMin/pc), AlphaMax: curve.AlphaMax / pc,
		F: func(a float64) float64 { return tc * curve.At(pc*a) }}, nil
}

// ---------------------------------------------------------------------------
// Weak triangle inequality and Theorem 2.

// WeakTriangle returns the coefficients of the weak triangle inequality
// (Mironov 2017 Prop 11; Lemma J) [S]: for α > 1 and Hölder p > 1 (q =
// p/(p−1)),
//
//	D_α(P‖Q) ≤ c·D_{a1}(P‖M) + D_{a2}(M‖Q),  c = (α − 1/p)/(α − 1), a1 = pα, a2 = q(α − 1/p).
func WeakTriangle(alpha, p float64) (c, a1, a2 float64, err error) {
	if !(alpha > 1) || math.IsInf(alpha, 1) {
		return 0, 0, 0, fmt.Errorf("accounting: smoothdp: order α = %v must be finite and > 1", alpha)
	}
	if !(p > 1) || math.IsInf(p, 1) {
		return 0, 0, 0, fmt.Errorf("accounting: smoothdp: Hölder exponent p = %v must be finite and > 1", p)
	}
	q := p / (p - 1)
	return (alpha - 1/p) / (alpha - 1), p * alpha, q * (alpha - 1/p), nil
}

func theorem2Check(rdp RDPCurve, eta float64) error {
	if rdp.Relation != ReplaceOne {
		return fmt.Errorf("accounting: smoothdp: Theorem 2 needs a replace-one RDP curve, %q is %v (use ReplaceOneFromAddRemove)", rdp.Name, rdp.Relation)
	}
	if !(eta >= 0) || math.IsInf(eta, 1) {
		return fmt.Errorf("accounting: smoothdp: η = %v must be finite and ≥ 0", eta)
	}
	return nil
}

// Theorem2B1 is the first construction of Theorem 2 (middle M =
// A(π_{S'}(S))) [R]: B1 = c_p·ε̃(pα, η) + ε(q(α − 1/p)).
func Theorem2B1(rdp RDPCurve, srdp SRDPCurve, eta, alpha, p float64) (float64, error) {
	if err := theorem2Check(rdp, eta); err != nil {
		return 0, err
	}
	c, a1, a2, err := WeakTriangle(alpha, p)
	if err != nil {
		return 0, err
	}
	return bound2(c, srdp.At(a1, eta), rdp.At(a2)), nil
}

// Theorem2B2 is the second construction (middle M = A(π_S(S'))) [R]:
// B2 = c_p·ε(pα) + ε̃(q(α − 1/p), η).
func Theorem2B2(rdp RDPCurve, srdp SRDPCurve, eta, alpha, p float64) (float64, error) {
	if err := theorem2Check(rdp, eta); err != nil {
		return 0, err
	}
	c, a1, a2, err := WeakTriangle(alpha, p)
	if err != nil {
		return 0, err
	}
	return bound2(c, rdp.At(a1), srdp.At(a2, eta)), nil
}

func bound2(c, first, second float64) float64 {
	if first == 0 {
		return second // c·0 with c finite
	}
	return c*first + second
}

// goldenMin minimises f on [lo, hi] in log(p−1) by golden-section search.
func goldenMin(f func(x float64) float64, lo, hi float64) (float64, float64) {
	const gr = 0.6180339887498949
	a, b := lo, hi
	x1, x2 := b-gr*(b-a), a+gr*(b-a)
	f1, f2 := f(x1), f(x2)
	for i := 0; i < 200 && b-a > 1e-15*math.Max(1, math.Abs(a)+math.Abs(b)); i++ {
		if f1 <= f2 {
			b, x2, f2 = x2, x1, f1
			x1 = b - gr*(b-a)
			f1 = f(x1)
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = a + gr*(b-a)
			f2 = f(x2)
		}
	}
	if f1 <= f2 {
		return x1, f1
	}
	return x2, f2
}

// Theorem2Tight evaluates Theorem 2 in its tight-valid reading [R]:
// the pipeline A∘π (π with ℓ_{1,2} sensitivity η) is ε_π(α)-RDP
// (replace-one) with
//
//	ε_π(α) = inf_{p>1} min{B1(α,p), B2(α,p)},
//
// including the p → 1 limits B1 → ε̃(α,η) + ε(∞) and B2 → ε(α) + ε̃(∞,η)
// (finite for pure curves, and B2 → ε(α) at η = 0). The infimum is searched
// on a log grid p − 1 ∈ [1e−15, 1e4] (2000 points; spec §7.4 suggests
// [1e−4, 1e3], widened so that η → 0 recovers ε(α) continuously) with
// golden-section refinement of each construction. It returns the value and the optimal p
// (1 for a p → 1 limit). For ε = aα and ε̃ = bα the value is α(√a + √b)²
// (spec §3.4 key identity).
func Theorem2Tight(rdp RDPCurve, srdp SRDPCurve, eta, alpha float64) (val, pOpt float64, err error) {
	if err := theorem2Check(rdp, eta); err != nil {
		return 0, 0, err
	}
	if !(alpha > 1) || math.IsInf(alpha, 1) {
		return 0, 0, fmt.Errorf("accounting: smoothdp: order α = %v must be finite and > 1", alpha)
	}
	best, pOpt := math.Inf(1), math.NaN()
	// p → 1 limits.
	if v := bound2(1, srdp.At(alpha, eta), rdp.atInf()); v < best {
		best, pOpt = v, 1
	}
	if v := bound2(1, rdp.At(alpha), srdp.atInf(eta)); v < best {
		best, pOpt = v, 1
	}
	b1 := func(lp float64) float64 {
		p := 1 + math.Exp(lp)
		c, a1, a2, _ := WeakTriangle(alpha, p)
		return bound2(c, srdp.At(a1, eta), rdp.At(a2))
	}
	b2 := func(lp float64) float64 {
		p := 1 + math.Exp(lp)
		c, a1, a2, _ := WeakTriangle(alpha, p)
		return bound2(c, rdp.At(a1), srdp.At(a2, eta))
	}
	const npts = 2000
	lo, hi := math.Log(1e-15), math.Log(1e4)
	h := (hi - lo) / (npts - 1)
	for _, f := range []func(float64) float64{b1, b2} {
		bi, bv := -1, math.Inf(1)
		for i := 0; i < npts; i++ {
			if v := f(lo + float64(i)*h); v < bv {
				bi, bv = i, v
			}
		}
		if bi < 0 {
			continue
		}
		a, b := lo+float64(max(bi-1, 0))*h, lo+float64(min(bi+1, npts-1))*h
		x, v := goldenMin(f, a, b)
		if bv < v {
			x, v = lo+float64(bi)*h, bv
		}
		if v < best {
			best, pOpt = v, 1+math.Exp(x)
		}
	}
	return best, pOpt, nil
}

// Theorem2PaperStyle is the p = q = 2 relaxation used for Table 2
// (proof of Theorem 16(i)) [R]: for α ≥ 3/2,
//
//	ε_π(α) ≤ 2ε(2α) + 2ε̃(2α, η)
//
// (c_2(α) ≤ 2 and monotonicity; an upper bound on either reading of Theorem
// 2). At η = 0 it gives 2ε(2α) (= 4ε(α) for the Gaussian, spec §12 A19).
func Theorem2PaperStyle(rdp RDPCurve, srdp SRDPCurve, eta, alpha float64) (float64, error) {
	if err := theorem2Check(rdp, eta); err != nil {
		return 0, err
	}
	if !(alpha >= 1.5) || math.IsInf(alpha, 1) {
		return 0, fmt.Errorf("accounting: smoothdp: the paper-style Theorem 2 needs finite α ≥ 3/2 (got %v)", alpha)
	}
	return 2*rdp.At(2*alpha) + 2*srdp.At(2*alpha, eta), nil
}

// Theorem2MinForm is the alternative reading of the paper's Eq. (3)
// as a min of the two constructions at p = 2 after the same relaxation
// (spec §3.4, §12 A2) [R]: min(2ε(2α) + ε̃(2α, η), ε(2α) + 2ε̃(2α, η)),
// α ≥ 3/2. At most a factor 2 below Theorem2PaperStyle.
func Theorem2MinForm(rdp RDPCurve, srdp SRDPCurve, eta, alpha float64) (float64, error) {
	if err := theorem2Check(rdp, eta); err != nil {
		return 0, err
	}
	if !(alpha >= 1.5) || math.IsInf(alpha, 1) {
		return 0, fmt.Errorf("accounting: smoothdp: the min-form Theorem 2 needs finite α ≥ 3/2 (got %v)", alpha)
	}
	e, et := rdp.At(2*alpha), srdp.At(2*alpha, eta)
	return math.Min(2*e+et, e+2*et), nil
}

// PurePipeline is Theorem 2 for pure-DP mechanisms (p → 1, exact
// triangle inequality of D∞; proof of Theorem 16(ii)) [R]: ε_π = ε + ε̃(η),
// a pure guarantee. Both curves must be pure.
func PurePipeline(rdp RDPCurve, srdp SRDPCurve, eta float64) (float64, error) {
	if err := theorem2Check(rdp, eta); err != nil {
		return 0, err
	}
	if !rdp.Pure || !srdp.Pure {
		return 0, fmt.Errorf("accounting: smoothdp: the pure pipeline needs pure curves (%q pure=%v, %q pure=%v)", rdp.Name, rdp.Pure, srdp.Name, srdp.Pure)
	}
	return rdp.PureEps + srdp.atInf(eta), nil
}

// Theorem2Form selects how PipelineCurve evaluates Theorem 2.
type Theorem2Form int

const (
	// Tight is Theorem2Tight (valid for α > 1).
	Tight Theorem2Form = iota
	// PaperStyle is Theorem2PaperStyle (Table 2, α ≥ 3/2).
	PaperStyle
	// MinForm is Theorem2MinForm (α ≥ 3/2).
	MinForm
)

// String names the form.
func (f Theorem2Form) String() string {
	switch f {
	case Tight:
		return "tight"
	case PaperStyle:
		return "paper-style"
	case MinForm:
		return "min-form"
	}
	return fmt.Sprintf("Theorem2Form(%d)", int(f))
}

// PipelineCurve returns the RDP curve (replace-one) of the pre-processed
// pipeline A∘π from A's RDP and SRDP curves and π's ℓ_{1,2} sensitivity η
// (Theorem 2 in the chosen form). Pure inputs give the pure pipeline ε + ε̃(η)
// whatever the form. Linear inputs (ε = aα, ε̃ = bα) give a linear output
// with coefficient (√a + √b)² (tight), 2(2a + 2b) (paper-style) or min(…)
// (min-form), so the closed-form conversion applies.
func PipelineCurve(rdp RDPCurve, srdp SRDPCurve, eta float64, form Theorem2Form) (RDPCurve, error) {
	if err := theorem2Check(rdp, eta); err != nil {
		return RDPCurve{}, err
	}
	name := fmt.Sprintf("Theorem 2 (%v) of %s with η=%g", form, rdp.Name, eta)
	if rdp.Pure && srdp.Pure {
		e, err := PurePipeline(rdp, srdp, eta)
		if err != nil {
			return RDPCurve{}, err
		}
		return RDPCurve{Name: name, Relation: ReplaceOne, AlphaMin: 1, AlphaMax: math.Inf(1), Pure: true, PureEps: e}, nil
	}
	out := RDPCurve{Name: name, Relation: ReplaceOne, AlphaMin: 1, AlphaMax: math.Inf(1)}
	linear := rdp.Linear && srdp.LinearInAlpha && math.IsInf(rdp.AlphaMax, 1) && math.IsInf(srdp.AlphaMax, 1) && srdp.Valid == nil
	switch form {
	case Tight:
		out.F = func(a float64) float64 {
			v, _, err := Theorem2Tight(rdp, srdp, eta, a)
			if err != nil {
				return math.Inf(1)
			}
			return v
		}
		if linear {
			// The infimum is attained in the interior of the p grid except
			// when a or b is 0; the numerical calculator stays the primary.
			out.Linear, out.Coef, out.F = true, 0, nil
			v, _, err := Theorem2Tight(rdp, srdp, eta, 2)
			if err != nil {
				return RDPCurve{}, err
			}
			out.Coef = v / 2
		}
	case PaperStyle, MinForm:
		out.AlphaMin = 1.5
		f := Theorem2PaperStyle
		if form == MinForm {
			f = Theorem2MinForm
		}
		out.F = func(a float64) float64 {
			v, err := f(rdp, srdp, eta, a)
			if err != nil {
				return math.Inf(1)
			}
			return v
		}
		if linear {
			v, err := f(rdp, srdp, eta, 2)
			if err != nil {
				return RDPCurve{}, err
			}
			out.Linear, out.Coef, out.F = true, v/2, nil
		}
	default:
		return RDPCurve{}, fmt.Errorf("accounting: smoothdp: unknown Theorem 2 form %d", int(form))
	}
	return out, nil
}

// ---------------------------------------------------------------------------
// RDP → (ε, δ) conversion.

// ToApproxDP converts an RDP curve to (ε, δ)-DP with the paper's only
// conversion, Mironov 2017 Prop 3 (Lemma M; spec §7.5) [S]:
//
//	ε(δ) = min_{α valid} ε(α) + log(1/δ)/(α − 1).
//
// Linear curves ε = Cα on [α_min, ∞) use the closed form α* = 1 +
// √(log(1/δ)/C), ε = C + 2√(C log(1/δ)) (or the value at α_min if α* < α_min).
// Pure curves return (PureEps, +Inf): pure DP holds with δ = 0. Otherwise a
// log grid of orders 1.01…1e4 plus the integers 2…256, restricted to the
// validity interval, is refined by golden-section search. The relation is the
// curve's. It returns ε and the optimal order.
func ToApproxDP(c RDPCurve, delta float64) (eps, alpha float64, err error) {
	if !(delta > 0 && delta < 1) {
		return 0, 0, fmt.Errorf("accounting: smoothdp: δ = %v must be in (0, 1)", delta)
	}
	ld := -math.Log(delta)
	if c.Pure && math.IsInf(c.AlphaMax, 1) {
		return c.PureEps, math.Inf(1), nil
	}
	amin := math.Max(c.AlphaMin, 1)
	if c.Linear && math.IsInf(c.AlphaMax, 1) {
		if c.Coef == 0 {
			return 0, math.Inf(1), nil
		}
		as := 1 + math.Sqrt(ld/c.Coef)
		if as >= amin {
			return c.Coef + 2*math.Sqrt(c.Coef*ld), as, nil
		}
		return amin*c.Coef + ld/(amin-1), amin, nil
	}
	obj := func(a float64) float64 { return c.At(a) + ld/(a-1) }
	grid := Orders()
	if !math.IsInf(c.AlphaMax, 1) {
		grid = append(grid, c.AlphaMax)
	}
	if amin > 1 {
		grid = append(grid, amin)
	}
	sort.Float64s(grid)
	bi, bv := -1, math.Inf(1)
	for i, a := range grid {
		if v := obj(a); v < bv {
			bi, bv = i, v
		}
	}
	if bi < 0 {
		return math.Inf(1), math.NaN(), nil
	}
	lo, hi := grid[max(bi-1, 0)], grid[min(bi+1, len(grid)-1)]
	lo = math.Max(lo, math.Nextafter(amin, math.Inf(1)))
	if amin > 1 && lo < amin {
		lo = amin
	}
	hi = math.Min(hi, c.AlphaMax)
	if hi > lo {
		x, v := goldenMin(func(la float64) float64 { return obj(math.Exp(la)) }, math.Log(lo), math.Log(hi))
		if v < bv {
			return math.Max(v, 0), math.Exp(x), nil
		}
	}
	return math.Max(bv, 0), grid[bi], nil
}

// Orders is the order grid of ToApproxDP: 200 log-spaced orders
// in [1.01, 1e4] plus the integers 2..256.
func Orders() []float64 {
	var g []float64
	for i := 0; i < 200; i++ {
		g = append(g, 1.01*math.Pow(1e4/1.01, float64(i)/199))
	}
	for a := 2; a <= 256; a++ {
		g = append(g, float64(a))
	}
	sort.Float64s(g)
	return g
}

// ToApproxDPImproved converts with the improved conversion of Balle et
// al. 2020 Thm 21 (ConversionImproved) on Orders. It is NOT the
// paper's conversion (the paper uses Mironov Prop 3, ToApproxDP) and is
// offered only for comparison.
func ToApproxDPImproved(c RDPCurve, delta float64) (eps, alpha float64, err error) {
	if c.Pure && math.IsInf(c.AlphaMax, 1) {
		if !(delta > 0 && delta < 1) {
			return 0, 0, fmt.Errorf("accounting: smoothdp: δ = %v must be in (0, 1)", delta)
		}
		return c.PureEps, math.Inf(1), nil
	}
	orders := Orders()
	rdp := make([]float64, len(orders))
	for i, a := range orders {
		rdp[i] = c.At(a)
	}
	return accounting.EpsilonFromRDP(orders, rdp, delta, accounting.ConversionImproved)
}

// SubsampleSRDP is the weak amplification by subsampling of SRDP
// (Lemma 2) in the spec's derived form [D — ours; the paper's statement is
// unrecoverable and used by no table]: A is run on m indices drawn uniformly
// with replacement from n, over a collection with inverse point-wise
// distance ω = 1/τ. For every threshold t ∈ {1..m},
//
//	ε̃'(α, η) = 2[ ε̃(α, (t−1)·min(2R, η) + mη/τ) + C(m,t)(τ/n)^t · ε̃(α, m·min(2R, η)) ]
//
// (Feldman et al. 2018 Lemma 25 with c = 1), valid when both conditional
// divergences are ≤ 1/(α−1); the curve takes the minimum over the valid t
// and is +Inf where no t is valid. base is A's SRDP curve on m points.
func SubsampleSRDP(base SRDPCurve, n, m int, omega, radius float64) (SRDPCurve, error) {
	if n < 1 || m < 1 || m > 10000 {
		return SRDPCurve{}, fmt.Errorf("accounting: smoothdp: subsampling needs n ≥ 1 and 1 ≤ m ≤ 10000 (n=%d, m=%d)", n, m)
	}
	if !(omega > 0 && omega <= 1) {
		return SRDPCurve{}, fmt.Errorf("accounting: smoothdp: ω = %v must be in (0, 1]", omega)
	}
	if err := checkPos("R", radius); err != nil {
		return SRDPCurve{}, err
	}
	tau := 1 / omega
	lq := math.Log(math.Min(tau/float64(n), 1))
	return SRDPCurve{Name: fmt.Sprintf("Lemma 2 [D] subsample m=%d of n=%d (ω=%g) of %s", m, n, omega, base.Name),
		AlphaMin: base.AlphaMin, AlphaMax: base.AlphaMax, Pure: false,
		F: func(a, eta float64) float64 {
			d := math.Min(2*radius, eta)
			far := base.At(a, float64(m)*d)
			best := math.Inf(1)
			lc := 0.0 // log C(m, t)
			for t := 1; t <= m; t++ {
				lc += math.Log(float64(m-t+1)) - math.Log(float64(t))
				near := base.At(a, float64(t-1)*d+float64(m)*eta/tau)
				if near > 1/(a-1) || far > 1/(a-1) {
					continue
				}
				w := math.Exp(lc + float64(t)*lq)
				if w > 1 {
					w = 1
				}
				best = math.Min(best, 2*(near+w*far))
			}
			return best
		}}, nil
}
