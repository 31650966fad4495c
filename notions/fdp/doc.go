// Package fdp is the feature differential privacy notion: privacy for a
// protected subset of attributes while the rest is public, with the
// two-batch DP-SGD of Algorithm 1 (Mahloujifar et al., "Machine learning
// with feature differential privacy"; see docs/fdp.md). It holds the
// notion's accounting, mechanisms, synthetic data, figures and the logic of
// its one-call helper.
package fdp
