//go:build !unix

package release

// openNonBlock is 0 where named pipes do not block an open as on Unix.
const openNonBlock = 0
