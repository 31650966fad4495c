package fdp

// Figures of "Machine Learning with Privacy for Protected Attributes"
// (Feature DP–E4), one file per figure
// (figures_*.go), each registered from its init function:
//
//	fdp-table1   E0  accounting of Algorithm 1 (Table I, Purchase, Criteo)
//	fdp-theory   E1  Thm 4 attribute inference, Prop. 3, Prop. 1
//	fdp-labeldp  E2  label-DP case study, excess risk vs n
//	fdp-fig4     E3  Fig. 4, Purchase-like and Fashion-MNIST
//	fdp-fig5     E4  Fig. 5, Criteo-like
//	fdp-fig7     E5  Fig. 7 stand-in: diffusion, setting A (ε = 8)
//	fdp-fig8     E5  Fig. 8 stand-in: diffusion, setting B (ε = 0.5)
//	fdp-samples  E5  sample grids (Figs. 1–3, 6, 9 stand-in)
//
// Measurements put numbers in Measurement.Num (written with the shortest
// round-trip formatting) and labels (dataset, surrogate) in Extra.

// defaultDelta is the δ of every figure but Table I's settings.
const defaultDelta = 1e-5
