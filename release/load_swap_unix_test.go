//go:build unix

package release

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A key or model file replaced by a named pipe between the check that it
// is a regular file and its opening does not block LoadPublicKey or Load:
// the file is opened without blocking and its kind checked on the open
// file. Another goroutine swaps the path between a regular file and a
// pipe for 2 s; before, one of the loads blocked for ever within that
// time (opening a pipe without a writer blocks).
func TestLoadPipeSwappedIn(t *testing.T) {
	dir, _, pubPEM := newKeyFile(t, ".pub")
	if err := syscall.Mkfifo(filepath.Join(dir, "probe"), 0o600); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	path, regular, fifo := filepath.Join(dir, "swapped"), filepath.Join(dir, "regular"), filepath.Join(dir, "fifo")
	stop, stopped := make(chan struct{}), make(chan struct{})
	defer func() { close(stop); <-stopped }()
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if os.WriteFile(regular, pubPEM, 0o644) == nil {
				os.Rename(regular, path)
			}
			if syscall.Mkfifo(fifo, 0o600) == nil {
				os.Rename(fifo, path)
			}
		}
	}()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		for _, load := range []func(string) error{
			func(p string) error { _, err := LoadPublicKey(p); return err },
			func(p string) error { _, err := Load(p); return err },
		} {
			done := make(chan struct{})
			go func() { load(path); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("a load blocked on a named pipe swapped in after the check (left blocked)")
			}
		}
	}
}
