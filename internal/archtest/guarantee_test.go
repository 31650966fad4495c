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

// isFigures reports whether pkg is a notion's reproduction layer,
// notions/<n>/figures: the papers' figures, trials, stand-in data and
// preparation, registered with experiments.
func isFigures(pkg string) bool {
	n, ok := notionOf(pkg)
	return ok && n != "all" && pkg == "notions/"+n+"/figures"
}

// figuresImporters are the packages (prefixes) above the reproduction
// layer: the registration line, the facade, the command, the notebooks'
// test driver and the tools. Nothing else imports a figures package.
var figuresImporters = []string{"notions/all", "dpnb", "cmd/", "notebooks", "tools", "examples"}

// TestLibraryNeverImportsReproduction: the library (core packages and the
// notion packages themselves) never imports a notion's figures package;
// only the layers above it do (a figures package's own tests may too).
func TestLibraryNeverImportsReproduction(t *testing.T) {
	for _, f := range readFiles(t) {
		for _, imp := range f.imports {
			dep, ok := local(imp)
			if !ok || !isFigures(dep) || dep == f.pkg {
				continue
			}
			above := slices.ContainsFunc(figuresImporters, func(p string) bool {
				return f.pkg == p || strings.HasPrefix(f.pkg, p) && strings.HasSuffix(p, "/")
			})
			if !above {
				t.Errorf("%s/%s imports %s: the library never imports the reproduction layer (move what it needs into notions/<n> under a concept name)", f.pkg, f.name, dep)
			}
		}
	}
}

// relationType matches the names a per-package neighbouring-relation type
// would take; the one relation type is accounting.Relation.
var relationType = regexp.MustCompile(`^(Neighbou?r(ing|hood)?|Relation)$`)

// conversionFormula matches the shapes of the privacy-loss conversions
// that live only in package accounting: zCDP → (ε, δ) (ρ + 2√(ρ·log 1/δ),
// Bun & Steinke 2016, Prop. 1.3), RDP → (ε, δ) classic (ε_α + log(1/δ)/(α − 1),
// Mironov 2017, Prop. 3) and improved (the log1p(−1/α) term of Balle et al.
// 2020, Thm 21). It is a textual check on non-test Go files, spaces removed.
var conversionFormula = regexp.MustCompile(`\+2\*math\.Sqrt\([^)]*(rho|Rho|ρ)|(rho|Rho|ρ)[^;\n]*\+2\*math\.Sqrt\(|math\.Log\(1/delta\)/\(|math\.Log1p\(-1/(alpha|a|order)\)`)

// TestOneRelationType: no package but accounting declares a neighbouring
// relation type, and no package but accounting writes a conversion
// formula between privacy losses.
func TestOneRelationType(t *testing.T) {
	root := moduleRoot(t)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "tools" || n == "testdata" || rel == "accounting") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checkRelationTypes(t, rel, src)
		flat := strings.Join(strings.Fields(string(src)), "")
		if m := conversionFormula.FindString(flat); m != "" {
			t.Errorf("%s writes a privacy-loss conversion (%q): use package accounting (ZCDPEpsilon, EpsilonFromRDP, Ledger)", rel, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func checkRelationTypes(t *testing.T, rel string, src []byte) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), rel, src, 0)
	if err != nil {
		t.Errorf("%s: %v", rel, err)
		return
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			if ts := s.(*ast.TypeSpec); relationType.MatchString(ts.Name.Name) {
				t.Errorf("%s declares type %s: the one neighbouring-relation type is accounting.Relation", rel, ts.Name.Name)
			}
		}
	}
}

// figureName matches exported names that belong to the reproduction of a
// paper rather than to the notion as a library: figures, tables, paper
// settings and profiles, worked examples and toys.
var figureName = regexp.MustCompile(`(^|[a-z0-9])(Fig[0-9]|Figure[0-9]|Table[0-9IVX]|Paper|Setting|Profile|Example[0-9]|Toy|Beside$)`)

// TestNotionLibrariesHaveNoFigureNames: the exported names of a notion
// package (what a user imports) carry no figure, table, setting, profile
// or paper-example names; those live in notions/<n>/figures.
func TestNotionLibrariesHaveNoFigureNames(t *testing.T) {
	root := moduleRoot(t)
	for _, n := range notionNames {
		dir := filepath.Join(root, "notions", n)
		pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			for fn, f := range p.Files {
				for name := range exportedNames(f) {
					if figureName.MatchString(name) {
						t.Errorf("%s: notions/%s exports %s, a reproduction name: move it to notions/%s/figures or name it by concept", filepath.Base(fn), n, name, n)
					}
				}
			}
		}
	}
}
