package experiments

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// unitFigure is shardFigure with a ShardUnit: the cells of one method and
// replicate are one unit (as the x values of one trained model), so its 13
// cells are units [0 1 0 1 0 1 2 3 2 3 2 3 4].
func unitFigure() Figure {
	f := shardFigure()
	f.ID = "x-units"
	f.ShardUnit = func(c Cell) string { return fmt.Sprintf("%s/%d", c.Method, c.Rep) }
	return f
}

// Units are numbered by the first appearance of their key, and a shard
// holds exactly the cells of its units.
func TestShardUnits(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string // a cell per key; nil keys: no ShardUnit
		want []int
	}{
		{"no ShardUnit", nil, nil},
		{"no cells", []string{}, []int{}},
		{"one key", []string{"a", "a", "a"}, []int{0, 0, 0}},
		{"every cell its own key", []string{"c", "b", "a"}, []int{0, 1, 2}},
		{"interleaved keys", []string{"b", "a", "b", "c", "a", "c", "d"}, []int{0, 1, 0, 2, 1, 2, 3}},
		{"empty key", []string{"", "x", ""}, []int{0, 1, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Figure{ID: "x-keys", Paper: "x"}
			cells := make([]Cell, 5)
			if tc.keys != nil {
				cells = make([]Cell, len(tc.keys))
				for i := range cells {
					cells[i].Method = tc.keys[i]
				}
				f.ShardUnit = func(c Cell) string { return c.Method }
			}
			units := f.cellUnits(cells)
			if !slices.Equal(units, tc.want) || (units == nil) != (tc.want == nil) {
				t.Fatalf("units %v, want %v", units, tc.want)
			}
			for n := 1; n <= 4; n++ {
				seen := 0
				for k := 1; k <= n; k++ {
					sh := Shard{k, n}
					got := 0
					for i := range cells {
						u := i
						if units != nil {
							u = units[i]
						}
						if sh.holds(i, units) != (u%n == k-1) {
							t.Errorf("shard %s holds cell %d (unit %d): %v", sh, i, u, sh.holds(i, units))
						}
						if sh.holds(i, units) {
							got++
						}
					}
					if c := sh.cellCount(len(cells), units); c != got {
						t.Errorf("shard %s: cellCount %d, holds %d", sh, c, got)
					}
					seen += got
				}
				if seen != len(cells) {
					t.Errorf("%d shards hold %d cells of %d", n, seen, len(cells))
				}
			}
		})
	}
}

// The shards of a figure with units hold whole units (u mod N = K−1) and
// merge into the CSV of the one-machine run byte for byte, for more
// shards than units too.
func TestUnitShardsMergeToTheSameCSV(t *testing.T) {
	f := unitFigure()
	whole, err := f.Execute(context.Background(), Quick, Env{Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	units := []int{0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 4}
	for n := 1; n <= 6; n++ {
		parts, err := readShards(runShardsOf(t, f, n))
		if err != nil {
			t.Fatal(err)
		}
		for k, p := range parts {
			if !slices.Equal(p.Units, units) {
				t.Fatalf("shard %s: cell_units %v, want %v", p.Shard, p.Units, units)
			}
			var want []int
			for i, u := range units {
				if u%n == k {
					want = append(want, i)
				}
			}
			if !slices.Equal(p.Cells, want) {
				t.Errorf("shard %s: cells %v, want %v", p.Shard, p.Cells, want)
			}
		}
		merged, err := f.Merge(parts)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := csvOf(t, merged), csvOf(t, whole); !bytes.Equal(got, want) {
			t.Errorf("%d shards: merged CSV differs:\n%s\nwant\n%s", n, got, want)
		}
	}
}

// A figure without units writes no cell_units, and its shards written by a
// featuredp of manifest format 1 still merge.
func TestFormat1ShardsMerge(t *testing.T) {
	f := shardFigure()
	whole, err := f.Execute(context.Background(), Quick, Env{Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	files := runShardsOf(t, f, 3)
	for i := range files {
		if bytes.Contains(files[i].man, []byte("cell_units")) {
			t.Fatalf("a figure without units wrote cell_units:\n%s", files[i].man)
		}
		files[i].man = editJSON(t, files[i].man, func(m map[string]any) { m["format"] = 1 })
	}
	parts, err := readShards(files)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := f.Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := csvOf(t, merged), csvOf(t, whole); !bytes.Equal(got, want) {
		t.Errorf("merged CSV differs:\n%s\nwant\n%s", got, want)
	}
}

// Every hostile change to cell_units or to the cells of a figure with
// units is refused by ReadPart or the merge with an error that says what
// is wrong; none panics.
func TestMergeRefusesHostileUnitShards(t *testing.T) {
	f := unitFigure()
	three := runShardsOf(t, f, 3)
	plain := f
	plain.ShardUnit = nil
	perCell := runShardsOf(t, plain, 3)
	set := func(key string, v any) func(map[string]any) { return func(m map[string]any) { m[key] = v } }
	setUnit := func(i int, v any) func(map[string]any) {
		return func(m map[string]any) { m["cell_units"].([]any)[i] = v }
	}
	checkRefused(t, f, three, []hostileCase{
		{"cell_units shorter than cells_total", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, func(m map[string]any) { m["cell_units"] = m["cell_units"].([]any)[:12] })
			return s
		}, `"cell_units" has 12 entries, want one per cell: "cells_total" is 13`},
		{"cells_total beyond cell_units", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("cells_total", 9e18))
			return s
		}, `"cell_units" has 13 entries, want one per cell: "cells_total" is 9000000000000000000`},
		{"a negative unit", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, setUnit(0, -1))
			return s
		}, "cell 0 is in unit -1; units are numbered 0, 1, … by first appearance, so it can be in unit 0 to 0"},
		{"a unit number skipped", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, setUnit(1, 2))
			return s
		}, "cell 1 is in unit 2; units are numbered 0, 1, … by first appearance, so it can be in unit 0 to 1"},
		{"a unit 9e18", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, setUnit(12, 9e18))
			return s
		}, "cell 12 is in unit 9000000000000000000"},
		{"a unit beyond int", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, setUnit(12, 1e300))
			return s
		}, "cell_units"},
		{"cell_units not a list", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("cell_units", "0 1 0"))
			return s
		}, "cell_units"},
		{"a cell of another unit listed", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("cells", []int{1, 3, 6, 12}))
			return s
		}, "cell 3 of the list is 6; shard 2/3 holds cell 5 there (of unit 1)"},
		{"the cells of shard 2/3 without units", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("cells", []int{1, 4, 7, 10}))
			return s
		}, "cell 2 of the list is 4; shard 2/3 holds cell 3 there (of unit 1)"},
		{"a cell more", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("cells", []int{1, 3, 5, 12, 13}))
			return s
		}, "lists 5 cells; shard 2/3 of 13 cells in 5 units has 4"},
		{"cell_units removed from a part", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, func(m map[string]any) { delete(m, "cell_units") })
			return s
		}, "cell 2 of the list is 3; shard 2/3 holds cell 4 there"},
		{"a row of a cell of another shard's unit", func(s []shardFiles) []shardFiles {
			lines := strings.SplitAfter(string(s[1].csv), "\n")
			fields := strings.Split(lines[1], ",")
			fields[slices.Index(strings.Split(lines[0], ","), partCell)] = "2" // cell 2 is in unit 0
			lines[1] = strings.Join(fields, ",")
			s[1].csv = []byte(strings.Join(lines, ""))
			s[1].man = resum(s[1].man, s[1].csv)
			return s
		}, "is of cell 2, which the manifest does not list (shard 2/3 of 13 cells)"},
		{"units edited in one part", func(s []shardFiles) []shardFiles {
			// Cell 12 in unit 3: shard 3/3's cells stay 6, 8, 10.
			s[2].man = editJSON(t, s[2].man, setUnit(12, 3))
			return s
		}, "figure x-units shard 3/3: splits the cells into units other than figure x-units shard 1/3's: its cell 12 is in unit 3, there in unit 4: the manifests were edited"},
		{"cell_units in a format 1 manifest", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("format", 1))
			return s
		}, `"cell_units" in a format 1 manifest`},
		{"format 1 beside format 2", func([]shardFiles) []shardFiles {
			s := clone(perCell)
			s[1].man = editJSON(t, s[1].man, set("format", 1))
			return s
		}, "is manifest format 1, but figure x-units shard 1/3 is format 2"},
		{"format 1 shards of a figure with units", func([]shardFiles) []shardFiles {
			s := clone(perCell)
			for i := range s {
				s[i].man = editJSON(t, s[i].man, set("format", 1))
			}
			return s
		}, "figure x-units shard 1/3 splits the cells into units other than figure x-units's in the quick profile: it has one unit per cell (no cell_units), the figure 5 units"},
		{"shards cell by cell of a figure with units", func([]shardFiles) []shardFiles { return clone(perCell) },
			"it has one unit per cell (no cell_units), the figure 5 units"},
		{"a shard missing", func(s []shardFiles) []shardFiles { return s[:2] },
			"a shard is missing: shard 3/3 (3 of 13 cells) is in no part"},
	})
}

// A figure refuses parts whose units are not its own (its ShardUnit
// changed since the shards ran), naming the first cell that differs.
func TestFigureMergeChecksTheUnits(t *testing.T) {
	parts, err := readShards(runShardsOf(t, unitFigure(), 2))
	if err != nil {
		t.Fatal(err)
	}
	f := unitFigure()
	f.ShardUnit = func(c Cell) string { return c.Method } // units [0 0 0 0 0 0 1 … 1 2]
	if _, err := f.Merge(parts); err == nil || !strings.Contains(err.Error(), "its cell 1 is in unit 1, there in unit 0") {
		t.Errorf("error %v", err)
	}
	f.ShardUnit = nil
	if _, err := f.Merge(parts); err == nil || !strings.Contains(err.Error(), "it has 5 units, the figure one unit per cell") {
		t.Errorf("error %v", err)
	}
}
