package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// internalRef matches citations of material outside the repository: the
// reproduction specs and notes the project was built from, which a user
// does not have. User-facing text (README, docs, godoc, notebooks, reports,
// CLI help) cites the repository's docs/ pages or the papers instead.
var internalRef = regexp.MustCompile(`\.\./shared|spec §|[Ss]pec §|specs/|shared/reference|shared/specs|ARCHITECTURE\.md|[a-z]\.md §|seed lost|seed text`)

// trackedFiles lists the files git tracks, relative to the module root.
func trackedFiles(t *testing.T) []string {
	t.Helper()
	root := moduleRoot(t)
	out, err := exec.Command("git", "-C", root, "ls-files").Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout)", err)
	}
	return strings.Fields(string(out))
}

// plumbing may name the datasets folder beside the repository (CI).
func plumbing(path string) bool {
	return strings.HasSuffix(path, "_test.go") || path == "Makefile" || strings.HasPrefix(path, ".ci/")
}

func TestNoReferencesOutsideTheRepository(t *testing.T) {
	root := moduleRoot(t)
	for _, f := range trackedFiles(t) {
		if plumbing(f) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the working tree
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := internalRef.FindString(line); m != "" {
				t.Errorf("%s:%d cites %q, which a user of the repository does not have; cite docs/ or the paper", f, i+1, m)
			}
		}
	}
}

// docsLink matches a relative Markdown link into docs/.
var docsLink = regexp.MustCompile(`\]\(((?:\.\./)?docs/[^)#\s]+)`)

func TestDocsLinksExist(t *testing.T) {
	root := moduleRoot(t)
	for _, f := range trackedFiles(t) {
		if !strings.HasSuffix(f, ".md") && !strings.HasSuffix(f, ".ipynb") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue
		}
		for _, m := range docsLink.FindAllStringSubmatch(string(b), -1) {
			target := filepath.Join(root, filepath.Dir(f), m[1])
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s links %s, which does not exist", f, m[1])
			}
		}
	}
	for _, page := range []string{"README.md", "accounting.md", "corrdp.md", "feature-dp.md", "bcdp.md", "smooth-rdp.md", "dp-sgd.md"} {
		if _, err := os.Stat(filepath.Join(root, "docs", page)); err != nil {
			t.Errorf("docs/%s is missing", page)
		}
	}
}
