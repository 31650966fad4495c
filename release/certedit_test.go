package release

import (
	"bytes"
	"math"
	"slices"
	"testing"
)

// withBound gives the model file's certificate the attribute-inference
// bound of its protected column sex at Ball = 1/2 (its two levels):
// min(1, e^ε·Ball + δ) (feature-DP paper, Thm 4).
func withBound(f *File) *File {
	c := f.Certificate
	b := math.Min(1, math.Exp(c.Epsilon)*0.5+c.Delta)
	c.AttributeInference = []ColumnBound{{Column: "sex", Ball: 0.5, Bound: b, Why: "given by the user"}}
	return f
}

// A certificate edited by hand so that it states less than its training
// cost — an ε below what its training composes to once the sampling is
// renamed or the steps zeroed (which used to skip the recomposition), an
// attribute-inference bound below the Thm 4 bound of its Ball and ε, a
// Ball below 1/levels, a bound on a column that is not protected — is
// refused by Write and, with its checksum recomputed, by Read; the
// unedited file with a bound passes.
func TestCertificateEditsRefused(t *testing.T) {
	lower := func(f *File) {
		f.Certificate.Epsilon /= 100
		f.Certificate.Statement = f.Certificate.statement()
	}
	for _, c := range []struct {
		name string
		edit func(*File)
	}{
		{"sampling renamed, ε lowered", func(f *File) { f.Certificate.Training.Sampling = "uniform"; lower(f) }},
		{"sampling emptied, ε lowered", func(f *File) { f.Certificate.Training.Sampling = ""; lower(f) }},
		{"steps zeroed, ε lowered", func(f *File) { f.Certificate.Training.Steps = 0; lower(f) }},
		{"multiplier zeroed, ε lowered", func(f *File) { f.Certificate.Training.NoiseMultiplier = 0; lower(f) }},
		{"bound lowered", func(f *File) { f.Certificate.AttributeInference[0].Bound = 0.01 }},
		{"Ball below 1/levels", func(f *File) {
			a := &f.Certificate.AttributeInference[0]
			a.Ball = 0.01
			a.Bound = math.Min(1, math.Exp(f.Certificate.Epsilon)*a.Ball+f.Certificate.Delta)
		}},
		{"bound on a public column", func(f *File) { f.Certificate.AttributeInference[0].Column = "age" }},
		{"bound on no column", func(f *File) { f.Certificate.AttributeInference[0].Column = "income" }},
		{"column bounded twice", func(f *File) {
			a := f.Certificate.AttributeInference
			f.Certificate.AttributeInference = append(a, a[0])
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := withBound(modelFile(t))
			c.edit(f)
			if err := f.Write(&bytes.Buffer{}); err == nil {
				t.Error("Write accepted the edited certificate")
			}
			if _, err := Read(bytes.NewReader(writeUnchecked(t, f))); err == nil {
				t.Error("Read accepted the edited certificate with its checksum recomputed")
			}
		})
	}
	if err := withBound(modelFile(t)).Write(&bytes.Buffer{}); err != nil {
		t.Errorf("the unedited file with a bound: %v", err)
	}
}

// The accounting block of a certificate is what its ledger reported: an
// edited route, order, ledger entry, accountant or row-count note (the
// checksum recomputed) is refused, since the ledger of a release's
// training — recomposed from q, z and T — gives them back.
func TestCertificateAccountingEditsRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Certificate)
	}{
		{"route", func(c *Certificate) { c.Accounting.Route = "pure" }},
		{"order", func(c *Certificate) { c.Accounting.Order = 64 }},
		{"entry value lowered", func(c *Certificate) { c.Accounting.Entries[0].Value /= 10 }},
		{"entry relation", func(c *Certificate) { c.Accounting.Entries[0].Relation = "add-remove" }},
		{"entries dropped", func(c *Certificate) { c.Accounting.Entries = nil }},
		{"entry added", func(c *Certificate) { c.Accounting.Entries = append(c.Accounting.Entries, c.Accounting.Entries[0]) }},
		{"accountant", func(c *Certificate) { c.Accounting.Accountant = "audited by hand" }},
		{"row count note", func(c *Certificate) { c.RowCount = "recorded: 4,812 rows" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := modelFile(t)
			c.edit(f.Certificate)
			if err := f.Write(&bytes.Buffer{}); err == nil {
				t.Error("Write accepted the edited accounting")
			}
			if _, err := Read(bytes.NewReader(writeUnchecked(t, f))); err == nil {
				t.Error("Read accepted the edited accounting with its checksum recomputed")
			}
		})
	}
}

// A model file saved again by an editor that adds a UTF-8 byte-order mark
// (Windows Notepad) or CRLF line ends holds the same JSON: it loads, with
// its checksum; any other change is still refused.
func TestReadByteOrderMark(t *testing.T) {
	var buf bytes.Buffer
	if err := modelFile(t).Write(&buf); err != nil {
		t.Fatal(err)
	}
	crlf := bytes.ReplaceAll(buf.Bytes(), []byte("\n"), []byte("\r\n"))
	for name, b := range map[string][]byte{
		"BOM":      append([]byte("\xef\xbb\xbf"), buf.Bytes()...),
		"BOM+CRLF": append([]byte("\xef\xbb\xbf"), crlf...),
	} {
		if _, err := Read(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	twice := append([]byte("\xef\xbb\xbf\xef\xbb\xbf"), buf.Bytes()...)
	if _, err := Read(bytes.NewReader(twice)); err == nil {
		t.Error("two byte-order marks accepted")
	}
}

// Two orders of the grid at which the training's ε nearly ties may swap
// places on another platform (fused multiply-adds, the SIMD build): a
// genuine certificate stating either of them loads; an order whose ε is
// not the minimum is still refused (TestCertificateAccountingEditsRefused).
func TestCertificateOrderTies(t *testing.T) {
	for _, pick := range []string{"stated", "twin"} {
		t.Run(pick, func(t *testing.T) {
			f := modelFile(t)
			a := &f.Certificate.Accounting
			twin := math.Nextafter(a.Order, math.Inf(1))
			i := slices.Index(a.Orders, a.Order)
			a.Orders = slices.Insert(a.Orders, i+1, twin)
			if pick == "twin" {
				a.Order = twin
			}
			if _, err := Read(bytes.NewReader(writeUnchecked(t, f))); err != nil {
				t.Errorf("order %v among the tied %v: %v", a.Order, a.Orders[i:i+2], err)
			}
		})
	}
}
