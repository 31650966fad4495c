package numeric

import (
	"math"
	"sync"
)

// logFactTableSize bounds the precomputed table of log-factorials used for
// the binomial coefficients of integer orders; larger integer orders fall
// back to math.Lgamma per term.
const logFactTableSize = 4097

var (
	logFactOnce  sync.Once
	logFactTable []float64
	logIntTable  []float64 // logIntTable[n] = log(n), n >= 1
)

// LogFact returns log(n!) for 0 <= n, from a table built once (each entry
// from math.Lgamma, so no rounding accumulates).
func LogFact(n int) float64 {
	logFactOnce.Do(func() {
		logFactTable = make([]float64, logFactTableSize)
		logIntTable = make([]float64, logFactTableSize)
		for i := range logFactTable {
			logFactTable[i], _ = math.Lgamma(float64(i) + 1)
			logIntTable[i] = math.Log(float64(i))
		}
	})
	if n < logFactTableSize {
		return logFactTable[n]
	}
	v, _ := math.Lgamma(float64(n) + 1)
	return v
}

// LogInt returns log(n) for n >= 1, from a table for small n.
func LogInt(n int) float64 {
	if n < logFactTableSize {
		LogFact(0) // builds the tables once
		return logIntTable[n]
	}
	return math.Log(float64(n))
}
