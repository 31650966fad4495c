// Package notebooks_test executes every notebook of this folder headless
// through `jupyter nbconvert` with the GoNB kernel and fails on any error
// output, on "exit status" or "panic:" on stderr, and on cells left
// unexecuted. Notebooks must be committed without outputs.
//
// The tools (jupyter, gonb, goimports) are installed by `make nb-deps
// nb-tools`; without them the execution test skips, unless
// REQUIRE_NOTEBOOKS=1 (as in CI), where it fails.
package notebooks_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

type output struct {
	OutputType string          `json:"output_type"`
	Name       string          `json:"name"`
	Text       json.RawMessage `json:"text"` // string or []string
	Ename      string          `json:"ename"`
	Evalue     string          `json:"evalue"`
}

type cell struct {
	CellType       string          `json:"cell_type"`
	ID             string          `json:"id"`
	Source         json.RawMessage `json:"source"`
	ExecutionCount *int            `json:"execution_count"`
	Outputs        []output        `json:"outputs"`
}

type notebook struct {
	Cells    []cell `json:"cells"`
	Metadata struct {
		Kernelspec struct {
			Name string `json:"name"`
		} `json:"kernelspec"`
	} `json:"metadata"`
}

func multiline(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var ss []string
	_ = json.Unmarshal(raw, &ss)
	return strings.Join(ss, "")
}

func readNotebook(t *testing.T, path string) notebook {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var nb notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return nb
}

func notebookFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.ipynb")
	if err != nil || len(files) == 0 {
		t.Fatalf("no notebooks found: %v", err)
	}
	return files
}

// TestMain installs a private GoNB kernel (with --raw_error for plain-text
// compile errors, --force_deps so gopls is optional) into a temporary
// JUPYTER_DATA_DIR, so the developer's own kernel is never touched.
func TestMain(m *testing.M) {
	code := func() int {
		if gonb, err := exec.LookPath("gonb"); err == nil {
			dir, err := os.MkdirTemp("", "nbtest_jupyter")
			if err != nil {
				os.Stderr.WriteString(err.Error() + "\n")
				return 1
			}
			defer os.RemoveAll(dir)
			os.Setenv("JUPYTER_DATA_DIR", dir)
			if out, err := exec.Command(gonb, "--install", "--raw_error", "--force_deps").CombinedOutput(); err != nil {
				os.Stderr.Write(out)
				return 1
			}
		}
		return m.Run()
	}()
	os.Exit(code)
}

func TestNotebooksAreClean(t *testing.T) {
	for _, f := range notebookFiles(t) {
		nb := readNotebook(t, f)
		if nb.Metadata.Kernelspec.Name != "gonb" {
			t.Errorf("%s: kernelspec name %q, want gonb", f, nb.Metadata.Kernelspec.Name)
		}
		for i, c := range nb.Cells {
			if len(c.Outputs) > 0 || c.ExecutionCount != nil {
				t.Errorf("%s: cell %d has stored outputs; run `make nb-clean`", f, i)
			}
			if c.ID == "" {
				t.Errorf("%s: cell %d has no id", f, i)
			}
		}
	}
}

func requireTools(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"jupyter", "gonb", "goimports"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("REQUIRE_NOTEBOOKS") == "1" {
				t.Fatalf("%s not on PATH and REQUIRE_NOTEBOOKS=1", tool)
			}
			t.Skipf("%s not on PATH; run `make nb-deps nb-tools`", tool)
		}
	}
}

func TestNotebooksExecute(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: notebooks not executed")
	}
	requireTools(t)
	for _, f := range notebookFiles(t) {
		t.Run(strings.TrimSuffix(f, ".ipynb"), func(t *testing.T) {
			outDir := t.TempDir()
			log, err := exec.Command("jupyter", "nbconvert", "--to", "notebook", "--execute",
				"--ExecutePreprocessor.timeout=1200", "--ExecutePreprocessor.kernel_name=gonb",
				"--output-dir", outDir, f).CombinedOutput()
			if err != nil {
				s := string(log)
				if i := strings.Index(s, "CellExecutionError:"); i >= 0 {
					s = s[i:]
				} else if len(s) > 4000 {
					s = s[len(s)-4000:]
				}
				t.Fatalf("nbconvert failed: %v\n%s", err, s)
			}
			for i, c := range readNotebook(t, filepath.Join(outDir, f)).Cells {
				if c.CellType != "code" {
					continue
				}
				if strings.TrimSpace(multiline(c.Source)) != "" && c.ExecutionCount == nil {
					t.Errorf("cell %d was not executed", i)
				}
				for _, o := range c.Outputs {
					switch {
					case o.OutputType == "error":
						t.Errorf("cell %d: %s: %s", i, o.Ename, o.Evalue)
					case o.OutputType == "stream" && o.Name == "stderr":
						// GoNB reports a failed `!cmd` / `!*cmd` only as "exit status N" on stderr.
						if txt := multiline(o.Text); strings.Contains(txt, "exit status ") || strings.Contains(txt, "panic:") {
							t.Errorf("cell %d stderr: %s", i, txt)
						}
					}
				}
			}
		})
	}
}
