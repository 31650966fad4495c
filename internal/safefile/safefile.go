// Package safefile reads and writes the files a user names, which may be
// hostile. Open opens a regular file for reading and refuses anything
// else (a named pipe, a device, a directory) without a race between check
// and open. Write and Replace write a file so that a reader never sees half
// of it and an existing file is never replaced unless the caller asks: the
// content goes to a temporary file in the same directory, which is then
// moved into place.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Write creates path with the bytes write produces, with mode 0644 less the
// umask (a regular file it replaces keeps its own permissions). The content is written to a temporary file beside path (removed
// on any failure) and moved into place only when write and the close
// succeeded, so a failed write leaves nothing behind. Without overwrite the move is a hard link, which fails if
// path exists however recently it appeared (a dangling symbolic link
// included), so a file created by someone else meanwhile is not replaced;
// on a file system without hard links the move is a rename after a last
// check. The error for an existing path wraps fs.ErrExist; an error of
// write is returned as it is.
//
// With overwrite, a symbolic link is replaced by the new file, never
// followed (the file it names is left as it was; the new file takes that
// file's permissions if it is a regular file, so a link to a 0600 file
// gives a 0600 file), and a path that is neither a regular file nor a link
// — a device such as /dev/null, a named pipe — is written into, as a
// shell's ">" does: a rename would put a plain file in place of the
// device. That write opens the path without following a link and checks
// on the open file that it is still no regular file, so a link or a file
// swapped in after the check is neither followed nor truncated.
func Write(path string, overwrite bool, write func(io.Writer) error) error {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && !overwrite:
		return existsError(path)
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		fi, err = os.Stat(path) // the permissions of the file it names, if any
	case err == nil && fi.IsDir():
		return fmt.Errorf("%s is a directory: give a file path", path)
	case err == nil && !fi.Mode().IsRegular():
		return writeInto(path, write)
	}
	var like fs.FileInfo
	if err == nil && fi.Mode().IsRegular() { // a regular file, replaced: its permissions are kept
		like = fi
	}
	tmp, err := writeTemp(path, like, write)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	return Move(tmp, path, overwrite)
}

// writeTemp writes a new temporary file beside path with write and returns
// its name; on any failure it removes the file. With like (the file it will
// replace) the temporary file takes like's permissions before anything is
// written into it, so that a 0600 file stays 0600 and its new content is
// never more open than the old.
func writeTemp(path string, like fs.FileInfo, write func(io.Writer) error) (string, error) {
	tmp, err := createTemp(path)
	if err != nil {
		return "", err
	}
	if like != nil {
		err = tmp.Chmod(like.Mode().Perm())
	}
	if err == nil {
		err = write(tmp)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", err
	}
	return tmp.Name(), nil
}

// Replace writes path with the bytes write produces, replacing a regular
// file there, through a temporary file moved into place as Write does. It
// refuses a path that exists and is not a regular file — a symbolic link, a
// device, a named pipe — instead of following or writing into it (the
// error wraps ErrNotRegular): for the files a program owns in its own
// output directory, where a link planted there must not redirect the write
// to a file elsewhere. The move is a rename, which replaces whatever is at
// path when it happens (a link planted after the check: the link itself,
// never the file it names). A replaced file keeps its permission bits.
func Replace(path string, write func(io.Writer) error) error {
	fi, err := os.Lstat(path)
	if err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (mode %v): %w; remove it and run again", path, fi.Mode(), ErrNotRegular)
	}
	var like fs.FileInfo
	if err == nil { // keep the replaced file's permissions (a 0600 file stays 0600)
		like = fi
	}
	tmp, err := writeTemp(path, like, write)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	return os.Rename(tmp, path)
}

// ErrNotRegular is wrapped by Replace's refusal of a path that is a
// symbolic link, a device or a named pipe.
var ErrNotRegular = errors.New("refusing to replace a symbolic link or special file")

// Move moves the written temporary file tmp to path: a rename when
// overwrite is set (which replaces a symbolic link at path, never the file
// it names), else a hard link, which fails if path exists however recently
// it appeared (the error wraps fs.ErrExist); a rename after a last check
// where hard links are not supported. The caller removes tmp (after a hard
// link it is still there).
func Move(tmp, path string, overwrite bool) error {
	if !overwrite {
		err := os.Link(tmp, path)
		if err == nil {
			return nil
		}
		if errors.Is(err, fs.ErrExist) {
			return existsError(path)
		}
		if _, err := os.Lstat(path); err == nil {
			return existsError(path)
		}
	}
	return os.Rename(tmp, path)
}

// existsError is the refusal to replace path.
func existsError(path string) error {
	return fmt.Errorf("%s exists: %w", path, fs.ErrExist)
}

// writeInto writes into the existing device or named pipe at path. The
// open follows no symbolic link (O_NOFOLLOW on Unix) and truncates
// nothing, and the file opened must still be no regular file: a link or a
// file put at path since Write's check is refused, never written.
func writeInto(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|noFollow, 0)
	if err != nil {
		return fmt.Errorf("%w (if %s changed since it was checked, run again)", err, path)
	}
	if st, err := f.Stat(); err != nil || st.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s became a regular file after it was checked: nothing written; run again", path)
		}
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// createTemp creates a new file beside path, named after it, with mode
// 0644 less the umask (as os.WriteFile(path, b, 0o644) would; os.CreateTemp
// would give 0600).
func createTemp(path string) (*os.File, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	for range 100 {
		name := filepath.Join(dir, "."+base+"-"+strconv.FormatUint(rand.Uint64(), 36)+".part")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("no free temporary name beside %s", path)
}
