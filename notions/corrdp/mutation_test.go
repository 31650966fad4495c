package corrdp

import (
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

// Tests from the notions mutation audit: each pins a stated privacy quantity
// that the rest of the suite left free (see the cases' comments).

// TestCorrelatedSensitivityDefaultL1 checks that l1Sens ≤ 0 means Δ = Σ_k Δ_k
// (Def. 2.8): with TV ≡ 1 on U, Δ_C = min{Σ_k Δ_k, Δ} = Σ_k Δ_k. A default Δ
// smaller than Σ_k Δ_k would cap Δ_C below the sum and under-state the
// sensitivity.
func TestCorrelatedSensitivityDefaultL1(t *testing.T) {
	for _, c := range []struct {
		name      string
		d         []float64
		sensitive []bool
		tv        []float64
	}{
		{"all sensitive", []float64{0.5, 0.25, 0.125}, []bool{true, true, true}, []float64{0, 0, 0}},
		{"TV 1 on U", []float64{1, 2, 3, 4}, []bool{true, false, false, false}, []float64{0, 1, 1, 1}},
		{"one coordinate", []float64{0.7}, []bool{false}, []float64{1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var want float64
			for _, v := range c.d {
				want += v
			}
			for _, l1 := range []float64{0, -1} {
				got, err := CorrelatedSensitivity(c.d, c.sensitive, c.tv, l1)
				if err != nil || !approxEqual(got, want, 1e-15*want) {
					t.Errorf("l1Sens = %v: Δ_C = %v, %v; want Σ Δ_k = %v", l1, got, err, want)
				}
			}
		})
	}
}

// TestHonestyClaimedPerTV checks the claim each insensitive row is held to:
// the paper's ε/TV(i) (docs/corrdp.md, 'Guarantee and conversion'), not a
// larger budget under which a leaking plan would report Holds.
func TestHonestyClaimedPerTV(t *testing.T) {
	const eps, delta = 1.0, 1e-5
	tv := []float64{0, 0.1, 0.5, 0.9}
	rows, err := Honesty([]float64{2, 2, 2, 2}, []bool{true, false, false, false}, tv, 1, 100, 10, eps, delta,
		accounting.RelationAddRemove, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(tv) {
		t.Fatalf("%d rows, want %d", len(rows), len(tv))
	}
	if rows[0].Claimed != eps {
		t.Errorf("sensitive row claims %v, want ε = %v", rows[0].Claimed, eps)
	}
	for _, r := range rows[1:] {
		if want := eps / tv[r.Coord]; !approxEqual(r.Claimed, want, 1e-12*want) {
			t.Errorf("%s: claimed %v, want ε/TV = %v", r.Change, r.Claimed, want)
		}
		if want := r.Eps <= r.Claimed*(1+1e-12); r.Holds != want {
			t.Errorf("%s: Holds = %v with ε %v and claim %v", r.Change, r.Holds, r.Eps, r.Claimed)
		}
	}
}

// TestUCBIndependenceCheckBoundary checks the pre-check of Thm. 4.4's proof:
// only TV^ ≤ term/2 is zeroed; a feature above term/2 keeps its upper
// confidence bound min{1, TV^ + term} (zeroing it would give it no noise).
func TestUCBIndependenceCheckBoundary(t *testing.T) {
	const term = 0.2
	for _, c := range []struct {
		tvHat, want float64
	}{
		{0, 0},
		{term / 2, 0},
		{term/2 + 1e-9, term/2 + 1e-9 + term},
		{0.75 * term, 1.75 * term},
		{term, 2 * term},
		{0.95, 1},
	} {
		got, err := UCB([]float64{c.tvHat}, term, true)
		if err != nil || !approxEqual(got[0], c.want, 1e-12) {
			t.Errorf("UCB(%v, term %v) = %v, %v; want %v", c.tvHat, term, got, err, c.want)
		}
	}
}
