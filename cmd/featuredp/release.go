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
	"os"
	"strconv"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/release"
)

func init() {
	register("certificate", "print the privacy certificate of a model file (markdown or JSON)", runCertificate)
	register("predict", "apply a model file to the rows of a CSV", runPredict)
}

const certificateUsage = `usage: featuredp certificate MODEL.json [--format markdown|json]

Verifies the model file (format, version, SHA-256) and prints its privacy
certificate: the notion and neighbouring relation, the protected and public
columns, (ε, δ) and how the privacy ledger accounted for them, the
randomness (only a secure run is a private release) and, for feature DP,
the attribute-inference bound of every protected column. docs/release.md
documents every field.

flags:
`

func runCertificate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featuredp certificate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "markdown", "`markdown` or json")
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, certificateUsage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
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
	f, err := release.Load(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "featuredp certificate: %v\n", err)
		return 2
	}
	if *format == "json" {
		b, err := json.MarshalIndent(f.Certificate, "", "  ")
		if err != nil {
			fmt.Fprintf(stderr, "featuredp certificate: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, string(b))
		return 0
	}
	fmt.Fprint(stdout, f.Certificate.Markdown())
	return 0
}

const predictUsage = `usage: featuredp predict --model MODEL.json --csv FILE [--out FILE] [--force]

Applies a model file to every row of a CSV (header row) and writes one row
per input row: a "prediction" column and, for a classifier, one probability
column "p_CLASS" per class. The CSV must hold every feature column of the
model's schema (the label and other columns may be there and are ignored);
a missing column, a value of the wrong type or a category outside the
model's public levels is an error naming the column. Without --out the rows
go to stdout; --out never replaces an existing file unless --force.

flags:
`

func runPredict(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featuredp predict", flag.ContinueOnError)
	model := fs.String("model", "", "the model `FILE` (featuredp train --out)")
	in := fs.String("csv", "", "the CSV `FILE` of rows to predict")
	out := fs.String("out", "", "write the predictions to `FILE` instead of stdout")
	force := fs.Bool("force", false, "let --out replace an existing file")
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
	if err := predict(*model, *in, *out, *force, stdout); err != nil {
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

// predict loads the model, reads the rows and writes the predictions.
func predict(modelPath, csvPath, outPath string, force bool, stdout io.Writer) error {
	if outPath != "" {
		if err := checkOutFile(outPath, force); err != nil {
			return err
		}
	}
	f, err := release.Load(modelPath)
	if err != nil {
		return fmt.Errorf("--model: %w", err)
	}
	df, err := readReportCSV(csvPath, data.CSVOptions{})
	if err != nil {
		return err
	}
	p, err := f.Predict(df)
	if err != nil {
		return fmt.Errorf("--csv %s: %w", csvPath, err)
	}
	w := stdout
	if outPath != "" {
		flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
		if force {
			flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		}
		fh, err := os.OpenFile(outPath, flags, 0o644)
		if errors.Is(err, os.ErrExist) {
			return fmt.Errorf("--out %s exists: choose another file or add --force", outPath)
		}
		if err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		defer fh.Close()
		w = fh
	}
	return writePredictions(w, p)
}

// writePredictions writes the prediction rows as CSV.
func writePredictions(w io.Writer, p *release.Predictions) error {
	cw := csv.NewWriter(w)
	head := []string{"prediction"}
	for _, c := range p.Classes {
		head = append(head, "p_"+c)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for i := range max(len(p.Class), len(p.Value)) {
		var row []string
		if p.Classes != nil {
			row = append(row, p.Class[i])
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
