// Package figures reproduces the figures of the RDP accountant of DP-SGD
// itself — ε versus steps and noise calibration — against the reference
// values of Opacus and TF Privacy. See docs/dp-sgd.md and
// docs/accounting.md in the repository; the accounting is the library's
// (package accounting), this package only registers the figures.
//
// One file per figure: the figure id accounting-<rest> is registered in
// <rest>.go with "-" written "_" (accounting-calibration in
// calibration.go, accounting-eps-vs-steps in eps_vs_steps.go). The ids
// start with "accounting-", not "dpsgd-", because they show the
// accountant, which is plain DP-SGD accounting.
//
// Importing the package (as notions/all does) registers the figures with
// the experiments registry; nothing else imports it.
package figures

// accountingDelta is the δ of the accounting figures.
const accountingDelta = 1e-5
