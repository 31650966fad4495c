package data

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// DefaultMissing are the cell values ReadCSV treats as missing when
// CSVOptions.Missing is nil.
var DefaultMissing = []string{"", "?", "NA", "NaN"}

// CSVOptions configure ReadCSV. The zero value reads a comma-separated file
// with a header row, detects column types and treats DefaultMissing as
// missing.
type CSVOptions struct {
	// Comma is the field delimiter (0 means ',').
	Comma rune
	// Comment, if not 0, starts comment lines.
	Comment rune
	// LazyQuotes relaxes the quoting rules (see encoding/csv).
	LazyQuotes bool
	// NoHeader says the first record is data, not column names.
	NoHeader bool
	// Names sets the column names. With a header row they replace it; with
	// NoHeader and no Names the columns are called X0, X1, ...
	Names []string
	// Types fixes the gota type of the named columns (series.String, Int,
	// Float or Bool); a value that does not parse as that type is an error.
	// A fixed Int, Float or Bool column holds values, not spellings: "01"
	// and "1" (or "1" and "true") are one value, and one level if the
	// column is used as categorical; String keeps every spelling.
	// Other columns are detected: Int if every non-missing value is an
	// integer, Float if every one is a finite number, String otherwise. A
	// column detected as numbers whose cells spell one number two ways
	// ("01" and "1", "1.0" and "1e0") is an error wrapping
	// ErrNumberSpelling, since as numbers they would be one level of a
	// categorical column: fix its type here (String keeps each spelling a
	// level; Int or Float reads the spellings as one number).
	Types map[string]series.Type
	// StrictKinds rejects a column whose type is detected (not fixed by
	// Types) as String although it is mostly numbers: at least
	// MostlyNumeric of its non-missing cells are finite numbers and a few
	// are not ("12k", "n/a"). One such cell would silently turn a
	// continuous column categorical; the error names the cells and the
	// fixes (correct them, list them as Missing, or fix the column's type).
	StrictKinds bool
	// Missing lists the cell values read as missing, compared with the
	// cell trimmed of white space (" NA" is "NA"), with or without
	// TrimSpace, as every reader compares cells. nil means DefaultMissing;
	// use an empty non-nil slice for none. A cell "NaN" is always missing
	// (a gota rule).
	Missing []string
	// TrimSpace trims leading and trailing white space from every field,
	// the header's names included (for ", "-separated files such as UCI
	// Adult). Without it the cells of the columns a reader uses are still
	// compared trimmed (LevelAt, NumericAt, EncodeCSV: docs/release.md,
	// "How a cell is read"); the names and the stored text are not. A
	// column's type is detected on the trimmed cells, so a column of
	// " 30"-style cells is read as numbers with or without TrimSpace.
	TrimSpace bool
	// SkipLines drops this many raw lines before parsing (for example the
	// "|1x3 Cross validator" first line of adult.test).
	SkipLines int
	// MaxBytes caps the bytes read, MaxLineBytes the bytes of one line,
	// MaxColumns the number of columns and MaxCells the number of data
	// cells (rows × columns), so that any input, /dev/zero included, is
	// read in bounded memory and time. 0 means the Default cap below; a
	// negative value means no cap. Input beyond a cap is a *CapError.
	MaxBytes     int64
	MaxLineBytes int64
	MaxColumns   int
	MaxCells     int
}

// The default reading caps of CSVOptions (docs/README.md, "Reading CSV
// files"). They are far above the datasets of the papers (the largest,
// UCI Adult, is 3.8 MB, 15 columns, 0.5 million cells) and keep the
// memory of a capped read to a few hundred MB.
const (
	DefaultMaxBytes     int64 = 64 << 20
	DefaultMaxLineBytes int64 = 4 << 20
	DefaultMaxColumns         = 100_000
	DefaultMaxCells           = 2_000_000
)

// CapError reports input beyond one of the reading caps of CSVOptions.
// ReadCSV wraps it together with ErrCSV.
type CapError struct {
	// Option is the CSVOptions field of the cap ("MaxBytes",
	// "MaxLineBytes", "MaxColumns" or "MaxCells"), Limit its value.
	Option string
	Limit  int64
	// What describes the input that went over the cap.
	What string
}

// Error names the cap and how to raise it (for a nil *CapError, says so).
func (e *CapError) Error() string {
	if e == nil {
		return "data: nil *CapError (no cap was exceeded)"
	}
	return fmt.Sprintf("%s: over the reading cap CSVOptions.%s = %d (raise it, or set it negative for no cap)", e.What, e.Option, e.Limit)
}

// limits returns the effective caps of o (negative: none).
func (o CSVOptions) limits() (maxBytes, maxLine int64, maxCols, maxCells int) {
	maxBytes, maxLine, maxCols, maxCells = o.MaxBytes, o.MaxLineBytes, o.MaxColumns, o.MaxCells
	if maxBytes == 0 {
		maxBytes = DefaultMaxBytes
	}
	if maxLine == 0 {
		maxLine = DefaultMaxLineBytes
	}
	if maxCols == 0 {
		maxCols = DefaultMaxColumns
	}
	if maxCells == 0 {
		maxCells = DefaultMaxCells
	}
	return maxBytes, maxLine, maxCols, maxCells
}

// capReader counts the bytes it passes on and fails with a *CapError once
// the total or the current line exceeds its caps (negative: no cap).
type capReader struct {
	r                io.Reader
	maxBytes, maxLn  int64
	total, lineBytes int64
	line             int // 1-based current line
	err              *CapError
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.r.Read(p)
	c.total += int64(n)
	long := false // a line of this read, complete or not, is over the line cap (c.line is it)
	for b := p[:n]; len(b) > 0; {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			c.lineBytes += int64(len(b))
			long = c.maxLn >= 0 && c.lineBytes > c.maxLn
			break
		}
		// Every line that ends in this read is checked, not only the
		// last (partial) one: the newline itself is not counted.
		if c.lineBytes += int64(i); c.maxLn >= 0 && c.lineBytes > c.maxLn {
			long = true
			break
		}
		c.lineBytes, c.line, b = 0, c.line+1, b[i+1:]
	}
	switch {
	case c.maxBytes >= 0 && c.total > c.maxBytes:
		c.err = &CapError{Option: "MaxBytes", Limit: c.maxBytes, What: fmt.Sprintf("the input is larger than %d bytes", c.maxBytes)}
	case long:
		c.err = &CapError{Option: "MaxLineBytes", Limit: c.maxLn, What: fmt.Sprintf("line %d is longer than %d bytes", c.line, c.maxLn)}
	}
	if c.err != nil {
		return n, c.err
	}
	return n, err
}

// ErrBinary is wrapped by ReadCSV's error for input that is not CSV text
// (compressed, or with NUL bytes in the header).
var ErrBinary = errors.New("binary or compressed input, not CSV text")

// ErrCSV wraps every error from ReadCSV.
var ErrCSV = errors.New("malformed CSV")

// noRowsFix is what the error of a CSV without records tells the user to
// do.
const noRowsFix = "the file is empty or holds only its header line; it needs at least one record below the header"

// ReadCSV reads CSV data into a gota DataFrame. Missing cells become gota NA
// values. It returns an error, never panics, on malformed input: bad
// quoting, ragged rows, empty or duplicate column names, no data rows,
// values that do not fit an explicit type, a detected numeric column that
// spells one number two ways (ErrNumberSpelling), compressed or binary
// input (ErrBinary), input over the reading caps of CSVOptions
// (*CapError). Its
// time and memory are linear in the input, which the caps bound.
func ReadCSV(r io.Reader, opts CSVOptions) (dataframe.DataFrame, error) {
	header, rows, lines, err := readRecords(r, opts)
	if err != nil {
		return dataframe.DataFrame{}, err
	}
	return buildFrame(header, rows, lines, opts)
}

// readRecords parses the CSV text into a header and data rows; lines[i] is
// the 1-based input line of rows[i].
func readRecords(r io.Reader, opts CSVOptions) (header []string, rows [][]string, lines []int, err error) {
	if r == nil {
		return nil, nil, nil, fmt.Errorf("data: ReadCSV: nil reader: %w", ErrCSV)
	}
	maxBytes, maxLine, _, _ := opts.limits()
	capped := &capReader{r: r, maxBytes: maxBytes, maxLn: maxLine, line: 1}
	cr, err := newCSVReader(capped, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	header, rows, lines, err = scanRecords(cr, opts)
	if capped.err != nil { // whatever the CSV reader made of the cut input
		return nil, nil, nil, fmt.Errorf("data: ReadCSV: %w (%w)", capped.err, ErrCSV)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if header, err = finishHeader(header, rows, opts); err != nil {
		return nil, nil, nil, err
	}
	return header, rows, lines, nil
}

// utf8BOM is the byte-order mark some tools write at the start of UTF-8
// files.
const utf8BOM = "\xef\xbb\xbf"

// newCSVReader checks the options, drops a leading UTF-8 byte-order mark
// (else it would stick to the first column's name), skips opts.SkipLines
// lines and returns the configured CSV reader.
func newCSVReader(r io.Reader, opts CSVOptions) (*csv.Reader, error) {
	if opts.SkipLines < 0 {
		return nil, fmt.Errorf("data: ReadCSV: negative SkipLines %d: %w", opts.SkipLines, ErrCSV)
	}
	br := bufio.NewReader(r)
	if b, err := br.Peek(len(utf8BOM)); err == nil && string(b) == utf8BOM {
		br.Discard(len(utf8BOM))
	}
	if err := sniffBinary(br); err != nil {
		return nil, err
	}
	for i := 0; i < opts.SkipLines; i++ {
		if _, err := br.ReadString('\n'); err != nil {
			if err == io.EOF {
				return nil, fmt.Errorf("data: ReadCSV: input ended while skipping line %d of %d: %w", i+1, opts.SkipLines, ErrCSV)
			}
			return nil, fmt.Errorf("data: ReadCSV: skipping line %d: %w", i+1, err)
		}
	}
	cr := csv.NewReader(br)
	cr.Comma = ','
	if opts.Comma != 0 {
		cr.Comma = opts.Comma
	}
	cr.Comment = opts.Comment
	cr.LazyQuotes = opts.LazyQuotes
	cr.ReuseRecord = false
	cr.TrimLeadingSpace = opts.TrimSpace
	return cr, nil
}

// compressedMagic are the leading bytes of compressed files a user may
// give instead of CSV text, with the command that decompresses them.
var compressedMagic = []struct{ magic, format, fix string }{
	{"\x1f\x8b", "gzip", "gunzip FILE.gz"},
	{"PK\x03\x04", "zip", "unzip FILE.zip"},
	{"BZh", "bzip2", "bunzip2 FILE.bz2"},
	{"\xfd7zXZ\x00", "xz", "unxz FILE.xz"},
	{"\x28\xb5\x2f\xfd", "zstd", "unzstd FILE.zst"},
}

// utf16BOMs are the byte-order marks of UTF-16 text (what spreadsheets
// save as "Unicode text"), which encoding/csv would read as names and
// cells with a NUL byte in every other place.
var utf16BOMs = []struct{ bom, name string }{{"\xff\xfe", "UTF-16LE"}, {"\xfe\xff", "UTF-16BE"}}

// sniffBinary rejects compressed input by its magic bytes and UTF-16 text
// by its byte-order mark.
func sniffBinary(br *bufio.Reader) error {
	head, _ := br.Peek(8)
	for _, b := range utf16BOMs {
		if bytes.HasPrefix(head, []byte(b.bom)) {
			return fmt.Errorf("data: ReadCSV: the input is %s text (its byte-order mark); convert it to UTF-8 first (iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8.csv, "+
				"or save it from the spreadsheet as \"CSV UTF-8\"): %w (%w)", b.name, ErrBinary, ErrCSV)
		}
	}
	for _, m := range compressedMagic {
		if bytes.HasPrefix(head, []byte(m.magic)) {
			return fmt.Errorf("data: ReadCSV: the input is %s-compressed; decompress it first (%s): %w (%w)", m.format, m.fix, ErrBinary, ErrCSV)
		}
	}
	return nil
}

// checkWidth rejects a record wider than the MaxColumns cap and a header
// with NUL bytes (a binary file).
func checkWidth(rec []string, isHeader bool, line, maxCols int) error {
	if maxCols >= 0 && len(rec) > maxCols {
		ce := &CapError{Option: "MaxColumns", Limit: int64(maxCols), What: fmt.Sprintf("line %d has %d columns", line, len(rec))}
		return fmt.Errorf("data: ReadCSV: %w (%w)", ce, ErrCSV)
	}
	if !isHeader {
		return nil
	}
	for i, h := range rec {
		if strings.IndexByte(h, 0) >= 0 {
			return fmt.Errorf("data: ReadCSV: header column %d (%q) contains a NUL byte: %w (%w)", i, h, ErrBinary, ErrCSV)
		}
	}
	return nil
}

// csvReadError wraps an error of csv.Reader.Read for the reader fn: its
// line numbers count the skipped lines (skip), a record of the wrong width
// (rec, want fields) and a quoting error name the fix.
func csvReadError(fn string, rec []string, err error, want, skip int) error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return fmt.Errorf("data: %s: %w (%w)", fn, err, ErrCSV)
	}
	pe.StartLine += skip
	pe.Line += skip
	fix := ""
	switch {
	case errors.Is(pe.Err, csv.ErrFieldCount):
		fix = fmt.Sprintf(": it has %d field(s), the first record %d; quote a cell that holds the delimiter (\"a,b\") and give every line one cell per column (an empty cell for a missing value)",
			len(rec), want)
	case errors.Is(pe.Err, csv.ErrQuote), errors.Is(pe.Err, csv.ErrBareQuote):
		fix = `: a quoted cell is "…" with a quote inside doubled (""); for quotes used loosely read with CSVOptions.LazyQuotes`
	}
	return fmt.Errorf("data: %s: %w%s (%w)", fn, err, fix, ErrCSV)
}

// scanRecords reads every record: the first is the header unless
// opts.NoHeader. It stops at the MaxColumns and MaxCells caps.
func scanRecords(cr *csv.Reader, opts CSVOptions) (header []string, rows [][]string, lines []int, err error) {
	_, _, maxCols, maxCells := opts.limits()
	cells := 0
	first := true
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, nil, csvReadError("ReadCSV", rec, err, cr.FieldsPerRecord, opts.SkipLines)
		}
		if opts.TrimSpace {
			for i := range rec {
				rec[i] = strings.TrimSpace(rec[i])
			}
		}
		line, _ := cr.FieldPos(0)
		if err := checkWidth(rec, first && !opts.NoHeader, line+opts.SkipLines, maxCols); err != nil {
			return nil, nil, nil, err
		}
		if first && !opts.NoHeader {
			header = rec
			first = false
			continue
		}
		first = false
		if cells += len(rec); maxCells >= 0 && cells > maxCells {
			ce := &CapError{Option: "MaxCells", Limit: int64(maxCells), What: fmt.Sprintf("the data rows up to line %d hold %d cells", line+opts.SkipLines, cells)}
			return nil, nil, nil, fmt.Errorf("data: ReadCSV: %w (%w)", ce, ErrCSV)
		}
		rows = append(rows, rec)
		lines = append(lines, line+opts.SkipLines)
	}
	return header, rows, lines, nil
}

// finishHeader applies opts.Names / NoHeader and checks that there are data
// rows and that every column has a distinct, non-empty name.
func finishHeader(header []string, rows [][]string, opts CSVOptions) ([]string, error) {
	width := len(header)
	if opts.NoHeader {
		if len(rows) == 0 {
			return nil, fmt.Errorf("data: ReadCSV: no data rows: %s: %w", noRowsFix, ErrCSV)
		}
		width = len(rows[0])
	} else if header == nil {
		return nil, fmt.Errorf("data: ReadCSV: empty input (no header row): %w", ErrCSV)
	}
	if opts.Names != nil {
		if len(opts.Names) != width {
			return nil, fmt.Errorf("data: ReadCSV: %d names given for %d columns: %w", len(opts.Names), width, ErrCSV)
		}
		header = slices.Clone(opts.Names)
	} else if opts.NoHeader {
		header = make([]string, width)
		for i := range header {
			header[i] = "X" + strconv.Itoa(i)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("data: ReadCSV: header %q but no data rows: %s: %w", strings.Join(header, ","), noRowsFix, ErrCSV)
	}
	seen := map[string]int{}
	for i, h := range header {
		if h == "" {
			return nil, fmt.Errorf("data: ReadCSV: column %d has an empty name: %w", i, ErrCSV)
		}
		if j, ok := seen[h]; ok {
			return nil, fmt.Errorf("data: ReadCSV: columns %d and %d are both named %q: %w", j, i, h, ErrCSV)
		}
		seen[h] = i
	}
	return header, nil
}

// buildFrame turns parsed records into typed gota series.
func buildFrame(header []string, rows [][]string, lines []int, opts CSVOptions) (dataframe.DataFrame, error) {
	isNA := opts.missingSet()
	inHeader := make(map[string]bool, len(header))
	for _, h := range header {
		inHeader[h] = true
	}
	for _, name := range sortedKeys(opts.Types) {
		t := opts.Types[name]
		if !inHeader[name] {
			return dataframe.DataFrame{}, fmt.Errorf("data: ReadCSV: a type is given for column %q, which is not in the data (columns: %s): %w",
				name, QuoteNames(header), ErrCSV)
		}
		switch t {
		case series.String, series.Int, series.Float, series.Bool:
		default:
			return dataframe.DataFrame{}, fmt.Errorf("data: ReadCSV: column %q: unsupported type %q (want string, int, float or bool): %w", name, t, ErrCSV)
		}
	}
	cols := make([]series.Series, len(header))
	raw := make([]string, len(rows))
	for j, name := range header {
		for i, rec := range rows {
			if j >= len(rec) { // encoding/csv enforces equal widths; be defensive
				return dataframe.DataFrame{}, fmt.Errorf("data: ReadCSV: line %d has %d fields, want %d: %w", lines[i], len(rec), len(header), ErrCSV)
			}
			raw[i] = rec[j]
		}
		t, explicit := opts.Types[name]
		if !explicit {
			t = detectType(raw, isNA)
		}
		s, err := makeSeries(name, t, raw, isNA, lines)
		if err != nil {
			return dataframe.DataFrame{}, err
		}
		if !explicit {
			if err := detectedKindError(s, raw, isNA, lines, opts.StrictKinds); err != nil {
				return dataframe.DataFrame{}, err
			}
		}
		cols[j] = s
	}
	df := dataframe.New(cols...)
	if err := df.Error(); err != nil {
		return dataframe.DataFrame{}, fmt.Errorf("data: ReadCSV: building the DataFrame: %w", err)
	}
	return df, nil
}

// detectedKindError checks the column s (read from the cells raw) whose
// type ReadCSV detected: a numeric column must spell every number one way
// (numberSpellingError) and, with StrictKinds, a text column must not be
// mostly numbers (mixedNumeric).
func detectedKindError(s series.Series, raw []string, isNA missingSet, lines []int, strict bool) error {
	if s.Type() != series.String {
		return numberSpellingError(s, raw, isNA, lines)
	}
	if strict {
		return mixedNumeric(s.Name, raw, isNA, lines)
	}
	return nil
}

// missingSet holds the missing-value markers of a CSV reader, trimmed of
// white space, and "NaN" (a gota rule for text).
type missingSet map[string]bool

// missingSet returns the markers of o: Missing, or DefaultMissing when nil.
func (o CSVOptions) missingSet() missingSet {
	markers := o.Missing
	if markers == nil {
		markers = DefaultMissing
	}
	m := make(missingSet, len(markers)+1)
	m["NaN"] = true
	for _, v := range markers {
		m[strings.TrimSpace(v)] = true
	}
	return m
}

// has reports whether cell v, trimmed of white space as every reader
// reads a cell, is a missing-value marker.
func (m missingSet) has(v string) bool { return m[strings.TrimSpace(v)] }

// MostlyNumeric is the share of finite numbers among a column's
// non-missing cells from which CSVOptions.StrictKinds treats its other
// cells as errors rather than the column as text.
const MostlyNumeric = 0.9

// ErrMixedKind is wrapped (with ErrCSV) by the error of
// CSVOptions.StrictKinds.
var ErrMixedKind = errors.New("mostly numeric column with non-numeric cells")

// mixedNumeric returns an ErrMixedKind error when the column is mostly
// finite numbers but not only, naming up to five offending cells.
func mixedNumeric(name string, raw []string, isNA missingSet, lines []int) error {
	var bad []int
	nonMissing := 0
	for i, v := range raw {
		if isNA.has(v) {
			continue
		}
		nonMissing++
		if _, err := ParseNumber(v); err != nil {
			bad = append(bad, i)
		}
	}
	if len(bad) == 0 || float64(nonMissing-len(bad)) < MostlyNumeric*float64(nonMissing) {
		return nil
	}
	var cells []string
	for _, i := range bad[:min(len(bad), 5)] {
		cells = append(cells, fmt.Sprintf("line %d: %q", lines[i], raw[i]))
	}
	more := ""
	if len(bad) > 5 {
		more = fmt.Sprintf(" and %d more", len(bad)-5)
	}
	return fmt.Errorf("data: ReadCSV: column %q is numeric but for %d of %d cells (%s%s): %w; correct them, list them as missing values, "+
		"or fix the column's kind (continuous: its cells must be numbers; categorical: its values are levels) (%w)",
		name, len(bad), nonMissing, strings.Join(cells, ", "), more, ErrMixedKind, ErrCSV)
}

// detectType returns Int, Float or String for the non-missing values.
func detectType(vals []string, isNA missingSet) series.Type {
	isInt, isFloat, nonMissing := true, true, false
	for _, v := range vals {
		if isNA.has(v) {
			continue
		}
		nonMissing = true
		if isInt {
			if _, err := strconv.Atoi(v); err != nil {
				isInt = false
			}
		}
		if !isInt {
			if _, err := ParseNumber(v); err != nil {
				isFloat = false
				break
			}
		}
	}
	switch {
	case !nonMissing:
		return series.String
	case isInt:
		return series.Int
	case isFloat:
		return series.Float
	}
	return series.String
}

// makeSeries builds a typed series, checking every value against t.
func makeSeries(name string, t series.Type, raw []string, isNA missingSet, lines []int) (series.Series, error) {
	bad := func(i int, what string) error {
		return fmt.Errorf("data: ReadCSV: column %q, line %d: %q is not %s: %w", name, lines[i], raw[i], what, ErrCSV)
	}
	switch t {
	case series.Float:
		vals := make([]float64, len(raw))
		for i, v := range raw {
			if isNA.has(v) {
				vals[i] = math.NaN()
				continue
			}
			f, err := ParseNumber(v)
			if err != nil {
				return series.Series{}, bad(i, "a finite number")
			}
			vals[i] = f
		}
		return series.New(vals, series.Float, name), nil
	case series.Int, series.Bool, series.String:
		vals := make([]string, len(raw))
		for i, v := range raw {
			if isNA.has(v) {
				vals[i] = "NaN"
				continue
			}
			switch t {
			case series.Int:
				n, err := strconv.Atoi(v)
				if err != nil {
					return series.Series{}, bad(i, "an integer")
				}
				v = strconv.Itoa(n)
			case series.Bool:
				b, err := strconv.ParseBool(v)
				if err != nil {
					return series.Series{}, bad(i, "a boolean")
				}
				v = strconv.FormatBool(b)
			}
			vals[i] = v
		}
		return series.New(vals, t, name), nil
	}
	return series.Series{}, fmt.Errorf("data: ReadCSV: column %q: unsupported type %q: %w", name, t, ErrCSV)
}

// ErrNumberSpelling is wrapped (with ErrCSV) by ReadCSV's error for a
// column whose type it detects as numbers although two of its cells spell
// one number two ways ("01" and "1", "1.0" and "1e0"). Read as numbers
// they would be one value, and so one level of a categorical column: two
// categories merged, silently. CSVOptions.Types fixes what they are.
var ErrNumberSpelling = errors.New("one number spelt two ways")

// numberSpellingError returns an ErrNumberSpelling error naming two cells
// (raw) of a column s detected as numbers (Int or Float) that are one
// number (one level as LevelAt writes it: -0 and 0 are two) spelt two ways
// once trimmed of spaces, and the fix; nil when every number of the column
// has one spelling. Two minimal cells (minimalNumber) that are one number
// are one text, so only the numbers of the others go in a map, against
// which the minimal cells are then looked up; none when every cell is
// spelt as no other number can be (oneSpelling).
func numberSpellingError(s series.Series, raw []string, isNA missingSet, lines []int) error {
	if oneSpelling(s.Type(), raw, isNA) {
		return nil
	}
	bitsOf := numberBits(s, raw, isNA)
	firstOf := map[uint64]int{} // the number of a cell that is not minimal → its first cell
	for pass := range 2 {
		for i, v := range raw {
			if isNA.has(v) || minimalNumber(s.Type(), v) != (pass == 1) {
				continue
			}
			bits, ok := bitsOf(i)
			j, seen := firstOf[bits]
			switch {
			case !ok:
			case seen && strings.TrimSpace(raw[j]) != strings.TrimSpace(v):
				j, i = min(i, j), max(i, j)
				return numberSpellingFix(s, lines[j], strings.TrimSpace(raw[j]), lines[i], strings.TrimSpace(raw[i]))
			case !seen && pass == 0:
				firstOf[bits] = i
			}
		}
	}
	return nil
}

// minimalNumber reports whether cell v of a column of type t is its
// number's one minimal spelling: plainInt, or a plainDecimal without a
// trailing zero after its point.
func minimalNumber(t series.Type, v string) bool {
	if t == series.Int {
		return plainInt(v)
	}
	_, zero, ok := plainDecimal(v)
	return ok && !zero
}

// numberSpellingFix is the ErrNumberSpelling error of column s, whose
// cells a (at line la) and b (at line lb) are one number.
func numberSpellingFix(s series.Series, la int, a string, lb int, b string) error {
	return &NumberSpellingError{Column: s.Name, Lines: [2]int{la, lb}, Cells: [2]string{a, b}, Type: s.Type()}
}

// NumberSpellingError is ReadCSV's error for a column detected as numbers
// (Int or Float) two of whose cells spell one number two ways; it wraps
// ErrNumberSpelling and ErrCSV. A program that sets the column's type
// otherwise than CSVOptions.Types (a command's flags) words the fix with
// Problem, the Column and its own option.
type NumberSpellingError struct {
	Column string      // the column's name
	Lines  [2]int      // the lines of the two cells, the first first
	Cells  [2]string   // the two cells, trimmed of spaces
	Type   series.Type // the detected type: series.Int or series.Float
}

// Problem says which cells of which column are one number, without the fix
// (for a nil *NumberSpellingError, says so).
func (e *NumberSpellingError) Problem() string {
	if e == nil {
		return "data: nil *NumberSpellingError (no number spelt two ways)"
	}
	return fmt.Sprintf("column %q reads as numbers, but line %d (%q) and line %d (%q) spell one number two ways: as numbers they are one value, "+
		"and would be one level were the column categorical", e.Column, e.Lines[0], e.Cells[0], e.Lines[1], e.Cells[1])
}

// Error is the Problem and the fix by CSVOptions.Types (the Problem alone
// for a nil *NumberSpellingError).
func (e *NumberSpellingError) Error() string {
	if e == nil {
		return e.Problem()
	}
	goType := map[series.Type]string{series.Int: "series.Int", series.Float: "series.Float"}[e.Type]
	return fmt.Sprintf("data: ReadCSV: %s: %v; fix the column's type: CSVOptions.Types {%q: series.String} keeps every spelling a level of its own (categories), "+
		"{%q: %s} reads them as the same number (%v)", e.Problem(), ErrNumberSpelling, e.Column, e.Column, goType, ErrCSV)
}

// Unwrap returns ErrNumberSpelling and ErrCSV.
func (e *NumberSpellingError) Unwrap() []error { return []error{ErrNumberSpelling, ErrCSV} }

// numberBits returns a function giving the number of cell i of column s
// (Int or Float, read from the cells raw) as the bits of an int64 or a
// float64 (for a Float, the series' own value); ok is false for a missing
// cell.
func numberBits(s series.Series, raw []string, isNA missingSet) func(i int) (bits uint64, ok bool) {
	if s.Type() == series.Float {
		floats := s.Float()
		return func(i int) (uint64, bool) { return math.Float64bits(floats[i]), !math.IsNaN(floats[i]) }
	}
	return func(i int) (uint64, bool) {
		n, err := strconv.Atoi(raw[i])
		return uint64(n), err == nil && !isNA.has(raw[i])
	}
}

// oneSpelling reports, in one pass keeping no set of numbers, that no two
// cells of a column of type t can be one number spelt two ways: every
// integer cell is its shortest decimal (plainInt), or every decimal cell
// is plain (plainDecimal) and either none has a trailing zero after its
// point or all have as many digits after it. It is numberSpellingError's
// fast path, which the papers' datasets take; false means "look closer".
func oneSpelling(t series.Type, raw []string, isNA missingSet) bool {
	trailingZero, fracLen := false, -2 // -2: no cell yet; -3: cells differ
	for _, v := range raw {
		if isNA.has(v) {
			continue
		}
		if t == series.Int {
			if !plainInt(v) {
				return false
			}
			continue
		}
		n, zero, ok := plainDecimal(v)
		if !ok {
			return false
		}
		trailingZero = trailingZero || zero
		if fracLen == -2 {
			fracLen = n
		} else if fracLen != n {
			fracLen = -3
		}
	}
	return !trailingZero || fracLen != -3
}

// plainInt reports whether an integer cell (strconv.Atoi reads it) is its
// own shortest decimal: no sign "+", no leading zero, no "-0".
func plainInt(v string) bool {
	return v != "" && v[0] != '+' && (v[0] != '0' || v == "0") && !strings.HasPrefix(v, "-0")
}

// plainDecimal reports whether v is a plain decimal: an optional "-", an
// integer part without leading zeros, an optional point followed by
// digits, no exponent, at most 15 significant digits and 32 bytes. It
// returns the number of digits after the point (-1 without one) and
// whether the last is a zero. Two plain decimals that are one float64 are
// one decimal, so they differ only in trailing zeros after the point: a
// decimal of at most 15 significant digits in float64's normal range
// survives the round trip through float64 (DBL_DIG = 15, C11 5.2.4.2.2).
func plainDecimal(v string) (fracLen int, trailingZero, ok bool) {
	if len(v) > 32 {
		return 0, false, false
	}
	whole, frac, point := strings.Cut(strings.TrimPrefix(v, "-"), ".")
	if whole == "" || (whole[0] == '0' && whole != "0") || !allDigits(whole) || (point && (frac == "" || !allDigits(frac))) {
		return 0, false, false
	}
	fracLen = -1
	if point {
		fracLen, trailingZero = len(frac), frac[len(frac)-1] == '0'
	}
	if whole == "0" {
		whole, frac = "", strings.TrimLeft(frac, "0")
	}
	return fracLen, trailingZero, len(whole)+len(frac) <= 15
}

// allDigits reports whether s holds ASCII digits only.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
