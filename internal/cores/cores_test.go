package cores

import (
	"context"
	"runtime"
	"testing"
)

// Claim takes at most the idle cores, GOMAXPROCS minus the busy count
// (the caller counting as one when nothing is), and Release gives them
// back.
func TestClaim(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	for _, tc := range []struct {
		name       string
		busy, want int
		claim      int
	}{
		{"nothing counted: the caller is one", 0, 3, 3},
		{"nothing counted, asks fewer", 0, 2, 2},
		{"caller counted", 1, 8, 3},
		{"two busy", 2, 3, 2},
		{"all busy", 4, 3, 0},
		{"oversubscribed", 7, 3, 0},
		{"asks none", 0, 0, 0},
		{"asks a negative number", 0, -2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range tc.busy {
				Enter()
			}
			defer func() {
				for range tc.busy {
					Leave()
				}
			}()
			k := Claim(tc.want)
			if k != tc.claim {
				t.Errorf("Claim(%d) with %d busy of 4 = %d, want %d", tc.want, tc.busy, k, tc.claim)
			}
			if got := Busy(); got != tc.busy+k {
				t.Errorf("busy after the claim %d, want %d", got, tc.busy+k)
			}
			Release(k)
			if got := Busy(); got != tc.busy {
				t.Errorf("busy after Release %d, want %d", got, tc.busy)
			}
		})
	}
}

// Concurrent claims never reserve more helpers than there are idle cores.
func TestClaimConcurrent(t *testing.T) {
	prev := runtime.GOMAXPROCS(8)
	defer runtime.GOMAXPROCS(prev)
	Enter()
	defer Leave()
	got := make(chan int)
	for range 16 {
		go func() { got <- Claim(2) }()
	}
	total := 0
	for range 16 {
		total += <-got
	}
	if total != 7 {
		t.Errorf("16 concurrent Claim(2) with 1 of 8 busy reserved %d helpers, want 7", total)
	}
	Release(total)
	if Busy() != 1 {
		t.Errorf("busy %d after Release, want 1", Busy())
	}
}

func TestCounted(t *testing.T) {
	ctx := context.Background()
	if IsCounted(ctx) {
		t.Error("a plain context is counted")
	}
	c := Counted(ctx)
	if !IsCounted(c) {
		t.Error("Counted(ctx) is not counted")
	}
	if !IsCounted(context.WithValue(c, struct{}{}, 1)) {
		t.Error("a context derived from a counted one is not counted")
	}
}
