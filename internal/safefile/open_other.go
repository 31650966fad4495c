//go:build !unix

package safefile

import "os"

// openNonBlock is 0 where opening a named pipe does not block as on Unix.
const openNonBlock = 0

// noFollow is 0 where open has no O_NOFOLLOW.
const noFollow = 0

// clearNonBlock has nothing to clear where Open sets no O_NONBLOCK.
func clearNonBlock(*os.File) error { return nil }
