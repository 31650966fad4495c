package figures

import (
	"strconv"

	"github.com/featuredp/featuredp/notions/smoothdp"
)

// What the smoothdp figures share. PaperValues hold reference values
// computed from the reconstructed formulas, not numbers printed in the
// paper (see the package doc).

// figDelta is the δ of every smoothdp figure.
const figDelta = 1e-5

// banner is appended to the notes of every smoothdp figure.
const banner = " Constants of Tables 1–3 are RECONSTRUCTED (the paper's formulas are reconstructed in docs/smooth-rdp.md): " +
	"the tight calculator is generic, but every plotted ε is a bound only if the reconstructed constants are (a larger constant in the paper would make it too small)."

// figEps converts a curve at figDelta (ToApproxDP). The order is returned
// as a label with 6 significant digits (the CSV column `order`), not as a
// numeric extra: its format is not the shortest representation.
func figEps(c smoothdp.RDPCurve) (float64, string, error) {
	e, a, err := smoothdp.ToApproxDP(c, figDelta)
	return e, strconv.FormatFloat(a, 'g', 6, 64), err
}
