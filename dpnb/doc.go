// Package dpnb holds what a notebook or a Go program calls to run the
// experiments of the feature-level DP papers on the repository's data or
// on one's own table, and look at the results.
//
// # One-call helpers
//
// The one-call helpers share the shape (ctx, df, schema, opts): df is
// a gota DataFrame, schema (package data) gives every column a role
// (Sensitive, Public, Label, Ignore) and opts are the helper's options,
// whose zero values give documented defaults:
//
//   - FeatureDPvsDP: DP-SGD against feature DP (Algorithm 1) at equal ε,
//     with the attribute-inference bound of every sensitive column whose
//     prior Ball is given (docs/feature-dp.md; the logic is fdp.Compare).
//   - CorrDPvsSemiVsStandard: correlation-aware noise against Semi and
//     Standard (docs/corrdp.md; NewComparison of the reproduction
//     package notions/corrdp/figures, since the comparison is the
//     paper's experiment).
//   - BCDPMeanEstimation: per-column Bayesian coordinate DP mean
//     estimation beside local DP (docs/bcdp.md; bcdp.EstimateMeans).
//   - PrivacyReport: what each notion promises every column at one ε,
//     before anything is trained (docs/README.md, "The privacy report").
//
// SmoothPreprocCost prices non-private pre-processing
// (docs/smooth-rdp.md), RunFigure runs a registered paper figure and Audit
// the empirical audit of a mechanism (docs/accounting.md). The logic of
// every helper lives in its notion's package (CorrDP's comparison in
// notions/corrdp/figures); dpnb holds the DataFrame front (encoding,
// option defaults and checks) and the rendering.
//
// # Results
//
// Every result renders itself (nb.Renderable) as a table (Table: a gota
// DataFrame), a gonum plot (Plot) and a markdown report (Markdown) that
// states the method, the parameters and the randomness, with the paper's
// numbers beside ours where the result reproduces a figure. LinePlot,
// BarPlot and the PNG/SVG writers (RenderPNG, SavePNG, SavePanels, ...)
// draw any experiments.Summary.
//
// # Reproducible and Secure
//
// Helpers run in mechanisms.Reproducible mode by default: every random
// draw comes from the seed in the options, so a result is an experiment
// that anyone with the seed can regenerate, not a private release.
// mechanisms.Secure (where a helper offers it) draws the training's batches
// and noise from the OS CSPRNG: not reproducible, as a release must be.
// See docs/accounting.md for the two modes.
//
// # Public bounds and levels
//
// No statistic of the private data is used silently. Min–max bounds,
// moments and category levels must be public: given in the options
// (data.EncodeOptions.Bounds, Moments, Levels, or the schema's
// Column.Levels), else the helper returns an error naming the columns and
// the fix. Fitting them on the data is an explicit opt-in
// (data.EncodeOptions.BoundsFromData, LevelsFromData;
// BCDPMeanOptions.BoundsFromData) that the result then states: a warning
// at the top of Markdown, the column FromDataColumn in Table, the plot
// title and, for the encoding helpers, the result's FromData field.
//
// dpnb does not depend on Jupyter: package nb displays its values inside
// GoNB, and everything here works in plain Go programs and tests.
package dpnb
