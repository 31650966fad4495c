package data

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"

	"github.com/featuredp/featuredp/internal/suggest"
)

// NewPublicEncoder builds the encoder of schema from public parameters
// alone — category levels from opts.Levels or the schema, MinMax bounds
// from opts.Bounds, ZScore moments from opts.Moments — without reading any
// data; it is what FitEncoder fits with the same options on any data. It
// refuses options that would need the data (EncodeOptions.RequirePublic:
// the error names each column), including the opt-ins BoundsFromData and
// LevelsFromData, and a regression label scaling.
func NewPublicEncoder(schema Schema, opts EncodeOptions) (*Encoder, error) {
	structure, _ := schema.structureErrors()
	if err := errors.Join(append(structure, schema.labelErrors()...)...); err != nil {
		return nil, fmt.Errorf("data: NewPublicEncoder: %w", err)
	}
	if opts.BoundsFromData || opts.LevelsFromData {
		return nil, errors.New("data: NewPublicEncoder: BoundsFromData / LevelsFromData read the data: give public Bounds and Levels")
	}
	if err := opts.RequirePublic(schema); err != nil {
		return nil, fmt.Errorf("data: NewPublicEncoder: %w", err)
	}
	feats := schema.Features()
	if len(feats) == 0 {
		return nil, fmt.Errorf("data: NewPublicEncoder: the schema has no Sensitive or Public feature: %w", ErrSchema)
	}
	enc := &Encoder{Schema: schema.Clone(), Options: opts, LabelDiv: 1}
	for _, c := range feats {
		fe := FeatureEncoding{Column: c, Public: true}
		if c.Kind == Categorical {
			fe.Levels = slices.Clone(opts.publicLevels(c))
		} else {
			fe.Scale = opts.ScaleOf(c.Name)
			switch fe.Scale {
			case MinMax:
				b := opts.Bounds[c.Name]
				fe.Lo, fe.Hi, fe.Clip = b.Lo, b.Hi, true
			case ZScore:
				m := opts.Moments[c.Name]
				fe.Mean, fe.SD = m.Mean, m.SD
			}
		}
		enc.Features = append(enc.Features, fe)
	}
	if l, ok := schema.Label(); ok && schema.Task == Classification {
		enc.Classes = slices.Clone(opts.publicLevels(l))
	}
	enc.setLabelBounds()
	return enc, nil
}

// EncodeCSV reads CSV rows (with a header row) from r straight into the
// encoder's design matrix, without a DataFrame: besides the result it holds
// one record at a time, so a file of n rows and D encoded columns needs
// about 8·n·D bytes (plus the slice's growth). From a regular file the
// matrix is reserved ahead at the rate of the rows read so far (after the
// first 1,024 rows, and again whenever it is full), but never more than
// ReserveBytes or reserveGrowth = 8 times the rows read, and never beyond
// the MaxBytes cap: memory stays within a small multiple of the rows
// actually read (for rows alike, about the result; at worst nine times
// the rows read while a reservation copies them), plus ReserveBytes, and a
// huge or sparse file gets a cap or format error, not an out-of-memory
// crash. EncodeCSV returns the rows alone (the unused reservation is
// dropped). Every column of the schema but the ignored ones
// must be in the header (other columns are skipped); a missing value
// (opts.Missing, DefaultMissing, "NaN"), a non-numeric or non-finite
// continuous value, or a category outside the public levels is an error
// naming the column and the line. A cell is read trimmed of the white
// space around it and a number must be a plain decimal (ParseNumber), as
// on the DataFrame path (LevelAt, NumericAt). A cell equal to a declared level or
// class is that level even when it is also a missing-value marker ("NA"
// for North America). opts' Comma, Comment, LazyQuotes, TrimSpace,
// SkipLines, Missing and the MaxBytes and MaxLineBytes caps apply
// (MaxColumns and MaxCells do not: the matrix is the memory, which is
// capped, as Transform's, at MaxEncodedValues values unless MaxBytes is
// negative: a file of short rows and an encoder of many columns would
// otherwise take 8·D bytes per row of a few input bytes); NoHeader,
// Names and Types do not apply and are an error when set.
func (e *Encoder) EncodeCSV(r io.Reader, opts CSVOptions) (*Encoded, error) {
	c, err := e.openCSV("EncodeCSV", r, opts)
	if err != nil {
		return nil, err
	}
	out := e.layout(0)
	size, reserved := sizeOf(r), false
	capped := c.capped.maxBytes >= 0
	if capped {
		size = min(size, c.capped.maxBytes)
	}
	for {
		if size > 0 && (out.N == sizeProbeRows || out.N > sizeProbeRows && len(out.Y) == cap(out.Y)) {
			reserve(out, size, c.capped.total)
			reserved = true
		}
		more, err := c.next(out)
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
		if capped {
			if err := e.checkSize("EncodeCSV", out.N, out.D, encodeCSVSizeFix); err != nil {
				return nil, err
			}
		}
	}
	if out.N == 0 {
		return nil, fmt.Errorf("data: EncodeCSV: no data rows: %s: %w", noRowsFix, ErrCSV)
	}
	if reserved {
		trimReserve(out)
	}
	return out, nil
}

// encodeCSVSizeFix is what EncodeCSV's error for a matrix over
// MaxEncodedValues adds to Transform's.
const encodeCSVSizeFix = "; read the rows in chunks (EncodeCSVChunks), or set CSVOptions.MaxBytes negative to lift every reading cap"

// MaxChunkRows caps the rows argument of EncodeCSVChunks (2²⁰).
const MaxChunkRows = 1 << 20

// EncodeCSVChunks reads CSV rows as EncodeCSV does (the same checks, the
// same errors) but hands them to fn in chunks of at most rows rows
// (1 ≤ rows ≤ MaxChunkRows), in file order, reusing one buffer: memory is
// about 8·rows·D bytes whatever the length of the file. fn must not keep
// the chunk or its slices after it returns; an error from fn stops the
// reading and is returned as it is. A file without data rows is an error.
func (e *Encoder) EncodeCSVChunks(r io.Reader, opts CSVOptions, rows int, fn func(*Encoded) error) error {
	if e == nil {
		return fmt.Errorf("data: EncodeCSVChunks: %w", errNilEncoder)
	}
	if rows < 1 || rows > MaxChunkRows {
		return fmt.Errorf("data: EncodeCSVChunks: %d rows per chunk: give 1 to %d", rows, MaxChunkRows)
	}
	if fn == nil {
		return errors.New("data: EncodeCSVChunks: nil fn: give the function that takes each chunk")
	}
	c, err := e.openCSV("EncodeCSVChunks", r, opts)
	if err != nil {
		return err
	}
	out, total := e.layout(0), 0
	for {
		more, err := c.next(out)
		if err != nil {
			return err
		}
		if more && out.N < rows {
			continue
		}
		if out.N > 0 {
			if err := fn(out); err != nil {
				return err
			}
			total += out.N
			out.X, out.Y, out.N = out.X[:0], out.Y[:0], 0
		}
		if !more {
			break
		}
	}
	if total == 0 {
		return fmt.Errorf("data: EncodeCSVChunks: no data rows: %s: %w", noRowsFix, ErrCSV)
	}
	return nil
}

// csvRows reads the records of a CSV stream and encodes them one by one.
type csvRows struct {
	capped *capReader
	cr     *csv.Reader
	rs     *rowScanner
	skip   int
}

// openCSV validates e and opens the CSV stream r for fn.
func (e *Encoder) openCSV(fn string, r io.Reader, opts CSVOptions) (*csvRows, error) {
	if e == nil {
		return nil, fmt.Errorf("data: %s: %w", fn, errNilEncoder)
	}
	if err := e.Validate(); err != nil {
		return nil, fmt.Errorf("data: %s: %w", fn, err)
	}
	if r == nil {
		return nil, fmt.Errorf("data: %s: nil reader: %w", fn, ErrCSV)
	}
	if opts.NoHeader || opts.Names != nil || opts.Types != nil {
		return nil, fmt.Errorf("data: %s: CSVOptions NoHeader, Names and Types do not apply (the columns are found by the header row's names, "+
			"the cells read as the encoder's kinds): give a file with a header row naming the schema's columns, and leave them unset", fn)
	}
	maxBytes, maxLine, _, _ := opts.limits()
	capped := &capReader{r: r, maxBytes: maxBytes, maxLn: maxLine, line: 1}
	cr, err := newCSVReader(capped, opts)
	if err != nil {
		return nil, err
	}
	cr.ReuseRecord = true
	rs := e.newRowScanner(fn, opts)
	return &csvRows{capped: capped, cr: cr, rs: rs, skip: opts.SkipLines}, nil
}

// next appends the next data row to out (reading the header first). It
// returns false at the end of the stream; a file without a header is an
// error.
func (c *csvRows) next(out *Encoded) (bool, error) {
	for {
		rec, err := c.cr.Read()
		if c.capped.err != nil {
			return false, fmt.Errorf("data: %s: %w (%w)", c.rs.fn, c.capped.err, ErrCSV)
		}
		if err == io.EOF {
			if c.rs.header == nil {
				return false, fmt.Errorf("data: %s: no data rows: %s: %w", c.rs.fn, noRowsFix, ErrCSV)
			}
			return false, nil
		}
		if err != nil {
			return false, csvReadError(c.rs.fn, rec, err, c.cr.FieldsPerRecord, c.skip)
		}
		line, _ := c.cr.FieldPos(0)
		n := out.N
		if err := c.rs.row(rec, line+c.skip, out); err != nil {
			return false, err
		}
		if out.N > n {
			return true, nil
		}
	}
}

// sizeProbeRows is the number of rows after which EncodeCSV estimates the
// number of rows of a file of known size and reserves the matrix ahead
// (re-estimating whenever it is full), rather than growing it by doubling
// (which needs up to three times its final size while it copies).
const sizeProbeRows = 1024

// sizeOf returns the size in bytes of r when it is a regular file (0
// otherwise).
func sizeOf(r io.Reader) int64 {
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size()
		}
	}
	return 0
}

// ReserveBytes bounds what EncodeCSV reserves ahead of the rows it has
// read (X and Y, 8 bytes a value): a reservation is at most this, or
// reserveGrowth times the rows read so far when that is more, whatever the
// file's size says.
const ReserveBytes = 128 << 20

// reserveGrowth bounds a reservation by the rows read so far (see
// ReserveBytes): with 8, the 1,000,000-row file of BENCHMARKS.md is
// reserved in two steps (2, doubling-like, took three and copied the
// matrix once more: 12 % slower).
const reserveGrowth = 8

// reserve grows out's buffers to the number of rows a file of size bytes
// holds at the rate of the read bytes so far (plus 5 %), bounded by
// ReserveBytes or reserveGrowth times the rows read (reserveRows).
func reserve(out *Encoded, size, read int64) {
	if read <= 0 || out.N == 0 {
		return
	}
	rows := reserveRows(out.N, out.D, float64(size)/float64(read)*float64(out.N)*1.05+1)
	if rows <= out.N {
		return
	}
	if cap(out.X) < rows*out.D {
		x := make([]float64, len(out.X), rows*out.D)
		copy(x, out.X)
		out.X = x
	}
	if cap(out.Y) < rows {
		y := make([]float64, len(out.Y), rows)
		copy(y, out.Y)
		out.Y = y
	}
}

// reserveRows bounds an estimate of the rows of a file, read n rows of d
// encoded columns so far: at most ReserveBytes of X and Y, or
// reserveGrowth·n rows when more (memory in proportion to the rows actually
// read; a file of rows alike is reserved in two steps, the first of
// ReserveBytes), and never more than the MaxEncodedValues/d (+1) rows
// EncodeCSV accepts under its reading caps. The bound is computed in
// float64, so a hostile size cannot overflow rows·d.
func reserveRows(n, d int, estimate float64) int {
	limit := max(float64(ReserveBytes)/(8*float64(d+1)), reserveGrowth*float64(n))
	limit = min(limit, float64(encodedValuesCap/max(d, 1))+1) // the rows EncodeCSV accepts under its caps
	return int(min(estimate, limit))
}

// trimReserve copies out's buffers to their length when reserve's estimate
// was far above the rows the file held (its first rows were much shorter
// than the rest), so that the result does not keep the unused capacity.
// The reservation itself is at most ReserveBytes or reserveGrowth times the
// rows read.
func trimReserve(out *Encoded) {
	if cap(out.X) > len(out.X)+len(out.X)/4 {
		out.X = slices.Clone(out.X)
	}
	if cap(out.Y) > len(out.Y)+len(out.Y)/4 {
		out.Y = slices.Clone(out.Y)
	}
}

// rowScanner turns records into encoded rows.
type rowScanner struct {
	e      *Encoder
	fn     string // the caller's name, for errors
	opts   CSVOptions
	isNA   missingSet
	header []string
	at     []int            // record index of each feature
	label  int              // record index of the label, −1 without
	off    int              // 1 when the first level of a category is dropped
	levels []map[string]int // level index of each categorical feature
	class  map[string]int
}

func (e *Encoder) newRowScanner(fn string, opts CSVOptions) *rowScanner {
	rs := &rowScanner{e: e, fn: fn, opts: opts, isNA: opts.missingSet(), label: -1}
	if e.Options.DropFirst {
		rs.off = 1
	}
	for _, fe := range e.Features {
		idx := map[string]int{}
		for k, l := range fe.Levels {
			idx[l] = k
		}
		rs.levels = append(rs.levels, idx)
	}
	rs.class = map[string]int{}
	for k, c := range e.Classes {
		rs.class[c] = k
	}
	return rs
}

// row encodes one record (the first one is the header).
func (rs *rowScanner) row(rec []string, line int, out *Encoded) error {
	if rs.opts.TrimSpace {
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
	}
	if rs.header == nil {
		return rs.readHeader(slices.Clone(rec))
	}
	if len(rec) != len(rs.header) {
		return fmt.Errorf("data: %s: line %d has %d fields, want %d: %w", rs.fn, line, len(rec), len(rs.header), ErrCSV)
	}
	start := len(out.X)
	out.X = slices.Grow(out.X, out.D)[:start+out.D]
	x := out.X[start:]
	clear(x)
	j := 0
	for f, fe := range rs.e.Features {
		// Spaces around a cell are trimmed, as LevelAt and NumericAt trim
		// them on the DataFrame path (a declared level has none).
		v := strings.TrimSpace(rec[rs.at[f]])
		if fe.Column.Kind == Categorical {
			// A declared level is that level even when it is also a
			// missing-value marker ("NA" for North America).
			k, ok := rs.levels[f][v]
			if !ok && rs.isNA.has(v) {
				return fmt.Errorf("data: %s: column %q, line %d: missing value %q: %w", rs.fn, fe.Column.Name, line, v, ErrMissingValue)
			}
			if !ok {
				return fmt.Errorf("data: %s: column %q, line %d: level %q is not among the public levels %q (add it, or map the value first): %w",
					rs.fn, fe.Column.Name, line, v, fe.Levels, ErrUnknownLevel)
			}
			if k-rs.off >= 0 {
				x[j+k-rs.off] = 1
			}
			j += max(len(fe.Levels)-rs.off, 0)
			continue
		}
		if rs.isNA.has(v) {
			return fmt.Errorf("data: %s: column %q, line %d: missing value %q: %w", rs.fn, fe.Column.Name, line, v, ErrMissingValue)
		}
		num, err := parseFiniteCell(v)
		if err != nil {
			return fmt.Errorf("data: %s: column %q, line %d: %q is not a finite number (%v): %w", rs.fn, fe.Column.Name, line, v, err, ErrNotNumeric)
		}
		if x[j], err = fe.scaleFinite(num); err != nil {
			return fmt.Errorf("data: %s: column %q, line %d: %w", rs.fn, fe.Column.Name, line, err)
		}
		j++
	}
	if rs.e.Options.Intercept {
		x[j] = 1
	}
	y, err := rs.labelValue(rec, line)
	if err != nil {
		return err
	}
	out.Y = append(out.Y, y)
	out.N++
	return nil
}

// SpaceHint returns, when name is not in header but a header name equals
// it once spaces around it are trimmed (a file written with ", " between
// fields), a hint to read with CSVOptions.TrimSpace; else "".
func SpaceHint(header []string, name string) string {
	for _, h := range header {
		if h != name && strings.TrimSpace(h) == name {
			return fmt.Sprintf(" (the header has %q, with spaces around the name: read with CSVOptions.TrimSpace)", h)
		}
	}
	return ""
}

// headerHint is SpaceHint's hint for a schema column name missing from
// header, else the nearest header name that no schema column names
// (suggest.Hint), else "".
func (rs *rowScanner) headerHint(header []string, name string) string {
	if h := SpaceHint(header, name); h != "" {
		return h
	}
	listed := make(map[string]bool, len(rs.e.Schema.Columns))
	for _, c := range rs.e.Schema.Columns {
		listed[c.Name] = true
	}
	var unused []string
	for _, h := range header {
		if !listed[h] {
			unused = append(unused, h)
		}
	}
	return suggest.Hint(name, unused)
}

// readHeader maps the schema's columns to record positions.
func (rs *rowScanner) readHeader(header []string) error {
	pos := make(map[string]int, len(header))
	for i, h := range header {
		if _, dup := pos[h]; dup {
			return fmt.Errorf("data: %s: column %q appears twice in the header: %w", rs.fn, h, ErrCSV)
		}
		pos[h] = i
	}
	for _, fe := range rs.e.Features {
		i, ok := pos[fe.Column.Name]
		if !ok {
			return fmt.Errorf("data: %s: the header has no column %q (columns: %s)%s: %w", rs.fn, fe.Column.Name, QuoteNames(header), rs.headerHint(header, fe.Column.Name), ErrUnknownColumn)
		}
		rs.at = append(rs.at, i)
	}
	if l, ok := rs.e.Schema.Label(); ok {
		i, ok := pos[l.Name]
		if !ok {
			return fmt.Errorf("data: %s: the header has no label column %q (columns: %s)%s: %w", rs.fn, l.Name, QuoteNames(header), rs.headerHint(header, l.Name), ErrUnknownColumn)
		}
		rs.label = i
	}
	rs.header = header
	return nil
}

// labelValue is the record's encoded label (0 without a label).
func (rs *rowScanner) labelValue(rec []string, line int) (float64, error) {
	if rs.label < 0 {
		return 0, nil
	}
	v := strings.TrimSpace(rec[rs.label]) // as on the DataFrame path
	name := rs.header[rs.label]
	if rs.e.Schema.Task == Classification {
		k, ok := rs.class[v]
		if !ok && rs.isNA.has(v) {
			return 0, fmt.Errorf("data: %s: label %q, line %d: missing value %q: %w", rs.fn, name, line, v, ErrMissingValue)
		}
		if !ok {
			return 0, fmt.Errorf("data: %s: label %q, line %d: class %q is not among the public classes %q: %w", rs.fn, name, line, v, rs.e.Classes, ErrUnknownLevel)
		}
		return float64(k), nil
	}
	if rs.isNA.has(v) {
		return 0, fmt.Errorf("data: %s: label %q, line %d: missing value %q: %w", rs.fn, name, line, v, ErrMissingValue)
	}
	num, err := parseFiniteCell(v)
	if err != nil {
		return 0, fmt.Errorf("data: %s: label %q, line %d: %q is not a finite number (%v): %w", rs.fn, name, line, v, err, ErrNotNumeric)
	}
	return rs.e.labelScale(num), nil
}

// parseFiniteCell parses a finite decimal number (ParseNumber); its error
// says what to do.
func parseFiniteCell(s string) (float64, error) {
	v, err := ParseNumber(s)
	switch {
	case err == nil:
		return v, nil
	case errors.Is(err, ErrNotDecimal):
		return 0, errors.New("write it as a plain decimal: digits, an optional point and exponent; no hex, underscores, thousands separators, Inf or NaN")
	}
	return 0, overflowError()
}

// CSVHeader reads the header row of CSV text from r (opts' dialect,
// SkipLines and caps apply) and returns the column names; compressed or
// binary input and an empty or repeated name are errors.
func CSVHeader(r io.Reader, opts CSVOptions) ([]string, error) {
	if r == nil {
		return nil, fmt.Errorf("data: CSVHeader: nil reader: %w", ErrCSV)
	}
	maxBytes, maxLine, maxCols, _ := opts.limits()
	capped := &capReader{r: r, maxBytes: maxBytes, maxLn: maxLine, line: 1}
	cr, err := newCSVReader(capped, opts)
	if err != nil {
		return nil, err
	}
	rec, err := cr.Read()
	if capped.err != nil {
		return nil, fmt.Errorf("data: CSVHeader: %w (%w)", capped.err, ErrCSV)
	}
	if err != nil {
		return nil, fmt.Errorf("data: CSVHeader: no header row: %v: %w", err, ErrCSV)
	}
	if err := checkWidth(rec, true, 1+opts.SkipLines, maxCols); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, h := range rec {
		if opts.TrimSpace {
			h = strings.TrimSpace(h)
			rec[i] = h
		}
		if h == "" || seen[h] {
			return nil, fmt.Errorf("data: CSVHeader: column %d has an empty or repeated name %q: %w", i+1, h, ErrCSV)
		}
		seen[h] = true
	}
	return rec, nil
}
