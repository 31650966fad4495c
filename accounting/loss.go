package accounting

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/featuredp/featuredp/internal/numeric"
)

// LossKind says which parametrisation a Loss has.
type LossKind int

const (
	// LossPure is pure ε-DP.
	LossPure LossKind = iota
	// LossApprox is (ε, δ)-DP with δ > 0 and no RDP curve.
	LossApprox
	// LossZCDP is ρ-zCDP (Bun & Steinke 2016, Def. 1.1).
	LossZCDP
	// LossGaussian is one Gaussian mechanism: noise σ on a query of L2
	// sensitivity Δ under the loss's relation.
	LossGaussian
	// LossGDP is μ-GDP (Dong, Roth & Su 2019, Def. 2.6).
	LossGDP
	// LossSubsampledGaussian is a Phase: T steps of the Poisson-subsampled
	// Gaussian mechanism (Mironov, Talwar & Zhang 2019).
	LossSubsampledGaussian
	// LossRDP is an RDP curve given at finitely many orders.
	LossRDP
	// LossCurve is an RDP curve given as a function (Curve) on a validity
	// interval [αmin, αmax] (smooth-RDP pipelines and other notions).
	LossCurve
)

var lossKindNames = [...]string{"pure", "approx", "zcdp", "gaussian", "gdp", "subsampled_gaussian", "rdp", "curve"}

// String returns "pure", "approx", "zcdp", "gaussian", "gdp",
// "subsampled_gaussian", "rdp" or "curve".
func (k LossKind) String() string {
	if k >= 0 && int(k) < len(lossKindNames) {
		return lossKindNames[k]
	}
	return fmt.Sprintf("LossKind(%d)", int(k))
}

// Loss is a privacy loss as a value: one parametrisation (pure ε, (ε, δ),
// zCDP ρ, Gaussian σ/Δ, GDP μ, subsampled-Gaussian phase, RDP at given
// orders, or an RDP function with a validity interval) together with the
// neighbouring Relation it holds for. Build it with PureLoss, ApproxLoss,
// ZCDPLoss, GaussianLoss, GDPLoss, SubsampledGaussianLoss, RDPLoss or
// CurveLoss, which validate; the zero value is the pure 0-DP loss under
// add/remove (nothing released). A Loss is immutable: ChangeRelation and
// WithName return new values.
//
// Every kind except LossApprox has an RDP curve (RDP), which is how a
// Ledger composes them; docs/accounting.md gives each curve and its source.
type Loss struct {
	kind     LossKind
	rel      Relation
	eps, del float64 // pure, approx
	rho      float64 // zcdp
	sigma    float64 // gaussian
	sens     float64 // gaussian
	mu       float64 // gdp
	phase    Phase   // subsampled gaussian
	// chain is the number of two-step chains applied to a curve kind
	// (subsampled gaussian, rdp, curve): ε′(α) = 3^chain·ε(2^chain·α) for
	// α ≥ 2 (Mironov 2017, Prop. 2 with c = 1, applied chain times).
	chain int
	ext   *lossExt // nil for none: keeps the common kinds small to copy
}

// lossExt holds the rarely used parts of a Loss. It is never modified
// after the Loss holding it is returned (copies are made instead).
type lossExt struct {
	name    string
	orders  []float64
	values  []float64 // rdp, sorted by order
	curve   Curve
	lo, hi  float64  // curve validity interval
	changes []string // the relation changes applied, with sources
	origin  Relation // the relation before the first change
}

var noExt lossExt

// x returns the loss's extension for reading.
func (l Loss) x() *lossExt {
	if l.ext == nil {
		return &noExt
	}
	return l.ext
}

// withExt returns l with a copy of its extension for writing.
func (l Loss) withExt() (Loss, *lossExt) {
	e := *l.x()
	l.ext = &e
	return l, &e
}

// finiteNonNeg reports an error naming the field unless v is finite and >= 0.
func finiteNonNeg(field string, v float64) error {
	if math.IsNaN(v) || v < 0 || math.IsInf(v, 1) {
		return fmt.Errorf("accounting: %s %v is not finite and >= 0", field, v)
	}
	return nil
}

func checkRelation(rel Relation) error {
	if !rel.valid() {
		return fmt.Errorf("accounting: unknown relation %d (want one of %s)", int(rel), strings.Join(relationNames[:], ", "))
	}
	return nil
}

// PureLoss is pure ε-DP under rel. Its RDP is that of randomized response,
// the worst case of every ε-DP mechanism (see PureRDP).
//
// Errors: ε NaN, negative or +Inf; an unknown relation.
func PureLoss(eps float64, rel Relation) (Loss, error) {
	if err := finiteNonNeg("epsilon", eps); err != nil {
		return Loss{}, err
	}
	if err := checkRelation(rel); err != nil {
		return Loss{}, err
	}
	return Loss{kind: LossPure, rel: rel, eps: eps}, nil
}

// ApproxLoss is (ε, δ)-DP under rel, for a mechanism known only by its
// (ε, δ): it has no RDP curve and a Ledger composes it by basic
// composition (Σε, Σδ; Dwork & Roth 2014, Thm 3.16). δ = 0 gives PureLoss.
//
// Errors: ε NaN, negative or +Inf; δ NaN or outside [0, 1); an unknown
// relation.
func ApproxLoss(eps, delta float64, rel Relation) (Loss, error) {
	if delta == 0 {
		return PureLoss(eps, rel)
	}
	if err := finiteNonNeg("epsilon", eps); err != nil {
		return Loss{}, err
	}
	if math.IsNaN(delta) || !(delta > 0 && delta < 1) {
		return Loss{}, fmt.Errorf("accounting: delta %v not in [0, 1)", delta)
	}
	if err := checkRelation(rel); err != nil {
		return Loss{}, err
	}
	return Loss{kind: LossApprox, rel: rel, eps: eps, del: delta}, nil
}

// ZCDPLoss is ρ-zCDP under rel: RDP αρ at every order (Bun & Steinke 2016,
// Def. 1.1).
//
// Errors: ρ NaN, negative or +Inf; an unknown relation.
func ZCDPLoss(rho float64, rel Relation) (Loss, error) {
	if err := finiteNonNeg("rho", rho); err != nil {
		return Loss{}, err
	}
	if err := checkRelation(rel); err != nil {
		return Loss{}, err
	}
	return Loss{kind: LossZCDP, rel: rel, rho: rho}, nil
}

// GaussianLoss is one Gaussian mechanism: noise of standard deviation
// sigma on a query whose L2 sensitivity under rel is sens. RDP
// α·Δ²/(2σ²) (Mironov 2017, Prop. 7), zCDP Δ²/(2σ²), GDP μ = Δ/σ (Dong,
// Roth & Su 2019, Thm 2.7). sigma = +Inf releases nothing.
//
// Errors: sigma NaN or not > 0; sens not finite and > 0; an unknown
// relation.
func GaussianLoss(sigma, sens float64, rel Relation) (Loss, error) {
	if math.IsNaN(sigma) || !(sigma > 0) {
		return Loss{}, fmt.Errorf("accounting: sigma %v is not > 0", sigma)
	}
	if err := ValidateSensitivity(sens); err != nil {
		return Loss{}, err
	}
	if err := checkRelation(rel); err != nil {
		return Loss{}, err
	}
	return Loss{kind: LossGaussian, rel: rel, sigma: sigma, sens: sens}, nil
}

// GDPLoss is μ-GDP under rel. By Blackwell's theorem (Dong, Roth & Su
// 2019, Thm 2.10) its output pair is a post-processing of N(0, 1),
// N(μ, 1), so its RDP is at most αμ²/2.
//
// Errors: μ NaN, negative or +Inf; an unknown relation.
func GDPLoss(mu float64, rel Relation) (Loss, error) {
	if err := finiteNonNeg("mu", mu); err != nil {
		return Loss{}, err
	}
	if err := checkRelation(rel); err != nil {
		return Loss{}, err
	}
	return Loss{kind: LossGDP, rel: rel, mu: mu}, nil
}

// SubsampledGaussianLoss is a phase of the Poisson-subsampled Gaussian
// mechanism: p.Steps × RDPSubsampledGaussian(q, z, α). Its relation is
// add/remove, the one that RDP is proven for (Mironov, Talwar & Zhang
// 2019); use ChangeRelation for another.
//
// Errors: an invalid phase (Phase.Validate).
func SubsampledGaussianLoss(p Phase) (Loss, error) {
	if err := p.Validate(); err != nil {
		return Loss{}, err
	}
	return Loss{kind: LossSubsampledGaussian, rel: RelationAddRemove, phase: p}, nil
}

// RDPLoss is an RDP curve under rel known at finitely many orders:
// values[k] bounds the Rényi divergence of order orders[k] (+Inf: no
// bound). Between two given orders a Ledger uses the convexity of
// (α−1)·D_α in α (it is the log of a moment generating function; van Erven
// & Harremoës 2014, Cor. 2); below the smallest, monotonicity (the same
// paper, Thm 3); above the largest, no bound (+Inf) — each a valid upper
// bound, with a note. The slices are copied.
//
// Errors: no orders, lengths that differ, an order NaN or not > 1 or
// repeated, a value NaN or negative, an unknown relation.
func RDPLoss(orders, values []float64, rel Relation) (Loss, error) {
	if err := checkRDPVector(orders, values); err != nil {
		return Loss{}, err
	}
	if err := checkRelation(rel); err != nil {
		return Loss{}, err
	}
	idx := make([]int, len(orders))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return orders[idx[i]] < orders[idx[j]] })
	e := &lossExt{orders: make([]float64, len(orders)), values: make([]float64, len(orders))}
	l := Loss{kind: LossRDP, rel: rel, ext: e}
	for k, i := range idx {
		e.orders[k], e.values[k] = orders[i], values[i]
		if k > 0 && e.orders[k] == e.orders[k-1] {
			return Loss{}, fmt.Errorf("accounting: RDP order %v is given twice", orders[i])
		}
	}
	return l, nil
}

// CurveLoss is an RDP curve under rel given as a function, valid for
// orders in [alphaMin, alphaMax] (+Inf outside: no guarantee there), as the
// smooth-RDP curves of docs/smooth-rdp.md. name labels it in reports.
//
// Errors: a nil curve, alphaMin NaN or < 1, alphaMax NaN or < alphaMin,
// an unknown relation.
func CurveLoss(name string, c Curve, alphaMin, alphaMax float64, rel Relation) (Loss, error) {
	if c == nil {
		return Loss{}, errors.New("accounting: nil RDP curve")
	}
	if math.IsNaN(alphaMin) || alphaMin < 1 || math.IsNaN(alphaMax) || alphaMax < alphaMin {
		return Loss{}, fmt.Errorf("accounting: validity interval [%v, %v] is not an interval of orders >= 1", alphaMin, alphaMax)
	}
	if err := checkRelation(rel); err != nil {
		return Loss{}, err
	}
	return Loss{kind: LossCurve, rel: rel, ext: &lossExt{name: name, curve: c, lo: alphaMin, hi: alphaMax}}, nil
}

// Kind returns the loss's parametrisation.
func (l Loss) Kind() LossKind { return l.kind }

// Relation returns the neighbouring relation the loss holds for.
func (l Loss) Relation() Relation { return l.rel }

// Changes returns the relation changes applied to the loss, each with its
// source, in order (nil for none).
func (l Loss) Changes() []string { return append([]string(nil), l.x().changes...) }

// WithName returns the loss labelled name in reports.
func (l Loss) WithName(name string) Loss {
	l, e := l.withExt()
	e.name = name
	return l
}

// String describes the loss: its name if it has one, else its kind and
// parameters (after any relation change), then its relation (after a
// change, "from → to").
func (l Loss) String() string {
	if x := l.x(); len(x.changes) > 0 {
		return l.label() + " (" + x.origin.String() + " → " + l.rel.String() + ")"
	}
	return l.label() + " (" + l.rel.String() + ")"
}

func (l Loss) label() string {
	if n := l.x().name; n != "" {
		return n
	}
	g := func(v float64) string { return fmt.Sprintf("%g", v) }
	var s string
	switch l.kind {
	case LossPure:
		s = "pure ε=" + g(l.eps)
	case LossApprox:
		s = "approx ε=" + g(l.eps) + " δ=" + g(l.del)
	case LossZCDP:
		s = "zcdp ρ=" + g(l.rho)
	case LossGaussian:
		s = "gaussian σ=" + g(l.sigma) + " Δ=" + g(l.sens)
	case LossGDP:
		s = "gdp μ=" + g(l.mu)
	case LossSubsampledGaussian:
		s = fmt.Sprintf("subsampled_gaussian q=%g z=%g T=%d", l.phase.SampleRate, l.phase.NoiseMultiplier, l.phase.Steps)
	case LossRDP:
		s = fmt.Sprintf("rdp at %d orders", len(l.x().orders))
	default:
		s = "curve"
	}
	if l.chain > 0 {
		s = fmt.Sprintf("%s, two-step chain ×%d", s, l.chain)
	}
	return s
}

// ApproxDP returns the (ε, δ) of a pure (δ = 0) or approx loss; ok is
// false for the other kinds, whose (ε, δ) depends on δ (use a Ledger).
func (l Loss) ApproxDP() (eps, delta float64, ok bool) {
	if l.kind == LossPure || l.kind == LossApprox {
		return l.eps, l.del, true
	}
	return 0, 0, false
}

// Rho returns the zCDP parameter of the loss when it has one: ε²/2 for
// pure ε-DP (Bun & Steinke 2016, Prop. 1.4), ρ, Δ²/(2σ²) for the Gaussian
// mechanism (Prop. 1.6), μ²/2 for μ-GDP. ok is false for the other kinds.
func (l Loss) Rho() (rho float64, ok bool) {
	switch l.kind {
	case LossPure:
		return l.eps * l.eps / 2, true
	case LossZCDP:
		return l.rho, true
	case LossGaussian, LossGDP:
		mu, _ := l.Mu()
		return mu * mu / 2, true
	}
	return 0, false
}

// Mu returns the GDP parameter of a Gaussian (Δ/σ) or GDP loss; ok is false
// for the other kinds.
func (l Loss) Mu() (mu float64, ok bool) {
	switch l.kind {
	case LossGaussian:
		return l.sens / l.sigma, true
	case LossGDP:
		return l.mu, true
	}
	return 0, false
}

// HasCurve reports whether the loss has an RDP curve (every kind but
// LossApprox).
func (l Loss) HasCurve() bool { return l.kind != LossApprox }

// trivial reports, from the inputs only, whether the loss releases nothing
// ((0, 0)-DP).
func (l Loss) trivial() bool {
	switch l.kind {
	case LossPure:
		return l.eps == 0
	case LossZCDP:
		return l.rho == 0
	case LossGaussian:
		return math.IsInf(l.sigma, 1)
	case LossGDP:
		return l.mu == 0
	case LossSubsampledGaussian:
		return trivialPhase(l.phase.SampleRate, l.phase.NoiseMultiplier, l.phase.Steps)
	}
	return false
}

// errNoCurve is returned by RDP for a loss known only by its (ε, δ).
var errNoCurve = errors.New("accounting: an (ε, δ) loss has no RDP curve (a Ledger composes it by basic composition)")

// RDP returns the loss's RDP at every order of the grid (checked with
// ValidateOrders), with notes for the orders where a valid upper bound
// replaced the exact value. The curve of each kind:
//
//   - pure ε: PureRDP, the RDP of randomized response;
//   - zCDP ρ: αρ; Gaussian: αΔ²/(2σ²); GDP μ: αμ²/2;
//   - subsampled Gaussian: T × RDPSubsampledGaussian(q, z, α);
//   - RDP at given orders: the value there, else the interpolation of
//     RDPLoss;
//   - curve: its value on [αmin, αmax], +Inf outside;
//
// and after n two-step chains (ChangeRelation) of the last three,
// 3ⁿ·ε(2ⁿα) for α ≥ 2, +Inf below.
//
// Errors: an (ε, δ) loss (no curve), an invalid grid, a curve's error or
// invalid value.
func (l Loss) RDP(orders []float64) ([]float64, []RDPNote, error) {
	if err := ValidateOrders(orders); err != nil {
		return nil, nil, err
	}
	out := make([]float64, len(orders))
	notes, err := l.addRDP(out, orders, &workBudget{left: maxSGMWork})
	if err != nil {
		return nil, nil, err
	}
	return out, notes, nil
}

// addRDP adds the loss's RDP to out[k] at every order (orders valid),
// drawing subsampled-Gaussian series terms from budget.
func (l Loss) addRDP(out, orders []float64, budget *workBudget) ([]RDPNote, error) {
	switch l.kind {
	case LossApprox:
		return nil, errNoCurve
	case LossPure:
		for k, a := range orders {
			out[k] += PureRDP(l.eps, a)
		}
		return nil, nil
	case LossZCDP, LossGaussian, LossGDP:
		rho, _ := l.Rho()
		for k, a := range orders {
			out[k] += linearRDP(rho, a)
		}
		return nil, nil
	}
	return l.addChainedRDP(out, orders, budget)
}

// linearRDP is αρ, with 0 for ρ = 0 at every order (+Inf included).
func linearRDP(rho, a float64) float64 {
	if rho == 0 {
		return 0
	}
	return a * rho
}

// addChainedRDP evaluates the curve kinds at 2^chain·α, scaled by
// 3^chain, +Inf below α = 2 when chain > 0.
func (l Loss) addChainedRDP(out, orders []float64, budget *workBudget) ([]RDPNote, error) {
	mul, scale := math.Ldexp(1, l.chain), math.Pow(3, float64(l.chain))
	at := orders
	if l.chain > 0 {
		at = make([]float64, len(orders))
		for k, a := range orders {
			at[k] = mul * a
			if a < 2 {
				at[k] = 2 // evaluated, then replaced by +Inf below
			}
		}
	}
	vals := make([]float64, len(orders))
	notes, err := l.baseRDP(vals, at, budget)
	if err != nil {
		return nil, err
	}
	for k, a := range orders {
		v := scale * vals[k]
		if l.chain > 0 && a < 2 {
			v = math.Inf(1)
		}
		out[k] += v
	}
	for i := range notes {
		notes[i].Order /= mul
	}
	return notes, nil
}

// baseRDP writes the un-chained curve of a curve kind at every order.
func (l Loss) baseRDP(vals, at []float64, budget *workBudget) ([]RDPNote, error) {
	switch l.kind {
	case LossSubsampledGaussian:
		p := l.phase
		return addRDPBudget(vals, p.SampleRate, p.NoiseMultiplier, p.Steps, at, budget), nil
	case LossRDP:
		x := l.x()
		var notes []RDPNote
		for k, a := range at {
			v, note := interpRDP(x.orders, x.values, a)
			vals[k] = v
			if note.Method != RDPExact {
				notes = append(notes, note)
			}
		}
		return notes, nil
	case LossCurve:
		x := l.x()
		for k, a := range at {
			if !(a >= x.lo && a <= x.hi) {
				vals[k] = math.Inf(1)
				continue
			}
			v, err := x.curve(a)
			if err != nil {
				return nil, fmt.Errorf("accounting: RDP curve %q at order %v: %w", x.name, a, err)
			}
			if math.IsNaN(v) || v < 0 {
				return nil, fmt.Errorf("accounting: RDP curve %q at order %v is %v, not >= 0", x.name, a, v)
			}
			vals[k] = v
		}
		return nil, nil
	}
	return nil, fmt.Errorf("accounting: loss kind %v has no RDP curve", l.kind)
}

// interpAllowance is the relative rounding allowance added to an
// interpolated or closed-form RDP value computed through a few roundings.
const interpAllowance = 0x1p-44

// interpRDP evaluates an RDP curve known at sorted orders at order a: the
// given value, or the convexity bound of (α−1)·D_α between the two
// neighbouring orders (capped by the upper neighbour's value, by
// monotonicity), or the smallest order's value below it, or +Inf above the
// largest order.
func interpRDP(orders, values []float64, a float64) (float64, RDPNote) {
	i := sort.SearchFloat64s(orders, a)
	switch {
	case i < len(orders) && orders[i] == a:
		return values[i], RDPNote{Order: a, Method: RDPExact}
	case i == len(orders):
		return math.Inf(1), RDPNote{Order: a, Method: RDPInterpolated, Reason: "above the largest order given: no bound"}
	case i == 0:
		return values[0], RDPNote{Order: a, Method: RDPInterpolated, Reason: fmt.Sprintf("below the smallest order given: the value at %v (RDP is non-decreasing in α)", orders[0])}
	}
	b1, b2, v1, v2 := orders[i-1], orders[i], values[i-1], values[i]
	v := v2
	if !math.IsInf(b2, 1) && !math.IsInf(v2, 1) {
		// Both weights from their own differences: 1 − λ computed after
		// rounding λ loses the upper term when b2 ≫ a (λ rounds to 1) and
		// would put the bound below the lower order's value.
		lam, mu := (b2-a)/(b2-b1), (a-b1)/(b2-b1)
		c := (lam*(b1-1)*v1 + mu*(b2-1)*v2) / (a - 1) * (1 + interpAllowance)
		v = math.Min(v, c)
	}
	return v, RDPNote{Order: a, Method: RDPInterpolated, Reason: fmt.Sprintf("between the orders %v and %v given: convexity of (α−1)·RDP(α)", b1, b2)}
}

// PureRDP returns the Rényi DP of order alpha of an ε-DP mechanism: the
// largest Rényi divergence between two distributions whose likelihood
// ratio lies in [e^−ε, e^ε], attained by randomized response (by convexity
// of x ↦ x^α the extreme ratios are the worst case; Bun & Steinke 2016,
// Prop. 1.4 and the proof of Prop. 3.3):
//
//	D_α = log((e^{αε} + e^{−(α−1)ε}) / (1 + e^ε)) / (α−1)
//	    = log1p(2 sinh(αε/2) sinh((α−1)ε/2) / cosh(ε/2)) / (α−1)
//	    ≤ min(ε, αε²/2).
//
// It is computed by the second form (no cancellation) for αε ≤ 700 and as
// ε + (log1p(e^{−(2α−1)ε}) − log1p(e^{−ε}))/(α−1) above, raised by a
// rounding allowance of 2^-44 relative and capped by ε (exact: D_α ≤ D_∞ =
// ε). alpha = +Inf gives ε; a positive value below the smallest float64
// gives the smallest positive float64, never 0. Inputs: ε finite >= 0,
// alpha > 1 (not checked: PureLoss and ValidateOrders check them).
func PureRDP(eps, alpha float64) float64 {
	if eps == 0 {
		return 0
	}
	if math.IsInf(alpha, 1) {
		return eps
	}
	var r float64
	if alpha*eps <= 700 {
		x := 2 * math.Sinh(alpha*eps/2) * math.Sinh((alpha-1)*eps/2) / math.Cosh(eps/2)
		r = math.Log1p(x) / (alpha - 1)
	} else {
		r = eps + (math.Log1p(math.Exp(-(2*alpha-1)*eps))-math.Log1p(math.Exp(-eps)))/(alpha-1)
	}
	r = math.Min(r*(1+interpAllowance), eps)
	if r <= 0 {
		r = math.SmallestNonzeroFloat64
	}
	return r
}

// ZCDPEpsilon converts ρ-zCDP to (ε, δ)-DP (Bun & Steinke 2016, Prop. 1.3):
//
//	ε = ρ + 2√(ρ·log(1/δ)),
//
// the classic conversion of the RDP curve αρ minimised over every real
// order (α* = 1 + √(log(1/δ)/ρ)). log δ is numeric.Log (exact for
// subnormal δ). ρ = 0 gives 0. It is the one implementation of this
// formula in the module.
//
// Errors: ρ NaN, negative or +Inf; δ not in (0, 1).
func ZCDPEpsilon(rho, delta float64) (float64, error) {
	if err := finiteNonNeg("zCDP rho", rho); err != nil {
		return 0, err
	}
	if err := ValidateDelta(delta); err != nil {
		return 0, err
	}
	return zcdpEpsilon(rho, -numeric.Log(delta)), nil
}

// zcdpEpsilon is ρ + 2√(ρ·l) with l = log(1/δ).
func zcdpEpsilon(rho, l float64) float64 { return rho + 2*math.Sqrt(rho*l) }

// ChangeRelation returns the loss converted to relation to, through the
// elementary changes of docs/accounting.md (shortest path):
//
//   - same loss (the target's pairs are among the source's, or DP implies
//     feature DP, Mahloujifar et al. 2025, Prop. 2): add-remove →
//     feature-simulator, replace-one → feature, coordinate, label;
//   - two-step chain (group privacy of 2): add-remove → replace-one,
//     feature-simulator → feature (Mahloujifar et al. 2025, Prop. 1). Pure
//     ε → 2ε (Dwork & Roth 2014, Thm 2.2); (ε, δ) → (2ε, δ(1 + e^ε)) (the
//     chain Pr[M(S) ∈ T] ≤ e^ε(e^ε Pr[M(S″) ∈ T] + δ) + δ, as the
//     feature-DP Prop. 1); ρ → 4ρ (Bun & Steinke 2016, Prop. 1.9); Gaussian
//     Δ → 2Δ and μ → 2μ (Dong, Roth & Su 2019, Thm 2.14); any RDP curve
//     ε(α) → 3ε(2α) for α ≥ 2 (Mironov 2017, Prop. 2 with c = 1).
//
// Changes and their sources are recorded (Changes). The same relation
// returns l unchanged.
//
// Errors: no valid change exists (e.g. replace-one → add-remove, which
// would under-report), or a change makes δ ≥ 1 (vacuous).
func (l Loss) ChangeRelation(to Relation) (Loss, error) {
	path, err := relationPath(l.rel, to)
	if err != nil {
		return Loss{}, err
	}
	out, ext := l.withExt()
	if len(ext.changes) == 0 {
		ext.origin = l.rel
	}
	ext.changes = append([]string(nil), ext.changes...)
	for _, e := range path {
		edge := relationEdges[e]
		if edge.step == stepChain2 {
			if out, err = out.chain2(); err != nil {
				return Loss{}, fmt.Errorf("accounting: %v → %v: %w", edge.from, edge.to, err)
			}
		}
		out.rel = edge.to
		ext.changes = append(ext.changes, fmt.Sprintf("%v → %v: %s", edge.from, edge.to, edge.source))
	}
	return out, nil
}

// chain2 is the loss of a chain of two pairs of its relation.
func (l Loss) chain2() (Loss, error) {
	switch l.kind {
	case LossPure:
		l.eps *= 2
	case LossApprox:
		d := l.del * (1 + math.Exp(l.eps))
		if !(d < 1) {
			return Loss{}, fmt.Errorf("δ(1 + e^ε) = %v is not < 1 (vacuous)", d)
		}
		l.eps, l.del = 2*l.eps, d
	case LossZCDP:
		l.rho *= 4
	case LossGaussian:
		l.sens *= 2
	case LossGDP:
		l.mu *= 2
	default:
		l.chain++
	}
	if math.IsInf(l.eps, 1) || math.IsInf(l.rho, 1) || math.IsInf(l.sens, 1) || math.IsInf(l.mu, 1) {
		return Loss{}, errors.New("the changed parameter overflows")
	}
	return l, nil
}
