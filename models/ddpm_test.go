package models

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/featuredp/featuredp/design"
)

// smallDDPM returns a small class-conditional DDPM with random θ and n
// images of its pixel count in [−1, 1].
func smallDDPM(t *testing.T, classes, n int) (*DDPM, []float64, *design.Data) {
	t.Helper()
	return smallDDPMEvery(t, classes, n, false)
}

// smallDDPMEvery is smallDDPM with the class in every hidden layer if
// every is set (DDPM.ClassEveryLayer).
func smallDDPMEvery(t *testing.T, classes, n int, every bool) (*DDPM, []float64, *design.Data) {
	t.Helper()
	m, err := NewDDPM(6, classes, 5, 4, 10, 1e-3, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	m.Key, m.ClassEveryLayer = 42, every
	r := rand.New(rand.NewPCG(1, 2))
	theta := make([]float64, m.NumParams())
	m.Init(theta, r)
	for j := range theta { // non-zero biases and a larger output layer
		theta[j] += 0.3 * r.NormFloat64()
	}
	x := make([]float64, n*m.P)
	for j := range x {
		x[j] = 2*r.Float64() - 1
	}
	y := make([]float64, n)
	for i := range y {
		if classes > 0 {
			y[i] = float64(r.IntN(classes))
		}
	}
	d, err := design.NewData(x, y, n, m.P)
	if err != nil {
		t.Fatal(err)
	}
	return m, theta, d
}

func TestNewDDPMErrors(t *testing.T) {
	for _, c := range []struct {
		name              string
		p, k, h, e, steps int
		bmin, bmax        float64
	}{
		{"no pixels", 0, 1, 2, 2, 3, 1e-4, 0.02},
		{"negative classes", 4, -1, 2, 2, 3, 1e-4, 0.02},
		{"odd embedding", 4, 1, 2, 3, 3, 1e-4, 0.02},
		{"no steps", 4, 1, 2, 2, 0, 1e-4, 0.02},
		{"zero beta", 4, 1, 2, 2, 3, 0, 0.02},
		{"beta order", 4, 1, 2, 2, 3, 0.1, 0.02},
		{"beta one", 4, 1, 2, 2, 3, 0.1, 1},
		{"beta NaN", 4, 1, 2, 2, 3, math.NaN(), 0.02},
	} {
		if _, err := NewDDPM(c.p, c.k, c.h, c.e, c.steps, c.bmin, c.bmax); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// TestDDPMSchedule checks the linear β schedule and ᾱ of the paper's
// stand-in (T = 200, β from 1e-4 to 0.02) and its size (≈ 150k θ).
func TestDDPMSchedule(t *testing.T) {
	m, err := NewDDPM(196, 10, 256, 32, 200, 1e-4, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	if m.Beta(0) != 1e-4 || math.Abs(m.Beta(199)-0.02) > 1e-15 {
		t.Errorf("β ends %v, %v", m.Beta(0), m.Beta(199))
	}
	for s := 1; s < 200; s++ {
		if !(m.AlphaBar(s) < m.AlphaBar(s-1)) {
			t.Fatalf("ᾱ not decreasing at %d", s)
		}
	}
	// ᾱ_T = Π(1 − β_t): log ᾱ_T ≈ −Σβ = −200·(1e-4+0.02)/2 = −2.01.
	if got := math.Log(m.AlphaBar(199)); math.Abs(got+2.01) > 0.02 {
		t.Errorf("log ᾱ_T = %v, want ≈ −2.01", got)
	}
	if got := m.NumParams(); got != 177348 {
		t.Errorf("%d parameters, want 177,348 (238→256→256→196)", got)
	}
}

// TestDDPMGradient checks GradSum against central finite differences of
// Loss at a fixed key, for the conditional and unconditional model.
// ddpmVariants are the denoisers the exactness tests cover: unconditional,
// class at the input only, and class in every hidden layer (with and
// without classes, where ClassEveryLayer must change nothing).
var ddpmVariants = []struct {
	name    string
	classes int
	every   bool
}{
	{"unconditional", 0, false},
	{"class input", 3, false},
	{"class every layer", 3, true},
	{"every layer without classes", 0, true},
}

func TestDDPMGradient(t *testing.T) {
	for _, v := range ddpmVariants {
		k := v.classes
		m, theta, d := smallDDPMEvery(t, k, 7, v.every)
		if want := 5*(6+4+k) + 5 + 25 + 5 + 6*5 + 6; v.every && k > 0 {
			if m.NumParams() != want+k*5 {
				t.Fatalf("%s: %d parameters, want %d", v.name, m.NumParams(), want+k*5)
			}
		} else if m.NumParams() != want {
			t.Fatalf("%s: %d parameters, want %d", v.name, m.NumParams(), want)
		}
		g := make([]float64, m.NumParams())
		m.GradSum(theta, d, nil, g)
		const h = 1e-6
		for j := range theta {
			th := slices.Clone(theta)
			th[j] += h
			lp := m.Loss(th, d, nil)
			th[j] -= 2 * h
			lm := m.Loss(th, d, nil)
			fd := (lp - lm) / (2 * h) * float64(d.N)
			if math.Abs(fd-g[j]) > 1e-6*(1+math.Abs(fd)) {
				t.Fatalf("%s: ∂ℓ/∂θ[%d] = %v, finite difference %v", v.name, j, g[j], fd)
			}
		}
	}
}

// TestDDPMPerExample checks that the ghost norms, the weighted and the
// clipped sums equal those of the materialised per-example gradients,
// across chunk boundaries and with a row selection.
func TestDDPMPerExample(t *testing.T) {
	for _, v := range ddpmVariants {
		t.Run(v.name, func(t *testing.T) {
			m, theta, d := smallDDPMEvery(t, v.classes, ddpmChunk+45, v.every)
			checkDDPMPerExample(t, m, theta, d)
		})
	}
}

// checkDDPMPerExample is TestDDPMPerExample for one model.
func checkDDPMPerExample(t *testing.T, m *DDPM, theta []float64, d *design.Data) {
	idx := make([]int, 0, d.N)
	for i := d.N - 1; i >= 0; i -= 2 {
		idx = append(idx, i)
	}
	np := m.NumParams()
	pe := make([]float64, len(idx)*np)
	m.PerExampleGrads(theta, d, idx, pe)
	norms := make([]float64, len(idx))
	m.PerExampleGradNorms(theta, d, idx, norms)
	w := make([]float64, len(idx))
	want := make([]float64, np)
	for k := range idx {
		gk := pe[k*np : (k+1)*np]
		nk := math.Sqrt(sumSq(gk))
		if math.Abs(nk-norms[k]) > 1e-10*nk {
			t.Fatalf("row %d: ghost norm %v, materialised %v", k, norms[k], nk)
		}
		w[k] = min(1, 0.5/nk)
		for j, v := range gk {
			want[j] += w[k] * v
		}
	}
	got := make([]float64, np)
	m.WeightedGradSum(theta, d, idx, w, got)
	assertClose(t, "WeightedGradSum", got, want, 1e-10)
	got2 := make([]float64, np)
	n2, w2 := make([]float64, len(idx)), make([]float64, len(idx))
	m.ClippedGradSum(theta, d, idx, func(n float64) float64 { return min(1, 0.5/n) }, n2, w2, got2)
	assertClose(t, "ClippedGradSum", got2, want, 1e-10)
	assertClose(t, "ClippedGradSum norms", n2, norms, 1e-12)
}

// TestDDPMDiffNorms checks the rank-2 norms of ∇ℓ(x) − ∇ℓ(Ψ(x)) (the same
// draw for both) against materialised gradients, and LossDiff's use of
// them under a shared key.
func TestDDPMDiffNorms(t *testing.T) {
	for _, v := range ddpmVariants {
		for _, relabel := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/relabelled=%v", v.name, relabel), func(t *testing.T) {
				m, theta, d := smallDDPMEvery(t, v.classes, 20, v.every)
				checkDDPMDiffNorms(t, m, theta, d, relabel)
			})
		}
	}
}

// checkDDPMDiffNorms is TestDDPMDiffNorms for one model; relabel gives the
// public view other classes in some rows (the c ≠ c' terms of the class
// bias).
func checkDDPMDiffNorms(t *testing.T, m *DDPM, theta []float64, d *design.Data, relabel bool) {
	pubX := slices.Clone(d.X)
	for j := range pubX {
		pubX[j] *= 0.5
	}
	pubY := slices.Clone(d.Y)
	if relabel && m.Classes > 1 {
		for i := 0; i < len(pubY); i += 3 {
			pubY[i] = float64((int(pubY[i]) + 1) % m.Classes)
		}
	}
	pub, err := design.NewData(pubX, pubY, d.N, d.D)
	if err != nil {
		t.Fatal(err)
	}
	diff, err := NewLossDiff(m, m, pub)
	if err != nil {
		t.Fatal(err)
	}
	keyed := diff.WithKey(7).(*LossDiff)
	if keyed.Full.(*DDPM).Key != 7 || keyed.Pub.(*DDPM).Key != 7 {
		t.Fatal("LossDiff.WithKey does not give both losses the key")
	}
	idx := []int{3, 0, 19, 7}
	np := m.NumParams()
	pe := make([]float64, len(idx)*np)
	keyed.PerExampleGrads(theta, d, idx, pe)
	got := make([]float64, len(idx))
	keyed.PerExampleGradNorms(theta, d, idx, got)
	for k := range idx {
		want := math.Sqrt(sumSq(pe[k*np : (k+1)*np]))
		if math.Abs(got[k]-want) > 1e-9*want {
			t.Errorf("row %d: rank-2 norm %v, materialised %v", idx[k], got[k], want)
		}
	}
	// The fused clipped sum of the difference equals the materialised one.
	want := make([]float64, np)
	for k := range idx {
		gk := pe[k*np : (k+1)*np]
		f := min(1, 0.3/math.Sqrt(sumSq(gk)))
		for j, v := range gk {
			want[j] += f * v
		}
	}
	sum := make([]float64, np)
	nn, ww := make([]float64, len(idx)), make([]float64, len(idx))
	keyed.ClippedGradSum(theta, d, idx, func(n float64) float64 { return min(1, 0.3/n) }, nn, ww, sum)
	assertClose(t, "LossDiff.ClippedGradSum", sum, want, 1e-9)
	other := m.WithKey(8).(*DDPM)
	if m.DiffGradNorms(other, theta, d, pub, idx, got) {
		t.Error("DiffGradNorms accepted a public loss with another key")
	}
}

// TestDDPMKeys checks that the draw of a row depends on the key and the
// row only.
func TestDDPMKeys(t *testing.T) {
	m, theta, d := smallDDPM(t, 2, 9)
	e1, e2 := make([]float64, m.P), make([]float64, m.P)
	t1 := m.Draw(4, e1)
	t2 := m.WithKey(m.Key).(*DDPM).Draw(4, e2)
	if t1 != t2 || !slices.Equal(e1, e2) {
		t.Error("same key and row, different draws")
	}
	m.WithKey(m.Key+1).(*DDPM).Draw(4, e2)
	if slices.Equal(e1, e2) {
		t.Error("another key, same noise")
	}
	// The loss of a row does not depend on the other rows selected.
	l1 := m.Loss(theta, d, []int{4})
	l2 := (m.Loss(theta, d, []int{2, 4}) * 2) - m.Loss(theta, d, []int{2})
	if math.Abs(l1-l2) > 1e-12 {
		t.Errorf("row 4's loss %v alone, %v beside row 2", l1, l2)
	}
}

// TestDDPMSample checks the sampler's shape, range, errors and
// determinism (same rng state, any GOMAXPROCS).
func TestDDPMSample(t *testing.T) {
	m, theta, _ := smallDDPM(t, 3, 1)
	classes := make([]int, ddpmChunk+3)
	for i := range classes {
		classes[i] = i % 3
	}
	run := func(procs int) []float64 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		x, err := m.Sample(theta, classes, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	a, b := run(1), run(2)
	if len(a) != len(classes)*m.P {
		t.Fatalf("%d values, want %d", len(a), len(classes)*m.P)
	}
	if !slices.Equal(a, b) {
		t.Error("samples differ between GOMAXPROCS 1 and 2")
	}
	for _, v := range a {
		if !(v >= -1 && v <= 1) {
			t.Fatalf("sample value %v outside [−1, 1]", v)
		}
	}
	for _, bad := range []struct {
		theta   []float64
		classes []int
	}{
		{theta[1:], []int{0}},
		{theta, []int{3}},
		{theta, []int{-1}},
	} {
		if _, err := m.Sample(bad.theta, bad.classes, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, ErrDDPMSample) {
			t.Errorf("bad sample arguments: %v", err)
		}
	}
	if _, err := m.Sample(theta, []int{0}, nil); err == nil {
		t.Error("nil rng accepted")
	}
}

func TestDDPMCheckLabels(t *testing.T) {
	m, _, d := smallDDPM(t, 3, 4)
	if err := m.CheckLabels(d); err != nil {
		t.Fatal(err)
	}
	d.Y[2] = 3
	if err := m.CheckLabels(d); err == nil {
		t.Error("class 3 of 3 accepted")
	}
	u, _, du := smallDDPM(t, 0, 4)
	du.Y[1] = 17
	if err := u.CheckLabels(du); err != nil {
		t.Errorf("unconditional model checks labels: %v", err)
	}
}

// assertClose fails unless got and want agree to rel·(1+|want|).
func assertClose(t *testing.T, what string, got, want []float64, rel float64) {
	t.Helper()
	for j := range want {
		if math.Abs(got[j]-want[j]) > rel*(1+math.Abs(want[j])) {
			t.Fatalf("%s[%d] = %v, want %v", what, j, got[j], want[j])
		}
	}
}

// TestDDPMSampleClassBias checks that the sampler applies the class bias
// C₂[c] of each image's own class: changing the row of class 1 changes the
// class-1 image and leaves the class-0 image of the same draws alone.
func TestDDPMSampleClassBias(t *testing.T) {
	m, theta, _ := smallDDPMEvery(t, 3, 1, true)
	sample := func(th []float64) []float64 {
		x, err := m.Sample(th, []int{0, 1}, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	before := sample(theta)
	th := slices.Clone(theta)
	c2 := m.split(th).c2
	for j := range m.Hidden {
		c2[1*m.Hidden+j] += 0.5
	}
	after := sample(th)
	if !slices.Equal(before[:m.P], after[:m.P]) {
		t.Error("changing class 1's bias changed the class-0 image")
	}
	if slices.Equal(before[m.P:], after[m.P:]) {
		t.Error("changing class 1's bias left the class-1 image unchanged")
	}
}
