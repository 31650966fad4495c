package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/dpnb"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/eta"
	"github.com/featuredp/featuredp/internal/safefile"
	"github.com/featuredp/featuredp/mechanisms"
)

func init() {
	register("reproduce", "run paper figures: CSV, PNG, SVG and a markdown report per figure", runReproduce)
}

const reproduceUsage = `usage: featuredp reproduce [all | PAPER | FIGURE-ID ...] [flags]

Runs the selected figures (default: all) and writes, for each, DIR/FIGURE-ID.csv
(tidy table), DIR/FIGURE-ID.png and .svg, and DIR/report.md (replacing earlier
ones): a summary table (figure, status, wall time, agreement with the paper's
numbers) and a section per figure with the settings and the paper's numbers
beside this run's. Figures whose datasets are missing from the data directory
are skipped (and listed). Figures are experiments: every cell is seeded
(reproducible mode), so nothing they output is a private release.
DIR must be new, empty or written by featuredp (it holds the marker file
.featuredp-output); --force writes into any other directory.
Progress goes to stderr (a bar on a terminal, else a line at every quarter)
with the time elapsed and an estimate of the time left; it counts cells or,
for figures whose cells share training runs (advanced together in lock-step,
or one diffusion model read by many cells), the training steps of those runs
(the diffusion figures: training examples, steps weighted by their batch and
by their measured cost, Algorithm 1's private examples twice, a sample as 45).
PAPER is one of: ` + "corrdp, fdp, bcdp, smoothdp, accounting" + `.

flags:
`

// reproduceOptions are the parsed command-line options.
type reproduceOptions struct {
	selection []string
	out       string
	profile   experiments.Profile
	dataDir   string
	workers   int
	list      bool
	fetch     bool               // fetch the missing datasets first
	mirror    string             // download them from this base URL
	shard     *experiments.Shard // run only this slice of the cells
	force     bool               // write into a directory featuredp did not write
}

// parseReproduce parses args, allowing flags before, between and after the
// positional arguments. help is true for -h/--help.
func parseReproduce(args []string, stdout io.Writer) (opts reproduceOptions, help bool, err error) {
	fs := flag.NewFlagSet("featuredp reproduce", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "results", "output `DIR` (created if needed)")
	profile := fs.String("profile", "quick", "`quick` (minutes) or full (the papers' settings)")
	data := fs.String("data", os.Getenv("FEATUREDP_DATA"), "`DIR` holding the real datasets (default $FEATUREDP_DATA)")
	workers := intFlagOf(fs, "workers", runtime.NumCPU(), "parallel `N` workers")
	list := fs.Bool("list", false, "list the selected figures (id, title, datasets) and exit")
	fetch := fs.Bool("fetch", false, "first download the datasets the selected figures need and lack (see featuredp data fetch)")
	mirror := fs.String("mirror", "", "with --fetch: download from `URL`/NAME instead of the canonical sources")
	force := fs.Bool("force", false, "write into --out even if it is a non-empty directory featuredp did not write (its files of the same names are replaced)")
	shard := fs.String("shard", "", "run only the slice `K/N` of every figure's cells and write partial results (combine them with featuredp merge)")
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, reproduceUsage)
				printDefaults(fs, stdout)
				return opts, true, nil
			}
			return opts, false, errors.New(flagError(fs, err))
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		opts.selection = append(opts.selection, rest[0])
		rest = rest[1:]
	}
	p, err := experiments.ParseProfile(*profile)
	if err != nil {
		return opts, false, fmt.Errorf("unknown profile %q (valid: quick, full)", *profile)
	}
	if *workers < 1 {
		return opts, false, fmt.Errorf("--workers must be at least 1, got %d", *workers)
	}
	if *data != "" {
		st, err := os.Stat(*data)
		if err != nil || !st.IsDir() {
			return opts, false, fmt.Errorf("data directory %q (from --data or FEATUREDP_DATA) is not a directory", *data)
		}
	}
	if strings.TrimSpace(*out) == "" {
		return opts, false, errors.New("--out must not be empty")
	}
	opts.out, opts.profile, opts.dataDir, opts.workers, opts.list = *out, p, *data, *workers, *list
	opts.fetch, opts.mirror, opts.force = *fetch, *mirror, *force
	if *shard != "" {
		sh, err := experiments.ParseShard(*shard)
		if err != nil {
			return opts, false, errors.New(strings.TrimPrefix(err.Error(), "experiments: "))
		}
		opts.shard = &sh
	}
	return opts, false, nil
}

func runReproduce(args []string, stdout, stderr io.Writer) int {
	opts, help, err := parseReproduce(args, stdout)
	if help {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "featuredp reproduce: %v\n", err)
		return 2
	}
	figs, err := experiments.Select(opts.selection)
	if err != nil {
		fmt.Fprintf(stderr, "featuredp reproduce: %s\n", strings.TrimPrefix(err.Error(), "experiments: "))
		return 2
	}
	if opts.list {
		listReproduceFigures(stdout, figs, opts.dataDir)
		return 0
	}
	if err := prepareOutDir(opts.out, opts.force); err != nil {
		fmt.Fprintf(stderr, "featuredp reproduce: %v\n", err)
		return outDirExit(err)
	}
	if opts.fetch {
		fetchForFigures(figs, opts, stdout, stderr)
	}
	if opts.profile == experiments.Full {
		printExpected(stderr, figs)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return reproduce(ctx, figs, opts, stdout, stderr)
}

// fetchForFigures fetches the registry files the figures need and lack
// (featuredp data fetch); a file it cannot get leaves its figures to be
// skipped with a message.
func fetchForFigures(figs []experiments.Figure, opts reproduceOptions, stdout, stderr io.Writer) {
	seen := map[string]bool{}
	for _, f := range figs {
		for _, name := range f.MissingDatasets(opts.dataDir) {
			file, known := data.LookupFile(name)
			if !known || seen[name] {
				continue
			}
			seen[name] = true
			fetchOne(file, dataFlags{dir: opts.dataDir, mirror: opts.mirror}, stdout, stderr)
		}
	}
}

// listReproduceFigures prints one line per figure: id, title and the datasets it
// needs (marked missing when they are not in dataDir).
func listReproduceFigures(w io.Writer, figs []experiments.Figure, dataDir string) {
	width := 0
	for _, f := range figs {
		width = max(width, len(f.ID))
	}
	for _, f := range figs {
		line := fmt.Sprintf("%-*s  %s", width, f.ID, f.Title)
		if len(f.Datasets) > 0 {
			line += "  [needs " + strings.Join(f.Datasets, ", ")
			if m := f.MissingDatasets(dataDir); len(m) > 0 {
				line += fmt.Sprintf("; %d missing", len(m))
			}
			line += "]"
		}
		fmt.Fprintln(w, line)
	}
}

// reproduce runs the figures and writes their files; it returns the exit
// code (0 success, 1 if a figure failed or the run was interrupted).
// DIR/report.md is rewritten after every figure: one header, a summary
// table and one section per figure of this run (a previous report is
// replaced).
func reproduce(ctx context.Context, figs []experiments.Figure, opts reproduceOptions, stdout, stderr io.Writer) int {
	rep := &runReport{path: filepath.Join(opts.out, "report.md"), header: reportHeader(figs, opts)}
	if err := rep.write(); err != nil {
		fmt.Fprintf(stderr, "featuredp reproduce: %v\n", err)
		return 1
	}
	o := runFigures(ctx, figs, opts, rep, stdout, stderr)
	if err := rep.write(); err != nil {
		fmt.Fprintf(stderr, "featuredp reproduce: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %d of %d figures to %s (report: %s)", o.written, len(figs), opts.out, rep.path)
	if o.skipped > 0 {
		fmt.Fprintf(stdout, "; skipped %d for missing data", o.skipped)
	}
	if o.failed > 0 {
		fmt.Fprintf(stdout, "; %d failed", o.failed)
	}
	fmt.Fprintln(stdout)
	if o.failed > 0 {
		return 1
	}
	return 0
}

// reportHeader opens report.md: the run's time, settings and figures.
func reportHeader(figs []experiments.Figure, opts reproduceOptions) string {
	dataDesc := opts.dataDir
	if dataDesc == "" {
		dataDesc = "none (set --data or FEATUREDP_DATA)"
	}
	ids := make([]string, len(figs))
	for i, f := range figs {
		ids[i] = f.ID
	}
	h := fmt.Sprintf("# featuredp reproduce — %s\n\nprofile: %s · workers: %d · data: %s · %s/%s, %s · randomness: %s\n\nfigures: %s\n\n",
		time.Now().Format("2006-01-02 15:04:05 MST"), opts.profile, opts.workers, dataDesc,
		runtime.GOOS, runtime.GOARCH, runtime.Version(), mechanisms.Reproducible, strings.Join(ids, ", "))
	if opts.profile == experiments.Quick {
		h += "The quick profile runs fewer seeds, steps and grid points than the papers: disagreements with the papers' numbers are expected where a number depends on them; `--profile full` uses the papers' settings.\n\n"
	}
	return h
}

// runReport is the report.md of one reproduce run, rewritten whole after
// every figure.
type runReport struct {
	path, header string
	rows         []string // summary table rows
	sections     []string // one per figure that ran
}

// add records one figure's summary row and, if it ran, its section.
func (r *runReport) add(id, status string, wall time.Duration, claims, section string) {
	w := "—"
	if wall > 0 {
		w = wall.Round(time.Millisecond).String()
	}
	r.rows = append(r.rows, fmt.Sprintf("| %s | %s | %s | %s |", id, mdEscape(status), w, mdEscape(claims)))
	if section != "" {
		r.sections = append(r.sections, section)
	}
}

// write replaces the report file with the current content (through a
// temporary file, so a reader never sees half a report).
func (r *runReport) write() error {
	var b strings.Builder
	b.WriteString(r.header)
	if len(r.rows) > 0 {
		b.WriteString("## Summary\n\n| figure | status | wall time | paper's numbers |\n|---|---|---:|---|\n")
		b.WriteString(strings.Join(r.rows, "\n") + "\n\n")
	}
	for _, s := range r.sections {
		b.WriteString(s)
	}
	if err := writeOutFile(r.path, writeBytes([]byte(b.String()))); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}

// claimsSummary counts the paper's numbers this run agrees and disagrees
// with and lists the disagreements with both numbers.
func claimsSummary(cs []dpnb.Comparison) string {
	if len(cs) == 0 {
		return "none reported"
	}
	agree, none := 0, 0
	var dis []string
	for _, c := range cs {
		switch ok, judged := c.Agrees(); {
		case !judged:
			none++
		case ok:
			agree++
		default:
			dis = append(dis, fmt.Sprintf("%s: paper %.4g, this run %.4g", c.Quantity, c.Paper, c.Ours))
		}
	}
	s := fmt.Sprintf("%d agree, %d disagree", agree, len(dis))
	if none > 0 {
		s += fmt.Sprintf(", %d not computed", none)
	}
	if len(dis) > 0 {
		s += " (" + strings.Join(dis, "; ") + ")"
	}
	return s
}

// mdEscape makes s safe for one markdown table cell.
func mdEscape(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "|", `\|`)), " ")
}

// reproduceOutcome counts what one reproduce run wrote, skipped and failed.
type reproduceOutcome struct{ written, skipped, failed int }

// runFigures runs figs in order with one memo for the whole run, writing
// each figure's files and the report as it completes. A cancelled context
// stops the loop.
func runFigures(ctx context.Context, figs []experiments.Figure, opts reproduceOptions, rep *runReport, stdout, stderr io.Writer) reproduceOutcome {
	env := experiments.Env{DataDir: opts.dataDir, Workers: opts.workers, Memo: experiments.NewMemo(0)}
	var o reproduceOutcome
	for _, f := range figs {
		if missing := f.MissingDatasets(opts.dataDir); len(missing) > 0 {
			why := fmt.Sprintf("needs %s, %s", strings.Join(missing, ", "), experiments.MissingWhere(opts.dataDir, missing))
			fmt.Fprintf(stderr, "skipped %s: %s\n", f.ID, why)
			rep.add(f.ID, "skipped: "+why, 0, "—", "")
			o.skipped++
		} else if err := runOne(ctx, f, opts, env, rep, stdout, stderr); err != nil {
			fmt.Fprintf(stderr, "featuredp reproduce: %s: %v\n", f.ID, err)
			rep.add(f.ID, "failed: "+err.Error(), 0, "—", "")
			o.failed++
		} else {
			o.written++
		}
		if err := rep.write(); err != nil {
			fmt.Fprintf(stderr, "featuredp reproduce: %v\n", err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	return o
}

// runOne runs one figure (or its shard, with --shard) and writes its files
// and report section.
func runOne(ctx context.Context, f experiments.Figure, opts reproduceOptions, env experiments.Env, rep *runReport, stdout, stderr io.Writer) error {
	bar := newProgressBar(stderr, f.ID)
	bar.counting(f.ProgressUnit(), opts.workers)
	if opts.shard != nil {
		part, err := f.ExecuteShard(ctx, opts.profile, env, *opts.shard, bar.update)
		bar.finish(err == nil)
		if err != nil {
			return err
		}
		base, err := writePart(opts.out, part)
		if err != nil {
			return err
		}
		rep.add(f.ID, fmt.Sprintf("ran shard %s: %d of %d cells", part.Shard, len(part.Cells), part.Total), 0, "—", "")
		fmt.Fprintf(stdout, "%s: shard %s, %d rows -> %s.{csv,json}\n", f.ID, part.Shard, len(part.Rows), base)
		return nil
	}
	r, err := dpnb.RunFigure(ctx, f, opts.profile, env, bar.update)
	bar.finish(err == nil)
	if err != nil {
		return err
	}
	if err := writeReproduceFigure(opts.out, r); err != nil {
		return err
	}
	rep.add(f.ID, "ran", r.Elapsed, claimsSummary(r.Comparisons()), figureSection(r))
	fmt.Fprintf(stdout, "%s: %d rows in %v -> %s.{csv,png,svg}\n", f.ID, len(r.Results.Rows),
		r.Elapsed.Round(time.Millisecond), filepath.Join(opts.out, f.ID))
	return nil
}

// writeReproduceFigure writes FIGURE-ID.csv, .png and .svg. The CSV is
// written first so that the data survive a plotting error. Each file
// replaces a plain file of an earlier run, never a symbolic link or
// special file planted in --out (writeOutFile).
func writeReproduceFigure(dir string, r *dpnb.Result) error {
	base := filepath.Join(dir, r.Figure.ID)
	if err := writeOutFile(base+".csv", r.Results.WriteCSV); err != nil {
		return fmt.Errorf("writing CSV: %w", err)
	}
	panels, err := r.Panels()
	if err != nil {
		return fmt.Errorf("plotting: %w", err)
	}
	png, err := dpnb.RenderPanelsPNG(panels)
	if err != nil {
		return fmt.Errorf("plotting PNG: %w", err)
	}
	if err := writeOutFile(base+".png", writeBytes(png)); err != nil {
		return fmt.Errorf("writing PNG: %w", err)
	}
	svg, err := dpnb.RenderPanelsSVG(panels)
	if err != nil {
		return fmt.Errorf("plotting SVG: %w", err)
	}
	if err := writeOutFile(base+".svg", writeBytes(svg)); err != nil {
		return fmt.Errorf("writing SVG: %w", err)
	}
	return nil
}

// writeBytes is a write function for writeOutFile that writes b.
func writeBytes(b []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}
}

// writeOutFile writes path, a file of featuredp's own in an --out
// directory, through a temporary file moved into place: an earlier run's
// file is replaced, but a symbolic link (or device, or pipe) planted at
// path is refused rather than followed to a file outside the directory.
func writeOutFile(path string, write func(io.Writer) error) error {
	if err := safefile.Replace(path, write); err != nil {
		return fmt.Errorf("featuredp writes only plain files of its own in --out: %w", err)
	}
	return nil
}

// figureSection is a figure's section of report.md: its markdown report,
// the plot and links to its files.
func figureSection(r *dpnb.Result) string {
	id := r.Figure.ID
	return r.Markdown() + fmt.Sprintf("\n![%s](%s.png)\n\nData: [%s.csv](%s.csv) · vector: [%s.svg](%s.svg)\n\n", id, id, id, id, id, id)
}

// progressBar shows a figure's progress on stderr: a bar redrawn in place
// with carriage returns on a terminal, otherwise a plain line at every
// quarter. Its update method is the runner's progress callback (calls never
// overlap).
type progressBar struct {
	w       io.Writer
	tty     bool
	label   string
	start   time.Time
	last    time.Time
	quarter int
	done    int
	total   int
	unit    string           // what is counted: "cells" (default) or "steps" (Figure.ProgressUnit)
	now     func() time.Time // the clock (time.Now; tests replace it)
	pace    eta.Pace         // the time left, at the pace after the setup
}

// status is the elapsed time and the estimate of the time left, at the
// pace after the setup (eta.Pace): since the first steps, or since the
// first cell of every worker (pace.After, set by counting).
func (b *progressBar) status(done, total int) string {
	return b.pace.Status(b.now().Sub(b.start), done, total)
}

// counting sets what the bar counts: unit ("cells", or Figure.ProgressUnit's
// units of work), cells run by workers parallel workers; the estimate is
// eta.ForUnits's, as the notebooks' bar (nb.NewFigureProgress).
func (b *progressBar) counting(unit string, workers int) {
	b.unit = unit
	b.pace = eta.ForUnits(unit, workers)
}

func newProgressBar(w io.Writer, label string) *progressBar {
	tty := false
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			tty = true
		}
	}
	return &progressBar{w: w, tty: tty, label: label, start: time.Now(), unit: "cells", now: time.Now}
}

func (b *progressBar) update(done, total int) {
	b.done, b.total = done, total
	if total == 0 {
		return
	}
	status := b.status(done, total) // every report, so the pace sees its reference
	if b.tty {
		now := b.now()
		if done < total && now.Sub(b.last) < 100*time.Millisecond {
			return
		}
		b.last = now
		const width = 30
		fill := width * done / total
		fmt.Fprintf(b.w, "\r%s [%s%s] %d/%d %3d%% %s\033[K", b.label, strings.Repeat("#", fill), strings.Repeat(".", width-fill),
			done, total, 100*done/total, status)
		return
	}
	if q := 4 * done / total; q > b.quarter && done > 0 {
		b.quarter = q
		fmt.Fprintf(b.w, "%s: %d/%d %s (%d%%), %s\n", b.label, done, total, b.unit, 100*done/total, status)
	}
}

// finish ends the bar's line on a terminal.
func (b *progressBar) finish(ok bool) {
	if b.tty && b.total > 0 {
		status := "done"
		if !ok {
			status = "stopped"
		}
		fmt.Fprintf(b.w, "\r%s: %d/%d %s, %s in %v\033[K\n", b.label, b.done, b.total, b.unit, status, time.Since(b.start).Round(time.Millisecond))
	}
}
