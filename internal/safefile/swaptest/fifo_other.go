//go:build !unix

package swaptest

import "errors"

// nonBlock is 0 where named pipes are not made.
const nonBlock = 0

// mkfifo fails: named pipes need a Unix system (Swap skips).
func mkfifo(string) error { return errors.New("named pipes need a Unix system") }
