package fdp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/audit"
	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
)

// testProblem returns a small Purchase-like problem: an MLP, data with
// ‖x‖ ≤ 2, and the Gaussian-padded public view (first 3 features public).
func testProblem(t *testing.T, n int) (*models.MLP, *design.Data, *design.Data) {
	t.Helper()
	const d, k = 6, 3
	rng := rand.New(rand.NewPCG(uint64(n), 77))
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range n {
		c := rng.IntN(k)
		y[i] = float64(c)
		for j := range d {
			x[i*d+j] = 0.3 * rng.NormFloat64()
			if (j+c)%k == 0 {
				x[i*d+j] += 0.5
			}
		}
	}
	data, err := design.NewData(x, y, n, d)
	if err != nil {
		t.Fatal(err)
	}
	pad, err := GaussianPadding(data, []int{0, 1, 2}, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	mlp, _ := models.NewMLP(d, 5, k, models.Tanh, models.HeadSoftmaxCE)
	return mlp, data, pad
}

func testSetup(mlp *models.MLP, data, pad *design.Data) Setup {
	return Setup{Model: mlp, Data: data, PubData: pad, Rate: 0.1, Multiplier: 1.1, Clip: 0.5, DPClip: 1,
		Steps: 30, PretrainSteps: 10, Alpha: 2, Optimizer: mechanisms.Momentum{LR: 0.1, Beta: 0.9}, Seed: 5}
}

// A8: DP, FDP-DPSGD and FDP-Alg1 with the same (q, z, T) report the same
// phases and ε; the E2 noise variances (clip √2 vs 1) differ by exactly 2.
func TestEqualEpsilon(t *testing.T) {
	mlp, data, pad := testProblem(t, 200)
	s := testSetup(mlp, data, pad)
	var eps []float64
	for _, m := range []Method{DP, DPSGD, Alg1} {
		res, err := Train(context.Background(), m, s)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Epsilon(m, s, res, 1e-5)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Phases) != 1 || res.Phases[0] != (accounting.Phase{SampleRate: 0.1, NoiseMultiplier: 1.1, Steps: 30}) {
			t.Fatalf("A8 %s: phases %v", m, res.Phases)
		}
		eps = append(eps, e)
	}
	if eps[0] != eps[1] || eps[1] != eps[2] {
		t.Errorf("A8: ε differ: %v", eps)
	}
	// Noise variance ratio at equal (q, z, T): DP clip √2, FDP clip 1.
	s.DPClip, s.Clip = math.Sqrt2, 1
	dp, _ := EngineConfig(DP, s)
	alg1, _ := EngineConfig(Alg1, s)
	r := dp.Noise.Std[0] * dp.Noise.Std[0] / (alg1.Noise.Std[0] * alg1.Noise.Std[0])
	if math.Abs(r-2) > 1e-14 {
		t.Errorf("A8: noise variance ratio %v, want 2", r)
	}
	// Single batch: no phases, and a much larger ε.
	res, err := Train(context.Background(), SingleBatch, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Phases) != 0 || res.PhasesNote == "" {
		t.Errorf("single batch reported phases %v", res.Phases)
	}
	sb, _ := Epsilon(SingleBatch, s, res, 1e-5)
	if !(sb > eps[0]) {
		t.Errorf("single-batch ε %v not above Alg. 1's %v", sb, eps[0])
	}
}

// The ghost models.LossDiff path of EngineConfig equals the engine's materialised
// SubtractFromPrivate path (same batches, same noise).
func TestAlg1GhostMatchesMaterialised(t *testing.T) {
	mlp, data, pad := testProblem(t, 300)
	s := testSetup(mlp, data, pad)
	cfg, err := EngineConfig(Alg1, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cfg.Model.(*models.LossDiff); !ok || cfg.Public.SubtractFromPrivate {
		t.Fatalf("FDP-Alg1 model %T, subtract %v", cfg.Model, cfg.Public.SubtractFromPrivate)
	}
	a, err := mechanisms.Train(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg2 := cfg
	pt := *cfg.Public
	pt.SubtractFromPrivate = true
	cfg2.Public = &pt
	cfg2.Model = mlp
	b, err := mechanisms.Train(context.Background(), cfg2)
	if err != nil {
		t.Fatal(err)
	}
	for j := range a.Theta {
		if math.Abs(a.Theta[j]-b.Theta[j]) > 1e-9 {
			t.Fatalf("θ[%d]: ghost %v vs materialised %v", j, a.Theta[j], b.Theta[j])
		}
	}
}

// A5: with no noise, no effective clipping and α = 1, E[g_pub + g̃_priv]
// = ∇(1/n Σ ℓ) (Monte Carlo over many one-step runs).
func TestUnbiased(t *testing.T) {
	mlp, data, pad := testProblem(t, 40)
	theta0 := make([]float64, mlp.NumParams())
	mlp.Init(theta0, rand.New(rand.NewPCG(1, 1)))
	diff, _ := models.NewLossDiff(mlp, mlp, pad)
	want := make([]float64, mlp.NumParams())
	mlp.GradSum(theta0, data, nil, want)
	const reps = 20000
	sum := make([]float64, len(want))
	sum2 := make([]float64, len(want))
	for r := range reps {
		res, err := mechanisms.Train(context.Background(), mechanisms.Config{Model: diff, Data: data, Init: theta0, Steps: 1,
			Optimizer: mechanisms.SGD{LR: 1}, Sampler: mechanisms.Poisson{Rate: 0.2}, Clip: mechanisms.ClipPerExample, ClipNorm: 1e9,
			Public: &mechanisms.PublicTerm{Model: mlp, Data: pad, BatchSize: 5, Alpha: 1}, Seed: uint64(r)})
		if err != nil {
			t.Fatal(err)
		}
		for j := range sum {
			g := theta0[j] - res.Theta[j]
			sum[j] += g
			sum2[j] += g * g
		}
	}
	for j := range want {
		mean := sum[j] / reps
		se := math.Sqrt((sum2[j]/reps - mean*mean) / reps)
		if w := want[j] / float64(data.N); math.Abs(mean-w) > 4.5*se+1e-12 {
			t.Errorf("A5 coordinate %d: mean %v ± %v, want %v", j, mean, se, w)
		}
	}
}

// Single-batch semantics: with q = 1 and no noise one step is
// θ − lr·(1/n)Σ[∇ℓ_pub + α·clip_C(∇ℓ − ∇ℓ_pub)].
func TestSingleBatchStep(t *testing.T) {
	mlp, data, pad := testProblem(t, 30)
	theta0 := make([]float64, mlp.NumParams())
	mlp.Init(theta0, rand.New(rand.NewPCG(2, 2)))
	diff, _ := models.NewLossDiff(mlp, mlp, pad)
	const c, alpha = 0.2, 3.0
	res, err := mechanisms.Train(context.Background(), mechanisms.Config{Model: diff, Data: data, Init: theta0, Steps: 1,
		Optimizer: mechanisms.SGD{LR: 1}, Sampler: mechanisms.Poisson{Rate: 1}, Clip: mechanisms.ClipPerExample, ClipNorm: c,
		Public: &mechanisms.PublicTerm{Model: mlp, Data: pad, Alpha: alpha, SameBatch: true}})
	if err != nil {
		t.Fatal(err)
	}
	p := mlp.NumParams()
	pe := make([]float64, p)
	g := make([]float64, p)
	mlp.GradSum(theta0, pad, nil, g)
	for i := range data.N {
		diff.PerExampleGrads(theta0, data, []int{i}, pe)
		var ss float64
		for _, v := range pe {
			ss += v * v
		}
		f := math.Min(1, c/math.Sqrt(ss)) // the engine's clip factor
		for j := range g {
			g[j] += alpha * f * pe[j]
		}
	}
	for j := range g {
		if want := theta0[j] - g[j]/float64(data.N); math.Abs(res.Theta[j]-want) > 1e-12 {
			t.Fatalf("θ[%d] = %v, want %v", j, res.Theta[j], want)
		}
	}
	_, err = mechanisms.Train(context.Background(), mechanisms.Config{Model: mlp, Data: data, Steps: 1, Optimizer: mechanisms.SGD{LR: 1},
		PublicPretrainSteps: 1, Public: &mechanisms.PublicTerm{Alpha: 1, SameBatch: true, PretrainOnly: true}})
	if err == nil {
		t.Error("SameBatch with PretrainOnly accepted")
	}
}

// A11: Thm 6 bound on the convex label-DP problem (projection radius M,
// η = c/√t, m' = n): the mean excess risk over 10 seeds is ≤
// (M²/c + cτ'² + c·d·σ²)(2 + log T)/√T, σ the per-coordinate noise std of g_t.
func TestThm6Bound(t *testing.T) {
	const n, d, k, T = 400, 4, 3, 200
	const q, z, clip, radius, c = 0.1, 1.0, 1.0, 2.0, 0.5
	rng := rand.New(rand.NewPCG(8, 8))
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range n {
		y[i] = float64(rng.IntN(k))
		var ss float64
		for j := range d {
			x[i*d+j] = rng.NormFloat64()
			if j == int(y[i]) {
				x[i*d+j]++
			}
			ss += x[i*d+j] * x[i*d+j]
		}
		for j := range d {
			x[i*d+j] /= math.Max(1, math.Sqrt(ss))
		}
	}
	data, _ := design.NewData(x, y, n, d)
	full, _ := models.NewLabelSplitSoftmax(d, k, models.PartFull)
	pub, _ := models.NewLabelSplitSoftmax(d, k, models.PartPublic)
	// L* over the ball by long projected full-batch GD.
	opt, err := mechanisms.Train(context.Background(), mechanisms.Config{Model: full, Data: data, Steps: 4000, Optimizer: mechanisms.Momentum{LR: 1, Beta: 0.9}, ProjectRadius: radius})
	if err != nil {
		t.Fatal(err)
	}
	lstar := full.Loss(opt.Theta, data, nil)
	s := Setup{Model: full, PubModel: pub, Rate: q, Multiplier: z, Clip: clip, Steps: T, PublicBatch: n,
		Alpha: 1, Optimizer: mechanisms.SGD{LR: c}, Schedule: mechanisms.InverseSqrt(), ProjectRadius: radius, Data: data}
	var mean float64
	for seed := range 10 {
		s.Seed = uint64(seed)
		res, err := Train(context.Background(), Alg1, s)
		if err != nil {
			t.Fatal(err)
		}
		mean += (full.Loss(res.Theta, data, nil) - lstar) / 10
	}
	sigma := z * clip / (q * n)
	dim := float64(d * k)
	bound := (radius*radius/c + c*2 + c*dim*sigma*sigma) * (2 + math.Log(T)) / math.Sqrt(T)
	if !(mean >= -1e-9 && mean <= bound) {
		t.Errorf("A11: mean excess risk %v, bound %v", mean, bound)
	}

	// Strongly convex form: L2 λ in ℓ (and in ℓ_pub, which reads no private
	// data), η_t = 1/(λt); bound 17(τ'² + dσ²)(1 + log T)/(λT) with
	// τ' = √2 + λM on the ball.
	const lam = 0.5
	fullL2 := &models.LabelSplitSoftmax{D: d, K: k, Part: models.PartFull, L2: lam}
	pubL2 := &models.LabelSplitSoftmax{D: d, K: k, Part: models.PartPublic, L2: lam}
	opt, err = mechanisms.Train(context.Background(), mechanisms.Config{Model: fullL2, Data: data, Steps: 3000, Optimizer: mechanisms.Momentum{LR: 0.3, Beta: 0.9}, ProjectRadius: radius})
	if err != nil {
		t.Fatal(err)
	}
	lstar = fullL2.Loss(opt.Theta, data, nil)
	s.Model, s.PubModel = fullL2, pubL2
	s.Optimizer, s.Schedule = mechanisms.SGD{LR: 1 / lam}, func(t int) float64 { return 1 / float64(t) }
	mean = 0
	for seed := range 10 {
		s.Seed = uint64(seed)
		res, err := Train(context.Background(), Alg1, s)
		if err != nil {
			t.Fatal(err)
		}
		mean += (fullL2.Loss(res.Theta, data, nil) - lstar) / 10
	}
	tau := math.Sqrt2 + lam*radius
	bound = 17 * (tau*tau + dim*sigma*sigma) * (1 + math.Log(T)) / (lam * T)
	if !(mean >= -1e-9 && mean <= bound) {
		t.Errorf("A11 strongly convex: mean excess risk %v, bound %v", mean, bound)
	}
}

func TestConfigBadInput(t *testing.T) {
	mlp, data, pad := testProblem(t, 20)
	good := testSetup(mlp, data, pad)
	cases := map[string]func(s *Setup){
		"no model":   func(s *Setup) { s.Model = nil },
		"no opt":     func(s *Setup) { s.Optimizer = nil },
		"rate 0":     func(s *Setup) { s.Rate = 0 },
		"rate NaN":   func(s *Setup) { s.Rate = math.NaN() },
		"z 0":        func(s *Setup) { s.Multiplier = 0 },
		"clip -1":    func(s *Setup) { s.Clip = -1 },
		"clip inf":   func(s *Setup) { s.Clip = math.Inf(1) },
		"no data":    func(s *Setup) { s.Data = nil },
		"bad method": nil,
	}
	for name, mod := range cases {
		s := good
		method := Alg1
		if mod == nil {
			method = "nope"
		} else {
			mod(&s)
		}
		if _, err := EngineConfig(method, s); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The public term reads its rows without clipping or noise: a method that
// trains one refuses to default it to the private records (B1 of the
// trust review: the default made FDP-Alg1 learn only from the
// noise-free gradient of the protected columns while reporting ε).
func TestPublicViewRequired(t *testing.T) {
	mlp, data, pad := testProblem(t, 20)
	other, _ := models.NewMLP(data.D, 5, 3, models.Tanh, models.HeadSoftmaxCE)
	cases := []struct {
		name   string
		method Method
		mod    func(s *Setup)
		ok     bool
	}{
		{"Alg1, both defaults", Alg1, func(s *Setup) { s.PubData = nil }, false},
		{"Alg1, PubData is Data", Alg1, func(s *Setup) { s.PubData = s.Data }, false},
		{"Alg1, PubModel is Model", Alg1, func(s *Setup) { s.PubData, s.PubModel = nil, s.Model }, false},
		{"SingleBatch, both defaults", SingleBatch, func(s *Setup) { s.PubData = nil }, false},
		{"DPSGD with pre-training, both defaults", DPSGD, func(s *Setup) { s.PubData = nil }, false},
		{"Alg1, Ψ(X)", Alg1, func(s *Setup) {}, true},
		{"Alg1, a copy of the full model on Data", Alg1, func(s *Setup) { s.PubData, s.PubModel = nil, other }, false},
		{"DPSGD without pre-training, no view", DPSGD, func(s *Setup) { s.PubData, s.PretrainSteps = nil, 0 }, true},
		{"DP, no view", DP, func(s *Setup) { s.PubData = nil }, true},
	}
	for _, c := range cases {
		s := testSetup(mlp, data, pad)
		c.mod(&s)
		_, err := EngineConfig(c.method, s)
		if (err == nil) != c.ok {
			t.Errorf("%s: error %v, want ok = %v", c.name, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "ZeroMasking") {
			t.Errorf("%s: error %q does not name the fix", c.name, err)
		}
	}
}

func ExampleEngineConfig() {
	// Label DP on a toy problem: ℓ_pub = logsumexp, ℓ_priv = −w_yᵀx.
	x := []float64{0.6, 0.8, -0.6, 0.8, 0.6, -0.8, -0.6, -0.8}
	y := []float64{0, 1, 0, 1}
	data, _ := design.NewData(x, y, 4, 2)
	full, _ := models.NewLabelSplitSoftmax(2, 2, models.PartFull)
	pub, _ := models.NewLabelSplitSoftmax(2, 2, models.PartPublic)
	s := Setup{Model: full, PubModel: pub, Data: data, Rate: 0.5, Multiplier: 1, Clip: 1, DPClip: math.Sqrt2,
		Steps: 100, Alpha: 1, Optimizer: mechanisms.SGD{LR: 0.5}, Seed: 1}
	for _, m := range []Method{DP, Alg1} {
		res, _ := Train(context.Background(), m, s)
		eps, _ := Epsilon(m, s, res, 1e-5)
		fmt.Printf("%s: ε = %.2f\n", m, eps)
	}
	// Output:
	// DP: ε = 42.87
	// FDP-Alg1: ε = 42.87
}

// A9: sparse-embedding DP adds noise to every coordinate, including the
// embedding rows of categories absent from the batch.
func TestSparseEmbeddingDenseNoise(t *testing.T) {
	vocab := []int{50, 200}
	m, _ := models.NewEmbedLogistic(1, vocab, false)
	x := []float64{0.5, 0, 0, -0.5, 1, 1}
	data, _ := design.NewData(x, []float64{1, 0}, 2, 3)
	s := Setup{Model: m, Data: data, Rate: 0.5, Multiplier: 1, Clip: 1, Steps: 1, Optimizer: mechanisms.SGD{LR: 1}, Seed: 3}
	res, err := Train(context.Background(), DP, s)
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range res.Theta {
		if v == 0 {
			t.Fatalf("A9: coordinate %d unchanged", j)
		}
	}
}

// A run of T private steps is the first T steps of a longer run with the
// same seed (every method; the basis of the checkpoint evaluation of E3):
// the parameters a shorter run returns equal, bit for bit, those Setup.
// OnStep sees at the same global step of the longer run.
func TestTrainPrefixConsistent(t *testing.T) {
	mlp, data, pad := testProblem(t, 200)
	for _, m := range Methods() {
		t.Run(string(m), func(t *testing.T) {
			long := testSetup(mlp, data, pad)
			short := long
			short.Steps = 7
			// Pre-training steps come first; NonPrivate and Public run
			// PretrainSteps + Steps steps of their own; DP has none.
			offset := long.PretrainSteps
			if m == DP {
				offset = 0
			}
			res, err := Train(context.Background(), m, short)
			if err != nil {
				t.Fatal(err)
			}
			var snap []float64
			long.OnStep = func(step int, theta []float64) {
				if step == offset+short.Steps {
					snap = append([]float64(nil), theta...)
				}
			}
			if _, err := Train(context.Background(), m, long); err != nil {
				t.Fatal(err)
			}
			if snap == nil {
				t.Fatalf("OnStep never saw step %d", offset+short.Steps)
			}
			for j := range snap {
				if snap[j] != res.Theta[j] {
					t.Fatalf("θ[%d]: %v at step %d of the long run, %v after the short run", j, snap[j], offset+short.Steps, res.Theta[j])
				}
			}
		})
	}
}

// The Algorithm 1 audit: ε_lb ≤ the claimed ε, and the control with half
// the noise multiplier flagged (fixed seed).
func TestAlg1Audit(t *testing.T) {
	r, err := audit.Run(context.Background(), alg1AuditSpec(), audit.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("claimed %.3f, ε_lb %.3f, control %.3f", r.ClaimedEpsilon, r.EpsilonLB, r.ControlEpsilonLB)
	if r.EpsilonLB > r.ClaimedEpsilon || !r.ControlFlagged {
		t.Errorf("%+v", r)
	}
}

// The ledger route of Algorithm 1 and of Epsilon reports exactly the ε (and
// the order) of the Poisson-subsampled Gaussian accountant that computed
// them before (accounting.Epsilon over the same phases): one phase of T
// steps is T × the per-step RDP on both routes, converted by the same
// EpsilonFromRDP, so the numbers are equal, not merely close.
func TestLedgerMatchesAccountant(t *testing.T) {
	cases := []struct {
		name  string
		q, z  float64
		steps int
		delta float64
	}{
		{"AFHQ (Table I)", 128.0 / 14630, 0.86, 11430, 1.0 / 29260},
		{"LSUN (Table I)", 16384.0 / 3033042, 15.6, 92561, 1.0 / 6066084},
		{"Purchase 1 epoch", 1.0 / 16, 1, 16, 1e-5},
		{"Purchase 20 epochs", 1.0 / 16, 1, 320, 1e-5},
		{"Criteo B=4000 z=2", 0.1, 2, 100, 1e-5},
		{"full batch", 1, 2, 4, 1e-5},
		{"one step", 0.01, 0.7, 1, 1e-6},
	}
	for _, c := range cases {
		ph := accounting.Phase{SampleRate: c.q, NoiseMultiplier: c.z, Steps: c.steps}
		want, wantOrder, err := accounting.Epsilon([]accounting.Phase{ph}, c.delta, accounting.DefaultOrders(), accounting.DefaultConversion)
		if err != nil {
			t.Fatal(err)
		}
		got, order, err := Alg1Epsilon(c.q, c.z, c.steps, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		if got != want || order != wantOrder {
			t.Errorf("%s: Alg1Epsilon (ledger) = %v at order %v, accountant %v at order %v", c.name, got, order, want, wantOrder)
		}
		s := Setup{Rate: c.q, Multiplier: c.z, Steps: c.steps}
		res := &mechanisms.Result{Phases: []accounting.Phase{ph}}
		for _, m := range []Method{DP, DPSGD, Alg1} {
			if got, err := Epsilon(m, s, res, c.delta); err != nil || got != want {
				t.Errorf("%s: Epsilon(%s) = %v (%v), accountant %v", c.name, m, got, err, want)
			}
		}
		if c.steps > 400 {
			continue // the binomial mixture is slow at Table I's T
		}
		sb, err := SingleBatchEpsilon(c.q, c.z, c.steps, c.delta)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := Epsilon(SingleBatch, s, res, c.delta); err != nil || got != sb {
			t.Errorf("%s: Epsilon(single batch) = %v (%v), SingleBatchEpsilon %v", c.name, got, err, sb)
		}
	}
}

// The baselines and bad runs: Public spends 0, NonPrivate +Inf; a private
// method without phases, a nil result or an unknown method is an error.
func TestEpsilonMethods(t *testing.T) {
	s := Setup{Rate: 0.1, Multiplier: 1, Steps: 10}
	if e, err := Epsilon(PublicOnly, s, nil, 1e-5); err != nil || e != 0 {
		t.Errorf("Public: ε = %v (%v), want 0", e, err)
	}
	if e, err := Epsilon(NonPrivate, s, nil, 1e-5); err != nil || !math.IsInf(e, 1) {
		t.Errorf("NonPrivate: ε = %v (%v), want +Inf", e, err)
	}
	for name, c := range map[string]struct {
		m   Method
		res *mechanisms.Result
	}{
		"nil result":     {Alg1, nil},
		"no phases":      {DP, &mechanisms.Result{}},
		"unknown method": {"nope", &mechanisms.Result{Phases: []accounting.Phase{{SampleRate: 0.1, NoiseMultiplier: 1, Steps: 1}}}},
	} {
		if _, err := Epsilon(c.m, s, c.res, 1e-5); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Losses(NonPrivate, s, nil, 1e-5); err == nil {
		t.Error("Losses(NonPrivate): no error")
	}
	// The losses hold under the feature simulator relation, so a ledger of
	// another relation refuses them.
	ls, err := Losses(Alg1, s, &mechanisms.Result{Phases: []accounting.Phase{{SampleRate: 0.1, NoiseMultiplier: 1, Steps: 10}}}, 1e-5)
	if err != nil || len(ls) != 1 || ls[0].Relation() != accounting.RelationFeatureSimulator {
		t.Fatalf("Losses(Alg1) = %v (%v)", ls, err)
	}
	led, _ := accounting.NewLedger(accounting.RelationAddRemove, nil)
	if err := led.Add(ls[0]); err == nil {
		t.Error("an add/remove ledger accepted a feature-simulator loss")
	}
}

// TestEncodedRowsBadInput: a row index outside the encoding or an
// encoding whose slices do not match N and D is an error, not a panic
// (the old code indexed enc.X directly: index out of range).
func TestEncodedRowsBadInput(t *testing.T) {
	enc := &data.Encoded{X: []float64{1, 2, 3, 4}, Y: []float64{0, 1}, N: 2, D: 2, Sensitive: []bool{true, false}}
	for _, c := range []struct {
		name string
		enc  *data.Encoded
		idx  []int
	}{
		{"row 2 of 2", enc, []int{0, 2}},
		{"row −1", enc, []int{-1}},
		{"X shorter than N·D", &data.Encoded{X: []float64{1}, Y: []float64{0, 1}, N: 2, D: 2, Sensitive: []bool{true, false}}, []int{1}},
		{"Sensitive shorter than D", &data.Encoded{X: []float64{1, 2, 3, 4}, Y: []float64{0, 1}, N: 2, D: 2}, []int{0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := EncodedRows(c.enc, c.idx, true) // a panic fails the test
			if err == nil {
				t.Errorf("error %v, want a descriptive error", err)
			}
		})
	}
	if d, err := EncodedRows(enc, []int{1, 0}, true); err != nil || d.X[0] != 0 || d.X[1] != 4 || d.Y[0] != 1 {
		t.Errorf("valid rows: %+v, %v", d, err)
	}
}

// The Algorithm 1 audit's claimed ε is the accounting of the run it
// audits: Epsilon of the finished run (its Result's phases, Thm 5) at the
// audit's δ, on D and on D′.
func TestAlg1AuditClaimIsTheRuns(t *testing.T) {
	s := alg1AuditSpec()
	for _, present := range []bool{false, true} {
		setup, err := alg1Setup(alg1Canaries, alg1Z, present, 1, make([]float64, alg1Canaries+1), nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Train(context.Background(), Alg1, setup)
		if err != nil {
			t.Fatal(err)
		}
		eps, err := Epsilon(Alg1, setup, res, s.Delta)
		if err != nil {
			t.Fatalf("present = %v: %v (phases %v, note %q)", present, err, res.Phases, res.PhasesNote)
		}
		if eps != s.Claimed {
			t.Errorf("present = %v: the run accounts ε = %v, the audit claims %v", present, eps, s.Claimed)
		}
	}
}
