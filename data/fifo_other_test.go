//go:build !unix

package data

import "errors"

// makeFifo fails: named pipes need a Unix system (the caller skips).
func makeFifo(string) error { return errors.New("named pipes need a Unix system") }
