package valid

import (
	"math"
	"testing"
)

func TestFirstNonFinite(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want int
	}{
		{nil, -1},
		{[]float64{0, -1, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, math.Copysign(0, -1)}, -1},
		{[]float64{1, math.NaN(), math.Inf(1)}, 1},
		{[]float64{1, 2, math.Inf(-1)}, 2},
		{[]float64{math.Inf(1)}, 0},
		{[]float64{1, 2, 3, math.Float64frombits(0x7ff0000000000001)}, 3},
	} {
		if got := FirstNonFinite(c.v); got != c.want {
			t.Errorf("FirstNonFinite(%v) = %d, want %d", c.v, got, c.want)
		}
	}
}
