package accounting

import (
	"errors"
	"fmt"
	"math"
)

// Validate reports whether the phase is usable: SampleRate in [0, 1],
// NoiseMultiplier >= 0 (+Inf allowed: no privacy loss) and not NaN,
// Steps >= 0.
func (p Phase) Validate() error {
	if err := ValidateSampleRate(p.SampleRate); err != nil {
		return err
	}
	if err := ValidateNoiseMultiplier(p.NoiseMultiplier); err != nil {
		return err
	}
	return ValidateSteps(p.Steps)
}

// Accountant is an RDP accountant for compositions of Poisson-subsampled
// Gaussian mechanisms under add/remove-one neighbours. It keeps the RDP of
// everything added so far at every order of a fixed grid; composition (of
// steps within a phase, and of phases with different sample rates, noise
// multipliers and lengths) adds RDP order by order. It is pure arithmetic:
// no randomness, no clock. The zero value is not usable; call NewAccountant.
// An Accountant is not safe for concurrent use.
type Accountant struct {
	orders  []float64
	rdp     []float64
	phases  []Phase
	notes   []RDPNote
	leaking bool  // a non-trivial phase or an AddRDP curve was composed
	work    int64 // series terms left for every phase (maxLedgerWork), as a Ledger's
}

// Notes returns the diagnostics of every order whose RDP was replaced by a
// valid upper bound (see RDPSubsampledGaussian), one per phase and order, in
// the order they were added; nil when every value was exact.
func (a *Accountant) Notes() []RDPNote {
	if a == nil {
		return nil
	}
	return append([]RDPNote(nil), a.notes...)
}

// NewAccountant returns an empty accountant over the given order grid: nil
// means OrdersOpacus; any other grid (an empty one included) must pass
// ValidateOrders. The grid is copied.
func NewAccountant(orders []float64) (*Accountant, error) {
	orders, err := gridOrDefault(orders)
	if err != nil {
		return nil, err
	}
	return &Accountant{orders: orders, rdp: make([]float64, len(orders)), work: maxLedgerWork}, nil
}

// gridOrDefault returns OrdersOpacus for a nil grid, else a validated copy
// of orders (the rule of NewAccountant and NewLedger).
func gridOrDefault(orders []float64) ([]float64, error) {
	if orders == nil {
		return OrdersOpacus(), nil
	}
	if err := ValidateOrders(orders); err != nil {
		return nil, err
	}
	return append([]float64(nil), orders...), nil
}

// Add composes one phase: p.Steps steps of the Poisson-subsampled Gaussian
// mechanism with rate p.SampleRate and multiplier p.NoiseMultiplier
// (add/remove-one neighbours). Its RDP, p.Steps × RDPSubsampledGaussian, is
// added at every order. Adding (q, z, T1) then (q, z, T2) equals adding
// (q, z, T1+T2). An invalid phase returns an error and leaves the
// accountant unchanged.
func (a *Accountant) Add(p Phase) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if a == nil {
		return errNilAccountant
	}
	// Each phase gets its own series budget (about a second) within the
	// accountant-wide one: 1,000 costly phases cannot take minutes, and a
	// phase past it gets the un-subsampled cap, a valid bound, with a note.
	budget := &workBudget{left: min(maxSGMWork, max(a.work, 0))}
	start := budget.left
	a.notes = append(a.notes, addRDPBudget(a.rdp, p.SampleRate, p.NoiseMultiplier, p.Steps, a.orders, budget)...)
	a.work -= start - budget.left
	a.phases = append(a.phases, p)
	if !trivialPhase(p.SampleRate, p.NoiseMultiplier, p.Steps) {
		a.leaking = true
	}
	return nil
}

// AddRDP composes an arbitrary mechanism given by its RDP curve at the
// accountant's orders (rdp[k] at Orders()[k]); values must be >= 0 or +Inf.
// The caller is responsible for its neighbouring relation matching
// add/remove one record.
func (a *Accountant) AddRDP(rdp []float64) error {
	if a == nil {
		return errNilAccountant
	}
	if len(rdp) != len(a.orders) {
		return fmt.Errorf("accounting: %d RDP values for %d orders", len(rdp), len(a.orders))
	}
	for k, r := range rdp {
		if math.IsNaN(r) || r < 0 {
			return fmt.Errorf("accounting: RDP value %v at order %v is not >= 0", r, a.orders[k])
		}
	}
	for k, r := range rdp {
		a.rdp[k] += r
	}
	a.leaking = true
	return nil
}

// Orders returns a copy of the order grid.
func (a *Accountant) Orders() []float64 {
	if a == nil {
		return nil
	}
	return append([]float64(nil), a.orders...)
}

// RDP returns a copy of the accumulated RDP, one value per order.
func (a *Accountant) RDP() []float64 {
	if a == nil {
		return nil
	}
	return append([]float64(nil), a.rdp...)
}

// Phases returns a copy of the phases added with Add, in order.
func (a *Accountant) Phases() []Phase {
	if a == nil {
		return nil
	}
	return append([]Phase(nil), a.phases...)
}

// Reset forgets every phase, keeping the order grid.
func (a *Accountant) Reset() {
	if a == nil {
		return
	}
	for k := range a.rdp {
		a.rdp[k] = 0
	}
	a.phases, a.notes, a.leaking = nil, nil, false
}

// Epsilon converts the accumulated RDP to (ε, δ)-DP (add/remove-one
// neighbours, Poisson sampling) with the chosen conversion and returns ε and
// the optimal order; see EpsilonFromRDP for the exact formulas and the
// convention for infinite privacy loss. An accountant that composed only
// trivial phases (q = 0, z = +Inf or no steps; none at all included) is
// (0, 0)-DP: ε = 0 at the first order. Errors: δ not in (0, 1), a nil
// accountant.
func (a *Accountant) Epsilon(delta float64, conv Conversion) (eps, order float64, err error) {
	if a == nil {
		return 0, 0, errNilAccountant
	}
	if !a.leaking {
		if err := conv.valid(); err != nil {
			return 0, 0, err
		}
		if err := ValidateDelta(delta); err != nil {
			return 0, 0, err
		}
		return 0, a.orders[0], nil
	}
	return EpsilonFromRDP(a.orders, a.rdp, delta, conv)
}

// Delta is the inverse: the δ for which the accumulated RDP implies
// (ε, δ)-DP, and the optimal order; see DeltaFromRDP.
func (a *Accountant) Delta(eps float64, conv Conversion) (delta, order float64, err error) {
	if a == nil {
		return 0, 0, errNilAccountant
	}
	if !a.leaking {
		if err := conv.valid(); err != nil {
			return 0, 0, err
		}
		if math.IsNaN(eps) || eps < 0 || math.IsInf(eps, 1) {
			return 0, 0, fmt.Errorf("accounting: epsilon %v is not finite and >= 0", eps)
		}
		return 0, a.orders[0], nil
	}
	return DeltaFromRDP(a.orders, a.rdp, eps, conv)
}

var errNilAccountant = errors.New("accounting: nil *Accountant (use NewAccountant)")

// Epsilon is the one-call form of the accountant: it composes the phases
// (each p.Steps steps of the Poisson-subsampled Gaussian mechanism,
// add/remove-one neighbours) over the order grid (nil means OrdersOpacus)
// and converts to (ε, δ) with conv. It returns ε and the optimal order.
// Errors: any invalid phase, grid or δ.
func Epsilon(phases []Phase, delta float64, orders []float64, conv Conversion) (eps, order float64, err error) {
	acc, err := NewAccountant(orders)
	if err != nil {
		return 0, 0, err
	}
	for _, p := range phases {
		if err := acc.Add(p); err != nil {
			return 0, 0, err
		}
	}
	return acc.Epsilon(delta, conv)
}
