package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/featuredp/featuredp/internal/safefile/swaptest"
)

// reproduce and merge refuse a non-empty --out directory that featuredp
// did not write, leaving its files alone, unless --force; they write into
// a new, empty or featuredp-written directory (also one of a featuredp
// from before the marker), again and again.
func TestOutDirNeverOverwritesUserFiles(t *testing.T) {
	t.Setenv("FEATUREDP_DATA", "")
	const userCSV = "my,own\n1,2\n"
	const legacyReport = "# featuredp reproduce — 2026-01-01 00:00:00 UTC\n\nprofile: quick\n"
	// A run that writes only report.md (its figure is skipped: no data).
	runInto := func(cmd, dir string, extra ...string) (int, string) {
		args := []string{"reproduce", "corrdp-testonly-needs-data", "--out", dir}
		if cmd == "merge" {
			args = []string{"merge", "--out", dir, filepath.Join(dir, "..", "no-shards")}
		}
		code, _, errs := runReproduceCLI(append(args, extra...)...)
		return code, errs
	}
	for _, tc := range []struct {
		name   string
		cmd    string
		files  map[string]string // the directory's files before the run; nil: no directory
		force  bool
		code   int
		want   string // in stderr
		intact bool   // the user's CSV is still there, unchanged
	}{
		{"new directory", "reproduce", nil, false, 0, "", false},
		{"empty directory", "reproduce", map[string]string{}, false, 0, "", false},
		{"user files", "reproduce", map[string]string{"corrdp-testonly-needs-data.csv": userCSV, "report.md": "mine\n"}, false, 2,
			"is not empty and was not written by featuredp (no .featuredp-output file): its files could be replaced; choose a new or empty --out directory, or pass --force", true},
		{"user files, --force", "reproduce", map[string]string{"corrdp-testonly-needs-data.csv": userCSV}, true, 0, "", true},
		{"featuredp's directory", "reproduce", map[string]string{outMarker: "x", "report.md": "old\n"}, false, 0, "", false},
		{"an older featuredp's directory", "reproduce", map[string]string{"report.md": legacyReport, "a.csv": userCSV}, false, 0, "", false},
		{"merge into user files", "merge", map[string]string{"corrdp-testonly-needs-data.csv": userCSV}, false, 2, "pass --force", true},
		{"marker not a file", "reproduce", map[string]string{outMarker + "/x": "", "corrdp-testonly-needs-data.csv": userCSV}, true, 1, "is not a regular file; remove it", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			if tc.cmd == "merge" {
				if code, _, errs := runReproduceCLI("reproduce", "accounting-eps-vs-steps", "--shard", "1/1", "--out", filepath.Join(base, "no-shards")); code != 0 {
					t.Fatalf("shard: %d %s", code, errs)
				}
			}
			dir := filepath.Join(base, "out")
			writeFiles(t, dir, tc.files)
			var extra []string
			if tc.force {
				extra = append(extra, "--force")
			}
			code, errs := runInto(tc.cmd, dir, extra...)
			if code != tc.code || !strings.Contains(errs, tc.want) {
				t.Fatalf("code %d, stderr %q; want %d and %q", code, errs, tc.code, tc.want)
			}
			if got, err := os.ReadFile(filepath.Join(dir, "corrdp-testonly-needs-data.csv")); tc.intact && string(got) != userCSV {
				t.Errorf("the user's CSV was changed: %q, %v", got, err)
			}
			if tc.code != 0 {
				return
			}
			if _, err := os.Stat(filepath.Join(dir, outMarker)); err != nil {
				t.Errorf("no marker after the run: %v", err)
			}
			if code, errs := runInto(tc.cmd, dir); code != 0 {
				t.Errorf("a second run into the directory: code %d, %s", code, errs)
			}
		})
	}
}

// writeFiles creates dir with the files (names may hold a subdirectory);
// nil files creates nothing.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if files == nil {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A symbolic link planted at one of a figure's files in a featuredp --out
// directory is refused, naming the file, not followed: the file it names
// outside the directory is left as it was, as is the link.
func TestOutDirRefusesPlantedLinks(t *testing.T) {
	const fig = "accounting-eps-vs-steps"
	for _, name := range []string{fig + ".csv", fig + ".svg", "report.md"} {
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			dir, victim := filepath.Join(base, "out"), filepath.Join(base, "victim")
			writeFiles(t, dir, map[string]string{outMarker: "x"})
			if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(dir, name)
			if err := os.Symlink(victim, link); err != nil {
				t.Fatal(err)
			}
			code, _, errs := runReproduceCLI("reproduce", fig, "--out", dir)
			if code == 0 || !strings.Contains(errs, link+" is not a regular file") || !strings.Contains(errs, "remove it") {
				t.Errorf("code %d, stderr %q; want a refusal naming %s", code, errs, link)
			}
			if got, err := os.ReadFile(victim); err != nil || string(got) != "precious" {
				t.Errorf("the link's target was written: %d bytes (was %q), %v", len(got), "precious", err)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link was replaced: %v, %v", fi, err)
			}
		})
	}
}

// An --out directory without the marker whose report.md is a named pipe
// is refused as not featuredp's, without opening the pipe (on the old
// code the open blocked for ever: this test timed out).
func TestOutDirReportPipe(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "report.md")
	mkfifo(t, report)
	done := make(chan error, 1)
	go func() { done <- prepareOutDir(dir, false) }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "was not written by featuredp") {
			t.Errorf("err = %v, want the not-featuredp's refusal", err)
		}
	case <-time.After(10 * time.Second):
		if f, err := os.OpenFile(report, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("prepareOutDir blocked on the report.md pipe")
	}
}

// The marker is written as a new file, never through a symbolic link
// planted at its path after prepareOutDir found none: another goroutine
// plants and removes a link to a user's file for 1 s while the directory
// is prepared again and again. On the old code (os.WriteFile, which
// follows links and truncates) the user's file was overwritten with the
// marker's text.
func TestOutDirMarkerLinkRace(t *testing.T) {
	dir, victimDir := t.TempDir(), t.TempDir()
	victim, marker := filepath.Join(victimDir, "notes.txt"), filepath.Join(dir, outMarker)
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := swaptest.Loop(t, func() {
		os.Symlink(victim, marker)
		os.Remove(marker)
	})
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		prepareOutDir(dir, true) // refusals are expected: the link is there half the time
		os.Remove(marker)
	}
	stop()
	if b, err := os.ReadFile(victim); err != nil || string(b) != "precious" {
		t.Errorf("the file a planted link named holds %q (%v): the marker was written through the link", b, err)
	}
}
