package release

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/featuredp/featuredp/internal/safefile"
)

// openRegular opens the regular file at path for reading and returns it
// with its FileInfo; what names it in errors ("the key file"). A named pipe, a
// device or a directory is refused on the open file, opened without
// blocking (safefile.Open), so that a pipe swapped in after a check cannot
// block the caller for ever.
func openRegular(path, what string) (*os.File, fs.FileInfo, error) {
	fh, st, err := safefile.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("release: %s: %w", what, err)
	}
	return fh, st, nil
}
