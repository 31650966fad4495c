package main

import (
	"bytes"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// numberFlags are every float and integer flag of every command, with
// the arguments (tail) that make the command stop right after its flags
// were read should a value be accepted: no audit or figure runs.
var numberFlags = []struct {
	cmd, tail []string
	float     []string
	ints      []string
}{
	{[]string{"epsilon"}, nil, []string{"sample-rate", "noise-multiplier", "delta"}, nil},
	{[]string{"sigma"}, nil, []string{"epsilon", "delta", "sample-rate"}, nil},
	{[]string{"gaussian"}, nil, []string{"epsilon", "delta", "sensitivity"}, nil},
	{[]string{"report"}, nil, []string{"epsilon", "delta"}, []string{"max-duplicates", "max-missing", "max-bytes", "max-line-bytes", "max-columns", "max-cells"}},
	{[]string{"train"}, nil, []string{"epsilon", "delta", "sample-rate", "epochs", "clip", "lr"}, []string{"hidden", "rows", "seed", "max-line-bytes"}},
	{[]string{"predict"}, nil, nil, []string{"max-line-bytes"}},
	{[]string{"audit"}, []string{"--only", "no-such-audit"}, nil, []string{"trials", "seed"}},
	{[]string{"reproduce"}, []string{"--list", "no-such-figure"}, nil, []string{"workers"}},
}

// Every float flag refuses what strconv.ParseFloat reads but a plain
// decimal is not (the old flag.Float64 read 0x1p-3 as 0.125, 1_0 as 10,
// and NaN and Inf), and every integer flag refuses what flag.Int's base 0
// reads (0x10, 0b11, 0o17, 1_000); each error names the flag and the fix.
func TestNumberFlagsRefuseNonDecimal(t *testing.T) {
	badFloat := []string{"0x1p-3", "1_0", "NaN", "nan", "Inf", "+Inf", "-infinity", "1e999", "1,5", ""}
	badInt := []string{"0x10", "0X10", "0b11", "0o17", "1_000", "1e3", "1.0", "NaN", "", "99999999999999999999"}
	for _, c := range numberFlags {
		for _, set := range []struct {
			names []string
			bad   []string
			fix   string
		}{{c.float, badFloat, "plain decimal such as 0.5 or 1e-5"}, {c.ints, badInt, "integer"}} {
			for _, name := range set.names {
				for _, v := range set.bad {
					args := append(append(append([]string{}, c.cmd...), "--"+name, v), c.tail...)
					code, _, errs := runReproduceCLI(args...)
					want := `invalid value "` + v + `" for flag --` + name + ": "
					if code != 2 || !strings.Contains(errs, want) || !strings.Contains(errs, set.fix) {
						t.Errorf("%q: code %d, stderr %q, want %q … %q", args, code, errs, want, set.fix)
					}
				}
			}
		}
	}
}

// Plain decimals, exponents and spaces around the number (trimmed, as
// data.ParseNumber trims a cell and --bounds and --q do) are read.
func TestNumberFlagsAccept(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{{"0.125", 0.125}, {"1e-5", 1e-5}, {"1E-5", 1e-5}, {".5", 0.5}, {"5.", 5}, {"-2", -2}, {"+2.5", 2.5}, {" 1 ", 1}, {"10", 10}} {
		var v float64
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		floatVar(fs, &v, "x", 7, "")
		if err := fs.Parse([]string{"--x", tc.in}); err != nil || v != tc.want {
			t.Errorf("float %q: %v, %v; want %v", tc.in, v, err, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want int64
	}{{"17", 17}, {"017", 17}, {"-1", -1}, {"+3", 3}, {" 42 ", 42}, {"9223372036854775807", math.MaxInt64}} {
		var n int64
		var i int
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		intVar(fs, &n, "n", 7, "")
		intVar(fs, &i, "i", 7, "")
		if err := fs.Parse([]string{"--n", tc.in, "--i", tc.in}); err != nil || n != tc.want || int64(i) != tc.want {
			t.Errorf("int %q: %d, %d, %v; want %d", tc.in, n, i, err, tc.want)
		}
	}
	var u uint64
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	intVar(fs, &u, "u", 7, "")
	if err := fs.Parse([]string{"--u", "18446744073709551615"}); err != nil || u != math.MaxUint64 {
		t.Errorf("uint64 max: %d, %v", u, err)
	}
	if err := fs.Parse([]string{"--u", "-1"}); err == nil || !strings.Contains(err.Error(), "non-negative integer") {
		t.Errorf("uint64 -1: %v", err)
	}
	// Through a command: exponents in every float flag and --steps.
	code, out, errs := runReproduceCLI("epsilon", "--sample-rate", "1e-2", "--noise-multiplier", "1.1", "--steps", "1e3", "--delta", "1e-5")
	if code != 0 || !strings.HasPrefix(out, "epsilon ") {
		t.Errorf("epsilon with exponents: code %d, %q %q", code, out, errs)
	}
}

// The steps, phases and order lists of the accountant commands read
// their numbers as the float flags do; inf stays an order.
func TestAccountantListsRefuseNonDecimal(t *testing.T) {
	base := []string{"--sample-rate", "0.01", "--noise-multiplier", "1.1", "--delta", "1e-5"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"epsilon", "--steps", "0x1p4"}, base...), "decimal digits such as 1000 or 1e6"},
		{append([]string{"epsilon", "--steps", "1_000"}, base...), "decimal digits such as 1000 or 1e6"},
		{append([]string{"epsilon", "--steps", "-5"}, base...), "negative: want a step count T ≥ 0"},
		{[]string{"epsilon", "--phase", "0x1p-7,1.1,100", "--delta", "1e-5"}, "plain decimal numbers"},
		{[]string{"epsilon", "--phase", "0.01,1_1,100", "--delta", "1e-5"}, "plain decimal numbers"},
		{[]string{"epsilon", "--phase", "0.01,1.1,0x64", "--delta", "1e-5"}, "plain decimal numbers"},
		{append([]string{"epsilon", "--steps", "100", "--orders", "2,0x1p3"}, base...), `order "0x1p3" is not a plain decimal`},
		{append([]string{"epsilon", "--steps", "100", "--orders", "2,1_0"}, base...), `order "1_0" is not a plain decimal`},
		{[]string{"sigma", "--epsilon", "1", "--delta", "1e-5", "--sample-rate", "0.01", "--steps", "100", "--method", "exact", "--orders", "2,0x1p3"}, `order "0x1p3"`},
	} {
		code, _, errs := runReproduceCLI(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: code %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
	for _, orders := range []string{"2,8,inf", "1.5, 32, 1e3", "opacus", "TFP"} {
		if code, _, errs := runReproduceCLI(append([]string{"epsilon", "--steps", "100", "--orders", orders}, base...)...); code != 0 {
			t.Errorf("--orders %q: code %d, %s", orders, code, errs)
		}
	}
}

// The train command reads --orders as the accountant commands do.
func TestTrainOrdersRefuseNonDecimal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "d.csv")
	if err := os.WriteFile(path, []byte("a,y\n1,0\n2,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runReproduceCLI("train", "--csv", path, "--label", "y", "--sensitive", "a", "--bounds", "a=0:3", "--levels", "y=0|1",
		"--epsilon", "1", "--orders", "2,0x1p3", "--out", filepath.Join(dir, "m.json"))
	if code != 2 || !strings.Contains(errs, `--orders: order "0x1p3" is not a plain decimal`) {
		t.Errorf("code %d, stderr %q", code, errs)
	}
}

// printDefaults prints the help of floatFlag and intFlag flags exactly as
// flag.PrintDefaults prints the standard Float64, Int, Int64 and Uint64
// flags they replace: type names, back-quoted names, defaults.
func TestPrintDefaultsAsStandard(t *testing.T) {
	std := flag.NewFlagSet("t", flag.ContinueOnError)
	ours := flag.NewFlagSet("t", flag.ContinueOnError)
	std.Float64("a", 0, "zero default")
	float64Flag(ours, "a", 0, "zero default")
	std.Float64("b", 1e-5, "a `D` in (0, 1)")
	float64Flag(ours, "b", 1e-5, "a `D` in (0, 1)")
	std.Int("c", 32, "hidden units")
	intFlagOf(ours, "c", 32, "hidden units")
	std.Int64("d", 4<<20, "bytes (-1: none)")
	intFlagOf[int64](ours, "d", 4<<20, "bytes (-1: none)")
	std.Uint64("e", 0, "seed")
	intFlagOf[uint64](ours, "e", 0, "seed")
	std.Uint64("f", 1, "seed `S`")
	intFlagOf[uint64](ours, "f", 1, "seed `S`")
	std.Int("g", 0, "none")
	intFlagOf(ours, "g", 0, "none")
	std.String("h", "x", "a string")
	ours.String("h", "x", "a string")
	var want, got bytes.Buffer
	std.SetOutput(&want)
	std.PrintDefaults()
	printDefaults(ours, &got)
	if got.String() != want.String() {
		t.Errorf("printDefaults:\n%s\nflag.PrintDefaults:\n%s", got.String(), want.String())
	}
}

// No command defines a number flag with the standard flag package's
// Float64, Int, Int64, Uint or Uint64 (which read hex, underscores, Inf
// and NaN): each uses floatVar, float64Flag, intVar or intFlagOf.
func TestNoStandardNumberFlags(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	std := regexp.MustCompile(`\.(Float64|Int|Int64|Uint|Uint64|Duration)(Var)?\(`)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if std.MatchString(line) && !strings.Contains(line, "shadow.") {
				t.Errorf("%s:%d: a standard number flag: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}
