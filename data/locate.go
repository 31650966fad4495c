package data

import (
	"fmt"
	"os"
)

// Locate returns the path of the dataset file name in the places Fetch
// searches (Options.Dir, $FEATUREDP_DATA, the cache — each also in a
// sub-directory named after the file's dataset — and then the file's
// File.System directory under SystemDataDir), without verifying or
// downloading it: the first regular file of that name. ok is false when no
// place holds one.
func Locate(name string, opts Options) (path string, ok bool) {
	dirs, _, _ := opts.searchDirs()
	f, known := LookupFile(name)
	if !known {
		f = File{Name: name}
	}
	for _, p := range f.candidates(dirs) {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

// FileStatus is the state of one registry file on this machine.
type FileStatus struct {
	File
	// Path is where the file was found ("" when missing); Size its size in
	// bytes.
	Path string
	Size int64
	// Verified is true when the file's SHA-256 matches the registry.
	Verified bool
}

// CheckDir returns an error when Options.Dir is set but is not an
// existing directory (a typo or a plain file would otherwise be searched
// silently and every file reported missing).
func CheckDir(opts Options) error {
	if opts.Dir == "" {
		return nil
	}
	st, err := os.Stat(opts.Dir)
	switch {
	case err != nil:
		return fmt.Errorf("data: data directory (Options.Dir): %w", err)
	case !st.IsDir():
		return fmt.Errorf("data: data directory (Options.Dir) %s is not a directory (mode %v): give the directory that holds the dataset files", opts.Dir, st.Mode())
	}
	return nil
}

// Status returns the state of every registry file: where it was found
// (Locate), its size and whether its SHA-256 matches. Options.Dir, when
// set, must be a directory (CheckDir).
func Status(opts Options) ([]FileStatus, error) {
	if err := CheckDir(opts); err != nil {
		return nil, err
	}
	out := make([]FileStatus, 0, len(registry))
	for _, f := range registry {
		s := FileStatus{File: f}
		if p, ok := Locate(f.Name, opts); ok {
			st, err := os.Stat(p)
			if err != nil {
				return nil, fmt.Errorf("data: %w", err)
			}
			ok, _, err := verifyFile(p, f)
			if err != nil {
				return nil, fmt.Errorf("data: reading %s: %w", p, err)
			}
			s.Path, s.Size, s.Verified = p, st.Size(), ok
		}
		out = append(out, s)
	}
	return out, nil
}

// Places describes the places Fetch and Locate search, in order.
func Places(opts Options) []string {
	_, looked, _ := opts.searchDirs()
	return looked
}

// CacheDir returns the download cache of opts (Options.CacheDir, or
// os.UserCacheDir()/featuredp), "" when there is none.
func CacheDir(opts Options) string {
	_, _, cache := opts.searchDirs()
	return cache
}
