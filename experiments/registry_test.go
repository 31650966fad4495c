package experiments

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func dummyFigure(id, paper string) Figure {
	return Figure{
		ID: id, Paper: paper, Title: "t " + id,
		Cells: func(Profile) ([]Cell, error) { return Grid(id, 1, []string{"m"}, []float64{1, 2}, 2), nil },
		Run: func(_ context.Context, c Cell, _ Env) ([]Measurement, error) {
			return []Measurement{{Metric: "v", Value: c.X}}, nil
		},
	}
}

func TestRegistryRegister(t *testing.T) {
	var r Registry
	if err := r.Register(dummyFigure("bcdp-fig3", "bcdp")); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		name string
		f    Figure
		want string
	}{
		{"duplicate", dummyFigure("bcdp-fig3", "bcdp"), "already registered"},
		{"empty id", dummyFigure("", "bcdp"), "empty ID"},
		{"space in id", dummyFigure("a b", "bcdp"), "space"},
		{"bad paper id", dummyFigure("Nature-1", "Nature"), "not a lower-case word"},
		{"id without its paper", dummyFigure("x-1", "fdp"), "does not start with its paper"},
		{"no run", Figure{ID: "fdp-x", Paper: "fdp", Cells: dummyFigure("fdp-x", "fdp").Cells}, "must both be set"},
		{"bad plot", func() Figure { f := dummyFigure("fdp-y", "fdp"); f.Plot = 9; return f }(), "plot kind"},
	}
	for _, tc := range bad {
		err := r.Register(tc.f)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want mention of %q", tc.name, err, tc.want)
		}
	}
}

func TestRegistrySelect(t *testing.T) {
	var r Registry
	for _, f := range []Figure{dummyFigure("fdp-b", "fdp"), dummyFigure("fdp-a", "fdp"), dummyFigure("bcdp-fig3", "bcdp")} {
		if err := r.Register(f); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(fs []Figure) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return out
	}
	cases := []struct {
		args []string
		want []string
		err  string
	}{
		{nil, []string{"bcdp-fig3", "fdp-a", "fdp-b"}, ""},
		{[]string{"all"}, []string{"bcdp-fig3", "fdp-a", "fdp-b"}, ""},
		{[]string{"fdp"}, []string{"fdp-a", "fdp-b"}, ""},
		{[]string{"fdp-b", "bcdp", "fdp"}, []string{"fdp-b", "bcdp-fig3", "fdp-a"}, ""},
		{[]string{"nope"}, nil, "unknown figure or paper \"nope\" (valid: all, bcdp, fdp, bcdp-fig3, fdp-a, fdp-b)"},
		{[]string{"corrdp"}, nil, "unknown figure or paper \"corrdp\""}, // papers come from registered figures
	}
	for _, tc := range cases {
		got, err := r.Select(tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: err = %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(ids(got), tc.want) {
			t.Errorf("%v: got %v, %v; want %v", tc.args, ids(got), err, tc.want)
		}
	}
	if _, ok := r.Lookup("fdp-a"); !ok {
		t.Error("Lookup failed")
	}
}

func TestParseProfile(t *testing.T) {
	for in, want := range map[string]Profile{"": Quick, "quick": Quick, "FULL": Full} {
		if got, err := ParseProfile(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := ParseProfile("medium"); err == nil {
		t.Error("expected an error")
	}
}

func TestExecuteMissingData(t *testing.T) {
	t.Setenv("FEATUREDP_DATA", "")          // no data directory,
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // and an empty download cache
	f := dummyFigure("corrdp-x", "corrdp")
	f.Datasets = []string{"adult.data", "adult.test"}
	_, err := f.Execute(context.Background(), Quick, Env{}, nil)
	var mde *MissingDataError
	if !errors.As(err, &mde) || !reflect.DeepEqual(mde.Files, f.Datasets) || !strings.Contains(err.Error(), "FEATUREDP_DATA") ||
		!strings.Contains(err.Error(), "featuredp data fetch adult`") {
		t.Fatalf("err = %v", err)
	}
	// A file of a dataset whose other files are present is named alone.
	if got := fetchNames([]string{"adult.test", "insurance.csv", "unknown.csv"}); !reflect.DeepEqual(got, []string{"adult.test", "insurance", "unknown.csv"}) {
		t.Errorf("fetchNames = %v", got)
	}
	// Registry files in the download cache count as present.
	cache := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "featuredp")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range f.Datasets {
		if err := os.WriteFile(filepath.Join(cache, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.MissingDatasets(""); len(got) != 0 {
		t.Fatalf("files in the cache reported missing: %v", got)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "adult.data"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := f.MissingDatasets(dir); !reflect.DeepEqual(got, []string{"adult.test"}) {
		t.Fatalf("missing = %v", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "adult.test"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := f.Execute(context.Background(), "", Env{DataDir: dir, Workers: 2}, nil)
	if err != nil || len(res.Rows) != 4 || res.Rows[0].Figure != "corrdp-x" {
		t.Fatalf("execute: %v %v", res, err)
	}
	if _, err := f.Execute(context.Background(), "huge", Env{DataDir: dir}, nil); err == nil {
		t.Fatal("bad profile: expected an error")
	}
}

func TestCellSeed(t *testing.T) {
	a := CellSeed(1, "fig", "m", 0.5, 0)
	if a != CellSeed(1, "fig", "m", 0.5, 0) {
		t.Fatal("not deterministic")
	}
	others := []uint64{
		CellSeed(2, "fig", "m", 0.5, 0), CellSeed(1, "fig2", "m", 0.5, 0), CellSeed(1, "fig", "m2", 0.5, 0),
		CellSeed(1, "fig", "m", 0.25, 0), CellSeed(1, "fig", "m", 0.5, 1),
		// Length prefixes: moving a character between figure and method changes the seed.
		CellSeed(1, "fi", "gm", 0.5, 0),
	}
	for i, o := range others {
		if o == a {
			t.Errorf("variant %d collides", i)
		}
	}
	if CellSeed(1, "f", "m", 0, 0) != CellSeed(1, "f", "m", negZero(), 0) {
		t.Error("−0 and +0 should give the same seed")
	}
}

func negZero() float64 { z := 0.0; return -z }

// TestSelectReuses: a figure that reuses another selected one runs right
// after it (chains in turn); otherwise the order is kept; a cycle of
// reuses loses no figure.
func TestSelectReuses(t *testing.T) {
	var r Registry
	reusing := func(id, of string) Figure { f := dummyFigure(id, "fdp"); f.Reuses = of; return f }
	for _, f := range []Figure{dummyFigure("fdp-a", "fdp"), dummyFigure("fdp-b", "fdp"), reusing("fdp-c", "fdp-a"),
		reusing("fdp-d", "fdp-c"), reusing("fdp-x", "fdp-y"), reusing("fdp-y", "fdp-x")} {
		if err := r.Register(f); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ args, want []string }{
		{[]string{"fdp"}, []string{"fdp-a", "fdp-c", "fdp-d", "fdp-b", "fdp-x", "fdp-y"}},
		{[]string{"fdp-c", "fdp-b"}, []string{"fdp-c", "fdp-b"}},
		{[]string{"fdp-d", "fdp-b", "fdp-c"}, []string{"fdp-b", "fdp-c", "fdp-d"}},
		{[]string{"fdp-y", "fdp-x"}, []string{"fdp-y", "fdp-x"}},
	} {
		got, err := r.Select(tc.args)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, f := range got {
			ids = append(ids, f.ID)
		}
		if !reflect.DeepEqual(ids, tc.want) {
			t.Errorf("%v: got %v, want %v", tc.args, ids, tc.want)
		}
	}
}
