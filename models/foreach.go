package models

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/featuredp/featuredp/internal/cores"
)

// claimWorkers returns the number of goroutines, w ≥ 1, a kernel with n
// independent tasks runs on: its caller plus the helpers claimed on idle
// cores (internal/cores), at most min(n, GOMAXPROCS) in all. The caller
// must call cores.Release(w − 1) when done.
func claimWorkers(n int) int {
	return 1 + cores.Claim(min(n, runtime.GOMAXPROCS(0))-1)
}

// forEach calls fn(t) for t = 0 … n−1, each once, on up to w goroutines
// (the caller and w−1 helpers; in the caller alone when w ≤ 1). The calls
// must write disjoint data.
func forEach(n, w int, fn func(t int)) {
	w = min(w, n)
	if w <= 1 {
		for t := range n {
			fn(t)
		}
		return
	}
	var next atomic.Int64
	work := func() {
		for t := int(next.Add(1) - 1); t < n; t = int(next.Add(1) - 1) {
			fn(t)
		}
	}
	var wg sync.WaitGroup
	for range w - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}
