package data

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/featuredp/featuredp/internal/valid"
)

// ErrNotDecimal is wrapped by ParseNumber's error for text that
// strconv.ParseFloat would read but that is not a plain decimal number: a
// hexadecimal float ("0x1p3"), digits separated by underscores ("1_000"),
// or an infinity or NaN spelt out.
var ErrNotDecimal = errors.New("not a decimal number")

// ParseNumber reads a cell of a continuous column as every reader of this
// package does (ReadCSV's type detection, NumericAt, EncodeCSV and so
// PredictCSV): spaces around it trimmed (strings.TrimSpace), then a plain
// decimal — an optional sign, digits with an optional decimal point and an
// optional exponent ("40", "-1.5", ".5", "4e1") — that is finite in
// float64. Anything else is an error, notably what strconv.ParseFloat
// would accept but a spreadsheet or another reader would not read as the
// same number: hex floats, underscores between digits, "Inf", "NaN" (a
// missing value is the caller's to recognise first), thousands separators.
func ParseNumber(s string) (float64, error) {
	t := strings.TrimSpace(s)
	if !isDecimal(t) {
		return 0, fmt.Errorf("%q: %w (write it with digits, an optional point and exponent)", s, ErrNotDecimal)
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !valid.Finite(v) {
		return 0, fmt.Errorf("%q is not a finite float64: %w", s, overflowError())
	}
	return v, nil
}

// overflowError says what to do with a decimal beyond float64's range.
func overflowError() error {
	return fmt.Errorf("its magnitude is above %g: rescale the column (divide it by a power of ten)", math.MaxFloat64)
}

// isDecimal reports whether s is [+-]? (d+ (. d*)? | . d+) ([eE] [+-]? d+)?.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	mant := digits()
	if i < len(s) && s[i] == '.' {
		i++
		mant += digits()
	}
	if mant == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}
