package experiments

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// progressLog records the calls of a progress callback and flags calls
// that overlap.
type progressLog struct {
	mu       sync.Mutex
	calls    [][2]int
	inFlight atomic.Int32
	overlap  atomic.Bool
	seen     chan struct{} // closed at the first call with 0 < done < total
	once     sync.Once
}

func newProgressLog() *progressLog { return &progressLog{seen: make(chan struct{})} }

func (l *progressLog) report(done, total int) {
	if l.inFlight.Add(1) > 1 {
		l.overlap.Store(true)
	}
	l.mu.Lock()
	l.calls = append(l.calls, [2]int{done, total})
	l.mu.Unlock()
	if done > 0 && done < total {
		l.once.Do(func() { close(l.seen) })
	}
	l.inFlight.Add(-1)
}

// A run that counts work (RunOptions.Work): the cells share one piece of
// work, as lock-step training is shared by the cells that read it, and
// every cell waits for it. Progress must arrive while the work proceeds
// (before any cell completes), in units of work, never overlapping,
// increasing, and end at (Work, Work). Counting cells instead, nothing
// arrives before the first cell completes: the cells wait for a report
// that never comes and fail.
func TestRunWorkProgress(t *testing.T) {
	const total, cells = 1000, 6
	log := newProgressLog()
	var once sync.Once
	shared := func(ctx context.Context) {
		w := WorkFrom(ctx)
		for range total / 2 {
			w.Add(1)
		}
		// The rest of the work is done by the cells below, after
		// progress has been seen.
	}
	fn := func(ctx context.Context, c Cell) ([]Measurement, error) {
		once.Do(func() { shared(ctx) })
		select {
		case <-log.seen:
		case <-time.After(10 * time.Second):
			return nil, errors.New("no progress reported while the shared work ran")
		}
		WorkFrom(ctx).Add(total / 2 / cells)
		return []Measurement{{Metric: "m", Value: 1}}, nil
	}
	_, err := Run(context.Background(), Grid("w", 1, []string{"a"}, []float64{1}, cells), fn,
		RunOptions{Workers: 2, Progress: log.report, Work: total})
	if err != nil {
		t.Fatal(err)
	}
	if log.overlap.Load() {
		t.Error("progress callback was called concurrently")
	}
	calls := log.calls
	if len(calls) < 3 || calls[0] != [2]int{0, total} || calls[len(calls)-1] != [2]int{total, total} {
		t.Fatalf("calls %v: want (0, %d) first, an intermediate one and (%d, %d) last", calls, total, total, total)
	}
	for i := 1; i < len(calls); i++ {
		if calls[i][1] != total || calls[i][0] <= calls[i-1][0] {
			t.Fatalf("call %d = %v after %v: want done increasing, total %d", i, calls[i], calls[i-1], total)
		}
	}
}

// Without a progress callback the cells get no Work (nothing to count);
// a failed run does not report the work as done; units beyond the total
// are capped at it.
func TestRunWorkEdges(t *testing.T) {
	cells := Grid("w", 1, []string{"a"}, []float64{1}, 3)
	_, err := Run(context.Background(), cells, func(ctx context.Context, _ Cell) ([]Measurement, error) {
		if WorkFrom(ctx) != nil {
			return nil, errors.New("a Work without a progress callback")
		}
		return []Measurement{{Metric: "m"}}, nil
	}, RunOptions{Work: 10})
	if err != nil {
		t.Fatal(err)
	}
	log := newProgressLog()
	_, err = Run(context.Background(), cells, func(ctx context.Context, c Cell) ([]Measurement, error) {
		WorkFrom(ctx).Add(1)
		if c.Rep == 2 {
			return nil, errors.New("boom")
		}
		return []Measurement{{Metric: "m"}}, nil
	}, RunOptions{Workers: 1, Progress: log.report, Work: 10})
	if err == nil {
		t.Fatal("no error")
	}
	if last := log.calls[len(log.calls)-1]; last[0] == last[1] {
		t.Errorf("a failed run reported %v: all work done", last)
	}
	var calls [][2]int
	_, err = Run(context.Background(), cells, func(ctx context.Context, c Cell) ([]Measurement, error) {
		WorkFrom(ctx).Add(100)
		time.Sleep(2 * workPoll) // the poller sees 100 units of 10
		return []Measurement{{Metric: "m"}}, nil
	}, RunOptions{Workers: 1, Progress: func(done, total int) { calls = append(calls, [2]int{done, total}) }, Work: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		if c[0] > c[1] {
			t.Errorf("reported %v: done above the total", c)
		}
	}
	if last := calls[len(calls)-1]; last != [2]int{10, 10} {
		t.Errorf("last call %v, want [10 10]", last)
	}
	var nilWork *Work
	nilWork.Add(1)
	if nilWork.Done() != 0 || WorkFrom(context.Background()) != nil {
		t.Error("a nil Work counted")
	}
}

// A progress callback that panics (at the first call, after a cell, from
// the work poller, or at the final (Work, Work)) stops the run: Run
// returns an error naming the callback and the panic, the process goes
// on, and the callback is not called again. On the old code the panic
// crashed the process from a worker goroutine.
func TestRunProgressPanics(t *testing.T) {
	cells := Grid("p", 1, []string{"a"}, []float64{1}, 8)
	slowCell := func(ctx context.Context, _ Cell) ([]Measurement, error) {
		WorkFrom(ctx).Add(1)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(workPoll / 2):
		}
		return []Measurement{{Metric: "m", Value: 1}}, nil
	}
	for _, tc := range []struct {
		name    string
		work    int
		panicAt func(done, total int) bool
	}{
		{"first call", 0, func(done, _ int) bool { return done == 0 }},
		{"after a cell", 0, func(done, _ int) bool { return done == 3 }},
		{"last cell", 0, func(done, total int) bool { return done == total }},
		{"work poller", 100, func(done, total int) bool { return done > 0 && done < total }},
		{"work finish", 100, func(done, total int) bool { return done == total }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var after atomic.Int32
			panicked := false
			progress := func(done, total int) {
				if panicked {
					after.Add(1)
				}
				if tc.panicAt(done, total) {
					panicked = true
					panic("bar broke")
				}
			}
			res, err := Run(context.Background(), cells, slowCell, RunOptions{Workers: 2, Progress: progress, Work: tc.work})
			if !panicked {
				t.Fatalf("the callback did not panic (err %v)", err)
			}
			if err == nil || res != nil {
				t.Fatalf("res %v, err %v: want an error", res, err)
			}
			for _, want := range []string{"progress callback (RunOptions.Progress", "panicked", "bar broke", "fix the callback"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v, want it to say %q", err, want)
				}
			}
			if n := after.Load(); n != 0 {
				t.Errorf("%d calls after the panic", n)
			}
		})
	}
	// The same cells with a callback that does not panic give the rows of
	// a run without one.
	plain, err := Run(context.Background(), cells, slowCell, RunOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	withBar, err := Run(context.Background(), cells, slowCell, RunOptions{Workers: 2, Progress: func(int, int) {}, Work: 8})
	if err != nil || !reflect.DeepEqual(plain, withBar) {
		t.Errorf("rows with a progress callback differ: %v", err)
	}
}

// A panic in Parallel's done callback is that index's error, naming done;
// no further index starts.
func TestParallelDonePanics(t *testing.T) {
	var started atomic.Int32
	err := Parallel(context.Background(), 50, 1, func(context.Context, int) error {
		started.Add(1)
		return nil
	}, func(i int) {
		if i == 2 {
			panic("done broke")
		}
	})
	if err == nil || !strings.Contains(err.Error(), "done callback of Parallel panicked after index 2") || !strings.Contains(err.Error(), "done broke") {
		t.Fatalf("err = %v", err)
	}
	if n := started.Load(); n != 3 {
		t.Errorf("%d indices started, want 3", n)
	}
}
