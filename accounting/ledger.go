package accounting

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/featuredp/featuredp/internal/numeric"
)

// Route names how a Ledger turned its entries into (ε, δ).
type Route string

const (
	// RouteRDP: the RDP curves summed order by order on the ledger's grid
	// and converted with the chosen Conversion (EpsilonFromRDP), plus the
	// (ε, δ) entries by basic composition.
	RouteRDP Route = "rdp"
	// RouteZCDP: every curve entry has a zCDP ρ (pure, zCDP, Gaussian,
	// GDP); ρ = Σρ_i (Bun & Steinke 2016, Lemma 1.7) converted by
	// ZCDPEpsilon, plus the (ε, δ) entries.
	RouteZCDP Route = "zcdp"
	// RouteGDP: every curve entry is Gaussian or GDP; μ = √(Σμ_i²) (Dong,
	// Roth & Su 2019, Cor. 3.3) converted exactly by GDPEpsilon, plus the
	// (ε, δ) entries.
	RouteGDP Route = "gdp"
	// RoutePure: every entry is pure or (ε, δ): basic composition
	// (Σε_i, Σδ_i) (Dwork & Roth 2014, Thm 3.16); δ = 0 for pure entries
	// only.
	RoutePure Route = "pure"
)

// RouteResult is the (ε, δ) one route gives, or why it does not apply.
type RouteResult struct {
	Route   Route
	Valid   bool
	Epsilon float64 // +Inf allowed (no guarantee)
	Delta   float64 // the δ the route certifies, ≤ the δ asked for
	Order   float64 // RouteRDP: the order attaining ε; 0 otherwise
	Reason  string  // why the route does not apply (Valid false)
}

// EntryShare is one entry's part of the winning route: its RDP at the
// winning order (Part "rdp"), its ρ ("rho"), its μ ("mu") or its ε
// ("epsilon", with Delta its δ).
type EntryShare struct {
	Index int
	Loss  Loss // the entry (Loss.String names it)
	Part  string
	Value float64
	Delta float64
}

// LedgerReport is the (ε, δ) of a ledger: the best valid route, every
// route tried, the per-entry breakdown of the winning route and the notes
// of every value that a valid upper bound replaced.
type LedgerReport struct {
	Epsilon    float64
	Delta      float64 // ≤ the δ asked for (0 for a pure ledger's pure route)
	Route      Route
	Order      float64 // RouteRDP only
	Relation   Relation
	Conversion Conversion
	Routes     []RouteResult
	Entries    []EntryShare
	Notes      []string
}

// Ledger composes privacy losses of any kind under one neighbouring
// relation and reports (ε, δ) by the best of several valid routes (see
// Epsilon and docs/accounting.md, "Relations, losses and the ledger").
// Losses of another relation are refused: convert them explicitly with
// Loss.ChangeRelation. Every curve entry's RDP is computed once, when it is
// added, on the ledger's order grid. It is pure arithmetic. The zero value
// is not usable; call NewLedger. A Ledger is not safe for concurrent use.
// A nil *Ledger reads as empty (Len, Orders, Entries, RDP); Add and Epsilon
// on it return an error naming the fix, and Relation panics (a nil ledger
// has no relation, and the zero Relation is a real one).
type Ledger struct {
	rel     Relation
	orders  []float64
	chunks  [][]ledgerEntry // the entries, entryChunk per chunk (appended in place; a full chunk starts a new one)
	n       int             // number of entries
	rdp     []float64       // Σ weight × vector over vecs, valid unless dirty
	dirty   bool
	vecs    []*rdpVec // the distinct RDP vectors, in order of first use
	notes   []string
	work    int64                 // subsampled-Gaussian series terms left for the whole ledger (maxLedgerWork)
	cache   map[ledgerKey]*rdpVec // RDP vectors shared by equal losses
	mus     []float64             // μ of the Gaussian and GDP entries
	rho     float64               // Σρ of the entries that have one (rounded up)
	pureEps float64               // Σε of the pure entries (rounded up)
	apxEps  float64               // Σε of the (ε, δ) entries (rounded up)
	apxDel  float64               // Σδ of the (ε, δ) entries (rounded up)
	noRho   int                   // curve entries without a ρ
	noMu    int                   // curve entries without a μ
	noPure  int                   // entries neither pure nor (ε, δ)
	leaking bool                  // a non-trivial curve entry was added
}

type ledgerEntry struct {
	loss   Loss
	vec    *rdpVec // nil: no curve, or trivial
	factor float64 // the entry's RDP is factor × vec.rdp
}

// rdpVec is an RDP vector on the ledger's grid with the notes of its
// bounds and the total weight of the entries sharing it: the ledger's RDP
// is Σ weight × rdp over its distinct vectors, so adding an entry whose
// vector is already known costs O(1).
type rdpVec struct {
	rdp    []float64
	notes  []RDPNote
	weight float64 // Σ factor of the entries using it
}

// ledgerKey identifies losses with equal RDP vectors (per step for the
// subsampled Gaussian).
type ledgerKey struct {
	kind        LossKind
	a, b        float64
	chain       int
	subsampled1 bool
}

// NewLedger returns an empty ledger for relation rel over the order grid
// (nil means OrdersOpacus; any other grid must pass ValidateOrders and is
// copied).
func NewLedger(rel Relation, orders []float64) (*Ledger, error) {
	if err := checkRelation(rel); err != nil {
		return nil, err
	}
	orders, err := gridOrDefault(orders)
	if err != nil {
		return nil, err
	}
	return &Ledger{rel: rel, orders: orders, rdp: make([]float64, len(orders)),
		work: maxLedgerWork, cache: map[ledgerKey]*rdpVec{}}, nil
}

// maxLedgerWork bounds the series terms of a whole ledger: each distinct
// subsampled-Gaussian entry gets its own maxSGMWork (as a phase of an
// Accountant does), so the value of an entry does not depend on the
// entries before it, until the ledger as a whole has spent 64 entries'
// worth; entries after that get what is left, down to the valid cap with
// a note. Ordinary entries cost a few thousand terms (600 of them: 0.5 s);
// the worst case, entries that each spend their whole budget, stops after
// 64 of them (measured: 100 entries of q = 0.9, z ≈ 1e100 in 14 s).
const maxLedgerWork = 64 * maxSGMWork

var errNilLedger = errors.New("accounting: nil *Ledger (use NewLedger)")

// Relation returns the ledger's neighbouring relation. It panics on a nil
// *Ledger, naming the fix: answering the zero Relation (add/remove) would
// state a relation no ledger holds (programmer error: use NewLedger).
func (L *Ledger) Relation() Relation {
	if L == nil {
		panic(errNilLedger)
	}
	return L.rel
}

// Orders returns a copy of the ledger's order grid (nil for a nil *Ledger).
func (L *Ledger) Orders() []float64 {
	if L == nil {
		return nil
	}
	return append([]float64(nil), L.orders...)
}

// Len returns the number of entries (0 for a nil *Ledger).
func (L *Ledger) Len() int {
	if L == nil {
		return 0
	}
	return L.n
}

// entryChunk is the number of entries per chunk: appending never copies
// earlier entries.
const entryChunk = 256

// each calls f on every entry, in order.
func (L *Ledger) each(f func(i int, e *ledgerEntry)) {
	i := 0
	for _, c := range L.chunks {
		for j := range c {
			f(i, &c[j])
			i++
		}
	}
}

// push appends an entry.
func (L *Ledger) push(e ledgerEntry) {
	if k := len(L.chunks); k == 0 || len(L.chunks[k-1]) == entryChunk {
		L.chunks = append(L.chunks, make([]ledgerEntry, 0, min(entryChunk, max(8, 2*L.n))))
	}
	k := len(L.chunks) - 1
	if c := L.chunks[k]; len(c) == cap(c) {
		L.chunks[k] = append(make([]ledgerEntry, 0, min(entryChunk, 2*cap(c))), c...)
	}
	L.chunks[k] = append(L.chunks[k], e)
	L.n++
}

// Entries returns the losses added, in order (none for a nil *Ledger).
func (L *Ledger) Entries() []Loss {
	if L == nil {
		return nil
	}
	out := make([]Loss, L.n)
	L.each(func(i int, e *ledgerEntry) { out[i] = e.loss })
	return out
}

// RDP returns a copy of the summed RDP of the curve entries, one value per
// order (nil for a nil *Ledger).
func (L *Ledger) RDP() []float64 {
	if L == nil {
		return nil
	}
	return append([]float64(nil), L.sum()...)
}

// sum returns the summed RDP of the curve entries, recomputing it after
// additions.
func (L *Ledger) sum() []float64 {
	if L.dirty {
		clear(L.rdp)
		for _, v := range L.vecs {
			for k, r := range v.rdp {
				L.rdp[k] += v.weight * r
			}
		}
		L.dirty = false
	}
	return L.rdp
}

// Add composes one loss. A loss of another relation is refused with an
// error naming both relations (convert it with Loss.ChangeRelation); a
// curve's error or invalid value is returned. On error the ledger is
// unchanged.
func (L *Ledger) Add(l Loss) error {
	if L == nil {
		return errNilLedger
	}
	i := L.n
	if l.rel != L.rel {
		return fmt.Errorf("accounting: entry %d (%s) holds for relation %v but the ledger is %v: relations are never mixed silently; convert the entry with Loss.ChangeRelation (valid changes: %s; docs/accounting.md)", i, l.label(), l.rel, L.rel, edgeList())
	}
	e := ledgerEntry{loss: l}
	if l.HasCurve() && !l.trivial() {
		vec, factor, err := L.vector(l)
		if err != nil {
			return fmt.Errorf("accounting: entry %d (%s): %w", i, l.label(), err)
		}
		e.vec, e.factor = vec, factor
		if vec.weight == 0 {
			L.vecs = append(L.vecs, vec)
		}
		vec.weight += factor
		L.dirty, L.leaking = true, true
		if len(vec.notes) > 0 {
			L.notes = append(L.notes, fmt.Sprintf("entry %d (%s): %s", i, l.label(), summarise(vec.notes)))
		}
	}
	L.tally(l)
	L.push(e)
	return nil
}

// tally updates the scalar aggregates of the routes.
func (L *Ledger) tally(l Loss) {
	switch l.kind {
	case LossApprox:
		L.apxEps, L.apxDel = addUp(L.apxEps, l.eps), addUp(L.apxDel, l.del)
		return
	case LossPure:
		L.pureEps = addUp(L.pureEps, l.eps)
	default:
		L.noPure++
	}
	if rho, ok := l.Rho(); ok {
		L.rho = addUp(L.rho, rho)
	} else {
		L.noRho++
	}
	if mu, ok := l.Mu(); ok {
		L.mus = append(L.mus, mu)
	} else {
		L.noMu++
	}
}

// vector returns the RDP vector of a non-trivial curve loss on the
// ledger's grid and its factor, shared between equal losses (pure ε, equal
// ρ, and subsampled-Gaussian phases of equal q, z and chain, per step).
func (L *Ledger) vector(l Loss) (*rdpVec, float64, error) {
	key, factor, ok := l.ledgerKey()
	if ok {
		if v := L.cache[key]; v != nil {
			return v, factor, nil
		}
	}
	base := l
	if key.subsampled1 {
		base.phase.Steps = 1
	}
	v := &rdpVec{rdp: make([]float64, len(L.orders))}
	budget := &workBudget{left: min(maxSGMWork, max(L.work, 0))}
	start := budget.left
	notes, err := base.addRDP(v.rdp, L.orders, budget)
	L.work -= start - budget.left
	if err != nil {
		return nil, 0, err
	}
	v.notes = notes
	if ok {
		L.cache[key] = v
	}
	return v, factor, nil
}

// ledgerKey returns the cache key of a loss whose RDP vector may be shared
// and the factor to apply; ok is false for losses that are not cached.
func (l Loss) ledgerKey() (ledgerKey, float64, bool) {
	switch l.kind {
	case LossPure:
		return ledgerKey{kind: LossPure, a: l.eps}, 1, true
	case LossZCDP, LossGaussian, LossGDP:
		rho, _ := l.Rho()
		return ledgerKey{kind: LossZCDP, a: rho}, 1, true
	case LossSubsampledGaussian:
		p := l.phase
		return ledgerKey{kind: l.kind, a: p.SampleRate, b: p.NoiseMultiplier, chain: l.chain, subsampled1: true}, float64(p.Steps), true
	}
	return ledgerKey{}, 1, false
}

// summarise counts notes by method: "3 orders use a valid upper bound
// (interpolated bound ×2, series bound ×1), e.g. order 1.1: …".
func summarise(notes []RDPNote) string {
	count := map[RDPMethod]int{}
	for _, n := range notes {
		count[n.Method]++
	}
	methods := make([]RDPMethod, 0, len(count))
	for m := range count {
		methods = append(methods, m)
	}
	sort.Slice(methods, func(i, j int) bool { return methods[i] < methods[j] })
	parts := make([]string, len(methods))
	for i, m := range methods {
		parts[i] = fmt.Sprintf("%v ×%d", m, count[m])
	}
	return fmt.Sprintf("%d order(s) use a valid upper bound (%s), e.g. %v", len(notes), strings.Join(parts, ", "), notes[0])
}

// addUp returns the smallest float64 >= a + b (a, b >= 0 or +Inf): the
// sum rounded up, exact when representable (TwoSum error term).
func addUp(a, b float64) float64 {
	s := a + b
	if math.IsInf(s, 0) {
		return s
	}
	bb := s - a
	if (a-(s-bb))+(b-bb) > 0 {
		s = math.Nextafter(s, math.Inf(1))
	}
	return s
}

// subDown returns the largest float64 <= a − b.
func subDown(a, b float64) float64 {
	s := a - b
	bb := s - a
	if (a-(s-bb))+(-b-bb) < 0 {
		s = math.Nextafter(s, math.Inf(-1))
	}
	return s
}

// Epsilon reports the (ε, δ)-DP of the composition of every entry, under
// the ledger's relation, for the target δ. Each route that applies is
// computed and the smallest ε wins (ties: the first listed):
//
//   - RouteRDP: Σ RDP on the grid, converted with conv at δ′ = δ − Σδ_i of
//     the (ε, δ) entries, plus Σε_i of those (basic composition);
//   - RouteZCDP: if every curve entry has a ρ, ZCDPEpsilon(Σρ, δ′) + Σε_i;
//   - RouteGDP: if every curve entry is Gaussian or GDP,
//     GDPEpsilon(√Σμ², δ′) + Σε_i;
//   - RoutePure: if every entry is pure or (ε, δ), (Σε, Σδ) — δ = 0 when
//     all are pure.
//
// Each is a valid upper bound, so their minimum is too. (0, 0)-DP is
// decided from the inputs only: a ledger of trivial entries (ε = 0, ρ = 0,
// σ = +Inf, trivial phases) reports 0. Sums are rounded up, δ′ down.
//
// Errors: δ not in (0, 1), an unknown conversion, a nil ledger, Σδ_i of
// the (ε, δ) entries above δ, or no route applies (each route's reason is
// given).
func (L *Ledger) Epsilon(delta float64, conv Conversion) (*LedgerReport, error) {
	if L == nil {
		return nil, errNilLedger
	}
	if err := conv.valid(); err != nil {
		return nil, err
	}
	if err := ValidateDelta(delta); err != nil {
		return nil, err
	}
	if L.apxDel > delta {
		return nil, fmt.Errorf("accounting: the (ε, δ) entries spend δ = %v, more than the δ = %v asked for (ask for a larger δ)", L.apxDel, delta)
	}
	rest := subDown(delta, L.apxDel)
	rep := &LedgerReport{Relation: L.rel, Conversion: conv, Routes: []RouteResult{
		L.routeRDP(delta, rest, conv), L.routeZCDP(delta, rest), L.routeGDP(delta, rest), L.routePure(),
	}}
	best := -1
	var reasons []string
	for i, r := range rep.Routes {
		if !r.Valid {
			reasons = append(reasons, fmt.Sprintf("%s: %s", r.Route, r.Reason))
			continue
		}
		if best < 0 || r.Epsilon < rep.Routes[best].Epsilon {
			best = i
		}
	}
	if best < 0 {
		return nil, fmt.Errorf("accounting: no route certifies δ = %v (%s)", delta, strings.Join(reasons, "; "))
	}
	w := rep.Routes[best]
	rep.Epsilon, rep.Delta, rep.Route, rep.Order = w.Epsilon, w.Delta, w.Route, w.Order
	rep.Entries = L.shares(w)
	rep.Notes = append([]string(nil), L.notes...)
	return rep, nil
}

// withApprox finishes a curve route: ε of the curves plus the (ε, δ)
// entries' Σε, certifying δ.
func (L *Ledger) withApprox(route Route, eps, delta, order float64) RouteResult {
	return RouteResult{Route: route, Valid: true, Epsilon: addUp(eps, L.apxEps), Delta: delta, Order: order}
}

// curveDelta checks that a curve route has δ′ > 0 left when it needs it.
func (L *Ledger) curveDelta(route Route, rest float64) (RouteResult, bool) {
	if rest > 0 {
		return RouteResult{}, true
	}
	return RouteResult{Route: route, Reason: "the (ε, δ) entries spend all of δ"}, false
}

func (L *Ledger) routeRDP(delta, rest float64, conv Conversion) RouteResult {
	if !L.leaking {
		return L.withApprox(RouteRDP, 0, L.apxDel, 0) // no curve entry: no order used
	}
	if r, ok := L.curveDelta(RouteRDP, rest); !ok {
		return r
	}
	eps, order, err := EpsilonFromRDP(L.orders, L.sum(), rest, conv)
	if err != nil {
		return RouteResult{Route: RouteRDP, Reason: err.Error()}
	}
	return L.withApprox(RouteRDP, eps, delta, order)
}

func (L *Ledger) routeZCDP(delta, rest float64) RouteResult {
	if L.noRho > 0 {
		return RouteResult{Route: RouteZCDP, Reason: fmt.Sprintf("entries without a zCDP ρ: %d", L.noRho)}
	}
	if !L.leaking {
		return L.withApprox(RouteZCDP, 0, L.apxDel, 0)
	}
	if r, ok := L.curveDelta(RouteZCDP, rest); !ok {
		return r
	}
	return L.withApprox(RouteZCDP, zcdpEpsilon(L.rho, -numeric.Log(rest)), delta, 0)
}

func (L *Ledger) routeGDP(delta, rest float64) RouteResult {
	if L.noMu > 0 || len(L.mus) == 0 {
		return RouteResult{Route: RouteGDP, Reason: "not every curve entry is Gaussian or GDP"}
	}
	if !L.leaking {
		return L.withApprox(RouteGDP, 0, L.apxDel, 0)
	}
	if r, ok := L.curveDelta(RouteGDP, rest); !ok {
		return r
	}
	mu, err := ComposeGDP(L.mus...)
	if err != nil {
		return RouteResult{Route: RouteGDP, Reason: err.Error()}
	}
	eps, err := GDPEpsilon(mu, rest)
	if err != nil {
		return RouteResult{Route: RouteGDP, Reason: strings.TrimPrefix(err.Error(), "accounting: ")}
	}
	return L.withApprox(RouteGDP, eps, delta, 0)
}

func (L *Ledger) routePure() RouteResult {
	if L.noPure > 0 {
		return RouteResult{Route: RoutePure, Reason: fmt.Sprintf("entries neither pure nor (ε, δ): %d", L.noPure)}
	}
	return RouteResult{Route: RoutePure, Valid: true, Epsilon: addUp(L.pureEps, L.apxEps), Delta: L.apxDel}
}

// shares is the per-entry breakdown of the winning route.
func (L *Ledger) shares(w RouteResult) []EntryShare {
	k := -1
	if w.Route == RouteRDP {
		for i, a := range L.orders {
			if a == w.Order {
				k = i
				break
			}
		}
	}
	out := make([]EntryShare, L.n)
	L.each(func(i int, e *ledgerEntry) {
		l := e.loss
		s := EntryShare{Index: i, Loss: l}
		switch {
		case l.kind == LossApprox || w.Route == RoutePure:
			s.Part, s.Value, s.Delta = "epsilon", l.eps, l.del
		case w.Route == RouteZCDP:
			s.Part, s.Value = "rho", first(l.Rho())
		case w.Route == RouteGDP:
			s.Part, s.Value = "mu", first(l.Mu())
		default:
			s.Part = "rdp"
			if e.vec != nil && k >= 0 {
				s.Value = e.factor * e.vec.rdp[k]
			}
		}
		out[i] = s
	})
	return out
}

func first(v float64, _ bool) float64 { return v }
