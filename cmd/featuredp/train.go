package main

// The train command: `featuredp train` trains a private model on a CSV for
// release and writes the model file with its certificate (docs/release.md).

import (
	"cmp"
	"context"
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/dpnb"
	"github.com/featuredp/featuredp/internal/suggest"
	"github.com/featuredp/featuredp/release"
)

func init() {
	register("train", "train a private model on a CSV for release (model file + certificate)", runTrain)
}

const trainUsage = `usage: featuredp train --csv FILE --label COL --sensitive COLS [--public COLS] [--ignore COLS]
                       --epsilon E [--delta D] [--notion fdp|dp] [--model logistic|softmax|linear|mlp]
                       --bounds COL=LO:HI,... --levels COL=A|B|...
                       [--sample-rate Q] [--epochs E] [--clip C] [--lr LR] [--hidden H] [--ball COL=P,...] [--rows N]
                       [--orders GRID] [--reproducible --seed S] --out MODEL.json [--force] [--trim-space]
                       [--max-line-bytes N] [--sign-key KEY.key]

Trains a model for release: feature DP's Algorithm 1 (the default when there
are public columns) or DP-SGD, with Poisson sampling, per-example clipping
and Gaussian noise calibrated so that the privacy ledger's ε of the whole
run is at most --epsilon. Randomness comes from the operating system's
CSPRNG; --reproducible --seed S uses seeded streams instead, and the
certificate then says "not a private release". Under feature DP the label
is public, as the --public columns are (Algorithm 1's public gradient
reads it without noise; the certificate says so): to protect the label
too, use --notion dp. Every column needs a role
(--label, --sensitive, --public or --ignore): none is treated as public by
default. Nothing is fitted on the private data: a feature with public
--levels is categorical, one with public --bounds continuous (the error
names each feature with neither); a label with --levels is a class label
(classification), one with --bounds a number (regression), clipped to its
public bounds and scaled to [0, 1] for training; predict gives values in
its units. The file is streamed
into the design matrix (no size cap: memory is about three times the
encoded matrix, plus at most 128 MiB reserved ahead from the file's
size; one line may hold at most --max-line-bytes, 4 MiB by default). Defaults are constants, not
functions of the data: q = 0.01, 5 epochs (T = 500 steps), C = 1, lr = 0.5
(1/(2B) for a linear regression, B = features + 1, which bounds the squared
norm of an encoded row — under feature DP it must stay below 1/B, as larger
steps on least squares diverge — and 1/(2(hidden + 1)) for an mlp
regression).
Under --notion dp the update is scaled by q·--rows, a public row count you
give (the actual count is private under add/remove); feature DP uses the
actual count, which its simulator sees, unless --rows is given. A --delta
of 1/n or more (the default 1e-5 from 100,000 rows on: choose δ well below
1/n) or a --sample-rate below 1/n (most steps would sample no row) is
refused; n is --rows, and under feature DP also the actual count.
The calibration and the ledger use dp_accounting's RDP orders (up to 1024,
so targets down to ε ≈ 0.004 at δ = 1e-5 are reachable; --orders opacus
accounts as Opacus does, whose grid stops at 63: ε ≥ 0.10 there).
The model file (schema, public encoding, parameters, certificate, SHA-256)
is never written over an existing file unless --force. --sign-key KEY.key
(featuredp keygen) signs it with that Ed25519 private key, read before
training: the signature covers the whole file, certificate included, so a
user holding KEY.pub can check with featuredp certificate or predict
--verify-key KEY.pub that it is yours and unedited. See docs/release.md.

flags:
`

// trainFlags are the train command's flags.
type trainFlags struct {
	csv, label, out, notion, model     string
	orders, signKey                    string
	sens, public, ignore               columnList
	levels                             levelsList
	ball                               floatMap
	bounds                             boundsList
	eps, delta, rate, epochs, clip, lr float64
	hidden, rows                       int
	maxLine                            int64
	reproducible, force, trimSpace     bool
	seed                               uint64
	flagOf                             map[string]string // column → its role flag (set by check)
	given                              map[string]bool   // the flags on the command line (set by runTrain)
}

func newTrainFlags(fs *flag.FlagSet) *trainFlags {
	f := &trainFlags{levels: levelsList{}, bounds: boundsList{},
		ball: floatMap{m: map[string]float64{}, lo: 0, hi: 1, what: "the prior mass"}}
	fs.Var(&f.ball, "ball", "prior mass `COL=P` of the best guess of a protected column without the model, given the record's public columns and label, P in [1/levels, 1], for its attribute-inference bound (without it the certificate gives the column no bound: no prior is assumed)")
	fs.StringVar(&f.csv, "csv", "", "the training CSV `FILE` (header row)")
	fs.StringVar(&f.label, "label", "", "the label `COLUMN`")
	fs.Var(&f.sens, "sensitive", "protected `COLUMNS` (comma-separated, CSV quoting; repeatable)")
	fs.Var(&f.public, "public", "public `COLUMNS`, treated as known to the adversary")
	fs.Var(&f.ignore, "ignore", "`COLUMNS` left out")
	fs.Var(f.levels, "levels", "public levels `COL=A|B|...` of a categorical feature, or the classes of the label (repeatable)")
	fs.Var(f.bounds, "bounds", "public ranges `COL=LO:HI,...` of the continuous features; values outside are clipped to them (repeatable)")
	floatVar(fs, &f.eps, "epsilon", 0, "target ε, finite > 0 (required)")
	floatVar(fs, &f.delta, "delta", 1e-5, "δ in (0, 1)")
	fs.StringVar(&f.notion, "notion", "", "`fdp` (feature DP, Algorithm 1) or dp (DP-SGD); default fdp when there are public columns")
	fs.StringVar(&f.model, "model", "", "logistic, softmax, linear or mlp (default: logistic/softmax; linear when the label has no --levels: regression)")
	floatVar(fs, &f.rate, "sample-rate", 0.01, "Poisson sampling rate q in (0, 1]")
	floatVar(fs, &f.epochs, "epochs", 5, "expected passes over the data (T = epochs/q steps)")
	floatVar(fs, &f.clip, "clip", 1, "per-example clip norm C > 0")
	floatVar(fs, &f.lr, "lr", 0, "SGD learning rate > 0; 0 or unset: the model's default, 0.5, or 1/(2B) for a linear regression (B = features + 1; under feature DP it must stay below 1/B) and 1/(2(hidden + 1)) for an mlp regression")
	intVar(fs, &f.hidden, "hidden", 32, "hidden units of the mlp")
	intVar(fs, &f.rows, "rows", 0, "a public number `N` of training rows (the dataset's documented size, or a round figure you may publish): the update is scaled by q·N; required with --notion dp, whose guarantee does not cover the actual count")
	fs.StringVar(&f.orders, "orders", "dp_accounting", "RDP order `GRID` of the calibration and the ledger: dp_accounting, opacus, tfp or a comma-separated list")
	fs.BoolVar(&f.reproducible, "reproducible", false, "seeded randomness: NOT a private release (tests, experiments)")
	intVar(fs, &f.seed, "seed", 0, "seed of --reproducible")
	fs.StringVar(&f.out, "out", "", "the model `FILE` to write (required)")
	fs.BoolVar(&f.force, "force", false, "let --out replace an existing file")
	fs.BoolVar(&f.trimSpace, "trim-space", false, trimSpaceUsage)
	intVar(fs, &f.maxLine, "max-line-bytes", data.DefaultMaxLineBytes, maxLineUsage)
	fs.StringVar(&f.signKey, "sign-key", "", "sign the model file with the Ed25519 private key `FILE` (featuredp keygen's NAME.key)")
	return f
}

// maxLineUsage is the help of train's and predict's --max-line-bytes.
const maxLineUsage = "reading cap: bytes of one line of --csv (-1: none)"

// streamOptions are the CSV options of train and predict: no cap on the
// file's size (it is streamed), maxLine on a line's.
func streamOptions(trimSpace bool, maxLine int64) (data.CSVOptions, error) {
	if maxLine == 0 || maxLine < -1 {
		return data.CSVOptions{}, fmt.Errorf("--max-line-bytes %d: want a cap ≥ 1, or -1 for none", maxLine)
	}
	return data.CSVOptions{MaxBytes: -1, MaxLineBytes: maxLine, TrimSpace: trimSpace}, nil
}

func runTrain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featuredp train", flag.ContinueOnError)
	f := newTrainFlags(fs)
	if code, done := parseFlags(fs, args, trainUsage, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "featuredp train: unexpected argument %q (every input is a flag; see featuredp train --help)\n", fs.Arg(0))
		return 2
	}
	f.given = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.given[fl.Name] = true })
	if err := checkKeyFlag(fs, "sign-key"); err != nil {
		fmt.Fprintf(stderr, "featuredp train: %v\n", err)
		return 2
	}
	file, err := f.run(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "featuredp train: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "wrote %s\n\n%s\n", f.out, file.Certificate.Markdown())
	if file.Signature != nil {
		fmt.Fprintf(stdout, "**Signature:** signed by key %s (--sign-key); users verify it with --verify-key and the matching .pub file.\n", file.Signer())
	} else {
		fmt.Fprint(stdout, signatureNote(file, false))
	}
	return 0
}

// run checks the flags, reads the header, trains on the file streamed
// into the design matrix and saves the model.
func (f *trainFlags) run(stderr io.Writer) (*release.File, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	csvOpts, err := streamOptions(f.trimSpace, f.maxLine)
	if err != nil {
		return nil, err
	}
	if err := checkOutFile(f.out, f.force); err != nil {
		return nil, err
	}
	if err := checkOutNotInput(f.out, [2]string{"--csv", f.csv}, [2]string{"--sign-key", f.signKey}); err != nil {
		return nil, err
	}
	var key ed25519.PrivateKey
	if f.signKey != "" {
		if key, err = release.LoadPrivateKey(f.signKey); err != nil {
			return nil, fmt.Errorf("--sign-key: %w", err)
		}
	}
	fh, err := openInput("--csv", f.csv)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	header, err := readHeader(fh, f.csv, csvOpts)
	if err != nil {
		return nil, err
	}
	schema, err := f.schema(header)
	if err != nil {
		return nil, err
	}
	to, err := f.options()
	if err != nil {
		return nil, err
	}
	bar := newProgressBar(stderr, "train")
	bar.unit = "steps"
	to.Progress = bar.update
	file, err := dpnb.TrainCSV(context.Background(), fh, schema, to, csvOpts)
	bar.finish(err == nil)
	var ce *data.CapError
	if errors.As(err, &ce) {
		return nil, csvError(f.csv, err)
	}
	if err != nil {
		return nil, fmt.Errorf("training on --csv %s: %s%s", f.csv, trainFlagNames.Replace(err.Error()), missingHint(err))
	}
	if key != nil {
		if err := file.Sign(key); err != nil {
			return nil, fmt.Errorf("--sign-key %s: %w (the trained model was not saved)", f.signKey, err)
		}
	}
	if err := file.Save(f.out, f.force); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("--out %s appeared during the training: choose another file or add --force (the trained model was not saved)", f.out)
		}
		return nil, err
	}
	return file, nil
}

// missingHint is the fix of a missing-value error (data.ErrMissingValue)
// of train, which reads no missing value: "" for other errors.
func missingHint(err error) string {
	if !errors.Is(err, data.ErrMissingValue) {
		return ""
	}
	return " (featuredp reads no missing value: drop those rows or fill them with a value chosen without the private data; " +
		"a categorical column may instead declare its marker as a public level, e.g. --levels COL=A|B|NA, at training time)"
}

// trainFlagNames renames the dpnb.TrainOptions fields that dpnb.Train's
// errors name to the flags that set them.
var trainFlagNames = strings.NewReplacer(
	"(Epsilon, Delta, SampleRate, Epochs)", "(--epsilon, --delta, --sample-rate, --epochs)",
	"(lower Hidden)", "(lower --hidden)", "LR = ", "--lr ", "needs LR <", "needs --lr <",
	"Delta = ", "--delta ", "for Rows = ", "for --rows ", "SampleRate·n = ", "--sample-rate·n = ", "raise SampleRate", "raise --sample-rate")

// readHeader returns the column names of the CSV file fh (opened from
// path, which errors name) and rewinds fh to its start: the schema and the
// training read one opened file, so a file swapped in at path between the
// two cannot be trained on under the other's schema.
func readHeader(fh io.ReadSeeker, path string, opts data.CSVOptions) ([]string, error) {
	h, err := data.CSVHeader(fh, opts)
	if err != nil {
		return nil, csvError(path, err)
	}
	if _, err := fh.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("--csv %s: rewinding after the header: %w", path, err)
	}
	return h, nil
}

// check validates the flags that need no data.
func (f *trainFlags) check() error {
	switch {
	case f.csv == "" || f.label == "" || f.out == "":
		return errors.New("--csv, --label and --out are required")
	case len(f.sens) == 0:
		return errors.New("--sensitive: name the columns to protect")
	case f.notion != "" && f.notion != "fdp" && f.notion != "dp":
		return fmt.Errorf("--notion %q: want fdp or dp", f.notion)
	case f.given["seed"] && !f.reproducible:
		return errors.New("--seed needs --reproducible (a private release draws its randomness from the OS)")
	case f.given["hidden"] && f.model != "mlp":
		return fmt.Errorf("--hidden sets the hidden units of an mlp, not of a %s model: add --model mlp, or drop --hidden", cmp.Or(f.model, "default"))
	case f.hidden < 1:
		return fmt.Errorf("--hidden %d: want at least 1 hidden unit", f.hidden)
	}
	if err := checkBudget(f.eps, f.delta); err != nil {
		return err
	}
	return f.assignRoles()
}

// assignRoles maps every column a role flag names to that flag (f.flagOf),
// checking that no column gets two roles.
func (f *trainFlags) assignRoles() error {
	f.flagOf = map[string]string{}
	for _, g := range []struct {
		flag  string
		names []string
	}{{"--label", []string{f.label}}, {"--sensitive", f.sens}, {"--public", f.public}, {"--ignore", f.ignore}} {
		for _, n := range g.names {
			if prev, dup := f.flagOf[n]; dup && prev != g.flag {
				return fmt.Errorf("column %q is in both %s and %s: give each column one role", n, prev, g.flag)
			}
			f.flagOf[n] = g.flag
		}
	}
	return nil
}

// schema gives every column of the header the role its flag names; a
// feature's kind comes from its public parameters (--levels: categorical,
// --bounds: continuous), and the label's from --levels (classification) or
// their absence (regression). A column without a role, a feature without
// public parameters, or a flag naming no column is an error.
func (f *trainFlags) schema(header []string) (data.Schema, error) {
	flagOf, err := f.roles(header)
	if err != nil {
		return data.Schema{}, err
	}
	task := data.Regression
	if _, ok := f.levels[f.label]; ok {
		task = data.Classification
	}
	schema := data.Schema{Task: task}
	var unassigned, noKind []string
	for _, name := range header {
		c := data.Column{Name: name, Kind: data.Continuous}
		lv, hasLevels := f.levels[name]
		_, hasBounds := f.bounds[name]
		switch flagOf[name] {
		case "":
			unassigned = append(unassigned, name)
			continue
		case "--label":
			c.Role = data.Label
		case "--ignore":
			c.Role = data.Ignore
		case "--public":
			c.Role = data.Public
		}
		if hasLevels {
			c.Kind, c.Levels = data.Categorical, lv
		}
		if hasLevels && hasBounds {
			return schema, fmt.Errorf("column %q has both --levels and --bounds: give one (categorical or continuous)", name)
		}
		if c.Role == data.Ignore && (hasLevels || hasBounds) {
			return schema, fmt.Errorf("column %q is --ignore'd but has --levels or --bounds: drop them, or give the column a role", name)
		}
		if isFeature := c.Role == data.Sensitive || c.Role == data.Public; isFeature && !hasLevels && !hasBounds {
			noKind = append(noKind, name)
		}
		schema.Columns = append(schema.Columns, c)
	}
	switch {
	case len(unassigned) > 0:
		return schema, fmt.Errorf("columns %s have no role: name each in --sensitive, --public or --ignore (no column is public by default)", data.QuoteNames(unassigned))
	case len(noKind) > 0:
		return schema, fmt.Errorf("features %s have no public parameters: give --levels COL=A|B|... (categorical) or --bounds COL=LO:HI (continuous) for each; nothing is fitted on the private data", data.QuoteNames(noKind))
	case f.levels[f.label] == nil && !f.hasBounds(f.label):
		return schema, fmt.Errorf("--label %q has neither --levels nor --bounds: give its public classes, --levels %s=A|B|... "+
			"(classification), or its public range, --bounds %s=LO:HI (regression); nothing is fitted on the private data", f.label, f.label, f.label)
	}
	return schema, nil
}

// hasBounds reports whether --bounds names column.
func (f *trainFlags) hasBounds(column string) bool {
	_, ok := f.bounds[column]
	return ok
}

// roles checks that every column the role, --levels and --bounds flags
// name is in the header, and returns f.flagOf (set by check).
func (f *trainFlags) roles(header []string) (map[string]string, error) {
	for _, l := range []struct {
		flag  string
		names []string
	}{{"", slices.Sorted(maps.Keys(f.flagOf))}, {"--levels", slices.Sorted(maps.Keys(f.levels))}, {"--bounds", slices.Sorted(maps.Keys(f.bounds))}} {
		for _, n := range l.names {
			if !slices.Contains(header, n) {
				fl := l.flag
				if fl == "" {
					fl = f.flagOf[n]
				}
				return nil, fmt.Errorf("%s: no column %q in %s (columns: %s)%s", fl, n, f.csv, data.QuoteNames(header), cmp.Or(spaceHint(header, n), suggest.Hint(n, header)))
			}
		}
	}
	return f.flagOf, nil
}

// options maps the flags to dpnb.TrainOptions.
func (f *trainFlags) options() (dpnb.TrainOptions, error) {
	bounds := maps.Clone(map[string]data.Range(f.bounds))
	o := dpnb.TrainOptions{Model: f.model, Hidden: f.hidden, Rows: f.rows, Epsilon: f.eps, Delta: f.delta,
		SampleRate: f.rate, Epochs: f.epochs, Clip: f.clip, LR: f.lr, Reproducible: f.reproducible, Seed: f.seed, Ball: f.ball.m,
		Encode: data.EncodeOptions{Scale: data.MinMax, Bounds: bounds}}
	if b, ok := bounds[f.label]; ok { // a regression label's public range
		o.Encode.LabelBounds = &b
		delete(bounds, f.label)
	}
	switch f.notion {
	case "fdp":
		o.Notion = release.FeatureDP
	case "dp":
		o.Notion = release.DP
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"--sample-rate", f.rate}, {"--epochs", f.epochs}, {"--clip", f.clip}, {"--lr", f.lr}} {
		if c.name == "--lr" && c.v == 0 {
			continue // the default for the model
		}
		if !(c.v > 0) || math.IsInf(c.v, 0) {
			return o, fmt.Errorf("%s %v: want a finite value > 0", c.name, c.v)
		}
	}
	if f.rate > 1 {
		return o, fmt.Errorf("--sample-rate %v: want q in (0, 1]", f.rate)
	}
	grid, err := parseOrders(f.orders)
	if err != nil {
		return o, fmt.Errorf("--orders: %w", err)
	}
	o.Orders = grid
	if t := f.epochs / f.rate; t > dpnb.MaxTrainSteps {
		return o, fmt.Errorf("--epochs %v / --sample-rate %v = %.3g steps: at most %d (lower --epochs or raise --sample-rate)", f.epochs, f.rate, t, dpnb.MaxTrainSteps)
	}
	return o, nil
}
