package data

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The readers of dataset files open them as regular files only: a named
// pipe put where Fetch or Locate found a file (after their check) is
// refused at once, naming it. On the old code each opened the pipe and
// blocked for ever (this test timed out).
func TestDatasetReadersRefusePipes(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "adult.data")
	if err := makeFifo(fifo); err != nil {
		t.Skip(err)
	}
	for name, read := range map[string]func() error{
		"checksum": func() error { _, err := fileSHA256(fifo); return err },
		"IDX":      func() error { _, err := readIDXPath(fifo, 0x803); return err },
		"CSV":      func() error { _, err := readFile(fifo, CSVOptions{}); return err },
	} {
		done := make(chan error, 1)
		go func() { done <- read() }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), fifo+" is not a regular file") {
				t.Errorf("%s: %v, want a refusal naming %s", name, err, fifo)
			}
		case <-time.After(10 * time.Second):
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
			t.Fatalf("%s blocked on the named pipe", name)
		}
	}
}
