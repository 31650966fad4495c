package valid

import (
	"errors"
	"math"
	"strings"
	"testing"
)

var (
	nan  = math.NaN()
	pInf = math.Inf(1)
	nInf = math.Inf(-1)
)

// checks names each scalar check with its definition, written out
// independently of the implementation.
var checks = []struct {
	name string
	fn   func(string, float64) error
	ok   func(float64) bool
}{
	{"FiniteValue", FiniteValue, func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }},
	{"Positive", Positive, func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) && x > 0 }},
	{"NonNegative", NonNegative, func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) && x >= 0 }},
	{"Above1", func(n string, x float64) error { return Above(n, x, 1) }, func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) && x > 1 }},
	{"AtLeast1.5", func(n string, x float64) error { return AtLeast(n, x, 1.5) }, func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) && x >= 1.5 }},
	{"Closed-1,1", func(n string, x float64) error { return Closed(n, x, -1, 1) }, func(x float64) bool { return !math.IsNaN(x) && x >= -1 && x <= 1 }},
	{"Unit", Unit, func(x float64) bool { return !math.IsNaN(x) && x >= 0 && x <= 1 }},
	{"Open01", Open01, func(x float64) bool { return !math.IsNaN(x) && x > 0 && x < 1 }},
	{"Probability", Probability, func(x float64) bool { return !math.IsNaN(x) && x > 0 && x <= 1 }},
}

func TestChecks(t *testing.T) {
	for _, c := range checks {
		for _, x := range []float64{nan, pInf, nInf, -1, math.Copysign(0, -1), 0, math.SmallestNonzeroFloat64, 0.5, 1, math.Nextafter(1, 2), 1.5, 2, math.MaxFloat64} {
			assertCheck(t, c.name, c.fn, c.ok, x)
		}
	}
}

// assertCheck verifies that fn accepts x exactly when ok(x), and that a
// rejection is a *RangeError naming the parameter and its value.
func assertCheck(t *testing.T, name string, fn func(string, float64) error, ok func(float64) bool, x float64) {
	t.Helper()
	err := fn("σ", x)
	if (err == nil) != ok(x) {
		t.Errorf("%s(σ, %v) = %v, want accepted %v", name, x, err, ok(x))
	}
	if err == nil {
		return
	}
	var re *RangeError
	if !errors.As(err, &re) || re.Name != "σ" || !(re.Value == x || math.IsNaN(x) && math.IsNaN(re.Value)) || re.Want == "" {
		t.Errorf("%s(σ, %v) error = %#v, want *RangeError naming σ and its value", name, x, err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "σ = ") || !strings.Contains(msg, ", want ") {
		t.Errorf("%s(σ, %v) message %q, want \"σ = <value>, want <range>\"", name, x, msg)
	}
}

func TestSliceChecks(t *testing.T) {
	for _, c := range []struct {
		fn      func(string, []float64) error
		v       []float64
		wantMsg string // "" for accepted
	}{
		{FiniteSlice, nil, ""},
		{FiniteSlice, []float64{0, -1, 1e300}, ""},
		{FiniteSlice, []float64{0, nan, pInf}, "x[1] = NaN, want finite"},
		{FiniteSlice, []float64{0, 1, nInf}, "x[2] = -Inf, want finite"},
		{UnitSlice, []float64{0, 0.5, 1}, ""},
		{UnitSlice, []float64{0, 1.5, nan}, "x[1] = 1.5, want in [0, 1]"},
		{UnitSlice, []float64{nan}, "x[0] = NaN, want in [0, 1]"},
		{UnitSlice, []float64{1, -0.1}, "x[1] = -0.1, want in [0, 1]"},
	} {
		err := c.fn("x", c.v)
		switch {
		case c.wantMsg == "" && err != nil:
			t.Errorf("%v: unexpected error %v", c.v, err)
		case c.wantMsg != "" && (err == nil || err.Error() != c.wantMsg):
			t.Errorf("%v: error %v, want %q", c.v, err, c.wantMsg)
		}
	}
}

func TestFirst(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	for _, c := range []struct {
		errs []error
		want error
	}{
		{nil, nil},
		{[]error{nil, nil}, nil},
		{[]error{nil, a, b}, a},
		{[]error{b, a}, b},
	} {
		if got := First(c.errs...); got != c.want {
			t.Errorf("First(%v) = %v, want %v", c.errs, got, c.want)
		}
	}
}

// FuzzChecks verifies every scalar check against its definition on
// arbitrary bit patterns (all NaN payloads, subnormals, ±0, ±Inf).
func FuzzChecks(f *testing.F) {
	for _, x := range []float64{nan, pInf, nInf, 0, 1, 0.5, -1, 1.5} {
		f.Add(math.Float64bits(x))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		for _, c := range checks {
			assertCheck(t, c.name, c.fn, c.ok, x)
		}
		if err, i := FiniteSlice("x", []float64{1, x}), FirstNonFinite([]float64{1, x}); (err == nil) != (i < 0) {
			t.Errorf("FiniteSlice(%v) = %v but FirstNonFinite = %d", x, err, i)
		}
	})
}
