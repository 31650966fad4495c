// Package corrdp is the CorrDP notion: correlation-aware differential
// privacy for empirical risk minimisation, where a feature's noise depends
// on how strongly it is correlated with the sensitive features (Wang et al.,
// "Correlation-aware differential privacy"; see docs/corrdp.md). It holds
// the notion's accounting, noise plans, data preparation, synthetic data,
// figures and the logic of its one-call helper.
package corrdp
