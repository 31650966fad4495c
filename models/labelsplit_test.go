package models

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/featuredp/featuredp/design"
)

// splitTestData returns n rows of d features with ‖x‖ ≤ 1 and k classes.
func splitTestData(n, d, k int, seed uint64) *design.Data {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range n {
		var ss float64
		for j := range d {
			v := rng.NormFloat64()
			x[i*d+j] = v
			ss += v * v
		}
		s := rng.Float64() / math.Sqrt(ss)
		for j := range d {
			x[i*d+j] *= s
		}
		y[i] = float64(rng.IntN(k))
	}
	return &design.Data{X: x, Y: y, N: n, D: d}
}

// padTestData keeps the columns public of data and fills the others with
// N(0, 1) draws from rng, row by row (the public view of the feature-DP
// experiments, notions/fdp.GaussianPadding, rebuilt here because the core
// does not import a notion).
func padTestData(data *design.Data, public []int, rng *rand.Rand) (*design.Data, error) {
	keep := make([]bool, data.D)
	for _, j := range public {
		keep[j] = true
	}
	x := make([]float64, len(data.X))
	for i := range data.N {
		for j := range data.D {
			if keep[j] {
				x[i*data.D+j] = data.X[i*data.D+j]
			} else {
				x[i*data.D+j] = rng.NormFloat64()
			}
		}
	}
	return &design.Data{X: x, Y: append([]float64(nil), data.Y...), N: data.N, D: data.D}, nil
}

// A6: label-DP loss split — ℓ_pub + ℓ_priv = ℓ, gradients, Lipschitz
// constants, ∇ℓ_priv independent of W.
func TestLabelSplitSoftmaxSplit(t *testing.T) {
	const n, d, k = 50, 6, 4
	data := splitTestData(n, d, k, 3)
	full, _ := NewLabelSplitSoftmax(d, k, PartFull)
	pub, _ := NewLabelSplitSoftmax(d, k, PartPublic)
	priv, _ := NewLabelSplitSoftmax(d, k, PartPrivate)
	rng := rand.New(rand.NewPCG(5, 5))
	theta := make([]float64, d*k)
	for j := range theta {
		theta[j] = 3 * rng.NormFloat64()
	}
	for i := range n {
		idx := []int{i}
		l, lp, lq := full.Loss(theta, data, idx), pub.Loss(theta, data, idx), priv.Loss(theta, data, idx)
		if math.Abs(lp+lq-l) > 1e-12 {
			t.Fatalf("A6 row %d: ℓ_pub + ℓ_priv = %v, ℓ = %v", i, lp+lq, l)
		}
	}
	p := d * k
	gF, gP, gQ := make([]float64, n*p), make([]float64, n*p), make([]float64, n*p)
	full.PerExampleGrads(theta, data, nil, gF)
	pub.PerExampleGrads(theta, data, nil, gP)
	priv.PerExampleGrads(theta, data, nil, gQ)
	theta2 := make([]float64, p)
	gQ2 := make([]float64, n*p)
	priv.PerExampleGrads(theta2, data, nil, gQ2)
	normsQ := make([]float64, n)
	priv.PerExampleGradNorms(theta, data, nil, normsQ)
	for i := range n {
		x := data.Row(i)
		xn := math.Sqrt(sumSq(x))
		var nq, nf float64
		for j := range p {
			if math.Abs(gP[i*p+j]+gQ[i*p+j]-gF[i*p+j]) > 1e-12 {
				t.Fatalf("A6: gradients do not add up at row %d", i)
			}
			if gQ[i*p+j] != gQ2[i*p+j] {
				t.Fatalf("A6: ∇ℓ_priv depends on W")
			}
			nq += gQ[i*p+j] * gQ[i*p+j]
			nf += gF[i*p+j] * gF[i*p+j]
		}
		if math.Abs(math.Sqrt(nq)-xn) > 1e-12 || math.Sqrt(nf) > math.Sqrt2*xn+1e-12 || xn > 1 {
			t.Fatalf("A6 row %d: ‖∇ℓ_priv‖ = %v, ‖∇ℓ‖ = %v, ‖x‖ = %v", i, math.Sqrt(nq), math.Sqrt(nf), xn)
		}
		if math.Abs(normsQ[i]-xn) > 1e-12 {
			t.Fatalf("ghost norm %v vs ‖x‖ %v", normsQ[i], xn)
		}
	}
	// ∇ℓ_pub = x softmax(Wᵀx)ᵀ by finite differences.
	const h = 1e-6
	g := make([]float64, p)
	pub.GradSum(theta, data, []int{7}, g)
	for j := range p {
		tp := append([]float64(nil), theta...)
		tm := append([]float64(nil), theta...)
		tp[j] += h
		tm[j] -= h
		fd := (pub.Loss(tp, data, []int{7}) - pub.Loss(tm, data, []int{7})) / (2 * h)
		if math.Abs(fd-g[j]) > 1e-7 {
			t.Fatalf("A6 finite differences at %d: %v vs %v", j, fd, g[j])
		}
	}
}

// A6 (Purchase): with the same padding draw ℓ_pub + ℓ_priv = ℓ exactly; and
// the rank-2 ghost norms of LossDiff against materialised gradients
// (the loss split of the Feature-DP paper, Sec. 5), for chunks that cross the batched threshold.
func TestLossDiffRank2GhostNorms(t *testing.T) {
	const d, h, k = 12, 7, 5
	for _, n := range []int{5, 40, 1100} {
		data := splitTestData(n, d, k, uint64(n))
		for i := range data.X {
			data.X[i] *= 3
		}
		padded, err := padTestData(data, []int{0, 1, 2, 3}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		for _, act := range []Activation{Tanh, ReLU} {
			mlp, _ := NewMLP(d, h, k, act, HeadSoftmaxCE)
			diff, err := NewLossDiff(mlp, mlp, padded)
			if err != nil {
				t.Fatal(err)
			}
			theta := make([]float64, mlp.NumParams())
			mlp.Init(theta, rand.New(rand.NewPCG(9, uint64(n))))
			idx := []int{0, n - 1, n / 2, 1}
			if n > 100 {
				idx = nil
			}
			m := numRows(data, idx)
			p := mlp.NumParams()
			pe := make([]float64, m*p)
			diff.PerExampleGrads(theta, data, idx, pe)
			norms := make([]float64, m)
			diff.PerExampleGradNorms(theta, data, idx, norms)
			w := make([]float64, m)
			want := make([]float64, p)
			for r := range m {
				nr := math.Sqrt(sumSq(pe[r*p : (r+1)*p]))
				if math.Abs(nr-norms[r]) > 1e-9*(1+nr) {
					t.Fatalf("n=%d %v row %d: ghost %v vs materialised %v", n, act, r, norms[r], nr)
				}
				w[r] = math.Min(1, 0.5/nr)
				axpy(w[r], pe[r*p:(r+1)*p], want)
			}
			got := make([]float64, p)
			diff.WeightedGradSum(theta, data, idx, w, got)
			for j := range p {
				if math.Abs(got[j]-want[j]) > 1e-9 {
					t.Fatalf("n=%d weighted sum %d: %v vs %v", n, j, got[j], want[j])
				}
			}
			if n == 5 {
				for i := range n {
					l := mlp.Loss(theta, data, []int{i})
					lp := mlp.Loss(theta, padded, []int{i})
					lq := diff.Loss(theta, data, []int{i})
					if lp+lq != l && math.Abs(lp+lq-l) > 1e-15*math.Abs(l) {
						t.Fatalf("A6 Purchase: ℓ_pub + ℓ_priv = %v ≠ ℓ = %v", lp+lq, l)
					}
				}
			}
		}
	}
}

// The batched MLP paths agree with the per-row loops.
func TestBatchedMLPMatchesRowLoop(t *testing.T) {
	const n, d, h, k = 1500, 9, 6, 4
	data := splitTestData(n, d, k, 11)
	for _, head := range []Head{HeadSoftmaxCE, HeadMSE} {
		kk := k
		if head == HeadMSE {
			kk = 1
		}
		m, _ := NewMLP(d, h, kk, SiLU, head)
		theta := make([]float64, m.NumParams())
		m.Init(theta, rand.New(rand.NewPCG(2, 3)))
		p := m.NumParams()
		got := make([]float64, p)
		m.GradSum(theta, data, nil, got)
		pe := make([]float64, p)
		want := make([]float64, p)
		var loss float64
		norms := make([]float64, n)
		m.PerExampleGradNorms(theta, data, nil, norms)
		for i := range n {
			m.PerExampleGrads(theta, data, []int{i}, pe)
			axpy(1, pe, want)
			loss += m.Loss(theta, data, []int{i})
			if nr := math.Sqrt(sumSq(pe)); math.Abs(nr-norms[i]) > 1e-10*(1+nr) {
				t.Fatalf("%v norm row %d: %v vs %v", head, i, norms[i], nr)
			}
		}
		for j := range p {
			if math.Abs(got[j]-want[j]) > 1e-9*(1+math.Abs(want[j])) {
				t.Fatalf("%v GradSum[%d] = %v, want %v", head, j, got[j], want[j])
			}
		}
		if l := m.Loss(theta, data, nil); math.Abs(l-loss/n) > 1e-12 {
			t.Fatalf("%v Loss %v vs %v", head, l, loss/n)
		}
	}
}

func TestSplitModelsBadInput(t *testing.T) {
	mlp, _ := NewMLP(3, 2, 2, Tanh, HeadSoftmaxCE)
	other, _ := NewMLP(3, 3, 2, Tanh, HeadSoftmaxCE)
	data := splitTestData(4, 3, 2, 1)
	cases := []error{}
	_, err := NewLabelSplitSoftmax(0, 2, PartFull)
	cases = append(cases, err)
	_, err = NewLabelSplitSoftmax(2, 2, LossPart(7))
	cases = append(cases, err)
	_, err = NewLossDiff(nil, mlp, data)
	cases = append(cases, err)
	_, err = NewLossDiff(mlp, other, data)
	cases = append(cases, err)
	_, err = NewLossDiff(mlp, mlp, nil)
	cases = append(cases, err)
	for i, e := range cases {
		if e == nil {
			t.Errorf("case %d: no error", i)
		}
	}
	diff, _ := NewLossDiff(mlp, mlp, data)
	if err := diff.CheckLabels(splitTestData(5, 3, 2, 1)); err == nil {
		t.Error("row mismatch not reported")
	}
}

func ExampleLabelSplitSoftmax() {
	data := &design.Data{X: []float64{0.6, 0.8}, Y: []float64{1}, N: 1, D: 2}
	theta := []float64{1, -1, 0.5, 2} // W = [[1, -1], [0.5, 2]]
	for _, part := range []LossPart{PartFull, PartPublic, PartPrivate} {
		m, _ := NewLabelSplitSoftmax(2, 2, part)
		fmt.Printf("%-7s ℓ = %.4f\n", part, m.Loss(theta, data, nil))
	}
	// Output:
	// full    ℓ = 0.6931
	// public  ℓ = 1.6931
	// private ℓ = -1.0000
}

// The embedding model's ghost norms (single and LossDiff with zero masking)
// match materialised gradients, and gradients match finite differences.
func TestEmbedLogistic(t *testing.T) {
	vocab := []int{3, 5}
	full, err := NewEmbedLogistic(2, vocab, false)
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := NewEmbedLogistic(2, vocab, true)
	x := []float64{0.5, -1, 2, 4, 1.5, 0.2, 0, 1, -0.3, 0.7, 1, 3}
	data, _ := design.NewData(x, []float64{1, 0, 1}, 3, 4)
	if err := full.CheckLabels(data); err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.3, -0.2, 0.1, 0.5, -0.4, 0.2, 0.3, -0.1, 0.6, 0.05, -0.25}
	diff, err := NewLossDiff(full, pub, data)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Model{full, pub, diff} {
		p := m.NumParams()
		pe := make([]float64, 3*p)
		m.PerExampleGrads(theta, data, nil, pe)
		norms := make([]float64, 3)
		m.(GradNormer).PerExampleGradNorms(theta, data, nil, norms)
		for r := range 3 {
			if nr := math.Sqrt(sumSq(pe[r*p : (r+1)*p])); math.Abs(nr-norms[r]) > 1e-12 {
				t.Fatalf("%T row %d: ghost %v vs %v", m, r, norms[r], nr)
			}
		}
		g := make([]float64, p)
		m.GradSum(theta, data, nil, g)
		for j := range p {
			tp := append([]float64(nil), theta...)
			tm := append([]float64(nil), theta...)
			tp[j] += 1e-6
			tm[j] -= 1e-6
			fd := 3 * (m.Loss(tp, data, nil) - m.Loss(tm, data, nil)) / 2e-6
			if math.Abs(fd-g[j]) > 1e-6 {
				t.Fatalf("%T finite differences at %d: %v vs %v", m, j, fd, g[j])
			}
		}
	}
	bad, _ := design.NewData([]float64{0, 0, 3, 0}, []float64{1}, 1, 4)
	if full.CheckLabels(bad) == nil {
		t.Error("category index 3 of a vocabulary of 3 accepted")
	}
	if _, err := NewEmbedLogistic(1, []int{0}, false); err == nil {
		t.Error("empty vocabulary accepted")
	}
}

// The memo of LossDiff is used only at exactly the same θ and rows.
func TestLossDiffMemoExactMatch(t *testing.T) {
	data := splitTestData(200, 5, 3, 4)
	pad, _ := padTestData(data, []int{0, 1}, rand.New(rand.NewPCG(1, 1)))
	mlp, _ := NewMLP(5, 4, 3, Tanh, HeadSoftmaxCE)
	diff, _ := NewLossDiff(mlp, mlp, pad)
	th1 := make([]float64, mlp.NumParams())
	mlp.Init(th1, rand.New(rand.NewPCG(2, 2)))
	th2 := append([]float64(nil), th1...)
	th2[3] += 1e-3
	idx := []int{5, 9, 100, 150, 3}
	w := []float64{0.3, 1, 0.5, 0.2, 0.9}
	norms := make([]float64, len(idx))
	other := splitTestData(200, 5, 3, 99) // same shape, other rows: a memo must not serve it
	fresh := func(theta []float64, d *design.Data, rows []int) []float64 {
		d2, _ := NewLossDiff(mlp, mlp, pad)
		out := make([]float64, mlp.NumParams())
		d2.WeightedGradSum(theta, d, rows, w, out)
		return out
	}
	for _, c := range []struct {
		theta []float64
		data  *design.Data
		rows  []int
	}{{th2, data, idx}, {th1, data, []int{5, 9, 100, 150, 4}}, {th1, other, idx}, {th1, data, idx}} {
		diff.PerExampleGradNorms(th1, data, idx, norms)
		got := make([]float64, mlp.NumParams())
		diff.WeightedGradSum(c.theta, c.data, c.rows, w, got)
		want := fresh(c.theta, c.data, c.rows)
		for j := range got {
			if math.Abs(got[j]-want[j]) > 1e-12 {
				t.Fatalf("memo misuse at %d: %v vs %v", j, got[j], want[j])
			}
		}
	}
}

// The L2 term of LabelSplitSoftmax: gradients by finite differences and ghost
// norms against materialised gradients; the private part ignores it.
func TestLabelSplitSoftmaxL2(t *testing.T) {
	data := splitTestData(20, 3, 3, 8)
	theta := make([]float64, 9)
	rng := rand.New(rand.NewPCG(4, 4))
	for j := range theta {
		theta[j] = rng.NormFloat64()
	}
	for _, part := range []LossPart{PartFull, PartPublic, PartPrivate} {
		m := &LabelSplitSoftmax{D: 3, K: 3, Part: part, L2: 0.7}
		g := make([]float64, 9)
		m.GradSum(theta, data, []int{2}, g)
		for j := range theta {
			tp := append([]float64(nil), theta...)
			tm := append([]float64(nil), theta...)
			tp[j] += 1e-6
			tm[j] -= 1e-6
			fd := (m.Loss(tp, data, []int{2}) - m.Loss(tm, data, []int{2})) / 2e-6
			if math.Abs(fd-g[j]) > 1e-6 {
				t.Fatalf("%v: finite differences at %d: %v vs %v", part, j, fd, g[j])
			}
		}
		pe := make([]float64, 20*9)
		m.PerExampleGrads(theta, data, nil, pe)
		norms := make([]float64, 20)
		m.PerExampleGradNorms(theta, data, nil, norms)
		for r := range 20 {
			if nr := math.Sqrt(sumSq(pe[r*9 : (r+1)*9])); math.Abs(nr-norms[r]) > 1e-12 {
				t.Fatalf("%v ghost %v vs %v", part, norms[r], nr)
			}
		}
	}
}

// TestBatchedLabelSplitBits: the batched gradient sum of the Full and
// Public parts (≥ lsBatchMin rows) has the bits of the row loop (one row at
// a time into the same sum), with and without weights, on rows with zero
// features and on an index subset.
func TestBatchedLabelSplitBits(t *testing.T) {
	const n, d, k = 2500, 7, 5
	data := splitTestData(n, d, k, 21)
	for i := 0; i < len(data.X); i += 3 {
		data.X[i] = 0
	}
	rng := rand.New(rand.NewPCG(4, 5))
	idx := make([]int, 1300)
	w := make([]float64, len(idx))
	for r := range idx {
		idx[r], w[r] = rng.IntN(n), rng.Float64()
	}
	for _, part := range []LossPart{PartFull, PartPublic} {
		m, _ := NewLabelSplitSoftmax(d, k, part)
		theta := make([]float64, m.NumParams())
		for j := range theta {
			theta[j] = rng.NormFloat64()
		}
		for _, c := range []struct {
			name string
			idx  []int
			w    []float64
		}{{"all", nil, nil}, {"subset", idx, nil}, {"weighted", idx, w}} {
			if !m.batched(numRows(data, c.idx)) {
				t.Fatalf("%v %s: batched path not taken", part, c.name)
			}
			got := make([]float64, m.NumParams())
			m.WeightedGradSum(theta, data, c.idx, c.w, got)
			want := make([]float64, m.NumParams())
			for r := range numRows(data, c.idx) {
				var wr []float64
				if c.w != nil {
					wr = c.w[r : r+1]
				}
				m.WeightedGradSum(theta, data, []int{rowIndex(c.idx, r)}, wr, want)
			}
			for j := range got {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("%v %s: gradient[%d] = %v, row loop %v", part, c.name, j, got[j], want[j])
				}
			}
		}
	}
}

// TestClippedGradSumBits: ClippedGradSum gives the bits of
// PerExampleGradNorms followed by WeightedGradSum (MLP batched and row
// loop; EmbedLogistic).
func TestClippedGradSumBits(t *testing.T) {
	mlpData := splitTestData(3000, 9, 4, 31)
	mlp, _ := NewMLP(9, 12, 4, Tanh, HeadSoftmaxCE)
	mlpTheta := make([]float64, mlp.NumParams())
	mlp.Init(mlpTheta, rand.New(rand.NewPCG(6, 7)))
	rng := rand.New(rand.NewPCG(8, 9))
	const n = 500
	vocab := []int{7, 3, 11}
	x, y := make([]float64, n*5), make([]float64, n)
	for i := range n {
		x[i*5], x[i*5+1] = rng.NormFloat64(), rng.NormFloat64()
		for c, v := range vocab {
			x[i*5+2+c] = float64(rng.IntN(v))
		}
		y[i] = float64(rng.IntN(2))
	}
	embData, _ := design.NewData(x, y, n, 5)
	emb, _ := NewEmbedLogistic(2, vocab, false)
	embTheta := make([]float64, emb.NumParams())
	for j := range embTheta {
		embTheta[j] = rng.NormFloat64()
	}
	clip := func(nr float64) float64 { return min(1, 0.05/nr) }
	for _, c := range []struct {
		name  string
		m     Model
		data  *design.Data
		theta []float64
		rows  []int
	}{
		{"mlp-batched", mlp, mlpData, mlpTheta, nil},
		{"mlp-rowloop", mlp, mlpData, mlpTheta, []int{5, 9, 2}},
		{"embed", emb, embData, embTheta, nil},
		{"embed-subset", emb, embData, embTheta, []int{4, 4, 100, 7}},
	} {
		k := numRows(c.data, c.rows)
		norms, wts := make([]float64, k), make([]float64, k)
		got := make([]float64, c.m.NumParams())
		c.m.(ClippedGradSummer).ClippedGradSum(c.theta, c.data, c.rows, clip, norms, wts, got)
		wantN, wantW := make([]float64, k), make([]float64, k)
		want := make([]float64, c.m.NumParams())
		c.m.(GradNormer).PerExampleGradNorms(c.theta, c.data, c.rows, wantN)
		for r, v := range wantN {
			wantW[r] = clip(v)
		}
		c.m.(WeightedGradSummer).WeightedGradSum(c.theta, c.data, c.rows, wantW, want)
		for r := range k {
			if norms[r] != wantN[r] || wts[r] != wantW[r] {
				t.Fatalf("%s: norm/weight %d differ", c.name, r)
			}
		}
		for j := range got {
			if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
				t.Fatalf("%s: gradient[%d] = %v, two passes %v", c.name, j, got[j], want[j])
			}
		}
	}
}

// TestMLPFloat32: the Float32 mode's batched gradients, norms and clipped
// sums agree with float64 to single-precision rounding, and do not depend
// on the number of goroutines.
func TestMLPFloat32(t *testing.T) {
	data := splitTestData(2500, 40, 5, 41)
	m64, _ := NewMLP(40, 24, 5, Tanh, HeadSoftmaxCE)
	m32 := *m64
	m32.Float32 = true
	theta := make([]float64, m64.NumParams())
	m64.Init(theta, rand.New(rand.NewPCG(1, 9)))
	p := m64.NumParams()
	clip := func(nr float64) float64 { return min(1, 0.5/nr) }
	run := func(m *MLP) ([]float64, []float64) {
		g := make([]float64, p)
		nr, w := make([]float64, data.N), make([]float64, data.N)
		m.ClippedGradSum(theta, data, nil, clip, nr, w, g)
		return g, nr
	}
	g64, n64 := run(m64)
	g32, n32 := run(&m32)
	scale := math.Sqrt(sumSq(g64))
	for j := range g64 {
		if math.Abs(g32[j]-g64[j]) > 1e-5*scale {
			t.Fatalf("gradient[%d]: float32 %v, float64 %v", j, g32[j], g64[j])
		}
	}
	for i := range n64 {
		if math.Abs(n32[i]-n64[i]) > 1e-5*n64[i] {
			t.Fatalf("norm %d: float32 %v, float64 %v", i, n32[i], n64[i])
		}
	}
	procs := runtime.GOMAXPROCS(1)
	g1, _ := run(&m32)
	runtime.GOMAXPROCS(procs)
	for j := range g1 {
		if math.Float64bits(g1[j]) != math.Float64bits(g32[j]) {
			t.Fatalf("gradient[%d] depends on GOMAXPROCS in Float32 mode", j)
		}
	}
}

// TestLossDiffFloat32: the rank-2 ghost norms and the weighted sum of
// ∇ℓ − ∇ℓ_pub in Float32 mode agree with float64 to single-precision
// rounding.
func TestLossDiffFloat32(t *testing.T) {
	data := splitTestData(2000, 30, 4, 51)
	pubData := splitTestData(2000, 30, 4, 52)
	m64, _ := NewMLP(30, 20, 4, Tanh, HeadSoftmaxCE)
	m32 := *m64
	m32.Float32 = true
	theta := make([]float64, m64.NumParams())
	m64.Init(theta, rand.New(rand.NewPCG(3, 9)))
	run := func(m *MLP) ([]float64, []float64) {
		diff, err := NewLossDiff(m, m, pubData)
		if err != nil {
			t.Fatal(err)
		}
		nr, w := make([]float64, data.N), make([]float64, data.N)
		diff.PerExampleGradNorms(theta, data, nil, nr)
		for i, v := range nr {
			w[i] = min(1, 0.1/v)
		}
		g := make([]float64, m.NumParams())
		diff.WeightedGradSum(theta, data, nil, w, g)
		return g, nr
	}
	g64, n64 := run(m64)
	g32, n32 := run(&m32)
	scale := math.Sqrt(sumSq(g64))
	for j := range g64 {
		if math.Abs(g32[j]-g64[j]) > 1e-4*scale {
			t.Fatalf("gradient[%d]: float32 %v, float64 %v", j, g32[j], g64[j])
		}
	}
	for i := range n64 {
		if math.Abs(n32[i]-n64[i]) > 1e-4*n64[i] {
			t.Fatalf("norm %d: float32 %v, float64 %v", i, n32[i], n64[i])
		}
	}
}

// PublicPart: only the public losses built to ignore the private part say
// so; a full model, or a copy of it, never does.
func TestReadsPublicPartOnly(t *testing.T) {
	full, _ := NewLabelSplitSoftmax(2, 3, PartFull)
	pub, _ := NewLabelSplitSoftmax(2, 3, PartPublic)
	priv, _ := NewLabelSplitSoftmax(2, 3, PartPrivate)
	embFull, _ := NewEmbedLogistic(2, []int{3}, false)
	embPub, _ := NewEmbedLogistic(2, []int{3}, true)
	mlp, _ := NewMLP(2, 3, 2, Tanh, HeadSoftmaxCE)
	for _, c := range []struct {
		name string
		m    Model
		want bool
	}{
		{"label split, public part", pub, true},
		{"label split, full", full, false},
		{"label split, private part", priv, false},
		{"embedding logistic, public only", embPub, true},
		{"embedding logistic, full", embFull, false},
		{"MLP", mlp, false},
	} {
		if got := ReadsPublicPartOnly(c.m); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
