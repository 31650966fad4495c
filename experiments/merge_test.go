package experiments

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// shardFiles are the manifest and CSV bytes of one shard.
type shardFiles struct{ man, csv []byte }

// runShards runs shardFigure in n shards and returns their files, shard
// K at index K−1.
func runShards(t testing.TB, n int) []shardFiles {
	t.Helper()
	return runShardsOf(t, shardFigure(), n)
}

// runShardsOf runs f in n shards and returns their files, shard K at
// index K−1.
func runShardsOf(t testing.TB, f Figure, n int) []shardFiles {
	t.Helper()
	out := make([]shardFiles, n)
	for k := 1; k <= n; k++ {
		p, err := f.ExecuteShard(context.Background(), Quick, Env{Workers: 1}, Shard{k, n}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var man, csv bytes.Buffer
		if err := p.WriteCSV(&csv); err != nil {
			t.Fatal(err)
		}
		if err := p.WriteManifest(&man); err != nil {
			t.Fatal(err)
		}
		out[k-1] = shardFiles{man.Bytes(), csv.Bytes()}
	}
	return out
}

// editJSON decodes a manifest, lets edit change it and encodes it again.
func editJSON(t testing.TB, man []byte, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(man, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// resum gives a manifest the checksum of csv, as someone would who edits
// both files: the row checks must catch what the checksum cannot.
func resum(man, csv []byte) []byte {
	var m map[string]any
	if json.Unmarshal(man, &m) != nil {
		return man
	}
	rows := 0
	if res, err := ReadCSV(bytes.NewReader(csv)); err == nil {
		rows = len(res.Rows)
	}
	h := sha256.Sum256(csv)
	m["csv"] = map[string]any{"rows": rows, "bytes": len(csv), "sha256": hex.EncodeToString(h[:])}
	b, err := json.Marshal(m)
	if err != nil {
		return man
	}
	return b
}

// readShards reads the shards' files into parts.
func readShards(files []shardFiles) ([]*Part, error) {
	var parts []*Part
	for _, f := range files {
		p, err := ReadPart(bytes.NewReader(f.man), bytes.NewReader(f.csv))
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// Every hostile change to the shards of a run is refused by ReadPart or
// the merge, with an error that says what is wrong; none panics.
func TestMergeRefusesHostileShards(t *testing.T) {
	f := shardFigure()
	three, two := runShards(t, 3), runShards(t, 2)
	header := three[1].csv[:bytes.IndexByte(three[1].csv, '\n')+1]
	csvReplace := func(csv []byte, old, new string) []byte {
		return []byte(strings.Replace(string(csv), old, new, 1))
	}
	set := func(key string, v any) func(map[string]any) { return func(m map[string]any) { m[key] = v } }
	checkRefused(t, f, three, []hostileCase{
		{"CSV cut to its header", func(s []shardFiles) []shardFiles {
			s[1].csv = header
			return s
		}, "does not match the manifest's checksum: it holds 0 rows in"},
		{"CSV copied over another", func(s []shardFiles) []shardFiles {
			s[1].csv = s[0].csv
			return s
		}, "the CSV was cut, replaced or edited after shard 2/3 ran"},
		{"CSV longer", func(s []shardFiles) []shardFiles {
			s[1].csv = append(s[1].csv, s[1].csv[len(header):]...)
			return s
		}, "more than"},
		{"CSV empty", func(s []shardFiles) []shardFiles {
			s[1].csv = nil
			return s
		}, "it is not a results CSV (0 bytes"},
		{"shard copied over another (both files)", func(s []shardFiles) []shardFiles {
			s[1] = s[0]
			return s
		}, "shard 1/3 is in two parts"},
		{"another figure's rows", func(s []shardFiles) []shardFiles {
			s[1].csv = bytes.ReplaceAll(s[1].csv, []byte("x-shard,"), []byte("x-other,"))
			s[1].man = resum(s[1].man, s[1].csv)
			return s
		}, `is of figure "x-other", not x-shard`},
		{"a _cell the manifest does not list", func(s []shardFiles) []shardFiles {
			s[1].csv = csvReplace(s[1].csv, ",1,,", ",2,,")
			s[1].man = resum(s[1].man, s[1].csv)
			return s
		}, "is of cell 2, which the manifest does not list (shard 2/3 of 13 cells)"},
		{"a _cell not a number", func(s []shardFiles) []shardFiles {
			s[1].csv = csvReplace(s[1].csv, ",1,,", ",01,,")
			s[1].man = resum(s[1].man, s[1].csv)
			return s
		}, `_cell is "01"`},
		{"rows out of cell order", func(s []shardFiles) []shardFiles {
			lines := strings.SplitAfter(string(s[1].csv), "\n")
			lines[1], lines[len(lines)-2] = lines[len(lines)-2], lines[1]
			s[1].csv = []byte(strings.Join(lines, ""))
			s[1].man = resum(s[1].man, s[1].csv)
			return s
		}, "rows out of cell order"},
		{"rows of another cell", func(s []shardFiles) []shardFiles {
			s[1].csv = csvReplace(s[1].csv, ",a,0.5,", ",a,1.5,")
			s[1].man = resum(s[1].man, s[1].csv)
			return s
		}, "rows of another cell or run"},
		{"row count edited", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, func(m map[string]any) { m["csv"].(map[string]any)["rows"] = 3 })
			return s
		}, "the manifest was edited"},
		{"cells_total -1", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("cells_total", -1))
			return s
		}, `"cells_total" -1 is negative`},
		{"cells_total 9e18", func(s []shardFiles) []shardFiles {
			s[1].man = bytes.Replace(s[1].man, []byte(`"cells_total": 13`), []byte(`"cells_total": 9000000000000000000`), 1)
			return s
		}, "lists 4 cells; shard 2/3 of 9000000000000000000 cells has 3000000000000000000"},
		{"cells_total 9e18 in every shard", func(s []shardFiles) []shardFiles {
			for i := range s {
				s[i].man = bytes.Replace(s[i].man, []byte(`"cells_total": 13`), []byte(`"cells_total": 9000000000000000000`), 1)
			}
			return s
		}, "lists"},
		{"cells_total beyond int", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("cells_total", 1e300))
			return s
		}, "cells_total"},
		{"a cell more", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("cells", []int{1, 4, 7, 10, 12}))
			return s
		}, "lists 5 cells; shard 2/3 of 13 cells has 4"},
		{"a cell changed", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("cells", []int{1, 4, 8, 10}))
			return s
		}, "cell 3 of the list is 8; shard 2/3 holds cell 7 there"},
		{"fewer cells and shards", func(s []shardFiles) []shardFiles {
			for i := range s {
				s[i].man = editJSON(t, s[i].man, set("cells_total", 12))
			}
			return s
		}, "lists 5 cells; shard 1/3 of 12 cells has 4"},
		{"no format (an older featuredp)", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, func(m map[string]any) { delete(m, "format") })
			return s
		}, `no "format" field`},
		{"format 3", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("format", 3))
			return s
		}, "this featuredp reads manifest formats 1 and 2"},
		{"another featuredp build", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("featuredp_version", "v9.9.9 go1.99"))
			return s
		}, "run every shard with the same build"},
		{"no featuredp version", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("featuredp_version", ""))
			return s
		}, `empty "featuredp_version"`},
		{"another profile", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("profile", "full"))
			return s
		}, "run every shard with the same --profile"},
		{"unknown profile", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("profile", "Quick"))
			return s
		}, `"profile" "Quick"`},
		{"another figure's manifest", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("figure", "x-other"))
			return s
		}, `row 1 is of figure "x-shard", not x-other`},
		{"another figure's shard", func(s []shardFiles) []shardFiles {
			s[1].csv = bytes.ReplaceAll(s[1].csv, []byte("x-shard,"), []byte("x-other,"))
			s[1].man = resum(editJSON(t, s[1].man, set("figure", "x-other")), s[1].csv)
			return s
		}, "holds figure x-other, but figure x-shard shard 1/3 holds x-shard"},
		{"bad shard", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("shard", "02/3"))
			return s
		}, `"shard" "02/3"`},
		{"shards of another N", func(s []shardFiles) []shardFiles { return append(s[:2], two[1]) }, "the shards of a run all have the same N"},
		{"a shard missing", func(s []shardFiles) []shardFiles { return s[:2] }, "a shard is missing: shard 3/3 (4 of 13 cells) is in no part"},
		{"unknown field", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("rows", 1))
			return s
		}, `unknown field "rows"`},
		{"bad checksum form", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, func(m map[string]any) { m["csv"].(map[string]any)["sha256"] = "abc" })
			return s
		}, "64 lower-case hex digits"},
		{"checksum beyond the cap", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, func(m map[string]any) { m["csv"].(map[string]any)["bytes"] = 1 << 40 })
			return s
		}, "MaxPartCSVBytes"},
		{"data after the manifest", func(s []shardFiles) []shardFiles {
			s[1].man = append(s[1].man, "{}"...)
			return s
		}, "after top-level value"},
		{"not JSON", func(s []shardFiles) []shardFiles {
			s[1].man = []byte("figure,method\n")
			return s
		}, "not JSON"},
		{"null cell count", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, set("cells_total", nil))
			return s
		}, `field "cells_total" must be a number, got null`},
		{"null cell", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, func(m map[string]any) { m["cells"].([]any)[0] = nil })
			return s
		}, `field "cells[0]" must be a number, got null`},
		{"null CSV size", func(s []shardFiles) []shardFiles {
			s[1].man = editJSON(t, s[1].man, func(m map[string]any) { m["csv"].(map[string]any)["bytes"] = nil })
			return s
		}, `field "csv.bytes" must be a number, got null`},
	})
}

// hostileCase is an edit of the files of a run's shards and what the
// error it causes must contain.
type hostileCase struct {
	name string
	edit func(s []shardFiles) []shardFiles
	want string
}

// checkRefused checks, for each case, that reading the edited copy of
// files and merging them as figure f fails with the case's error.
func checkRefused(t *testing.T, f Figure, files []shardFiles, cases []hostileCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			parts, err := readShards(tc.edit(clone(files)))
			if err == nil {
				_, err = f.Merge(parts)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func clone(s []shardFiles) []shardFiles {
	out := make([]shardFiles, len(s))
	for i, f := range s {
		out[i] = shardFiles{bytes.Clone(f.man), bytes.Clone(f.csv)}
	}
	return out
}

// A manifest longer than MaxManifestBytes is refused after reading at most
// one byte more.
func TestReadPartBoundsTheManifest(t *testing.T) {
	r := &countingReader{r: io.MultiReader(strings.NewReader(`{"format": 1, "cells": [`), zeros{})}
	_, err := ReadPart(r, strings.NewReader(""))
	if err == nil || !strings.Contains(err.Error(), "MaxManifestBytes") {
		t.Errorf("error %v", err)
	}
	if r.n > MaxManifestBytes+1 {
		t.Errorf("read %d bytes of the manifest, want at most %d", r.n, MaxManifestBytes+1)
	}
}

// A CSV longer than its manifest records is read only one byte beyond.
func TestReadPartBoundsTheCSV(t *testing.T) {
	s := runShards(t, 1)[0]
	r := &countingReader{r: io.MultiReader(bytes.NewReader(s.csv), zeros{})}
	if _, err := ReadPart(bytes.NewReader(s.man), r); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("error %v", err)
	}
	if r.n != int64(len(s.csv))+1 {
		t.Errorf("read %d bytes of the CSV, want %d", r.n, len(s.csv)+1)
	}
}

// zeros is an endless stream of '0'.
type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = '0'
	}
	return len(b), nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// A figure whose cell list changed since the shards ran (another build)
// refuses them.
func TestFigureMergeChecksTheCellCount(t *testing.T) {
	parts, err := readShards(runShards(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	f := shardFigure()
	cells := f.Cells
	f.Cells = func(p Profile) ([]Cell, error) {
		cs, err := cells(p)
		return cs[:12], err
	}
	if _, err := f.Merge(parts); err == nil || !strings.Contains(err.Error(), "splits 13 cells, but figure x-shard has 12") {
		t.Errorf("error %v", err)
	}
	if _, err := dummyFigure("x-other", "x").Merge(parts); err == nil || !strings.Contains(err.Error(), "holds figure x-shard, not x-other") {
		t.Errorf("error %v", err)
	}
}

// Shard.count agrees with counting the cells one by one.
func TestShardCount(t *testing.T) {
	for n := 1; n <= 6; n++ {
		for k := 1; k <= n; k++ {
			for total := 0; total <= 20; total++ {
				want := 0
				for i := 0; i < total; i++ {
					if (Shard{k, n}).Has(i) {
						want++
					}
				}
				if got := (Shard{k, n}).count(total); got != want {
					t.Errorf("shard %d/%d of %d cells: count %d, want %d", k, n, total, got, want)
				}
			}
		}
	}
}

func TestFormatBuild(t *testing.T) {
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "0123456789abcdef0123"}
	for _, tc := range []struct {
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"v1.2.3", nil, "v1.2.3 go1.26"},
		{"", nil, "(unknown) go1.26"},
		{"(devel)", []debug.BuildSetting{rev}, "(devel) rev 0123456789ab go1.26"},
		{"(devel)", []debug.BuildSetting{rev, {Key: "vcs.modified", Value: "true"}}, "(devel) rev 0123456789ab+dirty go1.26"},
		{"(devel)", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}, "(devel) rev abc go1.26"},
	} {
		if got := formatBuild(tc.version, tc.settings, "go1.26"); got != tc.want {
			t.Errorf("formatBuild(%q, %v) = %q, want %q", tc.version, tc.settings, got, tc.want)
		}
	}
	if BuildVersion() == "" {
		t.Error("empty BuildVersion")
	}
}

// FuzzMergeParts: arbitrary manifests and CSVs of two parts (with fix, the
// manifests get the CSVs' true checksums, so that the fuzzer reaches the
// row checks) never panic, and a merge that succeeds holds exactly the
// cells 0, …, cells_total−1, each from one part, and every row of the
// parts.
func FuzzMergeParts(f *testing.F) {
	two := runShards(f, 2)
	one := runShards(f, 1)[0]
	f.Add(two[0].man, two[0].csv, two[1].man, two[1].csv, false)
	f.Add(one.man, one.csv, []byte{}, []byte{}, false)
	f.Add(two[0].man, two[1].csv, two[1].man, two[0].csv, true)
	units := runShardsOf(f, unitFigure(), 2)
	f.Add(units[0].man, units[0].csv, units[1].man, units[1].csv, false)
	f.Add(units[0].man, units[1].csv, units[1].man, units[0].csv, true)
	f.Add(bytes.Replace(two[0].man, []byte(`"cells_total": 13`), []byte(`"cells_total": -1`), 1), two[0].csv, two[1].man, two[1].csv, false)
	f.Add(bytes.Replace(two[0].man, []byte(`"cells_total": 13`), []byte(`"cells_total": 9000000000000000000`), 1), two[0].csv, two[1].man, two[1].csv, true)
	f.Add(two[0].man, bytes.ReplaceAll(two[0].csv, []byte(",0\n"), []byte(",1\n")), two[1].man, two[1].csv, true)
	f.Fuzz(func(t *testing.T, man1, csv1, man2, csv2 []byte, fix bool) {
		var parts []*Part
		for _, s := range []shardFiles{{man1, csv1}, {man2, csv2}} {
			if len(s.man) == 0 {
				continue
			}
			if fix {
				s.man = resum(s.man, s.csv)
			}
			p, err := ReadPart(bytes.NewReader(s.man), bytes.NewReader(s.csv))
			if err != nil {
				return
			}
			parts = append(parts, p)
		}
		if len(parts) == 0 {
			return
		}
		res, err := MergeParts(parts)
		if err != nil {
			return
		}
		checkMerged(t, parts, res)
	})
}

// checkMerged checks a successful merge: the parts' cells are 0, …,
// Total−1, each once; a unit's cells are in one part; every row is of a
// listed cell of its part; the merged table holds every row, without
// _cell.
func checkMerged(t *testing.T, parts []*Part, res *Results) {
	t.Helper()
	var cells []int
	rows := 0
	for _, p := range parts {
		listed := map[int]bool{}
		for _, c := range p.Cells {
			listed[c] = true
		}
		for _, r := range p.Rows {
			if c, err := strconv.Atoi(r.Extra[partCell]); err != nil || !listed[c] {
				t.Fatalf("merged a row of cell %q, not listed by its part %v", r.Extra[partCell], p.Cells)
			}
		}
		cells = append(cells, p.Cells...)
		rows += len(p.Rows)
	}
	partOfUnit := map[int]int{}
	for j, p := range parts {
		for _, c := range p.Cells {
			if p.Units == nil {
				break
			}
			if k, ok := partOfUnit[p.Units[c]]; ok && k != j {
				t.Fatalf("unit %d is in parts %d and %d", p.Units[c], k, j)
			}
			partOfUnit[p.Units[c]] = j
		}
	}
	sort.Ints(cells)
	if len(cells) != parts[0].Total {
		t.Fatalf("merged %d cells of %d", len(cells), parts[0].Total)
	}
	for i, c := range cells {
		if c != i {
			t.Fatalf("merged cells %v, want 0…%d once each", cells, parts[0].Total-1)
		}
	}
	if len(res.Rows) != rows {
		t.Fatalf("merged %d rows of %d", len(res.Rows), rows)
	}
	for _, r := range res.Rows {
		if _, ok := r.Extra[partCell]; ok {
			t.Fatal("a merged row keeps _cell")
		}
	}
}
