package models

import (
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/featuredp/featuredp/design"
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
		{"logistic dense, one lane", 1, logisticWorkersCase(denseCase)},
		{"logistic dense, 16 lanes", 16, logisticWorkersCase(denseCase)},
		{"logistic patterns, 3 lanes", 3, logisticWorkersCase(patternCase)},
		{"logistic patterns, 21 lanes", 21, logisticWorkersCase(patternCase)},
		{"logistic rows split, one lane", 1, logisticWorkersCase(rowsCase)},
		{"logistic rows split, 16 lanes", 16, logisticWorkersCase(rowsCase)},
		{"logistic rows split, 17 lanes", 17, logisticWorkersCase(rowsCase)},
		{"logistic patterns, rows split forced, 16 lanes", 16, logisticWorkersCase(patternRowsCase)},
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
				k    logisticKernels
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

// The data of the LogisticBlock worker tests: denseCase every column
// continuous, patternCase binary columns with few patterns, rowsCase
// every column continuous and rows enough for the row split
// (4·splitChunk + 1001 rows: chunks that do not divide the rows),
// patternRowsCase binary patterns, as many rows, and the row split
// forced (GradSums does not choose it there, BenchmarkLogisticBlockRowSplit
// does).
const (
	denseCase = iota
	patternCase
	rowsCase
	patternRowsCase
)

// logisticWorkersCase returns a LogisticBlock case of the given kind; its
// run checks the number of goroutines the call used.
func logisticWorkersCase(kind int) func(t *testing.T, lanes int) ([][]float64, func()) {
	return func(t *testing.T, lanes int) ([][]float64, func()) {
		n, d, patterns := workersRows, 9, kind == patternCase || kind == patternRowsCase
		if kind == rowsCase || kind == patternRowsCase {
			n = 4*splitChunk + 1001
		}
		data := blockTestData(t, n, d, 21)
		if !patterns {
			data = blockDenseData(t, n, d, 21)
		}
		m, _ := NewLogistic(d, true, 0.01)
		b, err := NewLogisticBlock(m, data)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(b.bin) > 0; got != patterns {
			t.Fatalf("pattern path %v, want %v", got, patterns)
		}
		if b.splitRows != (kind == rowsCase) {
			t.Fatalf("rows split %v, want %v", b.splitRows, kind == rowsCase)
		}
		b.splitRows = kind == rowsCase || kind == patternRowsCase
		th := blockTestThetas(lanes, m.NumParams(), 1, 4)
		outs := blockTestThetas(lanes, m.NumParams(), 0, 0)
		return outs, func() {
			if err := b.GradSums(th, outs); err != nil {
				t.Fatal(err)
			}
			procs, want := runtime.GOMAXPROCS(0), 1
			switch {
			case b.splitRows && procs > 1 && (lanes+blockLanes-1)/blockLanes < procs:
				want = procs
			case lanes > blockLanesSmall:
				want = min(procs, len(laneGroups(nil, lanes, procs, false)))
			}
			if b.lastWorkers != want {
				t.Fatalf("GOMAXPROCS=%d, %d lanes, nothing else busy: %d goroutines, want %d", procs, lanes, b.lastWorkers, want)
			}
		}
	}
}

// blockDenseData is blockTestData with every column continuous (its
// 0/1 entries shifted by 0.5).
func blockDenseData(t testing.TB, n, d int, seed uint64) *design.Data {
	data := blockTestData(t, n, d, seed)
	for i := range data.X {
		if i%3 == 0 {
			data.X[i] += 0.5
		}
	}
	return data
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
// and narrow groups (or, on wide data, one wide group split by rows), and
// the bits are the same on every path. The busy count is 0 when the test
// starts (no pool runs in this package) and restored after each case.
func TestLogisticBlockUsesIdleCores(t *testing.T) {
	for _, kind := range []struct {
		name  string
		data  func(t testing.TB, n, d int, seed uint64) *design.Data
		n     int
		table []struct{ busy, workers, groups int }
	}{
		{"patterns: narrow groups", blockTestData, workersRows, []struct{ busy, workers, groups int }{
			{0, 4, 4}, {1, 4, 4}, {2, 3, 4}, {3, 2, 4}, {4, 1, 1}, {6, 1, 1}}},
		{"no patterns: rows split", blockDenseData, 4*splitChunk + 1001, []struct{ busy, workers, groups int }{
			{0, 4, 1}, {1, 4, 1}, {2, 3, 1}, {3, 2, 1}, {4, 1, 1}, {6, 1, 1}}},
	} {
		t.Run(kind.name, func(t *testing.T) {
			d := 9
			data := kind.data(t, kind.n, d, 21)
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
			for _, tc := range kind.table {
				outs := gradSumsBusy(t, b, th, tc.busy)
				if b.lastWorkers != tc.workers || len(b.groups) != tc.groups {
					t.Errorf("%d of 4 cores busy: %d groups on %d goroutines, want %d on %d", tc.busy, len(b.groups), b.lastWorkers, tc.groups, tc.workers)
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
		})
	}
}

// gradSumsBusy runs b.GradSums(th, ·) with busy goroutines counted busy
// and returns the sums; it fails t if the call leaves a helper counted.
func gradSumsBusy(t *testing.T, b *LogisticBlock, th [][]float64, busy int) [][]float64 {
	t.Helper()
	outs := blockTestThetas(len(th), b.m.NumParams(), 0, 0)
	for range busy {
		cores.Enter()
	}
	err := b.GradSums(th, outs)
	for range busy {
		cores.Leave()
	}
	if err != nil {
		t.Fatal(err)
	}
	if n := cores.Busy(); n != 0 {
		t.Fatalf("%d of 4 cores busy: %d still counted after GradSums (helpers not released)", busy, n)
	}
	return outs
}

// laneGroups covers every lane once, in order, with n ≤ L ∈ {4, 16}, and
// takes narrow groups exactly when wide ones would leave a goroutine idle
// and the rows are not split.
func TestLaneGroups(t *testing.T) {
	for _, tc := range []struct {
		r, w  int
		split bool
		want  []laneGroup
	}{
		{1, 1, false, []laneGroup{{0, 1, 4}}},
		{1, 2, false, []laneGroup{{0, 1, 4}}},
		{4, 2, false, []laneGroup{{0, 4, 4}}},
		{5, 1, false, []laneGroup{{0, 5, 16}}},
		{6, 2, false, []laneGroup{{0, 4, 4}, {4, 2, 4}}},
		{16, 1, false, []laneGroup{{0, 16, 16}}},
		{16, 2, false, []laneGroup{{0, 4, 4}, {4, 4, 4}, {8, 4, 4}, {12, 4, 4}}},
		{20, 1, false, []laneGroup{{0, 16, 16}, {16, 4, 4}}},
		{21, 2, false, []laneGroup{{0, 16, 16}, {16, 5, 16}}},
		{32, 2, false, []laneGroup{{0, 16, 16}, {16, 16, 16}}},
		{33, 2, false, []laneGroup{{0, 16, 16}, {16, 16, 16}, {32, 1, 4}}},
		{9, 3, false, []laneGroup{{0, 4, 4}, {4, 4, 4}, {8, 1, 4}}},
		{1, 2, true, []laneGroup{{0, 1, 4}}},
		{16, 2, true, []laneGroup{{0, 16, 16}}},
		{21, 3, true, []laneGroup{{0, 16, 16}, {16, 5, 16}}},
	} {
		if got := laneGroups(nil, tc.r, tc.w, tc.split); !slices.Equal(got, tc.want) {
			t.Errorf("laneGroups(%d, %d, %v) = %v, want %v", tc.r, tc.w, tc.split, got, tc.want)
		}
	}
}
