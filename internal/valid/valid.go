// Package valid holds the small input checks shared by the mechanisms of
// the core and of the notions.
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
