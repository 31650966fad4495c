// Package corrdp is the CorrDP notion: correlation-aware differential
// privacy for empirical risk minimisation, where a feature's noise depends
// on how strongly it is correlated with the sensitive features (Wang, Zhang
// & Cummings, "Integrating Feature Correlation in Differential Privacy with
// Applications in DP-ERM", arXiv:2605.03945). See docs/corrdp.md in the
// repository.
//
// The package holds, by file:
//
//   - accounting.go: the deterministic math — noise weights (NoiseWeights,
//     paper and theory mode), the Algorithm 1 and paper-mode variances,
//     the correlated sensitivity, utility and lower-bound rates, the UCB of
//     Def. 4.3, the zCDP honesty report (Honesty), the Gaussian Rényi
//     divergence and the stationary noise gap of the synthetic figures;
//   - mechanism.go: the CorrDP Laplace mechanism, the noise plans of
//     CorrDP-SGD (Plan) and the theory step size;
//   - tv.go, tv_estimate.go, multinomial.go: the (non-private) TV
//     estimators of App. D and EstimateTV for any DataFrame with roles;
//   - synthetic.go, smote.go: the synthetic ridge data and SMOTE-NC + ENN
//     balancing (Sepsis);
//   - cells.go, synthetic_prep.go, real_prep.go, train.go, state.go,
//     figures_*.go, balancing.go: the figures of the paper (Fig. 1a–f,
//     Fig. 2a–d, Table 2), registered from init with the experiments
//     registry, and their data preparation and lock-step training;
//   - helper.go: the logic of the one-call helper
//     dpnb.CorrDPvsSemiVsStandard (NewComparison).
//
// Paper mode calibrates only relative noise (σ0² = C(log(1/δ)+1)/ε²); no ε
// is accounted by the figures — Honesty states what the noise really gives.
package corrdp
