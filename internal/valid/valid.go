// Package valid holds the small input checks shared by the mechanisms of
// the core and of the notions.
package valid

import (
	"math"
	"reflect"
)

// Finite reports whether x is neither NaN nor ±Inf.
func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

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
