// Package eta estimates the time left of a run of cells from the time
// taken so far, for the progress bars of the command line and the
// notebooks.
package eta

import (
	"fmt"
	"runtime"
	"time"
)

// Left returns the time the remaining total−done cells will take at the
// mean rate so far, elapsed/done; ok is false before the first cell is done
// or when nothing is left.
func Left(elapsed time.Duration, done, total int) (time.Duration, bool) {
	if done <= 0 || done >= total || elapsed <= 0 {
		return 0, false
	}
	return time.Duration(float64(elapsed) / float64(done) * float64(total-done)), true
}

// Format renders a duration for a progress line: "42s", "3m07s", "1h05m".
func Format(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// Status is "elapsed 3m07s, about 1m02s left" (or just the elapsed time
// when nothing can be estimated yet).
func Status(elapsed time.Duration, done, total int) string {
	s := "elapsed " + Format(elapsed)
	if left, ok := Left(elapsed, done, total); ok {
		s += ", about " + Format(left) + " left"
	}
	return s
}

// Pace estimates the time left of units whose first ones come after a
// setup (loading the data, preparing a model, calibrating) that Status
// would take for the pace of the rest: the time left is at the pace since
// a reference report, the first with at least After units done (any
// units when After ≤ 1), once a later report has more units done.
//
// After is 1 (or 0) for fine-grained units (training steps). For cells
// run by W parallel workers it is W: the workers' first cells wait for a
// setup they share and finish together after it, so the pace since the
// first of them would count the other W − 1, which ran during the setup,
// as done in no time (an estimate near 0 s); from the W-th on, cells
// finish at the workers' pace. The zero value is ready to use; reports
// must come in order.
type Pace struct {
	After int           // units done at the reference report (≤ 1: any)
	at    time.Duration // elapsed time of the reference report
	done  int           // the units done then (0: no reference yet)
}

// Status is Status for done of total units at elapsed, with the time left
// at the pace since the reference report (a nil *Pace has none: plain
// Status).
func (p *Pace) Status(elapsed time.Duration, done, total int) string {
	if p == nil {
		return Status(elapsed, done, total)
	}
	if p.done == 0 && done > 0 && done >= p.After {
		p.at, p.done = elapsed, done
	}
	if p.done == 0 || done <= p.done {
		return Status(elapsed, done, total)
	}
	s := "elapsed " + Format(elapsed)
	if left, ok := Left(elapsed-p.at, done-p.done, total-p.done); ok {
		s += ", about " + Format(left) + " left"
	}
	return s
}

// ForUnits returns the Pace of a run's progress counting unit: cells run
// by workers parallel workers (After = workers, the first of each waiting
// for the shared setup; workers ≤ 0 means runtime.NumCPU(), as
// experiments.Env.Workers), or any finer unit of work such as training
// steps (After = 1). The command line's and the notebooks' progress bars
// both take their estimate from it.
func ForUnits(unit string, workers int) Pace {
	if unit != "cells" {
		return Pace{After: 1}
	}
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	return Pace{After: workers}
}
