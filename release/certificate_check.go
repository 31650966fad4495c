package release

import (
	"fmt"
	"math"
	"slices"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/notions/fdp"
)

// notionRelations are the relations each notion may be stated under.
var notionRelations = map[Notion][]accounting.Relation{
	FeatureDP: {accounting.RelationFeatureSimulator, accounting.RelationFeature},
	DP:        {accounting.RelationAddRemove},
	CorrDP:    {accounting.RelationReplaceOne},
}

// check verifies that the certificate is one New could have made for a
// model with encoder enc: a known version and notion under one of its
// relations, finite ε ≥ 0 at most the target, δ in (0, 1), the encoder's
// label, its features split between protected and public columns as the
// notion says (feature DP and CorrDP: the sensitive and the public
// features; DP: every feature protected), randomness that matches the
// private-release flag, and the statement that these fields give. It
// catches a certificate taken from another run or edited by hand.
func (c *Certificate) check(enc *data.Encoder) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("release: the certificate "+format+": %w", append(a, ErrFormat)...)
	}
	rels, ok := notionRelations[c.Notion]
	switch {
	case c.Version != CertificateVersion:
		return bad("has version %d, this build reads %d (a version-1 certificate could assume a prior for its attribute-inference bounds "+
			"and, under DP, scale the update by the private row count: train the model again)", c.Version, CertificateVersion)
	case !ok:
		return bad("names unknown notion %q", c.Notion)
	case !slices.ContainsFunc(rels, func(r accounting.Relation) bool { return r.String() == c.Relation }):
		return bad("states %s under relation %q, want one of %v", c.Notion, c.Relation, rels)
	case !(c.Epsilon >= 0) || math.IsInf(c.Epsilon, 0) || !(c.TargetEpsilon > 0) || math.IsInf(c.TargetEpsilon, 0):
		return bad("states ε = %v with target %v: want finite ε ≥ 0 and target > 0", c.Epsilon, c.TargetEpsilon)
	case !(c.Epsilon <= c.TargetEpsilon*(1+1e-12)):
		return bad("states ε = %v above its target %v", c.Epsilon, c.TargetEpsilon)
	case !(c.Delta > 0 && c.Delta < 1):
		return bad("states δ = %v, want δ in (0, 1)", c.Delta)
	case c.PrivateRelease != (c.Randomness == "secure"):
		return bad("says private release %v with %q randomness (only secure randomness is a private release)", c.PrivateRelease, c.Randomness)
	case c.Training.Rows < 0 || c.Notion == DP && c.Training.Rows == 0:
		return bad("states training rows %d: under %s the update is scaled by a public row count (> 0), the actual one being private", c.Training.Rows, c.Notion)
	}
	if lab, _ := enc.Schema.Label(); c.Label != lab.Name {
		return bad("names label %q, the encoder %q", c.Label, lab.Name)
	}
	protected, public := c.expectedColumns(enc)
	if !sameSet(c.Protected, protected) || !sameSet(c.Public, public) {
		return bad("protects %q with public %q, but the encoder's features under %s are protected %q, public %q",
			c.Protected, c.Public, c.Notion, protected, public)
	}
	if c.Statement != c.statement() && c.Statement != c.legacyStatement() {
		return bad("statement %q does not match its fields (%q)", c.Statement, c.statement())
	}
	if err := c.checkEpsilon(); err != nil {
		return err
	}
	return c.checkBounds(enc)
}

// checkBounds verifies every attribute-inference bound against the
// certificate's own ε and δ: a protected feature of enc, named once, with
// a Ball in [1/levels, 1] (a categorical feature's best guess succeeds at
// least that often) and a bound no lower than the feature-DP paper's Thm
// 4 bound of that Ball, fdp.AttributeInferenceBound (min(1, e^ε·Ball +
// δ)). A bound edited below it is refused.
func (c *Certificate) checkBounds(enc *data.Encoder) error {
	seen := map[string]bool{}
	for _, b := range c.AttributeInference {
		i := slices.IndexFunc(enc.Features, func(fe data.FeatureEncoding) bool { return fe.Column.Name == b.Column })
		switch {
		case !slices.Contains(c.Protected, b.Column) || i < 0:
			return fmt.Errorf("release: the certificate bounds attribute inference on %q, which is not a protected column (%q): %w", b.Column, c.Protected, ErrFormat)
		case seen[b.Column]:
			return fmt.Errorf("release: the certificate bounds attribute inference on %q twice: %w", b.Column, ErrFormat)
		}
		seen[b.Column] = true
		col := enc.Features[i].Column
		col.Levels = enc.Features[i].Levels
		if err := fdp.CheckBall(col, b.Ball); err != nil {
			return fmt.Errorf("release: the certificate's attribute-inference bound: %w: %w", err, ErrFormat)
		}
		want, err := fdp.AttributeInferenceBound(c.Epsilon, c.Delta, b.Ball)
		if err != nil {
			return fmt.Errorf("release: the certificate's attribute-inference bound on %q: %w: %w", b.Column, err, ErrFormat)
		}
		if !(b.Bound >= want*(1-1e-12)) || b.Bound > 1 {
			return fmt.Errorf("release: the certificate bounds attribute inference on %q by %v, but its ε = %v, δ = %v and Ball %v give %v "+
				"(feature-DP paper, Thm 4): edited or damaged: %w", b.Column, b.Bound, c.Epsilon, c.Delta, b.Ball, want, ErrFormat)
		}
	}
	return nil
}

// MaxOrders caps the order grid of a certificate (every built-in grid
// has fewer than 300 orders): checkEpsilon evaluates the RDP at each, so a
// file with more is refused (dpnb.Train refuses such a grid before
// training).
const MaxOrders = 10_000

// checkEpsilon recomposes the loss of the training the certificate states
// — Poisson sampling at rate q, multiplier z, T steps — on a ledger of its
// relation and order grid, with its conversion, and refuses a stated ε
// below it: the ε of a certificate is never below what its own training
// parameters cost (it may be above, when the ledger held more losses). A
// release is Poisson-subsampled Gaussian steps (dpnb.Train): a
// certificate stating other training (another sampling, no step, no
// noise) is refused, as its ε could not be recomposed.
func (c *Certificate) checkEpsilon() error {
	t := c.Training
	if t.Sampling != "Poisson" || t.Steps <= 0 || !(t.NoiseMultiplier > 0) {
		return fmt.Errorf("release: the certificate states training with %q sampling, %d steps and noise multiplier %v: a release "+
			"is Poisson-subsampled Gaussian steps (T ≥ 1, z > 0), whose ε is recomposed here; edited or damaged: %w", t.Sampling, t.Steps, t.NoiseMultiplier, ErrFormat)
	}
	rep, led, err := c.trainingReport()
	if err != nil {
		return fmt.Errorf("release: the certificate's training (q = %v, z = %v, T = %d) does not compose: %w (%w)", t.SampleRate, t.NoiseMultiplier, t.Steps, err, ErrFormat)
	}
	want := rep.Epsilon
	if !(c.Epsilon >= want*(1-1e-9)) {
		return fmt.Errorf("release: the certificate states ε = %v, but its training (q = %v, z = %v, T = %d) composes to ε = %v on its ledger: edited or damaged: %w",
			c.Epsilon, t.SampleRate, t.NoiseMultiplier, t.Steps, want, ErrFormat)
	}
	return c.checkAccounting(rep, led)
}

// checkAccounting verifies the accounting block against rep, the report
// of the ledger of the certificate's training alone (led): the accountant
// and the row-count note are the ones New writes, the ledger entries are
// stated under the certificate's relation, and — when the certificate's ε
// is that ledger's, as for every dpnb.Train release — its route, order
// and entries are the ones that ledger reports. A certificate whose
// ledger held more losses (a larger ε) keeps its own route and entries.
func (c *Certificate) checkAccounting(rep *accounting.LedgerReport, led *accounting.Ledger) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("release: the certificate's "+format+": edited or damaged: %w", append(a, ErrFormat)...)
	}
	a := c.Accounting
	switch {
	case a.Accountant != accountantName:
		return bad("accountant is %q, not %q", a.Accountant, accountantName)
	case c.RowCount != rowCountNote:
		return bad("row-count note is %q, not the one every certificate carries", c.RowCount)
	case len(a.Entries) == 0:
		return bad("accounting lists no ledger entry")
	}
	for _, e := range a.Entries {
		if e.Relation != c.Relation {
			return bad("ledger entry %q is under relation %q, the certificate under %q", e.Loss, e.Relation, c.Relation)
		}
	}
	if math.Abs(c.Epsilon-rep.Epsilon) > 1e-9*rep.Epsilon {
		return nil // more losses than the training's: its own route and entries
	}
	want := accountingOf(led, rep, rep.Conversion)
	if a.Route != want.Route || !c.orderTies(a.Order, want.Order, rep.Epsilon) || len(a.Entries) != len(want.Entries) {
		return bad("accounting states route %s (order %v) with %d entries, its training's ledger route %s (order %v) with %d",
			a.Route, a.Order, len(a.Entries), want.Route, want.Order, len(want.Entries))
	}
	for i, e := range a.Entries {
		if w := want.Entries[i]; e.Part != w.Part || math.Abs(e.Value-w.Value) > 1e-9*math.Abs(w.Value) {
			return bad("ledger entry %d is %s %v, its training's ledger gives %s %v", i, e.Part, e.Value, w.Part, w.Value)
		}
	}
	return nil
}

// orderTies reports whether the stated RDP order is the recomposed one,
// or another order of the certificate's grid at which the training's ε is
// the same to 1e-9 (relative): two orders that nearly tie may swap places
// on another platform (fused multiply-adds on arm64, the SIMD or portable
// build), and a genuine file must load there too.
func (c *Certificate) orderTies(stated, want, eps float64) bool {
	if stated == want {
		return true
	}
	if !slices.Contains(c.Accounting.Orders, stated) {
		return false
	}
	rep, _, err := c.trainingReportOn([]float64{stated})
	return err == nil && rep.Route == accounting.RouteRDP && math.Abs(rep.Epsilon-eps) <= 1e-9*eps
}

// trainingReport is the ledger report at the certificate's δ of its
// training steps alone, composed as New composed them, and that ledger.
func (c *Certificate) trainingReport() (*accounting.LedgerReport, *accounting.Ledger, error) {
	return c.trainingReportOn(c.Accounting.Orders)
}

// trainingReportOn is trainingReport on the order grid orders.
func (c *Certificate) trainingReportOn(orders []float64) (*accounting.LedgerReport, *accounting.Ledger, error) {
	if n := len(orders); n > MaxOrders {
		return nil, nil, fmt.Errorf("%d RDP orders, more than %d", n, MaxOrders)
	}
	rel, err := accounting.ParseRelation(c.Relation)
	if err != nil {
		return nil, nil, err
	}
	conv, err := accounting.ParseConversion(c.Accounting.Conversion)
	if err != nil {
		return nil, nil, err
	}
	t := c.Training
	loss, err := accounting.SubsampledGaussianLoss(accounting.Phase{SampleRate: t.SampleRate, NoiseMultiplier: t.NoiseMultiplier, Steps: t.Steps})
	if err != nil {
		return nil, nil, err
	}
	if loss, err = loss.ChangeRelation(rel); err != nil {
		return nil, nil, err
	}
	led, err := accounting.NewLedger(rel, orders)
	if err != nil {
		return nil, nil, err
	}
	if err := led.Add(loss); err != nil {
		return nil, nil, err
	}
	rep, err := led.Epsilon(c.Delta, conv)
	if err != nil {
		return nil, nil, err
	}
	return rep, led, nil
}

// expectedColumns splits enc's features into the protected and public
// columns the certificate's notion gives them.
func (c *Certificate) expectedColumns(enc *data.Encoder) (protected, public []string) {
	for _, fe := range enc.Features {
		if c.Notion == DP || fe.Column.Role == data.Sensitive {
			protected = append(protected, fe.Column.Name)
		} else {
			public = append(public, fe.Column.Name)
		}
	}
	return protected, public
}

// sameSet reports whether a and b hold the same strings, each once.
func sameSet(a, b []string) bool {
	a, b = slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b))
	return slices.Equal(a, b) && len(slices.Compact(a)) == len(b)
}
