//go:build unix

package safefile

import (
	"os"
	"syscall"
)

// openNonBlock makes Open's open of a named pipe return at once instead of
// waiting for a writer.
const openNonBlock = syscall.O_NONBLOCK

// noFollow makes writeInto's open fail on a symbolic link instead of
// following it.
const noFollow = syscall.O_NOFOLLOW

// clearNonBlock puts the regular file Open opened back into blocking mode
// (Go's poller does so on Linux, not on the BSDs).
func clearNonBlock(fh *os.File) error {
	rc, err := fh.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}
