// Package release is what a user may publish after training on private
// data: a certificate that states the guarantee exactly as the privacy
// ledger composed it, and a self-describing model file (schema, public
// encoding, parameters, certificate, checksum) that Load verifies and
// Predict applies to new rows. A publisher may sign the file with an
// Ed25519 key (File.Sign, GenerateKeyFiles), so that a user holding the
// public key can check who made it (File.Verify): the checksum alone
// detects damage, not forgery.
//
// A certificate is never recomputed from scratch: New reads (ε, δ) and the
// route that achieved it from an accounting.Ledger holding every loss the
// training released, so the certificate says what the ledger composed. It
// states the notion and its neighbouring relation, which columns are
// protected and which are treated as public, (ε, δ) with the accountant,
// orders, conversion, sampling, steps, noise multiplier and clip norm, the
// randomness mode (only a Secure run is a private release), the featuredp
// build, and, for feature DP, the attribute-inference bound of every
// protected column with a stated prior. It contains no statistic of the
// private data that the guarantee does not cover: the row count is not
// recorded (under add/remove it is itself private), nor are fitted levels
// or bounds (encodings must be public: File.Validate, Write and Read
// refuse a feature or label encoding that read the data).
//
// The model file format is documented in docs/release.md.
package release
