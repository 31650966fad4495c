// Package smoothdp is the privacy cost of non-private pre-processing under
// smooth Rényi DP: what imputation, deduplication, data-dependent scaling,
// quantisation and PCA do to a DP guarantee ("Provable Privacy with
// Non-Private Pre-Processing", Hu, Sanyal & Schölkopf, ICML 2024). See
// docs/smooth-rdp.md in the repository.
//
// It holds the notion as a library: the RDP and smooth-RDP (SRDP) curves of
// the mechanisms (GaussianRDP, DPGDRDP, SGDSubRDP, …; the paper's Table 1),
// Theorem 2's bounds on a pre-processed pipeline (Theorem2Tight,
// Theorem2Conservative, PipelineCurve, Pipeline), the pre-processing steps
// with their sensitivities (Dedup, Impute, PCA and the Eta… functions), the
// DP-GD / DP-SGD / Analyze-Gauss / PTR mechanisms (Algorithm 1) and noise
// calibration. The paper's figures, their settings, synthetic data and the
// empirical audits are the reproduction layer notions/smoothdp/figures,
// which this package never imports.
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
// # Relations and losses
//
// The paper is replace-one ("differ by exactly one element", n fixed):
// accounting.RelationReplaceOne. Every RDPCurve carries its
// accounting.Relation, and Theorem 2 requires a replace-one curve. A curve
// is an accounting.Loss (RDPCurve.Loss: accounting.CurveLoss with its
// validity interval), so curves compose on an accounting.Ledger, change
// relation through accounting.Loss.ChangeRelation (ReplaceOneFromAddRemove)
// and convert to (ε, δ) through the ledger (ToApproxDP, with the classic
// conversion of Mironov 2017 Prop 3, the paper's only one). The mechanisms
// report their losses the same way (GD.DPGDLoss, PTRLosses).
//
// # Files
//
//   - accounting_curve.go (RDP and SRDP curves), accounting_closed.go (closed
//     forms and sensitivities), accounting_mechanisms.go (the mechanisms'
//     curves and the group-privacy baselines), accounting_theorem2.go,
//     accounting_pipeline.go (pre-processed pipelines),
//     accounting_conversion.go, accounting_ptr.go, accounting_renyi.go: the
//     deterministic accounting.
//   - data_*.go: pre-processing (dedup, quantisation, imputation, PCA) with
//     theoretical and empirical sensitivities.
//   - mechanism.go: DP-GD, DP-SGD (subsampling, iteration), Analyze-Gauss
//     and Algorithm 1 (PTR) on the core training engine; calibrate.go.
//
// # References
//
//   - Y. Hu, A. Sanyal and B. Schölkopf. Provable Privacy with Non-Private
//     Pre-Processing. ICML 2024.
//   - I. Mironov. Rényi Differential Privacy. CSF 2017.
//   - V. Feldman, I. Mironov, K. Talwar and A. Thakurta. Privacy
//     Amplification by Iteration. FOCS 2018.
//   - M. Abadi et al. Deep Learning with Differential Privacy. CCS 2016.
//   - C. Dwork, K. Talwar, A. Thakurta and L. Zhang. Analyze Gauss: Optimal
//     Bounds for Privacy-Preserving Principal Component Analysis. STOC 2014.
//   - M. Gil, F. Alajaji and T. Linder. Rényi divergence measures for
//     commonly used univariate continuous distributions. Information
//     Sciences 249, 2013.
//   - C. Canonne, G. Kamath and T. Steinke. The Discrete Gaussian for
//     Differential Privacy. NeurIPS 2020.
//   - M. Bun and T. Steinke. Concentrated Differential Privacy:
//     Simplifications, Extensions, and Lower Bounds. TCC 2016.
package smoothdp
