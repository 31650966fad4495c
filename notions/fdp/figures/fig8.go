package figures

// fdp-fig8 (E5, setting B): the diffusion study's Fréchet distances at
// ε = 0.5, the stand-in for the paper's LSUN Bedroom experiment (Figs 8,
// 9); the study's code is in diffusion.go and ddpm.go.

import "github.com/featuredp/featuredp/experiments"

func init() {
	experiments.MustRegister(diffusionFigure("fdp-fig8", "E5 setting B (LSUN-like, unconditional, ε = 0.5): Fréchet distance by method",
		"samples compared with", func(x float64) string {
			if x == 1 {
				return "training images"
			}
			return "validation images"
		}, DiffusionSettingB,
		"Stand-in for the paper's Fig. 8 (LSUN Bedroom, FID vs 2,000 training and 300 validation images; non-private 26.5, "+
			"public 264.2, FDP (DP-SGD) 42.4, FDP (Alg. 1) 43.2): a different metric on different data (docs/feature-dp.md). "+
			"x = 0 compares with validation images, x = 1 with training images, as the paper does."))
}
