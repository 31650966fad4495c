package accounting

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func corrdpNear(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// C1.
func TestCorrDPLogTerm(t *testing.T) {
	for _, c := range []struct{ delta, want float64 }{{1e-4, 10.210340}, {1e-5, 12.512925}} {
		got, err := CorrDPLogTerm(c.delta)
		if err != nil || !corrdpNear(got, c.want, 1e-6) {
			t.Errorf("CorrDPLogTerm(%g) = %v, %v; want %v", c.delta, got, err, c.want)
		}
	}
	for _, d := range []float64{0, 1, -1, math.NaN()} {
		if _, err := CorrDPLogTerm(d); err == nil {
			t.Errorf("CorrDPLogTerm(%v): no error", d)
		}
	}
}

// C2.
func TestCorrDPAlgorithm1Sigma2(t *testing.T) {
	n := 100
	base, err := CorrDPAlgorithm1Sigma2(1, 1e-5, 1, n*n, n)
	if err != nil || !corrdpNear(base, 12.512925, 1e-6) {
		t.Fatalf("base σ² = %v, %v; want 12.512925", base, err)
	}
	sens := []bool{true, true, false, false, false, false, false, false, false, false}
	tv := make([]float64, 10)
	tv[2], tv[3] = 0.3, 0.01
	w, err := CorrDPNoiseWeights(CorrDPCorr, sens, tv, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		i    int
		want float64
	}{{0, 12.512925}, {2, 3.753878}, {3, 0.500517}} {
		if got := base * w[c.i]; !corrdpNear(got, c.want, 1e-6) {
			t.Errorf("σ²[%d] = %v, want %v", c.i, got, c.want)
		}
	}
	// Scaling: ∝ 1/ε², ∝ T, ∝ 1/n².
	s2, _ := CorrDPAlgorithm1Sigma2(2, 1e-5, 1, n*n, n)
	s3, _ := CorrDPAlgorithm1Sigma2(1, 1e-5, 1, 2*n*n, n)
	s4, _ := CorrDPAlgorithm1Sigma2(1, 1e-5, 1, n*n, 2*n)
	if !corrdpNear(s2, base/4, 1e-12) || !corrdpNear(s3, 2*base, 1e-9) || !corrdpNear(s4, base/4, 1e-12) {
		t.Errorf("scaling: %v %v %v vs base %v", s2, s3, s4, base)
	}
	for _, c := range []struct {
		eps, delta, l float64
		T, n          int
	}{{0, 1e-5, 1, 1, 1}, {1, 0, 1, 1, 1}, {1, 1e-5, 0, 1, 1}, {1, 1e-5, 1, 0, 1}, {1, 1e-5, 1, 1, 0}, {math.NaN(), 1e-5, 1, 1, 1}} {
		if _, err := CorrDPAlgorithm1Sigma2(c.eps, c.delta, c.l, c.T, c.n); err == nil {
			t.Errorf("CorrDPAlgorithm1Sigma2(%+v): no error", c)
		}
	}
}

// C3.
func TestCorrDPNoiseWeightsPaperMode(t *testing.T) {
	const tv0 = 0.363964
	sens := make([]bool, 100)
	tv := make([]float64, 100)
	for i := range sens {
		sens[i] = i < 10
		tv[i] = tv0
	}
	sum := func(w []float64) (s float64) {
		for _, v := range w {
			s += v
		}
		return
	}
	wc, err := CorrDPNoiseWeights(CorrDPCorr, sens, tv, false)
	if err != nil || !corrdpNear(sum(wc), 42.7568, 1e-3) {
		t.Fatalf("Σw CorrDP = %v, %v; want 42.7568", sum(wc), err)
	}
	ws, _ := CorrDPNoiseWeights(CorrDPSemi, sens, nil, false)
	wst, _ := CorrDPNoiseWeights(CorrDPStandard, sens, nil, false)
	if sum(ws) != 10 || sum(wst) != 100 {
		t.Errorf("Σw Semi = %v, Standard = %v", sum(ws), sum(wst))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		m := 1 + r.IntN(20)
		s := make([]bool, m)
		v := make([]float64, m)
		for i := range s {
			s[i] = r.IntN(2) == 0
			v[i] = r.Float64()
		}
		a, _ := CorrDPNoiseWeights(CorrDPSemi, s, v, false)
		b, _ := CorrDPNoiseWeights(CorrDPCorr, s, v, false)
		c, _ := CorrDPNoiseWeights(CorrDPStandard, s, v, false)
		if !(sum(a) <= sum(b) && sum(b) <= sum(c)) {
			t.Fatalf("ordering violated: %v %v %v", sum(a), sum(b), sum(c))
		}
	}
	// TV ≡ 0 → Semi, TV ≡ 1 → Standard, m_s = m → all equal.
	s := []bool{true, false, false}
	w0, _ := CorrDPNoiseWeights(CorrDPCorr, s, []float64{9, 0, 0}, false)
	w1, _ := CorrDPNoiseWeights(CorrDPCorr, s, []float64{0, 1, 1}, false)
	if fmt.Sprint(w0) != "[1 0 0]" || fmt.Sprint(w1) != "[1 1 1]" {
		t.Errorf("extremes: %v %v", w0, w1)
	}
	all := []bool{true, true}
	for _, meth := range []CorrDPMethod{CorrDPStandard, CorrDPSemi, CorrDPCorr} {
		w, _ := CorrDPNoiseWeights(meth, all, []float64{0.3, 0.3}, true)
		if fmt.Sprint(w) != "[1 1]" {
			t.Errorf("%v with m_s = m: %v", meth, w)
		}
	}
	// Errors.
	if _, err := CorrDPNoiseWeights(CorrDPCorr, s, []float64{0, 1.5, 0}, false); err == nil {
		t.Error("TV > 1 accepted")
	}
	if _, err := CorrDPNoiseWeights(CorrDPCorr, s, []float64{0, 1}, false); err == nil {
		t.Error("length mismatch accepted")
	}
	if _, err := CorrDPNoiseWeights(CorrDPCorr, nil, nil, false); err == nil {
		t.Error("empty accepted")
	}
}

// §2.4 paper-mode base variance.
func TestCorrDPPaperSigma0Sq(t *testing.T) {
	got, err := CorrDPPaperSigma0Sq(1, 1, 1e-4)
	if err != nil || !corrdpNear(got, 10.210340, 1e-6) {
		t.Errorf("σ0² = %v, %v", got, err)
	}
	got, _ = CorrDPPaperSigma0Sq(0.5, 0.1, 1e-5)
	if !corrdpNear(got, 0.5*12.512925/0.01, 1e-4) {
		t.Errorf("σ0² = %v", got)
	}
	for _, c := range [][3]float64{{0, 1, 1e-5}, {1, 0, 1e-5}, {1, 1, 2}, {math.Inf(1), 1, 1e-5}} {
		if _, err := CorrDPPaperSigma0Sq(c[0], c[1], c[2]); err == nil {
			t.Errorf("%v accepted", c)
		}
	}
}

// C6.
func TestCorrDPUCB(t *testing.T) {
	for _, c := range []struct {
		n, mU        int
		delta, gamma float64
		want         float64
	}{
		{2000, 90, 1e-4, 0.5, 0.16559},
		{45175, 4, 1e-5, 0.5, 0.03380},
		{45175, 4, 1e-5, 1.0 / 3, 0.20169},
		{10000, 2, 1e-5, 1.0 / 3, 0.32433},
	} {
		got, err := CorrDPUCBTerm(1, c.mU, c.delta, c.n, c.gamma)
		if err != nil || !corrdpNear(got, c.want, 1e-5) {
			t.Errorf("UCB term %+v = %v, %v", c, got, err)
		}
	}
	tv, err := CorrDPUCB([]float64{0.9, 0.5, 0.05}, 0.2, true)
	if err != nil || !corrdpNear(tv[0], 1, 0) || !corrdpNear(tv[1], 0.7, 1e-12) || tv[2] != 0 {
		t.Errorf("UCB = %v, %v; want [1 0.7 0]", tv, err)
	}
	tv, _ = CorrDPUCB([]float64{0.05}, 0.2, false)
	if !corrdpNear(tv[0], 0.25, 1e-12) {
		t.Errorf("UCB without pre-check = %v", tv)
	}
	if _, err := CorrDPUCBTerm(1, 0, 1e-5, 10, 0.5); err == nil {
		t.Error("mU = 0 accepted")
	}
	if _, err := CorrDPUCB([]float64{math.NaN()}, 0.1, false); err == nil {
		t.Error("NaN TV accepted")
	}
	if d, _ := CorrDPEstimatedDelta(1e-5); d != 2e-5 {
		t.Errorf("2δ = %v", d)
	}
}

// C9 (sensitivity part).
func TestCorrDPCorrelatedSensitivity(t *testing.T) {
	n := 1000.0
	d := []float64{1 / n, 1 / n, 1 / n, 1 / n}
	got, err := CorrDPCorrelatedSensitivity(d, []bool{true, false, false, false}, []float64{0, 0.2, 0.5, 0}, 0)
	if err != nil || !corrdpNear(got, 1.7/n, 1e-15) {
		t.Errorf("Δ_C = %v, %v; want %v", got, err, 1.7/n)
	}
	got, _ = CorrDPCorrelatedSensitivity(d, []bool{true, false, false, false}, []float64{0, 1, 1, 1}, 2/n)
	if !corrdpNear(got, 2/n, 1e-15) {
		t.Errorf("Δ_C capped by Δ = %v", got)
	}
	if _, err := CorrDPCorrelatedSensitivity(d, []bool{true}, nil, 0); err == nil {
		t.Error("mismatch accepted")
	}
	acc, _ := CorrDPLaplaceAccuracy(1.7/n, 1, 0.05, 4)
	if !corrdpNear(acc, 1.7/n*math.Log(80), 1e-15) {
		t.Errorf("accuracy radius %v", acc)
	}
}

// C10.
func TestCorrDPGaussianRenyi(t *testing.T) {
	for _, a := range []float64{0.5, 2, 3.5, 10} {
		got, _ := CorrDPGaussianRenyi(a, 0, 1, 1, 1)
		if !corrdpNear(got, a/2, 1e-12) {
			t.Errorf("D_%v(N(0,1)||N(1,1)) = %v", a, got)
		}
	}
	got, _ := CorrDPGaussianRenyi(2, 0, 1, 0, math.Sqrt2)
	if !corrdpNear(got, 0.1438410, 1e-7) {
		t.Errorf("D_2 = %v", got)
	}
	kl, _ := CorrDPGaussianRenyi(1, 0, 1, 0, math.Sqrt2)
	near1, _ := CorrDPGaussianRenyi(1+1e-6, 0, 1, 0, math.Sqrt2)
	if !corrdpNear(kl, 0.0965736, 1e-7) || !corrdpNear(near1, kl, 1e-6) {
		t.Errorf("KL = %v, D_{1+1e-6} = %v", kl, near1)
	}
	// λ·D_{λ+1} = λ(λ+1)/2 Σ (Δμ_i/σ_i)² for diagonal equal covariances.
	dm, sig := []float64{0.3, -1, 2}, []float64{1, 2, 0.5}
	lam := 4.0
	var sum, want float64
	for i := range dm {
		d, _ := CorrDPGaussianRenyi(lam+1, dm[i], sig[i], 0, sig[i])
		sum += d
		want += dm[i] * dm[i] / (sig[i] * sig[i])
	}
	if !corrdpNear(lam*sum, lam*(lam+1)/2*want, 1e-9) {
		t.Errorf("λD = %v, want %v", lam*sum, lam*(lam+1)/2*want)
	}
	if _, err := CorrDPGaussianRenyi(0, 0, 1, 0, 1); err == nil {
		t.Error("α = 0 accepted")
	}
}

// C11: Lemma A.9 inequality (a property of the proof's algebra).
func TestCorrDPLemmaA9(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 2000; trial++ {
		lam := 0.1 + 20*r.Float64()
		u := 0.1 + 10*r.Float64()
		c := 0.1 + 5*r.Float64()
		n := math.Ceil(10*c*math.Max(lam, 1)/u) * (1 + 10*r.Float64())
		v := u + (2*r.Float64()-1)*c/n
		lhs := (lam+1)*math.Log(u) - lam*math.Log(v) - math.Log((lam+1)*u-lam*v)
		rhs := 2 * lam * (lam + 1) * c * c / (3 * n * n * u * u)
		if lhs > rhs*(1+1e-9)+1e-15 {
			t.Fatalf("λ=%v u=%v v=%v C=%v n=%v: %v > %v", lam, u, v, c, n, lhs, rhs)
		}
	}
	if x := -0.1; !(-math.Log1p(x) <= -x+2.0/3*x*x) {
		t.Error("−log(1+x) bound at −0.1")
	}
}

// C12 and the corrected Thm. 3.9 sum (§6.7).
func TestCorrDPBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 500; trial++ {
		k := 1 + r.IntN(30)
		tv := make([]float64, k)
		var sum, mx float64
		for i := range tv {
			tv[i] = r.Float64()
			sum += tv[i]
			mx = math.Max(mx, tv[i])
		}
		_, mid, err := CorrDPLowerBound(3, tv, 1, 100)
		if err != nil || !(mx*mx <= mid+1e-12 && mid <= sum+1e-12) {
			t.Fatalf("sandwich %v ≤ %v ≤ %v (%v)", mx*mx, mid, sum, err)
		}
		rate, bound, std, err := CorrDPUtilityRate(3, tv, 1, 1e-5, 100)
		if err != nil || rate > bound*(1+1e-12) || rate > std*(1+1e-12) {
			t.Fatalf("rate %v bound %v standard %v (%v)", rate, bound, std, err)
		}
	}
	lb, _, _ := CorrDPLowerBound(1, []float64{1}, 1e-9, 1)
	if lb != 1 {
		t.Errorf("lower bound cap: %v", lb)
	}
}

// C18: the honest zCDP ε of Algorithm 1's noise; TV scaling suffices, TV²
// scaling does not.
func TestCorrDPHonesty(t *testing.T) {
	const delta = 1e-5
	n := 1000
	for _, eps := range []float64{0.1, 0.5, 1, 2, 5} {
		T := 500
		s2, _ := CorrDPAlgorithm1Sigma2(eps, delta, 1, T, n)
		for _, c := range []struct {
			nb   CorrDPNeighbour
			a, b float64
		}{{CorrDPReplaceOne, 2.7131, 0.1598}, {CorrDPAddRemove, 1.3565, 0.0400}} {
			rows, err := CorrDPHonesty([]float64{s2}, []bool{true}, []float64{0}, 1, n, T, eps, delta, c.nb, false)
			if err != nil {
				t.Fatal(err)
			}
			want := c.a*eps + c.b*eps*eps
			if !corrdpNear(rows[0].Eps, want, 2e-4*math.Max(1, want)) {
				t.Errorf("ε=%v %v: ε_actual %v, want %v", eps, c.nb, rows[0].Eps, want)
			}
			if rows[0].Holds {
				t.Errorf("ε=%v: the paper's constant cannot give ε_actual ≤ ε", eps)
			}
		}
	}
	// TV scaling: ε_U(i) ≤ ε_S/TV(i); TV² scaling violates it for TV < 1.
	for _, tv := range []float64{0.01, 0.1, 0.3, 0.7, 0.99, 1} {
		s0 := 3.0
		for _, pow := range []float64{1, 2} {
			rows, err := CorrDPHonesty([]float64{s0, s0 * math.Pow(tv, pow)}, []bool{true, false}, []float64{0, tv}, 1, 100, 50, 1, delta, CorrDPAddRemove, false)
			if err != nil {
				t.Fatal(err)
			}
			epsS, epsU := rows[0].Eps, rows[1].Eps
			ok := epsU <= epsS/tv*(1+1e-12)
			if pow == 1 && !ok {
				t.Errorf("TV=%v: variance ∝ TV gives ε_U %v > ε_S/TV %v", tv, epsU, epsS/tv)
			}
			if pow == 2 && tv < 1 && ok {
				t.Errorf("TV=%v: variance ∝ TV² should violate ε_U ≤ ε_S/TV (%v vs %v)", tv, epsU, epsS/tv)
			}
		}
	}
	// Leakage model: Semi has ρ = +Inf.
	rows, _ := CorrDPHonesty([]float64{1, 0}, []bool{true, false}, []float64{0, 0}, 1, 10, 1, 1, delta, CorrDPReplaceOne, true)
	if !math.IsInf(rows[0].Eps, 1) {
		t.Errorf("Semi with leakage: %+v", rows[0])
	}
	if _, err := CorrDPHonesty(nil, nil, nil, 1, 1, 1, 1, delta, CorrDPReplaceOne, false); err == nil {
		t.Error("empty accepted")
	}
}

func ExampleCorrDPNoiseWeights() {
	sensitive := []bool{true, true, false, false}
	tv := []float64{0, 0, 0.3, 0.01}
	paper, _ := CorrDPNoiseWeights(CorrDPCorr, sensitive, tv, false)
	theory, _ := CorrDPNoiseWeights(CorrDPCorr, sensitive, tv, true)
	s0, _ := CorrDPPaperSigma0Sq(1, 1, 1e-5)
	fmt.Println(paper, theory)
	fmt.Printf("σ0² = %.6f\n", s0)
	// Output:
	// [1 1 0.3 0.01] [1 1 0.3 0.25]
	// σ0² = 12.512925
}
