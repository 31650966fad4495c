package experiments

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"
)

// shardFigure has 13 cells over 3 methods whose rows carry numeric and
// string extras, some cells two rows and one cell none.
func shardFigure() Figure {
	return Figure{ID: "x-shard", Paper: "x", Title: "shard",
		Cells: func(Profile) ([]Cell, error) {
			cells := Grid("x-shard", 7, []string{"a", "b"}, []float64{0.5, 1, 2}, 2)
			return append(cells, Cell{Method: "c", X: 9, Seed: 99}), nil
		},
		Run: func(_ context.Context, c Cell, _ Env) ([]Measurement, error) {
			rng := rand.New(rand.NewPCG(c.Seed, 1))
			if c.Method == "c" {
				return nil, nil
			}
			ms := []Measurement{{Metric: "acc", Value: rng.Float64(), Num: map[string]float64{"z": rng.NormFloat64()}}}
			if c.Method == "b" {
				ms = append(ms, Measurement{Metric: "eps", Value: c.X * rng.Float64(), Extra: map[string]string{"note": "x,y"}})
			}
			return ms, nil
		},
	}
}

func csvOf(t *testing.T, r *Results) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The shards of a run, written to CSV, read back and merged, give the CSV
// of the one-machine run byte for byte, whatever the order of the parts.
func TestShardsMergeToTheSameCSV(t *testing.T) {
	f := shardFigure()
	whole, err := f.Execute(context.Background(), Quick, Env{Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3, 5} {
		var parts []*Part
		for k := n; k >= 1; k-- {
			p, err := f.ExecuteShard(context.Background(), Quick, Env{Workers: 1 + k%2}, Shard{k, n}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var man, csv bytes.Buffer
			if err := p.WriteManifest(&man); err != nil {
				t.Fatal(err)
			}
			if err := p.WriteCSV(&csv); err != nil {
				t.Fatal(err)
			}
			back, err := ReadPart(&man, &csv)
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, back)
		}
		merged, err := MergeParts(parts)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := csvOf(t, merged), csvOf(t, whole); !bytes.Equal(got, want) {
			t.Errorf("%d shards: merged CSV differs:\n%s\nwant\n%s", n, got, want)
		}
		if n == 3 {
			if _, err := MergeParts(parts[1:]); err == nil || !strings.Contains(err.Error(), "a shard is missing") {
				t.Errorf("missing shard: %v", err)
			}
			if _, err := MergeParts(append(parts, parts[0])); err == nil || !strings.Contains(err.Error(), "two parts") {
				t.Errorf("duplicate shard: %v", err)
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"1/1", Shard{1, 1}, true}, {"2/3", Shard{2, 3}, true}, {"0/3", Shard{}, false},
		{"4/3", Shard{}, false}, {"2", Shard{}, false}, {"a/b", Shard{}, false}, {"1/0", Shard{}, false},
	} {
		got, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || tc.ok && got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v", tc.in, got, err)
		}
	}
}

// An invalid shard (which Validate refuses) holds no unit and no cell,
// and a valid one no negative unit, instead of dividing by zero (N = 0)
// or answering for a unit that does not exist.
func TestShardInvalidHoldsNothing(t *testing.T) {
	units := []int{0, 0, 1, 2, 2, 3}
	for _, s := range []Shard{{0, 0}, {1, 0}, {0, 3}, {4, 3}, {-1, 2}, {1, -2}, {-2, -1}} {
		t.Run(s.String(), func(t *testing.T) {
			if s.Validate() == nil {
				t.Fatalf("Validate accepts %v", s)
			}
			for i := -3; i < 8; i++ {
				if s.Has(i) {
					t.Errorf("Has(%d) = true", i)
				}
			}
			if n := s.cellCount(10, nil); n != 0 {
				t.Errorf("cellCount(10, nil) = %d, want 0", n)
			}
			if n := s.cellCount(len(units), units); n != 0 {
				t.Errorf("cellCount(units) = %d, want 0", n)
			}
		})
	}
	for _, tc := range []struct {
		s Shard
		i int
	}{{Shard{1, 2}, -2}, {Shard{1, 1}, -1}, {Shard{1, 3}, -6}} {
		if tc.s.Has(tc.i) {
			t.Errorf("%v.Has(%d) = true for a negative unit", tc.s, tc.i)
		}
	}
}
