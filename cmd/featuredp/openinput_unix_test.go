//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/featuredp/featuredp/data"
)

// within runs fn and fails the test if it does not return within 10 s; a
// named pipe at pipe is then given a writer so that the blocked open may
// end.
func within(t *testing.T, pipe string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { fn(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		if f, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatalf("blocked on the named pipe %s", pipe)
	}
}

// Every input file of the CLI is opened as a regular file only: a named
// pipe at --csv (report, predict) or --ledger, or a symbolic link to one
// (train), is refused by name with the fix, at once. On the old code
// report, predict and epsilon --ledger opened the pipe and blocked for
// ever (this test timed out).
func TestInputsRefuseNamedPipes(t *testing.T) {
	dir := t.TempDir()
	fifo, link := filepath.Join(dir, "in.fifo"), filepath.Join(dir, "link.csv")
	mkfifo(t, fifo)
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	model, _ := releaseFixture(t)
	for _, tc := range []struct {
		name string
		args []string
		path string
	}{
		{"report --csv", []string{"report", "--csv", fifo, "--sensitive", "sex", "--label", "y"}, fifo},
		{"predict --csv", []string{"predict", "--model", model, "--csv", link}, link},
		{"epsilon --ledger", []string{"epsilon", "--ledger", fifo, "--delta", "1e-5"}, fifo},
		{"train --csv link", trainArgs(link, filepath.Join(dir, "m.json")), link},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var code int
			var errs string
			within(t, fifo, func() { code, _, errs = runReproduceCLI(tc.args...) })
			if code == 0 || !strings.Contains(errs, tc.path+" is not a regular file") || !strings.Contains(errs, "save the data to a file") {
				t.Errorf("code %d, stderr %q: want a refusal naming %s and the fix", code, errs, tc.path)
			}
		})
	}
}

// A named pipe swapped in for the regular file at any moment never blocks
// train's header read, report's read, predict's open or the ledger read:
// each checks the kind on the file it opened without blocking. The old
// train code stat'ed --csv and then opened it, so a pipe swapped in
// between blocked it for ever; the others opened a pipe outright.
func TestInputSwappedForPipe(t *testing.T) {
	dir := t.TempDir()
	path, regular, pipe := filepath.Join(dir, "in.csv"), filepath.Join(dir, "regular"), filepath.Join(dir, "pipe")
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
			if os.WriteFile(regular, []byte("[]\n"), 0o644) == nil {
				os.Rename(regular, path)
			}
			if syscall.Mkfifo(pipe, 0o600) == nil {
				os.Rename(pipe, path)
			}
		}
	}()
	reads := map[string]func(){
		"train header": func() { readHeader(path, data.CSVOptions{}) },
		"report":       func() { readReportCSV(path, data.CSVOptions{}) },
		"ledger":       func() { readLedgerFile(path) },
		"open": func() {
			if fh, err := openInput("--csv", path); err == nil {
				fh.Close()
			}
		},
	}
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		for _, read := range reads {
			within(t, path, read)
		}
	}
}
