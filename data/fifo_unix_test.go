//go:build unix

package data

import "syscall"

// makeFifo makes a named pipe at p for the tests of unsafe inputs.
func makeFifo(p string) error { return syscall.Mkfifo(p, 0o644) }
