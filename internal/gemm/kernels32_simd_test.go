//go:build goexperiment.simd && amd64

package gemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFloat32TilesAgree: the assembly 8×32 tile gives, element by element,
// the bits of the Go 4-row tiles (the same fused multiply–adds in the same
// order), for shapes with row and column tails and padded strides, in
// both the NN and TN layouts of A.
func TestFloat32TilesAgree(t *testing.T) {
	if kernels32 == nil {
		t.Skip("no AVX-512: the float32 products run the portable loop")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for _, sh := range [][3]int{{8, 32, 1}, {9, 33, 5}, {16, 64, 600}, {21, 100, 37}, {40, 128, 1024}, {8, 31, 3}} {
		m, n, k := sh[0], sh[1], sh[2]
		for _, trans := range []bool{false, true} {
			ais, als, lda := k+1, 1, k+1
			if trans {
				ais, als, lda = 1, m+2, m+2
			}
			a := make([]float32, max(m, k)*lda)
			b := make([]float32, k*(n+3))
			c0 := make([]float32, m*(n+1))
			for _, s := range [][]float32{a, b, c0} {
				for i := range s {
					s[i] = float32(rng.NormFloat64() * math.Exp(2*rng.NormFloat64()))
				}
			}
			got := append([]float32(nil), c0...)
			want := append([]float32(nil), c0...)
			nn32Rows(0, m, n, k, a, ais, als, b, n+3, got, n+1)
			for i := 0; i < m; i += 4 { // 4-row blocks never reach the 8×32 tile
				nn32Rows(i, min(m, i+4), n, k, a, ais, als, b, n+3, want, n+1)
			}
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%v trans=%v: c[%d] = %v, 4-row tiles %v", sh, trans, i, got[i], want[i])
				}
			}
		}
	}
}
