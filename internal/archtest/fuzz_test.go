package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var (
	fuzzFunc   = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	fuzzTarget = regexp.MustCompile(`(Fuzz\w+):(\./[\w/]+/)`)
)

// TestEveryFuzzTargetInMakefile checks that `make fuzz` runs every fuzz
// target of the module, in the package that defines it, and nothing else:
// a target missing from the Makefile's FUZZ_TARGETS would only ever run
// its seed corpus.
func TestEveryFuzzTargetInMakefile(t *testing.T) {
	root := moduleRoot(t)
	var defined []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, m := range fuzzFunc.FindAllStringSubmatch(string(src), -1) {
			defined = append(defined, m[1]+":./"+filepath.ToSlash(rel)+"/")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range fuzzTarget.FindAllStringSubmatch(string(mk), -1) {
		listed = append(listed, m[1]+":"+m[2])
	}
	slices.Sort(defined)
	slices.Sort(listed)
	for _, d := range defined {
		if !slices.Contains(listed, d) {
			t.Errorf("fuzz target %s is not in the Makefile's FUZZ_TARGETS: add it", d)
		}
	}
	for _, l := range listed {
		if !slices.Contains(defined, l) {
			t.Errorf("the Makefile's FUZZ_TARGETS lists %s, which no test file defines", l)
		}
	}
	if len(defined) == 0 {
		t.Fatal("found no fuzz target: the walk is broken")
	}
}
