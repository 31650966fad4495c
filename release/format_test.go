package release

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

// upward never prints a value below x, with at most digits significant
// digits, and prints %.{digits}g whenever that is not below x.
func TestUpward(t *testing.T) {
	for _, tc := range []struct {
		x      float64
		digits int
		want   string
	}{
		{1.2344399999999998, 4, "1.235"}, // %.4g: 1.234, below
		{1.9999999999999891, 4, "2"},     // %.4g rounds up already
		{1.23456e-6, 3, "1.24e-06"},      // %.3g: 1.23e-06, below
		{1e-5, 3, "1e-05"},
		{9.9991, 4, "10"},       // the carry adds a digit to the exponent
		{-1.23449, 4, "-1.234"}, // towards +∞
		{0, 4, "0"},
		{math.Inf(1), 4, "+Inf"},
	} {
		if got := upward(tc.x, tc.digits); got != tc.want {
			t.Errorf("upward(%v, %d) = %q, want %q", tc.x, tc.digits, got, tc.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		x := math.Exp(r.NormFloat64()*20) * float64(1-2*r.IntN(2))
		d := 1 + r.IntN(8)
		s := upward(x, d)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < x {
			t.Fatalf("upward(%v, %d) = %q: below x (%v)", x, d, s, err)
		}
		if near := fmt.Sprintf("%.*g", d, x); s != near {
			if nv, _ := strconv.ParseFloat(near, 64); nv >= x {
				t.Fatalf("upward(%v, %d) = %q, but %%.%dg = %q is not below x", x, d, s, d, near)
			}
		}
		if mant, _, _ := strings.Cut(strings.TrimLeft(s, "-"), "e"); len(strings.TrimLeft(strings.Replace(mant, ".", "", 1), "0")) > d {
			t.Fatalf("upward(%v, %d) = %q: more than %d significant digits", x, d, s, d)
		}
	}
}

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
// nearest: ε = 1.23444 was stated as 1.234). Fails before upward.
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
	if b := c.AttributeInference[0].Bound; !strings.Contains(md, "| "+upward(b, 4)+" |") {
		t.Errorf("markdown does not state the bound %v rounded up (%s):\n%s", b, upward(b, 4), md)
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
