package experiments

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// Parallel calls f once per index for any worker count, and returns the
// error of the lowest failing index whatever the timing.
func TestParallel(t *testing.T) {
	for _, n := range []int{0, 1, 7, 100} {
		for _, w := range []int{0, 1, 3} {
			got := make([]int, n)
			var done atomic.Int32
			if err := Parallel(context.Background(), n, w, func(_ context.Context, i int) error { got[i] += i + 1; return nil }, func(int) { done.Add(1) }); err != nil {
				t.Fatalf("n=%d w=%d: %v", n, w, err)
			}
			for i, v := range got {
				if v != i+1 {
					t.Fatalf("n=%d w=%d: index %d called to %d", n, w, i, v)
				}
			}
			if int(done.Load()) != n {
				t.Fatalf("n=%d w=%d: done called %d times", n, w, done.Load())
			}
		}
	}
	for range 20 {
		err := Parallel(context.Background(), 50, 4, func(_ context.Context, i int) error {
			if i%7 == 3 {
				return fmt.Errorf("bad %d", i)
			}
			return nil
		}, nil)
		if err == nil || err.Error() != "bad 3" {
			t.Fatalf("error %v, want the lowest failing index (bad 3)", err)
		}
	}
	err := Parallel(context.Background(), 3, 2, func(_ context.Context, i int) error {
		if i == 1 {
			panic("boom")
		}
		return nil
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "panic: boom") {
		t.Errorf("panic not reported: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Parallel(ctx, 5, 2, func(context.Context, int) error { return nil }, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// Memo computes a key once, never caches failures, stays bounded, and a
// nil Memo computes every time.
func TestMemo(t *testing.T) {
	m := NewMemo(2)
	calls := 0
	f := func() (any, error) { calls++; return calls, nil }
	for range 3 {
		if v, err := m.Do("a", f); err != nil || v.(int) != 1 {
			t.Fatalf("a = %v, %v", v, err)
		}
	}
	fails := 0
	bad := func() (any, error) { fails++; return nil, errors.New("no") }
	m.Do("b", bad)
	m.Do("b", bad)
	if fails != 2 {
		t.Errorf("a failure was cached (%d calls)", fails)
	}
	m.Do("c", f)
	m.Do("d", f)
	if m.Len() != 2 {
		t.Errorf("memo holds %d entries, bound 2", m.Len())
	}
	var nilMemo *Memo
	n := 0
	for range 2 {
		nilMemo.Do("x", func() (any, error) { n++; return n, nil })
	}
	if n != 2 || nilMemo.Len() != 0 {
		t.Errorf("nil memo cached (%d calls)", n)
	}
}

// Numeric extras are written like the core floats, read back by Number, and
// may not collide with a label or a core column.
func TestNumericExtras(t *testing.T) {
	cells := []Cell{{Method: "m", X: 1, Seed: 7}}
	a, b := 0.1, 0.2
	res, err := Run(context.Background(), cells, func(context.Context, Cell) ([]Measurement, error) {
		return []Measurement{{Metric: "eps", Value: 1, Num: map[string]float64{"z": a + b}, Extra: map[string]string{"mode": "a"}}}, nil
	}, RunOptions{Figure: "f"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := res.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	want := "figure,method,x,seed,metric,value,mode,z\nf,m,1,7,eps,1,a,0.30000000000000004\n"
	if buf.String() != want {
		t.Errorf("CSV %q, want %q", buf.String(), want)
	}
	back, err := ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := back.Rows[0].Number("z"); !ok || v != a+b {
		t.Errorf("Number(z) = %v, %v", v, ok)
	}
	for _, m := range []Measurement{
		{Metric: "e", Num: map[string]float64{"x": 1}},
		{Metric: "e", Num: map[string]float64{"k": 1}, Extra: map[string]string{"k": "v"}},
	} {
		if _, err := Run(context.Background(), cells, func(context.Context, Cell) ([]Measurement, error) { return []Measurement{m}, nil }, RunOptions{}); err == nil {
			t.Errorf("measurement %+v: want an error", m)
		}
	}
}
