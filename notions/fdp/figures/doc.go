// Package figures reproduces the figures and tables of "Machine Learning
// with Privacy for Protected Attributes" (Mahloujifar, Guo, Suh &
// Chaudhuri, IEEE S&P 2025) with the feature-DP library, package
// notions/fdp, which never imports it. Each figure is registered with
// package experiments from the init function of its file; figure id
// fdp-<rest> lives in <rest>.go with "-" → "_":
//
//	fdp-table1    table1.go    E0  accounting of Algorithm 1 (Table I, Purchase, Criteo)
//	fdp-theory    theory.go    E1  Thm 4 attribute inference, Prop. 3 toy, Prop. 1
//	fdp-labeldp   labeldp.go   E2  label-DP case study, excess risk vs n
//	fdp-fig4      fig4.go      E3  Fig. 4, Purchase-like and Fashion-MNIST
//	fdp-fig5      fig5.go      E4  Fig. 5, Criteo-like
//	fdp-fig7      fig7.go      E5  Fig. 7 stand-in: diffusion, setting A (ε = 8)
//	fdp-fig7-eps  fig7_eps.go  E5  setting A's Fréchet distance against ε
//	fdp-fig8      fig8.go      E5  Fig. 8 stand-in: diffusion, setting B (ε = 0.5)
//	fdp-samples   samples.go   E5  sample grids (Figs. 1–3, 6, 9 stand-in)
//
// The other files hold what the figures share: data.go the synthetic
// stand-in data of E2–E4 (LabelMixture, PurchaseLike, FashionTabular,
// CriteoLike, Split); problem.go, classify.go and tune.go the E3
// classification problems, runs evaluated at the step counts of several
// ε and the validation search; attack.go the Monte Carlo attribute-
// inference game; diffusion.go, ddpm.go and images.go the diffusion study
// of E5 (settings, DDPM training, Fashion-MNIST at 14×14, sharpness filter,
// Fréchet distances); table.go the paper-vs-run table of the diffusion
// notebook.
//
// Measurements put numbers in Measurement.Num (written with the shortest
// round-trip formatting) and labels (dataset, surrogate) in Extra.
package figures

// defaultDelta is the δ of every figure but Table I's settings.
const defaultDelta = 1e-5
