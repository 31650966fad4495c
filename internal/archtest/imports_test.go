// Package archtest checks the shape of the module: which package may import
// which, and which names the core may export. The rules are the ones stated
// in README.md ("Layout"); a failure names the file and the import.
package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/featuredp/featuredp"

// coreImports lists, for every core package, the featuredp packages it may
// import. The core never imports a notion, dpnb, nb or cmd.
var coreImports = map[string][]string{
	"design":                     {},
	"internal/numeric":           {},
	"internal/valid":             {},
	"internal/plotrender":        {},
	"internal/mdtext":            {},
	"internal/eta":               {},
	"internal/gemm":              {"internal/cores"},
	"internal/cores":             {},
	"internal/suggest":           {},
	"internal/safefile":          {"internal/safefile/swaptest"}, // swaptest: imported by tests alone
	"internal/safefile/swaptest": {},
	"accounting":                 {"internal/numeric"},
	"models":                     {"design", "internal/cores", "internal/gemm", "internal/numeric", "internal/valid"},
	"data":                       {"design", "internal/numeric", "internal/safefile", "internal/safefile/swaptest", "internal/suggest", "internal/valid"},
	"mechanisms":                 {"accounting", "design", "models", "internal/numeric", "internal/valid"},
	"experiments":                {"accounting", "data", "design", "mechanisms", "models", "internal/cores", "internal/numeric", "internal/valid"},
	"audit":                      {"accounting", "design", "mechanisms", "models", "internal/numeric", "internal/valid"},
}

// transitional lists core imports allowed beyond coreImports while code
// moves to its notion; empty since the redesign (#13) was completed.
var transitional = map[string][]string{}

var notionNames = []string{"bcdp", "corrdp", "dpsgd", "fdp", "smoothdp"}

// randomness names the imports a notion's accounting files must not use.
var randomness = []string{"math/rand", "math/rand/v2", "crypto/rand", module + "/mechanisms"}

type goFile struct {
	pkg     string // module-relative directory
	name    string // file name
	test    bool
	imports []string
	file    *ast.File
}

// moduleRoot is two levels up from internal/archtest.
func moduleRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}

func readFiles(t *testing.T) []goFile {
	t.Helper()
	root := moduleRoot(t)
	var out []goFile
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "tools" || n == "build" || n == "results" || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		g := goFile{pkg: filepath.ToSlash(rel), name: d.Name(), test: strings.HasSuffix(path, "_test.go"), file: f}
		for _, im := range f.Imports {
			g.imports = append(g.imports, strings.Trim(im.Path.Value, `"`))
		}
		out = append(out, g)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func local(imp string) (string, bool) {
	if imp == module {
		return "", true
	}
	rel, ok := strings.CutPrefix(imp, module+"/")
	return rel, ok
}

func notionOf(pkg string) (string, bool) {
	rest, ok := strings.CutPrefix(pkg, "notions/")
	if !ok {
		return "", false
	}
	return strings.SplitN(rest, "/", 2)[0], true
}

// TestImportRules: the core imports only the core packages listed for it;
// a notion imports only core packages (never another notion, dpnb, nb or
// cmd); only nb imports gonbui; a notion's accounting files import no
// randomness. Test files are held to the same rules.
func TestImportRules(t *testing.T) {
	for _, f := range readFiles(t) {
		where := f.pkg + "/" + f.name
		for _, imp := range f.imports {
			if strings.Contains(imp, "janpfeifer/gonb") && f.pkg != "nb" && f.pkg != "tools" {
				t.Errorf("%s imports %s: only nb may import GoNB", where, imp)
			}
			dep, ok := local(imp)
			if !ok {
				continue
			}
			if allowed, core := coreImports[f.pkg]; core {
				if !slices.Contains(allowed, dep) && !slices.Contains(transitional[f.pkg], dep) && !(f.test && dep == f.pkg) {
					t.Errorf("%s (core) imports %s; the core may import only %v", where, imp, allowed)
				}
				continue
			}
			if n, isNotion := notionOf(f.pkg); isNotion && n != "all" {
				// A notion's reproduction layer notions/<n>/figures imports its
				// library notions/<n>; the library never imports it.
				ownLibrary := f.pkg == "notions/"+n+"/figures" && dep == "notions/"+n
				if _, core := coreImports[dep]; !core && dep != f.pkg && !ownLibrary {
					t.Errorf("%s (notion %s) imports %s: a notion imports only core packages", where, n, imp)
				}
			}
		}
		if n, isNotion := notionOf(f.pkg); isNotion && strings.HasPrefix(f.name, "accounting") {
			for _, imp := range f.imports {
				if slices.Contains(randomness, imp) {
					t.Errorf("%s: the accounting of notion %s imports %s (accounting is deterministic)", where, n, imp)
				}
			}
		}
	}
}

// TestEveryNotionRegistered: every folder under notions/ is imported by
// notions/all: its reproduction layer notions/<n>/figures when it has one
// (which imports the library), else the notion itself (the one
// registration line of a notion).
func TestEveryNotionRegistered(t *testing.T) {
	root := moduleRoot(t)
	entries, err := os.ReadDir(filepath.Join(root, "notions"))
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, f := range readFiles(t) {
		if f.pkg == "notions/all" && !f.test {
			all = append(all, f.imports...)
		}
	}
	var found []string
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "all" {
			continue
		}
		found = append(found, e.Name())
		reg := module + "/notions/" + e.Name()
		if _, err := os.Stat(filepath.Join(root, "notions", e.Name(), "figures")); err == nil {
			reg += "/figures" // the reproduction layer registers the figures (and imports the library)
		}
		if !slices.Contains(all, reg) {
			t.Errorf("%s is not imported by notions/all", strings.TrimPrefix(reg, module+"/"))
		}
	}
	if !slices.Equal(found, notionNames) {
		t.Errorf("notions %v, want %v (update notionNames with a new notion)", found, notionNames)
	}
}

var paperPrefix = regexp.MustCompile(`^(CorrDP|FDP|BCDP|Smooth)`)

// TestNoPaperPrefixesInCore: no exported name of the core packages starts
// with a paper prefix; the package of a notion says which paper a name
// belongs to (corrdp.NoiseWeights, not accounting.CorrDPNoiseWeights).
func TestNoPaperPrefixesInCore(t *testing.T) {
	root := moduleRoot(t)
	for pkg := range coreImports {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, filepath.Join(root, pkg), func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			for fn, f := range p.Files {
				for name := range exportedNames(f) {
					m := paperPrefix.FindString(name)
					if m != "" {
						t.Errorf("%s: exported %s.%s starts with %s; move it to notions/", filepath.Base(fn), pkg, name, m)
					}
				}
			}
		}
	}
}

func exportedNames(f *ast.File) map[string]bool {
	out := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				out[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						out[s.Name.Name] = true
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							out[n.Name] = true
						}
					}
				}
			}
		}
	}
	return out
}
