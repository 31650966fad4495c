// Package mechanisms holds everything in featuredp that draws randomness:
// seeded, splittable random streams (and a crypto-grade source), Laplace and
// Gaussian noise with per-coordinate scales, the classic Laplace and
// Gaussian mechanisms, batch samplers (Poisson, uniform without
// replacement, shuffled epochs, full batch), and one noisy gradient-descent
// engine (Train) that is configured, not copied, for every notion (the
// notion-specific plans and helpers live in notions/…):
//
//   - DP-SGD (Abadi et al. 2016, Opacus conventions): Poisson batches,
//     per-example L2 clipping, Gaussian noise z·C on the clipped sum,
//     division by the expected batch size q·n (NoisePlan DPSGD).
//   - CorrDP-SGD (notions/corrdp; Wang, Zhang & Cummings): noise b ~ N(0, diag σ²) added
//     to the batch-averaged gradient with Standard, Semi or CorrDP (Weighted,
//     FeatureWeights) plans, global-norm clipping before noise, the theory
//     step size D/√((L²+Σσ²)t) and projection onto an L2 ball.
//   - Feature DP, Algorithm 1 (notions/fdp; Mahloujifar et al.): a Poisson private
//     batch with ℓ_priv = ℓ(x) − ℓ_pub(Ψ(x)) clipped per example, an
//     independent uniform public batch from a separate stream, g = g_pub +
//     α·g̃_priv, SGD / momentum / Adam, and public pre-training steps
//     (PublicTerm).
//   - DP-GD (notions/smoothdp): full batch, g = (1/n)Σ∇ℓ + N(0, σ²I),
//     projection and the averaged iterate.
//
// Randomness comes only from explicit streams (Streams): the same seed gives
// bit-identical output on every run and whatever GOMAXPROCS is. A mechanism
// reports what the accountant needs (accounting.Phase) and does not compute
// ε itself.
//
// Randomness: every entry point takes an explicit Mode. Reproducible (the
// default) draws everything from seeded streams — for experiments; the
// output is not a private release, since anyone with the seed (0 when none
// is set) can regenerate it. Secure draws batch sampling, noise, shuffles
// and initialisation from the OS CSPRNG (NewSecureStreams) — for a release.
//
// Floating-point safety: LaplaceMechanism, GaussianMechanism and the
// engine's DP-SGD noise sample in float64 (inverse CDF, ziggurat), like
// Opacus; released with full precision, such outputs are open to the
// least-significant-bit attacks of Mironov (CCS 2012), whatever the
// generator. DiscreteLaplaceRelease and DiscreteGaussianRelease are the
// floating-point-safe releases (exact discrete samplers of Canonne, Kamath
// & Steinke 2020 on a grid, the rounding added to the sensitivity). The
// engine keeps the continuous Gaussian: its subsampled RDP accountant is
// proven for that distribution; a discrete-Gaussian DP-SGD would need an
// amplification-by-subsampling analysis of the discrete Gaussian that
// featuredp does not implement yet.
package mechanisms
