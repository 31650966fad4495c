package corrdp

import (
	"math"
	"testing"
)

// FuzzLaplaceAccuracy checks LaplaceAccuracy on arbitrary bit patterns: it
// accepts exactly Δ finite ≥ 0, ε finite > 0, β ∈ (0, 1], K ≥ 1, and then
// returns a radius that is not NaN, ≥ 0, and finite whenever
// Δ·(log K − log β)/ε is (no spurious overflow of K/β).
func FuzzLaplaceAccuracy(f *testing.F) {
	for _, s := range [][4]float64{{1, 1, 0.05, 1}, {0, 1, 5e-324, 1e6}, {1, 1, 5e-324, 1e6}, {math.NaN(), 1, 0.1, 1}, {1, math.Inf(1), 0.1, 1}} {
		f.Add(math.Float64bits(s[0]), math.Float64bits(s[1]), math.Float64bits(s[2]), int(s[3]))
	}
	f.Fuzz(func(t *testing.T, sb, eb, bb uint64, k int) {
		sens, eps, beta := math.Float64frombits(sb), math.Float64frombits(eb), math.Float64frombits(bb)
		fin := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
		ok := fin(sens) && sens >= 0 && fin(eps) && eps > 0 && beta > 0 && beta <= 1 && k >= 1
		r, err := LaplaceAccuracy(sens, eps, beta, k)
		if (err == nil) != ok {
			t.Fatalf("LaplaceAccuracy(%v, %v, %v, %d) error %v, want accepted %v", sens, eps, beta, k, err, ok)
		}
		if err != nil {
			return
		}
		if math.IsNaN(r) || r < 0 {
			t.Fatalf("LaplaceAccuracy(%v, %v, %v, %d) = %v, want ≥ 0", sens, eps, beta, k, r)
		}
		if want := sens * (math.Log(float64(k)) - math.Log(beta)) / eps; fin(want) && !fin(r) {
			t.Fatalf("LaplaceAccuracy(%v, %v, %v, %d) = %v, want finite ≈ %v", sens, eps, beta, k, r, want)
		}
	})
}
