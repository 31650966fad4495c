package models

import (
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/featuredp/featuredp/internal/cores"
)

// The block gradients have the same bits whatever GOMAXPROCS is: the
// lane groups run in parallel, but every sum has one owner and one
// order: LogisticBlock runs its lanes in wide
// groups at GOMAXPROCS=1 and in narrow groups over every core at 2 and 7
// (checked: the test runs alone, so no core is counted busy), and every
// result, of the kernel in use and of the portable one, is compared with
// the first.
func TestBlockGradSumsWorkers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lanes int
		grad  func(t *testing.T, lanes int) (outs [][]float64, run func())
	}{
		{"logistic dense, one lane", 1, logisticWorkersCase(false)},
		{"logistic dense, 16 lanes", 16, logisticWorkersCase(false)},
		{"logistic patterns, 3 lanes", 3, logisticWorkersCase(true)},
		{"logistic patterns, 21 lanes", 21, logisticWorkersCase(true)},
		{"mlp, 13 lanes", 13, func(t *testing.T, lanes int) ([][]float64, func()) {
			m, data := mlpBlockSetup(t, 700, 5, 6)
			b, err := NewMLPBlock(m, data)
			if err != nil {
				t.Fatal(err)
			}
			th := blockTestThetas(lanes, m.NumParams(), 0.5, 3)
			outs := blockTestThetas(lanes, m.NumParams(), 0, 0)
			return outs, func() {
				if err := b.GradSums(th, outs); err != nil {
					t.Fatal(err)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outs, run := tc.grad(t, tc.lanes)
			var want [][]float64
			saved := logisticBlockKernel
			defer func() { logisticBlockKernel = saved }()
			for _, k := range []struct {
				name string
				k    logisticKernel
			}{{"in use", saved}, {"portable", logisticPortable}} {
				logisticBlockKernel = k.k
				for _, procs := range []int{1, 2, 7} {
					prev := runtime.GOMAXPROCS(procs)
					run()
					runtime.GOMAXPROCS(prev)
					if want == nil {
						want = copyRows(outs)
						continue
					}
					for r := range outs {
						for j, v := range outs[r] {
							if math.Float64bits(v) != math.Float64bits(want[r][j]) {
								t.Fatalf("%s kernels, GOMAXPROCS=%d lane %d coord %d: %.17g, kernels in use with 1: %.17g", k.name, procs, r, j, v, want[r][j])
							}
						}
					}
				}
			}
		})
	}
}

// workersRows is the number of rows of the worker tests (odd: the SIMD
// kernels' last row goes through their tail code).
const workersRows = 3001

// logisticWorkersCase returns a LogisticBlock case over workersRows rows,
// with binary patterns or every column continuous.
func logisticWorkersCase(patterns bool) func(t *testing.T, lanes int) ([][]float64, func()) {
	return func(t *testing.T, lanes int) ([][]float64, func()) {
		d := 9
		data := blockTestData(t, workersRows, d, 21)
		if !patterns {
			for i := range data.X {
				if i%3 == 0 {
					data.X[i] += 0.5
				}
			}
		}
		m, _ := NewLogistic(d, true, 0.01)
		b, err := NewLogisticBlock(m, data)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(b.bin) > 0; got != patterns {
			t.Fatalf("pattern path %v, want %v", got, patterns)
		}
		th := blockTestThetas(lanes, m.NumParams(), 1, 4)
		outs := blockTestThetas(lanes, m.NumParams(), 0, 0)
		return outs, func() {
			if err := b.GradSums(th, outs); err != nil {
				t.Fatal(err)
			}
			procs, want := runtime.GOMAXPROCS(0), 1
			if lanes > blockLanesSmall {
				want = min(procs, (lanes+blockLanesSmall-1)/blockLanesSmall)
			}
			if b.lastWorkers != want {
				t.Fatalf("GOMAXPROCS=%d, %d lanes, nothing else busy: %d goroutines, want %d", procs, lanes, b.lastWorkers, want)
			}
		}
	}
}

func copyRows(a [][]float64) [][]float64 {
	c := make([][]float64, len(a))
	for i := range a {
		c[i] = append([]float64(nil), a[i]...)
	}
	return c
}

// LogisticBlock runs its lane groups in parallel only on the cores left
// idle by counted workers (internal/cores): with every core of four busy
// it runs one wide group on its caller, with fewer it takes the idle ones
// and narrow groups, and the bits are the same on every path. The busy
// count is 0 when the test starts (no pool runs in this package) and
// restored after each case.
func TestLogisticBlockUsesIdleCores(t *testing.T) {
	d := 9
	data := blockTestData(t, workersRows, d, 21)
	m, _ := NewLogistic(d, true, 0.01)
	b, err := NewLogisticBlock(m, data)
	if err != nil {
		t.Fatal(err)
	}
	th := blockTestThetas(16, m.NumParams(), 1, 4)
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	if n := cores.Busy(); n != 0 {
		t.Fatalf("%d goroutines counted busy before the test", n)
	}
	var want [][]float64
	for _, tc := range []struct{ busy, workers, groups int }{
		{0, 4, 4}, {1, 4, 4}, {2, 3, 4}, {3, 2, 4}, {4, 1, 1}, {6, 1, 1},
	} {
		for range tc.busy {
			cores.Enter()
		}
		outs := blockTestThetas(16, m.NumParams(), 0, 0)
		err := b.GradSums(th, outs)
		for range tc.busy {
			cores.Leave()
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.lastWorkers != tc.workers || len(b.groups) != tc.groups {
			t.Errorf("%d of 4 cores busy: %d groups on %d goroutines, want %d on %d", tc.busy, len(b.groups), b.lastWorkers, tc.groups, tc.workers)
		}
		if n := cores.Busy(); n != 0 {
			t.Fatalf("%d of 4 cores busy: %d still counted after GradSums (helpers not released)", tc.busy, n)
		}
		if want == nil {
			want = outs
			continue
		}
		for r := range outs {
			for j, v := range outs[r] {
				if math.Float64bits(v) != math.Float64bits(want[r][j]) {
					t.Fatalf("%d of 4 cores busy: lane %d coord %d: %.17g, with none busy %.17g", tc.busy, r, j, v, want[r][j])
				}
			}
		}
	}
}

// laneGroups covers every lane once, in order, with n ≤ L ∈ {4, 16}, and
// takes narrow groups exactly when wide ones would leave a goroutine idle.
func TestLaneGroups(t *testing.T) {
	for _, tc := range []struct {
		r, w int
		want []laneGroup
	}{
		{1, 1, []laneGroup{{0, 1, 4}}},
		{1, 2, []laneGroup{{0, 1, 4}}},
		{4, 2, []laneGroup{{0, 4, 4}}},
		{5, 1, []laneGroup{{0, 5, 16}}},
		{6, 2, []laneGroup{{0, 4, 4}, {4, 2, 4}}},
		{16, 1, []laneGroup{{0, 16, 16}}},
		{16, 2, []laneGroup{{0, 4, 4}, {4, 4, 4}, {8, 4, 4}, {12, 4, 4}}},
		{20, 1, []laneGroup{{0, 16, 16}, {16, 4, 4}}},
		{21, 2, []laneGroup{{0, 16, 16}, {16, 5, 16}}},
		{32, 2, []laneGroup{{0, 16, 16}, {16, 16, 16}}},
		{33, 2, []laneGroup{{0, 16, 16}, {16, 16, 16}, {32, 1, 4}}},
		{9, 3, []laneGroup{{0, 4, 4}, {4, 4, 4}, {8, 1, 4}}},
	} {
		if got := laneGroups(nil, tc.r, tc.w); !slices.Equal(got, tc.want) {
			t.Errorf("laneGroups(%d, %d) = %v, want %v", tc.r, tc.w, got, tc.want)
		}
	}
}
