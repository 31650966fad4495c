package smoothdp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
	"gonum.org/v1/gonum/floats"
)

func logisticData(rng *rand.Rand, n, d int) *design.Data {
	x := make([]float64, 0, n*d)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		x = append(x, uniformBall(rng, d, 1)...)
		y[i] = float64(rng.IntN(2))
	}
	m, _ := design.NewData(x, y, n, d)
	return m
}

// C22: statistical tests of the noise and the exponential mechanism.
func TestNoiseStatistics(t *testing.T) {
	rng := mechanisms.NewStreams(22).Noise()
	const draws = 100000
	s2, mad := 0.0, 0.0
	for i := 0; i < draws; i++ {
		g, _ := mechanisms.Gaussian(rng, 2)
		s2 += g * g
		l, _ := mechanisms.Laplace(rng, 0.5)
		mad += math.Abs(l)
	}
	if sd := math.Sqrt(s2 / draws); math.Abs(sd-2)/2 > 0.01 {
		t.Errorf("C22 Gaussian sd %v want 2 ± 1%%", sd)
	}
	if m := mad / draws; math.Abs(m-0.5)/0.5 > 0.01 {
		t.Errorf("C22 Laplace MAD %v want 0.5 ± 1%%", m)
	}
	scores := []float64{0, 1, 2, 0.5}
	eps, sens := 1.5, 1.0
	counts := make([]float64, len(scores))
	for i := 0; i < draws; i++ {
		h, err := Exponential(rng, scores, eps, sens)
		if err != nil {
			t.Fatal(err)
		}
		counts[h]++
	}
	z := 0.0
	for _, u := range scores {
		z += math.Exp(eps * u / (2 * sens))
	}
	for h, u := range scores {
		p := math.Exp(eps*u/(2*sens)) / z
		sd := math.Sqrt(p * (1 - p) / draws)
		if math.Abs(counts[h]/draws-p) > 3*sd {
			t.Errorf("C22 exponential h=%d: frequency %v, softmax %v (3σ = %v)", h, counts[h]/draws, p, 3*sd)
		}
	}
	if _, err := Exponential(rng, nil, 1, 1); err == nil {
		t.Error("empty score set accepted")
	}
	if _, err := Exponential(rng, []float64{math.NaN()}, 1, 1); err == nil {
		t.Error("NaN score accepted")
	}
}

// C23: DP-GD with the same noise seed on neighbouring (resp. η-close)
// datasets: the one-step difference of the noisy mean gradients is ≤ 2L/n
// (resp. ≤ βη/n) for logistic loss with ‖x‖ ≤ R = 1, ‖θ‖ ≤ B: L = R, β =
// 1 + RB/4 (docs/smooth-rdp.md, 'Definitions'). Likewise the DP-FGD shift is ≤ γβ‖x_t − x'_t‖.
func TestGradientSensitivity(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 1))
	const n, d, B = 50, 5, 3.0
	model, _ := models.NewLogistic(d, false, 0)
	beta := 1 + B/4
	for trial := 0; trial < 200; trial++ {
		S := logisticData(rng, n, d)
		init := uniformBall(rng, d, B)
		run := func(dd *design.Data, mk func(models.Model, *design.Data, GD) (mechanisms.Config, error)) []float64 {
			cfg, err := mk(model, dd, GD{Sigma: 0.7, Steps: 1, LR: 1, Init: init, Seed: uint64(trial)})
			if err != nil {
				t.Fatal(err)
			}
			res, err := mechanisms.Train(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			return res.Theta
		}
		diff := func(a, b []float64) float64 {
			s := 0.0
			for j := range a {
				s += (a[j] - b[j]) * (a[j] - b[j])
			}
			return math.Sqrt(s)
		}
		// Replace-one neighbour.
		S2, _ := design.NewData(append([]float64(nil), S.X...), append([]float64(nil), S.Y...), n, d)
		i := rng.IntN(n)
		copy(S2.X[i*d:(i+1)*d], uniformBall(rng, d, 1))
		if got := diff(run(S, DPGDConfig), run(S2, DPGDConfig)); got > 2.0/n*(1+1e-12) {
			t.Fatalf("C23 neighbours: mean-gradient shift %v > 2L/n = %v", got, 2.0/n)
		}
		// η-close pair: every point moves, labels fixed.
		S3, _ := design.NewData(append([]float64(nil), S.X...), S.Y, n, d)
		eta := 0.0
		for k := 0; k < n; k++ {
			off := uniformBall(rng, d, 0.05)
			x := S3.X[k*d : (k+1)*d]
			nn := 0.0
			for j := range x {
				x[j] += off[j]
				nn += x[j] * x[j]
			}
			if nn = math.Sqrt(nn); nn > 1 {
				for j := range x {
					x[j] /= nn
				}
			}
			eta += diff(S.X[k*d:(k+1)*d], x)
		}
		if got := diff(run(S, DPGDConfig), run(S3, DPGDConfig)); got > beta*eta/n*(1+1e-12) {
			t.Fatalf("C23 η-close: shift %v > βη/n = %v", got, beta*eta/n)
		}
		// DP-FGD: one step on row 0.
		if got, bound := diff(run(S, DPFGDConfig), run(S3, DPFGDConfig)), beta*diff(S.X[:d], S3.X[:d]); got > bound*(1+1e-12)+1e-15 {
			t.Fatalf("C23 DP-FGD shift %v > γβ‖x−x'‖ = %v", got, bound)
		}
	}
}

func TestTrainConfigurations(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	S := logisticData(rng, 40, 3)
	model, _ := models.NewLogistic(3, false, 0)
	p := GD{Sigma: 0.1, Steps: 20, LR: 0.5, Radius: 2, Seed: 9}
	for name, mk := range map[string]func(models.Model, *design.Data, GD) (mechanisms.Config, error){
		"DP-GD": DPGDConfig, "DP-SGD-sub": DPSGDSubConfig, "DP-FGD": DPFGDConfig,
	} {
		cfg, err := mk(model, S, p)
		if err != nil {
			t.Fatal(name, err)
		}
		a, err := mechanisms.Train(context.Background(), cfg)
		if err != nil {
			t.Fatal(name, err)
		}
		cfg2, _ := mk(model, S, p)
		b, _ := mechanisms.Train(context.Background(), cfg2)
		for j := range a.Theta {
			if a.Theta[j] != b.Theta[j] {
				t.Fatalf("%s not deterministic", name)
			}
		}
		nrm := 0.0
		for _, v := range a.Theta {
			nrm += v * v
		}
		if math.Sqrt(nrm) > 2+1e-12 {
			t.Errorf("%s: θ outside the projection ball", name)
		}
		if name == "DP-SGD-sub" {
			for _, bs := range a.BatchSizes {
				if bs != 1 {
					t.Fatalf("DP-SGD-sub batch size %d", bs)
				}
			}
		}
	}
	res, T, err := DPSGDIter(context.Background(), model, S, p)
	if err != nil || T < 1 || T > 40 || len(res.BatchSizes) != T {
		t.Errorf("DP-SGD-iter: T=%d err=%v", T, err)
	}
	if _, err := DPGDConfig(model, S, GD{Sigma: 0, Steps: 1, LR: 1}); err == nil {
		t.Error("σ = 0 accepted")
	}
	if _, err := DPFGDConfig(model, S, GD{Sigma: 1, Steps: 41, LR: 1}); err == nil {
		t.Error("DP-FGD with T > n accepted")
	}
}

// C18, C19: γ_S has sensitivity ≤ 1 and lower-bounds the replacements
// needed to bring the gap to ĝ.
func TestPTRGamma(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 1))
	const ghat = 0.05
	for trial := 0; trial < 200; trial++ {
		n := 100 + rng.IntN(200)
		S, basis, err := lowRank(rng, n, 4, []float64{0.4}, 0.1, 1)
		if err != nil {
			t.Fatal(err)
		}
		g1, _ := Eigengap(S, 1)
		gam, _ := PTRGamma(n, g1, ghat, 1)
		adv := []float64{basis.At(0, 1), basis.At(1, 1), basis.At(2, 1), basis.At(3, 1)}
		S2 := Replace(S, rng.IntN(n), uniformBall(rng, 4, 1))
		g2, _ := Eigengap(S2, 1)
		gam2, _ := PTRGamma(n, g2, ghat, 1)
		if d := gam - gam2; d > 1 || d < -1 {
			t.Fatalf("C18: |γ_S − γ_S'| = %d > 1", d)
		}
		// C19: replace t < γ_S points adversarially (along the second
		// eigen-direction) or randomly: the gap stays above ĝ.
		if gam > 0 {
			tt := gam - 1
			T := S
			for k := 0; k < tt; k++ {
				x := adv
				if trial%2 == 1 {
					x = uniformBall(rng, 4, 1)
				}
				T = Replace(T, k, x)
			}
			if g, _ := Eigengap(T, 1); !(g > ghat) {
				t.Fatalf("C19: after %d < γ_S = %d replacements the gap is %v ≤ ĝ", tt, gam, g)
			}
		}
	}
}

// C20: with γ_S = 0 the Monte-Carlo release rate is δ/2; end-to-end PTR.
func TestPTRRefusal(t *testing.T) {
	d, model := ptrData(t)
	const trials = 20000
	released := 0
	for i := 0; i < trials; i++ {
		res, err := PTR(context.Background(), PTRConfig{Model: model, Data: d, Rank: 1, GHat: 10, Eps0: 1, Delta: 0.01, R: 1,
			GD: GD{Sigma: 1, Steps: 2, LR: 0.1, Radius: 1, Seed: uint64(i)}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Gamma != 0 {
			t.Fatalf("γ_S = %d, want 0 (ĝ above the gap)", res.Gamma)
		}
		if !res.Refused {
			released++
			if res.Train == nil {
				t.Fatal("released without training")
			}
		}
	}
	rate := float64(released) / trials
	if sd := math.Sqrt(0.005 * 0.995 / trials); math.Abs(rate-0.005) > 4*sd {
		t.Errorf("C20: release rate %v, want δ/2 = 0.005 ± %v", rate, 4*sd)
	}
	res, err := PTR(context.Background(), PTRConfig{Model: model, Data: d, Rank: 1, GHat: 1e-3, Eps0: 5, Delta: 0.01, R: 1,
		GD: GD{Sigma: 1, Steps: 2, LR: 0.1, Radius: 1, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Gamma < 1 {
		t.Errorf("γ_S = %d for gap %v", res.Gamma, res.Gap)
	}
}

func ExampleDPGDConfig() {
	rng := rand.New(rand.NewPCG(1, 1))
	S := logisticData(rng, 100, 3)
	model, _ := models.NewLogistic(3, false, 0)
	cfg, _ := DPGDConfig(model, S, GD{Sigma: 0.05, Steps: 50, LR: 0.5, Radius: 5, Seed: 7})
	res, _ := mechanisms.Train(context.Background(), cfg)
	rdp, _ := DPGDRDP(100, 50, 1, 0.05)
	eps, _, _ := ToApproxDP(rdp, 1e-5)
	fmt.Printf("averaged iterate has %d parameters; (%.2f, 1e-5)-DP (replace-one)\n", len(res.Average), eps)
	// Output: averaged iterate has 3 parameters; (17.57, 1e-5)-DP (replace-one)
}

// ptrData is the low-rank PTR test dataset of TestPTRRefusal.
func ptrData(t *testing.T) (*design.Data, models.Model) {
	rng := rand.New(rand.NewPCG(20, 1))
	S, _, _ := lowRank(rng, 60, 4, []float64{0.3}, 0.2, 1)
	x := make([]float64, 0, 240)
	for _, r := range S {
		x = append(x, r...)
	}
	y := make([]float64, 60)
	for i := range y {
		y[i] = float64(i % 2)
	}
	d, err := design.NewData(x, y, 60, 4)
	if err != nil {
		t.Fatal(err)
	}
	model, _ := models.NewLogistic(4, false, 0)
	return d, model
}

// Secure mode reaches every draw of the smoothdp entry points and is
// labelled: DP-GD and DP-SGD-iter run on the OS CSPRNG (two runs differ;
// they used to default to seed 0), PTR's test is an integer discrete
// Laplace against PTRSecureThreshold, and a mode that does not match the
// streams is an error (it used to run on the secure streams and be
// labelled reproducible).
func TestSmoothDPSecureMode(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 1))
	S := logisticData(rng, 40, 3)
	model, _ := models.NewLogistic(3, false, 0)
	p := GD{Sigma: 0.1, Steps: 5, LR: 0.5, Radius: 2, Mode: mechanisms.Secure}
	cfg, err := DPGDConfig(model, S, p)
	if err != nil || cfg.Mode != mechanisms.Secure {
		t.Fatalf("DPGDConfig mode %v, %v", cfg.Mode, err)
	}
	a, err1 := mechanisms.Train(ctx, cfg)
	b, err2 := mechanisms.Train(ctx, cfg)
	if err1 != nil || err2 != nil || a.Mode != mechanisms.Secure || sameFloats(a.Theta, b.Theta) {
		t.Errorf("Secure DP-GD: modes %v/%v, identical θ %v (%v, %v)", a.Mode, b.Mode, sameFloats(a.Theta, b.Theta), err1, err2)
	}
	it, _, err := DPSGDIter(ctx, model, S, p)
	if err != nil || it.Mode != mechanisms.Secure {
		t.Errorf("Secure DP-SGD-iter: %v, %v", it, err)
	}
	for name, q := range map[string]GD{
		"Reproducible with secure streams": {Sigma: 0.1, LR: 0.5, Streams: mechanisms.NewSecureStreams()},
		"Secure with seeded streams":       {Sigma: 0.1, LR: 0.5, Streams: mechanisms.NewStreams(1), Mode: mechanisms.Secure},
	} {
		if _, _, err := DPSGDIter(ctx, model, S, q); err == nil || !strings.Contains(err.Error(), "GD.Mode") {
			t.Errorf("DP-SGD-iter, %s: %v", name, err)
		}
		d, m := ptrData(t)
		if _, err := PTR(ctx, PTRConfig{Model: m, Data: d, Rank: 1, GHat: 10, Eps0: 1, Delta: 0.01, R: 1, GD: q}); err == nil || !strings.Contains(err.Error(), "GD.Mode") {
			t.Errorf("PTR, %s: %v", name, err)
		}
	}
	d, m := ptrData(t)
	thr, _ := PTRSecureThreshold(0.05, 0.01)
	seen := map[float64]bool{}
	for range 10 {
		res, err := PTR(ctx, PTRConfig{Model: m, Data: d, Rank: 1, GHat: 10, Eps0: 0.05, Delta: 0.01, R: 1,
			GD: GD{Sigma: 1, Steps: 2, LR: 0.1, Radius: 1, Mode: mechanisms.Secure}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Mode != mechanisms.Secure || res.Threshold != float64(thr) || res.Noisy != math.Trunc(res.Noisy) {
			t.Fatalf("Secure PTR: mode %v, threshold %v (want %d), Ĝ = %v not an integer", res.Mode, res.Threshold, thr, res.Noisy)
		}
		seen[res.Noisy] = true
	}
	if len(seen) < 2 {
		t.Errorf("ten Secure PTR runs drew the same noise: %v", seen)
	}
	// γ_S ≥ 1 > threshold 0 at ε₀ = 20: refused with probability ≈ e⁻²⁰.
	res, err := PTR(ctx, PTRConfig{Model: m, Data: d, Rank: 1, GHat: 1e-3, Eps0: 20, Delta: 0.01, R: 1,
		GD: GD{Sigma: 1, Steps: 2, LR: 0.1, Radius: 1, Mode: mechanisms.Secure}})
	if err != nil || res.Gamma < 1 || res.Threshold != 0 || res.Refused || res.Train.Mode != mechanisms.Secure {
		t.Errorf("Secure PTR release: %+v, %v", res, err)
	}
}

// sameFloats reports bit-identical slices.
func sameFloats(a, b []float64) bool {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return len(a) == len(b)
}

// The Secure PTR test keeps the continuous test's failure probability: T is
// the smallest integer with Pr[Y > T] ≤ δ/2 for the discrete Laplace of
// parameter ε₀ (exact tail), and on γ_S = 0 the test passes at that rate
// (seeded draws of the exact sampler, 4 standard errors).
func TestPTRSecureThreshold(t *testing.T) {
	tail := func(m int, eps0 float64) float64 { return math.Exp(-eps0*float64(m)) / (1 + math.Exp(-eps0)) } // Pr[Y ≥ m], m ≥ 1
	for _, eps0 := range []float64{0.01, 0.1, 0.5, 1, 2, 5, 20} {
		for _, delta := range []float64{1e-9, 1e-5, 0.01, 0.3, 0.99} {
			T, err := PTRSecureThreshold(eps0, delta)
			if err != nil {
				t.Fatal(err)
			}
			if tail(T+1, eps0) > delta/2*(1+1e-12) {
				t.Errorf("ε₀ %v δ %v: T = %d has Pr[Y > T] = %v > δ/2", eps0, delta, T, tail(T+1, eps0))
			}
			if T > 0 && tail(T, eps0) <= delta/2*(1-1e-9) {
				t.Errorf("ε₀ %v δ %v: T = %d is not the smallest", eps0, delta, T)
			}
		}
	}
	for _, bad := range [][2]float64{{0, 0.1}, {1, 0}, {1, 1}, {math.Inf(1), 0.1}, {1e-300, 0.1}} {
		if _, err := PTRSecureThreshold(bad[0], bad[1]); err == nil {
			t.Errorf("PTRSecureThreshold(%v, %v) accepted", bad[0], bad[1])
		}
	}
	rng := rand.New(rand.NewPCG(4, 4))
	const n = 20000
	pass := 0
	for range n {
		g, thr, err := ptrTest(mechanisms.Secure, rng, 0, 1, 0.01)
		if err != nil {
			t.Fatal(err)
		}
		if g > thr {
			pass++
		}
	}
	T, _ := PTRSecureThreshold(1, 0.01)
	p := tail(T+1, 1)
	if sd := math.Sqrt(p * (1 - p) / n); math.Abs(float64(pass)/n-p) > 4*sd || p > 0.005 {
		t.Errorf("Secure test passes at rate %v on γ = 0, want %v ± %v (≤ δ/2)", float64(pass)/n, p, 4*sd)
	}
}

// Analyze-Gauss takes the Mode: Reproducible is AnalyzeGauss on the
// "dp-pca" stream bit for bit; Secure releases the noisy second moment on
// a power-of-two grid (floating-point safe), labelled, with the rows'
// radius checked (the sensitivity 2R²/n needs it).
func TestAnalyzeGaussRelease(t *testing.T) {
	d, _ := ptrData(t)
	radius := 0.0
	for i := 0; i < d.N; i++ {
		radius = math.Max(radius, math.Sqrt(floats.Dot(d.X[i*d.D:(i+1)*d.D], d.X[i*d.D:(i+1)*d.D])))
	}
	rep, lab, err := AnalyzeGaussRelease(mechanisms.Reproducible, mechanisms.NewStreams(5), d, 1, 0.01, radius)
	want, _ := AnalyzeGauss(mechanisms.NewStreams(5).Rand("dp-pca"), d, 1, 0.01)
	if err != nil || lab.Mode != mechanisms.Reproducible || !sameFloats(rep.V.RawMatrix().Data, want.V.RawMatrix().Data) {
		t.Fatalf("Reproducible Analyze-Gauss differs from AnalyzeGauss (%v)", err)
	}
	exact, _ := AnalyzeGauss(rand.New(rand.NewPCG(1, 1)), d, 1, 0)
	sec, rel, err := AnalyzeGaussRelease(mechanisms.Secure, nil, d, 1, 1e-4, radius)
	if err != nil {
		t.Fatal(err)
	}
	if rel.Mode != mechanisms.Secure || rel.CheckGranular() != nil || len(rel.Value) != d.D*(d.D+1)/2 || rel.Sensitivity < 2*radius*radius/float64(d.N) {
		t.Errorf("Secure release %+v", rel)
	}
	if c := math.Abs(floats.Dot(sec.V.RawMatrix().Data, exact.V.RawMatrix().Data)); c < 0.99 {
		t.Errorf("Secure top eigenvector |cos| = %v with the exact one at σ = 10⁻⁴", c)
	}
	for name, call := range map[string]func() error{
		"Reproducible, no streams": func() error {
			_, _, err := AnalyzeGaussRelease(mechanisms.Reproducible, nil, d, 1, 0.1, radius)
			return err
		},
		"Reproducible, secure streams": func() error {
			_, _, err := AnalyzeGaussRelease(mechanisms.Reproducible, mechanisms.NewSecureStreams(), d, 1, 0.1, radius)
			return err
		},
		"Secure, seeded streams": func() error {
			_, _, err := AnalyzeGaussRelease(mechanisms.Secure, mechanisms.NewStreams(1), d, 1, 0.1, radius)
			return err
		},
		"Secure, rows outside the ball": func() error {
			_, _, err := AnalyzeGaussRelease(mechanisms.Secure, nil, d, 1, 0.1, radius/2)
			return err
		},
		"unknown mode": func() error { _, _, err := AnalyzeGaussRelease(mechanisms.Mode(4), nil, d, 1, 0.1, radius); return err },
	} {
		if err := call(); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}
