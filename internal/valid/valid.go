// Package valid holds the input checks shared by the core and the notions,
// in the manner of Google DP's checks package: one place that states each
// range. The error-returning checks (Positive, NonNegative, Above, AtLeast,
// Unit, Open01, Probability, Closed, FiniteValue, FiniteSlice, UnitSlice)
// return a *RangeError "name = value, want range"; the caller adds its
// package and function:
//
//	if err := valid.Open01("δ", delta); err != nil {
//		return fmt.Errorf("corrdp: TVTilde: %w", err)
//	}
//
// Finite, FirstNonFinite and IsNil are the predicates for code that words
// its own message. A NaN fails every check. JSONNulls finds a JSON null
// that decoding would read as a zero value (a *NullError).
package valid

import (
	"math"
	"reflect"
)

// Finite reports whether x is neither NaN nor ±Inf.
func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// FirstNonFinite returns the index of the first NaN or ±Inf in v, or −1
// if every value is finite. It ORs the exponent test of all values without
// branching first (a non-finite value has all exponent bits set), so the
// common all-finite case costs one pass of integer operations.
func FirstNonFinite(v []float64) int {
	var bad uint64
	for _, x := range v {
		bad |= ((math.Float64bits(x)>>52)&0x7ff + 1) >> 11
	}
	if bad == 0 {
		return -1
	}
	for j, x := range v {
		if !Finite(x) {
			return j
		}
	}
	return -1
}

// IsNil reports whether v is nil or an interface holding a nil pointer,
// map, slice, function or interface (whose methods would panic).
func IsNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
