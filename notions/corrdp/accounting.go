package corrdp

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/internal/valid"
	"gonum.org/v1/gonum/mat"
)

// This file holds the deterministic math of CorrDP (Wang, Zhang & Cummings,
// "Integrating Feature Correlation in Differential Privacy with Applications
// in DP-ERM"; docs/corrdp.md): noise weights (Algorithm 1 and
// relative-noise mode), the Algorithm 1 variance (eq. 4), the relative-noise
// σ0², the correlated sensitivity (Def. 2.8), the utility and lower-bound
// rates (Thms. 3.9, 3.12 with the corrected sum of docs/corrdp.md, 'Where
// we differ'), the UCB of Def. 4.3 and the honest privacy loss of a noise
// plan (Noise.Loss, Honesty; docs/corrdp.md, 'Guarantee and conversion').
//
// Neighbouring relations: CorrDP guarantees hold for N-one neighbours (a
// record changes in its sensitive block, or in exactly one insensitive
// feature i, for which the budget is ε/TV(i)) or for N-jointU (all
// insensitive features change together, one TV_max). Labels are public
// (N-ERM). The honest loss is stated under an accounting.Relation
// (replace-one or add/remove), the relation whose sensitivity it uses; only
// package accounting converts it to (ε, δ).

// Method selects a noise allocation of docs/corrdp.md.
type Method int

const (
	// Standard gives every coordinate weight 1 (standard DP-SGD).
	Standard Method = iota
	// Semi gives sensitive coordinates weight 1 and insensitive
	// ones 0 (semi-DP: insensitive features treated as public).
	Semi
	// Corr gives sensitive coordinates weight 1 and insensitive
	// coordinate i the weight TV(i) (paper mode) or max{TV(i), m_s²/m²}
	// (theory mode, Algorithm 1 line 1).
	Corr
)

// String names the method as in the paper's legends.
func (m Method) String() string {
	switch m {
	case Standard:
		return "Standard"
	case Semi:
		return "Semi"
	case Corr:
		return "CorrDP"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// LogTerm returns log(1/δ) + 1, the factor of eq. (4) and of the
// relative-noise σ0² (Sigma0Sq): 10.210340 for δ = 1e-4 and 12.512925 for
// δ = 1e-5. It returns an error unless δ ∈ (0, 1).
func LogTerm(delta float64) (float64, error) {
	if err := accounting.ValidateDelta(delta); err != nil {
		return 0, fmt.Errorf("corrdp: LogTerm: %w", err)
	}
	return math.Log(1/delta) + 1, nil
}

// NoiseWeights returns the variance weight w_i of every coordinate
// (σ_i² = base·w_i) for a method of docs/corrdp.md:
//
//	Standard: w_i = 1;  Semi: w_i = 1 (i ∈ S), 0 (i ∈ U);
//	CorrDP:   w_i = 1 (i ∈ S), TV(i) (i ∈ U)            (paper mode, floor = false)
//	          w_i = 1 (i ∈ S), max{TV(i), m_s²/m²} (i ∈ U) (Algorithm 1, floor = true)
//
// with m = len(sensitive) and m_s the number of sensitive coordinates.
// tv has one entry per coordinate (entries of sensitive coordinates are
// ignored; nil is allowed for Standard and Semi). The weights of one-hot
// columns should be spread from their raw feature first
// (data.Encoded.ColumnWeights). It returns an error for an empty mask, a
// length mismatch or a TV outside [0, 1].
func NoiseWeights(method Method, sensitive []bool, tv []float64, floor bool) ([]float64, error) {
	m := len(sensitive)
	if m == 0 {
		return nil, errors.New("corrdp: NoiseWeights: no coordinates")
	}
	w := make([]float64, m)
	ms := 0
	for _, s := range sensitive {
		if s {
			ms++
		}
	}
	switch method {
	case Standard:
		for i := range w {
			w[i] = 1
		}
		return w, nil
	case Semi:
		for i, s := range sensitive {
			if s {
				w[i] = 1
			}
		}
		return w, nil
	case Corr:
	default:
		return nil, fmt.Errorf("corrdp: NoiseWeights: unknown method %v", method)
	}
	if len(tv) != m {
		return nil, fmt.Errorf("corrdp: NoiseWeights: %d TV values for %d coordinates: CorrDP needs one TV per coordinate "+
			"(estimate them with EstimateTV and TVTilde and spread them with data.Encoded.ColumnWeights, or give the public values); "+
			"TV ≡ 0 is the Semi method", len(tv), m)
	}
	fl := 0.0
	if floor {
		fl = float64(ms*ms) / float64(m*m)
	}
	for i, s := range sensitive {
		if s {
			w[i] = 1
			continue
		}
		if err := valid.Unit(fmt.Sprintf("TV[%d]", i), tv[i]); err != nil {
			return nil, fmt.Errorf("corrdp: NoiseWeights: %w", err)
		}
		w[i] = math.Max(tv[i], fl)
	}
	return w, nil
}

// Algorithm1Sigma2 returns the base variance of Algorithm 1, eq. (4):
//
//	σ² = (log(1/δ) + 1)·L²·T / (n²·ε²),
//
// so that σ_i² = σ²·w_i (NoiseWeights with floor = true). Example:
// δ = 1e-5, L = 1, T = n², ε = 1 gives 12.512925. The constant is the
// paper's (the proof, eq. 12, has extra factors): the honest ε
// of this noise is Honesty's. It returns an error for ε ≤ 0, δ ∉ (0,1),
// L ≤ 0, T < 1 or n < 1.
func Algorithm1Sigma2(eps, delta, lipschitz float64, steps, n int) (float64, error) {
	if err := valid.Positive("ε", eps); err != nil {
		return 0, fmt.Errorf("corrdp: Algorithm1Sigma2: %w", err)
	}
	l, err := LogTerm(delta)
	if err != nil {
		return 0, err
	}
	if err := valid.Positive("L", lipschitz); err != nil {
		return 0, fmt.Errorf("corrdp: Algorithm1Sigma2: %w", err)
	}
	if steps < 1 || n < 1 {
		return 0, fmt.Errorf("corrdp: Algorithm1Sigma2: T = %d and n = %d, want ≥ 1", steps, n)
	}
	nf := float64(n)
	return l * lipschitz * lipschitz * float64(steps) / (nf * nf * eps * eps), nil
}

// Sigma0Sq returns the base variance of relative-noise ("paper") mode,
// the calibration of the CorrDP paper's experiments (Sec. 5;
// docs/corrdp.md):
//
//	σ0² = C·(log(1/δ) + 1) / ε²,
//
// C > 0 being a noise constant the paper leaves unspecified (our choice:
// docs/corrdp.md, 'Noise constant C'). It sets relative noise only: no ε
// is accounted by it — Honesty states what the noise really gives. It
// returns an error for C ≤ 0, ε ≤ 0 or δ ∉ (0, 1).
func Sigma0Sq(c, eps, delta float64) (float64, error) {
	if err := valid.Positive("C", c); err != nil {
		return 0, fmt.Errorf("corrdp: Sigma0Sq: %w", err)
	}
	if err := valid.Positive("ε", eps); err != nil {
		return 0, fmt.Errorf("corrdp: Sigma0Sq: %w", err)
	}
	l, err := LogTerm(delta)
	if err != nil {
		return 0, err
	}
	return c * l / (eps * eps), nil
}

// CorrelatedSensitivity returns Δ_C of Def. 2.8:
//
//	Δ_C = min{ Σ_{j∈S} Δ_j + Σ_{j∈U} Δ_j·TV(j), Δ },
//
// where coordSens[j] = Δ_j is the sensitivity of coordinate j (whose query
// depends only on feature j) and l1Sens = Δ is the L1 sensitivity; l1Sens
// ≤ 0 means Δ := Σ_k Δ_k (the standard-DP L1 sensitivity).
// Example: Δ = (1,1,1,1)/n, S = {1}, TV = (·, 0.2, 0.5, 0) gives 1.7/n.
// The CorrDP Laplace mechanism built on it is (ε, 0)-CorrDP for N-one
// neighbours only.
func CorrelatedSensitivity(coordSens []float64, sensitive []bool, tv []float64, l1Sens float64) (float64, error) {
	k := len(coordSens)
	if k == 0 {
		return 0, errors.New("corrdp: CorrelatedSensitivity: no coordinates")
	}
	if len(sensitive) != k || len(tv) != k {
		return 0, fmt.Errorf("corrdp: CorrelatedSensitivity: %d sensitivities, %d S/U flags, %d TV values", k, len(sensitive), len(tv))
	}
	var sum, corr float64
	for j, d := range coordSens {
		if err := valid.NonNegative(fmt.Sprintf("Δ_%d", j), d); err != nil {
			return 0, fmt.Errorf("corrdp: CorrelatedSensitivity: %w", err)
		}
		sum += d
		if sensitive[j] {
			corr += d
			continue
		}
		if err := valid.Unit(fmt.Sprintf("TV[%d]", j), tv[j]); err != nil {
			return 0, fmt.Errorf("corrdp: CorrelatedSensitivity: %w", err)
		}
		corr += d * tv[j]
	}
	if err := valid.FiniteValue("Δ", l1Sens); err != nil {
		return 0, fmt.Errorf("corrdp: CorrelatedSensitivity: %w", err)
	}
	if l1Sens <= 0 {
		l1Sens = sum
	}
	return math.Min(corr, l1Sens), nil
}

// LaplaceAccuracy returns the accuracy radius of the (CorrDP)
// Laplace mechanism (Thm. 2.10): with probability ≥ 1 − β,
// ‖f(D) − output‖_∞ ≤ Δ_C·log(K/β)/ε. Pass Δ for the standard mechanism.
func LaplaceAccuracy(sens, eps, beta float64, k int) (float64, error) {
	if err := valid.Positive("ε", eps); err != nil {
		return 0, fmt.Errorf("corrdp: LaplaceAccuracy: %w", err)
	}
	if err := valid.Probability("β", beta); err != nil {
		return 0, fmt.Errorf("corrdp: LaplaceAccuracy: %w", err)
	}
	if k < 1 {
		return 0, fmt.Errorf("corrdp: LaplaceAccuracy: K = %d, want ≥ 1", k)
	}
	if err := valid.NonNegative("Δ", sens); err != nil {
		return 0, fmt.Errorf("corrdp: LaplaceAccuracy: %w", err)
	}
	l := math.Log(float64(k) / beta)
	if math.IsInf(l, 1) { // K/β overflows for a subnormal β; log K − log β does not
		l = math.Log(float64(k)) - math.Log(beta)
	}
	return sens * l / eps, nil
}

// UtilityRate returns the rate of Thm. 3.9 with the corrected sum of
// docs/corrdp.md (the printed min{…} is a typo):
//
//	R = √( (m_s + Σ_{i∈U} max{TV(i), m_s²/m²}) · log(1/δ) ) / (n ε)
//
// (constants and log factors of the O~ omitted), and also its upper bound
// with Σ_U TV(i) + m_s/4 in place of the sum, and the standard-DP rate
// √(m·log(1/δ))/(nε). tvU holds the TVs of the m − m_s insensitive
// coordinates.
func UtilityRate(ms int, tvU []float64, eps, delta float64, n int) (rate, bound, standard float64, err error) {
	if ms < 0 || n < 1 {
		return 0, 0, 0, fmt.Errorf("corrdp: UtilityRate: m_s = %d, n = %d", ms, n)
	}
	if err := valid.Positive("ε", eps); err != nil {
		return 0, 0, 0, fmt.Errorf("corrdp: UtilityRate: %w", err)
	}
	if err := accounting.ValidateDelta(delta); err != nil {
		return 0, 0, 0, fmt.Errorf("corrdp: UtilityRate: %w", err)
	}
	if err := valid.UnitSlice("TV", tvU); err != nil {
		return 0, 0, 0, fmt.Errorf("corrdp: UtilityRate: %w", err)
	}
	m := ms + len(tvU)
	if m == 0 {
		return 0, 0, 0, errors.New("corrdp: UtilityRate: no coordinates")
	}
	fl := float64(ms*ms) / float64(m*m)
	var sumMax, sumTV float64
	for _, v := range tvU {
		sumMax += math.Max(v, fl)
		sumTV += v
	}
	l := math.Log(1 / delta)
	den := float64(n) * eps
	rate = math.Sqrt((float64(ms)+sumMax)*l) / den
	bound = math.Sqrt((float64(ms)+sumTV+float64(ms)/4)*l) / den
	standard = math.Sqrt(float64(m)*l) / den
	return rate, bound, standard, nil
}

// LowerBound returns the lower bound of Thm. 3.12,
//
//	min{ 1, √(m_s + max_k k·(TV_(k))²) / (n ε) },
//
// with TV_(1) ≥ TV_(2) ≥ … the sorted insensitive TVs, and the middle term
// M = max_k k·TV_(k)², which satisfies TV_(1)² ≤ M ≤ Σ_U TV(i).
func LowerBound(ms int, tvU []float64, eps float64, n int) (bound, mid float64, err error) {
	if ms < 0 || n < 1 {
		return 0, 0, fmt.Errorf("corrdp: LowerBound: m_s = %d, n = %d", ms, n)
	}
	if err := valid.Positive("ε", eps); err != nil {
		return 0, 0, fmt.Errorf("corrdp: LowerBound: %w", err)
	}
	if err := valid.UnitSlice("TV", tvU); err != nil {
		return 0, 0, fmt.Errorf("corrdp: LowerBound: %w", err)
	}
	s := append([]float64(nil), tvU...)
	sort.Sort(sort.Reverse(sort.Float64Slice(s)))
	for k, v := range s {
		mid = math.Max(mid, float64(k+1)*v*v)
	}
	return math.Min(1, math.Sqrt(float64(ms)+mid)/(float64(n)*eps)), mid, nil
}

// UCBTerm returns the confidence term of Def. 4.3,
//
//	2·c2·√(log(mU/δ)) / n^γ,
//
// with mU = m − m_s insensitive features, sample size n (or ñ of a public
// sample, Remark 4.5) and rate γ ∈ (0, 1/2] (1/2 for the Gaussian and
// discrete plug-in estimators, 1/3 or 1/(m_s+2) for histograms). Example:
// (n, mU, δ, γ) = (2000, 90, 1e-4, 1/2) gives 0.16559 for c2 = 1.
func UCBTerm(c2 float64, mU int, delta float64, n int, gamma float64) (float64, error) {
	if err := valid.NonNegative("c2", c2); err != nil {
		return 0, fmt.Errorf("corrdp: UCBTerm: %w", err)
	}
	if mU < 1 || n < 1 {
		return 0, fmt.Errorf("corrdp: UCBTerm: m − m_s = %d and n = %d, want ≥ 1", mU, n)
	}
	if err := accounting.ValidateDelta(delta); err != nil {
		return 0, fmt.Errorf("corrdp: UCBTerm: %w", err)
	}
	if err := valid.Probability("γ", gamma); err != nil {
		return 0, fmt.Errorf("corrdp: UCBTerm: %w", err)
	}
	return 2 * c2 * math.Sqrt(math.Log(float64(mU)/delta)) / math.Pow(float64(n), gamma), nil
}

// UCB returns TV~(i) = min{1, TV^(i) + term} (Def. 4.3, capped at 1
// because TV ≤ 1), with the independence pre-check of the proof of
// Thm. 4.4: when independenceCheck is set and TV^(i) ≤ term/2 (i.e.
// TV^ ≤ c2√(log(mU/δ))/n^γ) the feature is treated as independent and gets
// 0. term is UCBTerm's value. The guarantee with estimated TVs is
// (ε, 2δ)-CorrDP (Lemma A.1; EstimatedDelta) only if TV~ ≥ TV holds with
// probability ≥ 1 − δ (Ass. 4.1); with c2 = 1 it does not (see TVTilde).
func UCB(tvHat []float64, term float64, independenceCheck bool) ([]float64, error) {
	if err := valid.NonNegative("term", term); err != nil {
		return nil, fmt.Errorf("corrdp: UCB: %w", err)
	}
	if err := valid.UnitSlice("TV", tvHat); err != nil {
		return nil, fmt.Errorf("corrdp: UCB: %w", err)
	}
	out := make([]float64, len(tvHat))
	for i, v := range tvHat {
		if independenceCheck && v <= term/2 {
			continue
		}
		out[i] = math.Min(1, v+term)
	}
	return out, nil
}

// EstimatedDelta returns the δ of CorrDP-SGD with estimated TVs
// (Thm. 4.4, Lemma A.1): 2δ — δ for the mechanism plus δ for the failure
// of the UCB event TV~ ≥ TV. It presumes that event fails with
// probability ≤ δ (Ass. 4.1), which the heuristic c2 = 1 does not give
// (see TVTilde); the caller must establish it.
func EstimatedDelta(delta float64) (float64, error) {
	if err := accounting.ValidateDelta(delta); err != nil {
		return 0, fmt.Errorf("corrdp: EstimatedDelta: %w", err)
	}
	return 2 * delta, nil
}

// Noise is the heterogeneous Gaussian noise N(0, diag σ²) of a CorrDP
// noise plan, read on the feature coordinates, with what its honest
// accounting needs: it is added at each of Steps full-batch steps to a
// batch-mean gradient of N examples whose per-example contributions are
// clipped to L2 norm Lipschitz (docs/corrdp.md, 'Guarantee and
// conversion'). For a GLM the coordinates are the model's parameters, so
// Sigma2[i] is the square of the plan's Std[i] (PlanNoise builds it).
//
// Model of the coordinates a change moves ("paper model", the proof of
// Thm. 3.7 of the CorrDP paper): a change of the sensitive block moves
// only the sensitive coordinates, a change of insensitive coordinate j
// only coordinate j; the whole L2 sensitivity Δ may fall on the
// least-noised moved coordinate. With Leakage every change may move every
// coordinate (a GLM gradient ℓ'(θᵀx)·x): then Semi (σ = 0 on U) has no
// guarantee.
type Noise struct {
	// Sigma2 is the noise variance σ_i² ≥ 0 of every coordinate.
	Sigma2 []float64
	// Sensitive marks the coordinates of sensitive features.
	Sensitive []bool
	// Lipschitz is the per-example L2 clip L > 0.
	Lipschitz float64
	// N is the batch (dataset) size n ≥ 1 and Steps the number T ≥ 1 of
	// full-batch steps.
	N, Steps int
	// Leakage lets every change move every coordinate.
	Leakage bool
}

// SensitiveChange is the change argument of Noise.Loss for a change of the
// sensitive block of one record.
const SensitiveChange = -1

// validate checks the noise for Loss and Honesty.
func (x Noise) validate() error {
	m := len(x.Sigma2)
	if m == 0 || len(x.Sensitive) != m {
		return fmt.Errorf("%d variances and %d S/U flags, want as many (≥ 1)", m, len(x.Sensitive))
	}
	if err := valid.Positive("L", x.Lipschitz); err != nil {
		return err
	}
	if x.N < 1 || x.Steps < 1 {
		return fmt.Errorf("n = %d and T = %d, want ≥ 1", x.N, x.Steps)
	}
	for i, s := range x.Sigma2 {
		if err := valid.NonNegative(fmt.Sprintf("σ²[%d]", i), s); err != nil {
			return err
		}
	}
	return nil
}

// sensitivity returns the L2 sensitivity of the batch-mean gradient under
// rel: 2L/n for replace-one (both the removed and the added example move
// it), L/n for add/remove.
func (x Noise) sensitivity(rel accounting.Relation) (float64, error) {
	switch rel {
	case accounting.RelationReplaceOne:
		return 2 * x.Lipschitz / float64(x.N), nil
	case accounting.RelationAddRemove:
		return x.Lipschitz / float64(x.N), nil
	}
	return 0, fmt.Errorf("relation %v: the honest loss is stated for %v (sensitivity 2L/n) or %v (L/n)",
		rel, accounting.RelationReplaceOne, accounting.RelationAddRemove)
}

// minVariance returns the smallest variance among the coordinates a
// change moves (change = SensitiveChange: the sensitive block; j ≥ 0: the
// insensitive coordinate j), under the paper model or with leakage.
func (x Noise) minVariance(change int) (float64, error) {
	if change != SensitiveChange && (change < 0 || change >= len(x.Sigma2) || x.Sensitive[change]) {
		return 0, fmt.Errorf("change %d is neither SensitiveChange nor an insensitive coordinate of %d", change, len(x.Sigma2))
	}
	v, moved := math.Inf(1), false
	for i, s := range x.Sigma2 {
		if x.Leakage || (change == SensitiveChange && x.Sensitive[i]) || i == change {
			v, moved = math.Min(v, s), true
		}
	}
	if !moved {
		return 0, errors.New("no sensitive coordinate for a sensitive change")
	}
	return v, nil
}

// rho returns the zCDP ρ = T·Δ²/(2σ_min²) of a change (+Inf when a moved
// coordinate has no noise): T Gaussian steps of sensitivity Δ and
// variance σ_min² compose to this ρ (Bun & Steinke 2016, Prop. 1.6 and
// Lemma 1.7).
func (x Noise) rho(change int, rel accounting.Relation) (float64, error) {
	sens, err := x.sensitivity(rel)
	if err != nil {
		return 0, err
	}
	v, err := x.minVariance(change)
	if err != nil {
		return 0, err
	}
	if v == 0 {
		return math.Inf(1), nil
	}
	return float64(x.Steps) * sens * sens / (2 * v), nil
}

// Loss returns the honest privacy loss of the noise for one change
// (SensitiveChange, or the index of an insensitive coordinate) under
// relation rel (accounting.RelationReplaceOne, Δ = 2L/n, or
// accounting.RelationAddRemove, Δ = L/n): ρ-zCDP with
//
//	ρ = T·Δ²/(2σ_min²),
//
// σ_min² the smallest variance among the coordinates the change moves
// (see Noise; Bun & Steinke 2016, Prop. 1.6 and Lemma 1.7). Compose it on
// an accounting.Ledger of relation rel. Minibatch subsampling is not
// modelled (the full-batch loss is an upper bound).
//
// Errors: invalid noise, a relation other than the two above, a change
// that is not SensitiveChange or an insensitive coordinate, or a moved
// coordinate without noise (σ² = 0: no guarantee).
func (x Noise) Loss(change int, rel accounting.Relation) (accounting.Loss, error) {
	if err := x.validate(); err != nil {
		return accounting.Loss{}, fmt.Errorf("corrdp: Noise.Loss: %w", err)
	}
	rho, err := x.rho(change, rel)
	if err != nil {
		return accounting.Loss{}, fmt.Errorf("corrdp: Noise.Loss: %w", err)
	}
	if math.IsInf(rho, 1) {
		return accounting.Loss{}, fmt.Errorf("corrdp: Noise.Loss: change %d moves a coordinate without noise: no guarantee", change)
	}
	l, err := accounting.ZCDPLoss(rho, rel)
	if err != nil {
		return accounting.Loss{}, fmt.Errorf("corrdp: Noise.Loss: %w", err)
	}
	return l, nil
}

// zcdpRouteEpsilon composes l alone on an accounting.Ledger of its
// relation and returns the ε of the ledger's zCDP route at δ, i.e.
// accounting.ZCDPEpsilon(ρ, δ) = ρ + 2√(ρ log(1/δ)) (Bun & Steinke 2016,
// Prop. 1.3). The route is read rather than the ledger's best (which may
// take the RDP route to a smaller ε), so the ε Honesty reports is the one
// it has always reported.
func zcdpRouteEpsilon(l accounting.Loss, delta float64) (float64, error) {
	led, err := accounting.NewLedger(l.Relation(), accounting.DefaultOrders())
	if err != nil {
		return 0, err
	}
	if err := led.Add(l); err != nil {
		return 0, err
	}
	rep, err := led.Epsilon(delta, accounting.DefaultConversion)
	if err != nil {
		return 0, err
	}
	for _, r := range rep.Routes {
		if r.Route == accounting.RouteZCDP && r.Valid {
			return r.Epsilon, nil
		}
	}
	return 0, fmt.Errorf("the ledger has no zCDP route for %v", l)
}

// HonestyRow is the honest accounting of one change.
type HonestyRow struct {
	// Change names the change: "sensitive", or "insensitive j"
	// (coordinate j changed alone).
	Change string
	// Coord is the coordinate index for an insensitive change,
	// SensitiveChange (−1) for a sensitive change.
	Coord int
	// TV is d(D, D') of the change (1 for sensitive).
	TV float64
	// Rho is the zCDP parameter after T steps (Noise.Loss); +Inf when a
	// moved coordinate has no noise.
	Rho float64
	// Eps is the (ε, δ)-DP ε of the ledger's zCDP route,
	// ρ + 2√(ρ log(1/δ)) (accounting.ZCDPEpsilon; Bun & Steinke 2016,
	// Prop. 1.3); +Inf with Rho.
	Eps float64
	// Claimed is the budget the paper claims: ε for a sensitive change,
	// ε/TV for an insensitive one (+Inf when TV = 0).
	Claimed float64
	// Holds is Eps ≤ Claimed (with 1e-12 relative slack).
	Holds bool
}

// Honesty reports the (ε, δ) each change actually gets from the noise
// N(0, diag σ²) of a CorrDP plan (see Noise for the model, with sigma2,
// sensitive, lipschitz = L, n, steps = T and leakage its fields), next to
// the ε and ε/TV(i) claimed by the paper (docs/corrdp.md, 'Guarantee and
// conversion'): one row for the sensitive block (if any) and one per
// insensitive coordinate. Each row's loss is Noise.Loss under rel
// (accounting.RelationReplaceOne or accounting.RelationAddRemove),
// composed on an accounting.Ledger and converted by its zCDP route. With
// Algorithm 1's σ² of eq. (4) this gives ε_S = 2.7131ε + 0.1598ε²
// (replace-one) and 1.3565ε + 0.0400ε² (add/remove) at δ = 1e-5. tv is the
// per-coordinate TV (ignored on S), claimedEps the paper's ε.
func Honesty(sigma2 []float64, sensitive []bool, tv []float64, lipschitz float64, n, steps int, claimedEps, delta float64, rel accounting.Relation, leakage bool) ([]HonestyRow, error) {
	x := Noise{Sigma2: sigma2, Sensitive: sensitive, Lipschitz: lipschitz, N: n, Steps: steps, Leakage: leakage}
	if err := x.validate(); err != nil {
		return nil, fmt.Errorf("corrdp: Honesty: %w", err)
	}
	if len(tv) != len(sigma2) {
		return nil, fmt.Errorf("corrdp: Honesty: %d TVs for %d variances", len(tv), len(sigma2))
	}
	if err := valid.First(valid.Positive("ε", claimedEps), accounting.ValidateDelta(delta), valid.UnitSlice("TV", tv)); err != nil {
		return nil, fmt.Errorf("corrdp: Honesty: %w", err)
	}
	if _, err := x.sensitivity(rel); err != nil {
		return nil, fmt.Errorf("corrdp: Honesty: %w", err)
	}
	h := honesty{noise: x, rel: rel, delta: delta, claimed: claimedEps, eps: map[float64]float64{}}
	h.minS, h.minAll = math.Inf(1), math.Inf(1)
	for i, s := range sigma2 {
		h.minAll = math.Min(h.minAll, s)
		if sensitive[i] {
			h.minS = math.Min(h.minS, s)
		}
	}
	var rows []HonestyRow
	if slices.Contains(sensitive, true) {
		r, err := h.row("sensitive", SensitiveChange, 1)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	for j, s := range sensitive {
		if s {
			continue
		}
		r, err := h.row(fmt.Sprintf("insensitive %d", j), j, tv[j])
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// honesty is the state of one Honesty call: the validated noise, the
// smallest variances (computed once, so a report on m coordinates costs
// O(m)) and the ε of each ρ already converted.
type honesty struct {
	noise          Noise
	rel            accounting.Relation
	delta, claimed float64
	minS, minAll   float64
	eps            map[float64]float64
}

// row is the row of one change with TV d: ρ from the smallest variance the
// change moves (as Noise.minVariance), its loss (accounting.ZCDPLoss, as
// Noise.Loss) composed on a ledger and read by the zCDP route.
func (h *honesty) row(change string, coord int, d float64) (HonestyRow, error) {
	x := h.noise
	r := HonestyRow{Change: change, Coord: coord, TV: d, Rho: math.Inf(1), Eps: math.Inf(1), Claimed: math.Inf(1)}
	if d != 0 {
		r.Claimed = h.claimed / d
	}
	v := h.minS
	switch {
	case x.Leakage:
		v = h.minAll
	case coord != SensitiveChange:
		v = x.Sigma2[coord]
	}
	sens, _ := x.sensitivity(h.rel) // checked by Honesty
	if rho := float64(x.Steps) * sens * sens / (2 * v); v > 0 && !math.IsInf(rho, 1) {
		eps, ok := h.eps[rho]
		if !ok {
			l, err := accounting.ZCDPLoss(rho, h.rel)
			if err != nil {
				return r, fmt.Errorf("corrdp: Honesty: %s: %w", change, err)
			}
			if eps, err = zcdpRouteEpsilon(l, h.delta); err != nil {
				return r, fmt.Errorf("corrdp: Honesty: %s: %w", change, err)
			}
			h.eps[rho] = eps
		}
		r.Rho, r.Eps = rho, eps
	}
	r.Holds = r.Eps <= r.Claimed*(1+1e-12)
	return r, nil
}

// GaussianRenyi returns the Rényi divergence of order α > 0, α ≠ 1,
// between the univariate Gaussians N(μ1, s1²) and N(μ2, s2²) (Lemma A.3;
// Gil et al. 2013):
//
//	D_α = ln(s2/s1) + ln(s2²/s_α²)/(2(α−1)) + α(μ1−μ2)²/(2 s_α²),  s_α² = (1−α)s1² + α s2²,
//
// which requires s_α² > 0 (else +Inf); α → 1 gives the KL divergence (use α = 1 to get
// it directly).
func GaussianRenyi(alpha, mu1, s1, mu2, s2 float64) (float64, error) {
	if err := valid.Positive("α", alpha); err != nil {
		return 0, fmt.Errorf("corrdp: GaussianRenyi: %w", err)
	}
	if !(s1 > 0) || !(s2 > 0) || math.IsInf(s1, 1) || math.IsInf(s2, 1) || math.IsNaN(mu1) || math.IsNaN(mu2) {
		return 0, fmt.Errorf("corrdp: GaussianRenyi: N(%v, %v²) vs N(%v, %v²)", mu1, s1, mu2, s2)
	}
	dm := mu1 - mu2
	if alpha == 1 {
		return math.Log(s2/s1) + (s1*s1+dm*dm)/(2*s2*s2) - 0.5, nil
	}
	sa2 := (1-alpha)*s1*s1 + alpha*s2*s2
	if !(sa2 > 0) {
		return math.Inf(1), nil
	}
	return math.Log(s2/s1) + 0.5*math.Log(s2*s2/sa2)/(alpha-1) + alpha*dm*dm/(2*sa2), nil
}

// StationaryGap returns the expected stationary excess loss of
// constant-step full-batch GD with additive noise N(0, diag σ²) on a
// quadratic with Hessian H (m×m row-major): 0.5·α·tr((2I − αH)⁻¹ diag σ²),
// ≈ (α/4)Σσ_i² when αλ_max(H) is small.
func StationaryGap(hessian []float64, m int, alpha float64, sigma2 []float64) (float64, error) {
	if m < 1 || len(hessian) != m*m || len(sigma2) != m || !(alpha > 0) {
		return 0, fmt.Errorf("corrdp: StationaryGap: m = %d, |H| = %d, |σ²| = %d, α = %v", m, len(hessian), len(sigma2), alpha)
	}
	a := mat.NewDense(m, m, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			v := -alpha * hessian[i*m+j]
			if i == j {
				v += 2
			}
			a.Set(i, j, v)
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(a); err != nil {
		return 0, fmt.Errorf("corrdp: StationaryGap: 2I − αH is singular: %w", err)
	}
	var tr float64
	for i := 0; i < m; i++ {
		tr += inv.At(i, i) * sigma2[i]
	}
	return 0.5 * alpha * tr, nil
}
