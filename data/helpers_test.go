package data

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func nan() float64 { return math.NaN() }

// realDataDir returns the directory named by $FEATUREDP_DATA, resolving a
// relative path against the working directory and then against the module
// root (CI sets FEATUREDP_DATA=../shared/datasets relative to the
// repository), or skips the test.
func realDataDir(t testing.TB) string {
	t.Helper()
	env := os.Getenv(EnvDataDir)
	if env == "" {
		t.Skip("real-data test skipped: set FEATUREDP_DATA to the directory holding the dataset files (e.g. FEATUREDP_DATA=../shared/datasets)")
	}
	for _, d := range filepath.SplitList(env) {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
		if !filepath.IsAbs(d) {
			if root := moduleRoot(); root != "" {
				p := filepath.Join(root, d)
				if st, err := os.Stat(p); err == nil && st.IsDir() {
					return p
				}
			}
		}
	}
	t.Skipf("real-data test skipped: FEATUREDP_DATA=%q names no existing directory", env)
	return ""
}

func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
