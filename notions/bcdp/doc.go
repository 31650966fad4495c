// Package bcdp is Bayesian coordinate differential privacy (BCDP) as a
// library: a per-coordinate privacy level δ_i for each feature of one
// user's record, on top of an overall ε-LDP guarantee (Aliakbarpour,
// Chaudhuri, Courtade, Fallah & Jordan 2024). See docs/bcdp.md in the
// repository.
//
// The privacy model is local: every user runs the mechanism on her own
// record; there is no neighbouring dataset and no subsampling, and every
// level is a pure ratio (δ = 0 in the (ε, δ)-DP sense). The LDP and CDP
// levels are reported as accounting.Loss values for the privacy ledger
// (LocalLoss, CoordinateLosses and the methods of the same names), under
// accounting.RelationReplaceOne (the user's record replaced) and
// accounting.RelationCoordinate (one coordinate changed); BCDP's δ_i is a
// Bayesian ratio that depends on the prior and does not compose, so it is
// computed (Exact) and bounded (BCDPFromCDP), not put on a ledger.
//
// The package holds, by file:
//
//   - accounting_finite.go: the exact calculator of a finite mechanism
//     under a prior ([Finite], [Exact], [LDPExact], [CDPExact],
//     [CoordinateTV], [TradeoffMin], [PostProcess]), finite mechanisms
//     ([RandomizedResponse], [TwoBitChannel], the prior [MixturePrior])
//     and the bounds of BCDP from CDP ([BCDPFromCDP],
//     [BCDPFromCDPAndLDP], [LevelMatrix], [MeetsLevels]);
//   - accounting_alloc.go: the allocation of the levels ([Allocate],
//     [UniformAllocation], the ζ rules [ZetaHeuristic], [ZetaHalf],
//     [ZetaStar], [ZetaOptimal]), the error rates ([ErrorProxy],
//     [TwoLevelRate]) and the exact predicted error ([PredictedMSE],
//     [DuchiB], [RoundWeights]);
//   - loss.go: the losses of the finite mechanisms and of the channels
//     below for the privacy ledger;
//   - mechanism.go, mechanism_audit.go: the Duchi ℓ2-ball channel
//     ([Duchi]), Mechanism 1 with its server estimator ([Mean],
//     [MeanSums]) and a Monte Carlo audit ([MeanAuditMC]);
//   - leastsquares.go, leastsquares_bias.go, solver.go: Algorithm 3
//     ([LeastSquares]), a check of its objective's bias
//     ([MeasureObjectiveBias]) and the exact trust-region solver it needs
//     ([TrustRegion]);
//   - relations.go: the exact levels of the four notions for one mechanism
//     and the relations between them ([NotionRelations]);
//   - helper.go: the logic of the one-call helper dpnb.BCDPMeanEstimation
//     ([EstimateMeans]).
//
// The paper's figures, examples, settings and trials are in the
// reproduction package notions/bcdp/figures, which imports this one.
//
// References:
//
//	Aliakbarpour, M., Chaudhuri, S., Courtade, T., Fallah, A. & Jordan, M.
//	  I. (2024). Enhancing Feature-Specific Data Protection via Bayesian
//	  Coordinate Differential Privacy (version of October 23, 2024). Defs. 1–4,
//	  Thms 1–3, Props. 1–6, Corollary 1, Mechanisms 1–2, Algorithm 3.
//	Duchi, J. C., Jordan, M. I. & Wainwright, M. J. (2018). Minimax Optimal
//	  Procedures for Locally Private Estimation. JASA 113(521), 182–201
//	  (the ℓ2-ball channel).
//	Dwork, C. & Roth, A. (2014). The Algorithmic Foundations of
//	  Differential Privacy. Thm 3.16 (basic composition, the ledger's pure
//	  route).
package bcdp
