package numeric

import (
	"math"
	"testing"
)

// TestLogSubnormal: math.Log on amd64 returns about −709.09 for every
// subnormal; Log must match mpmath (40 digits) there and equal math.Log
// bit for bit on normal arguments.
func TestLogSubnormal(t *testing.T) {
	for _, tc := range []struct{ x, want float64 }{
		{5e-324, -744.44007192138126231},
		{1e-320, -736.82724089097390615},
		{3e-315, -724.21569200432771148},
		{1e-310, -713.8013788281541651},
		{2.225073858507201e-308, -708.39641853226410645},
	} {
		if got := Log(tc.x); !near(got, tc.want, 2e-16, 0) {
			t.Errorf("Log(%v) = %.17g, want %.17g", tc.x, got, tc.want)
		}
	}
	for _, x := range []float64{0x1p-1022, 1e-300, 0.5, 1, 3, 1e300, math.MaxFloat64, 0, -1, math.Inf(1)} {
		if got, want := Log(x), math.Log(x); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("Log(%v) = %v, math.Log gives %v", x, got, want)
		}
	}
}

// FuzzLogSubnormal: for any positive x, Log(x) agrees with
// Log(x·2^k) − k·ln 2 for a scaling 2^k that makes x·2^k normal.
func FuzzLogSubnormal(f *testing.F) {
	f.Add(uint64(1))
	f.Add(uint64(1) << 40)
	f.Add(uint64(1)<<52 - 1)
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits &^ (1 << 63))
		if !(x > 0) || math.IsInf(x, 0) || math.IsNaN(x) {
			return
		}
		const k = 200
		want := math.Log(x*0x1p200) - k*math.Ln2
		if got := Log(x); math.Abs(got-want) > 4e-16*math.Abs(want) {
			t.Fatalf("Log(%v) = %.17g, want %.17g", x, got, want)
		}
	})
}

// TestErfcxDiff checks Erfcx(x) − Erfcx(x+h) against mpmath (40 digits),
// including differences that cancel to 1e-300 of the values.
func TestErfcxDiff(t *testing.T) {
	for _, tc := range []struct{ x, h, want float64 }{
		{0, 1e-300, 2 / math.SqrtPi * 1e-300},
		{-0.5, 1e-9, 3.0807396527853395449e-9},
		{3, 1e-6, 5.4372244122806188478e-8},
		{27, 1e-7, 7.7233560992713293936e-11},
		{20, 0.3, 0.00041535791664321238288},
		{-20, 1e-3, 4.0946347649870775676e+172},
		{-1, 2, 4.5813965046064764619},
		{5, 1e-3, 0.000021328749828676109518},
		{0.1, 0.2, 0.16185764540147150583},
	} {
		if got := ErfcxDiff(tc.x, tc.h); !near(got, tc.want, 1e-11, 0) {
			t.Errorf("ErfcxDiff(%v, %v) = %.17g, want %.17g", tc.x, tc.h, got, tc.want)
		}
	}
}
