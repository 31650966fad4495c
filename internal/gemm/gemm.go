// Package gemm holds the dense matrix products of the network engine:
// C += A·B, C += Aᵀ·B and C += A·Bᵀ on row-major float64 slices.
//
// Every product gives, element by element, the same bits as gonum's
// pure-Go Dgemm (gonum.org/v1/gonum/blas/gonum) with α = 1 and β = 1, which
// the engine used before these kernels existed, so training results are
// unchanged:
//
//   - NN and TN add the products in the order of the inner index l,
//     c ← c + a_il·b_lj one term at a time (a rounded product, then a
//     rounded sum, never a fused multiply–add), as gonum's Axpy-based loops
//     do. gonum skips terms with a_il = 0; adding the ±0 product instead
//     leaves every finite c unchanged except −0, and a sum that starts
//     from +0 or a non-zero value never becomes −0.
//   - NT forms each c_ij += a_i·b_j as gonum's DotUnitary does: four
//     partial sums over l ≡ 0, 1, 2, 3 (mod 4), the k mod 4 trailing terms
//     added to the first, combined as (s₀+s₂)+(s₁+s₃); and when gonum
//     runs in parallel (at least four 64×64 blocks of C) the inner index is
//     split into 64-wide blocks, each block's dot product added to c in
//     turn.
//
// With GOEXPERIMENT=simd on amd64 with AVX-512 the products run on
// register-tiled 8-lane kernels — 8×16 (NN, TN) and 2×16 (NT) tiles in
// assembly (kernels_amd64.s), smaller tiles and tails in Go's SIMD
// intrinsics, every one in the order above; elsewhere they call gonum
// itself. Rows of C are split across the idle cores (internal/cores);
// since each element is computed by one fixed sequence of operations, the
// result does not depend on the number of goroutines.
package gemm

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/featuredp/featuredp/internal/cores"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// gonum's Dgemm constants: the block size and the number of blocks of C
// from which it computes in parallel (splitting the inner dimension).
const (
	gonumBlock       = 64
	gonumMinParBlock = 4
)

var impl gonum.Implementation

// kernels is the set of product kernels in use: the SIMD ones when the
// build and the CPU have them (kernels_simd.go), else nil.
var kernels *kernelSet

// kernelSet computes C[r0:r1, :] of one product.
type kernelSet struct {
	// nn computes rows r0..r1−1 of C += A·B (A m×k, element (i,l) at
	// a[i*ais+l*als]; B k×n row-major with leading dimension ldb).
	nn func(r0, r1, n, k int, a []float64, ais, als int, b []float64, ldb int, c []float64, ldc int)
	// nt computes rows r0..r1−1 of C += A·Bᵀ from bt = Bᵀ (k×n, leading
	// dimension n), with the inner index split at the multiples of kb.
	nt func(r0, r1, n, k, kb int, a []float64, lda int, bt []float64, c []float64, ldc int)
}

// SIMD reports whether the products run on the SIMD kernels.
func SIMD() bool { return kernels != nil }

// NN computes C += A·B for A m×k (leading dimension lda), B k×n (ldb) and
// C m×n (ldc), all row-major, with the rows of C split across goroutines.
func NN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	ParallelRows(m, n*k, func(r0, r1 int) { NNPart(r0, r1, m, n, k, a, lda, b, ldb, c, ldc) })
}

// NNPart computes rows r0..r1−1 of C += A·B (see NN) on the calling
// goroutine.
func NNPart(r0, r1, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if emptyPart(r0, r1, m, n, k) {
		return
	}
	checkOperands(m, n, k, len(a), lda, k, (m-1)*lda+k, len(b), (k-1)*ldb+n, ldb, n, len(c), ldc)
	if kernels == nil {
		impl.Dgemm(blas.NoTrans, blas.NoTrans, r1-r0, n, k, 1, a[r0*lda:], lda, b, ldb, 1, c[r0*ldc:], ldc)
		return
	}
	kernels.nn(r0, r1, n, k, a, lda, 1, b, ldb, c, ldc)
}

// TN computes C += Aᵀ·B for A k×m (lda), B k×n (ldb) and C m×n (ldc), with
// the rows of C split across goroutines.
func TN(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	ParallelRows(m, n*k, func(r0, r1 int) { TNPart(r0, r1, m, n, k, a, lda, b, ldb, c, ldc) })
}

// TNPart computes rows r0..r1−1 of C += Aᵀ·B (see TN) on the calling
// goroutine.
func TNPart(r0, r1, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if emptyPart(r0, r1, m, n, k) {
		return
	}
	checkOperands(m, n, k, len(a), lda, m, (k-1)*lda+m, len(b), (k-1)*ldb+n, ldb, n, len(c), ldc)
	if kernels == nil {
		impl.Dgemm(blas.Trans, blas.NoTrans, r1-r0, n, k, 1, a[r0:], lda, b, ldb, 1, c[r0*ldc:], ldc)
		return
	}
	kernels.nn(r0, r1, n, k, a, 1, lda, b, ldb, c, ldc)
}

// NT computes C += A·Bᵀ for A m×k (lda), B n×k (ldb) and C m×n (ldc), with
// the rows of C split across goroutines (B transposed once for all of
// them).
func NT(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if kernels == nil || emptyPart(0, m, m, n, k) {
		ParallelRows(m, n*k, func(r0, r1 int) { NTPart(r0, r1, m, n, k, a, lda, b, ldb, c, ldc) })
		return
	}
	checkNT(m, n, k, a, lda, b, ldb, c, ldc)
	bt := transposed(n, k, b, ldb)
	defer putScratch(bt)
	kb := ntBlock(m, n, k)
	ParallelRows(m, n*k, func(r0, r1 int) { kernels.nt(r0, r1, n, k, kb, a, lda, *bt, c, ldc) })
}

// NTPart computes rows r0..r1−1 of C += A·Bᵀ (see NT) on the calling
// goroutine; m is the row count of the whole product, which decides
// gonum's blocking of the inner dimension.
func NTPart(r0, r1, m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	if emptyPart(r0, r1, m, n, k) {
		return
	}
	checkNT(m, n, k, a, lda, b, ldb, c, ldc)
	kb := ntBlock(m, n, k)
	if kernels == nil {
		// One gonum call per inner block: a call with k ≤ 64, or on fewer
		// blocks of C than gonum's threshold, does not split k again.
		for k0 := 0; k0 < k; k0 += kb {
			kl := min(kb, k-k0)
			impl.Dgemm(blas.NoTrans, blas.Trans, r1-r0, n, kl, 1, a[r0*lda+k0:], lda, b[k0:], ldb, 1, c[r0*ldc:], ldc)
		}
		return
	}
	bt := transposed(n, k, b, ldb)
	defer putScratch(bt)
	kernels.nt(r0, r1, n, k, kb, a, lda, *bt, c, ldc)
}

func checkNT(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int) {
	checkOperands(m, n, k, len(a), lda, k, (m-1)*lda+k, len(b), (n-1)*ldb+k, ldb, k, len(c), ldc)
}

// ntBlock is the inner block of gonum's NT product of m rows: 64 when it
// computes in parallel (at least four 64×64 blocks of C), else all of k.
func ntBlock(m, n, k int) int {
	if blocks(m)*blocks(n) >= gonumMinParBlock {
		return gonumBlock
	}
	return k
}

// transposed returns Bᵀ (k×n, leading dimension n) of B n×k in a scratch
// buffer (give it back with putScratch), copied in 16×16 blocks so that
// both sides stay in cache.
func transposed(n, k int, b []float64, ldb int) *[]float64 {
	const blk = 16
	bt := getScratch(k * n)
	t := *bt
	for j0 := 0; j0 < n; j0 += blk {
		j1 := min(n, j0+blk)
		for l0 := 0; l0 < k; l0 += blk {
			l1 := min(k, l0+blk)
			for j := j0; j < j1; j++ {
				for l, v := range b[j*ldb+l0 : j*ldb+l1] {
					t[(l0+l)*n+j] = v
				}
			}
		}
	}
	return bt
}

func blocks(dim int) int { return (dim + gonumBlock - 1) / gonumBlock }

// emptyPart panics if [r0, r1) is not a row range of [0, m) and reports
// whether the part has nothing to compute.
func emptyPart(r0, r1, m, n, k int) bool {
	if r0 < 0 || r1 < r0 || r1 > m {
		panic(fmt.Sprintf("gemm: row range [%d, %d) outside [0, %d)", r0, r1, m))
	}
	return r0 == r1 || n == 0 || k == 0
}

// checkOperands panics, as gonum does, when a leading dimension is too
// small or a slice too short for the product.
func checkOperands(m, n, k, lenA, lda, minLda, needA, lenB, needB, ldb, minLdb, lenC, ldc int) {
	switch {
	case lda < max(1, minLda) || ldb < max(1, minLdb) || ldc < max(1, n):
		panic(fmt.Sprintf("gemm: leading dimensions %d, %d, %d too small for %d×%d×%d", lda, ldb, ldc, m, n, k))
	case lenA < needA || lenB < needB || lenC < (m-1)*ldc+n:
		panic(fmt.Sprintf("gemm: operand slices (%d, %d, %d) too short for %d×%d×%d", lenA, lenB, lenC, m, n, k))
	}
}

// minWork is the number of multiply–adds below which ParallelRows runs
// on the calling goroutine.
const minWork = 1 << 16

// ParallelRows runs fn on contiguous ranges [r0, r1) covering [0, m)
// (boundaries at multiples of 4) on the calling goroutine and helpers on
// the cores its callers leave idle (internal/cores; up to GOMAXPROCS in
// all), work being the cost of one row; small jobs run on the calling
// goroutine. A panic in fn is re-raised on the calling goroutine.
func ParallelRows(m, work int, fn func(r0, r1 int)) {
	p := min(runtime.GOMAXPROCS(0), m/4, m*work/minWork)
	if p > 1 {
		k := cores.Claim(p - 1)
		defer cores.Release(k)
		p = 1 + k
	}
	if p <= 1 {
		fn(0, m)
		return
	}
	step := (m/p + 3) &^ 3
	var wg sync.WaitGroup
	var once sync.Once
	var caught any
	run := func(r0, r1 int) {
		defer func() {
			if e := recover(); e != nil {
				once.Do(func() { caught = e })
			}
		}()
		fn(r0, r1)
	}
	for r0 := 0; r0 < m; r0 += step {
		r1 := min(m, r0+step)
		if r1 == m {
			run(r0, r1)
			break
		}
		wg.Go(func() { run(r0, r1) })
	}
	wg.Wait()
	if caught != nil {
		panic(caught)
	}
}

var scratch sync.Pool

func getScratch(n int) *[]float64 {
	s, _ := scratch.Get().(*[]float64)
	if s == nil {
		s = new([]float64)
	}
	if cap(*s) < n {
		*s = make([]float64, n)
	}
	*s = (*s)[:n]
	return s
}

func putScratch(s *[]float64) { scratch.Put(s) }
