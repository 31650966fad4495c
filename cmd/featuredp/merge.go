package main

// Sharded runs: `featuredp reproduce --shard K/N` writes, per figure,
// FIGURE-ID.shard-K-of-N.csv (its cells' rows, with their cell index) and
// .json (the manifest); `featuredp merge DIR...` combines the shards of
// every figure into the files one machine writes (the same CSV byte for
// byte, plots and report). Cells are seeded per cell, so shards need no
// coordination: any scheduler (a Kubernetes Indexed Job, a Slurm array)
// runs them, see deploy/.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
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
checks that each figure's shards cover every cell exactly once, and writes
DIR/FIGURE-ID.csv (byte-identical to a one-machine run), .png, .svg and
DIR/report.md.

flags:
`

// writePart writes a shard's CSV and manifest and returns their base path.
func writePart(dir string, p *experiments.Part) (string, error) {
	sh, err := experiments.ParseShard(p.Shard)
	if err != nil {
		return "", err
	}
	base := filepath.Join(dir, fmt.Sprintf("%s.shard-%d-of-%d", p.Figure, sh.K, sh.N))
	if err := writeWith(base+".csv", p.WriteCSV); err != nil {
		return "", err
	}
	return base, writeWith(base+".json", p.WriteManifest)
}

// writeWith creates path and fills it with write.
func writeWith(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featuredp merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "results", "output `DIR` (created if needed)")
	dirs, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, mergeUsage)
		fs.SetOutput(stdout)
		fs.PrintDefaults()
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

// readPart reads the part of manifest path and its CSV beside it.
func readPart(path string) (*experiments.Part, error) {
	man, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer man.Close()
	csv, err := os.Open(strings.TrimSuffix(path, ".json") + ".csv")
	if err != nil {
		return nil, err
	}
	defer csv.Close()
	p, err := experiments.ReadPart(man, csv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// mergeFigures merges and writes every figure; it returns the exit code.
func mergeFigures(byFig map[string][]*experiments.Part, out string, stdout, stderr io.Writer) int {
	if err := os.MkdirAll(out, 0o755); err != nil {
		fmt.Fprintf(stderr, "featuredp merge: %v\n", err)
		return 1
	}
	ids := make([]string, 0, len(byFig))
	for id := range byFig {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	rep := &runReport{path: filepath.Join(out, "report.md"),
		header: fmt.Sprintf("# featuredp merge — %s\n\nfigures: %s\n\n", time.Now().Format("2006-01-02 15:04:05 MST"), strings.Join(ids, ", "))}
	failed := 0
	for _, id := range ids {
		if err := mergeOne(id, byFig[id], out, rep, stdout); err != nil {
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
func mergeOne(id string, parts []*experiments.Part, out string, rep *runReport, stdout io.Writer) error {
	fig, ok := experiments.Lookup(id)
	if !ok {
		return fmt.Errorf("unknown figure (this featuredp has no figure %q)", id)
	}
	res, err := experiments.MergeParts(parts)
	if err != nil {
		return err
	}
	r := &dpnb.Result{Figure: fig, Results: res, Summary: experiments.SummarizeBy(res, fig.GroupBy...), Profile: parts[0].Profile}
	if err := writeReproduceFigure(out, r); err != nil {
		return err
	}
	rep.add(id, fmt.Sprintf("merged from %d shards", len(parts)), 0, claimsSummary(r.Comparisons()), figureSection(r))
	fmt.Fprintf(stdout, "%s: %d rows from %d shards -> %s.{csv,png,svg}\n", id, len(res.Rows), len(parts), filepath.Join(out, id))
	return nil
}
