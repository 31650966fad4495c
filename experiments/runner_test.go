package experiments

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// noisyCell draws from the cell's own seed, sleeps a seed-dependent time so
// that completion order differs from cell order, and returns two metrics.
func noisyCell(_ context.Context, c Cell) ([]Measurement, error) {
	rng := rand.New(rand.NewPCG(c.Seed, 0x9e3779b97f4a7c15))
	sum := 0.0
	for i := 0; i < 100; i++ {
		sum += rng.NormFloat64()
	}
	time.Sleep(time.Duration(c.Seed%200) * time.Microsecond)
	return []Measurement{
		{Metric: "sum", Value: sum},
		{Metric: "first", Value: rng.Float64(), Extra: map[string]string{"tag": c.Method}},
	}, nil
}

func testCells() []Cell {
	return Grid("test-fig", 7, []string{"a", "b", "c"}, []float64{0.5, 1, 2, 4}, 5)
}

func TestRunDeterministicAcrossWorkers(t *testing.T) {
	cells := testCells()
	var got []*Results
	for _, w := range []int{1, 4, 0} {
		res, err := Run(context.Background(), cells, noisyCell, RunOptions{Workers: w, Figure: "test-fig"})
		if err != nil {
			t.Fatalf("workers=%d: %v", w, err)
		}
		got = append(got, res)
	}
	if len(got[0].Rows) != 2*len(cells) {
		t.Fatalf("got %d rows, want %d", len(got[0].Rows), 2*len(cells))
	}
	for i := 1; i < len(got); i++ {
		if !reflect.DeepEqual(got[0], got[i]) {
			t.Fatalf("results with workers=1 and run %d differ", i)
		}
	}
	// Rows come in cell order.
	for i, c := range cells {
		r := got[0].Rows[2*i]
		if r.Method != c.Method || r.X != c.X || r.Seed != c.Seed || r.Metric != "sum" || r.Figure != "test-fig" {
			t.Fatalf("row %d = %+v does not match cell %+v", 2*i, r, c)
		}
	}
}

func TestRunProgress(t *testing.T) {
	cells := testCells()
	var (
		calls    []int
		inFlight atomic.Int32
		overlap  atomic.Bool
	)
	_, err := Run(context.Background(), cells, noisyCell, RunOptions{Workers: 4, Progress: func(done, total int) {
		if inFlight.Add(1) > 1 {
			overlap.Store(true)
		}
		if total != len(cells) {
			t.Errorf("total = %d, want %d", total, len(cells))
		}
		calls = append(calls, done)
		inFlight.Add(-1)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if overlap.Load() {
		t.Error("progress callback was called concurrently")
	}
	if len(calls) != len(cells)+1 {
		t.Fatalf("progress called %d times, want %d", len(calls), len(cells)+1)
	}
	for i, d := range calls {
		if d != i {
			t.Fatalf("progress call %d reported done=%d", i, d)
		}
	}
}

func TestRunErrorPropagation(t *testing.T) {
	cells := Grid("f", 1, []string{"ok", "bad"}, []float64{1, 2, 3}, 20)
	var started atomic.Int32
	fn := func(ctx context.Context, c Cell) ([]Measurement, error) {
		started.Add(1)
		if c.Method == "bad" && c.X == 2 && c.Rep == 0 {
			return nil, errors.New("boom")
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Millisecond):
		}
		return []Measurement{{Metric: "m", Value: 1}}, nil
	}
	for _, w := range []int{1, 3} {
		started.Store(0)
		_, err := Run(context.Background(), cells, fn, RunOptions{Workers: w})
		if err == nil {
			t.Fatalf("workers=%d: expected an error", w)
		}
		msg := err.Error()
		for _, want := range []string{"boom", `method "bad"`, "x=2", "seed="} {
			if !strings.Contains(msg, want) {
				t.Errorf("workers=%d: error %q does not mention %q", w, msg, want)
			}
		}
		if errors.Is(err, context.Canceled) {
			t.Errorf("workers=%d: error should be the cell's error, not the cancellation: %v", w, err)
		}
		if int(started.Load()) >= len(cells) {
			t.Errorf("workers=%d: all %d cells started despite the error", w, started.Load())
		}
	}
}

func TestRunCancellation(t *testing.T) {
	cells := Grid("f", 1, []string{"m"}, []float64{1}, 1000)
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	fn := func(ctx context.Context, c Cell) ([]Measurement, error) {
		if c.Rep == 10 {
			once.Do(cancel)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
		return []Measurement{{Metric: "m", Value: 1}}, nil
	}
	start := time.Now()
	res, err := Run(ctx, cells, fn, RunOptions{Workers: 2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res != nil {
		t.Error("results should be nil on cancellation")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Run took %v after cancellation", d)
	}
	// Already-cancelled context: no cell runs.
	ran := false
	_, err = Run(ctx, cells, func(context.Context, Cell) ([]Measurement, error) { ran = true; return nil, nil }, RunOptions{})
	if !errors.Is(err, context.Canceled) || ran {
		t.Errorf("cancelled context: err=%v ran=%v", err, ran)
	}
}

func TestRunInvalidMeasurements(t *testing.T) {
	cases := []struct {
		name string
		m    Measurement
		want string
	}{
		{"empty metric", Measurement{Value: 1}, "empty metric"},
		{"reserved extra", Measurement{Metric: "m", Extra: map[string]string{"value": "x"}}, "reserved"},
		{"empty extra name", Measurement{Metric: "m", Extra: map[string]string{"": "x"}}, "reserved"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(context.Background(), []Cell{{Method: "m"}}, func(context.Context, Cell) ([]Measurement, error) {
				return []Measurement{tc.m}, nil
			}, RunOptions{Workers: 1})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want mention of %q", err, tc.want)
			}
		})
	}
}

func TestRunRecoversPanic(t *testing.T) {
	_, err := Run(context.Background(), Grid("f", 1, []string{"m"}, []float64{1}, 3), func(_ context.Context, c Cell) ([]Measurement, error) {
		if c.Rep == 1 {
			var m map[string]int
			m["x"] = 1 // nil map write panics
		}
		return []Measurement{{Metric: "v"}}, nil
	}, RunOptions{Workers: 2})
	if err == nil || !strings.Contains(err.Error(), "panic: assignment to entry in nil map") || !strings.Contains(err.Error(), `method "m"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestRunEmptyAndNil(t *testing.T) {
	res, err := Run(context.Background(), nil, noisyCell, RunOptions{})
	if err != nil || len(res.Rows) != 0 {
		t.Fatalf("empty run: res=%v err=%v", res, err)
	}
	if _, err := Run(context.Background(), nil, nil, RunOptions{}); err == nil {
		t.Fatal("nil function: expected an error")
	}
}

func TestRunDropsEmptyExtras(t *testing.T) {
	res, err := Run(context.Background(), []Cell{{Method: "m"}}, func(context.Context, Cell) ([]Measurement, error) {
		return []Measurement{{Metric: "m", Extra: map[string]string{"a": "", "b": "1"}}}, nil
	}, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"b": "1"}; !reflect.DeepEqual(res.Rows[0].Extra, want) {
		t.Fatalf("extra = %v, want %v", res.Rows[0].Extra, want)
	}
}

func BenchmarkRun(b *testing.B) {
	cells := Grid("bench", 1, []string{"m"}, []float64{1}, 1000)
	fn := func(_ context.Context, c Cell) ([]Measurement, error) {
		return []Measurement{{Metric: "v", Value: float64(c.Seed & 0xff)}}, nil
	}
	for _, w := range []int{1, 2} {
		b.Run(map[int]string{1: "workers=1", 2: "workers=2"}[w], func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Run(context.Background(), cells, fn, RunOptions{Workers: w}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A negative number of workers is an error naming the field and the
// values that work, and no cell runs (it meant runtime.NumCPU() before).
func TestNegativeWorkers(t *testing.T) {
	var ran atomic.Int32
	fn := func(context.Context, Cell) ([]Measurement, error) {
		ran.Add(1)
		return []Measurement{{Metric: "m", Value: 1}}, nil
	}
	fig := Figure{ID: "x-w", Paper: "x", Cells: func(Profile) ([]Cell, error) { return testCells(), nil },
		Run: func(ctx context.Context, c Cell, _ Env) ([]Measurement, error) { return fn(ctx, c) }}
	for _, tc := range []struct {
		name, field string
		run         func() error
	}{
		{"Run", "RunOptions.Workers is -1", func() error {
			_, err := Run(context.Background(), testCells(), fn, RunOptions{Workers: -1})
			return err
		}},
		{"Execute", "Env.Workers is -2", func() error {
			_, err := fig.Execute(context.Background(), Quick, Env{Workers: -2}, nil)
			return err
		}},
		{"ExecuteShard", "Env.Workers is -3", func() error {
			_, err := fig.ExecuteShard(context.Background(), Quick, Env{Workers: -3}, Shard{1, 2}, nil)
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			if err == nil || !strings.Contains(err.Error(), tc.field) || !strings.Contains(err.Error(), "or 0 for one per CPU") {
				t.Errorf("err = %v, want one naming %q and the fix", err, tc.field)
			}
		})
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("%d cells ran", n)
	}
	for _, w := range []int{0, 1, 3} {
		if _, err := Run(context.Background(), testCells(), fn, RunOptions{Workers: w}); err != nil {
			t.Errorf("Workers %d: %v", w, err)
		}
	}
}
