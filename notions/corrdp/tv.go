package corrdp

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/go-gota/gota/dataframe"
	"gonum.org/v1/gonum/mat"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
)

// TV estimators of the CorrDP paper (Sec. 4, App. D; specs/corrdp.md §2.5).
// TV(P, Q) = sup_A |P(A) − Q(A)| = ½‖p − q‖₁ throughout. All estimators are
// plug-in statistics of the data and are NOT private: their output feeds the
// noise calibration, which the paper covers with the UCB of Def. 4.3
// (UCB) and the extra δ of Lemma A.1.

// NormalCDF is Φ, the standard normal CDF.
func NormalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// GaussianTV returns the exact TV between two Gaussians with the same
// covariance whose means are Mahalanobis distance m apart:
// TV = 2Φ(m/2) − 1 (spec §2.5 item 3; check C4: m = 1 gives 0.3829249).
func GaussianTV(mahalanobis float64) float64 {
	if !(mahalanobis > 0) {
		return 0
	}
	return 2*NormalCDF(mahalanobis/2) - 1
}

// TVPair is the TV between two conditional laws and the pair of
// conditioning groups that attains it.
type TVPair struct {
	TV   float64
	A, B int // group codes of the maximising pair (−1 if none)
}

// TVDiscrete is the discrete plug-in estimator of Ex. D.1: with
// counts n_{a,b} of sensitive category a in insensitive group b,
// P^_b(a) = n_{a,b}/n_{·,b} and
//
//	TV^ = max_{b1 < b2} ½ Σ_a |P^_{b1}(a) − P^_{b2}(a)|.
//
// s[r] and u[r] are the category codes of row r (≥ 0); several discrete
// sensitive features are combined into one joint code beforehand
// (App. D.2 item 1). Groups with fewer than minGroup rows are skipped
// (minGroup ≤ 1 keeps all non-empty groups). Moving one record changes TV^
// by at most 1/min_b n_b (Ass. 4.2, check C7).
func TVDiscrete(s, u []int, minGroup int) (TVPair, error) {
	if len(s) == 0 || len(s) != len(u) {
		return TVPair{A: -1, B: -1}, fmt.Errorf("corrdp: TVDiscrete: %d sensitive and %d insensitive codes", len(s), len(u))
	}
	ks, ku := 0, 0
	for r := range s {
		if s[r] < 0 || u[r] < 0 {
			return TVPair{A: -1, B: -1}, fmt.Errorf("corrdp: TVDiscrete: negative code at row %d", r)
		}
		ks, ku = max(ks, s[r]+1), max(ku, u[r]+1)
	}
	counts := make([]float64, ks*ku)
	tot := make([]float64, ku)
	for r := range s {
		counts[u[r]*ks+s[r]]++
		tot[u[r]]++
	}
	return maxPairTV(counts, tot, ks, ku, minGroup), nil
}

// maxPairTV maximises ½‖p_b1 − p_b2‖₁ over pairs of groups with at
// least minGroup rows; counts is ku×ks.
func maxPairTV(counts, tot []float64, ks, ku, minGroup int) TVPair {
	best := TVPair{A: -1, B: -1}
	mg := float64(max(minGroup, 1))
	for b1 := 0; b1 < ku; b1++ {
		if tot[b1] < mg {
			continue
		}
		for b2 := b1 + 1; b2 < ku; b2++ {
			if tot[b2] < mg {
				continue
			}
			var d float64
			for a := 0; a < ks; a++ {
				d += math.Abs(counts[b1*ks+a]/tot[b1] - counts[b2*ks+a]/tot[b2])
			}
			if d/2 > best.TV || best.A < 0 {
				best = TVPair{TV: math.Min(1, d/2), A: b1, B: b2}
			}
		}
	}
	if best.A < 0 {
		best.TV = 0
	}
	return best
}

// TVHistogram is the histogram estimator of Ex. D.2 (1-D) and its
// product-grid version (App. D.2 item 2): the d continuous sensitive values
// of row r are s[r*d:(r+1)*d], each clipped to [lo_k, hi_k] and cut into
// bins equal-width bins, and
//
//	TV^ = max_{b1 < b2} ½ Σ_cells |n_{cell,b1}/n_{·,b1} − n_{cell,b2}/n_{·,b2}|.
//
// bins ≤ 0 selects k = max(2, round(n_min^{1/(d+2)})) with n_min the
// smallest group size (spec §6.10; h = Θ(n^{−1/(d+2)}) of App. D.2, γ =
// 1/(d+2)). It returns an error for NaN values, lo ≥ hi, or bins^d > 1e7.
func TVHistogram(s []float64, d int, u []int, lo, hi []float64, bins, minGroup int) (TVPair, int, error) {
	none := TVPair{A: -1, B: -1}
	if d < 1 || len(u) == 0 || len(s) != len(u)*d || len(lo) != d || len(hi) != d {
		return none, 0, fmt.Errorf("corrdp: TVHistogram: %d values, %d groups, d = %d, %d/%d bounds", len(s), len(u), d, len(lo), len(hi))
	}
	for k := range lo {
		if !(hi[k] > lo[k]) || math.IsInf(hi[k]-lo[k], 0) {
			return none, 0, fmt.Errorf("corrdp: TVHistogram: bounds [%v, %v] of dimension %d", lo[k], hi[k], k)
		}
	}
	ku := 0
	for r, b := range u {
		if b < 0 {
			return none, 0, fmt.Errorf("corrdp: TVHistogram: negative group at row %d", r)
		}
		ku = max(ku, b+1)
	}
	tot := make([]float64, ku)
	for _, b := range u {
		tot[b]++
	}
	if bins <= 0 {
		nmin := math.Inf(1)
		for _, t := range tot {
			if t >= float64(max(minGroup, 1)) {
				nmin = math.Min(nmin, t)
			}
		}
		if math.IsInf(nmin, 1) {
			nmin = float64(len(u))
		}
		bins = max(2, int(math.Round(math.Pow(nmin, 1/float64(d+2)))))
	}
	cells := 1
	for range d {
		cells *= bins
		if cells > 1e7 {
			return none, 0, fmt.Errorf("corrdp: TVHistogram: %d^%d cells is too many", bins, d)
		}
	}
	// Sparse counts: map from cell to per-group counts is heavy; use a
	// dense ku×cells table when small, else sort keys.
	keys := make([]int, len(u))
	for r := range u {
		c := 0
		for k := range d {
			v := s[r*d+k]
			if math.IsNaN(v) {
				return none, 0, fmt.Errorf("corrdp: TVHistogram: NaN at row %d, dimension %d", r, k)
			}
			j := int(math.Floor((v - lo[k]) / (hi[k] - lo[k]) * float64(bins)))
			j = min(max(j, 0), bins-1)
			c = c*bins + j
		}
		keys[r] = c
	}
	// Compress the occupied cells.
	occ := map[int]int{}
	for _, c := range keys {
		if _, ok := occ[c]; !ok {
			occ[c] = len(occ)
		}
	}
	ks := len(occ)
	counts := make([]float64, ks*ku)
	for r, c := range keys {
		counts[u[r]*ks+occ[c]]++
	}
	return maxPairTV(counts, tot, ks, ku, minGroup), bins, nil
}

// TVGaussian1D is the 1-D Gaussian estimator of Ex. D.3: regress s on
// u (φ^ = Σ(u−ū)(s−s̄)/Σ(u−ū)², ψ^ = s̄ − φ^ū, η^² = (1/n)Σ(s − φ^u − ψ^)²)
// and return TV^ = 2Φ(|φ^|·width/(2η^)) − 1 with width = max(u) − min(u) if
// width ≤ 0 (the maximising pair of sample points). Check C4: φ = 0.5,
// η = 1, width 6 gives 2Φ(1.5) − 1.
func TVGaussian1D(s, u []float64, width float64) (tv, phi, eta float64, err error) {
	n := len(s)
	if n < 3 || len(u) != n {
		return 0, 0, 0, fmt.Errorf("corrdp: TVGaussian1D: %d and %d values, want ≥ 3 of each", n, len(u))
	}
	var su, ss float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range s {
		if math.IsNaN(s[i]) || math.IsNaN(u[i]) || math.IsInf(s[i], 0) || math.IsInf(u[i], 0) {
			return 0, 0, 0, fmt.Errorf("corrdp: TVGaussian1D: non-finite value at row %d", i)
		}
		su += u[i]
		ss += s[i]
		lo, hi = math.Min(lo, u[i]), math.Max(hi, u[i])
	}
	ub, sb := su/float64(n), ss/float64(n)
	var cuu, cus float64
	for i := range s {
		cuu += (u[i] - ub) * (u[i] - ub)
		cus += (u[i] - ub) * (s[i] - sb)
	}
	if cuu == 0 {
		return 0, 0, 0, errors.New("corrdp: TVGaussian1D: u is constant")
	}
	phi = cus / cuu
	psi := sb - phi*ub
	var r2 float64
	for i := range s {
		r := s[i] - phi*u[i] - psi
		r2 += r * r
	}
	eta = math.Sqrt(r2 / float64(n))
	if width <= 0 {
		width = hi - lo
	}
	if eta == 0 {
		if phi == 0 {
			return 0, phi, eta, nil
		}
		return 1, phi, eta, nil
	}
	return GaussianTV(math.Abs(phi) * width / eta), phi, eta, nil
}

// GaussianConditionalTV is eq. (22): for (X^S, X^(i)) jointly Gaussian
// with covariance cov (the full m×m matrix; only the S rows/columns and i
// are read), X^S | X^(i) = x is N(μ_S + Σ_Si Σ_ii⁻¹(x − μ_i), Σ_c) with
// Σ_c = Σ_SS − Σ_Si Σ_ii⁻¹ Σ_iS independent of x, so conditioning on two
// values width apart gives the exact equal-covariance TV
//
//	TV = 2Φ(½·√(Δᵀ Σ_c⁻¹ Δ)) − 1,  Δ = Σ_Si Σ_ii⁻¹·width.
//
// Use the true Σ for population values (check C5) or the sample covariance
// for TV^. It returns an error if Σ_c is not positive definite.
func GaussianConditionalTV(cov mat.Symmetric, sIdx []int, i int, width float64) (float64, error) {
	m := cov.SymmetricDim()
	if len(sIdx) == 0 || i < 0 || i >= m {
		return 0, fmt.Errorf("corrdp: GaussianConditionalTV: %d sensitive indices, i = %d, dimension %d", len(sIdx), i, m)
	}
	sii := cov.At(i, i)
	if !(sii > 0) {
		return 0, fmt.Errorf("corrdp: GaussianConditionalTV: Σ_ii = %v, want > 0", sii)
	}
	k := len(sIdx)
	sc := mat.NewSymDense(k, nil)
	delta := mat.NewVecDense(k, nil)
	for a, sa := range sIdx {
		if sa < 0 || sa >= m || sa == i {
			return 0, fmt.Errorf("corrdp: GaussianConditionalTV: sensitive index %d (i = %d, m = %d)", sa, i, m)
		}
		delta.SetVec(a, cov.At(sa, i)/sii*width)
		for b := a; b < k; b++ {
			sc.SetSym(a, b, cov.At(sa, sIdx[b])-cov.At(sa, i)*cov.At(i, sIdx[b])/sii)
		}
	}
	var ch mat.Cholesky
	if ok := ch.Factorize(sc); !ok {
		return 0, errors.New("corrdp: GaussianConditionalTV: conditional covariance Σ_c is not positive definite")
	}
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, delta); err != nil {
		return 0, fmt.Errorf("corrdp: GaussianConditionalTV: %w", err)
	}
	q := mat.Dot(delta, &x)
	return GaussianTV(math.Sqrt(math.Max(q, 0))), nil
}

// Covariance returns the sample mean and the (1/n) sample covariance
// of the n×d row-major matrix x.
func Covariance(x []float64, n, d int) ([]float64, *mat.SymDense, error) {
	if n < 2 || d < 1 || len(x) != n*d {
		return nil, nil, fmt.Errorf("corrdp: Covariance: %d values for %d×%d", len(x), n, d)
	}
	mu := make([]float64, d)
	for r := 0; r < n; r++ {
		for j := 0; j < d; j++ {
			mu[j] += x[r*d+j]
		}
	}
	for j := range mu {
		mu[j] /= float64(n)
	}
	c := make([]float64, d*d)
	row := make([]float64, d)
	for r := 0; r < n; r++ {
		for j := 0; j < d; j++ {
			row[j] = x[r*d+j] - mu[j]
		}
		for a := 0; a < d; a++ {
			ra := row[a]
			ca := c[a*d:]
			for b := a; b < d; b++ {
				ca[b] += ra * row[b]
			}
		}
	}
	cov := mat.NewSymDense(d, nil)
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			cov.SetSym(a, b, c[a*d+b]/float64(n))
		}
	}
	return mu, cov, nil
}

// MultinomialLR is a fitted multinomial logistic regression
// P(S = a | u) ∝ exp(w_aᵀu + b_a) (App. D.1, "discrete S, continuous U").
type MultinomialLR struct {
	Model *models.Softmax
	Theta []float64
	K, P  int
}

// FitMultinomialLR fits P(class | u) by maximum likelihood on inputs
// u (n×p row-major) and class codes in [0, k), with damped Newton steps on
// the mean negative log-likelihood plus (l2/2)‖θ‖² (weights and biases).
// l2 ≤ 0 uses 1e-6, just enough to make the over-parametrised softmax
// identifiable and keep separable classes finite (spec §6.10 asks for an
// unregularised fit; 1e-6 is numerically that). With a one-hot u the fit
// reproduces the empirical conditional pmfs (the saturated model), i.e. the
// plug-in. Intended for small p·k (the Hessian is (p+1)k square).
func FitMultinomialLR(u []float64, n, p int, class []int, k int, l2 float64) (*MultinomialLR, error) {
	if n < 1 || p < 1 || k < 2 || len(u) != n*p || len(class) != n {
		return nil, fmt.Errorf("corrdp: FitMultinomialLR: n = %d, p = %d, k = %d, %d inputs, %d classes", n, p, k, len(u), len(class))
	}
	if (p+1)*k > 2000 {
		return nil, fmt.Errorf("corrdp: FitMultinomialLR: (p+1)·k = %d parameters is too many for Newton", (p+1)*k)
	}
	y := make([]float64, n)
	for i, c := range class {
		if c < 0 || c >= k {
			return nil, fmt.Errorf("corrdp: FitMultinomialLR: class %d at row %d not in [0, %d)", c, i, k)
		}
		y[i] = float64(c)
	}
	d, err := design.NewData(u, y, n, p)
	if err != nil {
		return nil, fmt.Errorf("corrdp: FitMultinomialLR: %w", err)
	}
	sm, err := models.NewSoftmax(p, k)
	if err != nil {
		return nil, fmt.Errorf("corrdp: FitMultinomialLR: %w", err)
	}
	if l2 <= 0 {
		l2 = 1e-6
	}
	np := sm.NumParams() // layout: W (p×k, feature j owns W[j*k:(j+1)*k]), then b (k)
	f := func(th []float64) float64 {
		v := sm.Loss(th, d, nil)
		for _, t := range th {
			v += 0.5 * l2 * t * t
		}
		return v
	}
	// widx(j, a): index of the weight of input j (j = p is the bias) in class a.
	widx := func(j, a int) int {
		if j == p {
			return p*k + a
		}
		return j*k + a
	}
	th := make([]float64, np)
	g := make([]float64, np)
	h := mat.NewSymDense(np, nil)
	prob := make([]float64, k)
	xt := make([]float64, p+1)
	hd := make([]float64, np*np)
	cur := f(th)
	for it := 0; it < 100; it++ {
		clear(g)
		clear(hd)
		for i := 0; i < n; i++ {
			copy(xt, u[i*p:(i+1)*p])
			xt[p] = 1
			sm.Predict(th, u[i*p:(i+1)*p], prob)
			c := class[i]
			for a := 0; a < k; a++ {
				r := prob[a]
				if a == c {
					r--
				}
				for j := 0; j <= p; j++ {
					g[widx(j, a)] += r * xt[j]
				}
				for b := 0; b < k; b++ {
					w := -prob[a] * prob[b]
					if a == b {
						w += prob[a]
					}
					if w == 0 {
						continue
					}
					for j := 0; j <= p; j++ {
						for l := 0; l <= p; l++ {
							hd[widx(j, a)*np+widx(l, b)] += w * xt[j] * xt[l]
						}
					}
				}
			}
		}
		gn := 0.0
		for q := range g {
			g[q] = g[q]/float64(n) + l2*th[q]
			gn = math.Max(gn, math.Abs(g[q]))
		}
		if gn < 1e-9 {
			break
		}
		for a := 0; a < np; a++ {
			for b := a; b < np; b++ {
				v := hd[a*np+b] / float64(n)
				if a == b {
					v += l2
				}
				h.SetSym(a, b, v)
			}
		}
		var ch mat.Cholesky
		if ok := ch.Factorize(h); !ok {
			return nil, errors.New("corrdp: FitMultinomialLR: Hessian not positive definite")
		}
		var step mat.VecDense
		if err := ch.SolveVecTo(&step, mat.NewVecDense(np, g)); err != nil {
			return nil, fmt.Errorf("corrdp: FitMultinomialLR: %w", err)
		}
		// Backtracking line search on the damped Newton direction.
		t := 1.0
		next := make([]float64, np)
		improved := false
		for ls := 0; ls < 40; ls++ {
			for q := range th {
				next[q] = th[q] - t*step.AtVec(q)
			}
			if v := f(next); v <= cur {
				copy(th, next)
				improved = cur-v > 1e-14*math.Max(1, math.Abs(cur))
				cur = v
				break
			}
			t /= 2
		}
		if !improved {
			break
		}
	}
	return &MultinomialLR{Model: sm, Theta: th, K: k, P: p}, nil
}

// Probs writes P(class | u) for one input u (len P) into out (len K).
func (m *MultinomialLR) Probs(u, out []float64) { m.Model.Predict(m.Theta, u, out) }

// TV returns ½‖P(·|u1) − P(·|u2)‖₁.
func (m *MultinomialLR) TV(u1, u2 []float64) float64 {
	p, q := make([]float64, m.K), make([]float64, m.K)
	m.Probs(u1, p)
	m.Probs(u2, q)
	var d float64
	for a := range p {
		d += math.Abs(p[a] - q[a])
	}
	return math.Min(1, d/2)
}

// Neighbourhood selects the neighbouring relation of a TV estimate
// (spec §1.2).
type Neighbourhood int

const (
	// NOne: a record changes in its sensitive block or in exactly one
	// insensitive feature; one TV per insensitive feature (Def. 2.8,
	// Remark 3.8; synthetic, Adult, Credit).
	NOne Neighbourhood = iota
	// JointU: all insensitive features may change together; one
	// TV_max over pairs of joint insensitive configurations, used for
	// every insensitive feature (Sepsis, Medical Cost).
	JointU
)

// String names the relation.
func (n Neighbourhood) String() string {
	if n == JointU {
		return "N-jointU"
	}
	return "N-one"
}

// TVOptions configure EstimateTV.
type TVOptions struct {
	// Neighbours selects N-one (per-feature TV) or N-jointU (one TV_max).
	Neighbours Neighbourhood
	// Bins per dimension of the continuous-S histogram (0: the rule
	// k = max(2, round(n_min^{1/(d+2)})) of spec §6.10).
	Bins int
	// MinGroup skips conditioning groups with fewer rows (0 or 1: none).
	MinGroup int
	// DiscreteLevels: a continuous insensitive feature with at most this
	// many distinct values is treated as discrete (0 means 20).
	DiscreteLevels int
	// JointBins: continuous insensitive features with more levels are cut
	// into this many equal-width bins to form joint configurations under
	// N-jointU (0 means 4).
	JointBins int
}

// TVFeature is the estimate for one insensitive raw feature.
type TVFeature struct {
	Name string
	// Discrete reports whether the feature was conditioned on as discrete
	// groups (else as a continuous value at its extremes).
	Discrete bool
	// TVDisc is the part from the discrete sensitive features (plug-in
	// for discrete u, multinomial LR at min(u) vs max(u) for continuous u).
	TVDisc float64
	// TVCont is the part from the continuous sensitive features
	// (histogram for discrete u, Gaussian eq. 22 at min(u) vs max(u) for
	// continuous u).
	TVCont float64
	// TV is min{TVDisc + TVCont, 1} (App. E.2, with the printed max read as
	// min, spec §6.10).
	TV float64
	// Pair names the maximising pair of conditioning values.
	Pair string
	// MinGroup is the size of the smallest conditioning group (discrete u).
	MinGroup int
	// Gamma is the estimator's rate γ for the UCB: 1/2 (plug-in,
	// Gaussian, LR) or 1/(d+2) with a d-dimensional histogram.
	Gamma float64
}

// TVReport is the outcome of EstimateTV.
type TVReport struct {
	Neighbours Neighbourhood
	// Features has one entry per insensitive raw feature, in schema order
	// (under N-jointU all carry the same TV).
	Features []TVFeature
	// N is the number of rows used.
	N int
	// Notes explain the estimators used.
	Notes string
}

// TV returns the map feature name → TV.
func (r *TVReport) TV() map[string]float64 {
	out := map[string]float64{}
	for _, f := range r.Features {
		out[f.Name] = f.TV
	}
	return out
}

// rawColumn is one raw feature read from the frame.
type rawColumn struct {
	name     string
	discrete bool
	codes    []int
	levels   []string
	vals     []float64 // min–max scaled to [0, 1] (continuous)
}

func readRawColumn(df dataframe.DataFrame, c data.Column, discreteLevels int) (*rawColumn, error) {
	s := df.Col(c.Name)
	if s.Err != nil {
		return nil, fmt.Errorf("column %q: %w", c.Name, s.Err)
	}
	n := s.Len()
	col := &rawColumn{name: c.Name}
	if c.Kind == data.Categorical {
		col.discrete = true
		idx := map[string]int{}
		col.codes = make([]int, n)
		for i := 0; i < n; i++ {
			if data.IsMissing(s, i) {
				return nil, fmt.Errorf("column %q: missing value at row %d", c.Name, i)
			}
			l := data.LevelAt(s, i)
			k, ok := idx[l]
			if !ok {
				k = len(idx)
				idx[l] = k
				col.levels = append(col.levels, l)
			}
			col.codes[i] = k
		}
		return col, nil
	}
	col.vals = make([]float64, n)
	lo, hi := math.Inf(1), math.Inf(-1)
	distinct := map[float64]bool{}
	for i := 0; i < n; i++ {
		v, err := data.NumericAt(s, i)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("column %q: value at row %d is not a finite number", c.Name, i)
		}
		col.vals[i] = v
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		if len(distinct) <= discreteLevels {
			distinct[v] = true
		}
	}
	if hi > lo {
		for i := range col.vals {
			col.vals[i] = (col.vals[i] - lo) / (hi - lo)
		}
	} else {
		clear(col.vals)
	}
	if len(distinct) <= discreteLevels {
		col.discrete = true
		keys := make([]float64, 0, len(distinct))
		for v := range distinct {
			keys = append(keys, v)
		}
		sort.Float64s(keys)
		pos := map[float64]int{}
		for k, v := range keys {
			pos[v] = k
			col.levels = append(col.levels, fmt.Sprint(v))
		}
		col.codes = make([]int, n)
		for i := 0; i < n; i++ {
			v, _ := data.NumericAt(s, i)
			col.codes[i] = pos[v]
		}
	}
	return col, nil
}

// EstimateTV estimates the TV weights of the insensitive (Public)
// features of any DataFrame with roles (spec §2.5, the Adult composite of
// App. E.2 generalised). Sensitive features are split into a discrete block
// (Categorical, or numeric with few levels; combined into one joint code)
// and a continuous block (min–max scaled to [0, 1]). For every insensitive
// feature u (N-one):
//
//   - discrete u: TV_disc = plug-in over pairs of u-levels (= the
//     unregularised multinomial LR on one-hot u); TV_cont = product-grid
//     histogram TV of the continuous block (Ex. D.2);
//   - continuous u: TV_disc = multinomial LR of the joint discrete code on
//     u, compared at min(u) and max(u); TV_cont = Gaussian eq. (22) on
//     (continuous block, u) at min(u) vs max(u);
//   - TV = min{TV_disc + TV_cont, 1}.
//
// Under N-jointU the groups are the joint configurations of all insensitive
// features (continuous ones binned, JointBins) and one TV_max is reported
// for all. The outputs are the plug-in TV^; add the UCB with
// UCB. The estimate reads the data and is not private.
func EstimateTV(df dataframe.DataFrame, schema data.Schema, opts TVOptions) (*TVReport, error) {
	if err := schema.Validate(df); err != nil {
		return nil, fmt.Errorf("corrdp: EstimateTV: %w", err)
	}
	n := df.Nrow()
	if n < 4 {
		return nil, fmt.Errorf("corrdp: EstimateTV: %d rows, want ≥ 4", n)
	}
	dl := opts.DiscreteLevels
	if dl <= 0 {
		dl = 20
	}
	jb := opts.JointBins
	if jb <= 0 {
		jb = 4
	}
	var sDisc, sCont, us []*rawColumn
	for _, c := range schema.Features() {
		col, err := readRawColumn(df, c, dl)
		if err != nil {
			return nil, fmt.Errorf("corrdp: EstimateTV: %w", err)
		}
		switch {
		case c.Role == data.Public:
			us = append(us, col)
		case col.discrete && c.Kind == data.Categorical:
			sDisc = append(sDisc, col)
		case col.discrete && len(col.levels) <= 2:
			sDisc = append(sDisc, col)
		default:
			sCont = append(sCont, col)
		}
	}
	if len(us) == 0 {
		return nil, errors.New("corrdp: EstimateTV: the schema has no insensitive (Public) feature")
	}
	if len(sDisc)+len(sCont) == 0 {
		return nil, errors.New("corrdp: EstimateTV: the schema has no sensitive feature")
	}
	// Joint discrete sensitive code.
	var joint []int
	kJoint := 0
	if len(sDisc) > 0 {
		joint = make([]int, n)
		idx := map[string]int{}
		var sb strings.Builder
		for i := 0; i < n; i++ {
			sb.Reset()
			for _, c := range sDisc {
				fmt.Fprintf(&sb, "%d,", c.codes[i])
			}
			k, ok := idx[sb.String()]
			if !ok {
				k = len(idx)
				idx[sb.String()] = k
			}
			joint[i] = k
		}
		kJoint = len(idx)
	}
	d := len(sCont)
	cont := make([]float64, n*d)
	for i := 0; i < n; i++ {
		for k, c := range sCont {
			cont[i*d+k] = c.vals[i]
		}
	}
	lo, hi := make([]float64, d), make([]float64, d)
	for k := range hi {
		hi[k] = 1 + 1e-12
	}
	rep := &TVReport{Neighbours: opts.Neighbours, N: n}
	groupTV := func(groups []int, names func(int) string) (TVFeature, error) {
		f := TVFeature{Discrete: true, Gamma: 0.5}
		var pd, pc TVPair
		if joint != nil && kJoint > 1 {
			p, err := TVDiscrete(joint, groups, opts.MinGroup)
			if err != nil {
				return f, err
			}
			pd = p
			f.TVDisc = p.TV
		}
		if d > 0 {
			p, _, err := TVHistogram(cont, d, groups, lo, hi, opts.Bins, opts.MinGroup)
			if err != nil {
				return f, err
			}
			pc = p
			f.TVCont = p.TV
			f.Gamma = 1 / float64(d+2)
		}
		f.TV = math.Min(1, f.TVDisc+f.TVCont)
		cnt := map[int]int{}
		for _, g := range groups {
			cnt[g]++
		}
		f.MinGroup = n
		for _, c := range cnt {
			if c >= max(opts.MinGroup, 1) {
				f.MinGroup = min(f.MinGroup, c)
			}
		}
		var parts []string
		if pd.A >= 0 && f.TVDisc > 0 {
			parts = append(parts, fmt.Sprintf("disc: %s vs %s", names(pd.A), names(pd.B)))
		}
		if pc.A >= 0 && f.TVCont > 0 {
			parts = append(parts, fmt.Sprintf("cont: %s vs %s", names(pc.A), names(pc.B)))
		}
		f.Pair = strings.Join(parts, "; ")
		return f, nil
	}
	if opts.Neighbours == JointU {
		groups := make([]int, n)
		idx := map[string]int{}
		var labels []string
		var sb strings.Builder
		for i := 0; i < n; i++ {
			sb.Reset()
			for k, c := range us {
				if k > 0 {
					sb.WriteString(",")
				}
				if c.discrete {
					sb.WriteString(c.levels[c.codes[i]])
				} else {
					fmt.Fprintf(&sb, "bin%d", min(int(c.vals[i]*float64(jb)), jb-1))
				}
			}
			g, ok := idx[sb.String()]
			if !ok {
				g = len(idx)
				idx[sb.String()] = g
				labels = append(labels, sb.String())
			}
			groups[i] = g
		}
		f, err := groupTV(groups, func(g int) string { return "(" + labels[g] + ")" })
		if err != nil {
			return nil, fmt.Errorf("corrdp: EstimateTV: %w", err)
		}
		for _, c := range us {
			g := f
			g.Name = c.name
			rep.Features = append(rep.Features, g)
		}
		rep.Notes = fmt.Sprintf("N-jointU: one TV_max over %d joint insensitive configurations (continuous insensitive features cut into %d bins)", len(labels), jb)
		return rep, nil
	}
	for _, c := range us {
		if c.discrete {
			f, err := groupTV(c.codes, func(g int) string { return c.levels[g] })
			if err != nil {
				return nil, fmt.Errorf("corrdp: EstimateTV: feature %q: %w", c.name, err)
			}
			f.Name = c.name
			rep.Features = append(rep.Features, f)
			continue
		}
		f := TVFeature{Name: c.name, Gamma: 0.5, Pair: "u = min vs max"}
		if joint != nil && kJoint > 1 {
			lr, err := FitMultinomialLR(c.vals, n, 1, joint, kJoint, 0)
			if err != nil {
				return nil, fmt.Errorf("corrdp: EstimateTV: feature %q: %w", c.name, err)
			}
			f.TVDisc = lr.TV([]float64{0}, []float64{1})
		}
		if d > 0 {
			x := make([]float64, n*(d+1))
			for i := 0; i < n; i++ {
				copy(x[i*(d+1):], cont[i*d:(i+1)*d])
				x[i*(d+1)+d] = c.vals[i]
			}
			_, cov, err := Covariance(x, n, d+1)
			if err != nil {
				return nil, fmt.Errorf("corrdp: EstimateTV: feature %q: %w", c.name, err)
			}
			sIdx := make([]int, d)
			for k := range sIdx {
				sIdx[k] = k
			}
			tv, err := GaussianConditionalTV(cov, sIdx, d, 1)
			if err != nil {
				return nil, fmt.Errorf("corrdp: EstimateTV: feature %q: %w", c.name, err)
			}
			f.TVCont = tv
		}
		f.TV = math.Min(1, f.TVDisc+f.TVCont)
		rep.Features = append(rep.Features, f)
	}
	rep.Notes = "N-one: discrete u → plug-in (discrete S) + product-grid histogram (continuous S); continuous u → multinomial LR at min/max (discrete S) + Gaussian eq. (22) (continuous S); TV = min{sum, 1}"
	return rep, nil
}

// TVTilde turns a TV report into the upper-confidence weights of
// Def. 4.3: TV~(i) = min{1, TV^(i) + 2·c2·√(log(mU/δ))/n^γ}, with mU the
// number of insensitive features, n = report.N and γ the estimator's rate
// (TVFeature.Gamma); with independenceCheck, features with
// TV^ ≤ c2·√(log(mU/δ))/n^γ get 0 (the pre-check of Thm. 4.4). For the
// public-data variant (Remark 4.5) estimate the report on a public sample
// of size ñ from the same covariate law: n is then ñ and the guarantee
// does not spend the private data. With the in-sample report, CorrDP-SGD is
// (ε, 2δ)-CorrDP (Lemma A.1).
func TVTilde(report *TVReport, c2, delta float64, independenceCheck bool) (map[string]float64, error) {
	if report == nil || len(report.Features) == 0 || report.N < 1 {
		return nil, errors.New("corrdp: TVTilde: empty report")
	}
	if math.IsNaN(c2) || c2 < 0 || math.IsInf(c2, 0) || !(delta > 0 && delta < 1) {
		return nil, fmt.Errorf("corrdp: TVTilde: c2 = %v, δ = %v", c2, delta)
	}
	mU := float64(len(report.Features))
	out := map[string]float64{}
	for _, f := range report.Features {
		if !(f.Gamma > 0) {
			return nil, fmt.Errorf("corrdp: TVTilde: feature %q has rate γ = %v", f.Name, f.Gamma)
		}
		term := 2 * c2 * math.Sqrt(math.Log(mU/delta)) / math.Pow(float64(report.N), f.Gamma)
		switch {
		case independenceCheck && f.TV <= term/2:
			out[f.Name] = 0
		default:
			out[f.Name] = math.Min(1, f.TV+term)
		}
	}
	return out, nil
}
