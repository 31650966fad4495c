package corrdp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/featuredp/featuredp/internal/numeric"
	"github.com/featuredp/featuredp/internal/valid"
)

// TV estimators of the CorrDP paper (Sec. 4, App. D).
// TV(P, Q) = sup_A |P(A) − Q(A)| = ½‖p − q‖₁ throughout. All estimators are
// plug-in statistics of the data and are NOT private: their output feeds the
// noise calibration, which the paper covers with the UCB of Def. 4.3
// (UCB) and the extra δ of Lemma A.1 — valid only with a c2 for which
// Ass. 4.1 holds, which the paper does not give (see TVTilde).

// GaussianTV returns the exact TV between two Gaussians with the same

// covariance whose means are Mahalanobis distance m apart:

// TV = 2Φ(m/2) − 1 (m = 1 gives 0.3829249).

func GaussianTV(mahalanobis float64) float64 {
	if !(mahalanobis > 0) {
		return 0
	}
	return 2*numeric.NormCDF(mahalanobis/2) - 1
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

// by at most 1/min_b n_b (Ass. 4.2).

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
	pairs := 0
	for b1 := 0; b1 < ku; b1++ {
		if tot[b1] < mg {
			continue
		}
		for b2 := b1 + 1; b2 < ku; b2++ {
			if tot[b2] < mg {
				continue
			}
			pairs++
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
	if tally != nil {
		tally(false, float64(pairs)*float64(ks))
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

// smallest group size (docs/corrdp.md; h = Θ(n^{−1/(d+2)}) of App. D.2, γ =

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
		bins = defaultBins(tot, minGroup, d)
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

// width ≤ 0 (the maximising pair of sample points). Example: φ = 0.5,

// η = 1, width 6 gives 2Φ(1.5) − 1.

func TVGaussian1D(s, u []float64, width float64) (tv, phi, eta float64, err error) {
	n := len(s)
	if n < 3 || len(u) != n {
		return 0, 0, 0, fmt.Errorf("corrdp: TVGaussian1D: %d and %d values, want ≥ 3 of each", n, len(u))
	}
	var su, ss float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range s {
		if !valid.Finite(s[i]) || !valid.Finite(u[i]) {
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

// errSingularCov reports a conditional covariance Σ_c of eq. (22) that is
// not positive definite: in the data, a continuous sensitive feature is a
// linear function of the conditioning feature or of the others.
var errSingularCov = errors.New("conditional covariance Σ_c is not positive definite")

// GaussianConditionalTV is eq. (22): for (X^S, X^(i)) jointly Gaussian

// with covariance cov (the full m×m matrix; only the S rows/columns and i

// are read), X^S | X^(i) = x is N(μ_S + Σ_Si Σ_ii⁻¹(x − μ_i), Σ_c) with

// Σ_c = Σ_SS − Σ_Si Σ_ii⁻¹ Σ_iS independent of x, so conditioning on two

// values width apart gives the exact equal-covariance TV

//

//	TV = 2Φ(½·√(Δᵀ Σ_c⁻¹ Δ)) − 1,  Δ = Σ_Si Σ_ii⁻¹·width.

//

// Use the true Σ for population values or the sample covariance

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
		return 0, fmt.Errorf("corrdp: GaussianConditionalTV: %w", errSingularCov)
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

// defaultBins is TVHistogram's number of bins for bins ≤ 0: HistogramBins
// at the smallest of the groups (row counts tot) with at least minGroup
// rows, or at all the rows when none has.
func defaultBins(tot []float64, minGroup, d int) int {
	nmin, all := math.Inf(1), 0.0
	for _, t := range tot {
		all += t
		if t >= float64(max(minGroup, 1)) {
			nmin = math.Min(nmin, t)
		}
	}
	if math.IsInf(nmin, 1) {
		nmin = all
	}
	return HistogramBins(nmin, d)
}

// HistogramBins is TVHistogram's default number of bins per dimension for
// d continuous dimensions when the smallest group has nmin rows:
// k = max(2, round(nmin^{1/(d+2)})) (docs/corrdp.md; the bandwidth
// h = Θ(n^{−1/(d+2)}) of App. D.2).
func HistogramBins(nmin float64, d int) int {
	return max(2, int(math.Round(math.Pow(nmin, 1/float64(d+2)))))
}
