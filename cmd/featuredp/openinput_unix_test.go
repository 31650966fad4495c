//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/internal/safefile/swaptest"
)

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
			swaptest.Within(t, 10*time.Second, fifo, func() { code, _, errs = runReproduceCLI(tc.args...) })
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
	path := filepath.Join(t.TempDir(), "in.csv")
	swaptest.Swap(t, path, []byte("[]\n"))
	reads := map[string]func(){
		"train header": func() {
			if fh, err := openInput("--csv", path); err == nil {
				readHeader(fh, path, data.CSVOptions{})
				fh.Close()
			}
		},
		"report": func() { readReportCSV(path, data.CSVOptions{}) },
		"ledger": func() { readLedgerFile(path) },
		"open": func() {
			if fh, err := openInput("--csv", path); err == nil {
				fh.Close()
			}
		},
	}
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		for _, read := range reads {
			swaptest.Within(t, 10*time.Second, path, read)
		}
	}
}

// predict --csv - reads the rows from standard input, the way to stream
// them from a pipe now that a pipe at --csv is refused: the same
// predictions as from the file, and the refusal of a pipe names it.
func TestPredictStdin(t *testing.T) {
	model, rows := releaseFixture(t)
	_, want, _ := runReproduceCLI("predict", "--model", model, "--csv", rows)
	b, err := os.ReadFile(rows)
	if err != nil {
		t.Fatal(err)
	}
	old := stdin
	stdin = strings.NewReader(string(b))
	defer func() { stdin = old }()
	code, got, errs := runReproduceCLI("predict", "--model", model, "--csv", "-")
	if code != 0 || got != want || want == "" {
		t.Fatalf("--csv -: code %d, stdout %q, stderr %q; want %q", code, got, errs, want)
	}
	fifo := filepath.Join(t.TempDir(), "rows.fifo")
	mkfifo(t, fifo)
	swaptest.Within(t, 10*time.Second, fifo, func() { code, _, errs = runReproduceCLI("predict", "--model", model, "--csv", fifo) })
	if code == 0 || !strings.Contains(errs, "give --csv - and send them to standard input") {
		t.Errorf("pipe at --csv: code %d, stderr %q: want the hint to use --csv -", code, errs)
	}
}
