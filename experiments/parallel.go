package experiments

import (
	"errors"
	"runtime"
	"sync"
)

// parallelEach calls f(i) for i = 0..n−1 on up to GOMAXPROCS goroutines and
// returns the errors joined in index order. f must write its results by
// index, so they do not depend on the number of goroutines.
func parallelEach(n int, f func(i int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}
