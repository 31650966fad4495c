// Package bcdp is Bayesian coordinate differential privacy: a per-coordinate
// privacy level for each feature of a record (see docs/bcdp.md). It holds
// the notion's exact notion calculator, budget allocation, mechanisms, the
// least-squares estimator, figures and the logic of its one-call helper.
package bcdp
