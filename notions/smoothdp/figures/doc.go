// Package figures reproduces "Provable Privacy with Non-Private
// Pre-Processing" (Hu, Sanyal & Schölkopf, ICML 2024) with the library
// notions/smoothdp: the paper's tables and figures, their settings, the
// synthetic datasets they draw, and the empirical audits of the smooth-RDP
// claims. It imports the library and is never imported by it; importing it
// (as notions/all does) registers the figures with package experiments and
// the audits with package audit.
//
// The paper prints no numeric results and gives no parameters: every closed
// form is reconstructed (docs/smooth-rdp.md) and every setting here is our
// proposal (docs/smooth-rdp.md, "Reconstruction choices"); the reference
// values are computed independently from the reconstructed formulas.
//
// # Files
//
// A figure id smoothdp-<rest> lives in <rest>.go with "-" written "_":
//
//   - table1.go: smoothdp-table1 (SRDP vs RDP of every mechanism at α = 2).
//   - table2.go: smoothdp-table2 (ε of every mechanism × pre-processing).
//   - fig2_quantization.go: the three panels of Figure 2, which share their
//     code: smoothdp-fig2-quantization, smoothdp-fig2-imputation and
//     smoothdp-fig2-pca.
//   - fig3.go: smoothdp-fig3 (PCA + DP-GD vs DP-PCA + DP-GD vs DP-GD) and its
//     dataset.
//   - pathological.go: smoothdp-pathological (Sec. 5.1's deduplication
//     attack).
//   - ptr.go: smoothdp-ptr (Algorithm 1's refusal rate).
//   - common.go: the δ, banner and conversion shared by the figures.
//   - synthetic.go: the synthetic datasets (uniform ball, clusters, missing
//     values, low rank, the pathological deduplication pair).
//   - audit_dedup.go (audits smoothdp-dedup and smoothdp-quantize),
//     audit_impute.go (smoothdp-impute), audit_pca.go (smoothdp-pca),
//     audit_ptr.go (smoothdp-ptr): the audits run by `featuredp audit`.
package figures
