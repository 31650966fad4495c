package main

// The data command: `featuredp data list` shows every dataset file the
// figures use (present or missing, where, verified, size, source);
// `featuredp data fetch NAME...|all` downloads them into the user cache,
// verifying their SHA-256, or prints the manual steps for the files that
// have no stable download.

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/featuredp/featuredp/data"
)

func init() {
	register("data", "list the datasets (present or missing) and fetch them into the cache", runData)
}

const dataUsage = `usage: featuredp data list  [--data DIR] [--json]
       featuredp data fetch [--data DIR] [--mirror URL] NAME... | all

list   shows every dataset file the figures use: its dataset, present (and
       where) or missing, SHA-256 verified or not, size, source and licence.
fetch  downloads the named files or datasets (adult, credit, insurance,
       sepsis, fashion-mnist; or all) into the user cache
       ($XDG_CACHE_HOME/featuredp or ~/.cache/featuredp), with a progress
       bar and SHA-256 verification; a file already present and verified is
       left alone. Files without a stable download (the CSV export of UCI
       Credit, Medical Cost insurance.csv) print the exact manual steps and
       the expected checksum instead.
The figures find the files in --data DIR, $FEATUREDP_DATA or the cache
(each also in a sub-directory named after the dataset, e.g.
DIR/fashion-mnist/), and Fashion-MNIST also where Debian's
dataset-fashion-mnist package puts it (/usr/share/datasets/fashion-mnist;
its recompressed files verify by their decompressed content).

flags:
  --data DIR    searched first; must be an existing directory
  --json        list: one JSON array of files
  --mirror URL  fetch: download every file from URL/NAME (plain files, no
                archives), e.g. a local copy served over HTTP
`

// dataFlags are the flags of both data sub-commands.
type dataFlags struct {
	dir, mirror string
	asJSON      bool
}

func runData(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stdout, dataUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	sub, rest := args[0], args[1:]
	fs := flag.NewFlagSet("featuredp data "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f dataFlags
	fs.StringVar(&f.dir, "data", "", "`DIR` searched first, an existing directory ($FEATUREDP_DATA is searched next)")
	fs.StringVar(&f.mirror, "mirror", "", "fetch: download every file from `URL`/NAME")
	fs.BoolVar(&f.asJSON, "json", false, "list: print a JSON array")
	names, err := parseInterleaved(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, dataUsage)
		printDefaults(fs, stdout)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "featuredp data: %v\n", err)
		return 2
	}
	if err := data.CheckDir(data.Options{Dir: f.dir}); err != nil {
		fmt.Fprintf(stderr, "featuredp data %s: --data: %s\n", sub, strings.TrimPrefix(err.Error(), "data: "))
		return 2
	}
	switch sub {
	case "list":
		return dataList(f, stdout, stderr)
	case "fetch":
		return dataFetch(f, names, stdout, stderr)
	}
	fmt.Fprintf(stderr, "featuredp data: unknown sub-command %q (list or fetch)\n", sub)
	return 2
}

// parseInterleaved parses flags before, between and after the positional
// arguments and returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errors.New(flagError(fs, err))
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// dataRecord is one file of `data list --json`.
type dataRecord struct {
	Name     string `json:"name"`
	Dataset  string `json:"dataset"`
	Status   string `json:"status"` // present, unverified or missing
	Path     string `json:"path,omitempty"`
	Size     int64  `json:"size,omitempty"`
	Verified bool   `json:"verified"`
	SHA256   string `json:"sha256"`
	URL      string `json:"url"`
	Manual   bool   `json:"manual_download"`
	Licence  string `json:"licence,omitempty"`
	Citation string `json:"citation,omitempty"`
}

func dataRecords(st []data.FileStatus) []dataRecord {
	out := make([]dataRecord, len(st))
	for i, s := range st {
		status := "missing"
		switch {
		case s.Path != "" && s.Verified:
			status = "present"
		case s.Path != "":
			status = "unverified"
		}
		out[i] = dataRecord{Name: s.Name, Dataset: s.Dataset, Status: status, Path: s.Path, Size: s.Size, Verified: s.Verified,
			SHA256: s.SHA256, URL: s.URL, Manual: s.Manual != "", Licence: s.Licence, Citation: s.Citation}
	}
	return out
}

func dataList(f dataFlags, stdout, stderr io.Writer) int {
	opts := data.Options{Dir: f.dir}
	st, err := data.Status(opts)
	if err != nil {
		fmt.Fprintf(stderr, "featuredp data list: %v\n", err)
		return 1
	}
	recs := dataRecords(st)
	if f.asJSON {
		b, err := json.MarshalIndent(recs, "", "  ")
		if err != nil {
			fmt.Fprintf(stderr, "featuredp data list: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, string(b))
		return 0
	}
	places := strings.ReplaceAll(strings.Join(data.Places(opts), ", "), "(Options.Dir)", "(--data)")
	fmt.Fprintf(stdout, "searched: %s\n\n", places)
	for _, r := range recs {
		where := "—"
		if r.Path != "" {
			where = fmt.Sprintf("%s (%s)", r.Path, humanBytes(r.Size))
		}
		how := "download: featuredp data fetch " + r.Dataset
		if r.Manual {
			how = "manual download: featuredp data fetch " + r.Name + " prints the steps"
		}
		fmt.Fprintf(stdout, "%-13s %-38s %-10s %s\n", r.Dataset, r.Name, r.Status, where)
		fmt.Fprintf(stdout, "    source %s; %s\n", r.URL, how)
		if r.Licence != "" {
			fmt.Fprintf(stdout, "    licence %s; cite %s\n", r.Licence, r.Citation)
		}
	}
	return 0
}

// humanBytes formats a size in bytes as B, KB or MB.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// dataFetch fetches the named registry files (or all of them) into the
// cache. It returns 0 when every file ends up present and verified, 1
// otherwise (a download failed, or a file needs manual steps).
func dataFetch(f dataFlags, names []string, stdout, stderr io.Writer) int {
	files, err := fetchSelection(names)
	if err != nil {
		fmt.Fprintf(stderr, "featuredp data fetch: %v\n", err)
		return 2
	}
	failed := 0
	for _, file := range files {
		if !fetchOne(file, f, stdout, stderr) {
			failed++
		}
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "featuredp data fetch: %d of %d files not fetched (see above)\n", failed, len(files))
		return 1
	}
	return 0
}

// fetchSelection resolves NAME... | all to registry files; a NAME is a
// file or a dataset (all its files).
func fetchSelection(names []string) ([]data.File, error) {
	if len(names) == 0 {
		return nil, errors.New("name the files to fetch, or all (see featuredp data list)")
	}
	if len(names) == 1 && names[0] == "all" {
		return data.Registry(), nil
	}
	var out []data.File
	for _, n := range names {
		if f, ok := data.LookupFile(n); ok {
			out = append(out, f)
			continue
		}
		var group, known []string
		for _, r := range data.Registry() {
			if r.Dataset == n {
				out = append(out, r)
			}
			known = append(known, r.Name)
			if !slices.Contains(group, r.Dataset) {
				group = append(group, r.Dataset)
			}
		}
		if !slices.Contains(group, n) {
			return nil, fmt.Errorf("unknown dataset or file %q (datasets: %s; files: %s; or all)", n, strings.Join(group, ", "), strings.Join(known, ", "))
		}
	}
	return out, nil
}

// fetchOne makes one file present and verified, printing what it did; it
// reports success.
func fetchOne(file data.File, f dataFlags, stdout, stderr io.Writer) bool {
	opts := data.Options{Dir: f.dir, Mirror: f.mirror}
	if p, ok := data.Locate(file.Name, opts); ok {
		if path, err := data.Fetch(file.Name, data.Options{Dir: f.dir, Offline: true}); err == nil {
			fmt.Fprintf(stdout, "%s: present and verified: %s\n", file.Name, path)
			return true
		}
		fmt.Fprintf(stderr, "%s: %s is there but its SHA-256 is not %s: delete it (or fix it) and fetch again\n", file.Name, p, file.SHA256)
		return false
	}
	cache := data.CacheDir(opts)
	if file.Manual != "" && f.mirror == "" {
		fmt.Fprintf(stderr, "%s: no stable download; get it by hand:\n    %s\n    source: %s\n    expected SHA-256: %s\n    then put it in %s (or in $FEATUREDP_DATA) and run `featuredp data list`\n",
			file.Name, file.Manual, file.URL, file.SHA256, cache)
		return false
	}
	bar := newByteBar(stderr, file.Name)
	opts.Progress = bar.update
	path, err := data.Fetch(file.Name, opts)
	bar.finish(err == nil)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", file.Name, err)
		return false
	}
	fmt.Fprintf(stdout, "%s: downloaded and verified: %s\n", file.Name, path)
	return true
}

// byteBar shows a download's progress on stderr: redrawn in place on a
// terminal, otherwise one line at the end.
type byteBar struct {
	w           io.Writer
	tty         bool
	label       string
	done, total int64
}

func newByteBar(w io.Writer, label string) *byteBar {
	b := &byteBar{w: w, label: label, total: -1}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			b.tty = true
		}
	}
	return b
}

func (b *byteBar) update(done, total int64) {
	b.done, b.total = done, total
	if !b.tty {
		return
	}
	if total > 0 {
		fmt.Fprintf(b.w, "\r%s: %s of %s (%d%%)\033[K", b.label, humanBytes(done), humanBytes(total), 100*done/total)
	} else {
		fmt.Fprintf(b.w, "\r%s: %s\033[K", b.label, humanBytes(done))
	}
}

func (b *byteBar) finish(ok bool) {
	status := "done"
	if !ok {
		status = "failed"
	}
	if b.tty {
		fmt.Fprint(b.w, "\r\033[K")
	}
	fmt.Fprintf(b.w, "%s: %s received, %s\n", b.label, humanBytes(b.done), status)
}
