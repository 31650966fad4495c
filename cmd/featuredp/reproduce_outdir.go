package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/featuredp/featuredp/internal/safefile"
)

// outMarker is the file featuredp reproduce and merge leave in their --out
// directory; a non-empty directory without it was not written by featuredp
// and is refused unless --force.
const outMarker = ".featuredp-output"

// outMarkerText is the marker's content.
const outMarkerText = "This directory holds the output of featuredp reproduce or merge.\n" +
	"Later runs into it replace FIGURE-ID.csv, .png, .svg, the shard files and report.md.\n"

// errOutNotOurs is wrapped by prepareOutDir's refusal.
var errOutNotOurs = errors.New("not written by featuredp")

// prepareOutDir makes dir ready for featuredp's files: it creates dir if
// needed and marks it. An existing directory is accepted when it is empty,
// holds the marker, or holds a report.md of an earlier featuredp run
// (written before the marker existed); any other non-empty directory is
// refused (its files could be overwritten) unless force.
func prepareOutDir(dir string, force bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating output directory: %w", err)
	}
	marker := filepath.Join(dir, outMarker)
	if st, err := os.Lstat(marker); err == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("output directory %s: %s is not a regular file; remove it", dir, marker)
		}
		return nil
	}
	if !force {
		ours, err := writtenByFeaturedp(dir)
		if err != nil {
			return fmt.Errorf("output directory %s: %w", dir, err)
		}
		if !ours {
			return fmt.Errorf("output directory %s is not empty and was %w (no %s file): its files could be replaced; "+
				"choose a new or empty --out directory, or pass --force to write into it", dir, errOutNotOurs, outMarker)
		}
	}
	// A new file, never one at the path (a symbolic link planted since the
	// check is not followed).
	err := safefile.Write(marker, false, writeBytes([]byte(outMarkerText)))
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("output directory %s: %s appeared while featuredp prepared the directory (another run?): run again", dir, marker)
	}
	if err != nil {
		return fmt.Errorf("marking output directory: %w", err)
	}
	return nil
}

// writtenByFeaturedp reports whether dir is empty or holds the report.md
// of a featuredp reproduce or merge run.
func writtenByFeaturedp(dir string) (bool, error) {
	d, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	_, err = d.Readdirnames(1)
	d.Close()
	if err == io.EOF {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	report := filepath.Join(dir, "report.md")
	if st, err := os.Lstat(report); err != nil || !st.Mode().IsRegular() {
		return false, nil // not a link to a report elsewhere
	}
	f, _, err := safefile.Open(report) // a pipe swapped in since the Lstat cannot block it
	if err != nil {
		return false, nil
	}
	defer f.Close()
	line, _ := bufio.NewReader(io.LimitReader(f, 256)).ReadString('\n')
	return strings.HasPrefix(line, "# featuredp reproduce — ") || strings.HasPrefix(line, "# featuredp merge — "), nil
}

// outDirExit is the exit code for an error of prepareOutDir: 2 for a
// refused directory (a usage error), 1 for a failure to create or mark it.
func outDirExit(err error) int {
	if errors.Is(err, errOutNotOurs) {
		return 2
	}
	return 1
}
