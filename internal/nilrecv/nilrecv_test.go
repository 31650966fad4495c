// Package nilrecv checks the library's standard for nil receivers: every
// exported pointer-receiver method of every exported type of the library
// packages, called on a nil pointer with zero-value arguments, returns a
// descriptive error naming the receiver type (when it returns an error) or
// behaves as for an empty value; it never panics, unless it is listed in
// allowedPanics with the reason its documentation states.
package nilrecv

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/audit"
	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/dpnb"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/eta"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
	"github.com/featuredp/featuredp/notions/bcdp"
	"github.com/featuredp/featuredp/notions/corrdp"
	"github.com/featuredp/featuredp/notions/fdp"
	"github.com/featuredp/featuredp/notions/smoothdp"
	"github.com/featuredp/featuredp/release"
)

// swept lists every exported type of the library packages that has an
// exported pointer-receiver method. TestSweepIsComplete keeps it complete.
var swept = []reflect.Type{
	reflect.TypeFor[*accounting.Accountant](),
	reflect.TypeFor[*accounting.Ledger](),
	reflect.TypeFor[*audit.CanaryLLR](),
	reflect.TypeFor[*data.CapError](),
	reflect.TypeFor[*data.Encoded](),
	reflect.TypeFor[*data.Encoder](),
	reflect.TypeFor[*data.ImageSet](),
	reflect.TypeFor[*data.Kind](),
	reflect.TypeFor[*data.NumberSpellingError](),
	reflect.TypeFor[*data.Role](),
	reflect.TypeFor[*data.Scaling](),
	reflect.TypeFor[*data.Task](),
	reflect.TypeFor[*design.Data](),
	reflect.TypeFor[*dpnb.AuditResult](),
	reflect.TypeFor[*dpnb.CorrDPResult](),
	reflect.TypeFor[*dpnb.FeatureDPResult](),
	reflect.TypeFor[*dpnb.PrivacyReportResult](),
	reflect.TypeFor[*dpnb.ReleaseCheck](),
	reflect.TypeFor[*dpnb.SmoothPipelineReport](),
	reflect.TypeFor[*experiments.Memo](),
	reflect.TypeFor[*experiments.MissingDataError](),
	reflect.TypeFor[*experiments.Part](),
	reflect.TypeFor[*experiments.Registry](),
	reflect.TypeFor[*experiments.Results](),
	reflect.TypeFor[*experiments.Work](),
	reflect.TypeFor[*eta.Pace](),
	reflect.TypeFor[*valid.NullError](),
	reflect.TypeFor[*valid.RangeError](),
	reflect.TypeFor[*mechanisms.CryptoSource](),
	reflect.TypeFor[*mechanisms.NoisePlan](),
	reflect.TypeFor[*mechanisms.Release](),
	reflect.TypeFor[*mechanisms.Result](),
	reflect.TypeFor[*mechanisms.ShuffledEpochs](),
	reflect.TypeFor[*mechanisms.Streams](),
	reflect.TypeFor[*models.DDPM](),
	reflect.TypeFor[*models.EmbedLogistic](),
	reflect.TypeFor[*models.LabelSplitSoftmax](),
	reflect.TypeFor[*models.Linear](),
	reflect.TypeFor[*models.LinearStats](),
	reflect.TypeFor[*models.Logistic](),
	reflect.TypeFor[*models.LogisticBlock](),
	reflect.TypeFor[*models.LossDiff](),
	reflect.TypeFor[*models.MLP](),
	reflect.TypeFor[*models.MLPBlock](),
	reflect.TypeFor[*models.Softmax](),
	reflect.TypeFor[*bcdp.Duchi](),
	reflect.TypeFor[*bcdp.LeastSquares](),
	reflect.TypeFor[*bcdp.Mean](),
	reflect.TypeFor[*bcdp.MeanEstimation](),
	reflect.TypeFor[*bcdp.MeanSums](),
	reflect.TypeFor[*corrdp.MultinomialLR](),
	reflect.TypeFor[*corrdp.TVReport](),
	reflect.TypeFor[*fdp.Comparison](),
	reflect.TypeFor[*smoothdp.PCAFit](),
	reflect.TypeFor[*smoothdp.Sequential](),
	reflect.TypeFor[*release.Certificate](),
	reflect.TypeFor[*release.File](),
}

// allowedPanics names, as "pkg.Type.Method", the methods that may panic on
// a nil receiver, each with the reason its documentation states. Unless
// the method is also in runtimePanics, its panic value must say "nil" and
// name the type, as an error would.
var allowedPanics = map[string]string{
	"accounting.Ledger.Relation":        "no error result; the zero Relation is a real relation, so answering it would be a silent wrong answer",
	"design.Data.Row":                   "hot path (called per row); checks nothing, as slice indexing",
	"mechanisms.CryptoSource.Uint64":    "rand.Source has no error result",
	"mechanisms.Streams.Derive":         "no error result; a nil tree has no key, and a zero key would be a public seed",
	"mechanisms.Streams.Split":          "as Derive",
	"mechanisms.Streams.Rand":           "as Derive",
	"mechanisms.Streams.Sampling":       "as Derive (calls Rand)",
	"mechanisms.Streams.PublicSampling": "as Derive (calls Rand)",
	"mechanisms.Streams.Noise":          "as Derive (calls Rand)",
	"mechanisms.Streams.Init":           "as Derive (calls Rand)",
	"bcdp.Mean.LDP":                     "no error result; any level returned would state a privacy guarantee",
	"bcdp.MeanSums.AddUnchecked":        "hot loop without checks by design (Add checks)",
	"bcdp.LeastSquares.AddUnchecked":    "hot loop without checks by design (Add checks)",
	"corrdp.MultinomialLR.Probs":        "no error result; per-row kernel of the TV estimate",
	"corrdp.MultinomialLR.TV":           "no error result; any TV returned would set CorrDP's noise",
	"smoothdp.PCAFit.Apply":             "documented to panic like gonum/mat on a shape error",
}

// runtimePanics names the allowed panics that are Go's own nil
// dereference (hot paths that check nothing per call).
var runtimePanics = map[string]bool{
	"design.Data.Row":                true,
	"bcdp.MeanSums.AddUnchecked":     true,
	"bcdp.LeastSquares.AddUnchecked": true,
}

// modelKernels are the methods of package models that panic on a nil
// model, as its package doc states: they are the per-example gradient
// kernels and accessors of the training hot path, which return no error
// and check nothing per call (mechanisms.Train refuses a nil model first);
// each model's Validate and CheckLabels return an error instead.
var modelKernels = []struct{ typ, methods string }{
	{"DDPM", "AlphaBar Beta ClippedGradSum Draw FeatureParams GradSum Init Loss NumFeatures NumParams PerExampleGradNorms PerExampleGrads WeightedGradSum WithKey"},
	{"EmbedLogistic", "ClippedGradSum Evaluate FeatureParams GradSum Init Loss NumFeatures NumParams PerExampleGradNorms PerExampleGrads ReadsPublicPartOnly WeightedGradSum"},
	{"LabelSplitSoftmax", "Evaluate FeatureParams GradSum Init Loss NumFeatures NumParams PerExampleGradNorms PerExampleGrads ReadsPublicPartOnly WeightedGradSum"},
	{"Linear", "Evaluate FeatureParams GradSum Init Loss NumFeatures NumParams PerExampleGradNorms PerExampleGrads Predict ReadsRowCount WeightedGradSum"},
	{"LinearStats", "Grad GradSum Loss"},
	{"Logistic", "Evaluate FeatureParams GradSum Init Loss NumFeatures NumParams PerExampleGradNorms PerExampleGrads Predict WeightedGradSum"},
	{"LossDiff", "ClippedGradSum FeatureParams GradSum Init Loss NumFeatures NumParams PerExampleGradNorms PerExampleGrads ReadsRowCount WeightedGradSum WithKey"},
	{"MLP", "ClippedGradSum Evaluate FeatureParams FirstLayerBiasParams GradSum HiddenFeatures Init Loss NumFeatures NumParams PerExampleGradNorms PerExampleGrads Predict SecondLayerParams WeightedGradSum"},
	{"Softmax", "BiasParams Evaluate FeatureParams GradSum Init Loss NumFeatures NumParams PerExampleGradNorms PerExampleGrads Predict WeightedGradSum"},
}

func init() {
	for _, k := range modelKernels {
		for _, m := range strings.Fields(k.methods) {
			name := "models." + k.typ + "." + m
			allowedPanics[name] = "models hot path: a nil model panics (package models doc)"
			runtimePanics[name] = true
		}
	}
}

// nilIsValid names the types whose nil pointer is a documented, usable
// value: their methods may return errors about their arguments (the
// receiver is not at fault), but still must not panic.
var nilIsValid = map[string]string{
	"experiments.Memo": "a nil *Memo computes without caching",
	"experiments.Work": "a nil *Work ignores additions",
}

// outcome is what one call on a nil receiver did.
type outcome struct {
	panicked string // the panic value, "" if none
	err      error  // the error result, if the method has one
	tableErr error  // the Err field of a returned struct (a DataFrame's)
	timedOut bool
}

var (
	errorType   = reflect.TypeFor[error]()
	contextType = reflect.TypeFor[context.Context]()
	writerType  = reflect.TypeFor[io.Writer]()
)

// argument is the zero value of t, except that a context is Background and
// a writer is io.Discard: the sweep tests the receiver, not those.
func argument(t reflect.Type) reflect.Value {
	switch {
	case t == contextType:
		return reflect.ValueOf(context.Background())
	case t == writerType:
		return reflect.ValueOf(io.Discard)
	}
	return reflect.Zero(t)
}

// callNil calls method m of the nil pointer type pt with zero arguments.
func callNil(pt reflect.Type, m reflect.Method) outcome {
	ft := m.Type // receiver first
	in := []reflect.Value{reflect.Zero(pt)}
	n := ft.NumIn()
	if ft.IsVariadic() {
		n-- // no variadic arguments
	}
	for i := 1; i < n; i++ {
		in = append(in, argument(ft.In(i)))
	}
	done := make(chan outcome, 1)
	go func() {
		var o outcome
		defer func() {
			if r := recover(); r != nil {
				o.panicked = fmt.Sprint(r)
			}
			done <- o
		}()
		out := m.Func.Call(in)
		for _, v := range out {
			if v.Kind() == reflect.Struct {
				if f := v.FieldByName("Err"); f.IsValid() && f.Type() == errorType && !f.IsNil() {
					o.tableErr = f.Interface().(error)
				}
			}
		}
		if k := ft.NumOut(); k > 0 && ft.Out(k-1) == errorType && !out[k-1].IsNil() {
			o.err = out[k-1].Interface().(error)
		}
	}()
	select {
	case o := <-done:
		return o
	case <-time.After(10 * time.Second):
		return outcome{timedOut: true}
	}
}

// pointerMethods lists the exported methods declared on *T itself (not on
// T, whose methods a nil *T cannot reach without a runtime panic).
func pointerMethods(pt reflect.Type) []reflect.Method {
	var out []reflect.Method
	for i := range pt.NumMethod() {
		m := pt.Method(i)
		if _, onValue := pt.Elem().MethodByName(m.Name); onValue {
			continue
		}
		out = append(out, m)
	}
	return out
}

// typeName is "pkg.Type" for the pointer type *Type of package pkg.
func typeName(pt reflect.Type) string {
	pkg := pt.Elem().PkgPath()
	return pkg[strings.LastIndex(pkg, "/")+1:] + "." + pt.Elem().Name()
}

func methodName(pt reflect.Type, m reflect.Method) string {
	return typeName(pt) + "." + m.Name
}

// namesNil reports whether err says that the receiver is nil and names
// its type.
func namesNil(err error, pt reflect.Type) bool {
	msg := err.Error()
	return strings.Contains(msg, "nil") && strings.Contains(msg, pt.Elem().Name())
}

// TestNilReceivers: no swept method panics on a nil receiver unless
// allowed, and a non-nil error result (or the Err field of a returned
// DataFrame) says "nil" and names the receiver type.
func TestNilReceivers(t *testing.T) {
	seen := map[string]bool{}
	for _, pt := range swept {
		for _, m := range pointerMethods(pt) {
			name := methodName(pt, m)
			seen[name] = true
			t.Run(name, func(t *testing.T) {
				o := callNil(pt, m)
				_, allowed := allowedPanics[name]
				switch {
				case o.timedOut:
					t.Errorf("%s on a nil receiver did not return in 10s", name)
				case o.panicked != "" && !allowed:
					t.Errorf("%s panics on a nil receiver: %s", name, o.panicked)
				case o.panicked == "" && allowed:
					t.Errorf("%s no longer panics on a nil receiver: remove it from allowedPanics", name)
				case o.panicked != "" && !runtimePanics[name] && !namesNil(errors.New(o.panicked), pt):
					t.Errorf("%s panics on a nil receiver with %q, which does not name the nil *%s", name, o.panicked, pt.Elem().Name())
				case o.err != nil && nilIsValid[typeName(pt)] == "" && !namesNil(o.err, pt):
					t.Errorf("%s on a nil receiver: error %q does not name the nil *%s", name, o.err, pt.Elem().Name())
				case o.tableErr != nil && !namesNil(o.tableErr, pt):
					t.Errorf("%s on a nil receiver: returned Err %q does not name the nil *%s", name, o.tableErr, pt.Elem().Name())
				}
			})
		}
	}
	for name := range allowedPanics {
		if !seen[name] {
			t.Errorf("allowedPanics lists %s, which is not a swept method", name)
		}
	}
}

// libraryDirs are the module-relative folders of the library packages.
var libraryDirs = []string{
	"accounting", "audit", "data", "design", "dpnb", "experiments",
	"mechanisms", "models", "release", "notions/bcdp", "notions/corrdp",
	"notions/dpsgd", "notions/fdp", "notions/smoothdp", "internal",
}

// TestSweepIsComplete: every exported type of a library package with an
// exported pointer-receiver method (found in the source) is in swept.
func TestSweepIsComplete(t *testing.T) {
	var listed []string
	for _, pt := range swept {
		listed = append(listed, pt.Elem().PkgPath()+"."+pt.Elem().Name())
	}
	for _, name := range declaredPointerTypes(t) {
		if !slices.Contains(listed, name) {
			t.Errorf("%s has exported pointer-receiver methods: add it to swept", name)
		}
	}
}

// declaredPointerTypes parses the library sources and returns
// "importpath.Type" for each exported type with an exported method on *Type.
func declaredPointerTypes(t *testing.T) []string {
	t.Helper()
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var out []string
	for _, dir := range libraryDirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "figures" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			for _, typ := range pointerReceivers(f) {
				name := "github.com/featuredp/featuredp/" + filepath.ToSlash(rel) + "." + typ
				if !slices.Contains(out, name) {
					out = append(out, name)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// pointerReceivers returns the exported receiver types T of the exported
// methods declared on *T in f.
func pointerReceivers(f *ast.File) []string {
	var out []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || !fn.Name.IsExported() {
			continue
		}
		star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		id, ok := star.X.(*ast.Ident)
		if ok && id.IsExported() {
			out = append(out, id.Name)
		}
	}
	return out
}
