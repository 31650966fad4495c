package release

import (
	"fmt"
	"math"
	"slices"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/data"
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
	if c.Statement != c.statement() {
		return bad("statement %q does not match its fields (%q)", c.Statement, c.statement())
	}
	return c.checkEpsilon()
}

// maxCheckOrders caps the order grid of a certificate (every built-in grid
// has fewer than 300 orders): checkEpsilon evaluates the RDP at each.
const maxCheckOrders = 10_000

// checkEpsilon recomposes the loss of the training the certificate states
// — Poisson sampling at rate q, multiplier z, T steps — on a ledger of its
// relation and order grid, with its conversion, and refuses a stated ε
// below it: the ε of a certificate is never below what its own training
// parameters cost (it may be above, when the ledger held more losses). A
// certificate whose training is not Poisson-subsampled Gaussian steps is
// not recomposed.
func (c *Certificate) checkEpsilon() error {
	t := c.Training
	if t.Sampling != "Poisson" || t.Steps <= 0 || !(t.NoiseMultiplier > 0) {
		return nil
	}
	want, err := c.trainingEpsilon()
	if err != nil {
		return fmt.Errorf("release: the certificate's training (q = %v, z = %v, T = %d) does not compose: %w (%w)", t.SampleRate, t.NoiseMultiplier, t.Steps, err, ErrFormat)
	}
	if !(c.Epsilon >= want*(1-1e-9)) {
		return fmt.Errorf("release: the certificate states ε = %v, but its training (q = %v, z = %v, T = %d) composes to ε = %v on its ledger: edited or damaged: %w",
			c.Epsilon, t.SampleRate, t.NoiseMultiplier, t.Steps, want, ErrFormat)
	}
	return nil
}

// trainingEpsilon is the ε at the certificate's δ of its training steps
// alone, composed as New composed them.
func (c *Certificate) trainingEpsilon() (float64, error) {
	if n := len(c.Accounting.Orders); n > maxCheckOrders {
		return 0, fmt.Errorf("%d RDP orders, more than %d", n, maxCheckOrders)
	}
	rel, err := accounting.ParseRelation(c.Relation)
	if err != nil {
		return 0, err
	}
	conv, err := accounting.ParseConversion(c.Accounting.Conversion)
	if err != nil {
		return 0, err
	}
	t := c.Training
	loss, err := accounting.SubsampledGaussianLoss(accounting.Phase{SampleRate: t.SampleRate, NoiseMultiplier: t.NoiseMultiplier, Steps: t.Steps})
	if err != nil {
		return 0, err
	}
	if loss, err = loss.ChangeRelation(rel); err != nil {
		return 0, err
	}
	led, err := accounting.NewLedger(rel, c.Accounting.Orders)
	if err != nil {
		return 0, err
	}
	if err := led.Add(loss); err != nil {
		return 0, err
	}
	rep, err := led.Epsilon(c.Delta, conv)
	if err != nil {
		return 0, err
	}
	return rep.Epsilon, nil
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
