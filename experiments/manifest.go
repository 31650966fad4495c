package experiments

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"github.com/featuredp/featuredp/internal/valid"
)

// MaxManifestBytes bounds the size of a shard manifest that ReadPart
// reads: 16 MiB, room for millions of cell indices (the largest figure
// has thousands of cells).
const MaxManifestBytes = 16 << 20

// MaxPartCSVBytes bounds the CSV size a shard manifest may record: 1 GiB
// (a full-profile figure writes a few megabytes). ReadPart reads at most
// this many bytes of a part's CSV.
const MaxPartCSVBytes = 1 << 30

// sha256Hex is the form of CSVSum.SHA256.
var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// ReadPart reads a part from its manifest (at most MaxManifestBytes) and
// its CSV, and checks them: the manifest's format is 1 or ManifestFormat,
// its fields are well formed (a shard K/N; cell_units, if any, one unit per
// cell numbered by first appearance; the cells of the shard's units, or
// K−1, K−1+N, … below cells_total without units), the CSV matches the
// manifest's checksum (rows, bytes, SHA-256), and every row belongs to the
// manifest's figure and to a cell it lists, in cell order. Errors say what is wrong; the caller adds which
// file.
func ReadPart(manifest, csv io.Reader) (*Part, error) {
	p, err := readManifest(manifest)
	if err != nil {
		return nil, err
	}
	sh, err := p.checkManifest()
	if err == nil {
		err = p.checkSumFields()
	}
	if err != nil {
		return nil, fmt.Errorf("experiments: part manifest: %w", err)
	}
	if err := p.readRows(csv); err != nil {
		return nil, fmt.Errorf("experiments: part CSV: %w", err)
	}
	if err := p.checkRows(sh); err != nil {
		return nil, fmt.Errorf("experiments: part CSV: %w", err)
	}
	return p, nil
}

// readManifest decodes a manifest: first its format, then, for format 1
// or ManifestFormat, the whole of it, refusing unknown fields and (in
// json.Unmarshal) trailing data.
func readManifest(r io.Reader) (*Part, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxManifestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("experiments: part manifest: reading: %w", err)
	}
	if len(b) > MaxManifestBytes {
		return nil, fmt.Errorf("experiments: part manifest: longer than %d bytes (MaxManifestBytes): not a shard manifest", MaxManifestBytes)
	}
	var head struct {
		Format json.RawMessage `json:"format"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("experiments: part manifest: not JSON: %w", err)
	}
	if err := checkFormat(head.Format); err != nil {
		return nil, fmt.Errorf("experiments: part manifest: %w", err)
	}
	var p Part
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("experiments: part manifest (format %s): %w", head.Format, err)
	}
	if err := valid.JSONNulls(b, &p); err != nil { // a null count or size would read as 0
		return nil, fmt.Errorf("experiments: part manifest: %w: edited or damaged; re-run the shard", err)
	}
	return &p, nil
}

// checkFormat checks the manifest's format field: 1 or ManifestFormat.
func checkFormat(raw json.RawMessage) error {
	if raw == nil {
		return errors.New(`no "format" field: written by a featuredp older than manifest format 1, or not a shard manifest; re-run the shard with this featuredp`)
	}
	if f := string(raw); f != "1" && f != strconv.Itoa(ManifestFormat) {
		return fmt.Errorf(`"format" is %s; this featuredp reads manifest formats 1 and %d: merge with the featuredp that ran the shards`, raw, ManifestFormat)
	}
	return nil
}

// checkManifest checks the part's description (not its rows) and returns
// its shard.
func (p *Part) checkManifest() (Shard, error) {
	if p.Format != 1 && p.Format != ManifestFormat {
		return Shard{}, fmt.Errorf("format %d, want 1 or %d (ManifestFormat)", p.Format, ManifestFormat)
	}
	if p.Format == 1 && p.Units != nil {
		return Shard{}, errors.New(`"cell_units" in a format 1 manifest, which has none (it came with format 2): the manifest was edited`)
	}
	if p.Version == "" || p.Figure == "" {
		return Shard{}, errors.New(`empty "featuredp_version" or "figure"`)
	}
	if q, err := ParseProfile(string(p.Profile)); err != nil || q != p.Profile {
		return Shard{}, fmt.Errorf(`"profile" %q: want %q or %q`, p.Profile, Quick, Full)
	}
	sh, err := ParseShard(p.Shard)
	if err != nil || sh.String() != p.Shard {
		return Shard{}, fmt.Errorf(`"shard" %q: want K/N with 1 ≤ K ≤ N, e.g. 2/3`, p.Shard)
	}
	if p.Total < 0 {
		return Shard{}, fmt.Errorf(`"cells_total" %d is negative`, p.Total)
	}
	if err := p.checkUnits(); err != nil {
		return Shard{}, err
	}
	return sh, p.checkCells(sh)
}

// checkUnits checks cell_units, if any: one entry per cell (so its length,
// bounded by MaxManifestBytes, bounds Total), numbered 0, 1, … by first
// appearance, as Figure.cellUnits numbers them.
func (p *Part) checkUnits() error {
	if p.Units == nil {
		return nil
	}
	if len(p.Units) != p.Total {
		return fmt.Errorf(`"cell_units" has %d entries, want one per cell: "cells_total" is %d`, len(p.Units), p.Total)
	}
	next := 0 // the number of units so far
	for i, u := range p.Units {
		if u < 0 || u > next {
			return fmt.Errorf(`"cell_units": cell %d is in unit %d; units are numbered 0, 1, … by first appearance, so it can be in unit 0 to %d`, i, u, next)
		}
		if u == next {
			next++
		}
	}
	return nil
}

// checkCells checks that the part lists exactly the cells of its shard, in
// ascending order: those of its units (with Units), or K−1, K−1+N, … below
// Total. It takes time linear in len(p.Cells) + len(p.Units) whatever Total
// and N are.
func (p *Part) checkCells(sh Shard) error {
	if p.Units != nil {
		return p.checkUnitCells(sh)
	}
	if want := sh.count(p.Total); len(p.Cells) != want {
		return fmt.Errorf("lists %d cells; shard %s of %d cells has %d", len(p.Cells), sh, p.Total, want)
	}
	want := sh.K - 1
	for j, c := range p.Cells {
		if c != want {
			return fmt.Errorf("cell %d of the list is %d; shard %s holds cell %d there", j+1, c, sh, want)
		}
		want += sh.N // below Total until the last cell
	}
	return nil
}

// checkUnitCells is checkCells for a part with units (checked by
// checkUnits): the cells i whose unit u has u mod N = K−1, ascending.
func (p *Part) checkUnitCells(sh Shard) error {
	if want := sh.cellCount(p.Total, p.Units); len(p.Cells) != want {
		return fmt.Errorf("lists %d cells; shard %s of %d cells in %d units has %d", len(p.Cells), sh, p.Total, unitCount(p.Units), want)
	}
	j := 0
	for i, u := range p.Units {
		if !sh.Has(u) {
			continue
		}
		if c := p.Cells[j]; c != i {
			return fmt.Errorf("cell %d of the list is %d; shard %s holds cell %d there (of unit %d)", j+1, c, sh, i, u)
		}
		j++
	}
	return nil
}

// unitCount is the number of units of checked cell_units.
func unitCount(units []int) int {
	n := 0
	for _, u := range units {
		n = max(n, u+1)
	}
	return n
}

// checkSumFields checks the form of the CSV checksum.
func (p *Part) checkSumFields() error {
	s := p.CSV
	if s.Rows < 0 || s.Bytes < 0 || s.Bytes > MaxPartCSVBytes || !sha256Hex.MatchString(s.SHA256) {
		return fmt.Errorf(`"csv" checksum {rows %d, bytes %d, sha256 %q}: want rows ≥ 0, 0 ≤ bytes ≤ %d (MaxPartCSVBytes) and 64 lower-case hex digits`,
			s.Rows, s.Bytes, s.SHA256, MaxPartCSVBytes)
	}
	return nil
}

// readRows reads the part's CSV (at most CSV.Bytes+1 bytes) and checks it
// against the checksum: a CSV cut, replaced or edited after the shard ran
// is refused.
func (p *Part) readRows(csv io.Reader) error {
	h := &countingHash{h: sha256.New()}
	src := io.TeeReader(io.LimitReader(csv, p.CSV.Bytes+1), h)
	res, rerr := ReadCSV(src)
	if _, err := io.Copy(io.Discard, src); err != nil {
		return fmt.Errorf("reading: %w", err)
	}
	if got := h.sum(); h.n != p.CSV.Bytes || got != p.CSV.SHA256 {
		return fmt.Errorf("does not match the manifest's checksum: %s, the manifest records %d rows in %d bytes (sha256 %.12s…): "+
			"the CSV was cut, replaced or edited after shard %s ran; re-run the shard", describeCSV(res, h.n, p.CSV.Bytes, got), p.CSV.Rows, p.CSV.Bytes, p.CSV.SHA256, p.Shard)
	}
	if rerr != nil {
		return rerr
	}
	if len(res.Rows) != p.CSV.Rows {
		return fmt.Errorf("%d rows, the manifest records %d (the manifest was edited)", len(res.Rows), p.CSV.Rows)
	}
	p.Rows = res.Rows
	return nil
}

// describeCSV describes what was read of a CSV that fails its checksum.
func describeCSV(res *Results, n, want int64, sum string) string {
	size := fmt.Sprintf("%d bytes", n)
	if n > want {
		size = fmt.Sprintf("more than %d bytes", want)
	}
	if res == nil {
		return fmt.Sprintf("it is not a results CSV (%s, sha256 %.12s…)", size, sum)
	}
	return fmt.Sprintf("it holds %d rows in %s (sha256 %.12s…)", len(res.Rows), size, sum)
}

// checkRows checks that every row is of the part's figure and of a cell
// the part lists (shard sh), in cell order.
func (p *Part) checkRows(sh Shard) error {
	prev := -1
	for i, r := range p.Rows {
		if r.Figure != p.Figure {
			return fmt.Errorf("row %d is of figure %q, not %s: rows of another figure", i+1, r.Figure, p.Figure)
		}
		c, err := rowCell(r)
		if err != nil {
			return fmt.Errorf("row %d: %w", i+1, err)
		}
		if c < 0 || c >= p.Total || !sh.holds(c, p.Units) {
			return fmt.Errorf("row %d is of cell %d, which the manifest does not list (shard %s of %d cells)", i+1, c, sh, p.Total)
		}
		if c < prev {
			return fmt.Errorf("row %d (cell %d) follows a row of cell %d: rows out of cell order", i+1, c, prev)
		}
		prev = c
	}
	return nil
}

// rowCell returns the row's cell index from its _cell column, which must
// be a decimal integer in canonical form.
func rowCell(r Row) (int, error) {
	s := r.cell(partCell)
	c, err := strconv.Atoi(s)
	if err != nil || strconv.Itoa(c) != s {
		return 0, fmt.Errorf("%s is %q, want the row's cell index (a shard CSV written by featuredp reproduce --shard)", partCell, s)
	}
	return c, nil
}
