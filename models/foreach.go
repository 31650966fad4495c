package models

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// forEach calls fn(t) for t = 0 … n−1, each once, on up to GOMAXPROCS
// goroutines when par is set (in the caller alone otherwise). The calls
// must write disjoint data.
func forEach(n int, par bool, fn func(t int)) {
	w := min(runtime.GOMAXPROCS(0), n)
	if !par || w <= 1 {
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
