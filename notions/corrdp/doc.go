// Package corrdp is the CorrDP notion as a library: correlation-aware
// differential privacy for empirical risk minimisation, where a feature's
// noise depends on how strongly it is correlated with the sensitive
// features (Wang, Zhang & Cummings; docs/corrdp.md in the repository).
//
// A CorrDP guarantee is stated for N-one neighbours — a record changes its
// sensitive block, or exactly one insensitive feature i, whose budget is
// ε/TV(i) with TV(i) the total-variation distance of the sensitive
// features' conditional laws (Def. 2.5) — or for N-jointU neighbours (all
// insensitive features change together, one TV_max). Labels are public.
//
// The package holds, by file:
//
//   - accounting.go: the deterministic math — noise weights (NoiseWeights,
//     relative-noise and Algorithm 1 mode), the Algorithm 1 variance of
//     eq. (4) (Algorithm1Sigma2) and the relative-noise σ0² (Sigma0Sq), the
//     correlated sensitivity (Def. 2.8), the utility and lower-bound rates
//     (Thms. 3.9, 3.12), the UCB of Def. 4.3, the Gaussian Rényi divergence
//     (Lemma A.3), the stationary noise gap of constant-step GD, and the
//     honest privacy loss of a noise plan: Noise.Loss is ρ-zCDP under an
//     accounting.Relation, and Honesty composes it on an accounting.Ledger
//     and sets the ε beside the paper's claim;
//   - mechanism.go: the CorrDP Laplace mechanism (Thm. 2.10), the noise
//     plans of CorrDP-SGD (Plan, and PlanNoise for a plan's honest loss)
//     and the theory step size (Thm. 3.9);
//   - tv.go, tv_estimate.go, tv_binned.go, multinomial.go: the
//     (non-private) TV estimators of App. D and EstimateTV for any
//     DataFrame with roles, with the model-free check of a continuous
//     public feature over bins (Checked);
//   - smote.go: SMOTE-NC + ENN balancing of a DataFrame;
//   - audit.go: the empirical audits of the noise plans (featuredp audit).
//
// Relative-noise ("paper") mode calibrates only relative noise,
// σ0² = C(log(1/δ)+1)/ε²; it accounts no ε — Honesty states what the noise
// really gives. The paper's figures (Fig. 1a–f, Fig. 2a–d, Table 2), their
// data preparation and synthetic study live in the reproduction package
// notions/corrdp/figures, which this package never imports.
//
// # References
//
//   - Wang, Zhang & Cummings. Integrating Feature Correlation in
//     Differential Privacy with Applications in DP-ERM. arXiv:2605.03945.
//   - Bun & Steinke (2016). Concentrated Differential Privacy:
//     Simplifications, Extensions, and Lower Bounds. TCC 2016.
//   - Gil, Alajaji & Linder (2013). Rényi divergence measures for commonly
//     used univariate continuous distributions. Information Sciences 249.
//   - Chawla, Bowyer, Hall & Kegelmeyer (2002). SMOTE: Synthetic Minority
//     Over-sampling Technique. JAIR 16.
//   - Wilson (1972). Asymptotic properties of nearest neighbor rules using
//     edited data. IEEE Trans. Systems, Man, and Cybernetics 2(3).
package corrdp
