package release

import (
	"fmt"
	"io/fs"
	"os"
)

// openRegular opens the regular file at path for reading and returns it
// with its mode; what names it in errors ("the key file"). A named pipe, a
// device or a directory is refused: by Stat before opening (opening some
// devices acts; opening a pipe without a writer blocks), then on the open
// file, opened without blocking (openNonBlock) so that a pipe swapped in
// between the two cannot block the caller for ever.
func openRegular(path, what string) (*os.File, fs.FileInfo, error) {
	notRegular := func(m fs.FileMode) error {
		return fmt.Errorf("release: %s %s is not a regular file (mode %v)", what, path, m)
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, nil, notRegular(st.Mode())
	}
	fh, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("release: %s: %w", what, err)
	}
	st, err := fh.Stat()
	switch {
	case err != nil:
		err = fmt.Errorf("release: %s: %w", what, err)
	case !st.Mode().IsRegular():
		err = notRegular(st.Mode())
	}
	if err != nil {
		fh.Close()
		return nil, nil, err
	}
	return fh, st, nil
}
