package experiments

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"sort"
	"strconv"
	"strings"
)

// Shard is the slice K of N of a run's cells (1 ≤ K ≤ N): the cells whose
// index i in the figure's cell list has i mod N = K−1. Cells are seeded per
// cell, so the shards of a run can execute anywhere, in any order, and
// MergeParts rebuilds exactly the rows one machine computes.
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

// Has reports whether cell index i belongs to the shard.
func (s Shard) Has(i int) bool { return i%s.N == s.K-1 }

// Part is what one shard computed of one figure: the rows of its cells and
// their indices in the figure's cell list.
type Part struct {
	Figure  string  `json:"figure"`
	Profile Profile `json:"profile"`
	Shard   string  `json:"shard"`
	// Total is the number of cells of the figure; Cells the indices this
	// part ran.
	Total int   `json:"cells_total"`
	Cells []int `json:"cells"`
	// Rows are the rows of the part's cells, in cell order.
	Rows []Row `json:"-"`
}

// partCell is the extra column that carries a row's cell index in a part's
// CSV; MergeParts removes it.
const partCell = "_cell"

// ExecuteShard runs the figure's cells of shard s (see Execute) and
// returns them as a Part.
func (f Figure) ExecuteShard(ctx context.Context, p Profile, env Env, s Shard, progress func(done, total int)) (*Part, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	cells, env, err := f.prepare(p, env)
	if err != nil {
		return nil, err
	}
	part := &Part{Figure: f.ID, Profile: env.Profile, Shard: s.String(), Total: len(cells)}
	var mine []Cell
	for i, c := range cells {
		if s.Has(i) {
			part.Cells = append(part.Cells, i)
			mine = append(mine, c)
		}
	}
	res, err := Run(ctx, mine, func(ctx context.Context, c Cell) ([]Measurement, error) {
		return f.Run(ctx, c, env)
	}, RunOptions{Workers: env.Workers, Progress: progress, Figure: f.ID, CellIndex: part.Cells})
	if err != nil {
		return nil, fmt.Errorf("experiments: figure %s, shard %s: %w", f.ID, s, err)
	}
	part.Rows = res.Rows
	return part, nil
}

// WriteCSV writes the part's rows as a results CSV with the extra column
// _cell (each row's cell index).
func (p *Part) WriteCSV(w io.Writer) error { return (&Results{Rows: p.Rows}).WriteCSV(w) }

// WriteManifest writes the part's description as JSON.
func (p *Part) WriteManifest(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// ReadPart reads a part from its manifest and its CSV.
func ReadPart(manifest, csv io.Reader) (*Part, error) {
	var p Part
	if err := json.NewDecoder(manifest).Decode(&p); err != nil {
		return nil, fmt.Errorf("experiments: reading part manifest: %w", err)
	}
	res, err := ReadCSV(csv)
	if err != nil {
		return nil, err
	}
	p.Rows = res.Rows
	return &p, nil
}

// MergeParts combines the parts of one figure into the Results one machine
// computes: every cell exactly once, rows in cell order, the _cell column
// removed. It is an error if the parts disagree on the figure, profile or
// cell count, or if a cell is missing or computed twice.
func MergeParts(parts []*Part) (*Results, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("experiments: merge: no parts")
	}
	first := parts[0]
	seen := make([]bool, first.Total)
	for _, p := range parts {
		if p.Figure != first.Figure || p.Profile != first.Profile || p.Total != first.Total {
			return nil, fmt.Errorf("experiments: merge: part %s of %s (%s, %d cells) does not match %s (%s, %d cells)",
				p.Shard, p.Figure, p.Profile, p.Total, first.Figure, first.Profile, first.Total)
		}
		for _, i := range p.Cells {
			if i < 0 || i >= first.Total || seen[i] {
				return nil, fmt.Errorf("experiments: merge: %s: cell %d out of range or in two parts", first.Figure, i)
			}
			seen[i] = true
		}
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("experiments: merge: %s: cell %d of %d is in no part (a shard is missing)", first.Figure, i, first.Total)
		}
	}
	return mergeRows(parts)
}

// mergeRows orders the parts' rows by their _cell (stable) and removes it.
func mergeRows(parts []*Part) (*Results, error) {
	type tagged struct {
		cell int
		row  Row
	}
	var all []tagged
	for _, p := range parts {
		for _, r := range p.Rows {
			c, err := strconv.Atoi(r.cell(partCell))
			if err != nil {
				return nil, fmt.Errorf("experiments: merge: %s part %s: a row without a valid %s column", p.Figure, p.Shard, partCell)
			}
			r.Extra = maps.Clone(r.Extra)
			delete(r.Extra, partCell)
			if len(r.Extra) == 0 {
				r.Extra = nil
			}
			all = append(all, tagged{c, r})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].cell < all[j].cell })
	res := &Results{Rows: make([]Row, len(all))}
	for i, t := range all {
		res.Rows[i] = t.row
	}
	return res, nil
}
