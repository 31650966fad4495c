package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/featuredp/featuredp/design"
)

func TestBlockLog1pSoftplusAccuracy(t *testing.T) {
	worst := 0.0
	for e := 0.0; e <= 1; e += 1.0 / 8191 {
		want := math.Log1p(e)
		got := blockLog1p(e)
		if want == 0 {
			if got != 0 {
				t.Fatalf("blockLog1p(0) = %g", got)
			}
			continue
		}
		if r := math.Abs(got/want - 1); r > worst {
			worst = r
		}
	}
	for _, e := range []float64{1e-300, 1e-20, 1e-9, math.Sqrt2 - 1, math.Nextafter(math.Sqrt2-1, 1), 1} {
		if r := math.Abs(blockLog1p(e)/math.Log1p(e) - 1); r > worst {
			worst = r
		}
	}
	if worst > 1e-15 {
		t.Errorf("max relative error of blockLog1p on [0, 1] = %g, want ≤ 1e-15", worst)
	}
	for _, a := range []float64{-1e308, -800, -30, -1, -1e-12, 0, 1e-12, 1, 30, 800, 1e308} {
		h, dh := blockSoftplus(a)
		wh, wdh := Softplus.eval(a)
		if math.Abs(h-wh) > 1e-15*math.Max(math.Abs(wh), 1e-300) && math.Abs(h-wh) > 1e-300 {
			t.Errorf("softplus(%g) = %g, want %g", a, h, wh)
		}
		if math.Abs(dh-wdh) > 1e-15*math.Max(wdh, 1e-300) && math.Abs(dh-wdh) > 1e-300 {
			t.Errorf("softplus'(%g) = %g, want %g", a, dh, wdh)
		}
	}
}

func mlpBlockSetup(t testing.TB, n, d, h int) (*MLP, *design.Data) {
	t.Helper()
	rng := rand.New(rand.NewPCG(8, 8))
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range x {
		x[i] = rng.Float64()
	}
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	data, err := design.NewData(x, y, n, d)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMLP(d, h, 1, Softplus, HeadMSE)
	if err != nil {
		t.Fatal(err)
	}
	return m, data
}

// The block gradient equals MLP.GradSum to rounding; lanes are independent
// of each other; the kernel in use is bit-identical to the portable one.
func TestMLPBlockGradSums(t *testing.T) {
	m, data := mlpBlockSetup(t, 57, 8, 20)
	b, err := NewMLPBlock(m, data)
	if err != nil {
		t.Fatal(err)
	}
	th := blockTestThetas(7, m.NumParams(), 1, 3)
	th[6] = blockTestThetas(1, m.NumParams(), 400, 4)[0] // saturating units
	got := blockTestThetas(7, m.NumParams(), 1, 5)
	if err := b.GradSums(th, got); err != nil {
		t.Fatal(err)
	}
	for r := range th {
		want := make([]float64, m.NumParams())
		m.GradSum(th[r], data, nil, want)
		for j := range want {
			if math.Abs(got[r][j]-want[j]) > 1e-10*(1+math.Abs(want[j])) {
				t.Fatalf("lane %d coord %d: block %.17g, GradSum %.17g", r, j, got[r][j], want[j])
			}
		}
		one := [][]float64{make([]float64, m.NumParams())}
		if err := b.GradSums([][]float64{th[r]}, one); err != nil {
			t.Fatal(err)
		}
		for j := range one[0] {
			if math.Float64bits(one[0][j]) != math.Float64bits(got[r][j]) {
				t.Fatalf("lane %d coord %d: alone %.17g, in the block %.17g", r, j, one[0][j], got[r][j])
			}
		}
	}
	saved := mlpBlockKernel
	mlpBlockKernel = mlpBlockPortable
	port := blockTestThetas(7, m.NumParams(), 0, 0)
	err = b.GradSums(th, port)
	mlpBlockKernel = saved
	if err != nil {
		t.Fatal(err)
	}
	for r := range port {
		for j := range port[r] {
			if math.Float64bits(port[r][j]) != math.Float64bits(got[r][j]) {
				t.Fatalf("lane %d coord %d: kernel %.17g, portable %.17g", r, j, got[r][j], port[r][j])
			}
		}
	}
}

func TestMLPBlockErrors(t *testing.T) {
	m, data := mlpBlockSetup(t, 5, 3, 2)
	if _, err := NewMLPBlock(nil, data); err == nil {
		t.Error("nil model accepted")
	}
	for _, z := range []*MLPBlock{nil, {}} {
		p := make([]float64, m.NumParams())
		if err := z.GradSums([][]float64{p}, [][]float64{p}); err == nil {
			t.Errorf("GradSums on %#v accepted", z)
		}
	}
	relu, _ := NewMLP(3, 2, 1, ReLU, HeadMSE)
	if _, err := NewMLPBlock(relu, data); err == nil {
		t.Error("ReLU accepted")
	}
	ce, _ := NewMLP(3, 2, 2, Softplus, HeadSoftmaxCE)
	if _, err := NewMLPBlock(ce, data); err == nil {
		t.Error("softmax head accepted")
	}
	wide, _ := NewMLP(4, 2, 1, Softplus, HeadMSE)
	if _, err := NewMLPBlock(wide, data); err == nil {
		t.Error("column mismatch accepted")
	}
	b, _ := NewMLPBlock(m, data)
	if err := b.GradSums([][]float64{make([]float64, m.NumParams())}, nil); err == nil {
		t.Error("missing output accepted")
	}
}

// BenchmarkMLPBlockGradSums: one full-batch gradient of the Medical Cost NN
// (1,000 rows, 8 → 20 → 1) for R runs; compare MLP.GradSum per run.
func BenchmarkMLPBlockGradSums(b *testing.B) {
	m, data := mlpBlockSetup(b, 1000, 8, 20)
	blk, _ := NewMLPBlock(m, data)
	for _, r := range []int{1, 16} {
		th := blockTestThetas(r, m.NumParams(), 0.3, 2)
		outs := blockTestThetas(r, m.NumParams(), 0, 0)
		b.Run(map[int]string{1: "R=1", 16: "R=16"}[r], func(b *testing.B) {
			for b.Loop() {
				if err := blk.GradSums(th, outs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("GradSum", func(b *testing.B) {
		th := blockTestThetas(1, m.NumParams(), 0.3, 2)[0]
		out := make([]float64, m.NumParams())
		for b.Loop() {
			clear(out)
			m.GradSum(th, data, nil, out)
		}
	})
}
