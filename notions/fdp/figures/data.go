package figures

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/valid"
	"gonum.org/v1/gonum/stat/distuv"
)

// Stand-in generators of the Feature-DP paper's experiments.
// The real Purchase100 and Criteo files cannot be obtained here, so E3 and
// E4 run on synthetic data with the structure of docs/feature-dp.md, 'Stand-in
// data'; they are
// stand-ins, not models of the real data, and their accuracies are not
// comparable with the paper's.

// LabelMixture draws the label-DP data of E2: k class means
// μ_c uniform on the unit sphere of R^d, labels uniform, and
// x = normalize(μ_y + noise·N(0, I_d)), so ‖x‖₂ = 1 (the case study's
// ‖x‖ ≤ 1). All randomness comes from rng.
//
// Errors: n, d ≤ 0, k < 2, noise negative or not finite, nil rng.
func LabelMixture(n, d, k int, noise float64, rng *rand.Rand) (*design.Data, error) {
	if n <= 0 || d <= 0 || k < 2 {
		return nil, fmt.Errorf("fdp: LabelMixture: n = %d, d = %d, k = %d, want n, d > 0 and k ≥ 2", n, d, k)
	}
	if err := valid.NonNegative("noise", noise); err != nil {
		return nil, fmt.Errorf("fdp: LabelMixture: %w", err)
	}
	if rng == nil {
		return nil, errors.New("fdp: LabelMixture: nil rng")
	}
	means := make([]float64, k*d)
	for c := range k {
		normalize(fillNormal(means[c*d:(c+1)*d], rng))
	}
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range n {
		c := rng.IntN(k)
		y[i] = float64(c)
		row := x[i*d : (i+1)*d]
		for j := range row {
			row[j] = means[c*d+j] + noise*rng.NormFloat64()
		}
		normalize(row)
	}
	return design.NewData(x, y, n, d)
}

func fillNormal(v []float64, rng *rand.Rand) []float64 {
	for j := range v {
		v[j] = rng.NormFloat64()
	}
	return v
}

func normalize(v []float64) {
	var ss float64
	for _, a := range v {
		ss += a * a
	}
	if ss == 0 {
		v[0] = 1
		return
	}
	s := 1 / math.Sqrt(ss)
	for j := range v {
		v[j] *= s
	}
}

// PurchaseOptions configures PurchaseLike. Zero values give the
// defaults in brackets.
type PurchaseOptions struct {
	// N rows [197,324], D binary features [600], K classes [100].
	N, D, K int
	// BetaA, BetaB are the Beta parameters of the per-class inclusion
	// probabilities [0.5, 4].
	BetaA, BetaB float64
	// Mix ∈ [0, 1] shrinks every class profile towards the average one:
	// π_cj ← Mix·π_cj + (1 − Mix)·π̄_j, which sets how separable the classes
	// are [0.45, chosen so that a non-private 600→128→100 MLP trained on 25k rows
	// reaches roughly the usual 80–90% of Purchase100; tuned on the
	// non-private model only].
	Mix float64
}

// PurchaseLike draws the synthetic Purchase-like data of E3
// (docs/feature-dp.md, 'Stand-in data'): class c has per-feature inclusion probabilities π_cj ~
// Beta(BetaA, BetaB) (shrunk by Mix), labels are uniform over K classes,
// and a row of class c has x_j ~ Bernoulli(π_cj) independently. The paper
// makes features 0..99 and the label public. A stand-in for Purchase100
// (197,324 × 600 binary, 100 classes), which cannot be downloaded here.
//
// Errors: negative sizes, K < 2, Beta parameters ≤ 0, Mix outside [0, 1],
// nil rng, or a matrix above data.MaxEncodedValues entries.
func PurchaseLike(o PurchaseOptions, rng *rand.Rand) (*design.Data, error) {
	if o.N == 0 {
		o.N = 197324
	}
	if o.D == 0 {
		o.D = 600
	}
	if o.K == 0 {
		o.K = 100
	}
	if o.BetaA == 0 {
		o.BetaA = 0.5
	}
	if o.BetaB == 0 {
		o.BetaB = 4
	}
	if o.Mix == 0 {
		o.Mix = 0.45
	}
	switch {
	case rng == nil:
		return nil, errors.New("fdp: PurchaseLike: nil rng")
	case o.N < 0 || o.D < 0 || o.K < 2:
		return nil, fmt.Errorf("fdp: PurchaseLike: N = %d, D = %d, K = %d, want N, D > 0 and K ≥ 2", o.N, o.D, o.K)
	case !(o.BetaA > 0 && o.BetaB > 0) || math.IsInf(o.BetaA+o.BetaB, 0):
		return nil, fmt.Errorf("fdp: PurchaseLike: Beta(%v, %v), want finite positive parameters", o.BetaA, o.BetaB)
	case !(o.Mix >= 0 && o.Mix <= 1):
		return nil, fmt.Errorf("fdp: PurchaseLike: Mix = %v, want in [0, 1]", o.Mix)
	case int64(o.N)*int64(o.D) > int64(data.MaxEncodedValues):
		return nil, fmt.Errorf("fdp: PurchaseLike: %d×%d values exceed data.MaxEncodedValues = %d", o.N, o.D, data.MaxEncodedValues)
	}
	beta := distuv.Beta{Alpha: o.BetaA, Beta: o.BetaB, Src: randSource{rng}}
	pi := make([]float64, o.K*o.D)
	mean := make([]float64, o.D)
	for j := range pi {
		pi[j] = beta.Rand()
		mean[j%o.D] += pi[j] / float64(o.K)
	}
	for j := range pi {
		pi[j] = o.Mix*pi[j] + (1-o.Mix)*mean[j%o.D]
	}
	x := make([]float64, o.N*o.D)
	y := make([]float64, o.N)
	for i := range o.N {
		c := rng.IntN(o.K)
		y[i] = float64(c)
		p := pi[c*o.D : (c+1)*o.D]
		row := x[i*o.D : (i+1)*o.D]
		for j := range row {
			if rng.Float64() < p[j] {
				row[j] = 1
			}
		}
	}
	return design.NewData(x, y, o.N, o.D)
}

// randSource adapts *rand.Rand to rand.Source for gonum's distuv.
type randSource struct{ r *rand.Rand }

func (s randSource) Uint64() uint64 { return s.r.Uint64() }

// Split splits d into a training part of the first n−nTest rows of a
// seeded permutation and a test part of the remaining nTest rows.
//
// Errors: nil data or rng, nTest not in [1, N−1].
func Split(d *design.Data, nTest int, rng *rand.Rand) (train, test *design.Data, err error) {
	if d == nil || rng == nil {
		return nil, nil, errors.New("fdp: Split: nil data or rng")
	}
	if nTest < 1 || nTest >= d.N {
		return nil, nil, fmt.Errorf("fdp: Split: %d test rows of %d, want 1 ≤ nTest < N", nTest, d.N)
	}
	perm := rng.Perm(d.N)
	take := func(rows []int) *design.Data {
		x := make([]float64, len(rows)*d.D)
		y := make([]float64, len(rows))
		for k, i := range rows {
			copy(x[k*d.D:(k+1)*d.D], d.Row(i))
			y[k] = d.Y[i]
		}
		return &design.Data{X: x, Y: y, N: len(rows), D: d.D}
	}
	return take(perm[nTest:]), take(perm[:nTest]), nil
}

// FashionTabular turns Fashion-MNIST into the tabular stand-in of E3: the
// first nTrain training and nTest test images (0 means
// all), pixels scaled to [0, 1], and a fixed random set of
// round(publicFrac·784) public pixel columns drawn from rng (default 1/6:
// 131 columns), returned sorted.
//
// Errors: nil set or rng, sizes out of range, publicFrac outside [0, 1].
func FashionTabular(fm *data.FashionMNIST, nTrain, nTest int, publicFrac float64, rng *rand.Rand) (train, test *design.Data, public []int, err error) {
	if fm == nil || fm.Train == nil || fm.Test == nil || rng == nil {
		return nil, nil, nil, errors.New("fdp: FashionTabular: nil data or rng")
	}
	if !(publicFrac >= 0 && publicFrac <= 1) {
		return nil, nil, nil, fmt.Errorf("fdp: FashionTabular: public fraction %v, want in [0, 1]", publicFrac)
	}
	conv := func(s *data.ImageSet, n int) (*design.Data, error) {
		if n == 0 {
			n = s.N
		}
		if n < 0 || n > s.N {
			return nil, fmt.Errorf("fdp: FashionTabular: %d images requested of %d", n, s.N)
		}
		d := s.Rows * s.Cols
		x := make([]float64, n*d)
		y := make([]float64, n)
		for i := range n {
			for j, p := range s.Image(i) {
				x[i*d+j] = float64(p) / 255
			}
			y[i] = float64(s.Labels[i])
		}
		return design.NewData(x, y, n, d)
	}
	if train, err = conv(fm.Train, nTrain); err != nil {
		return nil, nil, nil, err
	}
	if test, err = conv(fm.Test, nTest); err != nil {
		return nil, nil, nil, err
	}
	d := train.D
	k := int(math.Round(publicFrac * float64(d)))
	perm := rng.Perm(d)[:k]
	public = make([]int, 0, k)
	mark := make([]bool, d)
	for _, j := range perm {
		mark[j] = true
	}
	for j, m := range mark {
		if m {
			public = append(public, j)
		}
	}
	return train, test, public, nil
}

// CriteoOptions configures CriteoLike. Zero values give the defaults
// in brackets.
type CriteoOptions struct {
	// N rows [50,000: the paper's 40k train + 10k validation/test].
	N int
	// Numeric features [13] and categorical features [26].
	Numeric, Categorical int
	// MinVocab, MaxVocab bound the vocabulary sizes, log-uniform [10, 10,000].
	MinVocab, MaxVocab int
	// Zipf is the exponent s > 1 of the category frequencies [1.2].
	Zipf float64
	// NumericSignal and CategoricalSignal scale the two parts of the true
	// logit [0.15, 1.0]: the numeric features are weak, as in Criteo.
	NumericSignal, CategoricalSignal float64
	// BaseRate is the target click rate [0.25].
	BaseRate float64
}

// withDefaults fills the zero fields with the defaults and validates the
// options.
func (o CriteoOptions) withDefaults() (CriteoOptions, error) {
	if o.N == 0 {
		o.N = 50000
	}
	if o.Numeric == 0 {
		o.Numeric = 13
	}
	if o.Categorical == 0 {
		o.Categorical = 26
	}
	if o.MinVocab == 0 {
		o.MinVocab = 10
	}
	if o.MaxVocab == 0 {
		o.MaxVocab = 10000
	}
	if o.Zipf == 0 {
		o.Zipf = 1.2
	}
	if o.NumericSignal == 0 {
		o.NumericSignal = 0.15
	}
	if o.CategoricalSignal == 0 {
		o.CategoricalSignal = 1
	}
	if o.BaseRate == 0 {
		o.BaseRate = 0.25
	}
	switch {
	case o.N < 0 || o.Numeric < 0 || o.Categorical < 0 || o.Numeric+o.Categorical == 0:
		return o, fmt.Errorf("fdp: CriteoLike: N = %d, %d numeric, %d categorical", o.N, o.Numeric, o.Categorical)
	case o.MinVocab < 2 || o.MaxVocab < o.MinVocab:
		return o, fmt.Errorf("fdp: CriteoLike: vocabulary range [%d, %d], want 2 ≤ min ≤ max", o.MinVocab, o.MaxVocab)
	case !(o.Zipf > 1):
		return o, fmt.Errorf("fdp: CriteoLike: Zipf exponent %v, want > 1", o.Zipf)
	case !(o.BaseRate > 0 && o.BaseRate < 1):
		return o, fmt.Errorf("fdp: CriteoLike: base rate %v, want in (0, 1)", o.BaseRate)
	}
	return o, nil
}

// CriteoLike draws the synthetic Criteo-like click data of E4
// (docs/feature-dp.md, 'Stand-in data'): Numeric log1p-transformed log-normal counts (standardised), and
// Categorical features with Zipf(s) frequencies over vocabularies of
// log-uniform size in [MinVocab, MaxVocab]. The label is Bernoulli of a
// logistic model whose categorical part (one N(0,1) weight per category,
// scaled) carries most of the signal; the intercept is set so that the click
// rate is about BaseRate. Row layout (D = Numeric + Categorical columns):
// the numeric values, then the category indices as float64. The
// vocabulary sizes are returned for the embedding model. A stand-in for the
// Criteo day-0 sample the paper uses.
//
// Errors: nil rng, invalid sizes, Zipf ≤ 1, BaseRate outside (0, 1).
func CriteoLike(o CriteoOptions, rng *rand.Rand) (*design.Data, []int, error) {
	if rng == nil {
		return nil, nil, errors.New("fdp: CriteoLike: nil rng")
	}
	o, err := o.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	vocab := make([]int, o.Categorical)
	zipfs := make([]*rand.Zipf, o.Categorical)
	catW := make([][]float64, o.Categorical)
	lmin, lmax := math.Log(float64(o.MinVocab)), math.Log(float64(o.MaxVocab))
	for c := range vocab {
		vocab[c] = int(math.Round(math.Exp(lmin + (lmax-lmin)*rng.Float64())))
		zipfs[c] = rand.NewZipf(rng, o.Zipf, 1, uint64(vocab[c]-1))
		catW[c] = fillNormal(make([]float64, vocab[c]), rng)
	}
	numW := fillNormal(make([]float64, o.Numeric), rng)
	d := o.Numeric + o.Categorical
	x := make([]float64, o.N*d)
	logit := make([]float64, o.N)
	cs := o.CategoricalSignal / math.Sqrt(math.Max(1, float64(o.Categorical)/4))
	ns := o.NumericSignal / math.Sqrt(math.Max(1, float64(o.Numeric)))
	for i := range o.N {
		row := x[i*d : (i+1)*d]
		var z float64
		for j := range o.Numeric {
			v := (math.Log1p(math.Exp(1+1.5*rng.NormFloat64())) - 2.2) / 1.3 // standardised log1p count
			row[j] = v
			z += ns * numW[j] * v
		}
		for c := range o.Categorical {
			k := int(zipfs[c].Uint64())
			row[o.Numeric+c] = float64(k)
			z += cs * catW[c][k]
		}
		logit[i] = z
	}
	// Intercept so that the mean click probability is BaseRate (bisection).
	lo, hi := -20.0, 20.0
	for range 100 {
		mid := 0.5 * (lo + hi)
		var p float64
		for _, z := range logit {
			p += 1 / (1 + math.Exp(-(z + mid)))
		}
		if p/float64(o.N) > o.BaseRate {
			hi = mid
		} else {
			lo = mid
		}
	}
	y := make([]float64, o.N)
	for i, z := range logit {
		if rng.Float64() < 1/(1+math.Exp(-(z+lo))) {
			y[i] = 1
		}
	}
	data, err := design.NewData(x, y, o.N, d)
	return data, vocab, err
}
