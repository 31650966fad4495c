//go:build goexperiment.simd && amd64

#include "textflag.h"
#include "tile_amd64.h"

// func nn32x8x32(k int, a *float32, ais, als int, b *float32, ldb int, c *float32, ldc int)
//
// C[0:8, 0:32] += A[0:8, 0:k]·B[0:k, 0:32] in float32, A element (i,l) at
// a[i*ais+l*als], B and C row-major with leading dimensions ldb and ldc
// (all strides in elements). Each element of C takes, for l = 0, 1, …, k−1
// in order, c ← fma(a_il, b_lj, c): the same operations as the Go kernels
// of kernels32_simd.go. Accumulators Z16–Z31, B in Z0–Z1, broadcasts of A
// in Z2–Z9; X15 (Go's zero register) is not touched.
TEXT ·nn32x8x32(SB), NOSPLIT, $0-64
	TILE8_ARGS(2)
	TILE8_LOAD_C

	TESTQ CX, CX
	JLE store

loop:
	TILE8_LOAD_AB(VBROADCASTSS)
	VFMADD231PS Z0, Z2, Z16
	VFMADD231PS Z1, Z2, Z17
	VFMADD231PS Z0, Z3, Z18
	VFMADD231PS Z1, Z3, Z19
	VFMADD231PS Z0, Z4, Z20
	VFMADD231PS Z1, Z4, Z21
	VFMADD231PS Z0, Z5, Z22
	VFMADD231PS Z1, Z5, Z23
	VFMADD231PS Z0, Z6, Z24
	VFMADD231PS Z1, Z6, Z25
	VFMADD231PS Z0, Z7, Z26
	VFMADD231PS Z1, Z7, Z27
	VFMADD231PS Z0, Z8, Z28
	VFMADD231PS Z1, Z8, Z29
	VFMADD231PS Z0, Z9, Z30
	VFMADD231PS Z1, Z9, Z31
	TILE8_NEXT
	DECQ CX
	JNZ  loop

store:
	TILE8_STORE_C
	VZEROUPPER
	RET
