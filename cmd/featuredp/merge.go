package main

// Sharded runs: `featuredp reproduce --shard K/N` writes, per figure,
// FIGURE-ID.shard-K-of-N.csv (its cells' rows, with their cell index) and
// .json (the manifest: featuredp build, profile, figure, cells, their
// shard units and the CSV's checksum; see deploy/README.md); `featuredp
// merge DIR...` checks the shards and combines those of every figure into
// the files one machine writes (the same CSV byte for byte, plots and
// report). Cells are seeded per cell, so shards need no coordination: any
// scheduler (a Kubernetes Indexed Job, a Slurm array) runs them, see
// deploy/.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/featuredp/featuredp/dpnb"
	"github.com/featuredp/featuredp/experiments"
)

func init() {
	register("merge", "combine the shards of `reproduce --shard K/N` runs into the figures' files", runMerge)
}

const mergeUsage = `usage: featuredp merge [--out DIR] PARTDIR...

Reads every FIGURE-ID.shard-K-of-N.{json,csv} in the PARTDIRs (the --out
directories of reproduce --shard runs, or one directory holding them all),
checks each shard against its manifest (format, featuredp build, profile,
figure, cells and units, the CSV's row count and SHA-256), checks that each figure's
shards are one run's shards 1/N … N/N, each once, and that every row is of
its cell, and writes DIR/FIGURE-ID.csv (byte-identical to a one-machine
run), .png, .svg and DIR/report.md. Any failed check names the shard's
file and stops the merge. DIR must be new, empty or written by featuredp
(see reproduce -h), unless --force. The manifest format is documented in
deploy/README.md.

flags:
`

// writePart writes a shard's CSV and manifest and returns their base path.
func writePart(dir string, p *experiments.Part) (string, error) {
	if _, err := experiments.ParseShard(p.Shard); err != nil {
		return "", err
	}
	base := filepath.Join(dir, partBase(p))
	if err := writeWith(base+".csv", p.WriteCSV); err != nil {
		return "", err
	}
	return base, writeWith(base+".json", p.WriteManifest)
}

// writeWith writes path (a file of featuredp's own in --out, see
// writeOutFile) with write.
func writeWith(path string, write func(io.Writer) error) error {
	if err := writeOutFile(path, write); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featuredp merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "results", "output `DIR` (created if needed)")
	force := fs.Bool("force", false, "write into --out even if it is a non-empty directory featuredp did not write")
	dirs, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, mergeUsage)
		printDefaults(fs, stdout)
		return 0
	}
	if err == nil && len(dirs) == 0 {
		err = errors.New("name the directories holding the shards")
	}
	if err != nil {
		fmt.Fprintf(stderr, "featuredp merge: %v\n", err)
		return 2
	}
	parts, err := readParts(dirs)
	if err != nil {
		fmt.Fprintf(stderr, "featuredp merge: %v\n", err)
		return 1
	}
	if err := prepareOutDir(*out, *force); err != nil {
		fmt.Fprintf(stderr, "featuredp merge: %v\n", err)
		return outDirExit(err)
	}
	return mergeFigures(parts, *out, stdout, stderr)
}

// readParts reads every part in dirs, grouped by figure.
func readParts(dirs []string) (map[string][]*experiments.Part, error) {
	byFig := map[string][]*experiments.Part{}
	for _, d := range dirs {
		mans, err := filepath.Glob(filepath.Join(d, "*.shard-*-of-*.json"))
		if err != nil {
			return nil, err
		}
		for _, m := range mans {
			p, err := readPart(m)
			if err != nil {
				return nil, err
			}
			byFig[p.Figure] = append(byFig[p.Figure], p)
		}
	}
	if len(byFig) == 0 {
		return nil, fmt.Errorf("no shards (*.shard-K-of-N.json) in %s", strings.Join(dirs, ", "))
	}
	return byFig, nil
}

// readPart reads the part of manifest path and its CSV beside it, and
// checks that the file name matches the manifest's figure and shard.
func readPart(path string) (*experiments.Part, error) {
	csvPath := strings.TrimSuffix(path, ".json") + ".csv"
	man, err := openInput("shard file", path)
	if err != nil {
		return nil, err
	}
	defer man.Close()
	csv, err := openInput("shard file", csvPath)
	if err != nil {
		return nil, fmt.Errorf("shard manifest %s: its CSV: %w", path, err)
	}
	defer csv.Close()
	p, err := experiments.ReadPart(man, csv)
	if err != nil {
		return nil, fmt.Errorf("shard %s: %s", path, strings.TrimPrefix(err.Error(), "experiments: part "))
	}
	p.Source = path
	if want := partBase(p) + ".json"; filepath.Base(path) != want {
		return nil, fmt.Errorf("shard %s: the manifest is of figure %s shard %s, which featuredp writes as %s: a file renamed or copied over another",
			path, p.Figure, p.Shard, want)
	}
	return p, nil
}

// partBase is the file name of a part without extension:
// FIGURE-ID.shard-K-of-N.
func partBase(p *experiments.Part) string {
	return p.Figure + ".shard-" + strings.Replace(p.Shard, "/", "-of-", 1)
}

// mergeFigures merges and writes every figure; it returns the exit code.
func mergeFigures(byFig map[string][]*experiments.Part, out string, stdout, stderr io.Writer) int {
	ids := make([]string, 0, len(byFig))
	for id := range byFig {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	rep := &runReport{path: filepath.Join(out, "report.md"),
		header: fmt.Sprintf("# featuredp merge — %s\n\nfigures: %s\n\n", time.Now().Format("2006-01-02 15:04:05 MST"), strings.Join(ids, ", "))}
	failed := 0
	for _, id := range ids {
		if err := mergeOne(id, byFig[id], out, rep, stdout, stderr); err != nil {
			fmt.Fprintf(stderr, "featuredp merge: %s: %v\n", id, err)
			rep.add(id, "failed: "+err.Error(), 0, "—", "")
			failed++
		}
	}
	if err := rep.write(); err != nil {
		fmt.Fprintf(stderr, "featuredp merge: %v\n", err)
		return 1
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// mergeOne merges one figure's parts and writes its files.
func mergeOne(id string, parts []*experiments.Part, out string, rep *runReport, stdout, stderr io.Writer) error {
	fig, ok := experiments.Lookup(id)
	if !ok {
		return fmt.Errorf("unknown figure (this featuredp has no figure %q; shards written by featuredp %s)", id, parts[0].Version)
	}
	res, err := fig.Merge(parts)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "experiments: merge: "))
	}
	if v := experiments.BuildVersion(); parts[0].Version != v {
		fmt.Fprintf(stderr, "featuredp merge: warning: %s: the shards were written by featuredp %s, this is %s: the CSV is the shards' rows (checked against this build's cells), the plots and report are this build's\n",
			id, parts[0].Version, v)
	}
	r := &dpnb.Result{Figure: fig, Results: res, Summary: experiments.SummarizeBy(res, fig.GroupBy...), Profile: parts[0].Profile}
	if err := writeReproduceFigure(out, r); err != nil {
		return err
	}
	rep.add(id, fmt.Sprintf("merged from %d shards", len(parts)), 0, claimsSummary(r.Comparisons()), figureSection(r))
	fmt.Fprintf(stdout, "%s: %d rows from %d shards -> %s.{csv,png,svg}\n", id, len(res.Rows), len(parts), filepath.Join(out, id))
	return nil
}
