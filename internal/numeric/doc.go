// Package numeric holds the numerical building blocks shared by the
// accountants of the core and of the notions: log-space sums, the scaled
// complementary error function, log Φ, log-factorials and a bracketing root
// finder. None of them is a privacy statement; they carry no randomness.
package numeric
