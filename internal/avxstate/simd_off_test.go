//go:build !(goexperiment.simd && amd64)

package avxstate

const simdBuild = false
