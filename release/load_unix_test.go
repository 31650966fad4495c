//go:build unix

package release

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Load refuses a named pipe before opening it (opening one without a
// writer would block forever).
func TestLoadNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "model.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipe here: %v", err)
	}
	if _, err := Load(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Load of a named pipe: %v", err)
	}
}
