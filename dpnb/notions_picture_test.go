package dpnb

import (
	"bytes"
	"testing"

	"github.com/featuredp/featuredp/notions/bcdp"
	"gonum.org/v1/plot/vg"
)

// TestNotionsPicture renders the relations picture of a randomized-response
// mechanism, and refuses parameters that violate a relation.
func TestNotionsPicture(t *testing.T) {
	r, err := bcdp.NotionRelations([]float64{0.5, 1, 1}, 0.3)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NotionsPicture(r)
	if err != nil {
		t.Fatal(err)
	}
	w, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, "png")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := w.WriteTo(&buf); err != nil || buf.Len() < 1000 {
		t.Fatalf("png of %d bytes, %v", buf.Len(), err)
	}
	bad := r
	bad.BCDP = append([]float64(nil), r.BCDP...)
	bad.BCDP[0] = r.LDP + 1
	if _, err := NotionsPicture(bad); err == nil {
		t.Error("a violated relation was drawn")
	}
}
