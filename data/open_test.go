package data

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/featuredp/featuredp/internal/safefile/swaptest"
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
		var err error
		swaptest.Within(t, 10*time.Second, fifo, func() { err = read() })
		if err == nil || !strings.Contains(err.Error(), fifo+" is not a regular file") {
			t.Errorf("%s: %v, want a refusal naming %s", name, err, fifo)
		}
	}
}
