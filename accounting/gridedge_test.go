package accounting

import (
	"math"
	"strings"
	"testing"
)

// GridEdgeNote names the edge the optimal order sits on, ignores +Inf
// orders and says nothing for interior orders or ε of 0 or +Inf.
func TestGridEdgeNote(t *testing.T) {
	inf := math.Inf(1)
	grid := []float64{4, 1.5, 63, 2, inf}
	for _, tc := range []struct {
		orders     []float64
		order, eps float64
		want       string // substring; "" for no note
	}{
		{grid, 63, 0.5, "largest finite order"},
		{grid, 1.5, 0.5, "smallest order"},
		{grid, 4, 0.5, ""},
		{grid, inf, 0.5, ""},
		{grid, 63, 0, ""},
		{grid, 63, inf, ""},
		{[]float64{3}, 3, 1, "only finite order"},
		// A grid of +Inf orders only (--orders inf, a pure-DP ledger): no
		// finite order, no edge (it used to call +Inf "the smallest order
		// of the grid" and suggest orders closer to 1).
		{[]float64{inf}, inf, 0.5, ""},
		{[]float64{inf, inf}, inf, 0.5, ""},
	} {
		got := GridEdgeNote(tc.orders, tc.order, tc.eps)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("GridEdgeNote(%v, %v, %v) = %q, want %q", tc.orders, tc.order, tc.eps, got, tc.want)
		}
	}
}
