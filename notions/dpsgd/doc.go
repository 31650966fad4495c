// Package dpsgd is the home of plain DP-SGD in the notions tree. Its
// accounting is not a notion of its own: the Poisson-subsampled Gaussian
// RDP accountant, the noise calibration and the (ε, δ) conversions are in
// package accounting (accounting.SubsampledGaussianLoss, accounting.Ledger,
// accounting.NoiseMultiplier), and training is mechanisms.Train. The
// figures of the accountant (accounting-eps-vs-steps,
// accounting-calibration) are in the reproduction package
// notions/dpsgd/figures. See docs/dp-sgd.md and docs/accounting.md in the
// repository.
package dpsgd
