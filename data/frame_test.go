package data

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

func TestDropMissing(t *testing.T) {
	df, err := ReadCSV(strings.NewReader("a,b,c\n1,x,?\n2,?,z\n3,y,z\n,y,z\n"), CSVOptions{Missing: []string{"?", ""}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cols    []string
		rows    int
		dropped int
	}{
		{nil, 1, 3},
		{[]string{"a"}, 3, 1},
		{[]string{"b", "c"}, 2, 2},
	}
	for _, tc := range tests {
		out, n, err := DropMissing(df, tc.cols...)
		if err != nil {
			t.Fatal(err)
		}
		if out.Nrow() != tc.rows || n != tc.dropped {
			t.Errorf("DropMissing(%v): %d rows, %d dropped; want %d, %d", tc.cols, out.Nrow(), n, tc.rows, tc.dropped)
		}
	}
	if _, _, err := DropMissing(df, "nope"); !errors.Is(err, ErrUnknownColumn) || !strings.Contains(err.Error(), `available: "a", "b", "c"`) {
		t.Errorf("unknown column: %v", err)
	}
}

func TestDeduplicate(t *testing.T) {
	tenth := 0.1
	df := dataframe.New(
		series.New([]float64{1, 1, 1, tenth + 0.2, 0.3, 0.3}, series.Float, "x"),
		series.New([]string{"a", "a", "b", "c", "c", "c"}, series.String, "s"),
	)
	out, n, err := Deduplicate(df)
	if err != nil {
		t.Fatal(err)
	}
	// rows 0,1 equal; 0.1+0.2 != 0.3 exactly; rows 4,5 equal.
	if n != 2 || out.Nrow() != 4 {
		t.Fatalf("removed %d, kept %d; want 2, 4", n, out.Nrow())
	}
	if got := out.Col("s").Records(); !slices.Equal(got, []string{"a", "b", "c", "c"}) {
		t.Errorf("kept %v: first occurrences in order expected", got)
	}
	same, n, _ := Deduplicate(out)
	if n != 0 || same.Nrow() != 4 {
		t.Errorf("second pass removed %d", n)
	}
}

func TestSplitIndices(t *testing.T) {
	tr, te, err := SplitIndices(10, 0.3, seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr) != 7 || len(te) != 3 {
		t.Fatalf("sizes %d/%d", len(tr), len(te))
	}
	all := append(slices.Clone(tr), te...)
	slices.Sort(all)
	for i, v := range all {
		if v != i {
			t.Fatalf("not a partition: %v %v", tr, te)
		}
	}
	tr2, te2, _ := SplitIndices(10, 0.3, seeded(1))
	if !slices.Equal(tr, tr2) || !slices.Equal(te, te2) {
		t.Error("same seed, different split")
	}
	bad := []struct {
		n    int
		frac float64
		rng  *rand.Rand
	}{{10, 0, seeded(1)}, {10, 1, seeded(1)}, {1, 0.5, seeded(1)}, {10, 0.01, seeded(1)}, {10, 0.5, nil}, {10, nan(), seeded(1)}}
	for _, b := range bad {
		if _, _, err := SplitIndices(b.n, b.frac, b.rng); err == nil {
			t.Errorf("SplitIndices(%d, %v, nil=%v): no error", b.n, b.frac, b.rng == nil)
		}
	}
	train, test, err := TrainTestSplit(smallFrame(t), 0.25, seeded(3))
	if err != nil || train.Nrow() != 3 || test.Nrow() != 1 {
		t.Errorf("TrainTestSplit: %d/%d %v", train.Nrow(), test.Nrow(), err)
	}
}

func TestSampleIndices(t *testing.T) {
	for _, k := range []int{0, 1, 5, 100} {
		idx, err := SampleIndices(100, k, seeded(uint64(k)))
		if err != nil {
			t.Fatal(err)
		}
		if len(idx) != k || !slices.IsSorted(idx) || len(slices.Compact(slices.Clone(idx))) != k {
			t.Errorf("k=%d: %v", k, idx)
		}
		for _, i := range idx {
			if i < 0 || i >= 100 {
				t.Fatalf("out of range %d", i)
			}
		}
	}
	// Uniformity: every index is picked about k/n of the time.
	counts := make([]int, 10)
	rng := seeded(9)
	for r := 0; r < 20000; r++ {
		idx, _ := SampleIndices(10, 3, rng)
		for _, i := range idx {
			counts[i]++
		}
	}
	for i, c := range counts {
		if c < 5600 || c > 6400 { // expectation 6000, sd ≈ 65
			t.Errorf("index %d picked %d times, want ≈ 6000", i, c)
		}
	}
	if _, err := SampleIndices(3, 4, seeded(1)); err == nil {
		t.Error("k > n: no error")
	}
	if _, err := Subsample(smallFrame(t), 2, nil); !errors.Is(err, ErrNilRand) {
		t.Errorf("nil rng: %v", err)
	}
}

func TestStratifiedSubsample(t *testing.T) {
	strata := make([]string, 0, 1000)
	for i := 0; i < 1000; i++ {
		switch {
		case i%10 == 0:
			strata = append(strata, "rare") // 100
		case i%10 < 4:
			strata = append(strata, "mid") // 300
		default:
			strata = append(strata, "common") // 600
		}
	}
	idx, err := StratifiedIndices(strata, 101, seeded(4))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, i := range idx {
		got[strata[i]]++
	}
	// 10.1, 30.3, 60.6 → floors 10, 30, 60 and the one extra unit goes to
	// the largest remainder (common, 0.6).
	if got["rare"] != 10 || got["mid"] != 30 || got["common"] != 61 || len(idx) != 101 || !slices.IsSorted(idx) {
		t.Errorf("allocation %v (n=%d)", got, len(idx))
	}
	df, err := SyntheticAdultLike(500, seeded(2))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := StratifiedSubsample(df, 100, "income", seeded(5))
	if err != nil || sub.Nrow() != 100 {
		t.Fatalf("StratifiedSubsample: %v rows %d", err, sub.Nrow())
	}
	if _, err := StratifiedSubsample(df, 10, "nope", seeded(5)); !errors.Is(err, ErrUnknownColumn) {
		t.Errorf("unknown column: %v", err)
	}
}

func TestSyntheticAdultLike(t *testing.T) {
	df, err := SyntheticAdultLike(2000, seeded(7))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(df.Names(), AdultColumns) {
		t.Fatalf("columns %v", df.Names())
	}
	if err := AdultSchema().Validate(df); err != nil {
		t.Fatalf("synthetic Adult does not fit AdultSchema: %v", err)
	}
	enc, err := Encode(df, AdultSchema(), EncodeOptions{Scale: MinMax})
	if err != nil {
		t.Fatal(err)
	}
	pos := 0.0
	for _, y := range enc.Y {
		pos += y
	}
	if frac := pos / float64(enc.N); frac < 0.1 || frac > 0.5 {
		t.Errorf("positive fraction %.3f, want a plausible 0.1–0.5", frac)
	}
	again, _ := SyntheticAdultLike(2000, seeded(7))
	if !slices.Equal(again.Col("fnlwgt").Records(), df.Col("fnlwgt").Records()) {
		t.Error("same seed, different data")
	}
	if _, err := SyntheticAdultLike(0, seeded(1)); err == nil {
		t.Error("n=0: no error")
	}
}

// TestDeduplicateDistinctCells: rows that differ only in where a cell
// boundary falls, or in a cell that spells the old missing-value key, are
// not duplicates (before, a 0x1f byte in a cell, or the text "\x00NA",
// made two different rows one key and the second was silently dropped).
func TestDeduplicateDistinctCells(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []string
	}{
		{"separator in a cell", []string{"x\x1fy", "z"}, []string{"x", "y\x1fz"}},
		{"missing-value key", []string{"\x00NA", "z"}, []string{"NaN", "z"}},
	} {
		df := dataframe.New(series.New([]string{tc.a[0], tc.b[0]}, series.String, "p"),
			series.New([]string{tc.a[1], tc.b[1]}, series.String, "q"))
		out, n, err := Deduplicate(df)
		if err != nil || n != 0 || out.Nrow() != 2 {
			t.Errorf("%s: %d rows removed, %d kept, %v; want 0 removed of 2 different rows", tc.name, n, out.Nrow(), err)
		}
	}
	df := dataframe.New(series.New([]string{"x", "NaN", "x", "NaN"}, series.String, "p"),
		series.New([]float64{1, math.NaN(), 1, math.NaN()}, series.Float, "q"))
	if out, n, err := Deduplicate(df); err != nil || n != 2 || out.Nrow() != 2 {
		t.Errorf("true duplicates: %d removed, %v; want 2 of 4", n, err)
	}
}
