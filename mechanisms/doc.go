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
// A mode that does not match the streams given is an error (StreamsFor), so
// a result's Mode always names the randomness used.
//
// Floating-point safety: LaplaceRelease and GaussianRelease take the Mode;
// in Secure mode they round the value to a power-of-two grid 2⁻⁴⁰ of the
// noise scale (Granularity), add exact discrete Laplace or discrete
// Gaussian noise (Canonne, Kamath & Steinke 2020) in grid units, and
// calibrate the noise to the sensitivity plus the rounding, so the released
// float64 carries no information in its low-order bits (Mironov, "On
// significance of the least significant bits for differential privacy",
// CCS 2012). In Reproducible mode, and in the low-level LaplaceMechanism,
// GaussianMechanism, Laplace, Gaussian, AddLaplace and AddGaussian, noise
// is sampled in float64 (inverse CDF, ziggurat) and open to that attack.
// The engine keeps the continuous Gaussian in both modes: its subsampled
// RDP accountant is proven for that distribution (a discrete-Gaussian
// DP-SGD would need an amplification-by-subsampling analysis of the
// discrete Gaussian that featuredp does not implement), so Secure mode
// makes its randomness unpredictable but not the low-order bits of the
// trained parameters floating-point safe. See docs/accounting.md, "Threat
// model and guarantees".
package mechanisms
