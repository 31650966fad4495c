package accounting

import (
	"fmt"
	"math"
)

// maxFracTerms caps the fractional-order series (see fracSeries). The terms
// from i = ⌈α⌉ on alternate in sign with decreasing magnitude, so wherever
// the series is stopped its tail is bounded by the last term added, which is
// added to the result: stopping early only loosens the upper bound.
const maxFracTerms = 1 << 20

// maxExactOrder: orders above it (never useful for (ε, δ) conversion, and
// costing time and memory linear in the order) get the RDP α/(2z²) of the
// un-subsampled Gaussian mechanism, a valid upper bound, instead of the
// exact series.
const maxExactOrder = 1 << 16

// fracRelTol: the fractional series stops once its last term (which bounds
// the tail) is below fracRelTol × (S − 1), S the partial sum, or below the
// rounding allowance of the sum.
const fracRelTol = 0x1p-43

// negligibleLog: a term below exp(−negligibleLog) = 4e-18 relative to the
// largest term of its sum is not evaluated: it cannot change a
// double-precision sum of fewer than ~1e3 terms.
const negligibleLog = 40.0

// ValidateSampleRate returns an error unless q is in [0, 1].
func ValidateSampleRate(q float64) error {
	if math.IsNaN(q) || q < 0 || q > 1 {
		return fmt.Errorf("accounting: sample rate %v not in [0, 1]", q)
	}
	return nil
}

// ValidateNoiseMultiplier returns an error unless z is >= 0 (or +Inf) and
// not NaN.
func ValidateNoiseMultiplier(z float64) error {
	if math.IsNaN(z) || z < 0 {
		return fmt.Errorf("accounting: noise multiplier %v is not >= 0 (or +Inf)", z)
	}
	return nil
}

// ValidateOrder returns an error unless the RDP order alpha is > 1 (+Inf is
// allowed).
func ValidateOrder(alpha float64) error {
	if math.IsNaN(alpha) || !(alpha > 1) {
		return fmt.Errorf("accounting: RDP order %v is not > 1", alpha)
	}
	return nil
}

// ValidateSteps returns an error if the number of steps is negative.
func ValidateSteps(steps int) error {
	if steps < 0 {
		return fmt.Errorf("accounting: number of steps %d is negative", steps)
	}
	return nil
}

// RDPGaussian returns the Rényi DP of order alpha of one Gaussian mechanism
// with noise multiplier z (noise standard deviation z × the L2 sensitivity),
// α/(2z²) (Mironov 2017, Prop. 7). It holds for whichever neighbouring
// relation the sensitivity is computed for (for a sum of contributions
// clipped to C: sensitivity C under add/remove-one, 2C under replace-one).
// No sampling: this is the full-batch case q = 1, no conversion.
//
// z = 0 gives +Inf, z = +Inf gives 0, alpha = +Inf gives +Inf (for z < ∞).
// Errors: z NaN or negative, alpha NaN or not > 1.
func RDPGaussian(z, alpha float64) (float64, error) {
	if err := ValidateNoiseMultiplier(z); err != nil {
		return 0, err
	}
	if err := ValidateOrder(alpha); err != nil {
		return 0, err
	}
	r, _ := newSGM(1, z).rdp(alpha)
	return r, nil
}

// RDPSubsampledGaussian returns the Rényi DP of order alpha of ONE step of
// the Poisson-subsampled Gaussian mechanism: every record is included
// independently with probability q, the clipped contributions are summed and
// Gaussian noise of standard deviation z × the clip norm is added.
// Neighbouring relation: add/remove one record. The value is the RDP of
// Mironov, Talwar & Zhang 2019 ("Rényi Differential Privacy of the Sampled
// Gaussian Mechanism"), log(A_α)/(α−1), and it is never below the true
// value (up to the rounding of the last few bits):
//
//   - integer orders: A_α − 1 = Σ_{i=2}^{α} C(α,i) q^i (1−q)^{α−i}
//     expm1((i²−i)/(2z²)), a sum of positive terms (the binomial expansion
//     of Opacus and TF Privacy with its leading 1 subtracted exactly), then
//     log(A_α) = log1p(A_α − 1): accurate to rounding even when A_α − 1 is
//     far below 1e-16, where log(A_α) itself would round to 0;
//   - fractional orders: the signed series of MTZ 2019 §3.3 (the terms of
//     Opacus' _compute_log_a_for_frac_alpha, through the scaled numeric.Erfcx so that
//     nothing overflows or underflows), summed until its last term is below
//     2^-43 × (A_α − 1) or below the rounding allowance. From i = ⌈α⌉ on the
//     terms alternate in sign and decrease in magnitude, so the omitted tail
//     is bounded by the last term, which is added, together with a rounding
//     allowance of 2^-51 × Σ|terms|: the result is an upper bound. (Opacus
//     stops at the first term below exp(−30) in absolute value, which for
//     q = 0.5, z = 20, α = 63.5 is the very first term, and returns a
//     negative log A_α.)
//   - log(A_α) is convex in α, so for n < α < n+1 the integer orders give
//     the upper bound log A_α ≤ (n+1−α) log A_n + (α−n) log A_{n+1}
//     (log A_1 = 0) and the lower bound RDP(α) ≥ RDP(n). Where the series
//     gives more than that upper bound, or less than the lower bound (a
//     numerical failure), or cannot resolve A_α − 1 (orders very
//     close to 1 with tiny q or large z), the upper bound is returned; RDPSubsampledGaussianNote says
//     which.
//
// Every value is also capped by α/(2z²), the RDP of the un-subsampled
// Gaussian (Poisson subsampling never increases Rényi divergence), which is
// what orders above 65536 get. A computed value is never 0 when q > 0 and
// z < ∞: where the true value is below the smallest float64 the smallest
// positive float64 is returned, so (0, 0)-DP only ever comes from the
// inputs.
//
// Edge cases (as Opacus / dp_accounting): q = 0 → 0; z = 0 → +Inf (for
// q > 0); q = 1 → α/(2z²); alpha = +Inf → +Inf for q > 0; z = +Inf → 0.
//
// Errors: q NaN or outside [0, 1], z NaN or negative, alpha NaN or not > 1.
func RDPSubsampledGaussian(q, z, alpha float64) (float64, error) {
	r, _, err := RDPSubsampledGaussianNote(q, z, alpha)
	return r, err
}

// RDPMethod says how an RDP value was obtained.
type RDPMethod int

const (
	// RDPExact: a closed form, the positive-term integer expansion, or the
	// fractional series with its tail bound (exact up to rounding and the
	// series' stated tolerance, never below the true value).
	RDPExact RDPMethod = iota
	// RDPInterpolated: a fractional order whose series could not be
	// evaluated to the needed precision gets the convexity bound from the
	// neighbouring integer orders (a valid upper bound).
	RDPInterpolated
	// RDPSeriesBound: a fractional order whose A_α − 1 is below what the
	// signed series can resolve to 1e-7 (orders very close to 1 with tiny
	// q or large z): the series' own upper bound, with its tail and
	// rounding allowance, tighter there than the interpolation.
	RDPSeriesBound
	// RDPUnsubsampled: the RDP α/(2z²) of the un-subsampled Gaussian, a
	// valid upper bound (orders above 65536, or every other path failed).
	RDPUnsubsampled
)

// String returns "exact", "interpolated bound", "series bound" or
// "unsubsampled bound".
func (m RDPMethod) String() string {
	switch m {
	case RDPExact:
		return "exact"
	case RDPInterpolated:
		return "interpolated bound"
	case RDPSeriesBound:
		return "series bound"
	case RDPUnsubsampled:
		return "unsubsampled bound"
	}
	return fmt.Sprintf("RDPMethod(%d)", int(m))
}

// RDPNote is the diagnostic of one RDP value: its order, how it was
// obtained and, for a bound, why the exact evaluation was not used.
type RDPNote struct {
	Order  float64
	Method RDPMethod
	Reason string // empty for RDPExact
}

// String renders the note on one line.
func (n RDPNote) String() string {
	if n.Method == RDPExact {
		return fmt.Sprintf("order %v: exact", n.Order)
	}
	return fmt.Sprintf("order %v: %s (%s)", n.Order, n.Method, n.Reason)
}

// RDPSubsampledGaussianNote is RDPSubsampledGaussian with the diagnostic of
// the value: whether it is exact or which valid upper bound replaced it.
func RDPSubsampledGaussianNote(q, z, alpha float64) (float64, RDPNote, error) {
	if err := ValidateSampleRate(q); err != nil {
		return 0, RDPNote{}, err
	}
	if err := ValidateNoiseMultiplier(z); err != nil {
		return 0, RDPNote{}, err
	}
	if err := ValidateOrder(alpha); err != nil {
		return 0, RDPNote{}, err
	}
	r, note := newSGM(q, z).rdp(alpha)
	return r, note, nil
}

// ComputeRDP returns the RDP of steps compositions of the Poisson-subsampled
// Gaussian mechanism (sample rate q, noise multiplier z, add/remove-one
// neighbours) at every order of the grid: steps × RDPSubsampledGaussian(q,
// z, α) for each α in orders (composition adds RDP). It is the analogue of
// Opacus' compute_rdp. steps = 0 gives zeros. The result never contains NaN:
// values are finite or +Inf (steps × +Inf = +Inf, and 0 × +Inf is treated as
// 0, since zero steps release nothing).
//
// Errors: invalid q or z (see RDPSubsampledGaussian), negative steps, or an
// order grid rejected by ValidateOrders.
func ComputeRDP(q, z float64, steps int, orders []float64) ([]float64, error) {
	r, _, err := ComputeRDPNotes(q, z, steps, orders)
	return r, err
}

// ComputeRDPNotes is ComputeRDP with the notes of the orders whose value is
// a bound rather than exact (none when every order is exact).
func ComputeRDPNotes(q, z float64, steps int, orders []float64) ([]float64, []RDPNote, error) {
	if err := ValidateSampleRate(q); err != nil {
		return nil, nil, err
	}
	if err := ValidateNoiseMultiplier(z); err != nil {
		return nil, nil, err
	}
	if err := ValidateSteps(steps); err != nil {
		return nil, nil, err
	}
	if err := ValidateOrders(orders); err != nil {
		return nil, nil, err
	}
	out := make([]float64, len(orders))
	notes := addRDP(out, q, z, steps, orders)
	return out, notes, nil
}

// trivialPhase reports whether (q, z, steps) releases nothing about the
// data: no steps, no sampling, or infinite noise. Only such inputs are
// (0, 0)-DP.
func trivialPhase(q, z float64, steps int) bool {
	return steps == 0 || q == 0 || math.IsInf(z, 1)
}

// addRDP adds steps × RDP(q, z, α) to out[k] for every order orders[k] and
// returns the notes of the orders that got a bound. Inputs must be valid.
// The per-(q, z) work that does not depend on the order (erfc values,
// integer-order values, fractional-part tables) is shared across the grid
// through one sgm context.
func addRDP(out []float64, q, z float64, steps int, orders []float64) []RDPNote {
	return addRDPBudget(out, q, z, steps, orders, &workBudget{left: maxSGMWork})
}

// addRDPBudget is addRDP drawing its series terms from a shared budget.
func addRDPBudget(out []float64, q, z float64, steps int, orders []float64, budget *workBudget) []RDPNote {
	if trivialPhase(q, z, steps) {
		return nil
	}
	t := float64(steps)
	c := newSGMBudget(q, z, budget)
	var notes []RDPNote
	for k, a := range orders {
		r, note := c.rdp(a)
		out[k] += t * r
		if note.Method != RDPExact {
			notes = append(notes, note)
		}
	}
	return notes
}
