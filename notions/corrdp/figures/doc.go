// Package figures reproduces the CorrDP paper's figures (Wang, Zhang &
// Cummings, "Integrating Feature Correlation in Differential Privacy with
// Applications in DP-ERM", arXiv:2605.03945; docs/corrdp.md) on top of the
// library notions/corrdp, which never imports it. Its init registers the
// figures with the experiments registry (featuredp reproduce); notions/all
// imports it.
//
// Figure id corrdp-<rest> lives in <rest>.go, "-" written "_":
//
//   - fig1a.go: corrdp-fig1a and corrdp-fig2a, corrdp-fig2b, corrdp-fig2c,
//     corrdp-fig2d — the synthetic ridge regression (Sec. 5.1, App. E.1)
//     for m_s = 10 and m_s = 5, 20, 50, 80;
//   - fig1b.go: corrdp-fig1b and corrdp-fig1c, corrdp-fig1d, corrdp-fig1e,
//     corrdp-fig1f — Adult, Sepsis, Credit and Medical Cost (linear and
//     network), CorrDP vs Semi vs Standard (Sec. 5.2, App. E.2–E.5);
//   - table2.go: corrdp-table2 — the Adult TVs of Table 2.
//
// Beside them: cells.go (the compared methods, Variant, the ε grid
// EpsGrid and the cells), synthetic.go and synthetic_prep.go (the
// synthetic design and its data draw, SyntheticSettings), real_prep.go,
// state.go and train.go (the real datasets' settings RealSpecs, their
// preparation and lock-step training), theory.go (the measured gaps beside
// Thms. 3.9 and 3.12), balancing.go (the Sepsis balancing study) and
// helper.go (NewComparison, the logic of dpnb.CorrDPvsSemiVsStandard: the
// same comparison on a user's DataFrame).
//
// Relative-noise ("paper") mode (corrdp.Sigma0Sq) calibrates only relative
// noise; no ε is accounted by the figures — corrdp.Honesty states what the
// noise really gives.
package figures
