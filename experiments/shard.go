package experiments

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Shard is the slice K of N of a run's cells (1 ≤ K ≤ N): the cells of the
// units u with u mod N = K−1. A unit is one cell (unit i is cell i of the
// figure's cell list) or, for a figure with a ShardUnit, the cells of one
// key, numbered by first appearance (see Figure.ShardUnit). Cells are
// seeded per cell, so the shards of a run can execute anywhere, in any
// order, and MergeParts rebuilds exactly the rows one machine computes.
type Shard struct{ K, N int }

// ParseShard parses "K/N".
func ParseShard(s string) (Shard, error) {
	ks, ns, ok := strings.Cut(s, "/")
	k, errK := strconv.Atoi(ks)
	n, errN := strconv.Atoi(ns)
	if !ok || errK != nil || errN != nil {
		return Shard{}, fmt.Errorf("experiments: shard %q: want K/N, e.g. 2/3", s)
	}
	sh := Shard{K: k, N: n}
	return sh, sh.Validate()
}

// Validate checks 1 ≤ K ≤ N.
func (s Shard) Validate() error {
	if s.N < 1 || s.K < 1 || s.K > s.N {
		return fmt.Errorf("experiments: shard %d/%d: want 1 ≤ K ≤ N", s.K, s.N)
	}
	return nil
}

// String is "K/N".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// Has reports whether unit i belongs to the shard: i mod N = K−1. Without
// units, unit i is cell i. An invalid shard (see Validate) and a negative
// i hold no unit.
func (s Shard) Has(i int) bool {
	return s.Validate() == nil && i >= 0 && i%s.N == s.K-1
}

// holds reports whether cell i belongs to the shard, given the unit of
// every cell (nil: cell i is unit i).
func (s Shard) holds(i int, units []int) bool {
	if units == nil {
		return s.Has(i)
	}
	return s.Has(units[i])
}

// cellCount is the number of the cells 0, …, total−1 that belong to the
// shard, given the unit of every cell (nil: cell i is unit i).
func (s Shard) cellCount(total int, units []int) int {
	if units == nil {
		return s.count(total)
	}
	n := 0
	for _, u := range units {
		if s.Has(u) {
			n++
		}
	}
	return n
}

// cellUnits returns the unit of every cell (see ShardUnit): the index of
// its key among the keys in order of first appearance; nil when the
// figure has no ShardUnit (every cell its own unit).
func (f Figure) cellUnits(cells []Cell) []int {
	if f.ShardUnit == nil {
		return nil
	}
	units := make([]int, len(cells))
	index := map[string]int{}
	for i, c := range cells {
		k := f.ShardUnit(c)
		u, ok := index[k]
		if !ok {
			u = len(index)
			index[k] = u
		}
		units[i] = u
	}
	return units
}

// count is the number of the cells 0, …, total−1 that belong to the shard:
// K−1, K−1+N, … below total (none for an invalid shard).
func (s Shard) count(total int) int {
	if s.Validate() != nil || total <= s.K-1 {
		return 0
	}
	return (total-s.K)/s.N + 1
}

// ManifestFormat is the version of the shard manifest layout that
// WriteManifest writes (documented in deploy/README.md). Format 2 added
// cell_units; ReadPart reads formats 1 (no units: every cell its own unit)
// and 2, and refuses manifests of another format or without one
// (featuredp before format 1).
const ManifestFormat = 2

// Part is what one shard computed of one figure: the rows of its cells and
// their indices in the figure's cell list. Its JSON form is the shard
// manifest (see WriteManifest and deploy/README.md).
type Part struct {
	// Format is ManifestFormat.
	Format int `json:"format"`
	// Version is the featuredp build that ran the shard (BuildVersion).
	Version string  `json:"featuredp_version"`
	Figure  string  `json:"figure"`
	Profile Profile `json:"profile"`
	// Shard is "K/N".
	Shard string `json:"shard"`
	// Total is the number of cells of the figure; Cells the indices this
	// part ran, ascending: those of the units u with u mod N = K−1 (without
	// Units, K−1, K−1+N, … below Total).
	Total int   `json:"cells_total"`
	Cells []int `json:"cells"`
	// Units, for a figure with a ShardUnit, is the unit of every cell of
	// the figure (Total entries, numbered 0, 1, … by first appearance);
	// nil (omitted from the manifest) when every cell is its own unit.
	Units []int `json:"cell_units,omitempty"`
	// CSV is the checksum of the part's CSV, filled by WriteManifest and
	// verified by ReadPart.
	CSV CSVSum `json:"csv"`
	// Rows are the rows of the part's cells, in cell order, each with the
	// extra column _cell.
	Rows []Row `json:"-"`
	// Source names where the part was read from (a file) in error
	// messages; "" names it by figure and shard.
	Source string `json:"-"`
}

// CSVSum is the checksum of a part's CSV as Part.WriteCSV writes it: the
// number of data rows, the number of bytes and their SHA-256 (lower-case
// hex).
type CSVSum struct {
	Rows   int    `json:"rows"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// partCell is the extra column that carries a row's cell index in a part's
// CSV; MergeParts removes it.
const partCell = "_cell"

// label names the part in error messages.
func (p *Part) label() string {
	if p.Source != "" {
		return p.Source
	}
	return fmt.Sprintf("figure %s shard %s", p.Figure, p.Shard)
}

// ExecuteShard runs the figure's cells of shard s (see Execute and
// ShardUnit) and returns them as a Part.
func (f Figure) ExecuteShard(ctx context.Context, p Profile, env Env, s Shard, progress func(done, total int)) (*Part, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	cells, env, err := f.prepare(p, env)
	if err != nil {
		return nil, err
	}
	part := &Part{Format: ManifestFormat, Version: BuildVersion(), Figure: f.ID, Profile: env.Profile,
		Shard: s.String(), Total: len(cells), Units: f.cellUnits(cells)}
	var mine []Cell
	for i, c := range cells {
		if s.holds(i, part.Units) {
			part.Cells = append(part.Cells, i)
			mine = append(mine, c)
		}
	}
	res, err := Run(ctx, mine, func(ctx context.Context, c Cell) ([]Measurement, error) {
		return f.Run(ctx, c, env)
	}, RunOptions{Workers: env.Workers, Progress: progress, Work: f.work(env.Profile, mine), Figure: f.ID, CellIndex: part.Cells})
	if err != nil {
		return nil, fmt.Errorf("experiments: figure %s, shard %s: %w", f.ID, s, err)
	}
	part.Rows = res.Rows
	return part, nil
}

// WriteCSV writes the part's rows as a results CSV with the extra column
// _cell (each row's cell index). A nil *Part is an error.
func (p *Part) WriteCSV(w io.Writer) error {
	if p == nil {
		return errNilPart
	}
	return (&Results{Rows: p.Rows}).WriteCSV(w)
}

// errNilPart is the error of a method called on a nil *Part.
var errNilPart = errors.New("experiments: nil *Part: use the value returned by Figure.ExecuteShard or ReadPart and check its error")

// WriteManifest writes the part's manifest as JSON: the fields of Part,
// with Format set to ManifestFormat, Version to BuildVersion() if empty,
// and CSV to the checksum of what WriteCSV writes for the part's rows. A
// nil *Part is an error.
func (p *Part) WriteManifest(w io.Writer) error {
	if p == nil {
		return errNilPart
	}
	sum, err := p.csvSum()
	if err != nil {
		return err
	}
	m := *p
	m.Format, m.CSV = ManifestFormat, sum
	if m.Version == "" {
		m.Version = BuildVersion()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&m); err != nil {
		return fmt.Errorf("experiments: writing the manifest of %s: %w", p.label(), err)
	}
	return nil
}

// csvSum renders the part's CSV into a hash and returns its checksum.
func (p *Part) csvSum() (CSVSum, error) {
	h := &countingHash{h: sha256.New()}
	if err := p.WriteCSV(h); err != nil {
		return CSVSum{}, err
	}
	return CSVSum{Rows: len(p.Rows), Bytes: h.n, SHA256: h.sum()}, nil
}

// countingHash is a SHA-256 that counts the bytes written to it.
type countingHash struct {
	h interface {
		io.Writer
		Sum([]byte) []byte
	}
	n int64
}

func (c *countingHash) Write(b []byte) (int, error) {
	c.n += int64(len(b))
	return c.h.Write(b)
}

func (c *countingHash) sum() string { return hex.EncodeToString(c.h.Sum(nil)) }
