package experiments

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// Work counts the units of work (training steps summed over runs, say)
// that a figure's cells have done, for progress finer than whole cells
// (Figure.Work). Cells find it in their context (WorkFrom) and add to it
// from any goroutine at the cost of one atomic add, cheap enough for a
// training loop. A nil *Work ignores additions.
type Work struct{ done atomic.Int64 }

// Add records n more units done.
func (w *Work) Add(n int) {
	if w != nil {
		w.done.Add(int64(n))
	}
}

// Done returns the units recorded so far (0 for a nil *Work).
func (w *Work) Done() int {
	if w == nil {
		return 0
	}
	return int(w.done.Load())
}

// workKey is the context key of the *Work of a run.
type workKey struct{}

// WithWork returns ctx carrying w, which WorkFrom returns.
func WithWork(ctx context.Context, w *Work) context.Context {
	return context.WithValue(ctx, workKey{}, w)
}

// WorkFrom returns the *Work of ctx, or nil (whose Add does nothing) when
// the run counts cells only.
func WorkFrom(ctx context.Context) *Work {
	w, _ := ctx.Value(workKey{}).(*Work)
	return w
}

// workPoll is how often Run reads the Work of a run to report progress.
const workPoll = 200 * time.Millisecond

// runProgress reports the progress of one Run: per cell, or per unit of
// work when RunOptions.Work is set. cell is called (never concurrently)
// as cells complete, finish once at the end. A panic of the callback is
// recovered (see call): it stops the run and is Run's error.
type runProgress struct {
	report func(done, total int) // nil: no progress wanted
	total  int                   // cells, or units of work
	work   *Work                 // nil: progress counts cells
	stop   chan struct{}         // closed by finish: ends the poller
	polled chan int              // the poller's last reported done
	cancel context.CancelFunc    // stops the run after a panic of report
	err    error                 // the panic of report, if any (then no more calls)
}

// startProgress reports (0, total) and, when opts.Work > 0, starts a
// goroutine that reports the work units done every workPoll; the returned
// context carries the Work (WorkFrom) for the cells and is cancelled if
// the callback panics.
func startProgress(ctx context.Context, opts RunOptions, cells int) (context.Context, *runProgress) {
	p := &runProgress{report: opts.Progress, total: cells, cancel: func() {}}
	if p.report == nil {
		return ctx, p
	}
	ctx, p.cancel = context.WithCancel(ctx)
	if opts.Work > 0 {
		p.total, p.work = opts.Work, &Work{}
		p.stop, p.polled = make(chan struct{}), make(chan int, 1)
		ctx = WithWork(ctx, p.work)
	}
	p.call(0)
	if p.work != nil {
		go func() { p.polled <- p.poll(workPoll) }()
	}
	return ctx, p
}

// call reports done of total, unless the callback panicked before. A
// panic is recovered into p.err, naming the callback, and cancels the
// run: a bug in a notebook's progress bar must not take the kernel down
// from a worker goroutine. Calls are serialised by the caller (Parallel's
// done, the poller, then finish after the poller has stopped), so p.err
// needs no lock.
func (p *runProgress) call(done int) {
	if p.err != nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			p.err = fmt.Errorf("experiments: the progress callback (RunOptions.Progress, the progress argument of Figure.Execute) "+
				"panicked when called with (%d, %d), so the run was stopped: fix the callback, or pass nil for no progress: %v\n%s",
				done, p.total, r, debug.Stack())
			p.cancel()
		}
	}()
	p.report(done, p.total)
}

// cell reports done cells when progress counts cells.
func (p *runProgress) cell(done int) {
	if p.report != nil && p.work == nil {
		p.call(done)
	}
}

// finish stops the poller; after a successful run it reports every unit
// done (work a memo already held, or a Work total above the units the
// cells counted, is done too when every cell is). It returns the
// callback's panic as an error, or nil.
func (p *runProgress) finish(ok bool) error {
	defer p.cancel()
	if p.work == nil {
		return p.err
	}
	close(p.stop)
	if last := <-p.polled; ok && last < p.total {
		p.call(p.total)
	}
	return p.err
}

// poll calls report(done, total) every interval while the units done have
// grown since the last call (done capped at total), until p.stop is
// closed; it returns the last done it reported.
func (p *runProgress) poll(interval time.Duration) int {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	last := 0
	for {
		select {
		case <-p.stop:
			return last
		case <-tick.C:
			if d := min(p.work.Done(), p.total); d > last {
				last = d
				p.call(d)
			}
		}
	}
}
