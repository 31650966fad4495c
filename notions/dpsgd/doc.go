// Package dpsgd holds the figures of the RDP accountant of DP-SGD itself:
// ε versus steps and noise calibration, against the reference values of
// Opacus and TF Privacy. See docs/dp-sgd.md and docs/accounting.md in the
// repository.
package dpsgd
