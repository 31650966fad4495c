package corrdp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/featuredp/featuredp/data"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
	"gonum.org/v1/gonum/mat"
)

// C4.
func TestGaussianTV(t *testing.T) {
	for _, c := range []struct{ m, want float64 }{{1, 0.3829249}, {2, 0.6826895}, {0, 0}} {
		if got := GaussianTV(c.m); math.Abs(got-c.want) > 1e-7 {
			t.Errorf("TV(m=%v) = %v, want %v", c.m, got, c.want)
		}
	}
	// Ex. D.3: φ = 0.5, η = 1, u ∈ [−3, 3] → 2Φ(1.5) − 1 = 0.8663856.
	r := rand.New(rand.NewPCG(1, 1))
	n := 200000
	s, u := make([]float64, n), make([]float64, n)
	for i := range s {
		u[i] = -3 + 6*r.Float64()
		s[i] = 0.5*u[i] + r.NormFloat64()
	}
	tv, phi, eta, err := TVGaussian1D(s, u, 6)
	if err != nil || math.Abs(tv-0.8663856) > 0.01 || math.Abs(phi-0.5) > 0.01 || math.Abs(eta-1) > 0.01 {
		t.Errorf("1-D Gaussian TV^ = %v (φ %v, η %v, %v), want ≈ 0.8663856", tv, phi, eta, err)
	}
	// Multivariate eq. (22) vs Monte Carlo E_P[max(0, 1 − q/p)].
	cov := mat.NewSymDense(3, []float64{1, 0.4, 0.3, 0.4, 1.5, 0.6, 0.3, 0.6, 2})
	const width = 2.5
	got, err := GaussianConditionalTV(cov, []int{0, 1}, 2, width)
	if err != nil {
		t.Fatal(err)
	}
	// Conditional: Σc = Σ_SS − Σ_Si Σ_iS/Σ_ii, Δ = Σ_Si/Σ_ii·width.
	sc := [2][2]float64{{1 - 0.3*0.3/2, 0.4 - 0.3*0.6/2}, {0.4 - 0.6*0.3/2, 1.5 - 0.6*0.6/2}}
	dl := [2]float64{0.3 / 2 * width, 0.6 / 2 * width}
	det := sc[0][0]*sc[1][1] - sc[0][1]*sc[1][0]
	inv := [2][2]float64{{sc[1][1] / det, -sc[0][1] / det}, {-sc[1][0] / det, sc[0][0] / det}}
	l11 := math.Sqrt(sc[0][0])
	l21 := sc[1][0] / l11
	l22 := math.Sqrt(sc[1][1] - l21*l21)
	quad := func(x0, x1 float64) float64 {
		return x0*(inv[0][0]*x0+inv[0][1]*x1) + x1*(inv[1][0]*x0+inv[1][1]*x1)
	}
	const mc = 1000000
	var acc float64
	for k := 0; k < mc; k++ {
		z0, z1 := r.NormFloat64(), r.NormFloat64()
		x0, x1 := l11*z0, l21*z0+l22*z1
		logRatio := -0.5*quad(x0-dl[0], x1-dl[1]) + 0.5*quad(x0, x1) // log q/p
		acc += math.Max(0, 1-math.Exp(logRatio))
	}
	if mcTV := acc / mc; math.Abs(mcTV-got) > 1e-2 {
		t.Errorf("eq. 22 TV %v vs MC %v", got, mcTV)
	}
}

// C7.
func TestTVDiscrete(t *testing.T) {
	// P(S|U=1) = (.7,.3), (.4,.6), (.5,.5) from exact counts of 10 per group.
	var s, u []int
	for b, p := range []int{7, 4, 5} {
		for k := 0; k < 10; k++ {
			u = append(u, b)
			if k < p {
				s = append(s, 0)
			} else {
				s = append(s, 1)
			}
		}
	}
	got, err := TVDiscrete(s, u, 0)
	if err != nil || math.Abs(got.TV-0.3) > 1e-12 || got.A != 0 || got.B != 1 {
		t.Errorf("TV^ = %+v, %v; want 0.3 between groups 0 and 1", got, err)
	}
	// Example 2.6: Bernoulli(1/3) vs Bernoulli(2/3) → 1/3.
	s = []int{1, 0, 0, 1, 1, 0}
	u = []int{0, 0, 0, 1, 1, 1}
	got, _ = TVDiscrete(s, u, 0)
	if math.Abs(got.TV-1.0/3) > 1e-12 {
		t.Errorf("Example 2.6: %v", got.TV)
	}
	// Sensitivity: moving one record changes TV^ by ≤ 1/min_b n_b.
	r := rand.New(rand.NewPCG(2, 3))
	for trial := 0; trial < 300; trial++ {
		n := 20 + r.IntN(200)
		ks, ku := 2+r.IntN(4), 2+r.IntN(3)
		s, u := make([]int, n), make([]int, n)
		for i := range s {
			u[i] = i % ku // every group non-empty
			s[i] = r.IntN(ks)
		}
		a, _ := TVDiscrete(s, u, 0)
		i := r.IntN(n)
		s2 := append([]int(nil), s...)
		s2[i] = (s2[i] + 1 + r.IntN(ks-1)) % ks
		b, _ := TVDiscrete(s2, u, 0)
		minB := n / ku
		if math.Abs(a.TV-b.TV) > 1/float64(minB)+1e-12 {
			t.Fatalf("|ΔTV^| = %v > 1/%d", math.Abs(a.TV-b.TV), minB)
		}
	}
	if _, err := TVDiscrete([]int{0}, []int{0, 1}, 0); err == nil {
		t.Error("length mismatch accepted")
	}
}

// C8.
func TestTVHistogram(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 5))
	n := 400
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = r.Float64()
	}
	s := append(append([]float64(nil), vals...), vals...)
	u := make([]int, 2*n)
	for i := n; i < 2*n; i++ {
		u[i] = 1
	}
	lo, hi := []float64{0}, []float64{1}
	got, _, err := TVHistogram(s, 1, u, lo, hi, 10, 0)
	if err != nil || got.TV != 0 {
		t.Errorf("identical groups: %v, %v", got.TV, err)
	}
	disj := make([]float64, 2*n)
	for i := range disj {
		disj[i] = 0.25 * r.Float64()
		if u[i] == 1 {
			disj[i] += 0.7
		}
	}
	got, _, _ = TVHistogram(disj, 1, u, lo, hi, 8, 0)
	if got.TV != 1 {
		t.Errorf("disjoint supports: %v", got.TV)
	}
	// Order invariance and the 2-D product grid.
	s2 := make([]float64, 2*2*n)
	for i := range s2 {
		s2[i] = r.Float64()
	}
	uu := make([]int, 2*n)
	for i := range uu {
		uu[i] = r.IntN(3)
	}
	a, _, _ := TVHistogram(s2, 2, uu, []float64{0, 0}, []float64{1, 1}, 0, 0)
	swapped := make([]int, len(uu))
	for i, g := range uu {
		swapped[i] = 2 - g
	}
	b, _, _ := TVHistogram(s2, 2, swapped, []float64{0, 0}, []float64{1, 1}, 0, 0)
	if math.Abs(a.TV-b.TV) > 1e-12 {
		t.Errorf("group order changes TV: %v vs %v", a.TV, b.TV)
	}
	if _, _, err := TVHistogram(s, 1, u, []float64{1}, []float64{0}, 4, 0); err == nil {
		t.Error("inverted bounds accepted")
	}
}

func TestMultinomialLR(t *testing.T) {
	// Saturated model on one-hot u reproduces the plug-in pmfs.
	r := rand.New(rand.NewPCG(8, 9))
	n := 3000
	u := make([]float64, n*2)
	cls := make([]int, n)
	for i := 0; i < n; i++ {
		g := r.IntN(2)
		u[i*2+g] = 1
		p := 0.2
		if g == 1 {
			p = 0.6
		}
		if r.Float64() < p {
			cls[i] = 1
		}
	}
	lr, err := FitMultinomialLR(u, n, 2, cls, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	var cnt [2][2]float64
	for i := 0; i < n; i++ {
		g := 0
		if u[i*2+1] == 1 {
			g = 1
		}
		cnt[g][cls[i]]++
	}
	plug := math.Abs(cnt[0][1]/(cnt[0][0]+cnt[0][1]) - cnt[1][1]/(cnt[1][0]+cnt[1][1]))
	if got := lr.TV([]float64{1, 0}, []float64{0, 1}); math.Abs(got-plug) > 1e-4 {
		t.Errorf("LR TV %v vs plug-in %v", got, plug)
	}
}

// standInFrame is a small Adult-like frame with S–U dependence.
func standInFrame(n int, r *rand.Rand) dataframe.DataFrame {
	gender := make([]string, n)
	rel := make([]string, n)
	race := make([]string, n)
	age := make([]float64, n)
	w := make([]float64, n)
	y := make([]string, n)
	for i := 0; i < n; i++ {
		g := r.IntN(2)
		gender[i] = []string{"F", "M"}[g]
		if r.Float64() < 0.2+0.6*float64(g) {
			rel[i] = "Husband"
		} else {
			rel[i] = "Other"
		}
		race[i] = []string{"A", "B", "C"}[r.IntN(3)]
		w[i] = r.NormFloat64()
		age[i] = 40 + 10*r.NormFloat64() + 5*w[i]
		y[i] = []string{"0", "1"}[r.IntN(2)]
	}
	return dataframe.New(
		series.New(gender, series.String, "gender"), series.New(rel, series.String, "rel"),
		series.New(race, series.String, "race"), series.New(age, series.Float, "age"),
		series.New(w, series.Float, "w"), series.New(y, series.String, "y"))
}

func TestEstimateTV(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	df := standInFrame(4000, r)
	schema := data.Schema{Columns: []data.Column{
		{Name: "gender", Role: data.Public, Kind: data.Categorical},
		{Name: "race", Role: data.Public, Kind: data.Categorical},
		{Name: "w", Role: data.Public},
		{Name: "rel", Role: data.Sensitive, Kind: data.Categorical},
		{Name: "age", Role: data.Sensitive},
		{Name: "y", Role: data.Label, Kind: data.Categorical},
	}}
	rep, err := EstimateTV(df, schema, TVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tv := rep.TV()
	// gender drives rel strongly (TV_disc ≈ 0.6); race is independent; w
	// drives age.
	if tv["gender"] < 0.5 || tv["race"] > 0.25 || tv["w"] < 0.5 {
		t.Errorf("TV = %v", tv)
	}
	for _, f := range rep.Features {
		if f.TV < 0 || f.TV > 1 || math.Abs(f.TV-math.Min(1, f.TVDisc+f.TVCont)) > 1e-12 {
			t.Errorf("%+v", f)
		}
	}
	rep, err = EstimateTV(df, schema, TVOptions{Neighbours: JointU})
	if err != nil {
		t.Fatal(err)
	}
	first := rep.Features[0].TV
	for _, f := range rep.Features {
		if f.TV != first {
			t.Errorf("N-jointU: TVs differ: %+v", rep.Features)
		}
	}
	bad := data.Schema{Columns: []data.Column{{Name: "age"}, {Name: "y", Role: data.Label, Kind: data.Categorical}}}
	if _, err := EstimateTV(df.Select([]string{"age", "y"}), bad, TVOptions{}); err == nil {
		t.Error("no insensitive feature accepted")
	}
}

func TestTVTilde(t *testing.T) {
	rep := &TVReport{N: 10000, Features: []TVFeature{{Name: "a", TV: 0.5, Gamma: 0.5}, {Name: "b", TV: 0.01, Gamma: 0.5}, {Name: "c", TV: 0.9, Gamma: 1.0 / 3}}}
	got, err := TVTilde(rep, 1, 1e-5, true)
	if err != nil {
		t.Fatal(err)
	}
	term := 2 * math.Sqrt(math.Log(3/1e-5)) / 100
	if math.Abs(got["a"]-(0.5+term)) > 1e-12 || got["b"] != 0 || got["c"] != 1 {
		t.Errorf("TV~ = %v (term %v)", got, term)
	}
	if _, err := TVTilde(nil, 1, 1e-5, false); err == nil {
		t.Error("nil report accepted")
	}
}

func ExampleEstimateTV() {
	r := rand.New(rand.NewPCG(1, 2))
	df := standInFrame(2000, r)
	schema := data.Schema{Columns: []data.Column{
		{Name: "gender", Role: data.Public, Kind: data.Categorical},
		{Name: "rel", Role: data.Sensitive, Kind: data.Categorical},
		{Name: "age", Role: data.Sensitive},
		{Name: "race", Role: data.Ignore}, {Name: "w", Role: data.Ignore},
		{Name: "y", Role: data.Label, Kind: data.Categorical},
	}}
	rep, err := EstimateTV(df, schema, TVOptions{})
	if err != nil {
		panic(err)
	}
	f := rep.Features[0]
	fmt.Printf("%s: TV_disc %.2f, TV^ %.2f\n", f.Name, f.TVDisc, f.TV)
	// Output: gender: TV_disc 0.60, TV^ 0.65
}

// Values near ±MaxFloat64 are scaled without overflow (their range is +Inf
// in float64), so the TVs stay numbers in [0, 1].
func TestEstimateTVHugeValues(t *testing.T) {
	n := 40
	w, s, y := make([]float64, n), make([]string, n), make([]string, n)
	for i := range n {
		w[i], s[i], y[i] = float64(i)*1.5, []string{"a", "b"}[i%2], []string{"0", "1"}[(i/3)%2]
	}
	w[0], w[1] = -1e308, 1e308
	df := dataframe.New(series.New(w, series.Float, "w"), series.New(s, series.String, "s"), series.New(y, series.String, "y"))
	schema := data.Schema{Columns: []data.Column{{Name: "w", Role: data.Public},
		{Name: "s", Role: data.Sensitive, Kind: data.Categorical}, {Name: "y", Role: data.Label, Kind: data.Categorical}}}
	rep, err := EstimateTV(df, schema, TVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tv := rep.Features[0].TV; !(tv >= 0 && tv <= 1) {
		t.Errorf("TV of a column with ±1e308: %v", tv)
	}
}
