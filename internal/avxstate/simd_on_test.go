//go:build goexperiment.simd && amd64

package avxstate

// simdBuild reports whether this test was built with the simd experiment
// on amd64, where the module's SIMD kernels are compiled.
const simdBuild = true
