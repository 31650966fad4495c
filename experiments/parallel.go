package experiments

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/featuredp/featuredp/internal/cores"
)

// Parallel is the one worker pool of featuredp: it calls f(ctx, i) for
// i = 0..n−1 on up to workers goroutines (≤ 0 means GOMAXPROCS); n < 0
// or a nil f is an error. f must write its results by index, so they do
// not depend on the number of goroutines or on scheduling.
//
// The first failure cancels the context passed to the calls still running
// and no new index starts; Parallel then returns the error of the lowest
// failing index (deterministic whatever the timing), as f returned it (f
// adds its own context). A panic in f is recovered and returned as that index's error, with
// the stack. If ctx is cancelled, Parallel stops starting indices, waits for
// the running ones and returns an error wrapping ctx.Err(). done, if not
// nil, is called after each successful index, never concurrently; a panic
// in done is that index's error, naming done.
//
// The workers count as busy cores (internal/cores) while they run, so
// the kernels they call split their work only over cores left idle; a
// caller that is itself a counted worker (a Parallel nested in another)
// leaves the count while it waits for its workers.
func Parallel(ctx context.Context, n, workers int, f func(ctx context.Context, i int) error, done func(i int)) error {
	switch {
	case n < 0:
		return fmt.Errorf("experiments: Parallel: %d indices: want n ≥ 0", n)
	case f == nil:
		return errors.New("experiments: Parallel: nil function: pass the function to call for each index")
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, n))
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	var (
		mu     sync.Mutex // serialises done; guards errs, failed and lowest
		failed bool
		lowest int // the lowest failing index, when failed
		next   = make(chan int)
		wg     sync.WaitGroup
	)
	if cores.IsCounted(ctx) {
		cores.Leave()
		defer cores.Enter()
	}
	counted := cores.Counted(inner)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cores.Enter()
			defer cores.Leave()
			for i := range next {
				// The feeder's select may pick a send after a failure or
				// a cancellation: such an index does not start. An index
				// below the failing one was sent before it and runs, so
				// the lowest failing index is found whatever the timing.
				mu.Lock()
				skip := ctx.Err() != nil || failed && i > lowest
				mu.Unlock()
				if skip {
					continue
				}
				err := callIndex(counted, f, i)
				mu.Lock()
				if err == nil && done != nil {
					err = callDone(done, i)
				}
				if err != nil {
					if !failed || i < lowest {
						lowest = i
					}
					errs[i], failed = err, true
					cancel()
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-inner.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if failed {
		// The lowest failing index that did not merely see the
		// cancellation caused by another failure; else the lowest one.
		var first error
		for _, err := range errs {
			if err == nil {
				continue
			}
			if !isContextErr(err) {
				return err
			}
			if first == nil {
				first = err
			}
		}
		if ctx.Err() == nil {
			return first
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cancelled: %w", err)
	}
	return nil
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// callIndex calls f, turning a panic into an error that carries the stack,
// so that a bug in one cell cannot take down a notebook kernel.
func callIndex(ctx context.Context, f func(context.Context, int) error, i int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return f(ctx, i)
}

// callDone calls done(i), turning a panic into an error that names the
// callback, so that it cannot take down the process from a worker.
func callDone(done func(int), i int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the done callback of Parallel panicked after index %d: %v\n%s", i, r, debug.Stack())
		}
	}()
	done(i)
	return nil
}
