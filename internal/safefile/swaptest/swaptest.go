// Package swaptest helps test opens that must not race: it changes what a
// path names again and again while the code under test opens it, and
// fails a test whose call blocks.
package swaptest

import (
	"os"
	"sync"
	"testing"
	"time"
)

// Loop calls fn again and again in another goroutine until stop is called
// or the test ends; stop waits for the last call to return.
func Loop(t testing.TB, fn func()) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			default:
				fn()
			}
		}
	}()
	var once sync.Once
	stop = func() { once.Do(func() { close(quit); <-done }) }
	t.Cleanup(stop)
	return stop
}

// Swap puts at path, in turn and until the test ends, a regular file
// holding content and a named pipe, each moved into place by a rename (so
// path always names one or the other). It skips the test where named
// pipes cannot be made.
func Swap(t testing.TB, path string, content []byte) {
	t.Helper()
	regular, pipe := path+".regular", path+".pipe"
	if err := mkfifo(pipe); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	os.Remove(pipe)
	Loop(t, func() {
		if os.WriteFile(regular, content, 0o644) == nil {
			os.Rename(regular, path)
		}
		if mkfifo(pipe) == nil {
			os.Rename(pipe, path)
		}
	})
}

// Within runs fn and fails the test if it has not returned after d (an
// open of a named pipe without a writer blocks for ever); pipe is then
// opened for writing without blocking, so that an open blocked on it may
// end.
func Within(t testing.TB, d time.Duration, pipe string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		if f, err := os.OpenFile(pipe, os.O_WRONLY|nonBlock, 0); err == nil {
			f.Close()
		}
		t.Fatalf("blocked on the named pipe %s for %v", pipe, d)
	}
}
