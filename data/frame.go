package data

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// ErrNilRand is returned by the sampling functions when no random source is
// given: randomness in featuredp always comes from an explicit, seeded
// *rand.Rand.
var ErrNilRand = errors.New("data: nil *rand.Rand (pass a seeded source, e.g. rand.New(rand.NewPCG(seed, 0)))")

// Columns returns df's columns by name, in time linear in the size of df
// (gota's df.Col scans the names, so one df.Col per column is quadratic in
// the width). The series share df's storage: read them, do not modify
// them. A DataFrame carrying an error gives an empty map.
func Columns(df dataframe.DataFrame) map[string]series.Series {
	out := make(map[string]series.Series, df.Ncol())
	if df.Error() != nil {
		return out
	}
	df.Capply(func(s series.Series) series.Series {
		out[s.Name] = s
		return s
	})
	return out
}

// QuoteNames lists column names for an error message: each quoted (so an
// empty, blank or binary name shows), the first 20 and then the count.
func QuoteNames(names []string) string {
	const show = 20
	var b strings.Builder
	for i, n := range names {
		if i == show {
			fmt.Fprintf(&b, ", … (%d columns in all)", len(names))
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(n))
	}
	return b.String()
}

// columnsByName resolves names (all columns when names is empty).
func columnsByName(df dataframe.DataFrame, names []string) ([]series.Series, error) {
	if err := df.Error(); err != nil {
		return nil, fmt.Errorf("data: the DataFrame carries an error: %w", err)
	}
	if len(names) == 0 {
		names = df.Names()
	}
	all := Columns(df)
	cols := make([]series.Series, len(names))
	for i, n := range names {
		s, ok := all[n]
		if !ok {
			return nil, fmt.Errorf("data: no column %q (available: %s): %w", n, QuoteNames(df.Names()), ErrUnknownColumn)
		}
		cols[i] = s
	}
	return cols, nil
}

// DropMissing removes every row that has a missing value (NaN, empty or
// "?") in one of the named columns (all columns if none are named). It
// returns the remaining rows, in order, and the number of rows removed.
func DropMissing(df dataframe.DataFrame, columns ...string) (dataframe.DataFrame, int, error) {
	cols, err := columnsByName(df, columns)
	if err != nil {
		return dataframe.DataFrame{}, 0, fmt.Errorf("data: DropMissing: %w", err)
	}
	n := df.Nrow()
	keep := make([]int, 0, n)
rows:
	for i := 0; i < n; i++ {
		for _, c := range cols {
			if IsMissing(c, i) {
				continue rows
			}
		}
		keep = append(keep, i)
	}
	if len(keep) == n {
		return df, 0, nil
	}
	return df.Subset(keep), n - len(keep), nil
}

// Deduplicate removes exact duplicate rows (equal in every column, with
// float values compared exactly and missing values equal to each other),
// keeping the first occurrence of each. It returns the remaining rows, in
// order, and the number removed. The CorrDP paper deduplicates Adult
// (45,222 → 45,175 rows) and the Medical Cost data (1,338 → 1,337).
func Deduplicate(df dataframe.DataFrame) (dataframe.DataFrame, int, error) {
	cols, err := columnsByName(df, nil)
	if err != nil {
		return dataframe.DataFrame{}, 0, fmt.Errorf("data: Deduplicate: %w", err)
	}
	n := df.Nrow()
	seen := make(map[string]struct{}, n)
	keep := make([]int, 0, n)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.Reset()
		for _, c := range cols {
			e := c.Elem(i)
			switch {
			case e.IsNA():
				b.WriteString("NA;") // no cell's key ends in ';' alone
			case c.Type() == series.Float:
				b.WriteString(strconv.FormatUint(math.Float64bits(e.Float()), 16))
				b.WriteByte(',')
			default:
				// Length-prefixed, so that no cell's text (a separator
				// byte in it, say) can make two different rows one key.
				v := e.String()
				b.WriteString(strconv.Itoa(len(v)))
				b.WriteByte(':')
				b.WriteString(v)
			}
		}
		k := b.String()
		if _, dup := seen[k]; dup {
			continue
		}
		seen[k] = struct{}{}
		keep = append(keep, i)
	}
	if len(keep) == n {
		return df, 0, nil
	}
	return df.Subset(keep), n - len(keep), nil
}

// SplitIndices shuffles 0..n-1 with rng and splits them into a training
// and a test part of round(testFraction·n) rows; both parts are returned in
// increasing order and both are non-empty.
func SplitIndices(n int, testFraction float64, rng *rand.Rand) (train, test []int, err error) {
	if rng == nil {
		return nil, nil, ErrNilRand
	}
	if !(testFraction > 0 && testFraction < 1) {
		return nil, nil, fmt.Errorf("data: test fraction %v must be in (0, 1)", testFraction)
	}
	nTest := int(math.Round(testFraction * float64(n)))
	if n < 2 || nTest < 1 || nTest > n-1 {
		return nil, nil, fmt.Errorf("data: cannot split %d rows with test fraction %v into two non-empty parts", n, testFraction)
	}
	perm := rng.Perm(n)
	test = slices.Clone(perm[:nTest])
	train = slices.Clone(perm[nTest:])
	slices.Sort(test)
	slices.Sort(train)
	return train, test, nil
}

// TrainTestSplit splits the rows of df at random (see SplitIndices).
func TrainTestSplit(df dataframe.DataFrame, testFraction float64, rng *rand.Rand) (train, test dataframe.DataFrame, err error) {
	if err := df.Error(); err != nil {
		return train, test, fmt.Errorf("data: TrainTestSplit: the DataFrame carries an error: %w", err)
	}
	tr, te, err := SplitIndices(df.Nrow(), testFraction, rng)
	if err != nil {
		return train, test, fmt.Errorf("data: TrainTestSplit: %w", err)
	}
	return df.Subset(tr), df.Subset(te), nil
}

// SampleIndices draws k distinct indices from 0..n-1 uniformly at random
// without replacement and returns them in increasing order.
func SampleIndices(n, k int, rng *rand.Rand) ([]int, error) {
	if rng == nil {
		return nil, ErrNilRand
	}
	if k < 0 || k > n {
		return nil, fmt.Errorf("data: cannot sample %d of %d rows without replacement", k, n)
	}
	// Partial Fisher–Yates over a virtual identity permutation.
	swapped := map[int]int{}
	at := func(i int) int {
		if v, ok := swapped[i]; ok {
			return v
		}
		return i
	}
	out := make([]int, k)
	for i := 0; i < k; i++ {
		j := i + rng.IntN(n-i)
		vi, vj := at(i), at(j)
		swapped[j] = vi
		out[i] = vj
	}
	slices.Sort(out)
	return out, nil
}

// Subsample returns k rows of df drawn uniformly without replacement, in
// their original order.
func Subsample(df dataframe.DataFrame, k int, rng *rand.Rand) (dataframe.DataFrame, error) {
	if err := df.Error(); err != nil {
		return dataframe.DataFrame{}, fmt.Errorf("data: Subsample: the DataFrame carries an error: %w", err)
	}
	idx, err := SampleIndices(df.Nrow(), k, rng)
	if err != nil {
		return dataframe.DataFrame{}, fmt.Errorf("data: Subsample: %w", err)
	}
	return df.Subset(idx), nil
}

// StratifiedSubsample returns k rows of df, in their original order, with
// the levels of column by represented in proportion to their counts
// (largest-remainder rounding, ties broken by level order), each stratum
// sampled uniformly without replacement.
func StratifiedSubsample(df dataframe.DataFrame, k int, by string, rng *rand.Rand) (dataframe.DataFrame, error) {
	cols, err := columnsByName(df, []string{by})
	if err != nil {
		return dataframe.DataFrame{}, fmt.Errorf("data: StratifiedSubsample: %w", err)
	}
	idx, err := StratifiedIndices(levelsOf(cols[0]), k, rng)
	if err != nil {
		return dataframe.DataFrame{}, fmt.Errorf("data: StratifiedSubsample by %q: %w", by, err)
	}
	return df.Subset(idx), nil
}

// levelsOf returns the level string of every element ("\x00NA" if missing).
func levelsOf(s series.Series) []string {
	out := make([]string, s.Len())
	for i := range out {
		if IsMissing(s, i) {
			out[i] = "\x00NA"
			continue
		}
		out[i] = LevelAt(s, i)
	}
	return out
}

// StratifiedIndices draws k of the len(strata) items without replacement so
// that every stratum (items with equal strata value) gets its proportional
// share, rounded by largest remainder. The result is in increasing order.
func StratifiedIndices(strata []string, k int, rng *rand.Rand) ([]int, error) {
	if rng == nil {
		return nil, ErrNilRand
	}
	n := len(strata)
	if k < 0 || k > n {
		return nil, fmt.Errorf("data: cannot sample %d of %d rows without replacement", k, n)
	}
	groups := map[string][]int{}
	for i, s := range strata {
		groups[s] = append(groups[s], i)
	}
	keys := make([]string, 0, len(groups))
	for g := range groups {
		keys = append(keys, g)
	}
	sortLevels(keys)
	alloc := make([]int, len(keys))
	rem := make([]float64, len(keys))
	total := 0
	for i, g := range keys {
		exact := float64(k) * float64(len(groups[g])) / float64(n)
		alloc[i] = int(math.Floor(exact))
		rem[i] = exact - float64(alloc[i])
		total += alloc[i]
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case rem[a] > rem[b]:
			return -1
		case rem[a] < rem[b]:
			return 1
		}
		return 0
	})
	for _, i := range order {
		if total == k {
			break
		}
		if alloc[i] < len(groups[keys[i]]) {
			alloc[i]++
			total++
		}
	}
	var out []int
	for i, g := range keys {
		members := groups[g]
		pick, err := SampleIndices(len(members), alloc[i], rng)
		if err != nil {
			return nil, err
		}
		for _, p := range pick {
			out = append(out, members[p])
		}
	}
	slices.Sort(out)
	return out, nil
}

// sortLevels sorts levels numerically when all parse as numbers, else
// lexically.
func sortLevels(levels []string) {
	nums := make(map[string]float64, len(levels))
	for _, l := range levels {
		f, err := strconv.ParseFloat(l, 64)
		if err != nil || math.IsNaN(f) {
			slices.Sort(levels)
			return
		}
		nums[l] = f
	}
	slices.SortFunc(levels, func(a, b string) int {
		switch {
		case nums[a] < nums[b]:
			return -1
		case nums[a] > nums[b]:
			return 1
		}
		return strings.Compare(a, b)
	})
}
