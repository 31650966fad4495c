package avxstate

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A function of a package that imports simd/archsimd whose signature has
// no vector type is a kernel boundary: scalar code may follow its return,
// so each RET must come after a VZEROUPPER (or a call of another kernel
// boundary, itself checked), scanning back from the RET in the listing,
// before any instruction that names a Y or Z register or calls a vector
// helper. Vector helpers (a vector parameter or result)
// leave that to their callers, which are checked in turn; so are the
// assembly kernels (.s files). The scan follows the listing, not the
// control flow: a RET laid out before all vector code passes.
func TestKernelsClearUpperState(t *testing.T) {
	if !simdBuild {
		t.Skip("needs GOEXPERIMENT=simd on amd64 (the SIMD kernels are not compiled otherwise)")
	}
	if testing.Short() {
		t.Skip("builds the SIMD packages with -S (a few seconds)")
	}
	pkgs := simdPackages(t)
	if len(pkgs) == 0 {
		t.Fatal("no package of the module imports simd/archsimd")
	}
	var paths []string
	helpers := map[string]bool{} // "file:line" of functions with a vector in their signature
	for _, p := range pkgs {
		paths = append(paths, p.path)
		vectorSignatures(t, p.dir, helpers)
	}
	funcs := listing(t, paths)
	var checked []string
	for _, name := range slices.Sorted(maps.Keys(funcs)) {
		f := funcs[name]
		if helpers[f.pos] || !f.usesVectors(funcs, helpers) {
			continue
		}
		checked = append(checked, name[strings.LastIndex(name, "/")+1:])
		for _, bad := range f.dirtyReturns(funcs, helpers) {
			t.Errorf("%s (%s): RET at %s without VZEROUPPER after the vector code", f.name, f.pos, bad)
		}
	}
	if len(checked) == 0 {
		t.Fatal("no function uses vector registers: the listing was not parsed")
	}
	t.Logf("checked %d functions with vector code in %v: %s", len(checked), paths, strings.Join(checked, " "))
}

// TestDirtyReturnIsCaught: the check finds a kernel that returns right
// after vector code, and passes the same kernel with VZEROUPPER.
func TestDirtyReturnIsCaught(t *testing.T) {
	for _, tc := range []struct {
		name  string
		body  []string
		dirty int
	}{
		{"vector then RET", []string{"VMOVUPD\t(AX), Y0", "VADDPD\tY0, Y0, Y0", "RET"}, 1},
		{"vector, VZEROUPPER, RET", []string{"VMOVUPD\t(AX), Z1", "VZEROUPPER", "POPQ\tBP", "RET"}, 0},
		{"helper call then RET", []string{"CALL\tpkg.vexp(SB)", "RET"}, 1},
		{"vector, kernel call, RET", []string{"VMOVUPD\t(AX), Y0", "CALL\tpkg.inner(SB)", "RET"}, 0},
		{"early RET before the vector code", []string{"TESTQ\tAX, AX", "RET", "VMOVUPD\t(AX), Y0", "VZEROUPPER", "RET"}, 0},
		{"two RETs, one dirty", []string{"VMOVUPD\t(AX), Y0", "JEQ\t9", "VZEROUPPER", "RET", "VMOVUPD\tY0, (BX)", "RET"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &function{name: "pkg.kernel", pos: "k.go:1"}
			for i, s := range tc.body {
				f.insts = append(f.insts, inst{pos: fmt.Sprintf("k.go:%d", i+2), text: s})
			}
			inner := &function{name: "pkg.inner", pos: "k.go:90", insts: []inst{{"k.go:91", "VMOVUPD\t(AX), Y0"}, {"k.go:92", "VZEROUPPER"}, {"k.go:92", "RET"}}}
			funcs := map[string]*function{"pkg.kernel": f, "pkg.inner": inner, "pkg.vexp": {name: "pkg.vexp", pos: "k.go:99"}}
			helpers := map[string]bool{"k.go:99": true}
			if got := len(f.dirtyReturns(funcs, helpers)); got != tc.dirty {
				t.Errorf("%d dirty returns, want %d", got, tc.dirty)
			}
		})
	}
}

type pkg struct{ path, dir string }

// simdPackages lists the module's packages that import simd/archsimd.
func simdPackages(t *testing.T) []pkg {
	out := goCmd(t, "list", "-f", `{{.ImportPath}} {{.Dir}} {{join .Imports " "}}`, "github.com/featuredp/featuredp/...")
	var pkgs []pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		for _, imp := range f[2:] {
			if imp == "simd/archsimd" {
				pkgs = append(pkgs, pkg{f[0], f[1]})
			}
		}
	}
	return pkgs
}

// goCmd runs the go command with the simd experiment, returning stdout.
func goCmd(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOEXPERIMENT=simd", "GOARCH=amd64")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return append(out, stderr.Bytes()...)
}

// vectorSignatures adds the "file:line" of every function declaration
// or literal in dir whose parameters or results have an archsimd type
// (directly or through a local alias).
func vectorSignatures(t *testing.T, dir string, helpers map[string]bool) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
	aliases := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					if ts := s.(*ast.TypeSpec); isSIMD(ts.Type, nil) {
						aliases[ts.Name.Name] = true
					}
				}
			}
		}
	}
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			var ft *ast.FuncType
			switch fn := n.(type) {
			case *ast.FuncDecl:
				ft = fn.Type
			case *ast.FuncLit:
				ft = fn.Type
			default:
				return true
			}
			for _, fl := range []*ast.FieldList{ft.Params, ft.Results} {
				if fl == nil {
					continue
				}
				for _, field := range fl.List {
					if isSIMD(field.Type, aliases) {
						p := fset.Position(n.Pos())
						helpers[fmt.Sprintf("%s:%d", p.Filename, p.Line)] = true
					}
				}
			}
			return true
		})
	}
}

// isSIMD reports whether a type expression is archsimd.T or an alias
// named in aliases.
func isSIMD(e ast.Expr, aliases map[string]bool) bool {
	switch x := e.(type) {
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		return ok && id.Name == "archsimd"
	case *ast.Ident:
		return aliases[x.Name]
	}
	return false
}

type inst struct{ pos, text string }

type function struct {
	name, pos string // symbol, and "file:line" of its TEXT
	insts     []inst
}

var (
	header  = regexp.MustCompile(`^(\S.*?) STEXT`)
	instRe  = regexp.MustCompile(`^\s+0x[0-9a-f]+ \d+ \(([^)]*)\)\s+(.*)$`)
	vecReg  = regexp.MustCompile(`(^|[\s,(])[YZ]([0-9]|[12][0-9]|3[01])($|[\s,)])`)
	callRe  = regexp.MustCompile(`^CALL\s+(\S+)\(SB\)`)
	pseudos = []string{"TEXT", "FUNCDATA", "PCDATA"}
)

// listing compiles the packages with -S (Go) and -S (assembly) and
// returns their functions by symbol (ABI wrappers dropped).
func listing(t *testing.T, paths []string) map[string]*function {
	out := goCmd(t, append([]string{"build", "-gcflags=-S", "-asmflags=-S"}, paths...)...)
	funcs := map[string]*function{}
	var cur *function
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := header.FindStringSubmatch(line); m != nil {
			cur = &function{name: m[1]}
			continue
		}
		m := instRe.FindStringSubmatch(line)
		if cur == nil || m == nil {
			continue
		}
		if strings.HasPrefix(m[2], "TEXT") {
			// ABI wrappers and promoted-method wrappers forward to
			// functions checked in their own right.
			cur.pos = m[1]
			if !strings.Contains(m[2], "ABIWRAPPER") && !strings.HasPrefix(cur.pos, "<autogenerated>") {
				funcs[cur.name] = cur
			}
			continue
		}
		if !isPseudo(m[2]) {
			cur.insts = append(cur.insts, inst{m[1], m[2]})
		}
	}
	return funcs
}

func isPseudo(s string) bool {
	for _, p := range pseudos {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// dirties reports whether an instruction leaves vector state behind: it
// names a Y or Z register or calls a vector helper.
func dirties(in inst, funcs map[string]*function, helpers map[string]bool) bool {
	if vecReg.MatchString(in.text) {
		return true
	}
	if m := callRe.FindStringSubmatch(in.text); m != nil {
		if g, ok := funcs[m[1]]; ok && helpers[g.pos] {
			return true
		}
	}
	return false
}

// cleans reports whether the upper state is clean after an instruction:
// a VZEROUPPER, or a call of a kernel boundary that uses vectors (checked
// in its own right to return clean).
func cleans(in inst, funcs map[string]*function, helpers map[string]bool) bool {
	if strings.HasPrefix(in.text, "VZEROUPPER") {
		return true
	}
	m := callRe.FindStringSubmatch(in.text)
	if m == nil {
		return false
	}
	g, ok := funcs[m[1]]
	return ok && !helpers[g.pos] && g.usesVectors(funcs, helpers)
}

func (f *function) usesVectors(funcs map[string]*function, helpers map[string]bool) bool {
	for _, in := range f.insts {
		if dirties(in, funcs, helpers) {
			return true
		}
	}
	return false
}

// dirtyReturns lists the positions of the RETs that the listing reaches,
// scanning back, from vector code without a VZEROUPPER in between.
func (f *function) dirtyReturns(funcs map[string]*function, helpers map[string]bool) []string {
	var bad []string
	for i, in := range f.insts {
		if !strings.HasPrefix(in.text, "RET") {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if cleans(f.insts[j], funcs, helpers) {
				break
			}
			if dirties(f.insts[j], funcs, helpers) {
				bad = append(bad, in.pos)
				break
			}
		}
	}
	return bad
}
