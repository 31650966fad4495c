// Package fdp is the feature differential privacy notion: privacy for a
// protected subset of attributes while the rest is public, with the
// two-batch DP-SGD of Algorithm 1 (Mahloujifar, Guo, Suh, Chaudhuri,
// "Machine Learning with Privacy for Protected Attributes", IEEE S&P 2025).
// See docs/feature-dp.md in the repository.
//
// The package holds, by file:
//
//   - accounting.go, accounting_alg1.go: trade-off functions and the
//     f-DP → (ε, δ) conversion (Thm 2), Prop. 1, the Thm 4
//     attribute-inference bounds, the Prop. 3 toy, the privacy of
//     Algorithm 1 (Alg1Epsilon: the Poisson-subsampled Gaussian RDP of
//     package accounting, Thm 5) and of the single-batch ablation
//     (SingleBatchEpsilon), MaxSteps and Steps. Deterministic: no
//     randomness is imported there.
//   - surrogate.go: the public view Ψ as a full-width design matrix
//     (GaussianPadding, ZeroMasking).
//   - mechanism.go: the compared methods (Method: NonPrivate, Public, DP,
//     FDP-DPSGD, FDP-Alg1, FDP-SingleBatch) as configurations of the
//     mechanisms engine (Setup, EngineConfig, Train, Epsilon); attack.go
//     the K-ary attribute-inference game.
//   - data_synth.go: the stand-in data of E2–E4 (LabelMixture,
//     PurchaseLike, FashionTabular, CriteoLike, Split).
//   - problem.go, classify.go, tune.go: the E3 classification problems,
//     runs evaluated at the step counts of several ε, and the validation
//     search of α, the surrogate and the DP clip.
//   - figures_*.go: the figures fdp-table1, fdp-theory, fdp-labeldp,
//     fdp-fig4 and fdp-fig5, registered in init.
//   - compare.go, helper.go: Compare, the comparison of DP and feature DP
//     at equal ε on a user's encoded table (the logic of
//     dpnb.FeatureDPvsDP).
//
// The models of the experiments are generic and live in package models:
// models.LabelSplitSoftmax (the label-DP loss split ℓ = ℓ_pub + ℓ_priv),
// models.LossDiff (ℓ_priv = ℓ − ℓ_pub with rank-2 ghost norms) and
// models.EmbedLogistic (the Criteo embedding model).
package fdp
