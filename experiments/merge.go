package experiments

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
)

// MergeParts combines the parts of one figure into the Results one machine
// computes: every cell exactly once, rows in cell order, the _cell column
// removed. It refuses, with an error naming the part, parts that fail the
// checks of ReadPart (but the checksum, which only a CSV has), that
// disagree on the figure, profile, cell count, featuredp build, manifest
// format, units (cell_units) or number of shards N, a shard given twice
// and a shard missing: so the parts hold every cell exactly once. Figure.Merge
// checks the rows and units against the figure's cell list too.
func MergeParts(parts []*Part) (*Results, error) {
	if err := checkParts(parts); err != nil {
		return nil, err
	}
	return mergeRows(parts, nil)
}

// Merge is MergeParts for parts of figure f, checked against f's cells for
// the parts' profile: the parts are of f, they split as many cells as f
// has into f's units (ShardUnit), and every row carries the method, x and
// seed of its cell.
func (f Figure) Merge(parts []*Part) (*Results, error) {
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("experiments: merge: %w", err)
	}
	if err := checkParts(parts); err != nil {
		return nil, err
	}
	first := parts[0]
	if first.Figure != f.ID {
		return nil, fmt.Errorf("experiments: merge: %s holds figure %s, not %s", first.label(), first.Figure, f.ID)
	}
	cells, err := f.Cells(first.Profile)
	if err != nil {
		return nil, fmt.Errorf("experiments: merge: figure %s: building %s cells: %w", f.ID, first.Profile, err)
	}
	if len(cells) != first.Total {
		return nil, fmt.Errorf("experiments: merge: %s splits %d cells, but figure %s has %d in the %s profile: %s",
			first.label(), first.Total, f.ID, len(cells), first.Profile, first.whyOther())
	}
	if diff := unitsDiff(first.Units, f.cellUnits(cells), "the figure"); diff != "" {
		return nil, fmt.Errorf("experiments: merge: %s splits the cells into units other than figure %s's in the %s profile: %s: %s",
			first.label(), f.ID, first.Profile, diff, first.whyOther())
	}
	return mergeRows(parts, cells)
}

// whyOther explains why the part does not fit the merging build's figure:
// another build ran it, or its manifest was edited.
func (p *Part) whyOther() string {
	if v := BuildVersion(); p.Version != v {
		return fmt.Sprintf("the shards were run by featuredp %s, this is %s: merge with that build", p.Version, v)
	}
	return "the manifests were edited"
}

// unitsDiff describes how a part's cell_units a differ from those of
// other, b, or returns "" when they are equal.
func unitsDiff(a, b []int, other string) string {
	switch {
	case slices.Equal(a, b):
		return ""
	case a == nil:
		return fmt.Sprintf("it has one unit per cell (no cell_units), %s %d units", other, unitCount(b))
	case b == nil:
		return fmt.Sprintf("it has %d units, %s one unit per cell", unitCount(a), other)
	case len(a) != len(b):
		return fmt.Sprintf("it has %d cell_units, %s %d", len(a), other, len(b))
	}
	i := 0
	for a[i] == b[i] {
		i++
	}
	return fmt.Sprintf("its cell %d is in unit %d, there in unit %d", i, a[i], b[i])
}

// checkParts checks each part and that together they are one run's shards
// 1/N, …, N/N, each once.
func checkParts(parts []*Part) error {
	if len(parts) == 0 {
		return errors.New("experiments: merge: no parts")
	}
	for i, p := range parts {
		if p == nil {
			return fmt.Errorf("experiments: merge: part %d of %d is nil: pass the parts ReadPart returned", i+1, len(parts))
		}
	}
	first := parts[0]
	byK := make(map[int]*Part, len(parts))
	n := 0
	for _, p := range parts {
		sh, err := p.checkManifest()
		if err == nil {
			err = p.checkRows(sh)
		}
		if err == nil {
			err = p.agrees(first)
		}
		if err == nil && n != 0 && sh.N != n {
			err = fmt.Errorf("is shard %s, but %s is a shard of %d: the shards of a run all have the same N", sh, first.label(), n)
		}
		if q := byK[sh.K]; err == nil && q != nil {
			err = fmt.Errorf("shard %s is in two parts (this one and %s)", sh, q.label())
		}
		if err != nil {
			return fmt.Errorf("experiments: merge: %s: %w", p.label(), err)
		}
		n, byK[sh.K] = sh.N, p
	}
	if len(byK) < n {
		k := firstMissing(byK)
		return fmt.Errorf("experiments: merge: %s: a shard is missing: shard %d/%d (%d of %d cells) is in no part; have %d of %d shards",
			first.Figure, k, n, Shard{k, n}.cellCount(first.Total, first.Units), first.Total, len(byK), n)
	}
	return nil
}

// agrees checks that p is of the same run as q.
func (p *Part) agrees(q *Part) error {
	switch {
	case p.Figure != q.Figure:
		return fmt.Errorf("holds figure %s, but %s holds %s", p.Figure, q.label(), q.Figure)
	case p.Profile != q.Profile:
		return fmt.Errorf("ran the %s profile, but %s ran %s: run every shard with the same --profile", p.Profile, q.label(), q.Profile)
	case p.Version != q.Version:
		return fmt.Errorf("was written by featuredp %q, but %s by %q: run every shard with the same build", p.Version, q.label(), q.Version)
	case p.Total != q.Total:
		return fmt.Errorf("splits %d cells, but %s splits %d", p.Total, q.label(), q.Total)
	case p.Format != q.Format:
		return fmt.Errorf("is manifest format %d, but %s is format %d: run every shard with the same build", p.Format, q.label(), q.Format)
	case !slices.Equal(p.Units, q.Units):
		return fmt.Errorf("splits the cells into units other than %s's: %s: the manifests were edited", q.label(), unitsDiff(p.Units, q.Units, "there"))
	}
	return nil
}

// firstMissing returns the smallest K ≥ 1 that is not a key of byK, in
// time O(len(byK) log len(byK)).
func firstMissing(byK map[int]*Part) int {
	ks := make([]int, 0, len(byK))
	for k := range byK {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	for i, k := range ks {
		if k != i+1 {
			return i + 1
		}
	}
	return len(ks) + 1
}

// mergeRows orders the parts' rows by their _cell (stable) and removes it;
// with cells, it checks each row's method, x and seed against its cell.
func mergeRows(parts []*Part, cells []Cell) (*Results, error) {
	type tagged struct {
		cell int
		row  Row
	}
	var all []tagged
	for _, p := range parts {
		for i, r := range p.Rows {
			c, err := rowCell(r)
			if err == nil && cells != nil {
				err = rowOfCell(r, c, cells[c])
			}
			if err != nil {
				return nil, fmt.Errorf("experiments: merge: %s: row %d: %w", p.label(), i+1, err)
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

// rowOfCell checks that row r carries the method, x and seed of cell c.
func rowOfCell(r Row, i int, c Cell) error {
	sameX := r.X == c.X || math.IsNaN(r.X) && math.IsNaN(c.X)
	if r.Method != c.Method || !sameX || r.Seed != c.Seed {
		return fmt.Errorf("cell %d with method %q, x %g, seed %d; cell %d of the figure is method %q, x %g, seed %d: rows of another cell or run",
			i, r.Method, r.X, r.Seed, i, c.Method, c.X, c.Seed)
	}
	return nil
}
