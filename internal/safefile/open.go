package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// NotRegularError is Open's refusal of a path that is not a regular file:
// a directory, a named pipe, a device or a socket (after symbolic links).
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

// Error names the path, what it is and the fix.
func (e NotRegularError) Error() string {
	if e.Mode.IsDir() {
		return fmt.Sprintf("%s is a directory, not a regular file: give a file in it", e.Path)
	}
	return fmt.Sprintf("%s is not a regular file (mode %v): save the data to a regular file and give that", e.Path, e.Mode)
}

// Open opens the regular file at path for reading and returns it with its
// FileInfo, taken from the open file. Anything else at path — a directory,
// a named pipe, a device, a socket, or a symbolic link to one — is refused
// with a NotRegularError, and the check cannot be raced: the path is
// opened without blocking (O_NONBLOCK on Unix, where opening a named pipe
// without a writer blocks for ever and opening some devices acts) and the
// kind is that of the file opened (fstat), not of whatever the path named
// at an earlier check. Something plainly not a regular file is refused
// before it is opened too (opening some devices acts, e.g. rewinds a
// tape); that Stat only spares the open, the fstat decides. The file
// returned reads in blocking mode.
func Open(path string) (*os.File, fs.FileInfo, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, nil, NotRegularError{Path: path, Mode: st.Mode()}
	}
	fh, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := fh.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = NotRegularError{Path: path, Mode: st.Mode()}
	}
	if err == nil {
		err = clearNonBlock(fh)
	}
	if err != nil {
		fh.Close()
		return nil, nil, err
	}
	return fh, st, nil
}

// IsNotRegular reports whether err is (or wraps) Open's refusal of a path
// that is not a regular file.
func IsNotRegular(err error) bool {
	return errors.As(err, new(NotRegularError))
}
