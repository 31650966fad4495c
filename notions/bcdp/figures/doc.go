// Package figures reproduces the BCDP paper (Aliakbarpour, Chaudhuri,
// Courtade, Fallah & Jordan 2024; docs/bcdp.md in the repository) on top
// of the library package notions/bcdp: the registered figures, the
// paper's examples, the experiments' settings and trials, and the
// analyses of the notebooks 40–42. The library never imports it;
// importing it (as notions/all does) registers the figures with the
// experiments registry.
//
// One file per figure: the figure id bcdp-<rest> is registered in
// <rest>.go with "-" written "_":
//
//   - bcdp-fig3 in fig3.go (Figure 3: error against the correlation q);
//   - bcdp-fig4-fraction in fig4_fraction.go and bcdp-fig4-dimension in
//     fig4_dimension.go (the authors' Figure 4 scripts);
//   - bcdp-notions in notions.go (exact BCDP against the bounds of
//     Prop. 4, and Examples 1 and 2);
//   - bcdp-least-squares in least_squares.go (Algorithm 3, our
//     extension, with Theorem 3's bound).
//
// The other files support them: mean_figures.go (the cells shared by the
// three mean-estimation figures), mean_trial.go ([MeanSetting], [Method],
// [MeanTrial]), least_squares_trial.go ([LSSetting], [LSTrial]),
// examples.go (the paper's Examples 1 and 2), corollary1.go (Corollary 1
// beside the exact error) and zeta.go (the choice of ζ, notebook 41).
package figures
