//go:build unix

package release

import (
	"io/fs"
	"syscall"
)

// fileOwner is the user id of the file of st.
func fileOwner(st fs.FileInfo) (int, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(s.Uid), true
}
