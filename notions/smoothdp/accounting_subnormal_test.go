package smoothdp

import (
	"math"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

// TestSubnormalDelta: log(1/δ) for a subnormal δ is exact (math.Log on
// amd64 returns about −709.09 for every subnormal, which under-reported ε
// and lowered the PTR threshold): δ = 2^-1074 has log(1/δ) = 1074·ln 2.
func TestSubnormalDelta(t *testing.T) {
	const delta = 5e-324 // 2^-1074
	l := 1074 * math.Ln2
	c, err := GaussianRDP(1, 1, accounting.RelationAddRemove)
	if err != nil {
		t.Fatal(err)
	}
	eps, _, err := ToApproxDP(c, delta)
	if want := c.Coef + 2*math.Sqrt(c.Coef*l); err != nil || math.Abs(eps-want) > 1e-13*want {
		t.Errorf("ToApproxDP at δ = 2^-1074: ε = %v, want %v (%v)", eps, want, err)
	}
	if got := PTRThreshold(2, delta); math.Abs(got-l/2) > 1e-13*l {
		t.Errorf("PTRThreshold(2, 2^-1074) = %v, want %v", got, l/2)
	}
}
