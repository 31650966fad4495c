package release

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/internal/mdtext"
)

// roundingDownCertificate is a certificate whose ε and δ %.4g and %.3g
// round down: δ = 1.23456e-5, and the first noise multiplier from 1.1 up
// whose ε does.
func roundingDownCertificate(t *testing.T) *Certificate {
	t.Helper()
	const delta = 1.23456e-5
	for z := 1.1; z < 1.3; z += 0.001 {
		l, err := accounting.NewLedger(accounting.RelationFeatureSimulator, accounting.DefaultOrders())
		if err != nil {
			t.Fatal(err)
		}
		loss, err := accounting.SubsampledGaussianLoss(accounting.Phase{SampleRate: 0.01, NoiseMultiplier: z, Steps: 500})
		if err == nil {
			loss, err = loss.ChangeRelation(accounting.RelationFeatureSimulator)
		}
		if err == nil {
			err = l.Add(loss)
		}
		if err != nil {
			t.Fatal(err)
		}
		c, err := New(l, delta, accounting.DefaultConversion, Spec{
			Notion: FeatureDP, Protected: []string{"sex"}, Public: []string{"age"}, Label: "y", TargetEpsilon: 2, Secure: true,
			Training: Training{Model: KindSoftmax, Sampling: "Poisson", SampleRate: 0.01, Steps: 500, NoiseMultiplier: z, ClipNorm: 1},
		})
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := strconv.ParseFloat(fmt.Sprintf("%.4g", c.Epsilon), 64); v < c.Epsilon {
			return c
		}
	}
	t.Fatal("no noise multiplier in [1.1, 1.3) gives an ε that rounds down at 4 digits")
	return nil
}

// statedNumber parses the number after prefix in s.
func statedNumber(t *testing.T, s, prefix string) float64 {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(prefix) + `([-+0-9.e]+)`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no %q in %q", prefix, s)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The statement and the markdown never state an ε, a δ or an
// attribute-inference bound below the certificate's own (they rounded to
// nearest: ε = 1.23444 was stated as 1.234). Fails before mdtext.Upward.
func TestStatementNeverUnderstates(t *testing.T) {
	c := roundingDownCertificate(t)
	c.AttributeInference = []ColumnBound{{Column: "sex", Ball: 0.5}}
	c.AttributeInference[0].Bound = math.Min(1, math.Exp(c.Epsilon)*0.1+c.Delta) // a value %.4g may round down
	md := c.Markdown()
	for _, got := range []struct {
		what, text, prefix string
		exact              float64
	}{
		{"statement ε", c.Statement, "ε = ", c.Epsilon},
		{"statement δ", c.Statement, "δ = ", c.Delta},
		{"markdown statement ε", md, "**(ε = ", c.Epsilon},
		{"markdown ε row", md, "| ε (target) | ", c.Epsilon},
		{"markdown δ row", md, "| δ | ", c.Delta},
	} {
		if v := statedNumber(t, got.text, got.prefix); v < got.exact {
			t.Errorf("%s: %v stated, below the exact %v", got.what, v, got.exact)
		}
	}
	if b := c.AttributeInference[0].Bound; !strings.Contains(md, "| "+mdtext.Upward(b, 4)+" |") {
		t.Errorf("markdown does not state the bound %v rounded up (%s):\n%s", b, mdtext.Upward(b, 4), md)
	}
}

// A file an older build wrote, whose statement rounded ε and δ to nearest,
// still loads; its markdown states them rounded up.
func TestLegacyStatementLoads(t *testing.T) {
	f := modelFile(t)
	f.Certificate = roundingDownCertificate(t)
	f.Certificate.Statement = f.Certificate.legacyStatement()
	if f.Certificate.Statement == f.Certificate.statement() {
		t.Fatal("the legacy statement is the new one: the test needs a certificate that rounds down")
	}
	var buf strings.Builder
	if err := f.Write(&buf); err != nil {
		t.Fatalf("a legacy statement refused: %v", err)
	}
	g, err := Read(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatalf("a legacy statement refused: %v", err)
	}
	if md := g.Certificate.Markdown(); !strings.Contains(md, g.Certificate.statement()) || strings.Contains(md, g.Certificate.Statement) {
		t.Errorf("markdown of a legacy statement does not round up:\n%s", md)
	}
}
