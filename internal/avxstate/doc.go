// Package avxstate has no code: its test reads the compiled code of the
// module's packages that use simd/archsimd (GOEXPERIMENT=simd on amd64)
// and fails if a function that uses 256- or 512-bit registers returns
// without VZEROUPPER (archsimd.ClearAVXUpperBits). Go does not insert
// it, and scalar (legacy SSE) code after vector code with dirty upper
// register halves pays a transition or false-dependency penalty on Intel
// (issue #30): `go test ./internal/avxstate` with GOEXPERIMENT=simd.
package avxstate
