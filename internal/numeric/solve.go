package numeric

import "math"

// BrentDecreasing finds the root of a function g that is decreasing on
// [lo, hi] with g(lo) > 0 >= g(hi), by Brent's method (inverse quadratic
// interpolation and secant steps, safeguarded by bisection). It returns the
// final bracket (lo, hi), which still satisfies g(lo) > 0 >= g(hi) and has
// hi − lo <= rtol·|hi| (or was shrunk for 200 iterations), or lo == hi
// when g vanishes there exactly. Callers that
// need a conservative answer take hi (the side where g <= 0).
func BrentDecreasing(g func(float64) float64, lo, hi, glo, ghi, rtol float64) (float64, float64) {
	// Classic zeroin on the bracket, keeping track of which end has g <= 0.
	a, b, fa, fb := lo, hi, glo, ghi
	c, fc := a, fa
	d := b - a
	e := d
	for iter := 0; iter < 200; iter++ {
		if (fb > 0) == (fc > 0) {
			c, fc = a, fa
			d = b - a
			e = d
		}
		if math.Abs(fc) < math.Abs(fb) {
			a, b, c = b, c, b
			fa, fb, fc = fb, fc, fb
		}
		tol := 2*math.SmallestNonzeroFloat64 + 0.5*rtol*math.Abs(b)
		m := 0.5 * (c - b)
		if math.Abs(m) <= tol || fb == 0 {
			break
		}
		if math.Abs(e) >= tol && math.Abs(fa) > math.Abs(fb) {
			var p, qq float64
			s := fb / fa
			if a == c {
				p = 2 * m * s
				qq = 1 - s
			} else {
				qq = fa / fc
				r := fb / fc
				p = s * (2*m*qq*(qq-r) - (b-a)*(r-1))
				qq = (qq - 1) * (r - 1) * (s - 1)
			}
			if p > 0 {
				qq = -qq
			} else {
				p = -p
			}
			if 2*p < math.Min(3*m*qq-math.Abs(tol*qq), math.Abs(e*qq)) {
				e = d
				d = p / qq
			} else {
				d = m
				e = d
			}
		} else {
			d = m
			e = d
		}
		a, fa = b, fb
		if math.Abs(d) > tol {
			b += d
		} else if m > 0 {
			b += tol
		} else {
			b -= tol
		}
		fb = g(b)
		if math.IsNaN(fb) {
			break
		}
	}
	// b and c bracket the root (opposite signs), or b is a root.
	if fb == 0 {
		return b, b
	}
	if fb > 0 {
		return b, c
	}
	if math.IsNaN(fb) {
		return lo, hi
	}
	return c, b
}
