//go:build unix

package release

import "syscall"

// openNonBlock makes openRegular's open of a named pipe return at once
// (a regular file reads as without it).
const openNonBlock = syscall.O_NONBLOCK
