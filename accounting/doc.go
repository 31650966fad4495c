// Package accounting is the privacy accounting of featuredp: Rényi-DP (RDP)
// accounting of the Poisson-subsampled Gaussian mechanism (as in DP-SGD),
// conversion of RDP to (ε, δ)-DP, noise calibration, the analytic Gaussian
// mechanism and Gaussian-DP (GDP) helpers.
//
// It is pure, deterministic arithmetic: no randomness, no clock, no global
// mutable state. Every exported function validates its inputs and returns an
// error (never panics) for NaN, out-of-range or otherwise meaningless
// arguments.
//
// # Conventions
//
// Neighbouring relation. Unless a function says otherwise, guarantees are
// for add/remove-one-record neighbours (the relation of Opacus, TF Privacy and
// dp_accounting's default). For feature-level DP the "record" is whatever
// unit the caller clips per step; this package only sees the noise
// multiplier. The Gaussian-mechanism helpers (AnalyticGaussianDelta, …) hold
// for any relation under which the stated L2 sensitivity is correct.
//
// Sampling. Phases use Poisson sampling: each record is included in each step
// independently with probability q (SampleRate). The RDP bounds are not valid
// for shuffling or fixed-size batches sampled without replacement.
//
// Noise multiplier. z (NoiseMultiplier) is the standard deviation of the
// Gaussian noise added to the sum of clipped contributions, divided by the
// clip norm (the L2 sensitivity of the sum).
//
// Steps. Callers pass the number of steps T explicitly; no function turns
// epochs into steps. Libraries disagree here: Opacus' get_noise_multiplier
// uses T = int(epochs/q) (and some Opacus tests use int(90//0.04) = 2249
// where 90/0.04 = 2250), while TF Privacy's compute_dp_sgd_privacy uses
// T = ceil(epochs·n/batch_size). Reproducing a published number therefore
// needs the same T, not just the same epochs.
//
// # RDP and conversion
//
// RDPSubsampledGaussian and ComputeRDP compute the RDP of the subsampled
// Gaussian mechanism (Mironov, Talwar & Zhang 2019) and never return a value
// below the true one: integer orders by the binomial expansion with its
// leading 1 removed exactly (positive terms only, so tiny values do not
// round to 0); fractional orders by the signed series of Opacus'
// _compute_log_a_for_frac_alpha with a proven tail enclosure and a rounding
// allowance added, instead of Opacus' absolute stopping rule (which stops at
// the first term for q = 0.5, z = 20, α = 63.5 and under-reports there). A
// fractional order whose series cannot be resolved falls back to the
// convexity bound of the neighbouring integer orders; RDPSubsampledGaussianNote,
// ComputeRDPNotes and Accountant.Notes say where a bound was used. An
// independent quadrature of the RDP integral checks the values at random
// points in the tests and under `make fuzz`. dp_accounting since 2024 sums
// absolute values of the terms instead, a looser upper bound at fractional
// orders.
//
// An Accountant composes phases (q, z, T) of any mix by adding RDP order by
// order over a grid: OrdersOpacus (default), OrdersTFP, OrdersDPAccounting, or
// a user grid checked by ValidateOrders. EpsilonFromRDP converts with
// ConversionImproved (default; Balle et al. 2020 Thm 21 = Canonne, Kamath &
// Steinke 2020) or ConversionClassic (Mironov 2017 Prop 3) and reports the
// optimal order; DeltaFromRDP is the inverse. (0, 0)-DP is decided from the
// inputs only: an Accountant whose phases are all trivial (q = 0, z = +Inf,
// T = 0) reports ε = 0 / δ = 0; a curve of computed zeros passed to
// EpsilonFromRDP gets the formulas' small positive value, since a computed
// zero may be an underflow.
//
// # Relations, losses and the ledger
//
// Relation names a neighbouring relation (add/remove, replace-one, feature
// DP's simulator and replacement relations, one coordinate, the label);
// Loss is a privacy loss as a value (pure ε, (ε, δ), zCDP ρ, Gaussian σ/Δ,
// GDP μ, a subsampled-Gaussian phase, RDP at given orders or as a function
// on a validity interval) carrying its relation; Loss.ChangeRelation is the
// one place relations change, each change with its source. A Ledger
// composes any mix of losses of one relation (refusing others), by the best
// of its valid routes (RDP on the grid, zCDP, GDP, basic composition), and
// reports the route, the per-entry breakdown and the notes of every bound
// (docs/accounting.md, "Relations, losses and the ledger").
//
// # Calibration
//
// NoiseMultiplierOpacus reproduces Opacus' get_noise_multiplier (bisection
// to ε-tolerance 0.01, so its answer is conservative but loose);
// NoiseMultiplier is a tight root finder on the same ε(z).
//
// # Gaussian mechanism and GDP
//
// AnalyticGaussianDelta/AnalyticGaussianSigma implement the exact Gaussian
// mechanism of Balle & Wang 2018, ClassicGaussianSigma the textbook bound
// (ε < 1 only). GDPDelta, GDPEpsilon, ComposeGDP and PoissonCLTMu implement
// Gaussian differential privacy (Dong, Roth & Su 2019; Bu et al. 2020).
// SubsampledGaussianDelta is the exact one-step privacy curve of the
// Poisson-subsampled Gaussian mechanism.
package accounting
