// Package fdp is feature differential privacy as a library: privacy for a
// protected subset of a record's attributes while the rest Ψ(x) is public,
// trained with the two-batch DP-SGD of Algorithm 1 and accounted on the
// privacy ledger of package accounting. See docs/feature-dp.md in the
// repository.
//
// Relations. Feature DP has two neighbouring relations
// (accounting.RelationFeatureSimulator and accounting.RelationFeature):
// FDP_i^Ψ compares M(S) with a simulator that sees S without the record x
// and only Ψ(x) (Def. 6); FDP_r^Ψ replaces x by x′ with Ψ(x) = Ψ(x′)
// (Def. 5). DP implies feature DP with the same parameters (Prop. 2);
// SimulatorToReplacement is Prop. 1's change FDP_i^Ψ → FDP_r^Ψ, through
// accounting.Loss.ChangeRelation.
//
// The package holds, by file:
//
//   - accounting.go: trade-off functions and the f-DP → (ε, δ) conversion
//     (Thm 2), Prop. 1 (SimulatorToReplacement), the Thm 4
//     attribute-inference bounds and the attack successes they bound.
//   - accounting_alg1.go: the privacy loss of Algorithm 1 (Alg1Loss: the
//     Poisson-subsampled Gaussian curve under FDP_i^Ψ, Thm 5) and of the
//     single-batch ablation (SingleBatchLoss), the ledger that composes
//     them (Compose), Alg1Epsilon, MaxSteps and Steps. Deterministic: no
//     randomness is imported there.
//   - surrogate.go: the public view Ψ as a full-width design matrix
//     (GaussianPadding, ZeroMasking).
//   - mechanism.go: the compared methods (Method: NonPrivate, Public, DP,
//     FDP-DPSGD, FDP-Alg1, FDP-SingleBatch) as configurations of the
//     mechanisms engine (Setup, EngineConfig, Train) and their accounting
//     (Losses, Epsilon).
//   - compare.go, helper.go: Compare, the comparison of DP and feature DP
//     at equal ε on a user's encoded table (the logic of
//     dpnb.FeatureDPvsDP).
//   - audit.go: the empirical audit of Algorithm 1 (featuredp audit).
//
// The paper's figures, their synthetic stand-in data, settings and the
// diffusion study are the reproduction layer, package
// notions/fdp/figures, which imports this package and is never imported
// by it. The models of the experiments are generic and live in package
// models: models.LabelSplitSoftmax (the label-DP loss split
// ℓ = ℓ_pub + ℓ_priv), models.LossDiff (ℓ_priv = ℓ − ℓ_pub with rank-2
// ghost norms) and models.EmbedLogistic.
//
// References:
//
//	Mahloujifar, S., Guo, C., Suh, G. E., & Chaudhuri, K. (2025). Machine
//	learning with privacy for protected attributes. IEEE Symposium on
//	Security and Privacy (S&P 2025). Defs 5, 6; Props 1–3; Thms 2, 4, 5;
//	Algorithm 1.
//
//	Dong, J., Roth, A., & Su, W. J. (2019). Gaussian differential privacy.
//	arXiv:1905.02383 (J. R. Stat. Soc. B, 2022). Trade-off functions, GDP.
//
//	Mironov, I., Talwar, K., & Zhang, L. (2019). Rényi differential privacy
//	of the sampled Gaussian mechanism. arXiv:1908.10530.
//
//	Balle, B., Barthe, G., Gaboardi, M., Hsu, J., & Sato, T. (2020).
//	Hypothesis testing interpretations and Rényi differential privacy.
//	AISTATS 2020. Thm 21 (the improved RDP → (ε, δ) conversion).
package fdp
