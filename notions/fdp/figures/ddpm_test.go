package figures

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/fdp"
)

func TestBlur(t *testing.T) {
	const side = 9
	flat := make([]float64, side*side)
	for j := range flat {
		flat[j] = 0.3
	}
	b, err := Blur(flat, side, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range b {
		if math.Abs(v-0.3) > 1e-12 {
			t.Fatalf("constant image changed at %d: %v", j, v)
		}
	}
	// An impulse at the centre spreads into a normalised, symmetric bump
	// whose variance along a row is about σ² (the kernel is truncated at 3σ
	// but fits inside the 9×9 image for σ = 1).
	imp := make([]float64, side*side)
	imp[4*side+4] = 1
	b, _ = Blur(imp, side, 1)
	var sum, varRow float64
	for r := range side {
		for c := range side {
			v := b[r*side+c]
			sum += v
			varRow += v * float64((c-4)*(c-4))
			if math.Abs(v-b[c*side+r]) > 1e-15 || math.Abs(v-b[r*side+(8-c)]) > 1e-15 {
				t.Fatalf("blur of an impulse not symmetric at (%d, %d)", r, c)
			}
		}
	}
	if math.Abs(sum-1) > 1e-12 || math.Abs(varRow-1) > 0.03 {
		t.Errorf("impulse blur: mass %v (want 1), row variance %v (want ≈ σ² = 1)", sum, varRow)
	}
	if c, _ := Blur(imp, side, 0); !slices.Equal(c, imp) {
		t.Error("σ = 0 is not the identity")
	}
	for _, bad := range []struct {
		img   []float64
		sigma float64
	}{{imp[1:], 1}, {imp, -1}, {imp, math.NaN()}, {imp, math.Inf(1)}} {
		if _, err := Blur(bad.img, side, bad.sigma); err == nil {
			t.Errorf("Blur(%d values, σ = %v): no error", len(bad.img), bad.sigma)
		}
	}
}

func TestSharpness(t *testing.T) {
	const side = 6
	flat := make([]float64, side*side)
	if s, _ := Sharpness(flat, side); s != 0 {
		t.Errorf("flat image sharpness %v", s)
	}
	// A ±1 checkerboard has Laplacian ±8 at every interior pixel: variance 64.
	chk := make([]float64, side*side)
	for r := range side {
		for c := range side {
			chk[r*side+c] = float64(1 - 2*((r+c)%2))
		}
	}
	if s, _ := Sharpness(chk, side); math.Abs(s-64) > 1e-12 {
		t.Errorf("checkerboard sharpness %v, want 64", s)
	}
	b, _ := Blur(chk, side, 1.5)
	if s, _ := Sharpness(b, side); !(s < 1) {
		t.Errorf("blurred checkerboard sharpness %v, want ≪ 64", s)
	}
	if _, err := Sharpness(chk[:4], 2); err == nil {
		t.Error("2×2 image accepted")
	}
}

// TestFilterThreshold checks the median and that the threshold reads only
// the public images it is given: the same Ψ(X) gives the same threshold
// whatever the private images are.
func TestFilterThreshold(t *testing.T) {
	const side = 5
	r := rand.New(rand.NewPCG(1, 1))
	mk := func(n int, scale float64) *design.Data {
		x := make([]float64, n*side*side)
		for j := range x {
			x[j] = scale * r.NormFloat64()
		}
		d, _ := design.NewData(x, make([]float64, n), n, side*side)
		return d
	}
	priv := mk(7, 1)
	pub, err := BlurData(priv, side, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	thr, err := FilterThreshold(pub, side)
	if err != nil {
		t.Fatal(err)
	}
	var v []float64
	for i := range pub.N {
		s, _ := Sharpness(pub.X[i*side*side:(i+1)*side*side], side)
		v = append(v, s)
	}
	slices.Sort(v)
	if thr != v[3] {
		t.Errorf("threshold %v, want the median %v", thr, v[3])
	}
	if full, _ := FilterThreshold(priv, side); !(full > thr) {
		t.Errorf("sharp private images give threshold %v ≤ the blurred %v", full, thr)
	}
	if _, err := FilterThreshold(nil, side); err == nil {
		t.Error("nil public data accepted")
	}
}

// TestDiffusionDataThreshold checks that the study's threshold is the
// median sharpness of the blurred training images Ψ(X) — the public view —
// and not that of the training images themselves.
func TestDiffusionDataThreshold(t *testing.T) {
	s, d := tinyDiffusion(t)
	all, _ := design.NewData(append(slices.Clone(d.Train.X), d.Holdout.X...), append(slices.Clone(d.Train.Y), d.Holdout.Y...),
		d.Train.N+d.Holdout.N, d.Train.D)
	s.ClassifierEpochs = 1
	got, err := newDiffusionData(context.Background(), s, all, d.Val, 1)
	if err != nil {
		t.Fatal(err)
	}
	pubThr, _ := FilterThreshold(got.Public, DiffusionSide)
	privThr, _ := FilterThreshold(got.Train, DiffusionSide)
	if got.Threshold != pubThr || got.Threshold == privThr {
		t.Errorf("threshold %v; median over Ψ(X) %v, over X %v", got.Threshold, pubThr, privThr)
	}
	if got.Train.N != 108 || got.Holdout.N != 12 {
		t.Errorf("split %d / %d, want 108 / 12", got.Train.N, got.Holdout.N)
	}
}

func TestFrechetDistance(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	const n, d = 50, 4
	a := make([]float64, n*d)
	for j := range a {
		a[j] = r.NormFloat64() + float64(j%d)
	}
	self, err := FrechetDistance(a, n, a, n, d)
	if err != nil || math.Abs(self) > 1e-9 {
		t.Fatalf("FD(a, a) = %v, %v", self, err)
	}
	// Shift by μ: FD = ‖μ‖².
	mu := []float64{1, -2, 0.5, 0}
	b := slices.Clone(a)
	for j := range b {
		b[j] += mu[j%d]
	}
	if got, _ := FrechetDistance(a, n, b, n, d); math.Abs(got-5.25) > 1e-9 {
		t.Errorf("shifted FD %v, want 5.25", got)
	}
	// Scale by 2: Σ_b = 4Σ_a, FD = ‖μ_a‖² + tr Σ_a.
	c := slices.Clone(a)
	for j := range c {
		c[j] *= 2
	}
	ma, ca := meanCov(a, n, d)
	want := ca.At(0, 0) + ca.At(1, 1) + ca.At(2, 2) + ca.At(3, 3)
	for _, m := range ma {
		want += m * m
	}
	got, _ := FrechetDistance(a, n, c, n, d)
	if math.Abs(got-want) > 1e-9*want {
		t.Errorf("scaled FD %v, want %v", got, want)
	}
	if back, _ := FrechetDistance(c, n, a, n, d); math.Abs(back-got) > 1e-9*got {
		t.Errorf("FD not symmetric: %v vs %v", back, got)
	}
	for _, bad := range []struct {
		x  []float64
		nx int
	}{{a[:d], 1}, {a[:n*d-1], n}} {
		if _, err := FrechetDistance(bad.x, bad.nx, a, n, d); err == nil {
			t.Errorf("%d values for %d points accepted", len(bad.x), bad.nx)
		}
	}
	nan := slices.Clone(a)
	nan[3] = math.NaN()
	if _, err := FrechetDistance(nan, n, a, n, d); err == nil {
		t.Error("NaN accepted")
	}
}

func TestDiffusionImages(t *testing.T) {
	set := &data.ImageSet{N: 2, Rows: 28, Cols: 28, Pixels: make([]byte, 2*784), Labels: []byte{3, 7}}
	for j := range 784 {
		set.Pixels[784+j] = 255
	}
	set.Pixels[0], set.Pixels[1], set.Pixels[28], set.Pixels[29] = 255, 255, 255, 0 // block (0,0): mean 191.25
	d, err := DiffusionImages(set, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.N != 2 || d.D != 196 || d.Y[1] != 7 {
		t.Fatalf("shape %d×%d, labels %v", d.N, d.D, d.Y)
	}
	if got, want := d.X[0], 3*255.0/(2*255)-1; math.Abs(got-want) > 1e-15 {
		t.Errorf("block mean pixel %v, want %v", got, want)
	}
	if d.X[1] != -1 || d.X[196] != 1 {
		t.Errorf("black %v, white %v", d.X[1], d.X[196])
	}
	if _, err := DiffusionImages(&data.ImageSet{N: 1, Rows: 8, Cols: 8, Pixels: make([]byte, 64), Labels: []byte{0}}, 0); err == nil {
		t.Error("8×8 images accepted")
	}
}

// tinyDiffusion is a synthetic diffusion problem (random blocky images) and
// a small setting that trains in milliseconds.
func tinyDiffusion(t *testing.T) (DiffusionSetting, *DiffusionData) {
	t.Helper()
	r := rand.New(rand.NewPCG(4, 5))
	const n, p = 120, DiffusionSide * DiffusionSide
	mk := func(n int) *design.Data {
		x, y := make([]float64, n*p), make([]float64, n)
		for i := range n {
			y[i] = float64(i % 10)
			for j := range p {
				x[i*p+j] = math.Tanh(float64((j/DiffusionSide+i)%4) - 1.5 + 0.2*r.NormFloat64())
			}
		}
		d, _ := design.NewData(x, y, n, p)
		return d
	}
	all := mk(n)
	train, hold, err := splitHoldout(all)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := BlurData(train, DiffusionSide, 1.5)
	thr, _ := FilterThreshold(pub, DiffusionSide)
	clf, err := TrainFeatureClassifier(context.Background(), train, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	s := DiffusionSetting{Name: "A", Conditional: true, Hidden: 8, Epochs: 2, Pretrain: 1, Batch: 20, Clip: 0.1, Alpha: 1,
		BlurSigma: 1.5, LRs: []float64{1e-3, 3e-3}, Samples: 20}
	return s, &DiffusionData{Train: train, Public: pub, Holdout: hold, Val: mk(40), Classifier: clf, Threshold: thr}
}

// TestTrainDiffusionEpsilon checks that every private method's run spends
// exactly its target ε (from the accountant, not assumed), the public one
// 0 and the non-private one +Inf, and the argument errors.
func TestTrainDiffusionEpsilon(t *testing.T) {
	s, d := tinyDiffusion(t)
	ctx := context.Background()
	for _, c := range []struct {
		m    fdp.Method
		eps  float64
		want float64
	}{{fdp.NonPrivate, 8, math.Inf(1)}, {fdp.PublicOnly, 8, 0}, {fdp.DP, 8, 8}, {fdp.DPSGD, 0.5, 0.5}, {fdp.Alg1, 8, 8}} {
		r, err := TuneDiffusion(ctx, s, d, c.m, c.eps, 1)
		if err != nil {
			t.Fatalf("%s: %v", c.m, err)
		}
		if math.IsInf(c.want, 1) != math.IsInf(r.Eps, 1) || (!math.IsInf(c.want, 1) && math.Abs(r.Eps-c.want) > 1e-6*max(1, c.want)) {
			t.Errorf("%s: spent ε %v, want %v", c.m, r.Eps, c.want)
		}
		if r.Eps > c.want*(1+1e-9) {
			t.Errorf("%s: spent ε %v above the target %v", c.m, r.Eps, c.want)
		}
		if !slices.Contains(s.LRs, r.LR) || math.IsNaN(r.HoldoutLoss) {
			t.Errorf("%s: chose lr %v (held-out loss %v)", c.m, r.LR, r.HoldoutLoss)
		}
	}
	for _, bad := range []struct {
		m   fdp.Method
		eps float64
		lr  float64
	}{{fdp.DP, 0, 1e-3}, {fdp.DP, math.Inf(1), 1e-3}, {fdp.SingleBatch, 8, 1e-3}, {fdp.DP, 8, 0}, {fdp.DP, 8, math.NaN()}} {
		if _, err := TrainDiffusion(ctx, s, d, bad.m, bad.eps, bad.lr, 1); err == nil {
			t.Errorf("TrainDiffusion(%s, ε = %v, lr = %v): no error", bad.m, bad.eps, bad.lr)
		}
	}
	if _, err := TrainDiffusion(ctx, s, nil, fdp.DP, 8, 1e-3, 1); err == nil {
		t.Error("nil data accepted")
	}
}

// TestTrainDiffusionSmallBatch checks the paper's Table I split (setting
// B): with SmallBatch the non-private methods run Epochs·N/SmallBatch
// steps, the private ones Epochs·N/Batch at the target ε, and an FDP
// method starts from a public pre-training — deterministic per seed, and
// different from the run without it.
func TestTrainDiffusionSmallBatch(t *testing.T) {
	s, d := tinyDiffusion(t)
	s.Batch, s.SmallBatch = 50, 10
	ctx := context.Background()
	n := d.Train.N
	np, err := TrainDiffusion(ctx, s, d, fdp.NonPrivate, 0, 1e-3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := int(math.Ceil(s.Epochs * float64(n) / 10)); np.Steps != want {
		t.Errorf("non-private steps %d, want %d", np.Steps, want)
	}
	run := func(s DiffusionSetting) *DiffusionRun {
		t.Helper()
		r, err := TrainDiffusion(ctx, s, d, fdp.Alg1, 8, 1e-3, 1)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := run(s), run(s)
	if want := int(math.Ceil(s.Epochs * float64(n) / 50)); a.Steps != want || math.Abs(a.Eps-8) > 1e-6 || a.Eps > 8 {
		t.Errorf("private run: %d steps (want %d), ε %v (want 8)", a.Steps, want, a.Eps)
	}
	if !slices.Equal(a.Theta, b.Theta) {
		t.Error("same seed, different θ")
	}
	s.Pretrain = 0
	if c := run(s); slices.Equal(a.Theta, c.Theta) {
		t.Error("the public pre-training changed nothing")
	}
}

// TestGenerate checks the sampler's classes and the filter: threshold 0
// keeps everything, +Inf keeps nothing (an error), the same rng gives the
// same samples.
func TestGenerate(t *testing.T) {
	s, d := tinyDiffusion(t)
	r, err := TrainDiffusion(context.Background(), s, d, fdp.NonPrivate, 0, 1e-3, 1)
	if err != nil {
		t.Fatal(err)
	}
	x, cl, kept, err := r.Generate(25, true, 0, rand.New(rand.NewPCG(1, 1)))
	if err != nil || len(x) != 25*196 || kept != 1 {
		t.Fatalf("threshold 0: %d values, kept %v, %v", len(x), kept, err)
	}
	for i, c := range cl {
		if c != i%10 {
			t.Fatalf("class %d at %d, want %d", c, i, i%10)
		}
	}
	x2, _, _, _ := r.Generate(25, true, 0, rand.New(rand.NewPCG(1, 1)))
	if !slices.Equal(x, x2) {
		t.Error("same rng, different samples")
	}
	if _, _, _, err := r.Generate(5, true, math.Inf(1), rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("a filter that keeps nothing gave no error")
	}
	if _, _, _, err := r.Generate(0, false, 0, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("0 samples accepted")
	}
	sc, err := d.Score(x, cl, d.Val, 40)
	if err != nil || math.IsNaN(sc.FDClassifier) || math.IsNaN(sc.Accuracy) || len(sc.PerClass) != 10 {
		t.Errorf("scores %+v, %v", sc, err)
	}
}

func TestDiffusionFiguresRegistered(t *testing.T) {
	for _, id := range []string{"fdp-fig7", "fdp-fig8", "fdp-samples", "fdp-fig7-eps"} {
		f, ok := experiments.Lookup(id)
		if !ok {
			t.Fatalf("%s not registered", id)
		}
		if err := f.Validate(); err != nil {
			t.Error(err)
		}
		for _, p := range []experiments.Profile{experiments.Quick, experiments.Full} {
			if cells, err := f.Cells(p); err != nil || len(cells) == 0 {
				t.Errorf("%s %s: %d cells, %v", id, p, len(cells), err)
			}
		}
	}
}

// The Fréchet distance between two point sets, here one the other shifted
// by (3, 4): ‖μ_a − μ_b‖² = 25 and equal covariances.
func ExampleFrechetDistance() {
	a := []float64{0, 0, 1, 0, 0, 1, 1, 1}
	b := []float64{3, 4, 4, 4, 3, 5, 4, 5}
	fd, err := FrechetDistance(a, 4, b, 4, 2)
	if err != nil {
		panic(err)
	}
	fmt.Printf("FD = %.6f\n", fd)
	// Output: FD = 25.000000
}

// TestDiffusionEpsCells checks fdp-fig7-eps's grid: the private methods
// train at ε = x with a seed per ε, the ε-free series share one seed (one
// run) across ε, and the setting is A's.
func TestDiffusionEpsCells(t *testing.T) {
	for _, p := range []experiments.Profile{experiments.Quick, experiments.Full} {
		cells, err := diffusionEpsCells(p)
		if err != nil {
			t.Fatal(err)
		}
		eps := DiffusionEpsValues(p)
		if want := 7 * len(eps) * diffusionEpsReps(p); len(cells) != want {
			t.Fatalf("%s: %d cells, want %d", p, len(cells), want)
		}
		seeds := map[string]map[uint64]bool{}
		for _, c := range cells {
			s := c.Config.(diffusionCell).Setting
			if s.Name != "A" || !s.Conditional {
				t.Fatalf("%s: setting %+v, want A", p, s)
			}
			if seeds[c.Method] == nil {
				seeds[c.Method] = map[uint64]bool{}
			}
			seeds[c.Method][c.Seed] = true
			private := slices.Contains(privateMethods(), c.Method)
			if private && diffusionEps(s) != c.X {
				t.Errorf("%s %s at x = %v: ε %v", p, c.Method, c.X, diffusionEps(s))
			}
			if !private && s.Eps != 0 {
				t.Errorf("%s %s: ε set (%v) on a series that does not use it", p, c.Method, s.Eps)
			}
		}
		for m, ss := range seeds {
			want := diffusionEpsReps(p)
			if slices.Contains(privateMethods(), m) {
				want *= len(eps)
			}
			if len(ss) != want {
				t.Errorf("%s %s: %d seeds, want %d", p, m, len(ss), want)
			}
		}
	}
}
