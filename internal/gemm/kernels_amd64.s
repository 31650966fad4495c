//go:build goexperiment.simd && amd64

#include "textflag.h"
#include "tile_amd64.h"

// func nn64x8x16(k int, a *float64, ais, als int, b *float64, ldb int, c *float64, ldc int)
//
// C[0:8, 0:16] += A[0:8, 0:k]·B[0:k, 0:16] in float64, A element (i,l) at
// a[i*ais+l*als], B and C row-major with leading dimensions ldb and ldc
// (all strides in elements). Each element of C takes, for l = 0, 1, …, k−1
// in order, c ← c + a_il·b_lj with a rounded product and a rounded sum
// (VMULPD, VADDPD; never a fused multiply–add): the operations of the Go
// kernels of kernels_simd.go and of gonum's Dgemm. Accumulators Z16–Z31, B
// in Z0–Z1, broadcasts of A in Z2–Z9, products in Z10–Z13; X15 (Go's zero
// register) is not touched.
TEXT ·nn64x8x16(SB), NOSPLIT, $0-64
	TILE8_ARGS(3)
	TILE8_LOAD_C

	TESTQ CX, CX
	JLE store

loop:
	TILE8_LOAD_AB(VBROADCASTSD)
	VMULPD Z0, Z2, Z10
	VMULPD Z1, Z2, Z11
	VADDPD Z10, Z16, Z16
	VADDPD Z11, Z17, Z17
	VMULPD Z0, Z3, Z12
	VMULPD Z1, Z3, Z13
	VADDPD Z12, Z18, Z18
	VADDPD Z13, Z19, Z19
	VMULPD Z0, Z4, Z10
	VMULPD Z1, Z4, Z11
	VADDPD Z10, Z20, Z20
	VADDPD Z11, Z21, Z21
	VMULPD Z0, Z5, Z12
	VMULPD Z1, Z5, Z13
	VADDPD Z12, Z22, Z22
	VADDPD Z13, Z23, Z23
	VMULPD Z0, Z6, Z10
	VMULPD Z1, Z6, Z11
	VADDPD Z10, Z24, Z24
	VADDPD Z11, Z25, Z25
	VMULPD Z0, Z7, Z12
	VMULPD Z1, Z7, Z13
	VADDPD Z12, Z26, Z26
	VADDPD Z13, Z27, Z27
	VMULPD Z0, Z8, Z10
	VMULPD Z1, Z8, Z11
	VADDPD Z10, Z28, Z28
	VADDPD Z11, Z29, Z29
	VMULPD Z0, Z9, Z12
	VMULPD Z1, Z9, Z13
	VADDPD Z12, Z30, Z30
	VADDPD Z13, Z31, Z31
	TILE8_NEXT
	DECQ CX
	JNZ  loop

store:
	TILE8_STORE_C
	VZEROUPPER
	RET


// NT_TERM adds the products of one inner index to the 2×16 tile: B row at
// (BX)(idx*1), A at off(AX) and off(AX)(R8*1), partial sums s00, s01 (row
// 0, columns 0–7 and 8–15) and s10, s11 (row 1).
#define NT_TERM(idx, off, s00, s01, s10, s11) \
	VMOVUPD (BX)(idx*1), Z0; \
	VMOVUPD 64(BX)(idx*1), Z1; \
	VBROADCASTSD off(AX), Z2; \
	VBROADCASTSD off(AX)(R8*1), Z3; \
	VMULPD Z0, Z2, Z4; \
	VADDPD Z4, s00, s00; \
	VMULPD Z1, Z2, Z5; \
	VADDPD Z5, s01, s01; \
	VMULPD Z0, Z3, Z6; \
	VADDPD Z6, s10, s10; \
	VMULPD Z1, Z3, Z7; \
	VADDPD Z7, s11, s11

// NT_COMBINE adds (s0+s2)+(s1+s3) to the 8 elements of C at off(DX).
#define NT_COMBINE(s0, s1, s2, s3, off) \
	VADDPD s2, s0, Z0; \
	VADDPD s3, s1, Z1; \
	VADDPD Z1, Z0, Z0; \
	VADDPD off(DX), Z0, Z0; \
	VMOVUPD Z0, off(DX)

// func nt64x2x16(k int, a *float64, lda int, bt *float64, ldb int, c *float64, ldc int)
//
// C[0:2, 0:16] += A[0:2, 0:k]·Bᵀ[0:k, 0:16] in float64 in the order of
// gonum's DotUnitary: for each element four partial sums s_r over the
// terms l ≡ r (mod 4) of the first 4⌊k/4⌋, the k mod 4 trailing terms added
// to s₀, then c ← c + ((s₀+s₂)+(s₁+s₃)); every product and sum rounded
// (VMULPD, VADDPD). A is row-major with leading dimension lda, bt = Bᵀ
// row-major with leading dimension ldb (strides in elements). The partial
// sum s_r of row i, columns 8h…8h+7 is Z(16+8i+4h+r).
TEXT ·nt64x2x16(SB), NOSPLIT, $0-56
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ lda+16(FP), R8
	SHLQ $3, R8
	MOVQ bt+24(FP), BX
	MOVQ ldb+32(FP), R12
	SHLQ $3, R12
	MOVQ c+40(FP), DI
	MOVQ ldc+48(FP), R13
	SHLQ $3, R13
	XORQ SI, SI
	LEAQ (R12)(R12*1), R14
	LEAQ (R12)(R12*2), R9
	VXORPD Z16, Z16, Z16
	VXORPD Z17, Z17, Z17
	VXORPD Z18, Z18, Z18
	VXORPD Z19, Z19, Z19
	VXORPD Z20, Z20, Z20
	VXORPD Z21, Z21, Z21
	VXORPD Z22, Z22, Z22
	VXORPD Z23, Z23, Z23
	VXORPD Z24, Z24, Z24
	VXORPD Z25, Z25, Z25
	VXORPD Z26, Z26, Z26
	VXORPD Z27, Z27, Z27
	VXORPD Z28, Z28, Z28
	VXORPD Z29, Z29, Z29
	VXORPD Z30, Z30, Z30
	VXORPD Z31, Z31, Z31
	MOVQ CX, DX
	SHRQ $2, DX
	ANDQ $3, CX
	TESTQ DX, DX
	JEQ tail

quad:
	NT_TERM(SI, 0, Z16, Z20, Z24, Z28)
	NT_TERM(R12, 8, Z17, Z21, Z25, Z29)
	NT_TERM(R14, 16, Z18, Z22, Z26, Z30)
	NT_TERM(R9, 24, Z19, Z23, Z27, Z31)
	ADDQ $32, AX
	LEAQ (BX)(R12*4), BX
	DECQ DX
	JNZ  quad

tail:
	TESTQ CX, CX
	JEQ combine

tailloop:
	NT_TERM(SI, 0, Z16, Z20, Z24, Z28)
	ADDQ $8, AX
	ADDQ R12, BX
	DECQ CX
	JNZ  tailloop

combine:
	MOVQ DI, DX
	NT_COMBINE(Z16, Z17, Z18, Z19, 0)
	NT_COMBINE(Z20, Z21, Z22, Z23, 64)
	ADDQ R13, DX
	NT_COMBINE(Z24, Z25, Z26, Z27, 0)
	NT_COMBINE(Z28, Z29, Z30, Z31, 64)
	VZEROUPPER
	RET
