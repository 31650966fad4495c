// Package bcdp is Bayesian coordinate differential privacy (BCDP):
// Aliakbarpour, Chaudhuri, Courtade, Fallah & Jordan (2024), "Enhancing
// Feature-Specific Data Protection via Bayesian Coordinate Differential
// Privacy" — a per-coordinate privacy level δ_i for each feature of one
// user's record, on top of an overall ε-LDP guarantee. See
// docs/bcdp.md in the repository.
//
// The privacy model is local: every user runs the mechanism on her own
// record; there is no neighbouring dataset and no subsampling, and every
// level is a pure ratio (δ = 0 in the (ε, δ)-DP sense).
//
// The package holds, by file:
//
//   - accounting_finite.go: the exact calculator of a finite mechanism
//     under a prior ([Finite], [Exact], [LDPExact], [CDPExact],
//     [CoordinateTV], [TradeoffMin], [PostProcess]), the paper's examples
//     and the Prop. 4 / Prop. 6 bounds;
//   - accounting_alloc.go: the Theorem 2 allocation ([Allocate],
//     [UniformAllocation], ζ choices, [ZetaOptimal]) and the exact
//     predicted error ([PredictedMSE], [DuchiB], [RoundWeights]);
//   - mechanism.go, mechanism_audit.go: the Duchi ℓ2-ball channel
//     ([Duchi]), Mechanism 1 with its server estimator ([Mean],
//     [MeanSums]) and a Monte Carlo audit ([MeanAuditMC]);
//   - leastsquares.go, solver.go: Algorithm 3 ([LeastSquares]) and the
//     exact trust-region solver it needs ([TrustRegion]);
//   - mean_trial.go, leastsquares_trial.go, zeta.go: the experiments
//     ([MeanSetting], [Method], [MeanTrial], [LSTrial], [CompareZeta]);
//   - figures_*.go: the registered figures bcdp-fig3, bcdp-fig4-fraction,
//     bcdp-fig4-dimension, bcdp-notions and bcdp-least-squares;
//   - helper.go: the logic of the one-call helper dpnb.BCDPMeanEstimation
//     ([EstimateMeans]).
package bcdp
