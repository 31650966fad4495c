// Package smoothdp is the privacy cost of non-private pre-processing under
// smooth Rényi DP: what imputation, deduplication, data-dependent scaling,
// quantisation and PCA do to a DP guarantee ("Provable Privacy with
// Non-Private Pre-Processing", Hu, Sanyal & Schölkopf, ICML 2024). See
// docs/smooth-rdp.md in the repository.
//
// It holds the notion's accounting (Theorem 2, PTR), the pre-processing
// steps with their sensitivities, synthetic data, the DP-GD / DP-SGD / PTR
// mechanisms and the figures (smoothdp-*).
//
// # Confidence labels
//
// The paper's formulas are reconstructed in docs/smooth-rdp.md, and every
// closed form carries its confidence label:
//
//	[V] stated in words by the paper   [S] standard result of the cited literature
//	[R] reconstructed (structure certain, a constant may differ)
//	[D] derived by us (a valid bound of ours)
//
// Each closed form lives in exactly one function (the cf… helpers and the
// Eta… sensitivities of accounting_closed.go), so a corrected constant is a
// one-line change. The generic calculators (Theorem2Tight, ToApproxDP) work
// on any curve; the closed forms are thin wrappers checked against them in
// tests.
//
// # Neighbouring relation
//
// The paper is replace-one ("differ by exactly one element", n fixed).
// Every RDPCurve carries its relation (Neighbouring); Theorem 2 requires a
// replace-one RDP curve. The conversion to (ε, δ) is the core's
// (accounting.Curve, accounting.EpsilonFromRDP with the classic conversion of
// Mironov 2017 Prop 3, the paper's only one); it holds for the curve's
// relation.
//
// # Files
//
//   - accounting_curve.go, accounting_closed.go, accounting_table1.go,
//     accounting_theorem2.go, accounting_table2.go, accounting_conversion.go,
//     accounting_ptr.go, accounting_renyi.go: the deterministic accounting.
//   - data_*.go: pre-processing (dedup, quantisation, imputation, PCA) with
//     theoretical and empirical sensitivities, and synthetic datasets.
//   - mechanism.go: DP-GD, DP-SGD (subsampling, iteration), Analyze-Gauss
//     and Algorithm 1 (PTR) on the core training engine.
//   - figures_*.go: the smoothdp-* figures.
package smoothdp
