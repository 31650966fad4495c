package bcdp

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/audit"
	"github.com/featuredp/featuredp/mechanisms"
	"gonum.org/v1/gonum/mat"
)

func testVec(D int) []float64 {
	v := make([]float64, D)
	for i := range v {
		v[i] = 0.6
		if i%2 == 1 {
			v[i] = -0.6
		}
	}
	return v
}

// C2: ‖Z‖ = B always and P(⟨Z, ṽ⟩ > 0) = e^α/(e^α+1).
func TestDuchiNormAndSide(t *testing.T) {
	rng := mechanisms.NewStreams(1).Noise()
	ch, err := NewDuchi(3, math.Sqrt(3), 1, false)
	if err != nil {
		t.Fatal(err)
	}
	v := []float64{1, -1, 1} // ‖v‖ = r: ṽ = v
	z := make([]float64, 3)
	pos := 0
	const N = 1000000
	for s := 0; s < N; s++ {
		if _, err := ch.Sample(rng, v, z); err != nil {
			t.Fatal(err)
		}
		n := math.Sqrt(z[0]*z[0] + z[1]*z[1] + z[2]*z[2])
		if math.Abs(n/ch.B-1) > 1e-9 {
			t.Fatalf("‖Z‖ = %v, want B = %v", n, ch.B)
		}
		if z[0]-z[1]+z[2] > 0 {
			pos++
		}
	}
	if p := float64(pos) / N; math.Abs(p-0.731059) > 0.002 {
		t.Errorf("P(⟨Z,ṽ⟩ > 0) = %v, want 0.731059", p)
	}
}

// C3, C4: E[Z] = v (unbiased constant), E[Z] = 2v (paper constant),
// E[Z_i²] = B²/D, E[Z_i Z_j] = 0.
func TestDuchiMoments(t *testing.T) {
	for _, D := range []int{1, 2, 3, 10} {
		for _, paper := range []bool{false, true} {
			N := 2000000
			if paper {
				N = 200000
			}
			ch, err := NewDuchi(D, math.Sqrt(float64(D)), 1, paper)
			if err != nil {
				t.Fatal(err)
			}
			v := testVec(D)
			rng := mechanisms.NewStreams(uint64(D)).Derive("moments").Noise()
			sum := make([]float64, D)
			sq := make([]float64, D)
			cross := 0.0
			z := make([]float64, D)
			for s := 0; s < N; s++ {
				ch.Sample(rng, v, z)
				for i, x := range z {
					sum[i] += x
					sq[i] += x * x
				}
				if D > 1 {
					cross += z[0] * z[1]
				}
			}
			m2 := ch.B * ch.B / float64(D)
			for i := range sum {
				mean := sum[i] / float64(N)
				want := v[i]
				if paper {
					want = 2 * v[i]
				}
				se := math.Sqrt((m2 - want*want) / float64(N))
				if math.Abs(mean-want) > 4*se {
					t.Errorf("D=%d paper=%v: mean[%d] = %v, want %v ± 4·%v", D, paper, i, mean, want, se)
				}
				if r := sq[i] / float64(N) / m2; math.Abs(r-1) > 0.01 {
					t.Errorf("D=%d: E[Z_%d²]/(B²/D) = %v", D, i, r)
				}
			}
			if D > 1 && math.Abs(cross/float64(N)) > 5*m2/math.Sqrt(float64(N)) {
				t.Errorf("D=%d: E[Z_1 Z_2] = %v, want 0", D, cross/float64(N))
			}
		}
	}
}

// C5: v = 0 and D = 1 work; bad input is rejected.
func TestDuchiEdgeCases(t *testing.T) {
	rng := mechanisms.NewStreams(2).Noise()
	for _, D := range []int{1, 4} {
		ch, err := NewDuchi(D, 1, 0.5, false)
		if err != nil {
			t.Fatal(err)
		}
		z, err := ch.Sample(rng, make([]float64, D), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range z {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("D=%d, v=0: Z = %v", D, z)
			}
		}
	}
	for _, a := range []float64{0, -1, math.NaN()} {
		if _, err := NewDuchi(2, 1, a, false); err == nil {
			t.Errorf("α = %v accepted", a)
		}
	}
	ch, _ := NewDuchi(2, 1, 1, false)
	for _, v := range [][]float64{{1, 1}, {math.NaN(), 0}, {0}} {
		if _, err := ch.Sample(rng, v, nil); err == nil {
			t.Errorf("bad input %v accepted", v)
		}
	}
	if _, err := ch.Sample(nil, []float64{0, 0}, nil); err == nil {
		t.Error("nil rng accepted")
	}
	if _, err := NewMean([]float64{0, 0}, MeanOptions{}); err == nil {
		t.Error("all-zero levels accepted")
	}
	if _, err := NewMean([]float64{-1, 1}, MeanOptions{}); err == nil {
		t.Error("negative level accepted")
	}
	m, _ := NewMean([]float64{0.5, 1}, MeanOptions{})
	if _, err := m.Privatize(rng, []float64{2, 0}); err == nil {
		t.Error("record outside [−1,1] accepted")
	}
	if _, err := m.NewSums().Estimate(ProjectBox); err == nil {
		t.Error("empty sums accepted")
	}
}

var mechDelta = []float64{0.2, 0.2, 2, 2, 2, 2, 2, 2, 2, 2}

// C9: in the B.1 setting only rounds 1 and 3 run.
func TestMeanRounds(t *testing.T) {
	for _, q := range []float64{0.05, 0.1, 0.5, 0.9} {
		a, _ := Allocate(mechDelta, 2, q, ZetaHeuristic(q))
		m, err := NewMean(a.C, MeanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r := m.Rounds()
		if len(r) != 2 || r[0] != 1 || r[1] != 3 {
			t.Errorf("q=%v: rounds %v, want [1 3]", q, r)
		}
		if math.Abs(m.LDP()-a.LDP) > 1e-15 || m.LDP() > 2 {
			t.Errorf("q=%v: LDP level %v, allocation %v", q, m.LDP(), a.LDP)
		}
	}
}

// C10, C11: ν̂ is unbiased and the exact predicted MSE formula matches Monte Carlo
// within 3% (and within 3 standard errors), for ±1 data and in a non-sorted
// coordinate order.
func TestMeanUnbiasedAndMSE(t *testing.T) {
	for _, tc := range []struct {
		name  string
		delta []float64
		q     float64
		w     Weights
	}{
		{"B.1 q=0.1", mechDelta, 0.1, WeightsSquaredLevel},
		{"B.1 q=0.3 inverse-variance", mechDelta, 0.3, WeightsInverseVariance},
		{"unsorted 4-dim", []float64{1.5, 0.3, 0.8, 3}, 0, WeightsSquaredLevel},
	} {
		a, err := Allocate(tc.delta, 2, tc.q, ZetaHeuristic(tc.q))
		if err != nil {
			t.Fatal(err)
		}
		o := MeanOptions{Weights: tc.w}
		m, err := NewMean(a.C, o)
		if err != nil {
			t.Fatal(err)
		}
		d := len(tc.delta)
		x := make([]float64, d)
		for i := range x {
			x[i] = float64(1 - 2*(i%2))
		}
		pred, _, err := PredictedMSE(a.Sorted, 1, MSEOptions{Weights: tc.w})
		if err != nil {
			t.Fatal(err)
		}
		rng := mechanisms.NewStreams(11).Derive(tc.name).Noise()
		s := m.NewSums()
		const N = 200000
		sum := make([]float64, d)
		var se, se2 float64
		for k := 0; k < N; k++ {
			s.Reset()
			s.AddUnchecked(rng, x)
			nu, _ := s.Estimate(ProjectNone)
			e := 0.0
			for i := range nu {
				sum[i] += nu[i]
				e += (nu[i] - x[i]) * (nu[i] - x[i])
			}
			se += e
			se2 += e * e
		}
		mean := se / N
		sd := math.Sqrt((se2/N - mean*mean) / N)
		if math.Abs(mean/pred-1) > 0.03 || math.Abs(mean-pred) > 3*sd {
			t.Errorf("%s: MC MSE %v ± %v, predicted %v", tc.name, mean, sd, pred)
		}
		for i := range sum {
			// per-coordinate variance ≤ total predicted MSE
			if math.Abs(sum[i]/N-x[i]) > 4*math.Sqrt(pred/N) {
				t.Errorf("%s: mean of ν̂_%d = %v, want %v", tc.name, i, sum[i]/N, x[i])
			}
		}
	}
}

// C12: with c = a·1 Mechanism 1 is the baseline M_LDP(x, a, √d), draw for
// draw; the baseline constructor agrees.
func TestMeanUniformIsBaseline(t *testing.T) {
	d := 5
	c := []float64{0.7, 0.7, 0.7, 0.7, 0.7}
	m, _ := NewMean(c, MeanOptions{})
	b, _ := NewBaseline(d, 0.7, MeanOptions{})
	ch, _ := NewDuchi(d, math.Sqrt(float64(d)), 0.7, false)
	x := []float64{1, -1, 0.5, 0, -0.2}
	r1, r2, r3 := mechanisms.NewStreams(5).Noise(), mechanisms.NewStreams(5).Noise(), mechanisms.NewStreams(5).Noise()
	for k := 0; k < 100; k++ {
		a, _ := m.Privatize(r1, x)
		bb, _ := b.Privatize(r2, x)
		z, _ := ch.Sample(r3, x, nil)
		for i := range a {
			if math.Abs(a[i]-z[i]) > 1e-12*math.Abs(z[i]) || a[i] != bb[i] {
				t.Fatalf("draw %d: mechanism %v, baseline %v, channel %v", k, a, bb, z)
			}
		}
	}
}

// Determinism: the same stream gives bit-identical estimates; projections.
func TestMeanDeterminismAndProjection(t *testing.T) {
	a, _ := Allocate(mechDelta, 2, 0.5, 0.75)
	m, _ := NewMean(a.C, MeanOptions{PaperConstant: true})
	run := func(p Projection) []float64 {
		rng := mechanisms.NewStreams(99).Noise()
		s := m.NewSums()
		x := make([]float64, 10)
		for j := 0; j < 50; j++ {
			for i := range x {
				x[i] = float64(2*rng.IntN(2) - 1)
			}
			s.AddUnchecked(rng, x)
		}
		e, err := s.Estimate(p)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e1, e2 := run(ProjectNone), run(ProjectNone)
	for i := range e1 {
		if e1[i] != e2[i] {
			t.Fatal("not deterministic")
		}
	}
	box := run(ProjectBox)
	for i, v := range box {
		if v < -1 || v > 1 || (math.Abs(e1[i]) <= 1 && v != e1[i]) {
			t.Errorf("box projection: %v from %v", v, e1[i])
		}
	}
	ball := run(ProjectRoundBalls)
	n2 := 0.0
	for _, v := range ball {
		n2 += v * v
	}
	if n2 > 10*(1+1e-12) {
		t.Errorf("authors' projection: ‖x̂‖² = %v > d", n2)
	}
}

// C25: the trust-region solver returns the global minimiser (dense grid in
// 2D), also for indefinite H and the hard case.
func TestTrustRegion(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	cases := [][]float64{{-1, 0, 0, 2, 0, 0}, {2, 0, 1, 1, 0, 0.3}} // hard case; interior
	for k := 0; k < 40; k++ {
		cases = append(cases, []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), 0.7 + rng.Float64()})
	}
	for _, cse := range cases {
		h := mat.NewSymDense(2, []float64{cse[0], cse[1], cse[1], cse[2]})
		g := []float64{cse[3], cse[4]}
		R := cse[5]
		if R == 0 {
			R = 1
		}
		th, err := TrustRegion(h, g, R)
		if err != nil {
			t.Fatal(err)
		}
		if math.Hypot(th[0], th[1]) > R*(1+1e-9) {
			t.Fatalf("solution %v outside radius %v", th, R)
		}
		f := Quadratic(h, g, th)
		best := math.Inf(1)
		const G = 400
		for i := 0; i <= G; i++ {
			for j := 0; j <= G; j++ {
				p := []float64{R * (2*float64(i)/G - 1), R * (2*float64(j)/G - 1)}
				if math.Hypot(p[0], p[1]) <= R {
					best = math.Min(best, Quadratic(h, g, p))
				}
			}
			a := 2 * math.Pi * float64(i) / G
			best = math.Min(best, Quadratic(h, g, []float64{R * math.Cos(a), R * math.Sin(a)}))
		}
		if f > best+1e-9 {
			t.Errorf("H=%v g=%v R=%v: f(θ̂) = %v > grid min %v", cse[:3], g, R, f, best)
		}
	}
	if _, err := TrustRegion(mat.NewSymDense(2, nil), []float64{1}, 1); err == nil {
		t.Error("dimension mismatch accepted")
	}
}

// C24, C26: E f̂(θ) = f(θ) − (1/2n)Σ l² by Monte Carlo; with a huge budget θ̂
// → the OLS solution.
func TestLeastSquares(t *testing.T) {
	rng := mechanisms.NewStreams(21).Noise()
	n := 200
	data := make([][]float64, n)
	for i := range data {
		z1, z2 := float64(2*rng.IntN(2)-1), float64(2*rng.IntN(2)-1)
		l := 0.5*z1 - 0.2*z2
		if rng.Float64() < 0.3 {
			l = -l
		}
		data[i] = []float64{z1, z2, l}
	}
	bias, err := MeasureObjectiveBias(rng, data, []float64{3, 3, 4}, []float64{0.3, -0.4}, 400, MeanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(bias.Z()) > 4 {
		t.Errorf("E f̂(θ) = %v ± %v, want %v", bias.Mean, bias.SE, bias.Want)
	}
	// C26, adapted: the Duchi channel's error does not vanish as α → ∞
	// (B → r·(√π/2)·D·Γ((D+1)/2)/Γ(D/2+1) > r; the paper's eq. (64) rate needs clipping), so θ̂ → OLS needs
	// n → ∞ as well: with a huge budget and n = 50 000 users θ̂ is close to
	// the OLS solution of the same data.
	big, _ := NewLeastSquares([]float64{200, 200, 200}, MeanOptions{})
	var hx [4]float64
	var gx [2]float64
	const nBig = 50000
	for k := 0; k < nBig; k++ {
		x := data[k%n]
		big.Add(rng, x)
		hx[0] += x[0] * x[0] / nBig
		hx[1] += x[0] * x[1] / nBig
		hx[3] += x[1] * x[1] / nBig
		gx[0] += x[2] * x[0] / nBig
		gx[1] += x[2] * x[1] / nBig
	}
	hx[2] = hx[1]
	ols, _ := TrustRegion(mat.NewSymDense(2, hx[:]), gx[:], 2)
	th, err := big.Solve(2)
	if err != nil {
		t.Fatal(err)
	}
	if math.Hypot(th[0]-ols[0], th[1]-ols[1]) > 0.1 {
		t.Errorf("huge budget: θ̂ = %v, OLS = %v", th, ols)
	}
	if _, err := NewLeastSquares([]float64{1}, MeanOptions{}); err == nil {
		t.Error("d = 1 accepted")
	}
	if _, err := NewLeastSquares([]float64{0, 1, 1}, MeanOptions{}); err == nil {
		t.Error("zero level accepted")
	}
}

// mixtureDomain returns {−1,+1}^d and the prior (60) with parameter q.
func mixtureDomain(d int, q float64) ([][]float64, []float64) {
	dom01, pr, _ := MixturePrior(d, q)
	dom := make([][]float64, len(dom01))
	for x, v := range dom01 {
		dom[x] = make([]float64, d)
		for i, b := range v {
			dom[x][i] = float64(2*b - 1)
		}
	}
	return dom, pr
}

// C21: Monte Carlo privacy audit of Mechanism 1 (d = 4, δ = (0.2, 0.2, 2, 2),
// ε = 2, heuristic ζ, prior (60)): the MC lower bound on δ* never exceeds the
// Prop. 4.2 guarantee, which never exceeds δ̃; tight at q = 0 and q = 1.
func TestMeanPrivacyAudit(t *testing.T) {
	delta := []float64{0.2, 0.2, 2, 2}
	for _, tc := range []struct {
		q     float64
		proto []float64 // lower bound of an independent simulation
	}{
		{0, []float64{0.2, 0.2, 2, 2}},
		{0.1, []float64{0.156, 0.156, 0.771, 0.771}},
		{0.5, []float64{0.165, 0.165, 0.280, 0.280}},
		{1, []float64{0.2, 0.2, 0.2, 0.2}},
	} {
		a, _ := Allocate(delta, 2, tc.q, ZetaHeuristic(tc.q))
		m, err := NewMean(a.C, MeanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		q4 := []float64{tc.q, tc.q, tc.q, tc.q}
		guar, _ := BCDPFromCDPAndLDP(a.C, q4, a.LDP)
		dom, pr := mixtureDomain(4, tc.q)
		lb, err := MeanAuditMC(m, dom, pr, 40000, mechanisms.NewStreams(31).Derive("audit").Noise())
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("q=%v: MC lower bound %.3f, Prop 4.2 guarantee %.3f", tc.q, lb, guar)
		for i := range lb {
			if lb[i] > guar[i]+1e-9 || guar[i] > math.Min(delta[i], 2)+1e-9 {
				t.Errorf("q=%v coord %d: MC lower bound %v, guarantee %v, δ̃ %v", tc.q, i, lb[i], guar[i], delta[i])
			}
			// The sup is reached at the all-agree sign patterns, which are
			// frequent: the MC bound should be close to the independent simulation's.
			if lb[i] < tc.proto[i]-0.02 {
				t.Errorf("q=%v coord %d: MC lower bound %v well below the independent simulation's %v", tc.q, i, lb[i], tc.proto[i])
			}
		}
	}
}

// C22: the exact LDP level of Mechanism 1 is c_d: the largest likelihood
// ratio over records is e^{c_d}, reached between x and −x.
func TestMeanExactLDP(t *testing.T) {
	a, _ := Allocate([]float64{0.2, 0.2, 2, 2}, 2, 0.1, 0.55)
	m, _ := NewMean(a.C, MeanOptions{})
	dom, _ := mixtureDomain(4, 0)
	rng := mechanisms.NewStreams(41).Noise()
	best := 0.0
	for s := 0; s < 2000; s++ {
		y, err := m.Release(rng, dom[rng.IntN(len(dom))])
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, x := range dom {
			l, err := m.SignLogLikelihood(y, x)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi = math.Min(lo, l), math.Max(hi, l)
		}
		best = math.Max(best, hi-lo)
		if hi-lo > a.LDP+1e-12 {
			t.Fatalf("likelihood ratio e^%v exceeds e^{c_d} = e^%v", hi-lo, a.LDP)
		}
	}
	if math.Abs(best-a.LDP) > 1e-12 || a.LDP > 2 {
		t.Errorf("max log ratio %v, want c_d = %v ≤ ε", best, a.LDP)
	}
	if _, err := m.SignLogLikelihood([][]float64{{1}}, []float64{1, 1, 1, 1}); err == nil {
		t.Error("malformed release accepted")
	}
	if _, err := m.SignLogLikelihood(nil, []float64{0.5, 1, 1, 1}); err == nil {
		t.Error("non-±1 record accepted")
	}
}

// The BCDP audits: ε_lb ≤ claimed level, controls flagged (fixed seed).
func TestBCDPAudits(t *testing.T) {
	for _, s := range []audit.Spec{duchiAuditSpec(), mechanism1AuditSpec()} {
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

// MeanAuditMC validates its inputs with errors; a short domain row used to
// panic (index out of range) before any check.
func TestMeanAuditMCBadInput(t *testing.T) {
	m, err := NewMean([]float64{0.5, 1}, MeanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name   string
		m      *Mean
		domain [][]float64
		prior  []float64
		want   string
	}{
		{"nil mechanism", nil, [][]float64{{1, 1}}, []float64{1}, "nil mechanism"},
		{"short row", m, [][]float64{{1}, {-1, 1}}, []float64{0.5, 0.5}, "domain[0] has 1 coordinates"},
		{"long row", m, [][]float64{{1, 1}, {-1, 1, 1}}, []float64{0.5, 0.5}, "domain[1] has 3 coordinates"},
		{"short row of zero mass", m, [][]float64{{1, 1}, {-1}}, []float64{1, 0}, "domain[1] has 1 coordinates"},
		{"value not ±1", m, [][]float64{{1, 0.5}}, []float64{1}, "domain[0][1] = 0.5"},
		{"zero value", m, [][]float64{{0, 1}}, []float64{1}, "domain[0][0] = 0"},
		{"NaN value", m, [][]float64{{1, math.NaN()}}, []float64{1}, "domain[0][1] = NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("panic: %v", p)
				}
			}()
			if _, err := MeanAuditMC(tc.m, tc.domain, tc.prior, 10, rng); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
