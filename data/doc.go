// Package data holds the tabular side of featuredp: a gota DataFrame plus a
// Schema that names each column's privacy role, encoders that turn the
// DataFrame into a numeric design matrix while remembering which raw feature
// (and so which privacy level) every encoded column belongs to, loaders for
// the real datasets of the papers (checksummed, cached, downloaded from their
// canonical source when missing), a strict Fashion-MNIST IDX reader, and small
// synthetic stand-ins.
//
// # Roles
//
// Every DataFrame column must appear in the Schema with a Role: Sensitive,
// Public (an alias is Insensitive), Label, or Ignore. The zero Role is
// Sensitive, so a column whose role was forgotten is protected, not exposed.
// One-hot columns inherit the role of their raw feature, and Encoded.Feature
// maps every encoded column back to its raw feature so that per-feature
// privacy weights (for example CorrDP's TV(i)) can be spread over a one-hot
// group with Encoded.ColumnWeights.
//
// # Data-dependent pre-processing is not private
//
// Fitting an encoder reads the data: min–max bounds, means and standard
// deviations, and even the set of category levels are functions of the
// records. None of this is differentially private. FitEncoder and Encode make
// the fitting step explicit; pass public bounds (EncodeOptions.Bounds,
// EncodeOptions.Moments, Column.Levels) to keep the pre-processing
// data-independent. Deduplicate, DropMissing and subsampling likewise change
// the neighbouring relation of the data set they produce; the papers apply
// them before training and so does this package.
//
// # Where the real files come from
//
// Loaders look for each file, in order, in Options.Dir, in the directories
// of $FEATUREDP_DATA (a path list), and in the user cache
// (os.UserCacheDir()/featuredp). A file found anywhere must match the SHA-256
// in the Registry. If it is found nowhere and Options.Offline is false, it is
// downloaded from its canonical URL into the cache and verified. Two files
// cannot be downloaded automatically: the credit-card CSV (the canonical
// source is an .xls inside a zip) and insurance.csv (no byte-exact public
// URL); their errors say how to provide them. The Sepsis CSVs are extracted
// from the canonical UCI zip with archive/zip and verified after extraction.
package data
