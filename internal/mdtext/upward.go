package mdtext

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Upward formats x with digits significant digits rounded towards +∞:
// %.{digits}g when that text's value is not below x, else the next
// decimal of digits significant digits above it. A bound printed for
// people — ε, δ, an attribute-inference bound — is then never below the
// exact value it states (%.4g printed ε = 1.23444 as 1.234, an
// understated guarantee). x ≥ 0 is the intended use; a negative x is
// rounded towards +∞ too (towards zero).
func Upward(x float64, digits int) string {
	s := strconv.FormatFloat(x, 'g', digits, 64)
	if v, err := strconv.ParseFloat(s, 64); err != nil || !(v < x) || math.IsInf(x, 0) {
		return s
	}
	// x = ±d.ddd×10^e rounded down at its last digit: add one unit there.
	mant, exp, _ := strings.Cut(strconv.FormatFloat(x, 'e', digits-1, 64), "e")
	m, err1 := strconv.ParseInt(strings.Replace(mant, ".", "", 1), 10, 64)
	e, err2 := strconv.Atoi(exp)
	if err1 != nil || err2 != nil {
		return s // unreachable: FormatFloat's 'e' form parses
	}
	y, err := strconv.ParseFloat(fmt.Sprintf("%de%d", m+1, e-(digits-1)), 64)
	if err != nil {
		return s
	}
	return strconv.FormatFloat(y, 'g', digits, 64)
}
