package mdtext

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// Upward never prints a value below x, with at most digits significant
// digits, and prints %.{digits}g whenever that is not below x.
func TestUpward(t *testing.T) {
	for _, tc := range []struct {
		x      float64
		digits int
		want   string
	}{
		{1.2344399999999998, 4, "1.235"}, // %.4g: 1.234, below
		{1.9999999999999891, 4, "2"},     // %.4g rounds up already
		{1.23456e-6, 3, "1.24e-06"},      // %.3g: 1.23e-06, below
		{1e-5, 3, "1e-05"},
		{9.9991, 4, "10"},       // the carry adds a digit to the exponent
		{-1.23449, 4, "-1.234"}, // towards +∞
		{0, 4, "0"},
		{math.Inf(1), 4, "+Inf"},
	} {
		if got := Upward(tc.x, tc.digits); got != tc.want {
			t.Errorf("Upward(%v, %d) = %q, want %q", tc.x, tc.digits, got, tc.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		x := math.Exp(r.NormFloat64()*20) * float64(1-2*r.IntN(2))
		d := 1 + r.IntN(8)
		s := Upward(x, d)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v < x {
			t.Fatalf("Upward(%v, %d) = %q: below x (%v)", x, d, s, err)
		}
		if near := fmt.Sprintf("%.*g", d, x); s != near {
			if nv, _ := strconv.ParseFloat(near, 64); nv >= x {
				t.Fatalf("Upward(%v, %d) = %q, but %%.%dg = %q is not below x", x, d, s, d, near)
			}
		}
		if mant, _, _ := strings.Cut(strings.TrimLeft(s, "-"), "e"); len(strings.TrimLeft(strings.Replace(mant, ".", "", 1), "0")) > d {
			t.Fatalf("Upward(%v, %d) = %q: more than %d significant digits", x, d, s, d)
		}
	}
}
