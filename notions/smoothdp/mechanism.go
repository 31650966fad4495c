package smoothdp

// Mechanisms of "Provable Privacy with Non-Private Pre-Processing":
// the exponential mechanism, DP-GD / DP-SGD with
// subsampling / DP-FGD / DP-SGD with iteration as configurations of the one
// engine Train (no new loop), Analyze-Gauss DP-PCA (Dwork et al. 2014)
// and propose-test-release for PCA + DP-GD (Algorithm 1). Privacy is
// accounted by package accounting (Smooth… curves, replace-one neighbours).

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
	"gonum.org/v1/gonum/mat"
)

// Exponential is the exponential mechanism over a finite set: it returns h with probability ∝ exp(ε·u_h/(2Δ)), sampled by the
// inverse CDF of the softmax (log-sum-exp, one uniform). It is ε-DP when
// every score has sensitivity Δ (replace-one); its SRDP is εLη/Δ
// (ExponentialSRDP). The sampling is float64 arithmetic on rng, for
// experiments: it is not floating-point safe, so a deployment should not
// rely on it for the exact ε. Errors: nil rng, empty or non-finite
// scores, ε ≤ 0 or Δ ≤ 0.
func Exponential(rng *rand.Rand, scores []float64, eps, sens float64) (int, error) {
	if rng == nil {
		return 0, mechanisms.ErrNilRand
	}
	if len(scores) == 0 {
		return 0, errors.New("smoothdp: exponential mechanism over an empty set")
	}
	if err := errors.Join(valid.Positive("ε", eps), valid.Positive("Δ", sens)); err != nil {
		return 0, fmt.Errorf("smoothdp: exponential mechanism: %w", err)
	}
	w := make([]float64, len(scores))
	mx := math.Inf(-1)
	for i, u := range scores {
		if err := valid.FiniteValue(fmt.Sprintf("score %d", i), u); err != nil {
			return 0, fmt.Errorf("smoothdp: %w", err)
		}
		w[i] = eps * u / (2 * sens)
		mx = math.Max(mx, w[i])
	}
	tot := 0.0
	for i := range w {
		w[i] = math.Exp(w[i] - mx)
		tot += w[i]
	}
	u := rng.Float64() * tot
	for i, v := range w {
		if u < v {
			return i, nil
		}
		u -= v
	}
	return len(w) - 1, nil
}

// GD are the parameters of the gradient-perturbation mechanisms of
// Table 1.
type GD struct {
	// Sigma is the std σ > 0 of the Gaussian noise on the averaged gradient.
	Sigma float64
	// Steps is T ≥ 1.
	Steps int
	// LR is the step size γ > 0.
	LR float64
	// Radius is the radius B of the parameter ball Θ (projection); 0 means
	// no projection (then the Lipschitz constants must hold on R^P).
	Radius float64
	// Init is θ₀ (nil: zeros, inside Θ).
	Init []float64
	// Mode is the randomness (mechanisms.Mode): Reproducible (the default)
	// draws from NewStreams(Seed) or Streams, for experiments, and is not a
	// private release; Secure draws the noise, the batches and (DPSGDIter)
	// the stopping time from the OS CSPRNG, and PTR's test from an exact
	// discrete Laplace. Streams must match the mode (mechanisms.StreamsFor).
	Mode mechanisms.Mode
	// Seed / Streams select the random streams of Reproducible mode (see
	// mechanisms.Config).
	Seed    uint64
	Streams *mechanisms.Streams
}

func (p GD) config(model models.Model, d *design.Data) (mechanisms.Config, error) {
	if model == nil || d == nil {
		return mechanisms.Config{}, errors.New("smoothdp: nil model or data")
	}
	if err := valid.Positive("σ", p.Sigma); err != nil {
		return mechanisms.Config{}, fmt.Errorf("smoothdp: %w", err)
	}
	plan, err := mechanisms.Standard(model.NumParams(), p.Sigma)
	if err != nil {
		return mechanisms.Config{}, err
	}
	init := p.Init
	if init == nil {
		init = make([]float64, model.NumParams())
	}
	return mechanisms.Config{Model: model, Data: d, Init: init, Steps: p.Steps, Noise: plan, Optimizer: mechanisms.SGD{LR: p.LR},
		ProjectRadius: p.Radius, Average: true, Mode: p.Mode, Seed: p.Seed, Streams: p.Streams}, nil
}

// DPGDConfig is DP-GD (𝒜_GD) as a Train configuration:
// FullBatch sampler, Standard noise plan σ on the mean gradient
// (1/n)Σ∇ℓ + N(0, σ²I), no clipping, SGD with step γ, projection onto the
// ball of radius B and the averaged iterate θ̄ (Result.Average). RDP:
// DPGDRDP (replace-one; the loss must be L-Lipschitz on Θ).
func DPGDConfig(model models.Model, d *design.Data, p GD) (mechanisms.Config, error) {
	cfg, err := p.config(model, d)
	cfg.Sampler = mechanisms.FullBatch{}
	return cfg, err
}

// DPGDLoss is the privacy loss of DP-GD run with these parameters on n
// records with a loss L-Lipschitz on Θ (lipschitz): DPGDRDP(n, p.Steps, L,
// p.Sigma) as an accounting.Loss (replace-one; Theorem 12), ready to be
// composed on an accounting.Ledger.
func (p GD) DPGDLoss(n int, lipschitz float64) (accounting.Loss, error) {
	c, err := DPGDRDP(n, p.Steps, lipschitz, p.Sigma)
	if err != nil {
		return accounting.Loss{}, err
	}
	return c.Loss()
}

// DPSGDSubConfig is DP-SGD with subsampling as analysed (𝒜^sub_SGD):
// one uniform index per step (UniformSubset{Size: 1}), g = ∇ℓ(θ; z_i) +
// N(0, σ²I), projection and averaging. RDP: SGDSubRDP.
func DPSGDSubConfig(model models.Model, d *design.Data, p GD) (mechanisms.Config, error) {
	cfg, err := p.config(model, d)
	cfg.Sampler = mechanisms.UniformSubset{Size: 1}
	return cfg, err
}

// Sequential is the fixed-order sampler of DP-FGD: step t uses row
// (t−1) mod n. It is stateful (Train calls Fresh) and draws no randomness.
type Sequential struct{ pos int }

// errNilSequential is the error of Validate and Sample on a nil
// *Sequential.
var errNilSequential = errors.New("smoothdp: nil *Sequential sampler: use &Sequential{} (its zero value is ready to use)")

// Validate returns an error if n ≤ 0 or s is nil.
func (s *Sequential) Validate(n int) error {
	if s == nil {
		return errNilSequential
	}
	if n <= 0 {
		return fmt.Errorf("smoothdp: sequential sampler needs n > 0 (got %d)", n)
	}
	return nil
}

// Expected returns 1.
func (s *Sequential) Expected(int) float64 { return 1 }

// Sample returns the next row index.
func (s *Sequential) Sample(_ *rand.Rand, n int, buf []int) ([]int, error) {
	if err := s.Validate(n); err != nil {
		return nil, err
	}
	buf = append(buf[:0], s.pos%n)
	s.pos++
	return buf, nil
}

// Fresh returns a sampler at row 0.
func (s *Sequential) Fresh() mechanisms.Sampler { return &Sequential{} }

// DPFGDConfig is DP-FGD: one pass in fixed order,
// θ_t = Π_Θ(θ_{t−1} − γ(∇ℓ(θ_{t−1}; z_t) + N(0, σ²I))), returning the last
// iterate (Result.Theta) after p.Steps ≤ n steps.
func DPFGDConfig(model models.Model, d *design.Data, p GD) (mechanisms.Config, error) {
	cfg, err := p.config(model, d)
	if err == nil && (p.Steps > d.N) {
		err = fmt.Errorf("smoothdp: DP-FGD makes one pass: T = %d > n = %d", p.Steps, d.N)
	}
	cfg.Sampler = &Sequential{}
	cfg.Average = false
	return cfg, err
}

// DPSGDIter is DP-SGD with iteration (𝒜^iter_SGD): it draws
// the stopping time T ~ Uniform{1..n} from the stream "smoothdp-stop" (the
// OS CSPRNG in Secure mode: the stopping time is secret too) and runs
// DP-FGD for T steps (p.Steps is ignored). It returns the result (last
// iterate in Theta, Result.Mode = p.Mode) and T. RDP: SGDIterRDP (convex,
// β_θ-smooth loss with γ ≤ 2/β_θ), which covers the last iterate alone:
// T, len(Result.BatchSizes) and anything OnStep saw reveal the stopping
// time and are not part of the release (publish Result.Theta only).
func DPSGDIter(ctx context.Context, model models.Model, d *design.Data, p GD) (*mechanisms.Result, int, error) {
	if d == nil || d.N < 1 {
		return nil, 0, errors.New("smoothdp: DP-SGD-iter needs data")
	}
	st, err := mechanisms.StreamsFor(p.Mode, p.Seed, p.Streams)
	if err != nil {
		return nil, 0, fmt.Errorf("smoothdp: DP-SGD-iter (GD.Mode, GD.Streams): %w", err)
	}
	t := 1 + st.Rand("smoothdp-stop").IntN(d.N)
	p.Steps, p.Streams = t, st
	cfg, err := DPFGDConfig(model, d, p)
	if err != nil {
		return nil, 0, err
	}
	res, err := mechanisms.Train(ctx, cfg)
	return res, t, err
}

// designRows copies the rows of d.
func designRows(d *design.Data) [][]float64 {
	rows := make([][]float64, d.N)
	for i := range rows {
		rows[i] = append([]float64(nil), d.X[i*d.D:(i+1)*d.D]...)
	}
	return rows
}

// Project applies a fitted pre-processing point-wise to the features of
// d (labels unchanged). Removed points (⊥) are an error here.
func Project(d *design.Data, f Fitted) (*design.Data, error) {
	if d == nil || f == nil {
		return nil, errors.New("smoothdp: nil data or pre-processing")
	}
	var x []float64
	dim := -1
	for i := 0; i < d.N; i++ {
		y, ok := f.Apply(d.X[i*d.D : (i+1)*d.D])
		if !ok {
			return nil, fmt.Errorf("smoothdp: row %d removed by the pre-processing", i)
		}
		if dim < 0 {
			dim = len(y)
		}
		x = append(x, y...)
	}
	return design.NewData(x, append([]float64(nil), d.Y...), d.N, dim)
}

// AnalyzeGauss is Analyze-Gauss DP-PCA (Dwork et al. 2014
// baseline): it adds a symmetric Gaussian matrix (i.i.d. N(0, σ²) on and
// above the diagonal, mirrored) to (1/n)Σ x_i x_iᵀ — replace-one Frobenius
// sensitivity 2R²/n, so the release has Gaussian RDP α(2R²/n)²/(2σ²) — and
// returns the top-s eigenvectors as a rank-reduction fit. The noise is
// float64 from rng (not floating-point safe); AnalyzeGaussRelease takes the
// Mode and is floating-point safe in Secure mode.
func AnalyzeGauss(rng *rand.Rand, d *design.Data, s int, sigma float64) (*PCAFit, error) {
	if rng == nil {
		return nil, mechanisms.ErrNilRand
	}
	A, err := secondMoment(d, s, sigma)
	if err != nil {
		return nil, err
	}
	return noisyTopEigen(rng, A, s, sigma)
}

// noisyTopEigen adds i.i.d. N(0, σ²) from rng on and above the diagonal of
// A (mirrored) and returns its top-s eigenvectors.
func noisyTopEigen(rng *rand.Rand, A *mat.SymDense, s int, sigma float64) (*PCAFit, error) {
	for i, n := 0, A.SymmetricDim(); i < n; i++ {
		for j := i; j < n; j++ {
			A.SetSym(i, j, A.At(i, j)+sigma*rng.NormFloat64())
		}
	}
	return topEigen(A, s)
}

// AnalyzeGaussRelease is Analyze-Gauss DP-PCA with the randomness chosen by
// mode. Both modes need every row in the ball ‖x_i‖₂ ≤ radius R, so that
// the release's label carries the sensitivity 2R²/n (Release.Loss).
// Reproducible: AnalyzeGauss(st.Rand("dp-pca"), d, s, sigma), bit for
// bit (st is required). Secure (st nil or NewSecureStreams()): the upper
// triangle of (1/n)Σ x_i x_iᵀ, a vector of ℓ2 sensitivity at most its
// Frobenius sensitivity 2R²/n (every row must have ‖x_i‖₂ ≤ radius R), is
// released by mechanisms.GaussianRelease — exact discrete Gaussian noise on
// a power-of-two grid from the OS CSPRNG, floating-point safe, with the
// same RDP α(2R²/n)²/(2σ²) — and the eigenvectors are computed from the
// released matrix (post-processing). It returns the fit and the release's
// label (Mode, grid, noise).
func AnalyzeGaussRelease(mode mechanisms.Mode, st *mechanisms.Streams, d *design.Data, s int, sigma, radius float64) (*PCAFit, *mechanisms.Release, error) {
	if err := mode.Validate(); err != nil {
		return nil, nil, fmt.Errorf("smoothdp: Analyze-Gauss: %w", err)
	}
	if mode == mechanisms.Reproducible {
		if st == nil || st.Secure() {
			return nil, nil, errors.New("smoothdp: Analyze-Gauss: Reproducible mode needs seeded streams (mechanisms.NewStreams(seed)); use Mode Secure for a release")
		}
	}
	A, err := secondMoment(d, s, sigma)
	if err != nil {
		return nil, nil, err
	}
	if err := checkRadius(d, radius); err != nil {
		return nil, nil, err
	}
	sens := 2 * radius * radius / float64(d.N)
	if mode == mechanisms.Reproducible {
		fit, err := noisyTopEigen(st.Rand("dp-pca"), A, s, sigma)
		return fit, &mechanisms.Release{Kind: mechanisms.GaussianNoise, Mode: mode, Scale: sigma, Sensitivity: sens}, err
	}
	upper := make([]float64, 0, d.D*(d.D+1)/2)
	for i := 0; i < d.D; i++ {
		for j := i; j < d.D; j++ {
			upper = append(upper, A.At(i, j))
		}
	}
	rel, err := mechanisms.GaussianRelease(mode, st, upper, sens, sigma)
	if err != nil {
		return nil, nil, fmt.Errorf("smoothdp: Analyze-Gauss: %w", err)
	}
	k := 0
	for i := 0; i < d.D; i++ {
		for j := i; j < d.D; j++ {
			A.SetSym(i, j, rel.Value[k])
			k++
		}
	}
	fit, err := topEigen(A, s)
	return fit, rel, err
}

// checkRadius returns an error unless every row of d has ‖x‖₂ ≤ radius.
func checkRadius(d *design.Data, radius float64) error {
	if err := valid.Positive("radius R", radius); err != nil {
		return fmt.Errorf("smoothdp: Analyze-Gauss: %w", err)
	}
	for i := 0; i < d.N; i++ {
		if nr := mat.Norm(mat.NewVecDense(d.D, d.X[i*d.D:(i+1)*d.D]), 2); nr > radius {
			return fmt.Errorf("smoothdp: Analyze-Gauss: row %d has norm %v > R = %v (the sensitivity 2R²/n needs every row in the ball; rescale or raise R)", i, nr, radius)
		}
	}
	return nil
}

// secondMoment validates Analyze-Gauss's arguments and returns
// (1/n)Σ x_i x_iᵀ.
func secondMoment(d *design.Data, s int, sigma float64) (*mat.SymDense, error) {
	if d == nil || d.N < 1 || s < 1 || s >= d.D {
		return nil, errors.New("smoothdp: Analyze-Gauss needs data and 1 ≤ s < d")
	}
	if err := valid.NonNegative("σ", sigma); err != nil {
		return nil, fmt.Errorf("smoothdp: %w", err)
	}
	X := mat.NewDense(d.N, d.D, append([]float64(nil), d.X...))
	A := mat.NewSymDense(d.D, nil)
	A.SymOuterK(1/float64(d.N), X.T())
	return A, nil
}

// topEigen returns the top-s eigenvectors of A as a rank-reduction fit.
func topEigen(A *mat.SymDense, s int) (*PCAFit, error) {
	var es mat.EigenSym
	if !es.Factorize(A, true) {
		return nil, errors.New("smoothdp: Analyze-Gauss eigen-decomposition failed")
	}
	n := A.SymmetricDim()
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	vals := es.Values(nil)
	V := mat.NewDense(n, s, nil)
	desc := make([]float64, n)
	for k := 0; k < n; k++ {
		desc[k] = vals[n-1-k]
	}
	for k := 0; k < s; k++ {
		for j := 0; j < n; j++ {
			V.Set(j, k, vecs.At(j, n-1-k))
		}
	}
	return &PCAFit{V: V, Values: desc}, nil
}

// PTRConfig configures Algorithm 1.
type PTRConfig struct {
	Model models.Model
	Data  *design.Data // features in the ball of radius R
	Rank  int          // target rank s
	GHat  float64      // proposed eigengap lower bound ĝ > 0
	Eps0  float64      // test budget ε₀ > 0
	Delta float64      // δ ∈ (0, 1)
	R     float64      // data radius
	GD    GD           // DP-GD parameters (its Mode / Seed / Streams also drive the test)
}

// PTRResult is the outcome of Algorithm 1.
type PTRResult struct {
	Refused   bool    // ⊥ was returned
	Gap       float64 // λ_s − λ_{s+1} of the data (not released)
	Gamma     int     // γ_S (not released)
	Noisy     float64 // γ_S + Lap(1/ε₀) (Secure: + discrete Laplace, an integer)
	Threshold float64 // log(1/δ)/ε₀ (Secure: PTRSecureThreshold)
	Projected *design.Data
	Train     *mechanisms.Result // nil if refused
	Mode      mechanisms.Mode    // the randomness used (GD.Mode)
}

// PTR runs Algorithm 1 (PTR for PCA rank reduction + DP-GD) [R]:
// γ_S = max(0, ⌊n(gap − ĝ)/(12R²)⌋) (PTRGamma), Ĝ = γ_S +
// Lap(1/ε₀) from the stream "smoothdp-ptr"; if Ĝ ≤ log(1/δ)/ε₀ it refuses
// (Refused, no training), else it projects the features on the top-s
// eigenspace of the covariance and runs DP-GD. The whole algorithm is
// (ε₀ + ε', δ)-DP for every dataset of size n (Theorem 7,
// PTREpsilon; replace-one).
//
// In Secure mode (GD.Mode) every draw comes from the OS CSPRNG and the test
// is floating-point safe: γ_S is an integer of sensitivity 1, Ĝ = γ_S + Y
// with Y the exact discrete Laplace P[Y = y] ∝ e^{−ε₀|y|} (Canonne, Kamath
// & Steinke 2020), which is exactly ε₀-DP, and the threshold is
// PTRSecureThreshold, the smallest integer with Pr[Y > threshold] ≤ δ/2,
// the failure probability of the continuous test; so Theorem 7 holds as
// stated. The result's Mode says which test ran.
func PTR(ctx context.Context, cfg PTRConfig) (*PTRResult, error) {
	if cfg.Data == nil || cfg.Model == nil {
		return nil, errors.New("smoothdp: PTR needs a model and data")
	}
	if err := errors.Join(valid.Positive("Eps0 (ε₀)", cfg.Eps0), valid.Open01("Delta (δ)", cfg.Delta)); err != nil {
		return nil, fmt.Errorf("smoothdp: PTR: %w", err)
	}
	rows := designRows(cfg.Data)
	pca := PCA{Rank: cfg.Rank, R: cfg.R}
	fit, err := pca.FitPCA(rows)
	if err != nil {
		return nil, fmt.Errorf("PTR: %w", err)
	}
	st, err := mechanisms.StreamsFor(cfg.GD.Mode, cfg.GD.Seed, cfg.GD.Streams)
	if err != nil {
		return nil, fmt.Errorf("smoothdp: PTR (GD.Mode, GD.Streams): %w", err)
	}
	out := &PTRResult{Gap: fit.Values[cfg.Rank-1] - fit.Values[cfg.Rank], Mode: cfg.GD.Mode}
	if out.Gamma, err = PTRGamma(cfg.Data.N, out.Gap, cfg.GHat, cfg.R); err != nil {
		return nil, err
	}
	if out.Noisy, out.Threshold, err = ptrTest(cfg.GD.Mode, st.Rand("smoothdp-ptr"), out.Gamma, cfg.Eps0, cfg.Delta); err != nil {
		return nil, err
	}
	if out.Noisy <= out.Threshold {
		out.Refused = true
		return out, nil
	}
	if out.Projected, err = Project(cfg.Data, fit); err != nil {
		return nil, err
	}
	gd := cfg.GD
	gd.Streams = st.Derive("smoothdp-dpgd")
	c, err := DPGDConfig(cfg.Model, out.Projected, gd)
	if err != nil {
		return nil, err
	}
	if out.Train, err = mechanisms.Train(ctx, c); err != nil {
		return nil, fmt.Errorf("PTR DP-GD: %w", err)
	}
	return out, nil
}

// ptrTest returns Algorithm 1's noisy statistic Ĝ and its threshold:
// γ + Lap(1/ε₀) against log(1/δ)/ε₀ in Reproducible mode (float64 inverse
// CDF, for experiments), γ + discrete Laplace(1/ε₀) against
// PTRSecureThreshold in Secure mode.
func ptrTest(mode mechanisms.Mode, rng *rand.Rand, gamma int, eps0, delta float64) (noisy, threshold float64, err error) {
	if mode == mechanisms.Reproducible {
		lap, err := mechanisms.Laplace(rng, 1/eps0)
		if err != nil {
			return 0, 0, err
		}
		return float64(gamma) + lap, PTRThreshold(eps0, delta), nil
	}
	thr, err := PTRSecureThreshold(eps0, delta)
	if err != nil {
		return 0, 0, err
	}
	// P[Y = y] ∝ exp(−|y|·s/t) with s/t = ε₀ exactly (ε₀ as a rational).
	e := new(big.Rat).SetFloat64(eps0)
	y := mechanisms.DiscreteLaplace(rng, e.Num(), e.Denom())
	if !y.IsInt64() || y.Int64() > math.MaxInt32 || y.Int64() < math.MinInt32 {
		// Probability below exp(−2³¹·ε₀): the sign decides the test.
		return float64(y.Sign()) * math.MaxInt32, float64(thr), nil
	}
	return float64(int64(gamma) + y.Int64()), float64(thr), nil
}

// PTRSecureThreshold is the threshold of Algorithm 1's test in Secure mode:
// the smallest integer T ≥ 0 with Pr[Y > T] ≤ δ/2 for the discrete Laplace
// P[Y = y] ∝ e^{−ε₀|y|}, whose tail is Pr[Y ≥ m] = e^{−ε₀m}/(1 + e^{−ε₀})
// for m ≥ 1 (Canonne, Kamath & Steinke 2020):
//
//	T = max(0, ⌈log(2/(δ(1 + e^{−ε₀})))/ε₀⌉ − 1),
//
// computed with a relative margin of 10⁻¹² upwards so that float64
// rounding can only raise T. The continuous test's failure probability is
// Pr[Lap(1/ε₀) > log(1/δ)/ε₀] = δ/2, so Theorem 7's δ is unchanged.
func PTRSecureThreshold(eps0, delta float64) (int, error) {
	if err := errors.Join(valid.Positive("ε₀", eps0), valid.Open01("δ", delta)); err != nil {
		return 0, fmt.Errorf("smoothdp: PTR: %w", err)
	}
	m := math.Log(2/(delta*(1+math.Exp(-eps0)))) / eps0
	m = math.Ceil(m*(1+1e-12) + 1e-12)
	if m > math.MaxInt32 {
		return 0, fmt.Errorf("smoothdp: PTR threshold log(2/δ)/ε₀ = %v is too large (raise ε₀ = %v)", m, eps0)
	}
	return max(0, int(m)-1), nil
}
