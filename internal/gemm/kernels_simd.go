//go:build goexperiment.simd && amd64

package gemm

import "simd/archsimd"

func init() {
	if archsimd.X86.AVX512() {
		kernels = &kernelSet{nn: nnRows, nt: ntRows}
	}
}

type f64x8 = archsimd.Float64x8

// The tiles below end with archsimd.ClearAVXUpperBits (VZEROUPPER), as
// the assembly ones do: Go does not insert it, and the scalar code that
// follows would pay an AVX–SSE transition penalty on Intel (issue #30).

func ld(s []float64) f64x8    { return archsimd.LoadFloat64x8Slice(s) }
func bc(x float64) f64x8      { return archsimd.BroadcastFloat64x8(x) }
func st(v f64x8, s []float64) { v.StoreSlice(s) }

// nn64x8x16 is the 8×16 tile in assembly (kernels_amd64.s): the same
// rounded products and sums in the same order as nn4x16, so the same bits,
// with twice the rows per load of B and no spills. The caller guarantees
// the operands' extent (checkOperands).
//
//go:noescape
func nn64x8x16(k int, a *float64, ais, als int, b *float64, ldb int, c *float64, ldc int)

// nnRows computes rows r0..r1−1 of C += A·B in 8×16, 4×16, 4×8 and 1×8
// tiles, every element c ← c + a_il·b_lj in the order of l.
func nnRows(r0, r1, n, k int, a []float64, ais, als int, b []float64, ldb int, c []float64, ldc int) {
	i := r0
	if n >= 16 {
		for ; i+8 <= r1; i += 8 {
			j := 0
			for ; j+16 <= n; j += 16 {
				nn64x8x16(k, &a[i*ais], ais, als, &b[j], ldb, &c[i*ldc+j], ldc)
			}
			if j < n {
				nnCols(j, n, k, a[i*ais:], ais, als, b, ldb, c[i*ldc:], ldc)
				nnCols(j, n, k, a[(i+4)*ais:], ais, als, b, ldb, c[(i+4)*ldc:], ldc)
			}
		}
	}
	for ; i+4 <= r1; i += 4 {
		j := 0
		for ; j+16 <= n; j += 16 {
			nn4x16(k, a[i*ais:], ais, als, b[j:], ldb, c[i*ldc+j:], ldc)
		}
		nnCols(j, n, k, a[i*ais:], ais, als, b, ldb, c[i*ldc:], ldc)
	}
	for ; i < r1; i++ {
		j := 0
		for ; j+8 <= n; j += 8 {
			nn1x8(k, a[i*ais:], als, b[j:], ldb, c[i*ldc+j:])
		}
		nnScalar(j, n, k, a[i*ais:], als, b, ldb, c[i*ldc:])
	}
}

// nnCols computes columns j0..n−1 (fewer than 16) of four rows in 4×8
// and masked 4×w tiles.
func nnCols(j0, n, k int, a []float64, ais, als int, b []float64, ldb int, c []float64, ldc int) {
	j := j0
	for ; j+8 <= n; j += 8 {
		nn4x8(k, a, ais, als, b[j:], ldb, c[j:], ldc)
	}
	if j < n {
		nn4xPart(k, a, ais, als, b[j:], ldb, n-j, c[j:], ldc)
	}
}

// nnScalar computes columns j0..n−1 of one row: c_j ← c_j + a_l·b_lj.
func nnScalar(j0, n, k int, a []float64, als int, b []float64, ldb int, c []float64) {
	for j := j0; j < n; j++ {
		s := c[j]
		for l := range k {
			s += float64(a[l*als] * b[l*ldb+j])
		}
		c[j] = s
	}
}

// nn4x16 is the tile of the last rows (fewer than 8): 4 rows × 16
// columns, eight 8-lane accumulators (larger tiles run out of vector
// registers in Go's allocator and spill: hence the assembly 8×16).
func nn4x16(k int, a []float64, ais, als int, b []float64, ldb int, c []float64, ldc int) {
	c0, c1, c2, c3 := c[:16], c[ldc:ldc+16], c[2*ldc:2*ldc+16], c[3*ldc:3*ldc+16]
	s00, s01 := ld(c0[0:8]), ld(c0[8:16])
	s10, s11 := ld(c1[0:8]), ld(c1[8:16])
	s20, s21 := ld(c2[0:8]), ld(c2[8:16])
	s30, s31 := ld(c3[0:8]), ld(c3[8:16])
	for l := range k {
		bl := b[l*ldb : l*ldb+16]
		b0, b1 := ld(bl[0:8]), ld(bl[8:16])
		al := a[l*als : l*als+3*ais+1]
		x := bc(al[0])
		s00, s01 = s00.Add(x.Mul(b0)), s01.Add(x.Mul(b1))
		x = bc(al[ais])
		s10, s11 = s10.Add(x.Mul(b0)), s11.Add(x.Mul(b1))
		x = bc(al[2*ais])
		s20, s21 = s20.Add(x.Mul(b0)), s21.Add(x.Mul(b1))
		x = bc(al[3*ais])
		s30, s31 = s30.Add(x.Mul(b0)), s31.Add(x.Mul(b1))
	}
	st(s00, c0[0:8])
	st(s01, c0[8:16])
	st(s10, c1[0:8])
	st(s11, c1[8:16])
	st(s20, c2[0:8])
	st(s21, c2[8:16])
	st(s30, c3[0:8])
	st(s31, c3[8:16])
	archsimd.ClearAVXUpperBits()
}

func nn4x8(k int, a []float64, ais, als int, b []float64, ldb int, c []float64, ldc int) {
	c0, c1, c2, c3 := c[:8], c[ldc:ldc+8], c[2*ldc:2*ldc+8], c[3*ldc:3*ldc+8]
	s0, s1, s2, s3 := ld(c0), ld(c1), ld(c2), ld(c3)
	for l := range k {
		b0 := ld(b[l*ldb : l*ldb+8])
		al := a[l*als : l*als+3*ais+1]
		s0 = s0.Add(bc(al[0]).Mul(b0))
		s1 = s1.Add(bc(al[ais]).Mul(b0))
		s2 = s2.Add(bc(al[2*ais]).Mul(b0))
		s3 = s3.Add(bc(al[3*ais]).Mul(b0))
	}
	st(s0, c0)
	st(s1, c1)
	st(s2, c2)
	st(s3, c3)
	archsimd.ClearAVXUpperBits()
}

// nn4xPart is nn4x8 on the last w < 8 columns (masked loads and stores).
func nn4xPart(k int, a []float64, ais, als int, b []float64, ldb, w int, c []float64, ldc int) {
	c0, c1, c2, c3 := c[:w], c[ldc:ldc+w], c[2*ldc:2*ldc+w], c[3*ldc:3*ldc+w]
	s0, s1, s2, s3 := ldp(c0), ldp(c1), ldp(c2), ldp(c3)
	for l := range k {
		b0 := ldp(b[l*ldb : l*ldb+w])
		al := a[l*als : l*als+3*ais+1]
		s0 = s0.Add(bc(al[0]).Mul(b0))
		s1 = s1.Add(bc(al[ais]).Mul(b0))
		s2 = s2.Add(bc(al[2*ais]).Mul(b0))
		s3 = s3.Add(bc(al[3*ais]).Mul(b0))
	}
	s0.StoreSlicePart(c0)
	s1.StoreSlicePart(c1)
	s2.StoreSlicePart(c2)
	s3.StoreSlicePart(c3)
	archsimd.ClearAVXUpperBits()
}

func ldp(s []float64) f64x8 { return archsimd.LoadFloat64x8SlicePart(s) }

func nn1x8(k int, a []float64, als int, b []float64, ldb int, c []float64) {
	s := ld(c[:8])
	for l := range k {
		s = s.Add(bc(a[l*als]).Mul(ld(b[l*ldb : l*ldb+8])))
	}
	st(s, c[:8])
	archsimd.ClearAVXUpperBits()
}

// nt64x2x16 is the 2×16 tile of C += A·Bᵀ in assembly (kernels_amd64.s)
// on one inner block of k terms, in gonum's DotUnitary order: the same
// operations as nt1x16. The caller guarantees the operands' extent.
//
//go:noescape
func nt64x2x16(k int, a *float64, lda int, bt *float64, ldb int, c *float64, ldc int)

// ntRows computes rows r0..r1−1 of C += A·Bᵀ from bt = Bᵀ (k×n) with
// gonum's DotUnitary order on each inner block of kb: pairs of rows in
// 2×16 tiles, the rest row by row.
func ntRows(r0, r1, n, k, kb int, a []float64, lda int, bt []float64, c []float64, ldc int) {
	i := r0
	if n >= 16 {
		for ; i+2 <= r1; i += 2 {
			for k0 := 0; k0 < k; k0 += kb {
				k1 := min(k, k0+kb)
				j := 0
				for ; j+16 <= n; j += 16 {
					nt64x2x16(k1-k0, &a[i*lda+k0], lda, &bt[k0*n+j], n, &c[i*ldc+j], ldc)
				}
				ntRowBlock(j, n, k0, k1, a[i*lda:i*lda+k], bt, c[i*ldc:i*ldc+n])
				ntRowBlock(j, n, k0, k1, a[(i+1)*lda:(i+1)*lda+k], bt, c[(i+1)*ldc:(i+1)*ldc+n])
			}
		}
	}
	for ; i < r1; i++ {
		for k0 := 0; k0 < k; k0 += kb {
			ntRowBlock(0, n, k0, min(k, k0+kb), a[i*lda:i*lda+k], bt, c[i*ldc:i*ldc+n])
		}
	}
}

// ntRowBlock adds to columns j0..n−1 of one row of C its inner block
// k0..k1−1: 1×16, 1×8 and single-column dot products.
func ntRowBlock(j0, n, k0, k1 int, ar, bt, cr []float64) {
	j := j0
	for ; j+16 <= n; j += 16 {
		nt1x16(k0, k1, ar, bt[j:], n, cr[j:j+16])
	}
	for ; j+8 <= n; j += 8 {
		nt1x8(k0, k1, ar, bt[j:], n, cr[j:j+8])
	}
	for ; j < n; j++ {
		cr[j] += dotUnitary(k0, k1, ar, bt[j:], n)
	}
}

// dotUnitary is Σ_{l=k0}^{k1−1} a_l·bt[l*ldb] in gonum's DotUnitary order.
func dotUnitary(k0, k1 int, a []float64, bt []float64, ldb int) float64 {
	var s0, s1, s2, s3 float64
	l := k0
	for ; l+4 <= k1; l += 4 {
		s0 += float64(a[l] * bt[l*ldb])
		s1 += float64(a[l+1] * bt[(l+1)*ldb])
		s2 += float64(a[l+2] * bt[(l+2)*ldb])
		s3 += float64(a[l+3] * bt[(l+3)*ldb])
	}
	for ; l < k1; l++ {
		s0 += float64(a[l] * bt[l*ldb])
	}
	return (s0 + s2) + (s1 + s3)
}

func nt1x16(k0, k1 int, a []float64, bt []float64, ldb int, c []float64) {
	var p0, p1, p2, p3, q0, q1, q2, q3 f64x8
	l := k0
	for ; l+4 <= k1; l += 4 {
		x0, x1, x2, x3 := bc(a[l]), bc(a[l+1]), bc(a[l+2]), bc(a[l+3])
		r0, r1 := bt[l*ldb:l*ldb+16], bt[(l+1)*ldb:(l+1)*ldb+16]
		r2, r3 := bt[(l+2)*ldb:(l+2)*ldb+16], bt[(l+3)*ldb:(l+3)*ldb+16]
		p0, q0 = p0.Add(x0.Mul(ld(r0[0:8]))), q0.Add(x0.Mul(ld(r0[8:16])))
		p1, q1 = p1.Add(x1.Mul(ld(r1[0:8]))), q1.Add(x1.Mul(ld(r1[8:16])))
		p2, q2 = p2.Add(x2.Mul(ld(r2[0:8]))), q2.Add(x2.Mul(ld(r2[8:16])))
		p3, q3 = p3.Add(x3.Mul(ld(r3[0:8]))), q3.Add(x3.Mul(ld(r3[8:16])))
	}
	for ; l < k1; l++ {
		x, r := bc(a[l]), bt[l*ldb:l*ldb+16]
		p0, q0 = p0.Add(x.Mul(ld(r[0:8]))), q0.Add(x.Mul(ld(r[8:16])))
	}
	p := p0.Add(p2).Add(p1.Add(p3))
	q := q0.Add(q2).Add(q1.Add(q3))
	st(ld(c[0:8]).Add(p), c[0:8])
	st(ld(c[8:16]).Add(q), c[8:16])
	archsimd.ClearAVXUpperBits()
}

func nt1x8(k0, k1 int, a []float64, bt []float64, ldb int, c []float64) {
	var p0, p1, p2, p3 f64x8
	l := k0
	for ; l+4 <= k1; l += 4 {
		p0 = p0.Add(bc(a[l]).Mul(ld(bt[l*ldb : l*ldb+8])))
		p1 = p1.Add(bc(a[l+1]).Mul(ld(bt[(l+1)*ldb : (l+1)*ldb+8])))
		p2 = p2.Add(bc(a[l+2]).Mul(ld(bt[(l+2)*ldb : (l+2)*ldb+8])))
		p3 = p3.Add(bc(a[l+3]).Mul(ld(bt[(l+3)*ldb : (l+3)*ldb+8])))
	}
	for ; l < k1; l++ {
		p0 = p0.Add(bc(a[l]).Mul(ld(bt[l*ldb : l*ldb+8])))
	}
	st(ld(c[0:8]).Add(p0.Add(p2).Add(p1.Add(p3))), c[0:8])
	archsimd.ClearAVXUpperBits()
}
