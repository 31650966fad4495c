//go:build unix

package release

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/featuredp/featuredp/internal/safefile/swaptest"
)

// A key or model file replaced by a named pipe between the check that it
// is a regular file and its opening does not block LoadPublicKey or Load:
// the file is opened without blocking and its kind checked on the open
// file. Another goroutine swaps the path between a regular file and a
// pipe for 2 s; before, one of the loads blocked for ever within that
// time (opening a pipe without a writer blocks).
func TestLoadPipeSwappedIn(t *testing.T) {
	dir, _, pubPEM := newKeyFile(t, ".pub")
	path := filepath.Join(dir, "swapped")
	swaptest.Swap(t, path, pubPEM)
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		for _, load := range []func(string) error{
			func(p string) error { _, err := LoadPublicKey(p); return err },
			func(p string) error { _, err := Load(p); return err },
		} {
			swaptest.Within(t, 5*time.Second, path, func() { load(path) })
		}
	}
}
