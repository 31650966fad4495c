// Package smoothdp is the privacy cost of non-private pre-processing under
// smooth Rényi DP: what imputation, deduplication, data-dependent scaling,
// quantisation and PCA do to a DP guarantee (see docs/smoothdp.md). It holds
// the notion's accounting (Theorem 2, PTR), the pre-processing steps with
// their sensitivities, synthetic data and figures.
package smoothdp
