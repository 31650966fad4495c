package figures

// fdp-fig7 (E5, setting A): the diffusion study's Fréchet distances at
// ε = 8, the stand-in for the paper's AFHQ experiment (Figs 6, 7); the
// study's code is in diffusion.go and ddpm.go.

import "github.com/featuredp/featuredp/experiments"

func init() {
	experiments.MustRegister(diffusionFigure("fdp-fig7", "E5 setting A (AFHQ-like, ε = 8): Fréchet distance by method",
		"samples compared with the validation images of", classTick, DiffusionSettingA,
		"Stand-in for the paper's Fig. 7 (AFHQ, FID of a 32.8M-parameter U-Net; non-private 25.2, public 149.1, DP 286.7, "+
			"FDP (DP-SGD) 115.5, FDP (Alg. 1) 101.9): a different metric on different data, so only the ordering can be compared "+
			"(docs/feature-dp.md, 'Private image generation'). x = 0 is the FD against all validation images, x = k against class k−1's. "+
			"The ref: series frame the scale: N(0, I) noise, the blurred training images Ψ(X) and real training images. Other metrics: "+
			"fd_pixel, sample_accuracy (the classifier's accuracy on the samples against their conditioning class); columns epsilon "+
			"(the accountant's, for the trained run), z, noise_ratio (z·√P/m: the norm of the noise on the averaged private gradient over the "+
			"largest norm C of its signal), lr (the held-out choice), kept (the filter's pass rate)."))
}
