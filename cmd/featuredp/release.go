package main

// The release commands: `featuredp certificate MODEL` prints what a model
// file's training protected; `featuredp predict --model MODEL --csv FILE`
// applies the model to new rows (docs/release.md).

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/internal/safefile"
	"github.com/featuredp/featuredp/release"
)

func init() {
	register("certificate", "print the privacy certificate of a model file (markdown or JSON)", runCertificate)
	register("predict", "apply a model file to the rows of a CSV", runPredict)
}

const certificateUsage = `usage: featuredp certificate MODEL.json [--format markdown|json] [--verify-key KEY.pub]

Verifies the model file (format, version, SHA-256) and prints its privacy
certificate: the notion and neighbouring relation, the protected and public
columns, (ε, δ) and how the privacy ledger accounted for them, the
randomness (only a secure run is a private release) and, for feature DP,
the attribute-inference bound of every protected column. docs/release.md
documents every field.

The first line and the last say whether the file is signed and by which
key (its fingerprint; with --format json this line goes to stderr): the
text between comes from the file, so a note in it that reads like this
line is the file's claim, not featuredp's. The checksum
only detects damage: anyone can edit a certificate and recompute it. With
--verify-key KEY.pub, the publisher's public key (featuredp keygen), the
file must be signed with its private key (featuredp train --sign-key), or
the command fails; without it a signature is reported, never "verified".

flags:
`

func runCertificate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featuredp certificate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "markdown", "`markdown` or json")
	verifyKey := fs.String("verify-key", "", verifyKeyUsage)
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, certificateUsage)
		printDefaults(fs, stdout)
		return 0
	}
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "featuredp certificate: %v\n", err)
		return 2
	case len(pos) != 1:
		fmt.Fprintln(stderr, "featuredp certificate: give one model file (featuredp certificate MODEL.json)")
		return 2
	case *format != "markdown" && *format != "json":
		fmt.Fprintf(stderr, "featuredp certificate: --format %q: want markdown or json\n", *format)
		return 2
	}
	if err := checkKeyFlag(fs, "verify-key"); err != nil {
		fmt.Fprintf(stderr, "featuredp certificate: %v\n", err)
		return 2
	}
	f, err := loadModel(pos[0], "", *verifyKey)
	if err != nil {
		fmt.Fprintf(stderr, "featuredp certificate: %v\n", err)
		return 2
	}
	note := signatureNote(f, *verifyKey != "")
	if *format == "json" {
		b, err := json.MarshalIndent(f.Certificate, "", "  ")
		if err != nil {
			fmt.Fprintf(stderr, "featuredp certificate: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, string(b))
		fmt.Fprint(stderr, strings.ReplaceAll(note, "**", ""))
		return 0
	}
	// The line comes first and last: everything between is the file's own
	// text, whose notes may imitate it ("**Signature:** verified").
	fmt.Fprintf(stdout, "%s\n%s\n%s", note, f.Certificate.Markdown(), note)
	return 0
}

// verifyKeyUsage is the help of certificate's and predict's --verify-key.
const verifyKeyUsage = "the publisher's public key `FILE` (featuredp keygen's NAME.pub): refuse the model file unless it was signed with its private key"

// loadModel loads the model file at path (its errors prefixed with
// prefix) and, when keyPath (--verify-key) is given, verifies its
// signature against that public key, read first.
func loadModel(path, prefix, keyPath string) (*release.File, error) {
	pub, err := loadVerifyKey(keyPath)
	if err != nil {
		return nil, err
	}
	f, err := release.Load(path)
	if err != nil {
		return nil, fmt.Errorf("%s%w", prefix, err)
	}
	if err := verifyModel(f, pub, keyPath); err != nil {
		return nil, err
	}
	return f, nil
}

const predictUsage = `usage: featuredp predict --model MODEL.json --csv FILE [--out FILE] [--force] [--trim-space]
                         [--max-line-bytes N] [--verify-key KEY.pub]

Applies a model file to every row of a CSV (header row) and writes one row
per input row: a "prediction" column and, for a classifier, one probability
column "p_CLASS" per class. The CSV must hold every feature column of the
model's schema (the label and other columns may be there and are ignored).
Cells are read as featuredp train reads them; a missing column, a missing
or non-numeric value or a category outside the model's public levels is an
error naming the column and the line. The rows are streamed (4096 at a
time, fewer for a model wider than 4096 encoded columns and classes, so
that a chunk holds at most 2^24 values: no size cap, memory independent
of the file's length and bounded whatever the model's width; one line
may hold at most --max-line-bytes, 4 MiB by default). A predicted class
that a spreadsheet would run as a formula (a class name of the model file
starting with = + - @, a tab or a carriage return, other than a plain
number such as -1 or +1) is written with a leading single quote (').
Without --out they go to stdout a chunk at a time (after an error, the
complete chunks before it have been written — rows of the chunk that holds
the bad row are not — and the exit status is 2); --out is written only
when every row was predicted, and never replaces an existing file unless
--force. With --verify-key KEY.pub, the publisher's public key (featuredp
keygen), a model file not signed with its private key (featuredp train
--sign-key) is refused before any row is read. --csv must name a regular
file; to stream rows from a pipe, give --csv - and send them to standard
input (featuredp predict --model m.json --csv - < <(zcat rows.csv.gz)).

flags:
`

func runPredict(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featuredp predict", flag.ContinueOnError)
	model := fs.String("model", "", "the model `FILE` (featuredp train --out)")
	in := fs.String("csv", "", "the CSV `FILE` of rows to predict (- reads standard input)")
	out := fs.String("out", "", "write the predictions to `FILE` instead of stdout")
	force := fs.Bool("force", false, "let --out replace an existing file")
	trim := fs.Bool("trim-space", false, trimSpaceUsage)
	maxLine := intFlagOf[int64](fs, "max-line-bytes", data.DefaultMaxLineBytes, maxLineUsage)
	verifyKey := fs.String("verify-key", "", verifyKeyUsage)
	if code, done := parseFlags(fs, args, predictUsage, stdout, stderr); done {
		return code
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "featuredp predict: unexpected argument %q (every input is a flag)\n", fs.Arg(0))
		return 2
	case *model == "" || *in == "":
		fmt.Fprintln(stderr, "featuredp predict: --model and --csv are required")
		return 2
	}
	csvOpts, err := streamOptions(*trim, *maxLine)
	if err == nil {
		err = checkKeyFlag(fs, "verify-key")
	}
	if err != nil {
		fmt.Fprintf(stderr, "featuredp predict: %v\n", err)
		return 2
	}
	if err := predict(*model, *in, *out, *verifyKey, *force, csvOpts, stdout); err != nil {
		fmt.Fprintf(stderr, "featuredp predict: %v\n", err)
		return 2
	}
	return 0
}

// checkOutFile reports, before any work, why a command cannot write its
// --out file: a directory there (or a link to one), or anything else
// there, a dangling link included, without --force.
func checkOutFile(path string, force bool) error {
	if _, err := os.Lstat(path); err != nil {
		if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
			return fmt.Errorf("--out %s: the directory %s does not exist: create it first", path, filepath.Dir(path))
		}
		return nil
	}
	switch fi, err := os.Stat(path); {
	case err == nil && fi.IsDir():
		return fmt.Errorf("--out %s is a directory: give a file path", path)
	case !force:
		return fmt.Errorf("--out %s exists: choose another file or add --force", path)
	}
	return nil
}

// checkOutNotInput refuses an --out that names one of the command's input
// files (flag → path), which --force would otherwise replace.
func checkOutNotInput(out string, inputs ...[2]string) error {
	ost, err := os.Stat(out)
	if err != nil {
		return nil // nothing there yet: not an input
	}
	for _, in := range inputs {
		if st, err := os.Stat(in[1]); err == nil && os.SameFile(st, ost) {
			return fmt.Errorf("--out %s is the %s file: writing it would replace the input it is made from; choose another file", out, in[0])
		}
	}
	return nil
}

// predict loads the model (verified against the public key file keyPath,
// if given) and streams the rows of the CSV through it into stdout or a new
// --out file.
func predict(modelPath, csvPath, outPath, keyPath string, force bool, csvOpts data.CSVOptions, stdout io.Writer) error {
	if outPath != "" {
		if err := checkOutFile(outPath, force); err != nil {
			return err
		}
		if err := checkOutNotInput(outPath, [2]string{"--csv", csvPath}, [2]string{"--model", modelPath}, [2]string{"--verify-key", keyPath}); err != nil {
			return err
		}
	}
	f, err := loadModel(modelPath, "--model: ", keyPath)
	if err != nil {
		return err
	}
	in, err := predictInput(csvPath)
	if err != nil {
		return err
	}
	defer in.Close()
	if outPath == "" {
		return streamPredictions(stdout, f, in, csvPath, csvOpts)
	}
	var predictErr error
	err = safefile.Write(outPath, force, func(w io.Writer) error {
		predictErr = streamPredictions(w, f, in, csvPath, csvOpts)
		return predictErr
	})
	switch {
	case err == nil || err == predictErr:
		return err
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("--out %s exists: choose another file or add --force", outPath)
	}
	return fmt.Errorf("--out %s: %w", outPath, err)
}

// stdin is what predict reads for --csv -; a variable so that tests can
// give it rows.
var stdin io.Reader = os.Stdin

// predictInput opens predict's --csv: "-" is stdin (rows streamed from a
// pipe the user made, e.g. --csv - < <(zcat rows.csv.gz)); any other path
// must be a regular file (openInput), and a pipe or device there is
// refused with a hint to give it on stdin instead.
func predictInput(csvPath string) (io.ReadCloser, error) {
	if csvPath == "-" {
		return io.NopCloser(stdin), nil
	}
	in, err := openInput("--csv", csvPath)
	if nr := (safefile.NotRegularError{}); errors.As(err, &nr) && !nr.Mode.IsDir() {
		return nil, fmt.Errorf("%w (to stream rows from a pipe, give --csv - and send them to standard input)", err)
	}
	return in, err
}

// streamPredictions writes one CSV row per row of in as release.PredictCSV
// predicts them, chunk by chunk: "prediction" and, for a classifier, the
// probability "p_CLASS" of every class.
func streamPredictions(w io.Writer, f *release.File, in io.Reader, csvPath string, csvOpts data.CSVOptions) error {
	cw := csv.NewWriter(w)
	head := []string{"prediction"}
	for _, c := range f.Encoder.Classes {
		head = append(head, "p_"+c)
	}
	var writeErr error
	err := f.PredictCSV(in, csvOpts, func(p *release.Predictions) error {
		if head != nil {
			cw.Write(head)
			head = nil
		}
		writeErr = writePredictions(cw, p)
		return writeErr
	})
	switch {
	case err == nil:
		return nil
	case err == writeErr:
		return fmt.Errorf("writing the predictions: %w", err)
	}
	var ce *data.CapError
	if errors.As(err, &ce) {
		return csvError(csvPath, err)
	}
	return fmt.Errorf("--csv %s: %s", csvPath, libraryFlags.Replace(err.Error()))
}

// writePredictions writes the prediction rows of one chunk and flushes them.
// A class name comes from the model file, which may be hostile: one that a
// spreadsheet would evaluate as a formula (starting with = + - @, a tab or
// a carriage return, and not a plain number such as -1) is written with a
// leading single quote (spreadsheetSafe); the header's "p_CLASS" names
// start with "p_" and are never formulas.
func writePredictions(cw *csv.Writer, p *release.Predictions) error {
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for i := range max(len(p.Class), len(p.Value)) {
		var row []string
		if p.Classes != nil {
			row = append(row, spreadsheetSafe(p.Class[i]))
			for _, pr := range p.Probs[i] {
				row = append(row, num(pr))
			}
		} else {
			row = append(row, num(p.Value[i]))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
