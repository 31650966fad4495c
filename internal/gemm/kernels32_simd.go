//go:build goexperiment.simd && amd64

package gemm

import "simd/archsimd"

func init() {
	if archsimd.X86.AVX512() && archsimd.X86.FMA() {
		kernels32 = nn32Rows
	}
}

type f32x16 = archsimd.Float32x16

// nn32Rows and the tiles end with archsimd.ClearAVXUpperBits (see
// kernels_simd.go).

func ld32(s []float32) f32x16    { return archsimd.LoadFloat32x16Slice(s) }
func ldp32(s []float32) f32x16   { return archsimd.LoadFloat32x16SlicePart(s) }
func bc32(x float32) f32x16      { return archsimd.BroadcastFloat32x16(x) }
func st32(v f32x16, s []float32) { v.StoreSlice(s) }

// nn32x8x32 is the 8×32 tile in assembly (kernels32_amd64.s): the same
// fused multiply–adds in the same order as nn32x4x32, so the same bits,
// with twice the rows per load of B. The caller guarantees the operands'
// extent (checkOperands).
//
//go:noescape
func nn32x8x32(k int, a *float32, ais, als int, b *float32, ldb int, c *float32, ldc int)

// nn32Rows computes rows r0..r1−1 of C += A·B in float32 with fused
// multiply–adds, in 8×32 tiles (then 4×32, 4×16, a masked 4×w and single
// rows).
func nn32Rows(r0, r1, n, k int, a []float32, ais, als int, b []float32, ldb int, c []float32, ldc int) {
	i := r0
	if n >= 32 {
		for ; i+8 <= r1; i += 8 {
			j := 0
			for ; j+32 <= n; j += 32 {
				nn32x8x32(k, &a[i*ais], ais, als, &b[j], ldb, &c[i*ldc+j], ldc)
			}
			nn32Cols(j, n, k, a[i*ais:], ais, als, b, ldb, c[i*ldc:], ldc)
			nn32Cols(j, n, k, a[(i+4)*ais:], ais, als, b, ldb, c[(i+4)*ldc:], ldc)
		}
	}
	for ; i+4 <= r1; i += 4 {
		j := 0
		for ; j+32 <= n; j += 32 {
			nn32x4x32(k, a[i*ais:], ais, als, b[j:], ldb, c[i*ldc+j:], ldc)
		}
		nn32Cols(j, n, k, a[i*ais:], ais, als, b, ldb, c[i*ldc:], ldc)
	}
	for ; i < r1; i++ {
		for j := 0; j < n; j += 16 {
			w := min(16, n-j)
			s := ldp32(c[i*ldc+j : i*ldc+j+w])
			for l := range k {
				s = bc32(a[i*ais+l*als]).MulAdd(ldp32(b[l*ldb+j:l*ldb+j+w]), s)
			}
			s.StoreSlicePart(c[i*ldc+j : i*ldc+j+w])
		}
	}
	archsimd.ClearAVXUpperBits()
}

// nn32Cols computes columns j0..n−1 (fewer than 32) of four rows in
// 4×16 tiles, the last one masked.
func nn32Cols(j0, n, k int, a []float32, ais, als int, b []float32, ldb int, c []float32, ldc int) {
	for j := j0; j < n; j += 16 {
		nn32x4x16(k, a, ais, als, b[j:], ldb, min(16, n-j), c[j:], ldc)
	}
}

func nn32x4x32(k int, a []float32, ais, als int, b []float32, ldb int, c []float32, ldc int) {
	c0, c1, c2, c3 := c[:32], c[ldc:ldc+32], c[2*ldc:2*ldc+32], c[3*ldc:3*ldc+32]
	s00, s01 := ld32(c0[0:16]), ld32(c0[16:32])
	s10, s11 := ld32(c1[0:16]), ld32(c1[16:32])
	s20, s21 := ld32(c2[0:16]), ld32(c2[16:32])
	s30, s31 := ld32(c3[0:16]), ld32(c3[16:32])
	for l := range k {
		bl := b[l*ldb : l*ldb+32]
		b0, b1 := ld32(bl[0:16]), ld32(bl[16:32])
		al := a[l*als : l*als+3*ais+1]
		x := bc32(al[0])
		s00, s01 = x.MulAdd(b0, s00), x.MulAdd(b1, s01)
		x = bc32(al[ais])
		s10, s11 = x.MulAdd(b0, s10), x.MulAdd(b1, s11)
		x = bc32(al[2*ais])
		s20, s21 = x.MulAdd(b0, s20), x.MulAdd(b1, s21)
		x = bc32(al[3*ais])
		s30, s31 = x.MulAdd(b0, s30), x.MulAdd(b1, s31)
	}
	st32(s00, c0[0:16])
	st32(s01, c0[16:32])
	st32(s10, c1[0:16])
	st32(s11, c1[16:32])
	st32(s20, c2[0:16])
	st32(s21, c2[16:32])
	st32(s30, c3[0:16])
	st32(s31, c3[16:32])
	archsimd.ClearAVXUpperBits()
}

// nn32x4x16 is the 4×w tile, w ≤ 16 (masked when w < 16).
func nn32x4x16(k int, a []float32, ais, als int, b []float32, ldb, w int, c []float32, ldc int) {
	c0, c1, c2, c3 := c[:w], c[ldc:ldc+w], c[2*ldc:2*ldc+w], c[3*ldc:3*ldc+w]
	s0, s1, s2, s3 := ldp32(c0), ldp32(c1), ldp32(c2), ldp32(c3)
	for l := range k {
		b0 := ldp32(b[l*ldb : l*ldb+w])
		al := a[l*als : l*als+3*ais+1]
		s0 = bc32(al[0]).MulAdd(b0, s0)
		s1 = bc32(al[ais]).MulAdd(b0, s1)
		s2 = bc32(al[2*ais]).MulAdd(b0, s2)
		s3 = bc32(al[3*ais]).MulAdd(b0, s3)
	}
	s0.StoreSlicePart(c0)
	s1.StoreSlicePart(c1)
	s2.StoreSlicePart(c2)
	s3.StoreSlicePart(c3)
	archsimd.ClearAVXUpperBits()
}
