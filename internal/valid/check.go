package valid

import (
	"fmt"
	"math"
)

// RangeError reports a parameter outside its valid range. Its message,
// "Name = Value, want Want", names the parameter, its value and the range,
// so that a caller only adds its own context (package and function):
//
//	fmt.Errorf("smoothdp: Gaussian: %w", valid.Positive("σ", sigma))
type RangeError struct {
	Name  string  // parameter name as the caller spells it, e.g. "σ" or "TV[3]"
	Value float64 // the rejected value
	Want  string  // the valid range, e.g. "finite > 0" or "in [0, 1]"
}

// Error implements error (for a nil *RangeError, says so).
func (e *RangeError) Error() string {
	if e == nil {
		return "valid: nil *RangeError (no value out of range)"
	}
	return fmt.Sprintf("%s = %v, want %s", e.Name, e.Value, e.Want)
}

// check returns nil if ok, else a *RangeError for name = x.
func check(ok bool, name string, x float64, want string) error {
	if ok {
		return nil
	}
	return &RangeError{Name: name, Value: x, Want: want}
}

// FiniteValue returns an error unless x is neither NaN nor ±Inf.
func FiniteValue(name string, x float64) error {
	return check(Finite(x), name, x, "finite")
}

// Positive returns an error unless x is finite and x > 0 (NaN and +Inf are
// rejected), the range of a scale such as σ, a sensitivity or ε.
func Positive(name string, x float64) error {
	return check(x > 0 && !math.IsInf(x, 1), name, x, "finite > 0")
}

// NonNegative returns an error unless x is finite and x ≥ 0 (NaN and +Inf
// are rejected), the range of a penalty, a radius or a noise level that
// may be zero.
func NonNegative(name string, x float64) error {
	return check(x >= 0 && !math.IsInf(x, 1), name, x, "finite ≥ 0")
}

// Above returns an error unless x is finite and x > lo, e.g. a Rényi order
// α > 1.
func Above(name string, x, lo float64) error {
	return check(x > lo && !math.IsInf(x, 1), name, x, fmt.Sprintf("finite > %v", lo))
}

// AtLeast returns an error unless x is finite and x ≥ lo.
func AtLeast(name string, x, lo float64) error {
	return check(x >= lo && !math.IsInf(x, 1), name, x, fmt.Sprintf("finite ≥ %v", lo))
}

// Unit returns an error unless 0 ≤ x ≤ 1 (NaN is rejected), the range of a
// probability, a total-variation distance or a correlation level.
func Unit(name string, x float64) error {
	return check(x >= 0 && x <= 1, name, x, "in [0, 1]")
}

// Closed returns an error unless lo ≤ x ≤ hi (NaN is rejected), e.g. a
// record in [−1, 1].
func Closed(name string, x, lo, hi float64) error {
	return check(x >= lo && x <= hi, name, x, fmt.Sprintf("in [%v, %v]", lo, hi))
}

// Open01 returns an error unless 0 < x < 1 (NaN is rejected), the range of
// the δ of (ε, δ)-DP.
func Open01(name string, x float64) error {
	return check(x > 0 && x < 1, name, x, "in (0, 1)")
}

// Probability returns an error unless 0 < x ≤ 1 (NaN is rejected), the
// range of a sampling rate or a confidence level that may be one.
func Probability(name string, x float64) error {
	return check(x > 0 && x <= 1, name, x, "in (0, 1]")
}

// First returns the first non-nil error of errs, or nil: it runs a list of
// checks and reports the first failure, in the order given, e.g.
//
//	valid.First(valid.Positive("ε", eps), valid.Open01("δ", delta))
func First(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// FiniteSlice returns an error naming the first NaN or ±Inf of v as
// name[i], or nil if every value is finite.
func FiniteSlice(name string, v []float64) error {
	if i := FirstNonFinite(v); i >= 0 {
		return FiniteValue(fmt.Sprintf("%s[%d]", name, i), v[i])
	}
	return nil
}

// UnitSlice returns an error naming the first value of v outside [0, 1]
// (or NaN) as name[i], or nil if every value is in [0, 1].
func UnitSlice(name string, v []float64) error {
	for i, x := range v {
		if err := Unit(fmt.Sprintf("%s[%d]", name, i), x); err != nil {
			return err
		}
	}
	return nil
}
