package eta

import (
	"runtime"
	"testing"
	"time"
)

func TestLeft(t *testing.T) {
	for _, tc := range []struct {
		elapsed     time.Duration
		done, total int
		want        time.Duration
		ok          bool
	}{
		{10 * time.Second, 1, 4, 30 * time.Second, true},
		{60 * time.Second, 30, 40, 20 * time.Second, true},
		{10 * time.Second, 0, 4, 0, false},
		{10 * time.Second, 4, 4, 0, false},
		{0, 1, 4, 0, false},
	} {
		got, ok := Left(tc.elapsed, tc.done, tc.total)
		if got != tc.want || ok != tc.ok {
			t.Errorf("Left(%v, %d, %d) = %v, %v; want %v, %v", tc.elapsed, tc.done, tc.total, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFormatAndStatus(t *testing.T) {
	for d, want := range map[time.Duration]string{
		42 * time.Second: "42s", 187 * time.Second: "3m07s", 65 * time.Minute: "1h05m", 1400 * time.Millisecond: "1s",
	} {
		if got := Format(d); got != want {
			t.Errorf("Format(%v) = %q, want %q", d, got, want)
		}
	}
	if got := Status(10*time.Second, 1, 4); got != "elapsed 10s, about 30s left" {
		t.Errorf("Status: %q", got)
	}
	if got := Status(10*time.Second, 0, 4); got != "elapsed 10s" {
		t.Errorf("Status before the first cell: %q", got)
	}
}

// A run whose units start after a 60 s setup, then one unit a second:
// Status takes the setup for the pace (100 units left at 80 s per 20
// units: 6m40s), Pace the units since the first report (100 s).
func TestPaceAfterSetup(t *testing.T) {
	var p Pace
	for _, tc := range []struct {
		elapsed     time.Duration
		done, total int
		want        string
	}{
		{10 * time.Second, 0, 120, "elapsed 10s"},
		{61 * time.Second, 1, 120, "elapsed 1m01s, about 2h00m left"}, // one report: Status's estimate
		{80 * time.Second, 20, 120, "elapsed 1m20s, about 1m40s left"},
		{140 * time.Second, 80, 120, "elapsed 2m20s, about 40s left"},
		{180 * time.Second, 120, 120, "elapsed 3m00s"},
	} {
		if got := p.Status(tc.elapsed, tc.done, tc.total); got != tc.want {
			t.Errorf("Status(%v, %d, %d) = %q, want %q", tc.elapsed, tc.done, tc.total, got, tc.want)
		}
	}
	if got := Status(80*time.Second, 20, 120); got != "elapsed 1m20s, about 6m40s left" {
		t.Errorf("Status after the setup: %q", got)
	}
}

// Cells of two workers whose first cells wait for a 60 s setup and then
// finish together at 61 s; afterwards a cell every 0.5 s. With After = 2
// the pace is from the second cell: exact from the third on. From the
// first cell (After ≤ 1) the second, which ran during the setup, looks
// free; Status counts the setup as cell time.
func TestPaceAfterWorkers(t *testing.T) {
	at := func(done int) time.Duration {
		return 61*time.Second + time.Duration(max(done-2, 0))*500*time.Millisecond
	}
	for _, tc := range []struct {
		after, done int
		want        string
	}{
		{2, 1, "elapsed 1m01s, about 1h40m left"},  // before the reference: Status's estimate
		{2, 2, "elapsed 1m01s, about 49m49s left"}, // at it too
		{2, 10, "elapsed 1m05s, about 45s left"},   // 90 cells at 0.5 s
		{2, 50, "elapsed 1m25s, about 25s left"},
		{0, 3, "elapsed 1m02s, about 24s left"}, // the pace of the first cell: 2 cells in 0.5 s
	} {
		p := Pace{After: tc.after}
		for d := 1; d <= tc.done; d++ {
			got := p.Status(at(d), d, 100)
			if d == tc.done && got != tc.want {
				t.Errorf("After %d: Status at %d cells = %q, want %q", tc.after, d, got, tc.want)
			}
		}
	}
	if got := Status(at(10), 10, 100); got != "elapsed 1m05s, about 9m45s left" {
		t.Errorf("Status after the setup: %q", got)
	}
}

// TestForUnits checks the Pace of each unit: cells wait for the workers'
// first cells (all cores when workers ≤ 0), finer units for none.
func TestForUnits(t *testing.T) {
	for _, tc := range []struct {
		unit    string
		workers int
		want    int
	}{
		{"cells", 4, 4},
		{"cells", 1, 1},
		{"cells", 0, runtime.NumCPU()},
		{"cells", -3, runtime.NumCPU()},
		{"steps", 4, 1},
		{"examples", 0, 1},
	} {
		if got := ForUnits(tc.unit, tc.workers); got.After != tc.want {
			t.Errorf("ForUnits(%q, %d).After = %d, want %d", tc.unit, tc.workers, got.After, tc.want)
		}
	}
}
