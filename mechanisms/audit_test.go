package mechanisms

import (
	"context"
	"math"
	"testing"

	"github.com/featuredp/featuredp/design"
	"gonum.org/v1/gonum/stat/distuv"
)

// Statistical privacy audit: draw many outputs of a mechanism on two
// neighbouring inputs, run threshold tests "output > t" and turn the
// Clopper–Pearson confidence bounds on the true- and false-positive rates
// into a lower bound on ε that holds with probability ≥ 1 − β:
//
//	ε_lb = max_t log((TPR_lb(t) − δ) / FPR_ub(t))
//
// (Jagielski et al. 2020; Nasr et al. 2021). A correct mechanism must give
// ε_lb ≤ ε; a mechanism with half the noise must be flagged (ε_lb > ε).

const (
	auditSamples = 200000
	auditBeta    = 0.05
)

// clopperPearson returns the one-sided lower and upper (1−a) confidence
// bounds for a binomial proportion with k successes in n trials.
func clopperPearson(k, n int, a float64) (lo, hi float64) {
	lo, hi = 0, 1
	if k > 0 {
		lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(a)
	}
	if k < n {
		hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - a)
	}
	return lo, hi
}

// auditEpsilon returns ε_lb over the thresholds, from samples under the
// neighbour with the record (present) and without it (absent), with a
// Bonferroni split of β over the 2·len(thresholds) bounds.
func auditEpsilon(present, absent []float64, thresholds []float64, delta float64) float64 {
	a := auditBeta / float64(2*len(thresholds))
	best := math.Inf(-1)
	for _, t := range thresholds {
		var tp, fp int
		for _, x := range present {
			if x > t {
				tp++
			}
		}
		for _, x := range absent {
			if x > t {
				fp++
			}
		}
		tprLo, _ := clopperPearson(tp, len(present), a)
		_, fprHi := clopperPearson(fp, len(absent), a)
		if tprLo-delta <= 0 {
			continue
		}
		best = max(best, math.Log((tprLo-delta)/fprHi))
	}
	return best
}

func phiBar(x float64) float64 { return 0.5 * math.Erfc(x/math.Sqrt2) }

// analyticGaussianDelta is δ(ε) of the Gaussian mechanism with sensitivity
// Δ and std σ (Balle & Wang 2018, Thm. 8):
// δ = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ).
func analyticGaussianDelta(eps, sens, sigma float64) float64 {
	a, b := sens/(2*sigma), eps*sigma/sens
	return phiBar(b-a) - math.Exp(eps)*phiBar(a+b)
}

// subsampledGaussianDelta is the exact one-step δ(ε) of the Poisson-
// subsampled Gaussian (rate q, multiplier z, sensitivity 1) in the remove
// direction, P = (1−q)N(0,z²) + qN(1,z²) against Q = N(0,z²) (fdp.md §5
// P12): with x* = z²·log((e^ε−1+q)/q) + ½,
// δ = (1−q)Φ̄(x*/z) + qΦ̄((x*−1)/z) − e^ε Φ̄(x*/z).
func subsampledGaussianDelta(q, z, eps float64) float64 {
	x := z*z*math.Log((math.Expm1(eps)+q)/q) + 0.5
	return (1-q)*phiBar(x/z) + q*phiBar((x-1)/z) - math.Exp(eps)*phiBar(x/z)
}

// bisect finds x in [lo, hi] with f(x) = target for f decreasing.
func bisect(f func(float64) float64, target, lo, hi float64) float64 {
	for range 200 {
		mid := (lo + hi) / 2
		if f(mid) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

func TestAuditFormulas(t *testing.T) {
	// fdp.md P12: exact one-step ε at δ = 1e-5.
	for _, c := range []struct{ q, z, eps float64 }{{0.01, 1, 0.199450}, {0.1, 1, 1.684544}, {0.01, 0.5, 3.025358}, {0.5, 2, 1.353573}} {
		got := bisect(func(e float64) float64 { return subsampledGaussianDelta(c.q, c.z, e) }, 1e-5, 0, 50)
		if math.Abs(got-c.eps) > 1e-5 {
			t.Errorf("subsampled Gaussian (q=%v, z=%v): ε = %.6f, want %.6f", c.q, c.z, got, c.eps)
		}
	}
	// μ-GDP with μ = 1 at ε = 1: δ = 0.1269367 (fdp.md P10).
	if d := analyticGaussianDelta(1, 1, 1); math.Abs(d-0.1269367) > 1e-6 {
		t.Errorf("analytic Gaussian δ(1; σ=1) = %v", d)
	}
}

func TestAuditLaplace(t *testing.T) {
	const eps = 1.0
	run := func(sens float64, seed uint64) float64 {
		rng := NewStreams(seed).Noise()
		present, absent := make([]float64, auditSamples), make([]float64, auditSamples)
		for i := range auditSamples {
			p, err := LaplaceMechanism(rng, []float64{1}, sens, eps)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := LaplaceMechanism(rng, []float64{0}, sens, eps)
			present[i], absent[i] = p[0], a[0]
		}
		return auditEpsilon(present, absent, []float64{0.5, 1, 1.5, 2, 3}, 0)
	}
	lb := run(1, 101)
	t.Logf("Laplace ε=1, Δ=1: ε_lb = %.4f (claimed %.4f)", lb, eps)
	if lb > eps {
		t.Errorf("audit: ε_lb = %v > claimed ε = %v", lb, eps)
	}
	half := run(0.5, 102) // half the noise scale: truly 2-DP
	t.Logf("Laplace with half the noise: ε_lb = %.4f (claimed %.4f)", half, eps)
	if half <= eps {
		t.Errorf("audit failed to flag half noise: ε_lb = %v ≤ %v", half, eps)
	}
}

func TestAuditGaussian(t *testing.T) {
	const eps, delta = 1.0, 1e-5
	sigma := bisect(func(s float64) float64 { return analyticGaussianDelta(eps, 1, s) }, delta, 0.1, 100)
	thresholds := []float64{0.5 * sigma, sigma, 1.5 * sigma, 2 * sigma}
	run := func(s float64, seed uint64) float64 {
		rng := NewStreams(seed).Noise()
		present, absent := make([]float64, auditSamples), make([]float64, auditSamples)
		for i := range auditSamples {
			p, err := GaussianMechanism(rng, []float64{1}, s)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := GaussianMechanism(rng, []float64{0}, s)
			present[i], absent[i] = p[0], a[0]
		}
		return auditEpsilon(present, absent, thresholds, delta)
	}
	lb := run(sigma, 201)
	t.Logf("Gaussian σ=%.4f (analytic, ε=1, δ=1e-5): ε_lb = %.4f", sigma, lb)
	if lb > eps {
		t.Errorf("audit: ε_lb = %v > claimed ε = %v", lb, eps)
	}
	half := run(sigma/2, 202)
	t.Logf("Gaussian with half the noise: ε_lb = %.4f (claimed %.4f)", half, eps)
	if half <= eps {
		t.Errorf("audit failed to flag half noise: ε_lb = %v ≤ %v", half, eps)
	}
}

// TestAuditSubsampledGaussianEngine audits one DP-SGD step of Train: a
// single record whose clipped gradient is 1 (present) or 0 (absent: a
// zero-gradient record is distributed exactly like no record), Poisson
// rate q, noise multiplier z. The gradient does not depend on θ, so each
// of the T steps is an independent draw of the one-step mechanism m·g_t =
// Σ clip + N(0, z²C²), read back from θ_t − θ_{t−1}. The claimed ε is the
// exact one-step ε(δ) of the phase Train reports.
func TestAuditSubsampledGaussianEngine(t *testing.T) {
	const q, z, delta = 0.5, 1.0, 1e-5
	one := mustData(t, []float64{1}, []float64{0}, 1, 1)
	zero := mustData(t, []float64{0}, []float64{0}, 1, 1)
	run := func(data *design.Data, plan *NoisePlan, seed uint64) ([]float64, *Result) {
		out := make([]float64, 0, auditSamples)
		prev := 0.0
		res, err := Train(context.Background(), Config{Model: linear{d: 1}, Data: data, Steps: auditSamples,
			Sampler: Poisson{Rate: q}, Clip: ClipPerExample, ClipNorm: 1, Noise: plan, Optimizer: SGD{LR: 1}, Seed: seed,
			OnStep: func(_ int, th []float64) { out = append(out, (prev-th[0])*q); prev = th[0] }})
		if err != nil {
			t.Fatal(err)
		}
		return out, res
	}
	thresholds := []float64{1, 1.5, 2, 2.5, 3}
	plan, _ := DPSGD(1, z, 1, q)
	present, res := run(one, plan, 301)
	absent, _ := run(zero, plan, 302)
	ph := res.Phases[0]
	if ph.SampleRate != q || ph.NoiseMultiplier != z {
		t.Fatalf("phase %+v", ph)
	}
	claimed := bisect(func(e float64) float64 { return subsampledGaussianDelta(ph.SampleRate, ph.NoiseMultiplier, e) }, delta, 0, 50)
	lb := auditEpsilon(present, absent, thresholds, delta)
	t.Logf("subsampled Gaussian q=%v z=%v (Train): ε_lb = %.4f, claimed one-step ε = %.4f", q, z, lb, claimed)
	if lb > claimed {
		t.Errorf("audit: ε_lb = %v > claimed ε = %v", lb, claimed)
	}

	// Half the noise while claiming z: Train refuses the false claim...
	bad := &NoisePlan{Std: []float64{z / 2 / q}, Multiplier: z}
	if _, err := Train(context.Background(), Config{Model: linear{d: 1}, Data: one, Steps: 1, Sampler: Poisson{Rate: q},
		Clip: ClipPerExample, ClipNorm: 1, Noise: bad, Optimizer: SGD{LR: 1}}); err == nil {
		t.Error("Train accepted a plan claiming twice its noise multiplier")
	}
	// ...and, run without the claim, the audit flags it against z's ε.
	bad.Multiplier = 0
	present, _ = run(one, bad, 303)
	absent, _ = run(zero, bad, 304)
	half := auditEpsilon(present, absent, thresholds, delta)
	t.Logf("subsampled Gaussian with half the noise: ε_lb = %.4f (claimed %.4f)", half, claimed)
	if half <= claimed {
		t.Errorf("audit failed to flag half noise: ε_lb = %v ≤ %v", half, claimed)
	}
}
