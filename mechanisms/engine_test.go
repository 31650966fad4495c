package mechanisms

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
)

func mustTrain(t *testing.T, cfg Config) *Result {
	t.Helper()
	res, err := Train(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for j := range a {
		if math.Float64bits(a[j]) != math.Float64bits(b[j]) {
			return false
		}
	}
	return true
}

func TestTrainConvergesLeastSquares(t *testing.T) {
	data, w := regression(t, 200, 3, 1)
	res := mustTrain(t, Config{Model: lsq{d: 3}, Data: data, Steps: 300, Optimizer: SGD{LR: 0.3}})
	for j := range w {
		if math.Abs(res.Theta[j]-w[j]) > 0.05 {
			t.Errorf("θ = %v, want ≈ %v", res.Theta, w)
			break
		}
	}
	if res.MeanBatchSize != 200 || res.ExpectedBatchSize != 200 || res.Phases != nil || res.PhasesNote == "" {
		t.Errorf("full batch bookkeeping: %+v", res)
	}
}

func TestTrainFullGrad(t *testing.T) {
	data, _ := regression(t, 50, 3, 2)
	m := lsq{d: 3}
	calls := 0
	base := Config{Model: m, Data: data, Steps: 20, Optimizer: SGD{LR: 0.1}}
	a := mustTrain(t, base)
	base.FullGrad = func(theta, out []float64) { calls++; m.GradSum(theta, data, nil, out) }
	b := mustTrain(t, base)
	if calls != 20 || !sameBits(a.Theta, b.Theta) {
		t.Errorf("FullGrad: %d calls, θ %v vs %v", calls, a.Theta, b.Theta)
	}
	// Not used with per-example clipping or a sampled batch.
	calls = 0
	base.Clip, base.ClipNorm = ClipPerExample, 1
	mustTrain(t, base)
	base.Clip, base.ClipNorm, base.Sampler = ClipNone, 0, Poisson{Rate: 0.5}
	mustTrain(t, base)
	if calls != 0 {
		t.Errorf("FullGrad used %d times outside its fast path", calls)
	}
	// With the models package's sufficient statistics.
	lin, err := models.NewLinear(3, true, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := models.NewLinearStats(data)
	if err != nil {
		t.Fatal(err)
	}
	c := Config{Model: lin, Data: data, Steps: 30, Optimizer: SGD{LR: 0.05}}
	slow := mustTrain(t, c)
	c.FullGrad = func(theta, out []float64) { stats.GradSum(lin, theta, out) }
	fast := mustTrain(t, c)
	for j := range slow.Theta {
		if math.Abs(slow.Theta[j]-fast.Theta[j]) > 1e-9 {
			t.Fatalf("sufficient statistics: %v vs %v", fast.Theta, slow.Theta)
		}
	}
}

// TestTrainPerExampleClip is check A3: each per-example gradient (all
// parameters jointly) is scaled to norm ≤ C, smaller ones are untouched.
func TestTrainPerExampleClip(t *testing.T) {
	// ℓ = θ·x, per-example gradient x: rows (3,4) norm 5 and (0.3,0.4).
	data := mustData(t, []float64{3, 4, 0.3, 0.4}, []float64{0, 0}, 2, 2)
	res := mustTrain(t, Config{Model: linear{d: 2}, Data: data, Steps: 1, Optimizer: SGD{LR: 1},
		Clip: ClipPerExample, ClipNorm: 1})
	// θ₁ = −(clip(3,4) + (0.3,0.4))/2 = −((0.6,0.8)+(0.3,0.4))/2.
	want := []float64{-0.45, -0.6}
	for j := range want {
		if math.Abs(res.Theta[j]-want[j]) > 1e-15 {
			t.Fatalf("θ = %v, want %v", res.Theta, want)
		}
	}
	// Batch clipping instead clips the mean ((1.65, 2.2), norm 2.75) to 1.
	res = mustTrain(t, Config{Model: linear{d: 2}, Data: data, Steps: 1, Optimizer: SGD{LR: 1},
		Clip: ClipBatch, ClipNorm: 1})
	if n := math.Hypot(res.Theta[0], res.Theta[1]); math.Abs(n-1) > 1e-15 || math.Abs(res.Theta[0]/res.Theta[1]-0.75) > 1e-12 {
		t.Fatalf("batch clip: θ = %v (norm %v)", res.Theta, n)
	}
}

// TestTrainGhostClipping: the ghost-clipping path (norms + weighted sum)
// equals the materialised per-example path, with the same batches and
// noise.
func TestTrainGhostClipping(t *testing.T) {
	data, _ := regression(t, 300, 4, 3)
	view, _ := regression(t, 300, 4, 4) // a public view Ψ(X)
	plan, _ := DPSGD(4, 0.8, 0.5, 30)
	// With SubtractFromPrivate the clipped per-example gradient is
	// ∇ℓ − ∇ℓ_pub, which the model's fast path alone cannot compute: a
	// mutant that used it anyway (silently dropping the subtraction)
	// survived every other test.
	for _, pub := range []*PublicTerm{nil, {Alpha: 1, SubtractFromPrivate: true, Data: view, Model: lsq{d: 4}}} {
		cfg := Config{Data: data, Steps: 50, Optimizer: SGD{LR: 0.2}, Sampler: Poisson{Rate: 0.1},
			Clip: ClipPerExample, ClipNorm: 0.5, Noise: plan, Seed: 9, Public: pub}
		cfg.Model = lsq{d: 4}
		a := mustTrain(t, cfg)
		cfg.Model = ghostLSQ{lsq{d: 4}}
		b := mustTrain(t, cfg)
		for j := range a.Theta {
			if math.Abs(a.Theta[j]-b.Theta[j]) > 1e-12 {
				t.Fatalf("SubtractFromPrivate %v: ghost %v vs materialised %v", pub != nil, b.Theta, a.Theta)
			}
		}
		for k := range a.BatchSizes {
			if a.BatchSizes[k] != b.BatchSizes[k] {
				t.Fatal("batch sizes differ")
			}
		}
	}
}

// TestTrainNoiseScale is check A4: with zero gradients, the per-step
// update has std z·C/m, and the sum is divided by m = q·n, never by the
// realised batch size.
func TestTrainNoiseScale(t *testing.T) {
	const n, q, z, c = 100, 0.1, 1.3, 2.0
	zero := mustData(t, make([]float64, n), make([]float64, n), n, 1)
	plan, _ := DPSGD(1, z, c, q*n)
	var diffs []float64
	prev := 0.0
	mustTrain(t, Config{Model: linear{d: 1}, Data: zero, Steps: 20000, Optimizer: SGD{LR: 1},
		Sampler: Poisson{Rate: q}, Clip: ClipPerExample, ClipNorm: c, Noise: plan, Seed: 4,
		OnStep: func(_ int, th []float64) { diffs = append(diffs, th[0]-prev); prev = th[0] }})
	_, v := meanVar(diffs)
	if want := z * c / (q * n); math.Abs(math.Sqrt(v)/want-1) > 0.02 {
		t.Errorf("update std %v, want zC/m = %v", math.Sqrt(v), want)
	}

	// Constant per-example gradient 1, no noise: θ_T = −Σ|B_t|/m with the
	// expected normalisation, −#{t: |B_t| > 0} with the realised one.
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	data := mustData(t, ones, make([]float64, n), n, 1)
	for _, norm := range []Normalization{NormalizeExpected, NormalizeRealised} {
		res := mustTrain(t, Config{Model: linear{d: 1}, Data: data, Steps: 200, Optimizer: SGD{LR: 1},
			Sampler: Poisson{Rate: 0.02}, Normalize: norm, Seed: 5})
		var want float64
		for _, b := range res.BatchSizes {
			if norm == NormalizeExpected {
				want -= float64(b) / 2
			} else if b > 0 {
				want--
			}
		}
		if math.Abs(res.Theta[0]-want) > 1e-9 {
			t.Errorf("%v: θ = %v, want %v", norm, res.Theta[0], want)
		}
		if math.Abs(res.MeanBatchSize-2) > 0.3 {
			t.Errorf("mean batch %v, want ≈ 2", res.MeanBatchSize)
		}
	}
}

// TestTrainPublicTerm covers fdp.md checks A2 and A7 and the subtraction.
func TestTrainPublicTerm(t *testing.T) {
	data, _ := regression(t, 120, 3, 6)
	zeroPub := mustData(t, make([]float64, 120*3), make([]float64, 120), 120, 3)
	plan, _ := DPSGD(3, 1, 1, 12)
	dp := Config{Model: lsq{d: 3}, Data: data, Steps: 40, Optimizer: Momentum{LR: 0.1, Beta: 0.9},
		Sampler: Poisson{Rate: 0.1}, Clip: ClipPerExample, ClipNorm: 1, Noise: plan, Seed: 8}
	a := mustTrain(t, dp)

	// A7: ℓ_pub ≡ 0 (gradient x = 0), α = 1 reproduces DP-SGD bit for bit.
	fdp := dp
	fdp.Public = &PublicTerm{Data: zeroPub, Model: linear{d: 3}, Alpha: 1, SubtractFromPrivate: true, BatchSize: 7}
	b := mustTrain(t, fdp)
	if !sameBits(a.Theta, b.Theta) {
		t.Fatalf("FDP with ℓ_pub ≡ 0: %v, DP-SGD: %v", b.Theta, a.Theta)
	}
	if len(b.Phases) != 1 || b.Phases[0] != a.Phases[0] {
		t.Errorf("phases %v vs %v", b.Phases, a.Phases)
	}
	// A2: the public stream is independent: another m' changes nothing.
	fdp.Public.BatchSize = 100
	c := mustTrain(t, fdp)
	if !sameBits(a.Theta, c.Theta) || c.PublicBatchSize != 100 {
		t.Fatal("public batch size changed the private trajectory")
	}

	// Subtraction and mixing, one deterministic step: full batch, m' = n,
	// no noise, SGD LR 1 from 0. g = g_pub + α·(1/n)Σ(∇ℓ(x) − ∇ℓ(Ψx)).
	psi := append([]float64(nil), data.X...)
	for i := range 120 {
		psi[i*3+1] = 0 // Ψ hides feature 1
	}
	pubData := mustData(t, psi, data.Y, 120, 3)
	m := lsq{d: 3}
	res := mustTrain(t, Config{Model: m, Data: data, Steps: 1, Optimizer: SGD{LR: 1}, Init: []float64{0.1, 0.2, 0.3},
		Public: &PublicTerm{Data: pubData, Alpha: 0.5, SubtractFromPrivate: true, BatchSize: 120}})
	th := []float64{0.1, 0.2, 0.3}
	full, pub := make([]float64, 3), make([]float64, 3)
	m.GradSum(th, data, nil, full)
	m.GradSum(th, pubData, nil, pub)
	for j := range th {
		want := th[j] - (pub[j]/120 + 0.5*(full[j]-pub[j])/120)
		if math.Abs(res.Theta[j]-want) > 1e-12 {
			t.Errorf("θ[%d] = %v, want %v", j, res.Theta[j], want)
		}
	}
	// The same with per-example clipping at a huge C (no clipping effect)
	// takes the materialised path and agrees.
	res2 := mustTrain(t, Config{Model: m, Data: data, Steps: 1, Optimizer: SGD{LR: 1}, Init: []float64{0.1, 0.2, 0.3},
		Clip: ClipPerExample, ClipNorm: 1e9,
		Public: &PublicTerm{Data: pubData, Alpha: 0.5, SubtractFromPrivate: true, BatchSize: 120}})
	for j := range th {
		if math.Abs(res2.Theta[j]-res.Theta[j]) > 1e-12 {
			t.Errorf("per-example path θ[%d] = %v, want %v", j, res2.Theta[j], res.Theta[j])
		}
	}
}

// TestTrainPretrain: public pre-training moves θ, adds no phase (A10),
// and PretrainOnly leaves the private steps plain DP-SGD.
func TestTrainPretrain(t *testing.T) {
	data, _ := regression(t, 100, 2, 7)
	plan, _ := DPSGD(2, 1, 1, 10)
	base := Config{Model: lsq{d: 2}, Data: data, Steps: 30, Optimizer: SGD{LR: 0.1},
		Sampler: Poisson{Rate: 0.1}, Clip: ClipPerExample, ClipNorm: 1, Noise: plan, Seed: 3}
	base.NormalizeBy = 10 // q times the public row count: add/remove
	plain := mustTrain(t, base)
	steps := 0
	pre := base
	// The public view Ψ(X): feature 0 private (zero-masked), feature 1
	// public. (The rows themselves as Public.Data would protect nothing:
	// TestTrainPublicTermOnPrivateRows.)
	masked := append([]float64(nil), data.X...)
	for i := range data.N {
		masked[2*i] = 0
	}
	pre.Public = &PublicTerm{Alpha: 1, PretrainOnly: true, BatchSize: 20, Data: mustData(t, masked, data.Y, data.N, 2)}
	pre.PublicPretrainSteps = 50
	pre.OnStep = func(int, []float64) { steps++ }
	pre.TraceEvery = 40
	res := mustTrain(t, pre)
	if steps != 80 {
		t.Errorf("OnStep called %d times, want 80", steps)
	}
	if len(res.Phases) != 1 || res.Phases[0] != plain.Phases[0] || res.Phases[0].Steps != 30 {
		t.Errorf("phases %v, want %v", res.Phases, plain.Phases)
	}
	if sameBits(res.Theta, plain.Theta) {
		t.Error("pre-training changed nothing")
	}
	// The public term read the rows without noise: the phases hold under
	// feature DP's simulator relation, not add/remove (an add/remove
	// ledger refuses them); without it they are add/remove.
	for _, c := range []struct {
		res  *Result
		want accounting.Relation
	}{{plain, accounting.RelationAddRemove}, {res, accounting.RelationFeatureSimulator}} {
		losses, err := c.res.Losses()
		if err != nil || len(losses) != 1 || c.res.PhasesRelation != c.want || losses[0].Relation() != c.want {
			t.Errorf("losses %v (%v), relation %v: want %v", losses, err, c.res.PhasesRelation, c.want)
		}
	}
	if L, _ := accounting.NewLedger(accounting.RelationAddRemove, nil); L != nil {
		if losses, err := res.Losses(); err == nil && L.Add(losses[0]) == nil {
			t.Error("an add/remove ledger took the losses of a run with a public term")
		}
	}
	if len(res.BatchSizes) != 30 {
		t.Errorf("%d batch sizes", len(res.BatchSizes))
	}
	// Pre-training on the public view lowers the loss from the first
	// private step on: the trace at 0, 40, 80.
	if len(res.Trace) != 3 || res.Trace[1].Step != 40 || !(res.Trace[1].Loss < res.Trace[0].Loss) {
		t.Errorf("trace %+v", res.Trace)
	}
}

// NormalizeBy divides the private gradient sum by a public m instead of
// q·n: the same bits when it equals q·n, half the step when it is twice
// that, and the noise check uses it; bad values are errors.
func TestTrainNormalizeBy(t *testing.T) {
	data, _ := regression(t, 100, 2, 9)
	plan, _ := DPSGD(2, 1, 1, 10) // σ = z·C/m with m = q·n = 10
	base := Config{Model: lsq{d: 2}, Data: data, Steps: 20, Optimizer: SGD{LR: 0.1},
		Sampler: Poisson{Rate: 0.1}, Clip: ClipPerExample, ClipNorm: 1, Noise: plan, Seed: 4}
	same := base
	same.NormalizeBy = 10
	if a, b := mustTrain(t, base), mustTrain(t, same); !sameBits(a.Theta, b.Theta) {
		t.Error("NormalizeBy = q·n changed the run")
	}
	// Full batch, no noise, one step from 0: θ = −lr·g/m.
	one := Config{Model: lsq{d: 2}, Data: data, Steps: 1, Optimizer: SGD{LR: 1}}
	twice := one
	twice.NormalizeBy = 200
	a, b := mustTrain(t, one), mustTrain(t, twice)
	for j := range a.Theta {
		if math.Abs(b.Theta[j]-a.Theta[j]/2) > 1e-15*math.Abs(a.Theta[j]) {
			t.Errorf("θ[%d] = %v with m = 2n, want half of %v", j, b.Theta[j], a.Theta[j])
		}
	}
	// The plan's σ = z·C/m was built for m = 10: dividing the sum by 5
	// puts only σ·5 = z·C/2 of noise on it, which is refused (by 20, the
	// noise on the sum doubles: accepted).
	half := base
	half.NormalizeBy = 5
	for name, c := range map[string]Config{"plan for another m": half} {
		if _, err := Train(context.Background(), c); err == nil || !strings.Contains(err.Error(), "delivers only") {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, by := range []float64{-1, math.NaN(), math.Inf(1)} {
		c := base
		c.NormalizeBy = by
		if _, err := Train(context.Background(), c); err == nil || !strings.Contains(err.Error(), "NormalizeBy") {
			t.Errorf("NormalizeBy = %v: %v", by, err)
		}
	}
	realised := base
	realised.NormalizeBy, realised.Normalize = 10, NormalizeRealised
	if _, err := Train(context.Background(), realised); err == nil {
		t.Error("NormalizeBy with NormalizeRealised accepted")
	}
}

func TestTrainAverageAndProjection(t *testing.T) {
	data, _ := regression(t, 80, 3, 8)
	var sum [3]float64
	plan, _ := Standard(3, 0.3)
	res := mustTrain(t, Config{Model: lsq{d: 3}, Data: data, Steps: 40, Optimizer: SGD{LR: 0.2}, Noise: plan,
		Average: true, ProjectRadius: 1.5, Schedule: InverseSqrt(), Seed: 2,
		OnStep: func(_ int, th []float64) {
			if n := norm2(th); n > 1.5*(1+1e-15) {
				t.Errorf("‖θ‖ = %v > R", n)
			}
			for j := range sum {
				sum[j] += th[j]
			}
		}})
	for j := range sum {
		if math.Abs(res.Average[j]-sum[j]/40) > 1e-14 {
			t.Fatalf("average %v, want %v", res.Average, sum)
		}
	}
	if n := norm2(res.Theta); math.Abs(n-1.5) > 1e-12 {
		t.Errorf("the unconstrained optimum is outside the ball, so θ_T should be on it: ‖θ‖ = %v", n)
	}
}

func TestTrainCancel(t *testing.T) {
	data, _ := regression(t, 20, 2, 9)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Train(ctx, Config{Model: lsq{d: 2}, Data: data, Steps: 100, Optimizer: SGD{LR: 0.1},
		OnStep: func(s int, _ []float64) {
			if s == 3 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "step 4") {
		t.Errorf("err = %v", err)
	}
	_, err = Train(ctx, Config{Model: lsq{d: 2}, Data: data, Steps: 1, Optimizer: SGD{LR: 0.1}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("pre-cancelled: %v", err)
	}
	if _, err := Train(nil, Config{Model: lsq{d: 2}, Data: data, Steps: 1, Optimizer: SGD{LR: 0.1}}); err != nil { // nil context = Background
		t.Errorf("nil context: %v", err)
	}
}

// determinismConfig exercises every random stream.
func determinismConfig(t *testing.T) Config {
	data, _ := regression(t, 150, 4, 10)
	plan, _ := DPSGD(4, 1.1, 1, 15)
	return Config{Model: lsq{d: 4}, Data: data, Steps: 60, Optimizer: Adam{LR: 0.05},
		Sampler: Poisson{Rate: 0.1}, Clip: ClipPerExample, ClipNorm: 1, Noise: plan, Seed: 77, Average: true,
		Public: &PublicTerm{Alpha: 0.7, SubtractFromPrivate: true, BatchSize: 9}, PublicPretrainSteps: 5}
}

func TestTrainDeterminism(t *testing.T) {
	cfg := determinismConfig(t)
	old := runtime.GOMAXPROCS(1)
	a := mustTrain(t, cfg)
	runtime.GOMAXPROCS(2)
	b := mustTrain(t, cfg)
	runtime.GOMAXPROCS(old)
	if !sameBits(a.Theta, b.Theta) || !sameBits(a.Average, b.Average) {
		t.Fatal("GOMAXPROCS changed the result")
	}
	cfg.Streams = NewStreams(77)
	c := mustTrain(t, cfg)
	if !sameBits(a.Theta, c.Theta) {
		t.Fatal("Streams = NewStreams(seed) differs from Seed = seed")
	}
	cfg.Streams = nil
	cfg.Seed = 78
	if d := mustTrain(t, cfg); sameBits(a.Theta, d.Theta) {
		t.Fatal("another seed gave the same result")
	}
	cfg.Seed = 77
	cfg.Mode = Secure
	if e := mustTrain(t, cfg); sameBits(a.Theta, e.Theta) || e.Mode != Secure {
		t.Fatal("Secure mode reproduced the seeded run")
	}
	cfg.Mode = Reproducible
	// A stateful sampler in a reused Config restarts every run.
	sh, _ := NewShuffledEpochs(10)
	cfg = Config{Model: lsq{d: 4}, Data: cfg.Data, Steps: 25, Optimizer: SGD{LR: 0.1}, Sampler: sh}
	if f, g := mustTrain(t, cfg), mustTrain(t, cfg); !sameBits(f.Theta, g.Theta) || sh.Epoch() != 0 {
		t.Fatal("ShuffledEpochs state leaked between runs")
	}
}

// TestTrainCorrDPPlansCRN is check C19 of corrdp.md: CorrDP with every
// TV = 1 is bit-identical to Standard, and with every TV = 0 to Semi.
func TestTrainCorrDPPlansCRN(t *testing.T) {
	data, _ := regression(t, 100, 3, 11)
	run := func(p *NoisePlan) []float64 {
		return mustTrain(t, Config{Model: lsq{d: 3}, Data: data, Steps: 30, Optimizer: SGD{LR: 0.1},
			Sampler: UniformSubset{Size: 20}, Clip: ClipBatch, ClipNorm: 5, Noise: p, Seed: 12}).Theta
	}
	sens := []float64{1, 0, 1} // feature 1 insensitive
	std, _ := Standard(3, 0.4)
	semi, _ := Semi([]bool{true, false, true}, 0.4)
	w1, _ := FeatureWeights(lsq{d: 3}, []float64{1, 1, 1}, 1, 1)
	w0, _ := FeatureWeights(lsq{d: 3}, sens, 0, 1)
	c1, _ := Weighted(w1, 0.4)
	c0, _ := Weighted(w0, 0.4)
	if !sameBits(run(std), run(c1)) {
		t.Error("CorrDP(TV=1) ≠ Standard")
	}
	if !sameBits(run(semi), run(c0)) {
		t.Error("CorrDP(TV=0) ≠ Semi")
	}
}

func TestTrainPhases(t *testing.T) {
	data, _ := regression(t, 100, 2, 12)
	dps, _ := DPSGD(2, 1.5, 1, 10)
	std, _ := Standard(2, 0.15)
	sh, _ := NewShuffledEpochs(10)
	view := &design.Data{N: 100, D: 2, X: make([]float64, 200), Y: data.Y} // a public view: no feature
	cases := []struct {
		name    string
		mod     func(*Config)
		q       float64 // −1: no phase
		wantErr bool
	}{
		{"Poisson", func(c *Config) {}, 0.1, false},
		{"pointer Poisson", func(c *Config) { c.Sampler = &Poisson{Rate: 0.1} }, 0.1, false},
		{"FullBatch", func(c *Config) { c.Sampler = FullBatch{}; c.Noise, _ = DPSGD(2, 1.5, 1, 100); c.NormalizeBy = 100 }, 1, false},
		{"Standard with multiplier", func(c *Config) { p := *std; p.Multiplier = 1.5; c.Noise = &p }, 0.1, false},
		{"Uniform", func(c *Config) { c.Sampler = UniformSubset{Size: 10} }, -1, false},
		{"Shuffled", func(c *Config) { c.Sampler = sh }, -1, false},
		{"realised", func(c *Config) { c.Normalize = NormalizeRealised; c.NormalizeBy = 0 }, -1, false},
		{"no plan", func(c *Config) { c.Noise = nil }, -1, false},
		{"no multiplier", func(c *Config) { c.Noise = std }, -1, false},
		{"batch clip", func(c *Config) { c.Clip = ClipBatch }, -1, false},
		// The public gradient on the private batch reveals which records
		// were sampled: no amplification, so no Poisson phase (a mutant
		// that stated one survived every other test).
		{"SameBatch", func(c *Config) { c.Public = &PublicTerm{Alpha: 1, SameBatch: true, Data: view} }, -1, false},
		{"claims too much", func(c *Config) { p := *std; p.Multiplier = 2; c.Noise = &p }, -1, true},
		{"Semi with multiplier", func(c *Config) { p, _ := Semi([]bool{true, false}, 0.15); p.Multiplier = 1.5; c.Noise = p }, -1, true},
	}
	for _, c := range cases {
		cfg := Config{Model: lsq{d: 2}, Data: data, Steps: 5, Optimizer: SGD{LR: 0.1},
			Sampler: Poisson{Rate: 0.1}, Clip: ClipPerExample, ClipNorm: 1, Noise: dps, NormalizeBy: 10}
		c.mod(&cfg)
		res, err := Train(context.Background(), cfg)
		if c.wantErr {
			if err == nil {
				t.Errorf("%s: no error", c.name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.q < 0 {
			if res.Phases != nil || res.PhasesNote == "" {
				t.Errorf("%s: phases %v, note %q", c.name, res.Phases, res.PhasesNote)
			}
			continue
		}
		if len(res.Phases) != 1 || res.Phases[0].SampleRate != c.q || res.Phases[0].NoiseMultiplier != 1.5 ||
			res.Phases[0].Steps != 5 || res.PhasesNote != "" || res.PhasesRelation != accounting.RelationAddRemove {
			t.Errorf("%s: phases %+v note %q", c.name, res.Phases, res.PhasesNote)
		}
	}
}

type randInit struct{ lsq }

func (randInit) Init(theta []float64, rng *rand.Rand) {
	for j := range theta {
		theta[j] = rng.NormFloat64()
	}
}

func TestTrainInit(t *testing.T) {
	data, _ := regression(t, 10, 2, 13)
	var first []float64
	cfg := Config{Model: randInit{lsq{d: 2}}, Data: data, Steps: 1, Optimizer: SGD{LR: 1e-9}, Seed: 5,
		OnStep: func(_ int, th []float64) { first = append([]float64(nil), th...) }}
	mustTrain(t, cfg)
	want := make([]float64, 2)
	randInit{}.Init(want, NewStreams(5).Init())
	if math.Abs(first[0]-want[0]) > 1e-6 || math.Abs(first[1]-want[1]) > 1e-6 {
		t.Errorf("θ₁ = %v, want ≈ Init = %v", first, want)
	}
	cfg.Init = []float64{100, 100}
	mustTrain(t, cfg)
	if math.Abs(first[0]-100) > 1e-3 {
		t.Errorf("Config.Init ignored: %v", first)
	}
}

func TestTrainDivergenceAndSchedule(t *testing.T) {
	data, _ := regression(t, 50, 2, 14)
	_, err := Train(context.Background(), Config{Model: lsq{d: 2}, Data: data, Steps: 2000, Optimizer: SGD{LR: 100}})
	if err == nil || !strings.Contains(err.Error(), "diverged") {
		t.Errorf("divergence: %v", err)
	}
	for _, v := range []float64{math.NaN(), -1, math.Inf(1)} {
		_, err = Train(context.Background(), Config{Model: lsq{d: 2}, Data: data, Steps: 3, Optimizer: SGD{LR: 0.1},
			Schedule: func(int) float64 { return v }})
		if err == nil {
			t.Errorf("schedule value %v: no error", v)
		}
	}
}

// badSampler returns the out-of-range row: -1, or n with past.
type badSampler struct {
	FullBatch
	past bool
}

func (b badSampler) Sample(_ *rand.Rand, n int, _ []int) ([]int, error) {
	if b.past {
		return []int{n}, nil // one past the last row: an error, not a panic
	}
	return []int{-1}, nil
}

func TestTrainBadConfig(t *testing.T) {
	data, _ := regression(t, 20, 2, 15)
	other, _ := regression(t, 21, 2, 15)
	threeCols, _ := regression(t, 20, 3, 15)
	nan := math.NaN()
	ok := func() Config {
		return Config{Model: lsq{d: 2}, Data: data, Steps: 3, Optimizer: SGD{LR: 0.1}}
	}
	badX := &design.Data{X: []float64{nan, 1}, Y: []float64{0}, N: 1, D: 2}
	badY := &design.Data{X: []float64{1, 1}, Y: []float64{math.Inf(1)}, N: 1, D: 2}
	short := &design.Data{X: []float64{1}, Y: []float64{0}, N: 1, D: 2}
	logistic, _ := models.NewLogistic(2, false, 0)
	cases := []struct {
		name string
		mod  func(*Config)
	}{
		{"nil model", func(c *Config) { c.Model = nil }},
		{"nil model pointer", func(c *Config) { c.Model = (*models.Linear)(nil) }},
		{"nil sampler pointer", func(c *Config) { c.Sampler = (*Poisson)(nil) }},
		{"nil optimizer pointer", func(c *Config) { c.Optimizer = (*SGD)(nil) }},
		{"nil public model pointer", func(c *Config) { c.Public = &PublicTerm{Alpha: 1, Model: (*models.Logistic)(nil)} }},
		{"nil data", func(c *Config) { c.Data = nil }},
		{"empty data", func(c *Config) { c.Data = &design.Data{} }},
		{"short data", func(c *Config) { c.Data = short }},
		{"NaN feature", func(c *Config) { c.Data = badX }},
		{"Inf label", func(c *Config) { c.Data = badY }},
		{"feature count", func(c *Config) { c.Data = threeCols }},
		{"labels", func(c *Config) { c.Model = logistic }}, // real-valued y
		{"zero params", func(c *Config) { c.Model = lsq{d: 0} }},
		{"steps 0", func(c *Config) { c.Steps = 0 }},
		{"steps <0", func(c *Config) { c.Steps = -1 }},
		{"init length", func(c *Config) { c.Init = []float64{1} }},
		{"init NaN", func(c *Config) { c.Init = []float64{0, nan} }},
		{"init Inf", func(c *Config) { c.Init = []float64{math.Inf(-1), 0} }},
		{"Poisson rate", func(c *Config) { c.Sampler = Poisson{Rate: 2} }},
		{"Poisson rate 0", func(c *Config) { c.Sampler = Poisson{Rate: 0} }},
		{"uniform > n", func(c *Config) { c.Sampler = UniformSubset{Size: 21} }},
		{"bad sampler", func(c *Config) { c.Sampler = badSampler{} }},
		{"sampler past the rows", func(c *Config) { c.Sampler = badSampler{past: true} }},
		{"clip norm 0", func(c *Config) { c.Clip = ClipPerExample }},
		{"clip norm <0", func(c *Config) { c.Clip, c.ClipNorm = ClipBatch, -1 }},
		{"clip norm NaN", func(c *Config) { c.Clip, c.ClipNorm = ClipPerExample, nan }},
		{"clip norm Inf", func(c *Config) { c.Clip, c.ClipNorm = ClipPerExample, math.Inf(1) }},
		{"clip norm without mode", func(c *Config) { c.ClipNorm = 1 }},
		{"clip mode", func(c *Config) { c.Clip = ClipMode(9) }},
		{"normalize", func(c *Config) { c.Normalize = Normalization(5) }},
		{"plan length", func(c *Config) { c.Noise = &NoisePlan{Std: []float64{1}} }},
		{"plan σ<0", func(c *Config) { c.Noise = &NoisePlan{Std: []float64{1, -1}} }},
		{"plan σ NaN", func(c *Config) { c.Noise = &NoisePlan{Std: []float64{1, nan}} }},
		{"plan z<0", func(c *Config) { c.Noise = &NoisePlan{Std: []float64{1, 1}, Multiplier: -1} }},
		{"nil optimizer", func(c *Config) { c.Optimizer = nil }},
		{"LR 0", func(c *Config) { c.Optimizer = SGD{} }},
		{"LR <0", func(c *Config) { c.Optimizer = Momentum{LR: -1} }},
		{"Adam β", func(c *Config) { c.Optimizer = Adam{LR: 1, Beta1: 2} }},
		{"radius <0", func(c *Config) { c.ProjectRadius = -1 }},
		{"radius NaN", func(c *Config) { c.ProjectRadius = nan }},
		{"trace <0", func(c *Config) { c.TraceEvery = -1 }},
		{"pretrain <0", func(c *Config) { c.PublicPretrainSteps = -1 }},
		{"pretrain without public", func(c *Config) { c.PublicPretrainSteps = 3 }},
		{"α 0", func(c *Config) { c.Public = &PublicTerm{} }},
		{"α <0", func(c *Config) { c.Public = &PublicTerm{Alpha: -1} }},
		{"α NaN", func(c *Config) { c.Public = &PublicTerm{Alpha: nan} }},
		{"m' > n", func(c *Config) { c.Public = &PublicTerm{Alpha: 1, BatchSize: 21} }},
		{"m' < 0", func(c *Config) { c.Public = &PublicTerm{Alpha: 1, BatchSize: -1} }},
		{"public rows", func(c *Config) { c.Public = &PublicTerm{Alpha: 1, Data: other} }},
		{"public NaN", func(c *Config) { c.Public = &PublicTerm{Alpha: 1, Data: badX} }},
		{"public features", func(c *Config) { c.Public = &PublicTerm{Alpha: 1, Data: threeCols} }},
		{"public params", func(c *Config) { c.Public = &PublicTerm{Alpha: 1, Model: lsq{d: 3}, Data: threeCols} }},
		{"pretrain-only unused", func(c *Config) { c.Public = &PublicTerm{Alpha: 1, PretrainOnly: true} }},
	}
	for _, c := range cases {
		cfg := ok()
		c.mod(&cfg)
		var err error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: panic %v", c.name, r)
				}
			}()
			_, err = Train(context.Background(), cfg)
		}()
		if err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if _, err := Train(context.Background(), ok()); err != nil {
		t.Fatalf("baseline config: %v", err)
	}
}

// TestTrainWithModels runs the engine on the models package: DP-SGD on
// logistic regression learns, ghost clipping (Logistic implements it)
// matches the materialised path, and a CorrDP plan for an MLP puts the
// reduced noise on the first-layer rows of insensitive inputs and on b1.
func TestTrainWithModels(t *testing.T) {
	const n, d = 400, 3
	rng := NewStreams(30).Rand("data")
	x, y := make([]float64, n*d), make([]float64, n)
	for i := range n {
		var z float64
		for j := range d {
			x[i*d+j] = rng.NormFloat64()
			z += x[i*d+j] * float64(j+1)
		}
		if z+0.3*rng.NormFloat64() > 0 {
			y[i] = 1
		}
	}
	data := mustData(t, x, y, n, d)
	lg, err := models.NewLogistic(d, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := DPSGD(lg.NumParams(), 1, 1, 40)
	cfg := Config{Model: lg, Data: data, Steps: 200, Optimizer: SGD{LR: 0.5}, Sampler: Poisson{Rate: 0.1},
		Clip: ClipPerExample, ClipNorm: 1, Noise: plan, Seed: 1}
	ghost := mustTrain(t, cfg)
	if acc := lg.Evaluate(ghost.Theta, data).Accuracy; acc < 0.85 {
		t.Errorf("DP-SGD logistic accuracy %v", acc)
	}
	cfg.Model = struct{ models.Model }{lg} // hides the ghost-clipping interfaces
	mat := mustTrain(t, cfg)
	for j := range ghost.Theta {
		if math.Abs(ghost.Theta[j]-mat.Theta[j]) > 1e-9 {
			t.Fatalf("ghost %v vs materialised %v", ghost.Theta, mat.Theta)
		}
	}

	mlp, err := models.NewMLP(d, 2, 2, models.Softplus, models.HeadSoftmaxCE)
	if err != nil {
		t.Fatal(err)
	}
	w, err := FeatureWeights(mlp, []float64{1, 0.25, 1}, 0.25, 1)
	if err != nil {
		t.Fatal(err)
	}
	corr, _ := Weighted(w, 0.1)
	for _, k := range append(mlp.FeatureParams(1), mlp.FirstLayerBiasParams()...) {
		if corr.Std[k] != 0.05 {
			t.Errorf("parameter %d: σ = %v, want 0.05", k, corr.Std[k])
		}
	}
	var reduced int
	for _, s := range corr.Std {
		if s != 0.1 {
			reduced++
		}
	}
	if reduced != 4 {
		t.Errorf("%d parameters with reduced noise, want 4", reduced)
	}
	res := mustTrain(t, Config{Model: mlp, Data: data, Steps: 100, Optimizer: Adam{LR: 0.05},
		Sampler: UniformSubset{Size: 50}, Clip: ClipBatch, ClipNorm: 5, Noise: corr, Seed: 2})
	if acc := mlp.Evaluate(res.Theta, data).Accuracy; acc < 0.8 {
		t.Errorf("CorrDP MLP accuracy %v", acc)
	}
}

// recordingSampler is a Poisson sampler that records every batch.
type recordingSampler struct {
	Poisson
	batches [][]int
}

func (r *recordingSampler) Sample(rng *rand.Rand, n int, buf []int) ([]int, error) {
	b, err := r.Poisson.Sample(rng, n, buf)
	r.batches = append(r.batches, append([]int(nil), b...))
	return b, err
}

// Secure mode draws the batches from the OS CSPRNG: two runs with the same
// seed see different batches (the amplification by subsampling needs
// secret batches), while two Reproducible runs see identical ones.
func TestSecureModeBatches(t *testing.T) {
	data, _ := regression(t, 200, 4, 11)
	run := func(mode Mode) [][]int {
		rec := &recordingSampler{Poisson: Poisson{Rate: 0.1}}
		cfg := Config{Model: lsq{d: 4}, Data: data, Steps: 30, Optimizer: SGD{LR: 0.1}, Sampler: rec, Seed: 5, Mode: mode}
		if res := mustTrain(t, cfg); res.Mode != mode {
			t.Fatalf("Result.Mode %v, want %v", res.Mode, mode)
		}
		return rec.batches
	}
	if a, b := run(Reproducible), run(Reproducible); !reflect.DeepEqual(a, b) {
		t.Error("two Reproducible runs with the same seed drew different batches")
	}
	if a, b := run(Secure), run(Secure); reflect.DeepEqual(a, b) {
		t.Error("two Secure runs with the same seed drew the same batches")
	}
	if a, b := run(Reproducible), run(Secure); reflect.DeepEqual(a, b) {
		t.Error("a Secure run drew the seeded batches")
	}
	cfg := Config{Model: lsq{d: 4}, Data: data, Steps: 3, Optimizer: SGD{LR: 0.1}, Sampler: Poisson{Rate: 0.1}, Mode: Secure, Streams: NewStreams(5)}
	if _, err := Train(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "seeded stream tree") {
		t.Errorf("Secure mode with seeded Streams: %v", err)
	}
	// Reproducible mode with a secure tree used to run on the CSPRNG and
	// label the result "reproducible".
	cfg.Streams, cfg.Mode = NewSecureStreams(), Reproducible
	if _, err := Train(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "Mode is Reproducible but Streams is a secure") {
		t.Errorf("Reproducible mode with secure Streams: %v", err)
	}
	cfg.Streams, cfg.Mode = NewSecureStreams(), Mode(7)
	if _, err := Train(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "unknown mode") {
		t.Errorf("unknown mode: %v", err)
	}
}

func TestSecureStreams(t *testing.T) {
	s := NewSecureStreams().Derive("cell").Split(3)
	if !s.Secure() || NewStreams(1).Secure() || (*Streams)(nil).Secure() {
		t.Fatal("Secure flag not kept")
	}
	if s.Noise().Uint64() == s.Noise().Uint64() {
		t.Error("two secure generators of the same purpose repeated a value")
	}
	for m, want := range map[Mode]string{Reproducible: "not a private release", Secure: "OS CSPRNG"} {
		if !strings.Contains(m.String(), want) {
			t.Errorf("%d: %q", m, m.String())
		}
	}
}

// TestConcurrentNoiseBits: drawing the step's normals on a second goroutine
// gives the bits of drawing them after the gradient (same stream, same
// order), for DP-SGD and for a public term.
func TestConcurrentNoiseBits(t *testing.T) {
	data := logisticData(t, 600, 30)
	mlp, _ := models.NewMLP(30, 200, 2, models.Tanh, models.HeadSoftmaxCE) // 6,602 parameters
	if mlp.NumParams() < concurrentNoiseMin {
		t.Fatalf("model too small for the concurrent path: %d", mlp.NumParams())
	}
	run := func() []float64 {
		cfg := dpsgdConfig(t, mlp, data, 25)
		plan, err := DPSGD(mlp.NumParams(), 1.1, 1, cfg.Sampler.(Poisson).Rate*600)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Noise, cfg.Public = plan, &PublicTerm{Alpha: 2}
		return mustTrain(t, cfg).Theta
	}
	concurrent := run()
	old := concurrentNoiseMin
	concurrentNoiseMin = math.MaxInt
	serial := run()
	concurrentNoiseMin = old
	if !sameBits(concurrent, serial) {
		t.Fatal("concurrent normals changed θ")
	}
}

// TestTrainRowCountDivisor: the divisor q·n of the data's n rows moves
// when a record is added, so every other record's share moves with it: a
// record whose gradient is 0 still shifts θ, and one clipped to C shifts
// it by up to 2C/(q·n). Without NormalizeBy the phases therefore hold
// under the feature-simulator relation only (with a note); with a public
// NormalizeBy an added record moves θ by at most its own clipped
// gradient, the add/remove sensitivity the accountant assumes.
func TestTrainRowCountDivisor(t *testing.T) {
	const n, z, clip = 100, 1.0, 1.0
	rows := func(extra float64, add bool) *design.Data { // n rows x = 4, y = 1; gradient −1 after clipping
		k := n
		if add {
			k++
		}
		x, y := make([]float64, k), make([]float64, k)
		for i := range n {
			x[i], y[i] = 4, 1
		}
		if add {
			x[n] = extra // extra = 0: a zero gradient; 4 with y = 0: +C
		}
		d, err := design.NewData(x, y, k, 1)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	logistic, _ := models.NewLogistic(1, false, 0)
	for _, c := range []struct {
		name      string
		sampler   Sampler
		q, extra  float64
		publicBy  float64 // NormalizeBy; 0: the data's q·n
		maxShiftZ float64 // the largest allowed shift in units of σ
	}{
		{"full batch, public n", FullBatch{}, 1, 4, n, 1 / z},
		{"Poisson, public n, zero gradient", Poisson{Rate: 0.5}, 0.5, 0, 0.5 * n, 0},
		{"full batch, data's n", FullBatch{}, 1, 4, 0, -1},
		{"Poisson, data's n", Poisson{Rate: 0.5}, 0.5, 0, 0, -1},
	} {
		plan, _ := DPSGD(1, z, clip, c.q*n)
		run := func(d *design.Data) *Result {
			return mustTrain(t, Config{Model: logistic, Data: d, Steps: 1, Sampler: c.sampler, Clip: ClipPerExample, ClipNorm: clip,
				Noise: plan, Optimizer: SGD{LR: 1}, Init: []float64{0}, Seed: 7, NormalizeBy: c.publicBy})
		}
		a, b := run(rows(0, false)), run(rows(c.extra, true))
		shift := math.Abs(a.Theta[0]-b.Theta[0]) / plan.Std[0]
		if c.publicBy == 0 {
			if b.PhasesRelation != accounting.RelationFeatureSimulator || b.PhasesNote == "" || shift == 0 {
				t.Errorf("%s: relation %v, note %q, shift %.3gσ: want feature-simulator, a note and a shift", c.name, b.PhasesRelation, b.PhasesNote, shift)
			}
			continue
		}
		if b.PhasesRelation != accounting.RelationAddRemove || b.PhasesNote != "" || shift > c.maxShiftZ*(1+1e-9) {
			t.Errorf("%s: relation %v, note %q, shift %.4gσ: want add-remove within %.4gσ", c.name, b.PhasesRelation, b.PhasesNote, shift, c.maxShiftZ)
		}
	}
}

// TestTrainClipBatch: with ClipBatch the normalised batch gradient ḡ is
// scaled by min(1, C/‖ḡ‖) before the noise (clip_grad_norm_), whatever
// the factor: a mutant that clipped only when ‖ḡ‖ > 2C survived every
// other test. Every row's gradient under linear is its features (3, 4),
// so ḡ = (3, 4), ‖ḡ‖ = 5, and one SGD step of rate 1 from 0 gives
// θ₁ = −ḡ·min(1, C/5).
func TestTrainClipBatch(t *testing.T) {
	const n = 8
	x := make([]float64, 2*n)
	for i := range n {
		x[2*i], x[2*i+1] = 3, 4
	}
	data := mustData(t, x, make([]float64, n), n, 2)
	for _, c := range []float64{0.5, 2.6, 4, 4.9, 5, 7} {
		res := mustTrain(t, Config{Model: linear{d: 2}, Data: data, Steps: 1, Optimizer: SGD{LR: 1}, Clip: ClipBatch, ClipNorm: c})
		f := min(1, c/5)
		if got := res.Theta; math.Abs(got[0]+3*f) > 1e-12 || math.Abs(got[1]+4*f) > 1e-12 {
			t.Errorf("C = %v: θ₁ = %v, want −(3, 4)·min(1, C/5) = %v", c, got, []float64{-3 * f, -4 * f})
		}
	}
}

// TestClipHugeGradients: per-example clipping bounds a row's contribution
// by C however large its gradient: norm2 rescales when Σx² overflows, and
// addClipped then scales the row to norm C. A norm2 that dropped the
// rescaling factor in the overflow branch (returning ‖x/max|x|‖, about 1)
// survived every other test, and added a gradient of norm 5·10³⁰⁰
// unclipped: the released θ would be that record.
func TestClipHugeGradients(t *testing.T) {
	for _, tc := range []struct {
		name string
		row  []float64
		norm float64 // exact Euclidean norm
	}{
		{"3-4-5 at 1e300", []float64{3e300, -4e300}, 5e300},
		{"3-4-5 at 1e200", []float64{3e200, 4e200, 0}, 5e200},
		{"one huge entry", []float64{0, -1e308, 0}, 1e308},
		{"ordinary", []float64{3, 4}, 5},
	} {
		if got := norm2(tc.row); math.Abs(got-tc.norm) > 1e-15*tc.norm {
			t.Errorf("%s: norm2 = %v, want %v", tc.name, got, tc.norm)
		}
		for _, c := range []float64{0.5, 2} {
			g := make([]float64, len(tc.row))
			addClipped(g, tc.row, len(tc.row), c)
			if want := min(c, tc.norm); math.Abs(norm2(g)-want) > 1e-14*want {
				t.Errorf("%s, C = %v: clipped row %v has norm %v, want min(C, ‖a‖) = %v", tc.name, c, g, norm2(g), want)
			}
		}
	}
}
