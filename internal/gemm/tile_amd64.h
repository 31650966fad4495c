// Shared pieces of the 8-row register tiles of kernels_amd64.s and
// kernels32_amd64.s. Their arguments are
// (k int, a *T, ais, als int, b *T, ldb int, c *T, ldc int) with strides in
// elements; the C block is 8 rows of two 64-byte vectors, kept in Z16–Z31
// (row r in Z(16+2r), Z(17+2r)).

// TILE8_ARGS loads the arguments, strides scaled to bytes (shift = log₂ of
// the element size): CX = k, AX = row 0 of A, R8 = ais, R11 = als, BX = B,
// R12 = ldb, DI = C, R13 = ldc, R9 = row 3 of A and R10 = row 6.
#define TILE8_ARGS(shift) \
	MOVQ k+0(FP), CX; \
	MOVQ a+8(FP), AX; \
	MOVQ ais+16(FP), R8; \
	SHLQ $shift, R8; \
	MOVQ als+24(FP), R11; \
	SHLQ $shift, R11; \
	MOVQ b+32(FP), BX; \
	MOVQ ldb+40(FP), R12; \
	SHLQ $shift, R12; \
	MOVQ c+48(FP), DI; \
	MOVQ ldc+56(FP), R13; \
	SHLQ $shift, R13; \
	LEAQ (AX)(R8*2), R9; \
	ADDQ R8, R9; \
	LEAQ (R9)(R8*2), R10; \
	ADDQ R8, R10

// TILE8_LOAD_C loads the C block into Z16–Z31.
#define TILE8_LOAD_C \
	MOVQ DI, DX; \
	VMOVUPS (DX), Z16; \
	VMOVUPS 64(DX), Z17; \
	ADDQ R13, DX; \
	VMOVUPS (DX), Z18; \
	VMOVUPS 64(DX), Z19; \
	ADDQ R13, DX; \
	VMOVUPS (DX), Z20; \
	VMOVUPS 64(DX), Z21; \
	ADDQ R13, DX; \
	VMOVUPS (DX), Z22; \
	VMOVUPS 64(DX), Z23; \
	ADDQ R13, DX; \
	VMOVUPS (DX), Z24; \
	VMOVUPS 64(DX), Z25; \
	ADDQ R13, DX; \
	VMOVUPS (DX), Z26; \
	VMOVUPS 64(DX), Z27; \
	ADDQ R13, DX; \
	VMOVUPS (DX), Z28; \
	VMOVUPS 64(DX), Z29; \
	ADDQ R13, DX; \
	VMOVUPS (DX), Z30; \
	VMOVUPS 64(DX), Z31

// TILE8_STORE_C stores Z16–Z31 into the C block.
#define TILE8_STORE_C \
	MOVQ DI, DX; \
	VMOVUPS Z16, (DX); \
	VMOVUPS Z17, 64(DX); \
	ADDQ R13, DX; \
	VMOVUPS Z18, (DX); \
	VMOVUPS Z19, 64(DX); \
	ADDQ R13, DX; \
	VMOVUPS Z20, (DX); \
	VMOVUPS Z21, 64(DX); \
	ADDQ R13, DX; \
	VMOVUPS Z22, (DX); \
	VMOVUPS Z23, 64(DX); \
	ADDQ R13, DX; \
	VMOVUPS Z24, (DX); \
	VMOVUPS Z25, 64(DX); \
	ADDQ R13, DX; \
	VMOVUPS Z26, (DX); \
	VMOVUPS Z27, 64(DX); \
	ADDQ R13, DX; \
	VMOVUPS Z28, (DX); \
	VMOVUPS Z29, 64(DX); \
	ADDQ R13, DX; \
	VMOVUPS Z30, (DX); \
	VMOVUPS Z31, 64(DX)

// TILE8_LOAD_AB(op) loads row l of the B panel (two vectors) into Z0–Z1 and
// broadcasts element l of the 8 rows of A into Z2–Z9 with op (VBROADCASTSS
// or VBROADCASTSD).
#define TILE8_LOAD_AB(op) \
	VMOVUPS (BX), Z0; \
	VMOVUPS 64(BX), Z1; \
	op (AX), Z2; \
	op (AX)(R8*1), Z3; \
	op (AX)(R8*2), Z4; \
	op (R9), Z5; \
	op (AX)(R8*4), Z6; \
	op (R9)(R8*2), Z7; \
	op (R10), Z8; \
	op (R10)(R8*1), Z9

// TILE8_NEXT advances A, R9, R10 by one column (als) and B by one row.
#define TILE8_NEXT \
	ADDQ R11, AX; \
	ADDQ R11, R9; \
	ADDQ R11, R10; \
	ADDQ R12, BX
