package gemm

// Single-precision products for the MLP's Float32 mode. They have no
// gonum counterpart to match: the SIMD kernels use fused multiply–adds,
// the portable loops plain float32 arithmetic. Each element of C is still
// computed by one fixed sequence of operations (inner index in order), so
// the result does not depend on the number of goroutines.

// kernels32 computes rows r0..r1−1 of C += A·B in float32 (A element
// (i,l) at a[i*ais+l*als]); nil means the portable loop.
var kernels32 func(r0, r1, n, k int, a []float32, ais, als int, b []float32, ldb int, c []float32, ldc int)

// NN32 computes C += A·B in float32 (shapes as NN), rows split across
// goroutines.
func NN32(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	ParallelRows(m, n*k, func(r0, r1 int) { NN32Part(r0, r1, m, n, k, a, lda, b, ldb, c, ldc) })
}

// NN32Part computes rows r0..r1−1 of C += A·B in float32 on the calling
// goroutine.
func NN32Part(r0, r1, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if emptyPart(r0, r1, m, n, k) {
		return
	}
	checkOperands(m, n, k, len(a), lda, k, (m-1)*lda+k, len(b), (k-1)*ldb+n, ldb, n, len(c), ldc)
	rows32(r0, r1, n, k, a, lda, 1, b, ldb, c, ldc)
}

// TN32 computes C += Aᵀ·B in float32 (shapes as TN), rows of C split
// across goroutines.
func TN32(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	ParallelRows(m, n*k, func(r0, r1 int) { TN32Part(r0, r1, m, n, k, a, lda, b, ldb, c, ldc) })
}

// TN32Part computes rows r0..r1−1 of C += Aᵀ·B in float32 on the calling
// goroutine.
func TN32Part(r0, r1, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if emptyPart(r0, r1, m, n, k) {
		return
	}
	checkOperands(m, n, k, len(a), lda, m, (k-1)*lda+m, len(b), (k-1)*ldb+n, ldb, n, len(c), ldc)
	rows32(r0, r1, n, k, a, 1, lda, b, ldb, c, ldc)
}

func rows32(r0, r1, n, k int, a []float32, ais, als int, b []float32, ldb int, c []float32, ldc int) {
	if kernels32 != nil {
		kernels32(r0, r1, n, k, a, ais, als, b, ldb, c, ldc)
		return
	}
	for i := r0; i < r1; i++ {
		cr := c[i*ldc : i*ldc+n]
		for l := range k {
			x := a[i*ais+l*als]
			br := b[l*ldb : l*ldb+n]
			for j := range cr {
				cr[j] += x * br[j]
			}
		}
	}
}
