package numeric

import (
	"math"
	"testing"
)

// Reference values from mpmath at 40 digits.
func TestLogErfcAndErfcx(t *testing.T) {
	for _, tc := range []struct{ x, logErfcx, logErfc float64 }{
		{-30, 900.69314718055994531, 0.69314718055994530942},
		{-5, 25.69314718055917658, 0.69314718055917657952},
		{-0.5, 0.66903914777555958036, 0.41903914777555958036},
		{0, 0, 0},
		{0.3, -0.30843005144008527593, -0.3984300514400852726},
		{2, -1.3649412646166375745, -5.3649412646166375745},
		{9.99, -2.8788982977683354046, -102.67899829776833588},
		{10, -2.8798890248448885748, -102.87988902484488857},
		{10.01, -2.8808787807320340035, -103.08097878073202595},
		{25.9, -3.827351895319233537, -674.63735189531917897},
		{26.1, -3.8350329033094130088, -685.04503290330944939},
		{100, -5.1775851226643325705, -10005.177585122664333},
		{1e5, -12.085290407944928507, -10000000012.085290408},
	} {
		if got := LogErfcx(tc.x); !near(got, tc.logErfcx, 1e-13, 1e-15) {
			t.Errorf("LogErfcx(%v) = %.17g, want %.17g", tc.x, got, tc.logErfcx)
		}
		if got := LogErfc(tc.x); !near(got, tc.logErfc, 1e-13, 1e-15) {
			t.Errorf("LogErfc(%v) = %.17g, want %.17g", tc.x, got, tc.logErfc)
		}
		if got, want := Erfcx(tc.x), math.Exp(tc.logErfcx); !math.IsInf(want, 1) && !near(got, want, 1e-13, 0) {
			t.Errorf("Erfcx(%v) = %.17g, want %.17g", tc.x, got, want)
		}
	}
	if v := Erfcx(math.Inf(1)); v != 0 {
		t.Errorf("Erfcx(+Inf) = %v", v)
	}
	if v := Erfcx(-27); !math.IsInf(v, 1) {
		t.Errorf("Erfcx(-27) = %v", v)
	}
	if v := LogErfc(math.Inf(1)); !math.IsInf(v, -1) {
		t.Errorf("LogErfc(+Inf) = %v", v)
	}
}

func TestLogNormCDF(t *testing.T) {
	for _, tc := range []struct{ x, want float64 }{
		{-40, -804.60844201375378817},
		{-37.6, -711.42664867077626811},
		{-20, -203.91715537109726394},
		{-5, -15.064998393988725736},
		{0, -0.69314718055994530942},
		{3, -0.0013508099647481937988},
		{6, -9.8658764552437573169e-10},
		{40, 0},
	} {
		if got := LogNormCDF(tc.x); !near(got, tc.want, 1e-13, 1e-300) {
			t.Errorf("LogNormCDF(%v) = %.17g, want %.17g", tc.x, got, tc.want)
		}
	}
}

func TestLogAdd(t *testing.T) {
	if v := LogAdd(math.Log(2), math.Log(3)); !near(v, math.Log(5), 1e-15, 0) {
		t.Errorf("logAdd = %v", v)
	}
	if v := LogAdd(math.Inf(-1), 1); v != 1 {
		t.Errorf("LogAdd(-Inf, 1) = %v", v)
	}
	if v := LogAdd(1000, 1000); !near(v, 1000+math.Ln2, 1e-15, 0) {
		t.Errorf("logAdd overflow: %v", v)
	}
}

func near(got, want, rel, abs float64) bool {
	if math.IsInf(want, 0) {
		return got == want
	}
	d := math.Abs(got - want)
	return d <= abs || d <= rel*math.Abs(want)
}

func TestNormQuantile(t *testing.T) {
	for _, p := range []float64{1e-320, 1e-300, 1e-100, 1e-30, 1e-20, 1e-16, 1e-10, 1e-3, 0.1, 0.3, 0.5} {
		x := NormQuantile(p)
		if got := LogNormCDF(x); math.Abs(got-math.Log(p)) > 1e-12*math.Max(1, math.Abs(math.Log(p))) {
			t.Errorf("p = %v: Φ(Φ⁻¹(p)) = exp(%v), want exp(%v)", p, got, math.Log(p))
		}
	}
	for _, p := range []float64{0.6, 0.9, 0.999} {
		if x := NormQuantile(p); math.Abs(NormCDF(x)-p) > 1e-14 {
			t.Errorf("p = %v: Φ(x) = %v", p, NormCDF(x))
		}
	}
	if !math.IsInf(NormQuantile(0), -1) || !math.IsInf(NormQuantile(1), 1) || !math.IsNaN(NormQuantile(math.NaN())) {
		t.Error("ends")
	}
}
