package corrdp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/audit"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
)

// C9: scale, accuracy and the per-neighbour privacy ratio of the CorrDP
// Laplace mechanism.
func TestLaplace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 100.0
	sens := []bool{true, false, false, false}
	tv := []float64{0, 0.2, 0.5, 0}
	d := []float64{1 / n, 1 / n, 1 / n, 1 / n}
	_, b, err := Laplace(rng, []float64{0, 0, 0, 0}, d, sens, tv, 0, 2)
	if err != nil || math.Abs(b-1.7/n/2) > 1e-15 {
		t.Fatalf("scale %v, %v; want Δ_C/ε = %v", b, err, 1.7/n/2)
	}
	// Accuracy: P(‖noise‖_∞ ≤ b log(K/β)) = (1 − β/K)^K = 0.951110 for K = 10, β = 0.05.
	k, beta := 10, 0.05
	dk := make([]float64, k)
	sk := make([]bool, k)
	for i := range dk {
		dk[i], sk[i] = 1, true
	}
	const draws = 100000
	hit := 0
	for r := 0; r < draws; r++ {
		out, b, _ := Laplace(rng, make([]float64, k), dk, sk, make([]float64, k), 0, 1)
		mx := 0.0
		for _, v := range out {
			mx = math.Max(mx, math.Abs(v))
		}
		if mx <= b*math.Log(float64(k)/beta) {
			hit++
		}
	}
	if p := float64(hit) / draws; math.Abs(p-0.951110) > 0.003 {
		t.Errorf("coverage %v, want 0.951110 ± 0.003", p)
	}
	// Privacy: column means in [0,1]; for random datasets and N-one
	// neighbours the log density ratio at random z is ≤ ε/d.
	const eps = 1.0
	for trial := 0; trial < 200; trial++ {
		rows := 50
		x := make([][]float64, rows)
		for i := range x {
			x[i] = []float64{rng.Float64(), rng.Float64(), rng.Float64(), rng.Float64()}
		}
		mean := func(x [][]float64) []float64 {
			m := make([]float64, 4)
			for _, r := range x {
				for j, v := range r {
					m[j] += v / float64(rows)
				}
			}
			return m
		}
		dd := []float64{1.0 / float64(rows), 1.0 / float64(rows), 1.0 / float64(rows), 1.0 / float64(rows)}
		dc, _ := CorrelatedSensitivity(dd, sens, tv, 0)
		bb := dc / eps
		f := mean(x)
		// Change: the sensitive block (d = 1) or one U feature j (d = TV(j)).
		for change := 0; change < 4; change++ {
			if change > 0 && tv[change] == 0 {
				continue
			}
			x2 := make([][]float64, rows)
			copy(x2, x)
			x2[0] = append([]float64(nil), x[0]...)
			x2[0][change] = rng.Float64()
			f2 := mean(x2)
			dist := 1.0
			if change > 0 {
				dist = tv[change]
			}
			z := make([]float64, 4)
			for j := range z {
				z[j] = f[j] + 3*bb*(2*rng.Float64()-1)
			}
			var lr float64
			for j := range z {
				lr += (math.Abs(z[j]-f2[j]) - math.Abs(z[j]-f[j])) / bb
			}
			if lr > eps/dist+1e-9 {
				t.Fatalf("change %d: log ratio %v > ε/d = %v", change, lr, eps/dist)
			}
		}
	}
	if _, _, err := Laplace(nil, nil, nil, nil, nil, 0, 1); err == nil {
		t.Error("nil rng accepted")
	}
	if _, _, err := Laplace(rng, []float64{0}, []float64{1}, []bool{true}, []float64{0}, 0, 0); err == nil {
		t.Error("ε = 0 accepted")
	}
}

// C17: parameter counts and noise energies of the paper's NNs.
func TestPlanShapes(t *testing.T) {
	sep, _ := models.NewMLP(3, 5, 2, models.Softplus, models.HeadSoftmaxCE)
	med, _ := models.NewMLP(8, 20, 1, models.Softplus, models.HeadMSE)
	for _, c := range []struct {
		m     models.Model
		sens  []bool
		tv    float64
		p     int
		wants [3]float64
	}{
		{sep, []bool{true, false, false}, 0.3, 32, [3]float64{32, 17, 21.5}},
		{med, []bool{false, true, true, false, true, false, false, false}, 0.36, 201, [3]float64{201, 81, 124.2}},
	} {
		if c.m.NumParams() != c.p {
			t.Errorf("%d parameters, want %d", c.m.NumParams(), c.p)
		}
		tv := make([]float64, len(c.sens))
		for j, s := range c.sens {
			if !s {
				tv[j] = c.tv
			}
		}
		for k, meth := range []Method{Standard, Semi, Corr} {
			p, err := Plan(c.m, meth, c.sens, tv, 2, PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if e := NoiseEnergy(p, 2); math.Abs(e-c.wants[k]) > 1e-9 {
				t.Errorf("%v: energy %v, want %v", meth, e, c.wants[k])
			}
		}
		// Full-noise bias policy adds H·(1 − w_b).
		p, _ := Plan(c.m, Semi, c.sens, tv, 1, PlanOptions{Bias: BiasFull})
		h := c.m.(*models.MLP).H
		if e := NoiseEnergy(p, 1); math.Abs(e-(c.wants[1]+float64(h))) > 1e-9 {
			t.Errorf("Semi with full b1 noise: %v", e)
		}
	}
	if _, err := Plan(sep, Corr, []bool{true}, nil, 1, PlanOptions{}); err == nil {
		t.Error("wrong mask length accepted")
	}
}

func linearTestData(t *testing.T, n, d int, seed uint64) *design.Data {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		var s float64
		for j := 0; j < d; j++ {
			x[i*d+j] = r.NormFloat64()
			s += float64(j+1) * x[i*d+j]
		}
		y[i] = s + r.NormFloat64()
	}
	data, err := design.NewData(x, y, n, d)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// C19: with common random numbers, CorrDP with TV ≡ 1 is bit-identical to
// Standard and with TV ≡ 0 to Semi (GLM and MLP).
func TestPlanRegression(t *testing.T) {
	data := linearTestData(t, 200, 6, 3)
	lin, _ := models.NewLinear(6, false, 1)
	mlp, _ := models.NewMLP(6, 4, 1, models.Softplus, models.HeadMSE)
	sens := []bool{true, true, false, false, true, false}
	for _, m := range []models.Model{lin, mlp} {
		run := func(meth Method, tvVal float64) []float64 {
			tv := make([]float64, 6)
			for j := range tv {
				tv[j] = tvVal
			}
			plan, err := Plan(m, meth, sens, tv, 0.5, PlanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := mechanisms.Config{Model: m, Data: data, Steps: 30, Optimizer: mechanisms.SGD{LR: 0.01}, Noise: plan, Seed: 42}
			if _, ok := m.(*models.MLP); ok {
				cfg.Sampler, _ = mechanisms.NewShuffledEpochs(50)
				cfg.Clip, cfg.ClipNorm = mechanisms.ClipBatch, 5
			}
			res, err := mechanisms.Train(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			return res.Theta
		}
		same := func(a, b []float64) bool { return fmt.Sprint(a) == fmt.Sprint(b) }
		if !same(run(Corr, 1), run(Standard, 0)) {
			t.Errorf("%T: CorrDP(TV=1) ≠ Standard", m)
		}
		if !same(run(Corr, 0), run(Semi, 0)) {
			t.Errorf("%T: CorrDP(TV=0) ≠ Semi", m)
		}
	}
}

// C20: batch clipping bounds the pre-noise gradient and noise comes after
// clipping: with σ = 0 the step is ≤ lr·C; with noise the step minus the
// clipped step is exactly lr·b.
func TestClipThenNoise(t *testing.T) {
	data := linearTestData(t, 100, 3, 5)
	m, _ := models.NewMLP(3, 4, 1, models.Softplus, models.HeadMSE)
	init := make([]float64, m.NumParams())
	m.Init(init, rand.New(rand.NewPCG(1, 1)))
	const lr, c = 1.0, 0.01
	step := func(plan *mechanisms.NoisePlan) []float64 {
		res, err := mechanisms.Train(context.Background(), mechanisms.Config{Model: m, Data: data, Init: init, Steps: 1, Optimizer: mechanisms.SGD{LR: lr}, Clip: mechanisms.ClipBatch, ClipNorm: c, Noise: plan, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		d := make([]float64, len(init))
		for j := range d {
			d[j] = init[j] - res.Theta[j]
		}
		return d
	}
	clean := step(nil)
	var nrm float64
	for _, v := range clean {
		nrm += v * v
	}
	if math.Sqrt(nrm) > lr*c*(1+1e-12) {
		t.Errorf("clipped step norm %v > lr·C = %v", math.Sqrt(nrm), lr*c)
	}
	plan, _ := mechanisms.Standard(m.NumParams(), 3)
	noisy := step(plan)
	z := make([]float64, m.NumParams())
	std := make([]float64, len(z))
	for j := range std {
		std[j] = 3
	}
	if err := mechanisms.AddGaussian(mechanisms.NewStreams(9).Noise(), z, std); err != nil {
		t.Fatal(err)
	}
	for j := range z {
		if math.Abs(noisy[j]-clean[j]-lr*z[j]) > 1e-9 {
			t.Fatalf("coordinate %d: noise not added after clipping (%v vs %v)", j, noisy[j]-clean[j], z[j])
		}
	}
}

func TestColumns(t *testing.T) {
	data := linearTestData(t, 10, 4, 1)
	sub, err := Columns(data, []int{3, 1})
	if err != nil || sub.D != 2 || sub.X[0] != data.X[3] || sub.X[1] != data.X[1] {
		t.Errorf("%+v %v", sub, err)
	}
	if _, err := Columns(data, []int{4}); err == nil {
		t.Error("out-of-range column accepted")
	}
}

func ExamplePlan() {
	mlp, _ := models.NewMLP(3, 5, 2, models.Softplus, models.HeadSoftmaxCE)
	sensitive := []bool{true, false, false} // age; sex, episode
	tv := []float64{0, 0.3, 0.3}
	s0sq, _ := Sigma0Sq(1e-3, 1, 1e-5)
	for _, meth := range []Method{Standard, Semi, Corr} {
		plan, _ := Plan(mlp, meth, sensitive, tv, math.Sqrt(s0sq), PlanOptions{})
		fmt.Printf("%-8s noise energy %.1f σ0²\n", meth, NoiseEnergy(plan, math.Sqrt(s0sq)))
	}
	// Output:
	// Standard noise energy 32.0 σ0²
	// Semi     noise energy 17.0 σ0²
	// CorrDP   noise energy 21.5 σ0²
}

func TestStepSize(t *testing.T) {
	s, err := StepSize(2, 3, []float64{0, 4})
	if err != nil {
		t.Fatal(err)
	}
	// D/√((L²+Σσ²)t) = 2/√(25·4) = 0.2.
	if got := s(4); math.Abs(got-0.2) > 1e-15 {
		t.Errorf("StepSize(4) = %v, want 0.2", got)
	}
	nan := math.NaN()
	for name, f := range map[string]func() error{
		"D=0":      func() error { _, err := StepSize(0, 1, nil); return err },
		"L<0":      func() error { _, err := StepSize(1, -1, nil); return err },
		"σ NaN":    func() error { _, err := StepSize(1, 1, []float64{nan}); return err },
		"all zero": func() error { _, err := StepSize(1, 0, []float64{0}); return err },
		"overflow": func() error { _, err := StepSize(1, 1e200, nil); return err },
	} {
		if f() == nil {
			t.Errorf("StepSize %s: no error", name)
		}
	}
}

// The CorrDP plan audits: the honest ε holds per feature group and the
// broken controls are flagged (fixed seed).
func TestPlanAudits(t *testing.T) {
	for _, s := range []audit.Spec{planAuditSpec(-1), planAuditSpec(1)} {
		r, err := audit.Run(context.Background(), s, audit.Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: claimed %.3f, ε_lb %.3f, control %.3f", s.Name, r.ClaimedEpsilon, r.EpsilonLB, r.ControlEpsilonLB)
		if r.EpsilonLB > r.ClaimedEpsilon || !r.ControlFlagged {
			t.Errorf("%s: %+v", s.Name, r)
		}
	}
}

// TestPlanNoise: a GLM plan's honest loss is the Noise of its squared
// standard deviations: the same ρ as Honesty on σ² = σ0²·w, and errors for
// a plan that is not per feature.
func TestPlanNoise(t *testing.T) {
	sens, tv := []bool{true, false, false}, []float64{0, 0.4, 0.1}
	lin, err := models.NewLinear(3, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	const sigma0, n, steps, delta = 0.7, 200, 30, 1e-5
	plan, err := Plan(lin, Corr, sens, tv, sigma0, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := PlanNoise(plan, sens, 1, n, steps)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := NoiseWeights(Corr, sens, tv, false)
	sigma2 := make([]float64, len(w))
	for j := range w {
		sigma2[j] = plan.Std[j] * plan.Std[j]
	}
	rows, err := Honesty(sigma2, sens, tv, 1, n, steps, 1, delta, accounting.RelationReplaceOne, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		l, err := x.Loss(r.Coord, accounting.RelationReplaceOne)
		if err != nil {
			t.Fatal(err)
		}
		rho, _ := l.Rho()
		if rho != r.Rho {
			t.Errorf("%s: PlanNoise ρ %v, Honesty ρ %v", r.Change, rho, r.Rho)
		}
		// σ_j² = σ0²·w_j up to the rounding of √ and its square.
		v := sigma0 * sigma0 * w[max(r.Coord, 0)]
		want := steps * (2.0 / n) * (2.0 / n) / (2 * v)
		if math.Abs(rho-want) > 1e-12*want {
			t.Errorf("%s: ρ %v, want %v", r.Change, rho, want)
		}
	}
	mlp, _ := models.NewMLP(3, 2, 1, models.Softplus, models.HeadMSE)
	mp, _ := Plan(mlp, Corr, sens, tv, sigma0, PlanOptions{})
	for _, c := range []struct {
		name string
		p    *mechanisms.NoisePlan
	}{{"nil plan", nil}, {"network plan", mp}} {
		if _, err := PlanNoise(c.p, sens, 1, n, steps); err == nil {
			t.Errorf("%s accepted", c.name)
		}
	}
}
