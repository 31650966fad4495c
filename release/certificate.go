package release

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/mdtext"
)

// CertificateVersion is the version of the certificate's JSON layout and
// meaning. Version 2: under feature DP the statement names the label as
// known to the simulator, a DP certificate records the public row count
// that scaled the update (training.rows), and no attribute-inference bound
// assumes a prior. A version-1 file is refused (train it again).
const CertificateVersion = 2

// Notion names the privacy notion a model was trained under.
type Notion string

// The notions a release can be trained under.
const (
	// FeatureDP is feature DP (Algorithm 1 of the feature-DP paper): the
	// protected columns of one record may change arbitrarily, given its
	// public columns; the loss is read under the feature relation.
	FeatureDP Notion = "feature-dp"
	// DP is record-level DP (DP-SGD): one whole record may be added or
	// removed.
	DP Notion = "dp"
	// CorrDP is CorrDP with its honest guarantee (the ε the TV-weighted
	// noise really gives each column, never the claimed one).
	CorrDP Notion = "corrdp"
)

// Training describes the private training run that the ledger accounts
// for: Poisson sampling at SampleRate, Steps noisy steps with Gaussian noise
// NoiseMultiplier·ClipNorm on the sum of clipped per-example gradients. A
// model file's certificate must state exactly that (Sampling "Poisson",
// Steps ≥ 1, NoiseMultiplier > 0): File.Validate recomposes its ε from them.
type Training struct {
	Model           string  `json:"model"`
	Sampling        string  `json:"sampling"`
	SampleRate      float64 `json:"sample_rate"`
	Steps           int     `json:"steps"`
	NoiseMultiplier float64 `json:"noise_multiplier"`
	ClipNorm        float64 `json:"clip_norm"`
	LearningRate    float64 `json:"learning_rate,omitempty"`
	Epochs          float64 `json:"epochs,omitempty"`
	// Rows is the public row count that scaled the update: the noisy
	// gradient sum was divided by SampleRate·Rows, so the private number
	// of rows (itself private under add/remove) did not reach the model.
	// Required under DP; 0 under feature DP means the actual count, which
	// the simulator of the feature-simulator relation sees.
	Rows int `json:"rows,omitempty"`
}

// ColumnBound is the attribute-inference bound of one protected column:
// no adversary guesses its value from the model with probability above
// Bound (feature DP paper, Thm 4: min(1, e^ε·Ball + δ), Ball the largest
// probability of one value given the record's public columns and label, as
// the user stated it).
type ColumnBound struct {
	Column string  `json:"column"`
	Ball   float64 `json:"ball"`
	Bound  float64 `json:"bound"`
	Why    string  `json:"ball_source"`
}

// Entry is one loss of the ledger, as the certificate lists it.
type Entry struct {
	Loss     string  `json:"loss"`
	Relation string  `json:"relation"`
	Part     string  `json:"part"`
	Value    float64 `json:"value"`
}

// Accounting says how (ε, δ) was obtained.
type Accounting struct {
	Accountant string    `json:"accountant"`
	Route      string    `json:"route"`
	Order      float64   `json:"order,omitempty"`
	Conversion string    `json:"conversion"`
	Orders     []float64 `json:"orders"`
	Entries    []Entry   `json:"entries"`
	Notes      []string  `json:"notes,omitempty"`
}

// Certificate states the guarantee of a release. Its JSON layout is
// documented in docs/release.md.
type Certificate struct {
	Version            int           `json:"certificate_version"`
	Featuredp          string        `json:"featuredp"`
	Notion             Notion        `json:"notion"`
	Relation           string        `json:"relation"`
	Protected          []string      `json:"protected_columns"`
	Public             []string      `json:"public_columns"`
	Label              string        `json:"label"`
	Epsilon            float64       `json:"epsilon"`
	Delta              float64       `json:"delta"`
	TargetEpsilon      float64       `json:"target_epsilon"`
	Randomness         string        `json:"randomness"`
	PrivateRelease     bool          `json:"private_release"`
	Statement          string        `json:"statement"`
	Training           Training      `json:"training"`
	Accounting         Accounting    `json:"accounting"`
	AttributeInference []ColumnBound `json:"attribute_inference,omitempty"`
	RowCount           string        `json:"row_count"`
	Notes              []string      `json:"notes,omitempty"`
}

// Spec is what a certificate states besides the ledger's numbers.
type Spec struct {
	Notion        Notion
	Protected     []string
	Public        []string
	Label         string
	TargetEpsilon float64
	// Secure is true for a run whose randomness came from the OS CSPRNG
	// (mechanisms.Secure); only such a run is a private release.
	Secure             bool
	Training           Training
	AttributeInference []ColumnBound
	Notes              []string
}

// rowCountNote says how the certificate treats the number of training
// rows, which under add/remove is itself private.
const rowCountNote = "not recorded: under add/remove one record the number of rows is private; " +
	"the sample rate q is a public parameter, and the update is scaled by q·training.rows, a public count " +
	"(required under dp; without it, under feature-dp, by q·n, n being known to the feature-simulator relation's simulator)"

// New builds the certificate of a release from the ledger that composed
// every loss the training released, at δ with conversion conv. The ε it
// states is the ledger's (Ledger.Epsilon), never recomputed; it must not
// exceed s.TargetEpsilon (a run that overshoots its target is an error,
// not a certificate). Errors: a nil or empty ledger, a relation that does
// not match the notion, missing columns, ε above the target, or a
// Training that is not the Poisson-subsampled Gaussian steps the ledger
// holds (File.Validate recomposes its ε from them: Sampling "Poisson",
// Steps ≥ 1, NoiseMultiplier > 0, an ε no lower than theirs, at most
// MaxOrders orders).
func New(l *accounting.Ledger, delta float64, conv accounting.Conversion, s Spec) (*Certificate, error) {
	if l == nil || l.Len() == 0 {
		return nil, errors.New("release: New: the ledger is nil or empty: add the losses of the training run")
	}
	if err := s.check(l.Relation()); err != nil {
		return nil, err
	}
	rep, err := l.Epsilon(delta, conv)
	if err != nil {
		return nil, fmt.Errorf("release: New: %w", err)
	}
	if !(rep.Epsilon <= s.TargetEpsilon*(1+1e-12)) {
		return nil, fmt.Errorf("release: New: the ledger's ε = %.6g exceeds the target %.6g: recalibrate the noise (no certificate above the target)", rep.Epsilon, s.TargetEpsilon)
	}
	// What File.Validate recomposes (checkEpsilon) is refused here, with
	// the fix, rather than in a saved file as "edited or damaged".
	if t := s.Training; t.Sampling != "Poisson" || t.Steps <= 0 || !(t.NoiseMultiplier > 0) {
		return nil, fmt.Errorf("release: New: Training states %q sampling, %d steps and noise multiplier %v: a certificate states "+
			"the Poisson-subsampled Gaussian steps of its training (Sampling \"Poisson\", Steps ≥ 1, NoiseMultiplier > 0), "+
			"whose ε File.Validate recomposes: fill Spec.Training", t.Sampling, t.Steps, t.NoiseMultiplier)
	}
	if n := len(l.Orders()); n > MaxOrders {
		return nil, fmt.Errorf("release: New: the ledger has %d RDP orders, more than MaxOrders = %d, which File.Validate refuses: use a smaller grid", n, MaxOrders)
	}
	c := &Certificate{
		Version: CertificateVersion, Featuredp: experiments.BuildVersion(), Notion: s.Notion,
		Relation: rep.Relation.String(), Protected: slices.Clone(s.Protected), Public: slices.Clone(s.Public), Label: s.Label,
		Epsilon: rep.Epsilon, Delta: rep.Delta, TargetEpsilon: s.TargetEpsilon,
		Randomness: "reproducible", Training: s.Training, AttributeInference: slices.Clone(s.AttributeInference),
		RowCount: rowCountNote, Notes: slices.Clone(s.Notes),
		Accounting: accountingOf(l, rep, conv),
	}
	if s.Secure {
		c.Randomness, c.PrivateRelease = "secure", true
	}
	c.Statement = c.statement()
	trep, _, err := c.trainingReport()
	if err != nil {
		return nil, fmt.Errorf("release: New: Training (q = %v, z = %v, T = %d) does not compose: %w", s.Training.SampleRate, s.Training.NoiseMultiplier, s.Training.Steps, err)
	}
	if !(c.Epsilon >= trep.Epsilon*(1-1e-9)) {
		return nil, fmt.Errorf("release: New: the ledger's ε = %.6g is below the ε = %.6g that Training (q = %v, z = %v, T = %d) alone composes to: "+
			"the ledger must hold every loss of the training (accounting.SubsampledGaussianLoss of its phase), and Training state that run",
			c.Epsilon, trep.Epsilon, s.Training.SampleRate, s.Training.NoiseMultiplier, s.Training.Steps)
	}
	return c, nil
}

// check validates the spec against the ledger's relation.
func (s Spec) check(rel accounting.Relation) error {
	rs, ok := notionRelations[s.Notion]
	switch {
	case !ok:
		return fmt.Errorf("release: unknown notion %q (want %s, %s or %s)", s.Notion, FeatureDP, DP, CorrDP)
	case !slices.Contains(rs, rel):
		return fmt.Errorf("release: notion %s is stated under the %v relation, but the ledger composes %s losses: change the losses' relation explicitly (Loss.ChangeRelation)", s.Notion, rs, rel)
	case s.Label == "":
		return errors.New("release: the certificate needs the label column")
	case s.Training.Rows < 0 || s.Notion == DP && s.Training.Rows == 0:
		return fmt.Errorf("release: Training.Rows = %d: under %s the update must be scaled by a public row count > 0 (the actual count is private)", s.Training.Rows, s.Notion)
	case len(s.Protected) == 0 && s.Notion != DP:
		return fmt.Errorf("release: notion %s needs the protected columns", s.Notion)
	case !(s.TargetEpsilon > 0) || math.IsInf(s.TargetEpsilon, 0):
		return fmt.Errorf("release: target ε %v: want a finite ε > 0", s.TargetEpsilon)
	}
	return nil
}

// accountantName names the accountant of every certificate.
const accountantName = "accounting.Ledger (composition of every released loss; docs/accounting.md)"

// accountingOf lists the ledger's route, conversion and entries.
func accountingOf(l *accounting.Ledger, rep *accounting.LedgerReport, conv accounting.Conversion) Accounting {
	a := Accounting{
		Accountant: accountantName,
		Route:      string(rep.Route), Order: rep.Order, Conversion: conv.String(),
		Orders: slices.Clone(l.Orders()), Notes: slices.Clone(rep.Notes),
	}
	for _, e := range rep.Entries {
		a.Entries = append(a.Entries, Entry{Loss: e.Loss.String(), Relation: e.Loss.Relation().String(), Part: e.Part, Value: e.Value})
	}
	return a
}

// statement is the guarantee in one sentence, ε and δ rounded up (to 4
// and 3 significant digits) so that it never understates them.
func (c *Certificate) statement() string {
	return c.statementWith(mdtext.Upward(c.Epsilon, 4), mdtext.Upward(c.Delta, 3))
}

// legacyStatement is the statement as builds before mdtext.Upward wrote it, ε
// and δ rounded to nearest (%.4g, %.3g): a file such a build wrote still
// loads, and Markdown shows its statement with ε and δ rounded up.
func (c *Certificate) legacyStatement() string {
	return c.statementWith(fmt.Sprintf("%.4g", c.Epsilon), fmt.Sprintf("%.3g", c.Delta))
}

// statementWith is the statement with ε and δ written as eps and delta.
func (c *Certificate) statementWith(eps, delta string) string {
	var who string
	switch c.Notion {
	case FeatureDP:
		// The label is public under feature DP: Algorithm 1's public
		// gradient reads it without noise.
		who = fmt.Sprintf("changing the protected columns (%s) of any one record, its public columns (%s) and its label (%s) held fixed",
			strings.Join(c.Protected, ", "), strings.Join(c.Public, ", "), c.Label)
		if c.Relation == accounting.RelationFeatureSimulator.String() {
			who = fmt.Sprintf("a simulator that sees every other record and only the public columns (%s) and the label (%s) of the one record, not its protected columns (%s)",
				strings.Join(c.Public, ", "), c.Label, strings.Join(c.Protected, ", "))
		}
	case DP:
		who = "adding or removing any one record"
	case CorrDP:
		who = fmt.Sprintf("replacing any one record, with the honest ε of the protected columns (%s)", strings.Join(c.Protected, ", "))
	}
	s := fmt.Sprintf("(ε = %s, δ = %s)-%s with respect to %s.", eps, delta, c.Notion, who)
	if !c.PrivateRelease {
		s = "NOT A PRIVATE RELEASE (reproducible randomness: the seed regenerates the noise). Were the noise secret, it would be " + s
	}
	return s
}
