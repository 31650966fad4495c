package bcdp

import (
	"fmt"
	"math"
)

// Relations are the exact parameters of the four notions for one finite
// mechanism — the numbers behind the paper's Figure 1 (the relations
// between LDP, BDP, CDP and BCDP) — and the bounds the relations give.
type Relations struct {
	// C are the randomized-response levels and Q the prior's parameter
	// (MixturePrior) of the mechanism.
	C []float64
	Q float64
	// LDP is the exact ε_L, which is also the exact ε_B of BDP (Prop. 1).
	LDP float64
	// CDP is the exact c* and SumCDP = Σ c*_i, the LDP level CDP implies
	// (ε_L ≤ Σ c_i).
	CDP    []float64
	SumCDP float64
	// QCoord are the coordinates' TV levels q_i of eq. (13) under the
	// prior, BCDP the exact δ*, and Prop4 the Prop. 4 part 1 bound from
	// (c*, q_i); Prop. 3 gives δ* ≤ ε_L·1.
	QCoord, BCDP, Prop4 []float64
	// Example1LDP and Example1BCDP are Example 1 at a = b = c = 1/2: no
	// finite LDP level (+Inf) yet (log 2, log 2)-BCDP — BCDP does not
	// imply LDP.
	Example1LDP  float64
	Example1BCDP []float64
}

// NotionRelations computes Relations for randomized response with levels
// c (d ≤ 8) under the mixture prior with parameter q.
func NotionRelations(c []float64, q float64) (Relations, error) {
	m, err := RandomizedResponse(c, q)
	if err != nil {
		return Relations{}, err
	}
	r := Relations{C: append([]float64(nil), c...), Q: q}
	if r.LDP, err = LDPExact(m); err != nil {
		return r, err
	}
	if r.CDP, err = CDPExact(m); err != nil {
		return r, err
	}
	for _, v := range r.CDP {
		r.SumCDP += v
	}
	if r.BCDP, err = Exact(m); err != nil {
		return r, err
	}
	r.QCoord = make([]float64, len(c))
	for i := range c {
		if r.QCoord[i], err = CoordinateTV(m, i); err != nil {
			return r, err
		}
	}
	if r.Prop4, err = BCDPFromCDP(r.CDP, r.QCoord); err != nil {
		return r, err
	}
	ex, err := TwoBitChannel([4]float64{0.5, 0.5, 0, 0.5}) // the paper's Example 1
	if err != nil {
		return r, err
	}
	if r.Example1LDP, err = LDPExact(ex); err != nil {
		return r, err
	}
	if r.Example1BCDP, err = Exact(ex); err != nil {
		return r, err
	}
	return r, nil
}

// Check returns an error naming the first relation of the paper's Figure 1
// that the exact parameters violate (up to 1e-9): CDP ⇒ LDP (ε_L ≤ Σc*),
// LDP ⇒ CDP (c*_i ≤ ε_L), LDP ⇒ BCDP (Prop. 3, δ*_i ≤ ε_L), CDP + prior ⇒
// BCDP (Prop. 4, δ*_i ≤ bound_i), and Example 1 (infinite LDP, finite
// BCDP).
func (r Relations) Check() error {
	const tol = 1e-9
	if r.LDP > r.SumCDP+tol {
		return fmt.Errorf("bcdp: ε_L = %v > Σc* = %v (CDP ⇒ LDP)", r.LDP, r.SumCDP)
	}
	for i := range r.CDP {
		switch {
		case r.CDP[i] > r.LDP+tol:
			return fmt.Errorf("bcdp: c*_%d = %v > ε_L = %v (LDP ⇒ CDP)", i+1, r.CDP[i], r.LDP)
		case r.BCDP[i] > r.LDP+tol:
			return fmt.Errorf("bcdp: δ*_%d = %v > ε_L = %v (Prop. 3)", i+1, r.BCDP[i], r.LDP)
		case r.BCDP[i] > r.Prop4[i]+tol:
			return fmt.Errorf("bcdp: δ*_%d = %v > Prop. 4 bound %v", i+1, r.BCDP[i], r.Prop4[i])
		}
	}
	if !math.IsInf(r.Example1LDP, 1) {
		return fmt.Errorf("bcdp: Example 1 has finite LDP level %v", r.Example1LDP)
	}
	for i, v := range r.Example1BCDP {
		if math.IsInf(v, 0) || math.Abs(v-math.Ln2) > tol {
			return fmt.Errorf("bcdp: Example 1 δ*_%d = %v, want log 2", i+1, v)
		}
	}
	return nil
}
