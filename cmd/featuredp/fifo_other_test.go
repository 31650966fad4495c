//go:build !unix

package main

import "testing"

// mkfifo skips the test: named pipes need a Unix system.
func mkfifo(t *testing.T, _ string) {
	t.Skip("named pipes need a Unix system")
}
