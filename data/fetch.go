package data

import (
	"archive/zip"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/featuredp/featuredp/internal/safefile"
)

// EnvDataDir names the environment variable with directories (a path list,
// relative paths resolved against the working directory) that hold the
// dataset files.
const EnvDataDir = "FEATUREDP_DATA"

// File is a dataset file the loaders know: its name on disk, its SHA-256,
// and where it comes from.
type File struct {
	// Name is the file name on disk.
	Name string
	// SHA256 is the hex SHA-256 of the file's bytes.
	SHA256 string
	// URL is the canonical source. When ZipMember is set, URL is a zip
	// archive that holds the file.
	URL string
	// ZipMember, if set, is the file name (matched as a suffix of the base
	// name) of the member of the zip at URL to extract.
	ZipMember string
	// Manual, if set, explains how to obtain the file by hand: it cannot be
	// downloaded automatically.
	Manual string
	// Licence is the dataset's licence and Citation how to cite it.
	Licence, Citation string
	// Dataset names the dataset the file belongs to ("adult",
	// "fashion-mnist", …): `featuredp data fetch DATASET` fetches all its
	// files, and a file is also looked for in a sub-directory of that name
	// of every searched place.
	Dataset string
	// ContentSHA256, for a gzip file, is the hex SHA-256 of its
	// decompressed bytes: a copy whose gzip wrapper differs (Debian's
	// dataset-fashion-mnist package drops the original file names and
	// times from the headers) is accepted when its content matches.
	ContentSHA256 string
	// System, if set, is the directory under the system dataset root
	// (SystemDataDir: where a distribution's packages install datasets)
	// searched after the cache, e.g. "fashion-mnist" for Debian's
	// dataset-fashion-mnist.
	System string
}

// EnvSystemData names the environment variable that overrides the system
// dataset root DefaultSystemData; set but empty, no system directory is
// searched (to check what a machine without the packages sees).
const EnvSystemData = "FEATUREDP_SYSTEM_DATA"

// DefaultSystemData is where Debian's dataset packages install their
// files.
const DefaultSystemData = "/usr/share/datasets"

// SystemDataDir returns the system dataset root: $FEATUREDP_SYSTEM_DATA
// when set (even empty: then none), else DefaultSystemData.
func SystemDataDir() string {
	if v, ok := os.LookupEnv(EnvSystemData); ok {
		return v
	}
	return DefaultSystemData
}

// registry is the table of known files: name, checksum, source, licence.
var registry = []File{
	{
		Name:    "adult.data",
		SHA256:  "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
		URL:     "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.data",
		Dataset: "adult",
		Licence: "CC BY 4.0", Citation: "Becker, B. & Kohavi, R. (1996). Adult. UCI Machine Learning Repository",
	},
	{
		Name:    "adult.test",
		SHA256:  "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
		URL:     "https://archive.ics.uci.edu/ml/machine-learning-databases/adult/adult.test",
		Dataset: "adult",
		Licence: "CC BY 4.0", Citation: "Becker, B. & Kohavi, R. (1996). Adult. UCI Machine Learning Repository",
	},
	{
		Name:    "UCI_Credit_Card.csv",
		Dataset: "credit",
		SHA256:  "263ebe35e1c6ebbe988a79a4c207ac7c090e7dd89787bf6f18692877c67d6b76",
		URL:     "https://archive.ics.uci.edu/static/public/350/default+of+credit+card+clients.zip",
		Manual: "the canonical source is an .xls workbook inside a zip, which this library does not convert. " +
			"Download the CSV export of UCI dataset 350 (\"UCI_Credit_Card.csv\", as distributed on Kaggle), " +
			"or convert the .xls to CSV yourself (drop the ID column, name the target column \"default\"); " +
			"a self-made conversion will not match the checksum: Go code can accept it with Options.AllowUnverified, " +
			"the command line accepts only a verified copy",
		Licence: "CC BY 4.0", Citation: "Yeh, I.-C. & Lien, C.-H. (2009). The comparisons of data mining techniques for the predictive accuracy of probability of default of credit card clients. Expert Systems with Applications 36(2); UCI dataset 350",
	},
	{
		Name:    "insurance.csv",
		Dataset: "insurance",
		SHA256:  "505c1cbc2e63d0363bac59501563df2530aadf4cdb9cfee226f4ef32f5468281",
		URL:     "https://www.openml.org/d/46289",
		Manual: "there is no byte-exact public URL for this file. Download the Medical Cost Personal data " +
			"(\"insurance.csv\", 1,338 rows: age,sex,bmi,children,smoker,region,charges; from the book " +
			"\"Machine Learning with R\", mirrored on Kaggle and as OpenML data id 46289); a copy with other " +
			"bytes (line endings, rounding) does not match the checksum: Go code can accept it with Options.AllowUnverified, " +
			"the command line accepts only a verified copy",
		Licence: "public domain per its source repository", Citation: "Lantz, B. (2013). Machine Learning with R (Medical Cost Personal dataset); OpenML data id 46289",
	},
	{
		Name:      "sepsis_survival_primary_cohort.csv",
		SHA256:    "6ba4ebd256fa3b5f6c0d42444a3e6b9a4b90d6e493c9efdfedcb2ef7470d4b0f",
		URL:       sepsisZipURL,
		ZipMember: "sepsis_survival_primary_cohort.csv",
		Dataset:   "sepsis",
		Licence:   "CC BY 4.0", Citation: "Chicco, D. & Jurman, G. (2020). Survival prediction of patients with sepsis from age, sex, and septic episode number alone. Scientific Reports 10; UCI dataset 827",
	},
	{
		Name:      "sepsis_survival_study_cohort.csv",
		SHA256:    "d3302756c0e16d78acf8f1ed7d9692afeafe02d5b224b5aa694598e1b7443001",
		URL:       sepsisZipURL,
		ZipMember: "sepsis_survival_study_cohort.csv",
		Dataset:   "sepsis",
		Licence:   "CC BY 4.0", Citation: "Chicco, D. & Jurman, G. (2020). Survival prediction of patients with sepsis from age, sex, and septic episode number alone. Scientific Reports 10; UCI dataset 827",
	},
	{
		Name:      "sepsis_survival_validation_cohort.csv",
		SHA256:    "37a21fbbc2626131d318391af2e91c454316e18b11043175171b4b8d8a04a7a7",
		URL:       sepsisZipURL,
		ZipMember: "sepsis_survival_validation_cohort.csv",
		Dataset:   "sepsis",
		Licence:   "CC BY 4.0", Citation: "Chicco, D. & Jurman, G. (2020). Survival prediction of patients with sepsis from age, sex, and septic episode number alone. Scientific Reports 10; UCI dataset 827",
	},
	fashionFile("train-images-idx3-ubyte.gz", "3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84", "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888"),
	fashionFile("train-labels-idx1-ubyte.gz", "a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845", "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9"),
	fashionFile("t10k-images-idx3-ubyte.gz", "346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073", "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b"),
	fashionFile("t10k-labels-idx1-ubyte.gz", "67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5", "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34"),
}

// fashionFile is the registry entry of one of Fashion-MNIST's four files,
// from the dataset's official location (Xiao, Rasul & Vollgraf 2017, its
// README's download links). sum is the SHA-256 of the official gzip file
// (whose MD5 the README lists), content that of its decompressed IDX bytes.
func fashionFile(name, sum, content string) File {
	return File{
		Name: name, SHA256: sum, ContentSHA256: content,
		URL:     fashionURL + name,
		Dataset: "fashion-mnist", System: "fashion-mnist",
		Licence: "MIT", Citation: "Xiao, H., Rasul, K. & Vollgraf, R. (2017). Fashion-MNIST: a novel image dataset for benchmarking machine learning algorithms. arXiv:1708.07747",
	}
}

const fashionURL = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"

const sepsisZipURL = "https://archive.ics.uci.edu/static/public/827/sepsis+survival+minimal+clinical+records.zip"

// Registry returns a copy of the table of known dataset files.
func Registry() []File { return slices.Clone(registry) }

// LookupFile returns the registry entry of a file name.
func LookupFile(name string) (File, bool) {
	for _, f := range registry {
		if f.Name == name {
			return f, true
		}
	}
	return File{}, false
}

// Options say where the loaders find, or put, the dataset files, and how
// they clean the data.
type Options struct {
	// Dir is searched first.
	Dir string
	// CacheDir is the download cache and the last place searched; empty
	// means os.UserCacheDir()/featuredp.
	CacheDir string
	// Offline disables downloads.
	Offline bool
	// HTTPClient is used for downloads (nil: http.DefaultClient).
	HTTPClient *http.Client
	// Context cancels downloads (nil: context.Background()).
	Context context.Context
	// URLs overrides download URLs, keyed by File.Name (for mirrors and
	// tests). For a file with ZipMember the URL names the zip.
	URLs map[string]string
	// AllowUnverified accepts a local file whose SHA-256 differs from the
	// registry (for example a self-made CSV conversion). Downloads are
	// always verified.
	AllowUnverified bool
	// Mirror, if set, is a base URL serving every dataset file by name as a
	// plain file (Mirror + "/" + Name; no archives), used instead of the
	// canonical sources, for the files without one too (e.g. a local
	// copy served over HTTP). Downloads are verified all the same.
	Mirror string
	// Progress, if set, is called as a download proceeds with the bytes
	// received so far and the total (-1 when the server does not say).
	Progress func(done, total int64)
	// KeepMissing keeps rows with missing values (Adult's "?"), which
	// otherwise are dropped.
	KeepMissing bool
	// Deduplicate drops exact duplicate rows after the missing-value
	// filter, as the CorrDP paper does for Adult and Medical Cost.
	Deduplicate bool
}

// Errors wrapped by Fetch and the loaders.
var (
	// ErrNotFound: the file is in none of the searched places and could not
	// be downloaded.
	ErrNotFound = errors.New("dataset file not available")
	// ErrChecksum: a file's SHA-256 differs from the registry.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrDownload: the download failed (network, HTTP status, archive).
	ErrDownload = errors.New("download failed")
)

// maxDownload bounds a download and an extracted archive member.
const maxDownload = 512 << 20

// searchDirs returns the directories to search, with a description of each.
func (o Options) searchDirs() (dirs []string, looked []string, cache string) {
	if o.Dir != "" {
		dirs = append(dirs, o.Dir)
		looked = append(looked, fmt.Sprintf("%s (Options.Dir)", o.Dir))
	}
	env := os.Getenv(EnvDataDir)
	if env == "" {
		looked = append(looked, "$"+EnvDataDir+" (unset)")
	}
	for _, d := range filepath.SplitList(env) {
		if d != "" {
			dirs = append(dirs, d)
			looked = append(looked, fmt.Sprintf("%s ($%s)", d, EnvDataDir))
		}
	}
	cache = o.CacheDir
	if cache == "" {
		if ucd, err := os.UserCacheDir(); err == nil {
			cache = filepath.Join(ucd, "featuredp")
		}
	}
	if cache != "" {
		dirs = append(dirs, cache)
		looked = append(looked, fmt.Sprintf("%s (cache)", cache))
	} else {
		looked = append(looked, "no user cache directory")
	}
	return dirs, looked, cache
}

// Fetch returns the path of a verified copy of the registry file name:
// found in Options.Dir, $FEATUREDP_DATA or the cache, or else downloaded
// into the cache (unless Options.Offline).
func Fetch(name string, opts Options) (string, error) {
	f, ok := LookupFile(name)
	if !ok {
		known := make([]string, len(registry))
		for i, r := range registry {
			known[i] = r.Name
		}
		return "", fmt.Errorf("data: unknown dataset file %q (known: %s)", name, strings.Join(known, ", "))
	}
	dirs, looked, cache := opts.searchDirs()
	if root := SystemDataDir(); f.System != "" && root != "" {
		looked = append(looked, filepath.Join(root, f.System)+" (system)")
	}
	for _, p := range f.candidates(dirs) {
		st, err := os.Stat(p)
		if err != nil || st.IsDir() {
			continue
		}
		if !st.Mode().IsRegular() {
			// A device or a pipe (e.g. a link to /dev/zero) would be read
			// forever by the checksum.
			return "", fmt.Errorf("data: %s is not a regular file (mode %v): replace it with the dataset file", p, st.Mode())
		}
		ok, got, err := verifyFile(p, f)
		if err != nil {
			return "", fmt.Errorf("data: reading %s: %w", p, err)
		}
		if !ok && !opts.AllowUnverified {
			return "", fmt.Errorf("data: %s: %w: expected SHA-256 %s, got %s (delete or replace it: `featuredp data fetch %s` "+
				"downloads a verified copy where one exists; in Go code, Options.AllowUnverified uses the file anyway)",
				p, ErrChecksum, f.SHA256, got, f.Name)
		}
		return p, nil
	}
	howTo := fmt.Sprintf("put %s in a directory named by $%s or pass it as Options.Dir", f.Name, EnvDataDir)
	where := strings.Join(looked, ", ")
	if opts.Mirror != "" {
		f.ZipMember = "" // a mirror serves the plain file
		f.URL = strings.TrimSuffix(opts.Mirror, "/") + "/" + f.Name
		f.Manual = ""
	}
	if f.Manual != "" {
		return "", fmt.Errorf("data: %s %w (looked in: %s); it cannot be downloaded automatically: %s (source: %s); then %s",
			f.Name, ErrNotFound, where, f.Manual, f.URL, howTo)
	}
	url := f.URL
	if u, ok := opts.URLs[f.Name]; ok && opts.Mirror == "" {
		url = u
	}
	if opts.Offline {
		return "", fmt.Errorf("data: %s %w (looked in: %s) and downloads are off (Options.Offline); download it from %s and %s",
			f.Name, ErrNotFound, where, url, howTo)
	}
	if cache == "" {
		return "", fmt.Errorf("data: %s %w (looked in: %s) and there is no cache directory to download into; set Options.CacheDir, or download it from %s and %s",
			f.Name, ErrNotFound, where, url, howTo)
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("data: creating cache directory: %w", err)
	}
	var err error
	if f.ZipMember != "" {
		err = downloadZipMember(f, url, cache, opts)
	} else {
		err = downloadFile(f, url, cache, opts)
	}
	if err != nil {
		return "", fmt.Errorf("%w; alternatively download it by hand and %s", err, howTo)
	}
	return filepath.Join(cache, f.Name), nil
}

// candidates returns the paths where f may be, in search order: each of
// dirs, then each dir's sub-directory named after f.Dataset, then f.System
// under the system dataset root.
func (f File) candidates(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		out = append(out, filepath.Join(d, f.Name))
		if f.Dataset != "" {
			out = append(out, filepath.Join(d, f.Dataset, f.Name))
		}
	}
	if root := SystemDataDir(); f.System != "" && root != "" {
		out = append(out, filepath.Join(root, f.System, f.Name))
	}
	return out
}

// maxContent bounds the decompressed bytes hashed for ContentSHA256 (a
// gzip bomb reads as a mismatch, not as unbounded work).
const maxContent = 1 << 30

// verifyFile reports whether the file at p is f: its SHA-256 equals
// f.SHA256 or, when f has a ContentSHA256, its gunzipped bytes hash to it.
// got is the SHA-256 of the file's bytes.
func verifyFile(p string, f File) (ok bool, got string, err error) {
	got, err = fileSHA256(p)
	if err != nil || got == f.SHA256 || f.ContentSHA256 == "" {
		return err == nil && got == f.SHA256, got, err
	}
	fh, _, err := safefile.Open(p)
	if err != nil {
		return false, got, err
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		return false, got, nil // not gzip: a mismatch
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(zr, maxContent+1))
	if err != nil || n > maxContent {
		return false, got, nil // corrupt or too large: a mismatch
	}
	return hex.EncodeToString(h.Sum(nil)) == f.ContentSHA256, got, nil
}

// fileSHA256 hashes a file.
func fileSHA256(p string) (string, error) {
	fh, _, err := safefile.Open(p)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// get downloads url into a new temporary file in dir and returns it,
// positioned at the start, with the SHA-256 of its bytes.
func get(url, dir string, opts Options) (*os.File, string, error) {
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	client := opts.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", fmt.Errorf("data: %w: bad URL %q: %v", ErrDownload, url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("data: %w: GET %s: %v", ErrDownload, url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("data: %w: GET %s: HTTP status %s", ErrDownload, url, resp.Status)
	}
	tmp, err := os.CreateTemp(dir, ".download-*.part")
	if err != nil {
		return nil, "", fmt.Errorf("data: creating a temporary file: %w", err)
	}
	fail := func(err error) (*os.File, string, error) {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, "", err
	}
	h := sha256.New()
	var body io.Reader = io.LimitReader(resp.Body, maxDownload+1)
	if opts.Progress != nil {
		body = &progressReader{r: body, total: resp.ContentLength, report: opts.Progress}
	}
	n, err := io.Copy(io.MultiWriter(tmp, h), body)
	if err != nil {
		return fail(fmt.Errorf("data: %w: reading %s: %v", ErrDownload, url, err))
	}
	if n > maxDownload {
		return fail(fmt.Errorf("data: %w: %s is larger than %d bytes", ErrDownload, url, maxDownload))
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return fail(fmt.Errorf("data: rewinding the download: %w", err))
	}
	return tmp, hex.EncodeToString(h.Sum(nil)), nil
}

// downloadFile downloads f directly and installs it in dir.
func downloadFile(f File, url, dir string, opts Options) error {
	tmp, got, err := get(url, dir, opts)
	if err != nil {
		return err
	}
	tmp.Close()
	if got != f.SHA256 {
		if ok, _, err := verifyFile(tmp.Name(), f); err == nil && ok {
			got = f.SHA256 // a recompressed copy with the official content
		}
	}
	if got != f.SHA256 {
		os.Remove(tmp.Name())
		return fmt.Errorf("data: %s downloaded from %s: %w: expected SHA-256 %s, got %s (the temporary file was deleted)",
			f.Name, url, ErrChecksum, f.SHA256, got)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, f.Name)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("data: installing %s: %w", f.Name, err)
	}
	return nil
}

// downloadZipMember downloads the zip that holds f and extracts f, and
// every other registry file from the same archive, into dir; each extracted
// file is verified. Only an error for f itself is returned.
func downloadZipMember(f File, url, dir string, opts Options) error {
	tmp, _, err := get(url, dir, opts)
	if err != nil {
		return err
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	st, err := tmp.Stat()
	if err != nil {
		return fmt.Errorf("data: %w: %v", ErrDownload, err)
	}
	zr, err := zip.NewReader(tmp, st.Size())
	if err != nil {
		return fmt.Errorf("data: %w: %s is not a valid zip archive: %v", ErrDownload, url, err)
	}
	var target error = fmt.Errorf("data: %w: the archive %s has no member named *%s", ErrDownload, url, f.ZipMember)
	for _, r := range registry {
		if r.ZipMember == "" || (r.URL != f.URL && r.Name != f.Name) {
			continue
		}
		zf := findZipMember(zr, r.ZipMember)
		if zf == nil {
			continue
		}
		err := extractMember(zf, r, dir)
		if r.Name == f.Name {
			target = err
		}
	}
	return target
}

// findZipMember finds the member whose base name ends in member, skipping
// macOS resource forks.
func findZipMember(zr *zip.Reader, member string) *zip.File {
	for _, zf := range zr.File {
		base := path.Base(zf.Name)
		if strings.HasPrefix(base, "._") || strings.HasPrefix(zf.Name, "__MACOSX/") {
			continue
		}
		if strings.HasSuffix(base, member) && !zf.FileInfo().IsDir() {
			return zf
		}
	}
	return nil
}

// extractMember writes one zip member to dir/r.Name after verifying it.
func extractMember(zf *zip.File, r File, dir string) error {
	rc, err := zf.Open()
	if err != nil {
		return fmt.Errorf("data: %w: opening %s in the archive: %v", ErrDownload, zf.Name, err)
	}
	defer rc.Close()
	tmp, err := os.CreateTemp(dir, ".extract-*.part")
	if err != nil {
		return fmt.Errorf("data: creating a temporary file: %w", err)
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(rc, maxDownload+1))
	if err != nil {
		return fail(fmt.Errorf("data: %w: extracting %s: %v", ErrDownload, zf.Name, err))
	}
	if n > maxDownload {
		return fail(fmt.Errorf("data: %w: archive member %s is larger than %d bytes", ErrDownload, zf.Name, maxDownload))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != r.SHA256 {
		return fail(fmt.Errorf("data: %s extracted from %s: %w: expected SHA-256 %s, got %s (the temporary file was deleted)",
			r.Name, zf.Name, ErrChecksum, r.SHA256, got))
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("data: writing %s: %w", r.Name, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, r.Name)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("data: installing %s: %w", r.Name, err)
	}
	return nil
}

// progressReader reports the bytes read so far to a Progress callback.
type progressReader struct {
	r      io.Reader
	done   int64
	total  int64
	report func(done, total int64)
}

// Read implements io.Reader.
func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	p.report(p.done, p.total)
	return n, err
}
