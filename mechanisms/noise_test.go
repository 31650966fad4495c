package mechanisms

import (
	"math"
	"testing"

	"github.com/featuredp/featuredp/internal/valid"
)

func TestLaplaceFromBitsFinite(t *testing.T) {
	for _, bits := range []uint64{0, 1, 1<<53 - 1, 1 << 63, 1<<63 | (1<<53 - 1), math.MaxUint64} {
		x := laplaceFromBits(bits, 2)
		if !valid.Finite(x) || math.Abs(x) > 2*54*math.Ln2 {
			t.Errorf("bits %#x: %v", bits, x)
		}
	}
	if laplaceFromBits(0, 0) != 0 {
		t.Error("scale 0 must give 0")
	}
}

func TestLaplaceGaussianMoments(t *testing.T) {
	rng := NewStreams(11).Noise()
	const n = 200000
	lap := make([]float64, n)
	gau := make([]float64, n)
	for i := range n {
		var err error
		if lap[i], err = Laplace(rng, 1.5); err != nil {
			t.Fatal(err)
		}
		if gau[i], err = Gaussian(rng, 0.7); err != nil {
			t.Fatal(err)
		}
	}
	m, v := meanVar(lap)
	if math.Abs(m) > 4*math.Sqrt(2*1.5*1.5/n) || math.Abs(v/(2*1.5*1.5)-1) > 0.02 {
		t.Errorf("Laplace(1.5): mean %v var %v, want 0 and %v", m, v, 2*1.5*1.5)
	}
	// Median of |X| is b·ln 2.
	var below int
	for _, x := range lap {
		if math.Abs(x) < 1.5*math.Ln2 {
			below++
		}
	}
	if f := float64(below) / n; math.Abs(f-0.5) > 0.005 {
		t.Errorf("P(|X| < b ln2) = %v, want 0.5", f)
	}
	m, v = meanVar(gau)
	if math.Abs(m) > 4*0.7/math.Sqrt(n) || math.Abs(math.Sqrt(v)/0.7-1) > 0.01 {
		t.Errorf("Gaussian(0.7): mean %v std %v", m, math.Sqrt(v))
	}
}

func TestAddNoisePerCoordinate(t *testing.T) {
	const n = 50000
	std := []float64{0, 1, 3}
	var sums [3]float64
	var sq [3]float64
	rngG, rngL := NewStreams(5).Noise(), NewStreams(6).Noise()
	var lsq [3]float64
	for range n {
		v := []float64{10, 10, 10}
		if err := AddGaussian(rngG, v, std); err != nil {
			t.Fatal(err)
		}
		w := []float64{0, 0, 0}
		if err := AddLaplace(rngL, w, std); err != nil {
			t.Fatal(err)
		}
		for j := range v {
			sums[j] += v[j] - 10
			sq[j] += (v[j] - 10) * (v[j] - 10)
			lsq[j] += w[j] * w[j]
		}
		if v[0] != 10 || w[0] != 0 {
			t.Fatal("zero std changed a coordinate")
		}
	}
	for j, s := range std[1:] {
		j++
		if got := math.Sqrt(sq[j] / n); math.Abs(got/s-1) > 0.02 {
			t.Errorf("Gaussian coordinate %d: std %v, want %v", j, got, s)
		}
		if got := math.Sqrt(lsq[j] / n); math.Abs(got/(math.Sqrt2*s)-1) > 0.03 {
			t.Errorf("Laplace coordinate %d: std %v, want %v", j, got, math.Sqrt2*s)
		}
	}
}

// TestCommonRandomNumbers: noise with scaled stds from the same stream is
// the scaled noise (the same normals are drawn, also where σ = 0).
func TestCommonRandomNumbers(t *testing.T) {
	a := make([]float64, 5)
	b := make([]float64, 5)
	if err := AddGaussian(NewStreams(1).Noise(), a, []float64{1, 1, 1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	if err := AddGaussian(NewStreams(1).Noise(), b, []float64{2, 0, 2, 0, 2}); err != nil {
		t.Fatal(err)
	}
	for j := range a {
		want := 0.0
		if j%2 == 0 {
			want = 2 * a[j]
		}
		if b[j] != want {
			t.Errorf("coordinate %d: %v, want %v", j, b[j], want)
		}
	}
}

func TestMechanismsCopyAndScale(t *testing.T) {
	value := []float64{1, 2, 3}
	out, err := LaplaceMechanism(NewStreams(3).Noise(), value, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	if value[0] != 1 || value[1] != 2 || value[2] != 3 {
		t.Fatal("LaplaceMechanism modified its input")
	}
	// Same stream, scale b = 2/4 = 0.5.
	rng := NewStreams(3).Noise()
	for j := range value {
		if want := value[j] + laplaceFromBits(rng.Uint64(), 0.5); out[j] != want {
			t.Errorf("Laplace coordinate %d = %v, want %v", j, out[j], want)
		}
	}
	out, err = GaussianMechanism(NewStreams(4).Noise(), value, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	rng = NewStreams(4).Noise()
	for j := range value {
		if want := value[j] + 0.25*rng.NormFloat64(); out[j] != want {
			t.Errorf("Gaussian coordinate %d = %v, want %v", j, out[j], want)
		}
	}
}

func TestNoiseBadInput(t *testing.T) {
	rng := NewStreams(1).Noise()
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name string
		f    func() error
	}{
		{"Laplace nil rng", func() error { _, err := Laplace(nil, 1); return err }},
		{"Laplace NaN", func() error { _, err := Laplace(rng, nan); return err }},
		{"Laplace Inf", func() error { _, err := Laplace(rng, inf); return err }},
		{"Laplace negative", func() error { _, err := Laplace(rng, -1); return err }},
		{"Gaussian nil rng", func() error { _, err := Gaussian(nil, 1); return err }},
		{"Gaussian NaN", func() error { _, err := Gaussian(rng, nan); return err }},
		{"Gaussian -Inf", func() error { _, err := Gaussian(rng, -inf); return err }},
		{"Gaussian negative", func() error { _, err := Gaussian(rng, -0.1); return err }},
		{"AddGaussian nil rng", func() error { return AddGaussian(nil, []float64{1}, []float64{1}) }},
		{"AddGaussian length", func() error { return AddGaussian(rng, []float64{1, 2}, []float64{1}) }},
		{"AddGaussian NaN std", func() error { return AddGaussian(rng, []float64{1}, []float64{nan}) }},
		{"AddGaussian negative std", func() error { return AddGaussian(rng, []float64{1}, []float64{-1}) }},
		{"AddGaussian NaN value", func() error { return AddGaussian(rng, []float64{nan}, []float64{1}) }},
		{"AddGaussian Inf value", func() error { return AddGaussian(rng, []float64{inf}, []float64{1}) }},
		{"AddLaplace nil rng", func() error { return AddLaplace(nil, []float64{1}, []float64{1}) }},
		{"AddLaplace length", func() error { return AddLaplace(rng, nil, []float64{1}) }},
		{"AddLaplace Inf scale", func() error { return AddLaplace(rng, []float64{1}, []float64{inf}) }},
		{"AddLaplace NaN value", func() error { return AddLaplace(rng, []float64{nan}, []float64{1}) }},
		{"LaplaceMechanism eps 0", func() error { _, err := LaplaceMechanism(rng, []float64{1}, 1, 0); return err }},
		{"LaplaceMechanism eps <0", func() error { _, err := LaplaceMechanism(rng, []float64{1}, 1, -1); return err }},
		{"LaplaceMechanism eps NaN", func() error { _, err := LaplaceMechanism(rng, []float64{1}, 1, nan); return err }},
		{"LaplaceMechanism eps Inf", func() error { _, err := LaplaceMechanism(rng, []float64{1}, 1, inf); return err }},
		{"LaplaceMechanism sens 0", func() error { _, err := LaplaceMechanism(rng, []float64{1}, 0, 1); return err }},
		{"LaplaceMechanism sens Inf", func() error { _, err := LaplaceMechanism(rng, []float64{1}, inf, 1); return err }},
		{"LaplaceMechanism scale overflow", func() error { _, err := LaplaceMechanism(rng, []float64{1}, 1e300, 1e-300); return err }},
		{"LaplaceMechanism empty", func() error { _, err := LaplaceMechanism(rng, nil, 1, 1); return err }},
		{"LaplaceMechanism NaN value", func() error { _, err := LaplaceMechanism(rng, []float64{nan}, 1, 1); return err }},
		{"LaplaceMechanism nil rng", func() error { _, err := LaplaceMechanism(nil, []float64{1}, 1, 1); return err }},
		{"GaussianMechanism sigma 0", func() error { _, err := GaussianMechanism(rng, []float64{1}, 0); return err }},
		{"GaussianMechanism sigma NaN", func() error { _, err := GaussianMechanism(rng, []float64{1}, nan); return err }},
		{"GaussianMechanism sigma Inf", func() error { _, err := GaussianMechanism(rng, []float64{1}, inf); return err }},
		{"GaussianMechanism empty", func() error { _, err := GaussianMechanism(rng, []float64{}, 1); return err }},
		{"GaussianMechanism Inf value", func() error { _, err := GaussianMechanism(rng, []float64{-inf}, 1); return err }},
		{"GaussianMechanism nil rng", func() error { _, err := GaussianMechanism(nil, []float64{1}, 1); return err }},
	}
	for _, c := range cases {
		if err := c.f(); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	// Failed calls leave the vector unchanged.
	v := []float64{1, 2}
	if err := AddGaussian(rng, v, []float64{1, -1}); err == nil || v[0] != 1 || v[1] != 2 {
		t.Errorf("AddGaussian with a bad std modified v: %v (%v)", v, err)
	}
	// Zero scales are valid.
	if x, err := Laplace(rng, 0); err != nil || x != 0 {
		t.Errorf("Laplace(0) = %v, %v", x, err)
	}
	if x, err := Gaussian(rng, 0); err != nil || x != 0 {
		t.Errorf("Gaussian(0) = %v, %v", x, err)
	}
}
