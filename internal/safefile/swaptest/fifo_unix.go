//go:build unix

package swaptest

import "syscall"

// nonBlock opens a named pipe for writing without waiting for a reader.
const nonBlock = syscall.O_NONBLOCK

// mkfifo makes a named pipe at path.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
