package figures

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/featuredp/featuredp/notions/bcdp"

	"github.com/featuredp/featuredp/mechanisms"
)

// BCDP figure modes (the Extra column "mode").
const (
	// ModePaper reproduces the authors' scripts: the printed
	// (2×) Duchi constant, each round's mean projected onto the ℓ2 ball of
	// radius √D_k and the estimate onto radius √d; the LDP baseline is
	// unprojected in Figure 3 and projected onto radius √d in Figure 4.
	ModePaper = "paper"
	// ModeUnbiased uses the unbiased Duchi constant (the library default)
	// and clips both methods' estimates to the box [−1,1]^d (the Π of
	// Theorem 2).
	ModeUnbiased = "unbiased"
)

// MeanSetting is one point of a BCDP mean-estimation experiment (App.
// B.1 and the authors' Figure 4 scripts): n users with ±1 data from prior
// (60) with correlation Q, demanded BCDP levels Delta (sorted), LDP level
// Eps, the paper's heuristic ζ = (1+q)/2.
type MeanSetting struct {
	N     int
	Delta []float64
	Eps   float64
	Q     float64
	Mode  string
	// BaselineProjected says whether the LDP baseline is projected in paper
	// mode (false in the authors' Figure 3 script, true in Figure 4).
	BaselineProjected bool
	// Unprojected, if set, returns every method's raw server mean ν̄ (the
	// quantity of the exact error formula, PredictedMSE).
	Unprojected bool
}

// Method is a mean-estimation method: how the per-coordinate levels c of
// Mechanism 1 are chosen from a setting. Its String is the label of the
// figures' method column.
type Method int

const (
	// MethodBCDP is the paper's method: the Theorem 2 allocation with the
	// heuristic ζ = (1+q)/2 (label "BCDP").
	MethodBCDP Method = iota
	// MethodLDP is the min-δ LDP baseline: the Duchi channel at min_i δ̃_i on
	// every coordinate (label "LDP").
	MethodLDP
	// MethodZetaHalf is the Theorem 2 allocation with Corollary 1's ζ = 1/2.
	MethodZetaHalf
	// MethodZetaOpt is OUR ζ-opt (ZetaOptimal: ζ minimising the exact
	// predicted error over a 200-point grid, a public computation; not in
	// the paper).
	MethodZetaOpt
)

// String returns the method's label: "BCDP", "LDP", "BCDP ζ=1/2" or
// "BCDP ζ-opt (ours)".
func (m Method) String() string {
	switch m {
	case MethodBCDP:
		return "BCDP"
	case MethodLDP:
		return "LDP"
	case MethodZetaHalf:
		return "BCDP ζ=1/2"
	case MethodZetaOpt:
		return "BCDP ζ-opt (ours)"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// paperMode reports whether s is in paper mode, and errors on an unknown
// mode.
func (s MeanSetting) paperMode() (bool, error) {
	switch s.Mode {
	case ModePaper:
		return true, nil
	case ModeUnbiased:
		return false, nil
	}
	return false, fmt.Errorf("bcdp: unknown mode %q (want %q or %q)", s.Mode, ModePaper, ModeUnbiased)
}

// Allocation returns the levels method m gives in setting s (for
// MethodLDP the uniform min-δ allocation).
func (s MeanSetting) Allocation(m Method) (bcdp.Allocation, error) {
	paper, err := s.paperMode()
	if err != nil {
		return bcdp.Allocation{}, err
	}
	switch m {
	case MethodBCDP:
		return bcdp.Allocate(s.Delta, s.Eps, s.Q, bcdp.ZetaHeuristic(s.Q))
	case MethodZetaHalf:
		return bcdp.Allocate(s.Delta, s.Eps, s.Q, bcdp.ZetaHalf)
	case MethodZetaOpt:
		a, _, err := bcdp.ZetaOptimal(s.Delta, s.Eps, s.Q, s.N, 200, bcdp.MSEOptions{PaperConstant: paper})
		return a, err
	case MethodLDP:
		return bcdp.UniformAllocation(s.Delta, s.Eps)
	}
	return bcdp.Allocation{}, fmt.Errorf("bcdp: unknown method %v", m)
}

// PredictedMSE returns the exact expected squared error of the
// UNPROJECTED server mean of method m in setting s for ±1 data
// (bcdp.PredictedMSE; with the paper constant, the variance
// around 2x̄).
func (s MeanSetting) PredictedMSE(m Method) (float64, error) {
	paper, err := s.paperMode()
	if err != nil {
		return 0, err
	}
	a, err := s.Allocation(m)
	if err != nil {
		return 0, err
	}
	mse, _, err := bcdp.PredictedMSE(a.Sorted, s.N, bcdp.MSEOptions{PaperConstant: paper})
	return mse, err
}

// mechanismFor builds the mechanism and projection of a method in a
// setting.
func mechanismFor(s MeanSetting, method Method) (*bcdp.Mean, bcdp.Projection, error) {
	m, p, err := mechanismProj(s, method)
	if s.Unprojected {
		p = bcdp.ProjectNone
	}
	return m, p, err
}

func mechanismProj(s MeanSetting, method Method) (*bcdp.Mean, bcdp.Projection, error) {
	paper, err := s.paperMode()
	if err != nil {
		return nil, 0, err
	}
	a, err := s.Allocation(method)
	if err != nil {
		return nil, 0, err
	}
	o := bcdp.MeanOptions{PaperConstant: paper}
	proj := bcdp.ProjectBox
	if paper {
		proj = bcdp.ProjectRoundBalls
	}
	if method == MethodLDP {
		if paper && !s.BaselineProjected {
			proj = bcdp.ProjectNone
		}
		m, err := bcdp.NewBaseline(len(s.Delta), a.DeltaTilde[0], o)
		return m, proj, err
	}
	m, err := bcdp.NewMean(a.C, o)
	return m, proj, err
}

// drawRecord draws one ±1 record from prior (60) into x.
func drawRecord(rng *rand.Rand, q float64, x []float64) {
	if q > 0 && rng.Float64() < q {
		v := float64(2*int(rng.Uint64()&1) - 1)
		for i := range x {
			x[i] = v
		}
		return
	}
	var bits uint64
	for i := range x {
		if i%64 == 0 {
			bits = rng.Uint64()
		}
		x[i] = float64(2*int(bits&1) - 1)
		bits >>= 1
	}
}

// MeanTrial runs one trial of a mean-estimation experiment: it streams
// s.N users (data from dataSeed, shared by the methods of a trial; mechanism
// noise from noiseSeed), never storing the n×d releases, and returns the
// squared ℓ2 distance between the server's (projected) estimate and the
// users' empirical mean (the error of the authors' scripts and of Thm. 2).
func MeanTrial(ctx context.Context, s MeanSetting, method Method, dataSeed, noiseSeed uint64) (float64, error) {
	if s.N < 1 {
		return 0, fmt.Errorf("bcdp: trial: n = %d must be ≥ 1", s.N)
	}
	m, proj, err := mechanismFor(s, method)
	if err != nil {
		return 0, err
	}
	d := len(s.Delta)
	drng := mechanisms.NewStreams(dataSeed).Sampling()
	nrng := mechanisms.NewStreams(noiseSeed).Noise()
	sums := m.NewSums()
	x := make([]float64, d)
	mean := make([]float64, d)
	for j := 0; j < s.N; j++ {
		if j%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		drawRecord(drng, s.Q, x)
		for i, v := range x {
			mean[i] += v
		}
		sums.AddUnchecked(nrng, x)
	}
	est, err := sums.Estimate(proj)
	if err != nil {
		return 0, err
	}
	e := 0.0
	for i := range est {
		t := est[i] - mean[i]/float64(s.N)
		e += t * t
	}
	return e, nil
}
