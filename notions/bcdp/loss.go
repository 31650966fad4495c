package bcdp

import (
	"errors"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/accounting"
)

// The privacy losses of the BCDP channels as accounting.Loss values, for
// the privacy ledger (docs/accounting.md, "Relations, losses and the
// ledger"). Two of the paper's notions are ordinary DP losses and are
// reported here:
//
//   - ε-LDP (Def. 1): for every two records x, x′ of one user and every
//     output, P(M(x) = y) ≤ e^ε P(M(x′) = y) — pure ε-DP under
//     accounting.RelationReplaceOne, the dataset being the user's one
//     record;
//   - c-CDP (Def. 3): the same for x, x′ that differ in coordinate i only,
//     with ε = c_i — pure c_i-DP under accounting.RelationCoordinate, one
//     loss per coordinate.
//
// BCDP's δ_i (Def. 4) is a Bayesian ratio: it depends on the prior and
// does not compose (Example 2 of the paper), so it is not a ledger loss;
// Exact computes it, and BCDPFromCDP / BCDPFromCDPAndLDP bound it from
// the CDP losses reported here.
//
// References:
//
//	Aliakbarpour, Chaudhuri, Courtade, Fallah & Jordan (2024). Enhancing
//	  Feature-Specific Data Protection via Bayesian Coordinate Differential
//	  Privacy. Defs. 1, 3, 4; Sec. 4 (Mechanism 1 is c-CDP and c_d-LDP).
//	Dwork & Roth (2014). The Algorithmic Foundations of Differential
//	  Privacy. Thm 3.16 (basic composition).

// ledgerDelta is the δ asked of the ledgers that compose pure losses here.
// Only their pure route is read, whose δ is 0 whatever δ is asked.
const ledgerDelta = 1e-10

// composePure composes pure losses on a ledger of relation rel and returns
// the ε of the ledger's pure route: basic composition Σε_i rounded up
// (Dwork & Roth 2014, Thm 3.16 with δ = 0). No entry gives ε = 0.
func composePure(rel accounting.Relation, losses []accounting.Loss) (float64, error) {
	L, err := accounting.NewLedger(rel, nil)
	if err != nil {
		return 0, fmt.Errorf("bcdp: ledger: %w", err)
	}
	for _, l := range losses {
		if err := L.Add(l); err != nil {
			return 0, fmt.Errorf("bcdp: ledger: %w", err)
		}
	}
	rep, err := L.Epsilon(ledgerDelta, accounting.DefaultConversion)
	if err != nil {
		return 0, fmt.Errorf("bcdp: ledger: %w", err)
	}
	for _, r := range rep.Routes {
		if r.Route == accounting.RoutePure && r.Valid && r.Delta == 0 {
			return r.Epsilon, nil
		}
	}
	return 0, errors.New("bcdp: ledger: no pure route (a loss is not pure)")
}

// pureLoss is accounting.PureLoss labelled "name: pure ε=…" in reports,
// with an error that says which level had no finite value.
func pureLoss(name string, eps float64, rel accounting.Relation) (accounting.Loss, error) {
	if math.IsInf(eps, 1) {
		return accounting.Loss{}, fmt.Errorf("bcdp: %s: the level is +Inf (no %v guarantee)", name, rel)
	}
	l, err := accounting.PureLoss(eps, rel)
	if err != nil {
		return accounting.Loss{}, fmt.Errorf("bcdp: %s: %w", name, err)
	}
	return l.WithName(fmt.Sprintf("%s: pure ε=%g", name, eps)), nil
}

// LocalLoss returns the exact LDP level of the finite mechanism m
// (LDPExact, Def. 1) as a pure loss under accounting.RelationReplaceOne:
// the user's record replaced by any other. Errors: an invalid mechanism,
// or no finite LDP level (e.g. the paper's Example 1, see TwoBitChannel).
func LocalLoss(m Finite) (accounting.Loss, error) {
	eps, err := LDPExact(m)
	if err != nil {
		return accounting.Loss{}, err
	}
	return pureLoss("LDP", eps, accounting.RelationReplaceOne)
}

// CoordinateLosses returns the exact CDP levels c*_i of the finite
// mechanism m (CDPExact, Def. 3) as pure losses under
// accounting.RelationCoordinate, one per coordinate, named "coordinate i"
// (1-based). A ledger composes the losses of ONE coordinate (several
// releases of it); the losses of different coordinates are different
// guarantees, not terms of a sum. Errors: an invalid mechanism, or a
// coordinate without a finite level.
func CoordinateLosses(m Finite) ([]accounting.Loss, error) {
	c, err := CDPExact(m)
	if err != nil {
		return nil, err
	}
	out := make([]accounting.Loss, len(c))
	for i, v := range c {
		if out[i], err = pureLoss(fmt.Sprintf("coordinate %d", i+1), v, accounting.RelationCoordinate); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Loss returns the channel's loss: the Duchi channel at level α is α-LDP
// (Duchi, Jordan & Wainwright 2018; the paper's Mechanism 2), a pure loss
// under accounting.RelationReplaceOne.
func (c *Duchi) Loss() (accounting.Loss, error) {
	if c == nil {
		return accounting.Loss{}, errNil("Duchi.Loss", "Duchi", "NewDuchi")
	}
	return pureLoss("Duchi channel", c.Alpha, accounting.RelationReplaceOne)
}

// RoundLosses returns the losses of the rounds of Mechanism 1 that run
// (Rounds), in order: round k is the Duchi channel at α_k = c_k − c_{k−1}
// on the suffix x_{k:d} of the sorted record, α_k-LDP. They are the terms
// of LocalLoss and CoordinateLosses.
func (m *Mean) RoundLosses() ([]accounting.Loss, error) {
	if m == nil {
		return nil, errNil("Mean losses", "Mean", "NewMean or NewBaseline")
	}
	out := make([]accounting.Loss, len(m.rounds))
	for i, r := range m.rounds {
		l, err := r.ch.Loss()
		if err != nil {
			return nil, err
		}
		out[i] = l.WithName(fmt.Sprintf("round %d: pure ε=%g", r.k+1, r.ch.Alpha))
	}
	return out, nil
}

// LocalLoss returns the LDP level of Mechanism 1 as a pure loss under
// accounting.RelationReplaceOne: its rounds (RoundLosses) composed on a
// ledger, Σ_k α_k = c_d (sequential composition; the paper, Sec. 4),
// with the float sum rounded up, so it is never below LDP().
func (m *Mean) LocalLoss() (accounting.Loss, error) {
	rounds, err := m.RoundLosses()
	if err != nil {
		return accounting.Loss{}, err
	}
	eps, err := composePure(accounting.RelationReplaceOne, rounds)
	if err != nil {
		return accounting.Loss{}, err
	}
	return pureLoss("Mechanism 1 (LDP)", math.Max(eps, m.LDP()), accounting.RelationReplaceOne)
}

// CoordinateLosses returns the CDP level c_i of Mechanism 1 for every
// coordinate, in the caller's order, as pure losses under
// accounting.RelationCoordinate named "coordinate i" (1-based). Coordinate
// i at sorted position p is released by the rounds k ≤ p; each round's
// α_k-LDP loss holds under the coordinate relation unchanged
// (Loss.ChangeRelation: one coordinate changing is one record changing),
// and the ledger composes them: c_i = Σ_{k≤p} α_k (rounded up, never
// below the level c_i asked for). A ledger composes the losses of one
// coordinate, not of different ones.
func (m *Mean) CoordinateLosses() ([]accounting.Loss, error) {
	rounds, err := m.RoundLosses()
	if err != nil {
		return nil, err
	}
	out := make([]accounting.Loss, m.d)
	var terms []accounting.Loss
	next := 0
	for p, i := range m.perm {
		for ; next < len(m.rounds) && m.rounds[next].k <= p; next++ {
			l, err := rounds[next].ChangeRelation(accounting.RelationCoordinate)
			if err != nil {
				return nil, fmt.Errorf("bcdp: Mean.CoordinateLosses: %w", err)
			}
			terms = append(terms, l)
		}
		eps, err := composePure(accounting.RelationCoordinate, terms)
		if err != nil {
			return nil, err
		}
		if out[i], err = pureLoss(fmt.Sprintf("coordinate %d", i+1), math.Max(eps, m.sorted[p]), accounting.RelationCoordinate); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// LocalLoss returns the LDP level of Algorithm 3: the two releases of
// Mechanism 1 at c/2 each user sends, composed on a ledger (c_d/2 + c_d/2
// = c_d, rounded up), as a pure loss under accounting.RelationReplaceOne.
func (ls *LeastSquares) LocalLoss() (accounting.Loss, error) {
	if ls == nil {
		return accounting.Loss{}, errNil("least squares", "LeastSquares", "NewLeastSquares")
	}
	one, err := ls.m.LocalLoss()
	if err != nil {
		return accounting.Loss{}, err
	}
	eps, err := composePure(accounting.RelationReplaceOne, []accounting.Loss{one, one})
	if err != nil {
		return accounting.Loss{}, err
	}
	return pureLoss("Algorithm 3 (LDP)", eps, accounting.RelationReplaceOne)
}

// CoordinateLosses returns the CDP level c_i of Algorithm 3 per coordinate
// (caller's order, label last): the two releases at c_i/2 composed on a
// ledger, as pure losses under accounting.RelationCoordinate.
func (ls *LeastSquares) CoordinateLosses() ([]accounting.Loss, error) {
	if ls == nil {
		return nil, errNil("least squares", "LeastSquares", "NewLeastSquares")
	}
	half, err := ls.m.CoordinateLosses()
	if err != nil {
		return nil, err
	}
	out := make([]accounting.Loss, len(half))
	for i, h := range half {
		eps, err := composePure(accounting.RelationCoordinate, []accounting.Loss{h, h})
		if err != nil {
			return nil, err
		}
		if out[i], err = pureLoss(fmt.Sprintf("coordinate %d", i+1), eps, accounting.RelationCoordinate); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Losses returns the privacy losses of one user's release in r, for the
// ledger: the LDP level of Mechanism 1 with the allocated levels r.C
// (Mean.LocalLoss, under accounting.RelationReplaceOne) and its CDP level
// per estimated column (Mean.CoordinateLosses, under
// accounting.RelationCoordinate, labelled with the column's name, in the
// order of r.Columns). Bounds fitted on the data (r.FittedBounds) are not
// covered by these losses.
func (r *MeanEstimation) Losses() (local accounting.Loss, perColumn []accounting.Loss, err error) {
	if r == nil {
		return accounting.Loss{}, nil, errors.New("bcdp: MeanEstimation.Losses: nil *MeanEstimation: use the value returned by EstimateMeans and check its error")
	}
	m, err := NewMean(r.C, MeanOptions{PaperConstant: r.Options.PaperConstant})
	if err != nil {
		return accounting.Loss{}, nil, fmt.Errorf("bcdp: MeanEstimation.Losses: %w", err)
	}
	if local, err = m.LocalLoss(); err != nil {
		return accounting.Loss{}, nil, err
	}
	if perColumn, err = m.CoordinateLosses(); err != nil {
		return accounting.Loss{}, nil, err
	}
	for j, l := range perColumn {
		eps, _, _ := l.ApproxDP()
		perColumn[j] = l.WithName(fmt.Sprintf("%s: pure ε=%g", r.Columns[j], eps))
	}
	return local, perColumn, nil
}
