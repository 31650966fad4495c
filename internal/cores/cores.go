// Package cores shares the machine's cores between nested parallel loops.
//
// The worker pool of featuredp (experiments.Parallel) counts its running
// workers as busy; a kernel that can split its work over several
// goroutines (models.LogisticBlock.GradSums, models.MLPBlock.GradSums)
// claims helpers only on the cores the busy workers leave idle. So a
// kernel called alone (a calibration run, a notebook cell) uses every
// core, and a kernel called from a pool that already keeps every core busy
// runs on its caller's goroutine, paying no split or synchronisation.
//
// The count decides only how many goroutines run; the callers split their
// work into tasks whose results do not depend on that number, so results
// are bit for bit the same whatever the load.
package cores

import (
	"context"
	"runtime"
	"sync/atomic"
)

// busy is the number of goroutines counted as computing: pool workers
// (Enter) and claimed helpers (Claim). A goroutine that waits for another
// one's result leaves the count while it waits (Leave … Enter).
var busy atomic.Int64

// Enter counts the calling goroutine as busy; Leave undoes it.
func Enter() { busy.Add(1) }

// Leave stops counting the calling goroutine (after Enter, or while a
// counted goroutine waits).
func Leave() { busy.Add(-1) }

// Busy returns the number of goroutines counted as busy.
func Busy() int { return int(busy.Load()) }

// Claim reserves up to n helper goroutines on idle cores and returns how
// many it reserved, k ∈ [0, n]: the idle cores are GOMAXPROCS minus the
// busy count, the caller counting as one busy goroutine when nothing is
// counted (a caller outside any pool). The caller runs its k helpers and
// then calls Release(k).
func Claim(n int) int {
	if n <= 0 {
		return 0
	}
	procs := int64(runtime.GOMAXPROCS(0))
	for {
		b := busy.Load()
		idle := procs - max(b, 1)
		if idle <= 0 {
			return 0
		}
		k := min(int64(n), idle)
		if busy.CompareAndSwap(b, b+k) {
			return int(k)
		}
	}
}

// Release returns k helpers reserved by Claim.
func Release(k int) { busy.Add(-int64(k)) }

// countedKey marks a context whose goroutine is counted as busy.
type countedKey struct{}

// Counted returns ctx marked as belonging to a goroutine counted as busy
// (a pool worker passes it to the work it runs).
func Counted(ctx context.Context) context.Context {
	return context.WithValue(ctx, countedKey{}, true)
}

// IsCounted reports whether ctx was marked by Counted: its goroutine is
// counted as busy, so when it hands its work to a nested pool and waits,
// it leaves the count for the wait.
func IsCounted(ctx context.Context) bool {
	v, _ := ctx.Value(countedKey{}).(bool)
	return v
}
