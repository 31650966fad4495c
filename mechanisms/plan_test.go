package mechanisms

import (
	"math"
	"testing"
)

// mlpShape mimics an MLP's layout for FeatureWeights: input j owns the
// first-layer row [j*h, (j+1)*h); the first-layer bias is [d*h, d*h+h);
// the rest are later layers.
type mlpShape struct {
	lsq
	d, h, p int
	bias    []int
}

func (m mlpShape) NumParams() int   { return m.p }
func (m mlpShape) NumFeatures() int { return m.d }
func (m mlpShape) FeatureParams(j int) []int {
	out := make([]int, m.h)
	for k := range out {
		out[k] = j*m.h + k
	}
	return out
}
func (m mlpShape) FirstLayerBiasParams() []int { return m.bias }

func TestPlans(t *testing.T) {
	p, err := Standard(3, 2)
	if err != nil || len(p.Std) != 3 || p.Std[2] != 2 || p.Multiplier != 0 {
		t.Fatalf("Standard = %+v, %v", p, err)
	}
	p, err = Semi([]bool{true, false, true}, 2)
	if err != nil || p.Std[0] != 2 || p.Std[1] != 0 || p.Std[2] != 2 {
		t.Fatalf("Semi = %+v, %v", p, err)
	}
	p, err = Weighted([]float64{1, 0.25, 0}, 2)
	if err != nil || p.Std[0] != 2 || p.Std[1] != 1 || p.Std[2] != 0 {
		t.Fatalf("Weighted = %+v, %v", p, err)
	}
	// CorrDP C3 invariants: Σσ²(Semi) ≤ Σσ²(CorrDP) ≤ Σσ²(Standard), and the
	// weight sum of the synthetic m_s = 10, m = 100 case with TV = 0.363964.
	w := make([]float64, 100)
	for j := range w {
		w[j] = 0.363964
		if j < 10 {
			w[j] = 1
		}
	}
	corr, _ := Weighted(w, 1)
	var s float64
	for _, x := range corr.Std {
		s += x * x
	}
	if math.Abs(s-42.7568) > 1e-3 {
		t.Errorf("CorrDP variance sum = %v, want 42.7568", s)
	}
	p, err = DPSGD(4, 1.1, 2, 64)
	if err != nil || p.Multiplier != 1.1 || p.Std[3] != 1.1*2/64 {
		t.Fatalf("DPSGD = %+v, %v", p, err)
	}
	// Weighted with all ones / zeros-and-ones is bit-identical to
	// Standard / Semi.
	st, _ := Standard(3, 0.37)
	wt, _ := Weighted([]float64{1, 1, 1}, 0.37)
	se, _ := Semi([]bool{false, true, false}, 0.37)
	ws, _ := Weighted([]float64{0, 1, 0}, 0.37)
	for j := range 3 {
		if st.Std[j] != wt.Std[j] || se.Std[j] != ws.Std[j] {
			t.Errorf("coordinate %d: Standard/Weighted %v/%v, Semi/Weighted %v/%v", j, st.Std[j], wt.Std[j], se.Std[j], ws.Std[j])
		}
	}
}

func TestFeatureWeights(t *testing.T) {
	// 3 inputs, 2 hidden units: params 0..5 first-layer rows, 6..7 b1,
	// 8..10 later layers.
	m := mlpShape{d: 3, h: 2, p: 11, bias: []int{6, 7}}
	w, err := FeatureWeights(m, []float64{1, 0.3, 0}, 0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1, 1, 0.3, 0.3, 0, 0, 0.3, 0.3, 1, 1, 1}
	for j := range want {
		if w[j] != want[j] {
			t.Fatalf("weights %v, want %v", w, want)
		}
	}
	// A linear model (FeatureParams j → j, no bias interface).
	w, err = FeatureWeights(lsq{d: 2}, []float64{0.5, 1}, 9, 9)
	if err != nil || w[0] != 0.5 || w[1] != 1 {
		t.Fatalf("linear: %v, %v", w, err)
	}
	bad := []struct {
		name string
		m    mlpShape
		fw   []float64
		b, o float64
	}{
		{"length", m, []float64{1, 1}, 1, 1},
		{"negative", m, []float64{1, -1, 1}, 1, 1},
		{"NaN feature", m, []float64{1, math.NaN(), 1}, 1, 1},
		{"Inf bias", m, []float64{1, 1, 1}, math.Inf(1), 1},
		{"negative other", m, []float64{1, 1, 1}, 1, -1},
		{"bias out of range", mlpShape{d: 3, h: 2, p: 11, bias: []int{11}}, []float64{1, 1, 1}, 1, 1},
		{"bias overlaps feature", mlpShape{d: 3, h: 2, p: 11, bias: []int{0}}, []float64{1, 1, 1}, 1, 1},
		{"feature out of range", mlpShape{d: 3, h: 2, p: 5}, []float64{1, 1, 1}, 1, 1},
		{"feature overlap", mlpShape{d: 3, h: 2, p: 11, bias: []int{6, 6}}, []float64{1, 1, 1}, 1, 1},
	}
	for _, c := range bad {
		if _, err := FeatureWeights(c.m, c.fw, c.b, c.o); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if _, err := FeatureWeights(nil, []float64{1}, 1, 1); err == nil {
		t.Error("nil model: no error")
	}
	if _, err := FeatureWeights(lsq{d: 0}, nil, 1, 1); err == nil {
		t.Error("empty model: no error")
	}
}

func TestPlanBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name string
		f    func() error
	}{
		{"Standard P=0", func() error { _, err := Standard(0, 1); return err }},
		{"Standard σ<0", func() error { _, err := Standard(2, -1); return err }},
		{"Standard σ NaN", func() error { _, err := Standard(2, nan); return err }},
		{"Semi empty", func() error { _, err := Semi(nil, 1); return err }},
		{"Semi σ Inf", func() error { _, err := Semi([]bool{true}, inf); return err }},
		{"Weighted empty", func() error { _, err := Weighted(nil, 1); return err }},
		{"Weighted w<0", func() error { _, err := Weighted([]float64{-1}, 1); return err }},
		{"Weighted w NaN", func() error { _, err := Weighted([]float64{nan}, 1); return err }},
		{"Weighted σ<0", func() error { _, err := Weighted([]float64{1}, -1); return err }},
		{"DPSGD P=0", func() error { _, err := DPSGD(0, 1, 1, 1); return err }},
		{"DPSGD z<0", func() error { _, err := DPSGD(1, -1, 1, 1); return err }},
		{"DPSGD z NaN", func() error { _, err := DPSGD(1, nan, 1, 1); return err }},
		{"DPSGD C=0", func() error { _, err := DPSGD(1, 1, 0, 1); return err }},
		{"DPSGD C Inf", func() error { _, err := DPSGD(1, 1, inf, 1); return err }},
		{"DPSGD m=0", func() error { _, err := DPSGD(1, 1, 1, 0); return err }},
		{"DPSGD m NaN", func() error { _, err := DPSGD(1, 1, 1, nan); return err }},
		{"DPSGD overflow", func() error { _, err := DPSGD(1, 1e300, 1e300, 1); return err }},
		{"Validate length", func() error { return (&NoisePlan{Std: []float64{1}}).Validate(2) }},
		{"Validate σ<0", func() error { return (&NoisePlan{Std: []float64{-1}}).Validate(1) }},
		{"Validate z<0", func() error { return (&NoisePlan{Std: []float64{1}, Multiplier: -1}).Validate(1) }},
		{"Validate z NaN", func() error { return (&NoisePlan{Std: []float64{1}, Multiplier: nan}).Validate(1) }},
		{"SGD lr 0", func() error { return SGD{}.Validate() }},
		{"SGD lr NaN", func() error { return SGD{LR: nan}.Validate() }},
		{"Momentum lr<0", func() error { return Momentum{LR: -1}.Validate() }},
		{"Momentum β=1", func() error { return Momentum{LR: 1, Beta: 1}.Validate() }},
		{"Momentum β<0", func() error { return Momentum{LR: 1, Beta: -0.1}.Validate() }},
		{"Adam lr Inf", func() error { return Adam{LR: inf}.Validate() }},
		{"Adam β1 ≥1", func() error { return Adam{LR: 1, Beta1: 1}.Validate() }},
		{"Adam β2 <0", func() error { return Adam{LR: 1, Beta2: -0.5}.Validate() }},
		{"Adam ε<0", func() error { return Adam{LR: 1, Eps: -1}.Validate() }},
	}
	for _, c := range cases {
		if err := c.f(); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	var nilPlan *NoisePlan
	if err := nilPlan.Validate(3); err != nil {
		t.Errorf("nil plan: %v", err)
	}
}

func TestOptimizers(t *testing.T) {
	theta := []float64{1, 2}
	SGD{LR: 0.5}.NewState(2).Step(theta, []float64{2, -4}, 0.5)
	if theta[0] != 0.5 || theta[1] != 3 {
		t.Errorf("SGD: %v", theta)
	}
	theta = []float64{0}
	m := Momentum{LR: 1, Beta: 0.5}.NewState(1)
	m.Step(theta, []float64{1}, 1) // v=1, θ=−1
	m.Step(theta, []float64{1}, 1) // v=1.5, θ=−2.5
	if theta[0] != -2.5 {
		t.Errorf("Momentum: %v", theta)
	}
	// Adam's first step is η·g/(|g| + ε') ≈ η·sign(g).
	theta = []float64{0, 0}
	a := Adam{LR: 0.1}.NewState(2)
	a.Step(theta, []float64{3, -0.002}, 1)
	if math.Abs(theta[0]+0.1) > 1e-8 || math.Abs(theta[1]-0.1) > 1e-5 {
		t.Errorf("Adam first step: %v", theta)
	}
	a.Step(theta, []float64{3, -0.002}, 1)
	if math.Abs(theta[0]+0.2) > 1e-8 {
		t.Errorf("Adam second step with constant gradient: %v", theta)
	}
	if err := (Adam{LR: 1}).Validate(); err != nil {
		t.Error(err)
	}
	// Negative sizes do not panic.
	for _, o := range []Optimizer{SGD{LR: 1}, Momentum{LR: 1}, Adam{LR: 1}} {
		o.NewState(-1).Step(nil, nil, 1)
	}
	if err := (*ShuffledEpochs)(nil).Fresh().Validate(10); err == nil {
		t.Error("nil ShuffledEpochs.Fresh is valid")
	}
}

func TestSchedules(t *testing.T) {
	if Constant()(7) != 1 || InverseSqrt()(4) != 0.5 {
		t.Error("Constant / InverseSqrt")
	}
}
