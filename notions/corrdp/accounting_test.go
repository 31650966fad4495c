package corrdp

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/accounting"
)

func approxEqual(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// C1.
func TestLogTerm(t *testing.T) {
	for _, c := range []struct{ delta, want float64 }{{1e-4, 10.210340}, {1e-5, 12.512925}} {
		got, err := LogTerm(c.delta)
		if err != nil || !approxEqual(got, c.want, 1e-6) {
			t.Errorf("LogTerm(%g) = %v, %v; want %v", c.delta, got, err, c.want)
		}
	}
	for _, d := range []float64{0, 1, -1, math.NaN()} {
		if _, err := LogTerm(d); err == nil {
			t.Errorf("LogTerm(%v): no error", d)
		}
	}
}

// C2.
func TestAlgorithm1Sigma2(t *testing.T) {
	n := 100
	base, err := Algorithm1Sigma2(1, 1e-5, 1, n*n, n)
	if err != nil || !approxEqual(base, 12.512925, 1e-6) {
		t.Fatalf("base σ² = %v, %v; want 12.512925", base, err)
	}
	sens := []bool{true, true, false, false, false, false, false, false, false, false}
	tv := make([]float64, 10)
	tv[2], tv[3] = 0.3, 0.01
	w, err := NoiseWeights(Corr, sens, tv, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		i    int
		want float64
	}{{0, 12.512925}, {2, 3.753878}, {3, 0.500517}} {
		if got := base * w[c.i]; !approxEqual(got, c.want, 1e-6) {
			t.Errorf("σ²[%d] = %v, want %v", c.i, got, c.want)
		}
	}
	// Scaling: ∝ 1/ε², ∝ T, ∝ 1/n².
	s2, _ := Algorithm1Sigma2(2, 1e-5, 1, n*n, n)
	s3, _ := Algorithm1Sigma2(1, 1e-5, 1, 2*n*n, n)
	s4, _ := Algorithm1Sigma2(1, 1e-5, 1, n*n, 2*n)
	if !approxEqual(s2, base/4, 1e-12) || !approxEqual(s3, 2*base, 1e-9) || !approxEqual(s4, base/4, 1e-12) {
		t.Errorf("scaling: %v %v %v vs base %v", s2, s3, s4, base)
	}
	for _, c := range []struct {
		eps, delta, l float64
		T, n          int
	}{{0, 1e-5, 1, 1, 1}, {1, 0, 1, 1, 1}, {1, 1e-5, 0, 1, 1}, {1, 1e-5, 1, 0, 1}, {1, 1e-5, 1, 1, 0}, {math.NaN(), 1e-5, 1, 1, 1}} {
		if _, err := Algorithm1Sigma2(c.eps, c.delta, c.l, c.T, c.n); err == nil {
			t.Errorf("Algorithm1Sigma2(%+v): no error", c)
		}
	}
}

// Paper-mode base variance (Sec. 5).
func TestSigma0Sq(t *testing.T) {
	got, err := Sigma0Sq(1, 1, 1e-4)
	if err != nil || !approxEqual(got, 10.210340, 1e-6) {
		t.Errorf("σ0² = %v, %v", got, err)
	}
	got, _ = Sigma0Sq(0.5, 0.1, 1e-5)
	if !approxEqual(got, 0.5*12.512925/0.01, 1e-4) {
		t.Errorf("σ0² = %v", got)
	}
	for _, c := range [][3]float64{{0, 1, 1e-5}, {1, 0, 1e-5}, {1, 1, 2}, {math.Inf(1), 1, 1e-5}} {
		if _, err := Sigma0Sq(c[0], c[1], c[2]); err == nil {
			t.Errorf("%v accepted", c)
		}
	}
}

// C6.
func TestUCB(t *testing.T) {
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
		got, err := UCBTerm(1, c.mU, c.delta, c.n, c.gamma)
		if err != nil || !approxEqual(got, c.want, 1e-5) {
			t.Errorf("UCB term %+v = %v, %v", c, got, err)
		}
	}
	tv, err := UCB([]float64{0.9, 0.5, 0.05}, 0.2, true)
	if err != nil || !approxEqual(tv[0], 1, 0) || !approxEqual(tv[1], 0.7, 1e-12) || tv[2] != 0 {
		t.Errorf("UCB = %v, %v; want [1 0.7 0]", tv, err)
	}
	tv, _ = UCB([]float64{0.05}, 0.2, false)
	if !approxEqual(tv[0], 0.25, 1e-12) {
		t.Errorf("UCB without pre-check = %v", tv)
	}
	if _, err := UCBTerm(1, 0, 1e-5, 10, 0.5); err == nil {
		t.Error("mU = 0 accepted")
	}
	if _, err := UCB([]float64{math.NaN()}, 0.1, false); err == nil {
		t.Error("NaN TV accepted")
	}
	if d, _ := EstimatedDelta(1e-5); d != 2e-5 {
		t.Errorf("2δ = %v", d)
	}
}

// C9 (sensitivity part).
func TestCorrelatedSensitivity(t *testing.T) {
	n := 1000.0
	d := []float64{1 / n, 1 / n, 1 / n, 1 / n}
	got, err := CorrelatedSensitivity(d, []bool{true, false, false, false}, []float64{0, 0.2, 0.5, 0}, 0)
	if err != nil || !approxEqual(got, 1.7/n, 1e-15) {
		t.Errorf("Δ_C = %v, %v; want %v", got, err, 1.7/n)
	}
	got, _ = CorrelatedSensitivity(d, []bool{true, false, false, false}, []float64{0, 1, 1, 1}, 2/n)
	if !approxEqual(got, 2/n, 1e-15) {
		t.Errorf("Δ_C capped by Δ = %v", got)
	}
	if _, err := CorrelatedSensitivity(d, []bool{true}, nil, 0); err == nil {
		t.Error("mismatch accepted")
	}
	acc, _ := LaplaceAccuracy(1.7/n, 1, 0.05, 4)
	if !approxEqual(acc, 1.7/n*math.Log(80), 1e-15) {
		t.Errorf("accuracy radius %v", acc)
	}
}

// C10.
func TestGaussianRenyi(t *testing.T) {
	for _, a := range []float64{0.5, 2, 3.5, 10} {
		got, _ := GaussianRenyi(a, 0, 1, 1, 1)
		if !approxEqual(got, a/2, 1e-12) {
			t.Errorf("D_%v(N(0,1)||N(1,1)) = %v", a, got)
		}
	}
	got, _ := GaussianRenyi(2, 0, 1, 0, math.Sqrt2)
	if !approxEqual(got, 0.1438410, 1e-7) {
		t.Errorf("D_2 = %v", got)
	}
	kl, _ := GaussianRenyi(1, 0, 1, 0, math.Sqrt2)
	near1, _ := GaussianRenyi(1+1e-6, 0, 1, 0, math.Sqrt2)
	if !approxEqual(kl, 0.0965736, 1e-7) || !approxEqual(near1, kl, 1e-6) {
		t.Errorf("KL = %v, D_{1+1e-6} = %v", kl, near1)
	}
	// λ·D_{λ+1} = λ(λ+1)/2 Σ (Δμ_i/σ_i)² for diagonal equal covariances.
	dm, sig := []float64{0.3, -1, 2}, []float64{1, 2, 0.5}
	lam := 4.0
	var sum, want float64
	for i := range dm {
		d, _ := GaussianRenyi(lam+1, dm[i], sig[i], 0, sig[i])
		sum += d
		want += dm[i] * dm[i] / (sig[i] * sig[i])
	}
	if !approxEqual(lam*sum, lam*(lam+1)/2*want, 1e-9) {
		t.Errorf("λD = %v, want %v", lam*sum, lam*(lam+1)/2*want)
	}
	if _, err := GaussianRenyi(0, 0, 1, 0, 1); err == nil {
		t.Error("α = 0 accepted")
	}
}

// C18: the honest zCDP ε of Algorithm 1's noise; TV scaling suffices, TV²
// scaling does not.
func TestHonesty(t *testing.T) {
	const delta = 1e-5
	n := 1000
	for _, eps := range []float64{0.1, 0.5, 1, 2, 5} {
		T := 500
		s2, _ := Algorithm1Sigma2(eps, delta, 1, T, n)
		for _, c := range []struct {
			nb   accounting.Relation
			a, b float64
		}{{accounting.RelationReplaceOne, 2.7131, 0.1598}, {accounting.RelationAddRemove, 1.3565, 0.0400}} {
			rows, err := Honesty([]float64{s2}, []bool{true}, []float64{0}, 1, n, T, eps, delta, c.nb, false)
			if err != nil {
				t.Fatal(err)
			}
			want := c.a*eps + c.b*eps*eps
			if !approxEqual(rows[0].Eps, want, 2e-4*math.Max(1, want)) {
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
			rows, err := Honesty([]float64{s0, s0 * math.Pow(tv, pow)}, []bool{true, false}, []float64{0, tv}, 1, 100, 50, 1, delta, accounting.RelationAddRemove, false)
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
	rows, _ := Honesty([]float64{1, 0}, []bool{true, false}, []float64{0, 0}, 1, 10, 1, 1, delta, accounting.RelationReplaceOne, true)
	if !math.IsInf(rows[0].Eps, 1) {
		t.Errorf("Semi with leakage: %+v", rows[0])
	}
	if _, err := Honesty(nil, nil, nil, 1, 1, 1, 1, delta, accounting.RelationReplaceOne, false); err == nil {
		t.Error("empty accepted")
	}
}

func ExampleNoiseWeights() {
	sensitive := []bool{true, true, false, false}
	tv := []float64{0, 0, 0.3, 0.01}
	paper, _ := NoiseWeights(Corr, sensitive, tv, false)
	theory, _ := NoiseWeights(Corr, sensitive, tv, true)
	s0, _ := Sigma0Sq(1, 1, 1e-5)
	fmt.Println(paper, theory)
	fmt.Printf("σ0² = %.6f\n", s0)
	// Output:
	// [1 1 0.3 0.01] [1 1 0.3 0.25]
	// σ0² = 12.512925
}

// TestHonestyLedgerMatchesFormula: Honesty's ε now comes from a ledger's
// zCDP route; it equals the formula it replaced, ρ + 2√(ρ log(1/δ)) with
// ρ = T·Δ²/(2σ_min²) written out here, to 1e-12 relative. ρ is the same
// float64 (one entry: the ledger's Σρ adds it to 0 exactly); ε may differ
// in the last bits only because the ledger takes −log δ where the old
// code took log(1/δ) (1/δ is rounded, a relative error ≤ 2⁻⁵³ in the log's
// argument).
func TestHonestyLedgerMatchesFormula(t *testing.T) {
	for _, c := range []struct {
		name      string
		sigma2    []float64
		sensitive []bool
		tv        []float64
		n, steps  int
		delta     float64
		rel       accounting.Relation
		leakage   bool
	}{
		{"one step, replace-one", []float64{12.5, 12.5 * 0.3, 12.5 * 0.05}, []bool{true, false, false}, []float64{0, 0.3, 0.05}, 1000, 1, 1e-5, accounting.RelationReplaceOne, false},
		{"500 steps, add/remove", []float64{0.02, 0.001, 0.04}, []bool{true, false, true}, []float64{0, 0.7, 0}, 300, 500, 1e-6, accounting.RelationAddRemove, false},
		{"leakage", []float64{2, 0.5, 1}, []bool{false, true, false}, []float64{0.2, 0, 0.9}, 50, 20, 1e-3, accounting.RelationReplaceOne, true},
		{"odd δ", []float64{3}, []bool{true}, []float64{0}, 7, 3, 0.3, accounting.RelationReplaceOne, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows, err := Honesty(c.sigma2, c.sensitive, c.tv, 1, c.n, c.steps, 1, c.delta, c.rel, c.leakage)
			if err != nil {
				t.Fatal(err)
			}
			sens := 1 / float64(c.n)
			if c.rel == accounting.RelationReplaceOne {
				sens = 2 / float64(c.n)
			}
			for _, r := range rows {
				minVar := math.Inf(1)
				for i, s := range c.sigma2 {
					if c.leakage || (r.Coord < 0 && c.sensitive[i]) || i == r.Coord {
						minVar = math.Min(minVar, s)
					}
				}
				rho := float64(c.steps) * sens * sens / (2 * minVar)
				eps := rho + 2*math.Sqrt(rho*math.Log(1/c.delta))
				if r.Rho != rho {
					t.Errorf("%s: ρ = %v, formula %v", r.Change, r.Rho, rho)
				}
				if math.Abs(r.Eps-eps) > 1e-12*eps {
					t.Errorf("%s: ε = %v, formula %v (relative %g)", r.Change, r.Eps, eps, math.Abs(r.Eps-eps)/eps)
				}
			}
		})
	}
}

// TestNoiseLoss: the plan's honest loss is ρ-zCDP under the relation asked
// for, with ρ = T·Δ²/(2σ_min²), and descriptive errors otherwise.
func TestNoiseLoss(t *testing.T) {
	x := Noise{Sigma2: []float64{4, 0.25, 0}, Sensitive: []bool{true, false, false}, Lipschitz: 2, N: 10, Steps: 3}
	for _, c := range []struct {
		name    string
		change  int
		rel     accounting.Relation
		leakage bool
		rho     float64 // 0: an error containing want
		want    string
	}{
		{"sensitive, replace-one", SensitiveChange, accounting.RelationReplaceOne, false, 3 * 0.4 * 0.4 / 8, ""},
		{"sensitive, add/remove", SensitiveChange, accounting.RelationAddRemove, false, 3 * 0.2 * 0.2 / 8, ""},
		{"insensitive 1", 1, accounting.RelationReplaceOne, false, 3 * 0.4 * 0.4 / 0.5, ""},
		{"insensitive 2 has no noise", 2, accounting.RelationReplaceOne, false, 0, "without noise"},
		{"leakage reaches σ = 0", SensitiveChange, accounting.RelationReplaceOne, true, 0, "without noise"},
		{"a sensitive coordinate is not an insensitive change", 0, accounting.RelationReplaceOne, false, 0, "neither SensitiveChange"},
		{"out of range", 3, accounting.RelationReplaceOne, false, 0, "neither SensitiveChange"},
		{"label relation", SensitiveChange, accounting.RelationLabel, false, 0, "relation label"},
	} {
		t.Run(c.name, func(t *testing.T) {
			y := x
			y.Leakage = c.leakage
			l, err := y.Loss(c.change, c.rel)
			if c.rho == 0 {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("error %v, want it to contain %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rho, ok := l.Rho()
			if !ok || math.Abs(rho-c.rho) > 1e-15*c.rho || l.Kind() != accounting.LossZCDP || l.Relation() != c.rel {
				t.Errorf("loss %v (ρ %v, relation %v), want ρ = %v under %v", l, rho, l.Relation(), c.rho, c.rel)
			}
		})
	}
	if _, err := (Noise{Sigma2: []float64{1}, Sensitive: []bool{true}, Lipschitz: 1, N: 0, Steps: 1}).Loss(SensitiveChange, accounting.RelationReplaceOne); err == nil {
		t.Error("n = 0 accepted")
	}
}

// StationaryGap: 0.5·α·tr((2I − αH)⁻¹ diag σ²) for a diagonal H, and a
// shape mismatch refused.
func TestStationaryGapErrors(t *testing.T) {
	if _, err := StationaryGap([]float64{1}, 2, 0.1, []float64{1, 1}); err == nil {
		t.Error("shape mismatch accepted")
	}
	g, err := StationaryGap([]float64{2, 0, 0, 2}, 2, 0.1, []float64{1, 3})
	if err != nil || math.Abs(g-0.5*0.1*(1+3)/1.8) > 1e-12 {
		t.Errorf("gap %v, %v", g, err)
	}
}
