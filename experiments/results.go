package experiments

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// CoreColumns are the columns every tidy results table starts with, in order.
var CoreColumns = []string{"figure", "method", "x", "seed", "metric", "value"}

func isCoreColumn(name string) bool {
	for _, c := range CoreColumns {
		if c == name {
			return true
		}
	}
	return false
}

// Row is one row of a tidy results table: one metric of one cell.
type Row struct {
	Figure string
	Method string
	X      float64
	Seed   uint64
	Metric string
	Value  float64
	Num    map[string]float64 // optional extra numeric columns
	Extra  map[string]string  // optional extra string columns (no empty values)
}

// Number returns the extra column key as a number: from Num, or parsed from
// Extra (a table read back with ReadCSV holds every extra as text). ok is
// false when the row has no such column or its text is not a number.
func (r Row) Number(key string) (v float64, ok bool) {
	if v, ok := r.Num[key]; ok {
		return v, true
	}
	s, ok := r.Extra[key]
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}

// cell returns the text of extra column key: the number formatted as in
// WriteCSV, or the label ("" when absent).
func (r Row) cell(key string) string {
	if v, ok := r.Num[key]; ok {
		return formatFloat(v)
	}
	return r.Extra[key]
}

// Results is a tidy table: one Row per cell and metric, in cell order. A
// nil *Results reads as an empty table (no rows), except that WriteCSV
// returns an error naming the fix.
type Results struct {
	Rows []Row
}

// errNilResults is the error of a method that cannot act on a nil *Results.
var errNilResults = errors.New("experiments: nil *Results: use the value returned by Figure.Execute, Run, MergeParts or ReadCSV and check its error")

// rows returns r.Rows, nil for a nil r.
func (r *Results) rows() []Row {
	if r == nil {
		return nil
	}
	return r.Rows
}

// ExtraColumns returns the sorted names of the extra columns (numeric and
// string) used by any row (none for a nil *Results).
func (r *Results) ExtraColumns() []string {
	set := map[string]bool{}
	for _, row := range r.rows() {
		for k := range row.Extra {
			set[k] = true
		}
		for k := range row.Num {
			set[k] = true
		}
	}
	cols := make([]string, 0, len(set))
	for k := range set {
		cols = append(cols, k)
	}
	sort.Strings(cols)
	return cols
}

// Methods returns the method names in order of first appearance (nil for a
// nil *Results).
func (r *Results) Methods() []string {
	return firstAppearance(r.rows(), func(row Row) string { return row.Method })
}

// Metrics returns the metric names in order of first appearance (nil for a
// nil *Results).
func (r *Results) Metrics() []string {
	return firstAppearance(r.rows(), func(row Row) string { return row.Metric })
}

func firstAppearance(rows []Row, key func(Row) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, row := range rows {
		k := key(row)
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// DataFrame returns the table as a gota DataFrame with the columns figure,
// method (string), x (float), seed (string: decimal, because a uint64 does
// not fit gota's int), metric (string), value (float) and the extra columns
// (string, "" where a row has no value). A nil *Results gives the core
// columns with no rows.
func (r *Results) DataFrame() dataframe.DataFrame {
	rows := r.rows()
	n := len(rows)
	fig, meth, seed, met := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	x, val := make([]float64, n), make([]float64, n)
	extras := r.ExtraColumns()
	ex := make([][]string, len(extras))
	for j := range ex {
		ex[j] = make([]string, n)
	}
	for i, row := range rows {
		fig[i], meth[i], met[i] = row.Figure, row.Method, row.Metric
		seed[i] = strconv.FormatUint(row.Seed, 10)
		x[i], val[i] = row.X, row.Value
		for j, k := range extras {
			ex[j][i] = row.cell(k)
		}
	}
	cols := []series.Series{
		series.New(fig, series.String, "figure"),
		series.New(meth, series.String, "method"),
		series.New(x, series.Float, "x"),
		series.New(seed, series.String, "seed"),
		series.New(met, series.String, "metric"),
		series.New(val, series.Float, "value"),
	}
	for j, k := range extras {
		cols = append(cols, series.New(ex[j], series.String, k))
	}
	return dataframe.New(cols...)
}

// formatFloat writes the shortest representation that parses back to v
// exactly ("NaN", "+Inf", "-Inf" for the special values).
func formatFloat(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// WriteCSV writes the table as CSV with a header: the core columns then the
// extra columns. Floats use the shortest representation that round-trips
// exactly, so ReadCSV(WriteCSV(r)) reproduces r. A nil *Results is an
// error (nothing was computed), not an empty CSV.
func (r *Results) WriteCSV(w io.Writer) error {
	if r == nil {
		return errNilResults
	}
	extras := r.ExtraColumns()
	cw := csv.NewWriter(w)
	header := append(append([]string{}, CoreColumns...), extras...)
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("experiments: writing CSV header: %w", err)
	}
	rec := make([]string, len(header))
	for i, row := range r.Rows {
		rec[0], rec[1], rec[2] = row.Figure, row.Method, formatFloat(row.X)
		rec[3], rec[4], rec[5] = strconv.FormatUint(row.Seed, 10), row.Metric, formatFloat(row.Value)
		for j, k := range extras {
			rec[len(CoreColumns)+j] = row.cell(k)
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("experiments: writing CSV row %d: %w", i+1, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("experiments: writing CSV: %w", err)
	}
	return nil
}

// ReadCSV reads a table written by WriteCSV. The header must contain the
// core columns (in any order); every other column is an extra column, and
// empty extra values are treated as absent.
func ReadCSV(rd io.Reader) (*Results, error) {
	cr := csv.NewReader(rd)
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("experiments: reading results CSV: empty input (no header)")
	}
	if err != nil {
		return nil, fmt.Errorf("experiments: reading results CSV header: %w", err)
	}
	idx := map[string]int{}
	for i, h := range header {
		if _, dup := idx[h]; dup {
			return nil, fmt.Errorf("experiments: reading results CSV: duplicate column %q", h)
		}
		idx[h] = i
	}
	for _, c := range CoreColumns {
		if _, ok := idx[c]; !ok {
			return nil, fmt.Errorf("experiments: reading results CSV: missing column %q (need %v)", c, CoreColumns)
		}
	}
	res := &Results{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("experiments: reading results CSV: %w", err)
		}
		row := Row{Figure: rec[idx["figure"]], Method: rec[idx["method"]], Metric: rec[idx["metric"]]}
		if row.X, err = strconv.ParseFloat(rec[idx["x"]], 64); err != nil {
			return nil, fmt.Errorf("experiments: reading results CSV line %d: column x: %w", line, err)
		}
		if row.Value, err = strconv.ParseFloat(rec[idx["value"]], 64); err != nil {
			return nil, fmt.Errorf("experiments: reading results CSV line %d: column value: %w", line, err)
		}
		if row.Seed, err = strconv.ParseUint(rec[idx["seed"]], 10, 64); err != nil {
			return nil, fmt.Errorf("experiments: reading results CSV line %d: column seed: %w", line, err)
		}
		for i, h := range header {
			if isCoreColumn(h) || rec[i] == "" {
				continue
			}
			if row.Extra == nil {
				row.Extra = map[string]string{}
			}
			row.Extra[h] = rec[i]
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}
