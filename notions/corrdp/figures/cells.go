package figures

import (
	"fmt"
	"math"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/corrdp"
)

// CorrDP figures: Fig. 1a–f, Fig. 2a–d and Table 2 of
// Wang, Zhang & Cummings. Paper mode (Sec. 5, App. E): σ0² = C(log(1/δ)+1)/ε²,
// Standard σ² = σ0², Semi 0 on insensitive coordinates, CorrDP σ0²·TV~(i);
// no accountant is run (see corrdp.Honesty for what the noise really gives). Every
// method of one (ε, seed) shares its random numbers (batches,
// initialisation and standard-normal draws) — paired comparisons.

// Variant is one method the CorrDP figures compare: a noise allocation
// (CorrDP, Semi, Standard) or a baseline (Partial, NonPrivate).
type Variant int

const (
	// VariantCorrDP adds σ0²·TV(i) on insensitive coordinates (Corr).
	VariantCorrDP Variant = iota
	// VariantSemi adds no noise on insensitive coordinates (Semi).
	VariantSemi
	// VariantStandard adds σ0² everywhere (Standard).
	VariantStandard
	// VariantPartial drops the sensitive columns and fits without noise.
	VariantPartial
	// VariantNonPrivate trains without noise.
	VariantNonPrivate
)

// String returns the method name of the tidy CSV ("CorrDP", "Semi",
// "Standard", "Partial", "NonPrivate").
func (v Variant) String() string {
	switch v {
	case VariantCorrDP:
		return "CorrDP"
	case VariantSemi:
		return "Semi"
	case VariantStandard:
		return "Standard"
	case VariantPartial:
		return "Partial"
	case VariantNonPrivate:
		return "NonPrivate"
	}
	return fmt.Sprintf("Variant(%d)", int(v))
}

// Allocation returns the noise allocation of a noisy variant, and false
// for Partial and NonPrivate.
func (v Variant) Allocation() (corrdp.Method, bool) {
	switch v {
	case VariantCorrDP:
		return corrdp.Corr, true
	case VariantSemi:
		return corrdp.Semi, true
	case VariantStandard:
		return corrdp.Standard, true
	}
	return 0, false
}

// TVMode says which TVs a CorrDP curve uses.
type TVMode string

const (
	// TVPaper uses the TVs given by the paper (or by the user).
	TVPaper TVMode = "paper"
	// TVEstimated uses TV~, the plug-in estimate plus the Def. 4.3 UCB.
	TVEstimated TVMode = "estimated"
	// tvUCB and tvPlugIn are the synthetic figures' TV~ with c2 = 1 and
	// the plain plug-in TV^ (c2 = 0).
	tvUCB    TVMode = "c2=1"
	tvPlugIn TVMode = "c2=0"
)

// label names a non-default TV mode in a method name.
func (m TVMode) label() string {
	if m == TVEstimated {
		return "estimated TV"
	}
	return string(m)
}

// seedBase is the base seed of every CorrDP figure.
const seedBase uint64 = 0xC022D9

// EpsGrid is the ε grid of docs/corrdp.md (the paper does not give one).
var EpsGrid = []float64{0.1, 0.2, 0.3, 0.5, 1, 2, 3, 5}

// quickEps is the quick-profile grid of the synthetic figures.
var quickEps = []float64{0.1, 0.3, 1, 5}

// cGrid is the candidate set of the Standard-only C rule (docs/corrdp.md,
// 'Noise constant C'),
// largest first.
var cGrid = []float64{1, 3e-1, 1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4}

// cellConfig is the Config of a CorrDP comparison cell.
type cellConfig struct {
	Variant Variant
	// Rep is the replicate; DataSeed the seed of its data draw (synthetic).
	Rep      int
	DataSeed uint64
	// TVMode is the TVs of a CorrDP cell ("" for the first mode of a
	// figure without modes and for the other variants).
	TVMode TVMode
}

// String describes the cell configuration for error messages.
func (c cellConfig) String() string {
	return fmt.Sprintf("variant=%v rep=%d data seed=%d tv=%v", c.Variant, c.Rep, c.DataSeed, c.TVMode)
}

// makeCells builds the cells of a figure: for every rep and ε, one cell
// per variant (+ TV modes of CorrDP). All cells of one (ε, rep) share the
// seed (common random numbers).
func makeCells(id string, variants []Variant, tvModes []TVMode, eps []float64, reps int) []experiments.Cell {
	var cells []experiments.Cell
	for _, v := range variants {
		modes := []TVMode{""}
		if v == VariantCorrDP && len(tvModes) > 0 {
			modes = tvModes
		}
		for k, mode := range modes {
			name := v.String()
			if k > 0 {
				name += " (" + mode.label() + ")"
			}
			for _, x := range eps {
				for r := 0; r < reps; r++ {
					cells = append(cells, experiments.Cell{
						Method: name, X: x, Rep: r,
						Seed: experiments.CellSeed(seedBase, id, "crn", x, r),
						Config: cellConfig{Variant: v, Rep: r, DataSeed: experiments.CellSeed(seedBase, id, "data", 0, r),
							TVMode: mode},
					})
				}
			}
		}
	}
	return cells
}

func configOf(c experiments.Cell) (cellConfig, error) {
	cfg, ok := c.Config.(cellConfig)
	if !ok {
		return cfg, fmt.Errorf("cell config is %T, want cellConfig", c.Config)
	}
	return cfg, nil
}

func paperSigma0(c, eps, delta float64) (float64, error) {
	s2, err := corrdp.Sigma0Sq(c, eps, delta)
	if err != nil {
		return 0, err
	}
	return math.Sqrt(s2), nil
}
