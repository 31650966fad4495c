package models

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/design"
)

func mustData(t testing.TB, x, y []float64, n, d int) *design.Data {
	t.Helper()
	data, err := design.NewData(x, y, n, d)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestLinearStats(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	const n, d = 500, 7
	data := randomData(t, r, n, d, realLabel)
	stats, err := NewLinearStats(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		icpt  bool
		ridge float64
	}{{false, 0}, {false, 1}, {true, 0}, {true, 2.5}} {
		m, err := NewLinear(d, tc.icpt, tc.ridge)
		if err != nil {
			t.Fatal(err)
		}
		p := m.NumParams()
		theta := randomTheta(r, p)
		want := make([]float64, p)
		m.GradSum(theta, data, nil, want)
		got := make([]float64, p)
		stats.GradSum(m, theta, got)
		scale := math.Sqrt(sumSq(want))
		for j := range p {
			if math.Abs(got[j]-want[j]) > 1e-12*scale {
				t.Errorf("%+v param %d: stats GradSum %.16g, GradSum %.16g", tc, j, got[j], want[j])
			}
		}
		mean := make([]float64, p)
		stats.Grad(m, theta, mean)
		for j := range p {
			if math.Abs(mean[j]-want[j]/n) > 1e-12*scale/n {
				t.Errorf("%+v param %d: stats Grad %.16g, GradSum/N %.16g", tc, j, mean[j], want[j]/n)
			}
		}
		if l, s := m.Loss(theta, data, nil), stats.Loss(m, theta); !near(l, s, 1e-11) {
			t.Errorf("%+v: stats Loss %.16g, Loss %.16g", tc, s, l)
		}

		// The closed-form solution zeroes the gradient.
		opt, err := m.Solve(data)
		if err != nil {
			t.Fatal(err)
		}
		g := make([]float64, p)
		m.GradSum(opt, data, nil, g)
		ref := make([]float64, p) // gradient scale at θ = 0: 2‖X̃ᵀy‖
		m.GradSum(make([]float64, p), data, nil, ref)
		if gn, rn := math.Sqrt(sumSq(g)), math.Sqrt(sumSq(ref)); gn > 1e-10*rn {
			t.Errorf("%+v: ‖∇F(θ̂)‖·N = %g, want ≤ 1e-10 · %g", tc, gn, rn)
		}
		// It minimises F: perturbations do not decrease the loss.
		f0 := m.Loss(opt, data, nil)
		for j := range p {
			th := slices.Clone(opt)
			th[j] += 1e-3
			if f := m.Loss(th, data, nil); f < f0 {
				t.Errorf("%+v: F(θ̂ + 1e-3 e_%d) = %.16g < F(θ̂) = %.16g", tc, j, f, f0)
			}
		}
	}
}

// TestLinearSolvePaperForm checks Solve against the CorrDP closed form
// θ̂ = (XᵀX + I)⁻¹Xᵀy on a 2-feature example solved by hand.
func TestLinearSolvePaperForm(t *testing.T) {
	// X = [[1,0],[0,1],[1,1]], y = [1,2,3]: XᵀX + I = [[3,1],[1,3]],
	// Xᵀy = [4,5], θ̂ = [[3,-1],[-1,3]]/8 · [4,5] = [7/8, 11/8].
	data := mustData(t, []float64{1, 0, 0, 1, 1, 1}, []float64{1, 2, 3}, 3, 2)
	m, _ := NewLinear(2, false, 1)
	got, err := m.Solve(data)
	if err != nil {
		t.Fatal(err)
	}
	for j, want := range []float64{7.0 / 8, 11.0 / 8} {
		if math.Abs(got[j]-want) > 1e-14 {
			t.Errorf("θ̂[%d] = %v, want %v", j, got[j], want)
		}
	}
	// OLS on collinear features is singular.
	col := mustData(t, []float64{1, 2, 2, 4, 3, 6}, []float64{1, 2, 3}, 3, 2)
	ols, _ := NewLinear(2, false, 0)
	if _, err := ols.Solve(col); err == nil {
		t.Error("OLS on collinear features: want an error")
	}
}

func TestLogisticExtremeLogits(t *testing.T) {
	for _, z := range []float64{-1000, 1000, -40, 40} {
		for _, y := range []float64{0, 1} {
			data := mustData(t, []float64{z}, []float64{y}, 1, 1)
			for _, icpt := range []bool{false, true} {
				m, _ := NewLogistic(1, icpt, 0)
				theta := make([]float64, m.NumParams())
				theta[0] = 1
				loss := m.Loss(theta, data, nil)
				// Exact: softplus(z) − yz = max(z,0) − yz + log1p(e^{−|z|}).
				want := math.Max(z, 0) - y*z + math.Log1p(math.Exp(-math.Abs(z)))
				if math.IsNaN(loss) || math.IsInf(loss, 0) || !near(loss, want, 1e-15) {
					t.Errorf("z=%v y=%v: loss %v, want %v", z, y, loss, want)
				}
				g := make([]float64, m.NumParams())
				m.PerExampleGrads(theta, data, nil, g)
				// ∂ℓ/∂w = (σ(z) − y)·z.
				wantG := (sigmoid(z) - y) * z
				if math.IsNaN(g[0]) || !near(g[0], wantG, 1e-15) {
					t.Errorf("z=%v y=%v: grad %v, want %v", z, y, g[0], wantG)
				}
				if ev := m.Evaluate(theta, data); math.IsNaN(ev.Loss) || math.IsNaN(ev.Accuracy) {
					t.Errorf("z=%v y=%v: Evaluate %+v", z, y, ev)
				}
			}
		}
	}
	// Softmax and MLP logits of ±1000 stay finite too.
	sm, _ := NewSoftmax(1, 3)
	data := mustData(t, []float64{1000}, []float64{2}, 1, 1)
	theta := []float64{1, -1, 0.5, 0, 0, 0}
	if l := sm.Loss(theta, data, nil); !near(l, 500, 1e-15) {
		t.Errorf("softmax loss at logits (1000, −1000, 500), y=2: %v, want 500", l)
	}
	g := make([]float64, sm.NumParams())
	sm.GradSum(theta, data, nil, g)
	for j, v := range g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("softmax grad[%d] = %v", j, v)
		}
	}
}

func TestEvaluateHandComputed(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		m    interface {
			Evaluate([]float64, *design.Data) Metrics
		}
		theta []float64
		data  *design.Data
		want  Metrics
	}{
		{
			// predictions 1, 3, 5; residuals 0, 1, −2: MSE 5/3; ridge 3·2²/3 = 4.
			name: "Linear", m: &Linear{D: 1, Intercept: true, Ridge: 3}, theta: []float64{2, 1},
			data: mustData(t, []float64{0, 1, 2}, []float64{1, 2, 7}, 3, 1),
			want: Metrics{Loss: 5.0/3 + 4, Accuracy: nan, MSE: 5.0 / 3},
		},
		{
			// z = ±ln 3: p = 3/4 and 1/4, labels 1, 1 → losses ln(4/3), ln 4;
			// predictions 1, 0 → accuracy 1/2.
			name: "Logistic", m: &Logistic{D: 1}, theta: []float64{math.Log(3)},
			data: mustData(t, []float64{1, -1}, []float64{1, 1}, 2, 1),
			want: Metrics{Loss: (math.Log(4.0/3) + math.Log(4)) / 2, Accuracy: 0.5, MSE: nan},
		},
		{
			// Same with L2 = 2: + (2/2)(ln 3)².
			name: "Logistic/L2", m: &Logistic{D: 1, L2: 2}, theta: []float64{math.Log(3)},
			data: mustData(t, []float64{1, -1}, []float64{1, 0}, 2, 1),
			want: Metrics{Loss: math.Log(4.0/3) + math.Log(3)*math.Log(3), Accuracy: 1, MSE: nan},
		},
		{
			// logits (0, ln 2, 0): probabilities (1/4, 1/2, 1/4); y = 1 → ln 2,
			// y = 0 → ln 4; argmax 1 → accuracy 1/2.
			name: "Softmax", m: &Softmax{D: 1, K: 3}, theta: []float64{0, math.Log(2), 0, 0, 0, 0},
			data: mustData(t, []float64{1, 1}, []float64{1, 0}, 2, 1),
			want: Metrics{Loss: (math.Log(2) + math.Log(4)) / 2, Accuracy: 0.5, MSE: nan},
		},
		{
			// W1 = 2, b1 = −1, W2 = 3, b2 = 0.5 (ReLU): x = 1 → o = 3.5, y = 3 →
			// 0.25; x = 0 → o = 0.5, y = 0.5 → 0. MSE 0.125.
			name: "MLP/MSE", m: &MLP{D: 1, H: 1, K: 1, Act: ReLU, Head: HeadMSE}, theta: []float64{2, -1, 3, 0.5},
			data: mustData(t, []float64{1, 0}, []float64{3, 0.5}, 2, 1),
			want: Metrics{Loss: 0.125, Accuracy: nan, MSE: 0.125},
		},
		{
			// H = 1, ReLU, W1 = 1, b1 = 0, W2 = (0, ln 3), b2 = 0: x = 1 → o = (0,
			// ln 3), p = (1/4, 3/4); y = 1 → ln(4/3). x = −1 → h = 0, o = 0,
			// y = 0 → ln 2, argmax 0 (tie) → correct.
			name: "MLP/SoftmaxCE", m: &MLP{D: 1, H: 1, K: 2, Act: ReLU, Head: HeadSoftmaxCE},
			theta: []float64{1, 0, 0, math.Log(3), 0, 0},
			data:  mustData(t, []float64{1, -1}, []float64{1, 0}, 2, 1),
			want:  Metrics{Loss: (math.Log(4.0/3) + math.Log(2)) / 2, Accuracy: 1, MSE: nan},
		},
	}
	same := func(a, b float64) bool {
		return (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) <= 1e-14*math.Max(1, math.Abs(b))
	}
	for _, tc := range tests {
		got := tc.m.Evaluate(tc.theta, tc.data)
		if !same(got.Loss, tc.want.Loss) || !same(got.Accuracy, tc.want.Accuracy) || !same(got.MSE, tc.want.MSE) {
			t.Errorf("%s: Evaluate = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestCheckLabels(t *testing.T) {
	data := func(y ...float64) *design.Data {
		x := make([]float64, 2*len(y))
		return &design.Data{X: x, Y: y, N: len(y), D: 2}
	}
	tests := []struct {
		name    string
		m       LabelChecker
		data    *design.Data
		wantErr string // "" for no error
	}{
		{"Linear/ok", &Linear{D: 2}, data(0.5, -3, 1e9), ""},
		{"Linear/NaN", &Linear{D: 2}, data(1, math.NaN()), "not finite"},
		{"Linear/Inf", &Linear{D: 2}, data(math.Inf(1)), "not finite"},
		{"Linear/features", &Linear{D: 3}, data(1), "features"},
		{"Linear/nil", &Linear{D: 3}, nil, "nil data"},
		{"Logistic/ok", &Logistic{D: 2}, data(0, 1, 1), ""},
		{"Logistic/half", &Logistic{D: 2}, data(0, 0.5), "not 0 or 1"},
		{"Logistic/minus1", &Logistic{D: 2}, data(-1, 1), "not 0 or 1"},
		{"Logistic/2", &Logistic{D: 2}, data(2), "not 0 or 1"},
		{"Softmax/ok", &Softmax{D: 2, K: 3}, data(0, 1, 2), ""},
		{"Softmax/K", &Softmax{D: 2, K: 3}, data(0, 3), "class index"},
		{"Softmax/frac", &Softmax{D: 2, K: 3}, data(1.5), "class index"},
		{"Softmax/neg", &Softmax{D: 2, K: 3}, data(-1), "class index"},
		{"Softmax/NaN", &Softmax{D: 2, K: 3}, data(math.NaN()), "class index"},
		{"MLP/CE/ok", &MLP{D: 2, H: 3, K: 2}, data(0, 1), ""},
		{"MLP/CE/bad", &MLP{D: 2, H: 3, K: 2}, data(0, 2), "class index"},
		{"MLP/MSE/ok", &MLP{D: 2, H: 3, K: 1, Head: HeadMSE}, data(0.3, -7), ""},
		{"MLP/MSE/bad", &MLP{D: 2, H: 3, K: 1, Head: HeadMSE}, data(math.Inf(-1)), "not finite"},
	}
	for _, tc := range tests {
		err := tc.m.CheckLabels(tc.data)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.wantErr)
		}
	}
}

func TestConstructorErrors(t *testing.T) {
	ok := func(_ any, err error) error { return err }
	tests := []struct {
		name    string
		err     error
		wantErr bool
	}{
		{"Linear/ok", ok(NewLinear(3, true, 1)), false},
		{"Linear/d0", ok(NewLinear(0, false, 0)), true},
		{"Linear/ridge<0", ok(NewLinear(3, false, -1)), true},
		{"Linear/ridgeNaN", ok(NewLinear(3, false, math.NaN())), true},
		{"Linear/ridgeInf", ok(NewLinear(3, false, math.Inf(1))), true},
		{"Logistic/ok", ok(NewLogistic(3, false, 0.1)), false},
		{"Logistic/d<0", ok(NewLogistic(-2, false, 0)), true},
		{"Logistic/l2<0", ok(NewLogistic(3, true, -0.1)), true},
		{"Softmax/ok", ok(NewSoftmax(3, 2)), false},
		{"Softmax/d0", ok(NewSoftmax(0, 2)), true},
		{"Softmax/k1", ok(NewSoftmax(3, 1)), true},
		{"Softmax/l2<0", (&Softmax{D: 3, K: 2, L2: -1}).Validate(), true},
		{"MLP/ok/CE", ok(NewMLP(3, 4, 2, ReLU, HeadSoftmaxCE)), false},
		{"MLP/ok/MSE", ok(NewMLP(3, 4, 1, Softplus, HeadMSE)), false},
		{"MLP/d0", ok(NewMLP(0, 4, 2, ReLU, HeadSoftmaxCE)), true},
		{"MLP/h0", ok(NewMLP(3, 0, 2, ReLU, HeadSoftmaxCE)), true},
		{"MLP/CE/k1", ok(NewMLP(3, 4, 1, ReLU, HeadSoftmaxCE)), true},
		{"MLP/MSE/k2", ok(NewMLP(3, 4, 2, ReLU, HeadMSE)), true},
		{"MLP/act", ok(NewMLP(3, 4, 2, Activation(9), HeadSoftmaxCE)), true},
		{"MLP/head", ok(NewMLP(3, 4, 2, ReLU, Head(-1))), true},
		// Shapes whose parameter count exceeds MaxParams, including ones
		// whose P formula would wrap around int to a small number (a
		// hostile model file's shape): P = h·(3+1+2) + 2 = 2^64 + 4.
		{"Linear/huge", ok(NewLinear(math.MaxInt, true, 0)), true},
		{"Logistic/huge", ok(NewLogistic(MaxParams, true, 0)), true},
		{"Logistic/max", ok(NewLogistic(MaxParams-1, true, 0)), false},
		{"Softmax/huge", ok(NewSoftmax(1<<30, 1<<11)), true},
		{"Softmax/wraps", ok(NewSoftmax(1<<32-1, 1<<32)), true},
		{"MLP/huge", ok(NewMLP(3, 1<<40, 2, Tanh, HeadSoftmaxCE)), true},
		{"MLP/wraps", ok(NewMLP(3, 3074457345618258603, 2, Tanh, HeadSoftmaxCE)), true},
		{"MLP/hugeD", ok(NewMLP(math.MaxInt, 1, 2, Tanh, HeadSoftmaxCE)), true},
		{"MLP/max", ok(NewMLP(1<<20-3, 1<<20, 2, Tanh, HeadSoftmaxCE)), true},
		{"MLP/underMax", ok(NewMLP(1<<19, 1<<20, 2, Tanh, HeadSoftmaxCE)), false},
	}
	for _, tc := range tests {
		if (tc.err != nil) != tc.wantErr {
			t.Errorf("%s: error %v, want error: %v", tc.name, tc.err, tc.wantErr)
		}
	}
}

func TestShapePanics(t *testing.T) {
	m, _ := NewMLP(3, 4, 2, Tanh, HeadSoftmaxCE)
	r := rand.New(rand.NewPCG(5, 5))
	data := randomData(t, r, 6, 3, classLabel(2))
	other := randomData(t, r, 6, 4, classLabel(2))
	p := m.NumParams()
	theta := make([]float64, p)
	tests := []struct {
		name string
		f    func()
	}{
		{"theta", func() { m.Loss(theta[:p-1], data, nil) }},
		{"data.D", func() { m.Loss(theta, other, nil) }},
		{"nil data", func() { m.Loss(theta, nil, nil) }},
		{"GradSum out", func() { m.GradSum(theta, data, nil, make([]float64, p+1)) }},
		{"PerExampleGrads out", func() { m.PerExampleGrads(theta, data, []int{1, 2}, make([]float64, p)) }},
		{"PerExampleGradNorms out", func() { m.PerExampleGradNorms(theta, data, nil, make([]float64, 5)) }},
		{"WeightedGradSum w", func() { m.WeightedGradSum(theta, data, []int{0}, []float64{1, 2}, make([]float64, p)) }},
		{"Init", func() { m.Init(theta[:1], rand.New(rand.NewPCG(1, 1))) }},
		{"Linear GradSum", func() { (&Linear{D: 3}).GradSum(make([]float64, 3), data, nil, make([]float64, 4)) }},
		{"Logistic theta", func() { (&Logistic{D: 3, Intercept: true}).Loss(make([]float64, 3), data, nil) }},
		{"Softmax out", func() { (&Softmax{D: 3, K: 2}).GradSum(make([]float64, 8), data, nil, make([]float64, 6)) }},
	}
	for _, tc := range tests {
		func() {
			defer func() {
				rec := recover()
				err, ok := rec.(error)
				if !ok || !errors.Is(err, ErrShape) {
					t.Errorf("%s: recovered %v, want an error wrapping ErrShape", tc.name, rec)
				}
			}()
			tc.f()
		}()
	}
}

func TestLayoutAndInit(t *testing.T) {
	lin := &Linear{D: 4, Intercept: true}
	if got := lin.FeatureParams(2); !slices.Equal(got, []int{2}) || lin.NumParams() != 5 {
		t.Errorf("Linear layout: FeatureParams(2) = %v, P = %d", got, lin.NumParams())
	}
	sm := &Softmax{D: 4, K: 3}
	if got := sm.FeatureParams(1); !slices.Equal(got, []int{3, 4, 5}) || !slices.Equal(sm.BiasParams(), []int{12, 13, 14}) || sm.NumParams() != 15 {
		t.Errorf("Softmax layout: FeatureParams(1) = %v, BiasParams = %v, P = %d", got, sm.BiasParams(), sm.NumParams())
	}
	m, _ := NewMLP(3, 2, 4, SiLU, HeadSoftmaxCE)
	// P = 3·2 + 2 + 2·4 + 4 = 20.
	if m.NumParams() != 20 || !slices.Equal(m.FeatureParams(2), []int{4, 5}) ||
		!slices.Equal(m.FirstLayerBiasParams(), []int{6, 7}) || !slices.Equal(m.SecondLayerParams(), seq(8, 12)) {
		t.Errorf("MLP layout: P=%d FeatureParams(2)=%v FirstLayerBiasParams=%v", m.NumParams(), m.FeatureParams(2), m.FirstLayerBiasParams())
	}
	// Changing W1[j, :] only changes how feature j enters: with x_j = 0 the
	// output is unchanged.
	data := mustData(t, []float64{1, 0, 2}, []float64{1}, 1, 3)
	theta := make([]float64, m.NumParams())
	m.Init(theta, rand.New(rand.NewPCG(9, 9)))
	before := m.Loss(theta, data, nil)
	for _, j := range m.FeatureParams(1) {
		theta[j] += 10
	}
	if after := m.Loss(theta, data, nil); after != before {
		t.Errorf("perturbing FeatureParams(1) with x_1 = 0 changed the loss: %v → %v", before, after)
	}

	// Init bounds and determinism.
	big, _ := NewMLP(16, 64, 3, ReLU, HeadSoftmaxCE)
	a := make([]float64, big.NumParams())
	b := make([]float64, big.NumParams())
	big.Init(a, rand.New(rand.NewPCG(1, 2)))
	big.Init(b, rand.New(rand.NewPCG(1, 2)))
	if !slices.Equal(a, b) {
		t.Error("MLP.Init is not deterministic for equal seeds")
	}
	var maxFirst, maxSecond float64
	for i, v := range a {
		if i < big.offW2() {
			maxFirst = math.Max(maxFirst, math.Abs(v))
		} else {
			maxSecond = math.Max(maxSecond, math.Abs(v))
		}
	}
	// Bounds 1/√16 = 0.25 and 1/√64 = 0.125, and the draws fill them.
	if maxFirst > 0.25 || maxFirst < 0.2 || maxSecond > 0.125 || maxSecond < 0.1 {
		t.Errorf("MLP.Init: max |W1,b1| = %v (bound 0.25), max |W2,b2| = %v (bound 0.125)", maxFirst, maxSecond)
	}
	z := []float64{1, 2, 3}
	(&Logistic{D: 3}).Init(z, nil)
	if !slices.Equal(z, []float64{0, 0, 0}) {
		t.Errorf("Logistic.Init = %v, want zeros", z)
	}
}

func TestPredict(t *testing.T) {
	lg := &Logistic{D: 2, Intercept: true}
	if p := lg.Predict([]float64{1, 2, -3}, []float64{1, 1}); !near(p, 0.5, 1e-16) {
		t.Errorf("Logistic.Predict = %v, want 0.5", p)
	}
	lin := &Linear{D: 2, Intercept: true}
	if v := lin.Predict([]float64{1, 2, -3}, []float64{1, 1}); v != 0 {
		t.Errorf("Linear.Predict = %v, want 0", v)
	}
	sm := &Softmax{D: 1, K: 2}
	out := make([]float64, 2)
	sm.Predict([]float64{0, math.Log(3), 0, 0}, []float64{1}, out)
	if !near(out[0], 0.25, 1e-15) || !near(out[1], 0.75, 1e-15) {
		t.Errorf("Softmax.Predict = %v, want [0.25 0.75]", out)
	}
	mlp := &MLP{D: 1, H: 1, K: 1, Act: ReLU, Head: HeadMSE}
	o := make([]float64, 1)
	mlp.Predict([]float64{2, -1, 3, 0.5}, []float64{1}, o)
	if o[0] != 3.5 {
		t.Errorf("MLP.Predict = %v, want 3.5", o[0])
	}
}

func TestStableHelpers(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	worst := 0.0
	for i := range 200000 {
		x := r.Float64()
		if i%2 == 0 {
			x = math.Exp(-745 * r.Float64()) // down to subnormal
		}
		want := math.Log1p(x)
		got := log1pSmall(x)
		worst = math.Max(worst, math.Abs(got-want)/want)
	}
	if worst > 4e-16 {
		t.Errorf("log1pSmall: worst relative error %g", worst)
	}
	for _, tc := range []struct{ z, want float64 }{
		{0, math.Ln2}, {1000, 1000}, {-1000, 0}, {-30, math.Exp(-30) - math.Exp(-60)/2}, {40, 40 + math.Exp(-40)},
	} {
		if got := softplus(tc.z); !near(got, tc.want, 1e-15) || (tc.z == -30 && math.Abs(got-tc.want) > 1e-15*tc.want) {
			t.Errorf("softplus(%v) = %v, want %v", tc.z, got, tc.want)
		}
	}
	for _, tc := range []struct{ z, want float64 }{{0, 0.5}, {1000, 1}, {-1000, 0}, {-800, 0}} {
		if got := sigmoid(tc.z); got != tc.want {
			t.Errorf("sigmoid(%v) = %v, want %v", tc.z, got, tc.want)
		}
	}
	if got := sigmoid(-700); !(got > 0) || math.Abs(got-math.Exp(-700)) > 1e-15*math.Exp(-700) {
		t.Errorf("sigmoid(-700) = %v, want ≈ e^-700 = %v", got, math.Exp(-700))
	}
	if got := logSumExp([]float64{-1000, -1000}); !near(got, -1000+math.Ln2, 1e-15) {
		t.Errorf("logSumExp(-1000,-1000) = %v", got)
	}
}
