package audit

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// SubsampledGaussianLLR is log(1 − q + q·e^a), a = (2g − 1)/(2z²), finite
// where the direct formula overflows.
func TestSubsampledGaussianLLR(t *testing.T) {
	for _, c := range []struct{ g, q, z float64 }{
		{0, 0.1, 2}, {0.5, 0.1, 2}, {1, 0.1, 2}, {-3, 0.1, 2}, {4, 0.01, 0.5}, {-10, 0.5, 1}, {0.3, 1, 1},
	} {
		a := (2*c.g - 1) / (2 * c.z * c.z)
		want := math.Log(1 - c.q + c.q*math.Exp(a))
		if got := SubsampledGaussianLLR(c.g, c.q, c.z); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("LLR(%v, %v, %v) = %v, want %v", c.g, c.q, c.z, got, want)
		}
	}
	// Far in the tail e^a overflows; the LLR is a + log q.
	if got, want := SubsampledGaussianLLR(1e3, 0.1, 0.5), (2e3-1)/0.5+math.Log(0.1); math.IsInf(got, 0) || math.Abs(got-want) > 1e-9*want {
		t.Errorf("LLR far in the tail = %v, want %v", got, want)
	}
}

// CanaryLLR sums, per canary coordinate, the LLR of each step's change
// scaled by Scale; coordinates outside [Offset, Offset+len(Stats)) are
// ignored, and canaries beyond θ are an error.
func TestCanaryLLR(t *testing.T) {
	const q, z, scale = 0.1, 2.0, 5.0
	thetas := [][]float64{{9, 0, 0}, {7, -0.2, 0.1}, {-4, -0.1, 0.5}}
	stats := []float64{42, 42} // zeroed by NewCanaryLLR
	c, err := NewCanaryLLR(q, z, scale, 1, []float64{3, 0, 0}, stats)
	if err != nil {
		t.Fatal(err)
	}
	for i, th := range thetas {
		c.OnStep(i+1, th)
	}
	for j := range 2 {
		want, prev := 0.0, 0.0
		for _, th := range thetas {
			want += SubsampledGaussianLLR(-(th[1+j]-prev)*scale, q, z)
			prev = th[1+j]
		}
		if math.Abs(stats[j]-want) > 1e-12 {
			t.Errorf("canary %d: %v, want %v", j, stats[j], want)
		}
	}
	if _, err := NewCanaryLLR(q, z, scale, 2, make([]float64, 3), make([]float64, 2)); err == nil || !strings.Contains(err.Error(), "beyond the 3 parameters") {
		t.Errorf("canaries beyond θ: %v", err)
	}
}

// laplaceBatch is the Laplace audit's trial run len(out) times per call,
// optionally with a shift shared by the whole batch (coupled trials).
func laplaceBatch(eps float64, coupled bool) BatchFunc {
	one := laplaceSpec().Real
	if eps != 1 {
		one = laplaceSpec().Control
	}
	return func(rng *rand.Rand, present bool, out []float64) error {
		shift := 0.0
		if coupled {
			shift = 10 * rng.NormFloat64()
		}
		for j := range out {
			v, err := one(rng, present)
			if err != nil {
				return err
			}
			out[j] = v + shift
		}
		return nil
	}
}

// A spec with PerRun trials per run gives the bound of the same trials run
// one by one (here: the Laplace audit, ε_lb ≤ 1, control flagged), with
// Trials not a multiple of PerRun; a failing run names its trials.
func TestRunBatch(t *testing.T) {
	s := laplaceSpec()
	s.Real, s.Control, s.RealBatch, s.ControlBatch, s.PerRun = nil, nil, laplaceBatch(1, false), laplaceBatch(2, false), 64
	r, err := Run(context.Background(), s, Options{Seed: 3, Trials: 20_001})
	if err != nil {
		t.Fatal(err)
	}
	if r.EpsilonLB > r.ClaimedEpsilon || !r.ControlFlagged || r.Trials != 20_001 {
		t.Errorf("batched Laplace audit: %+v", r)
	}
	if r7, err := Run(context.Background(), s, Options{Seed: 3, Trials: 20_001, Workers: 7}); err != nil || r7 != r {
		t.Errorf("7 workers: %+v, %v; 2 workers: %+v", r7, err, r)
	}
	s.RealBatch = func(_ *rand.Rand, present bool, out []float64) error {
		if present {
			return errors.New("boom")
		}
		return nil
	}
	if _, err := Run(context.Background(), s, Options{Trials: 1000}); err == nil || !strings.Contains(err.Error(), "run 16 (trials 1024–1087): boom") {
		t.Errorf("failing run: %v", err)
	}
	s.RealBatch = func(_ *rand.Rand, _ bool, out []float64) error { out[3] = math.NaN(); return nil }
	if _, err := Run(context.Background(), s, Options{Trials: 1000}); err == nil || !strings.Contains(err.Error(), "NaN statistic") {
		t.Errorf("NaN in a batch: %v", err)
	}
	for _, bad := range []Spec{{Name: "x", Claimed: 1, PerRun: 5, RealBatch: s.RealBatch}, {Name: "x", Claimed: 1, PerRun: -1, Real: s.Real, Control: s.Control}} {
		if _, err := Run(context.Background(), bad, Options{}); err == nil {
			t.Errorf("spec %+v accepted", bad)
		}
	}
}

// batchDependence is Var(Σ_j s_j)/(k·Var(s)) over runs of k trials on D′:
// about 1 when a run's trials are independent, about k when they share
// their noise.
func batchDependence(t *testing.T, fn BatchFunc, k, runs int) float64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	sums := make([]float64, runs)
	all := make([]float64, 0, k*runs)
	out := make([]float64, k)
	for r := range sums {
		if err := fn(rng, true, out); err != nil {
			t.Fatal(err)
		}
		for _, v := range out {
			sums[r] += v
		}
		all = append(all, out...)
	}
	return variance(sums) / (float64(k) * variance(all))
}

func variance(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return s / float64(len(x)-1)
}

// The Dirac canaries of one DP-SGD run are independent trials (the
// assumption of the batched audit): the variance of a run's sum is k
// times a trial's. A batch whose trials share a shift is caught.
func TestDiracCanariesIndependent(t *testing.T) {
	if r := batchDependence(t, laplaceBatch(1, true), 50, 200); r < 5 {
		t.Fatalf("coupled batch: variance ratio %.2f, want ≫ 1 (the check cannot fail)", r)
	}
	runs := 200
	if testing.Short() {
		runs = 60
	}
	// The ratio of two variance estimates from `runs` sums: within ±50% is
	// over 3 standard errors (√(2/runs) ≈ 0.1 at 200 runs).
	r := batchDependence(t, dpsgdRun(dpsgdZ), dpsgdCanaries, runs)
	t.Logf("DP-SGD canaries: variance ratio %.3f over %d runs", r, runs)
	if r < 0.5 || r > 1.6 {
		t.Errorf("DP-SGD canaries: variance ratio %.2f, want ≈ 1 (independent trials)", r)
	}
}
