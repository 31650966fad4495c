package corrdp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"

	"github.com/featuredp/featuredp/data"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// SMOTEOptions configure SMOTEENN. Zero values give imblearn's
// SMOTEENN defaults: k = 5 SMOTE neighbours, ENN with 3
// neighbours and kind_sel = "all" on every class, minority oversampled to
// parity.
type SMOTEOptions struct {
	// Continuous is the one continuous feature (interpolated). "" means
	// the first schema feature of Kind Continuous whose name starts with
	// "age", else the first Continuous feature.
	Continuous string
	// Categorical are the categorical features (nearest-neighbour vote).
	// nil means every other schema feature.
	Categorical []string
	// K is the SMOTE neighbour count (0: 5); ENNK the ENN neighbour count
	// (0: 3).
	K, ENNK int
	// SkipENN returns the SMOTE-NC output without ENN cleaning.
	SkipENN bool
}

// smotePoint is one row of the SMOTE/ENN working set.
type smotePoint struct {
	a      float64 // continuous value
	bucket int     // categorical configuration
	class  int
}

// smoteBuckets indexes points by categorical configuration, each bucket
// sorted by the continuous value (ties in random order).
type smoteBuckets struct {
	idx  [][]int     // bucket → point indices sorted by a
	vals [][]float64 // bucket → sorted a
	pos  []int       // point → position in its bucket (−1 if absent)
}

func indexBuckets(pts []smotePoint, members []int, nb int, rng *rand.Rand) *smoteBuckets {
	b := &smoteBuckets{idx: make([][]int, nb), vals: make([][]float64, nb), pos: make([]int, len(pts))}
	for i := range b.pos {
		b.pos[i] = -1
	}
	perm := append([]int(nil), members...)
	rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	for _, i := range perm {
		b.idx[pts[i].bucket] = append(b.idx[pts[i].bucket], i)
	}
	for k := range b.idx {
		ids := b.idx[k]
		sort.SliceStable(ids, func(x, y int) bool { return pts[ids[x]].a < pts[ids[y]].a })
		b.vals[k] = make([]float64, len(ids))
		for p, i := range ids {
			b.vals[k][p] = pts[i].a
			b.pos[i] = p
		}
	}
	return b
}

// knn returns the k nearest indexed points to point q (excluding q) under
// d² = (a − a_q)² + pen[bucket_q][bucket], exact: each bucket contributes
// its nearest candidates by an outward walk from the query value.
func (b *smoteBuckets) knn(pts []smotePoint, q, k int, pen [][]float64, out []int, dist []float64) []int {
	type cand struct {
		d float64
		i int
	}
	var cs []cand
	qa, qb := pts[q].a, pts[q].bucket
	for bk := range b.idx {
		ids, vs := b.idx[bk], b.vals[bk]
		if len(ids) == 0 {
			continue
		}
		p := pen[qb][bk]
		var lo, hi int
		if bk == qb && b.pos[q] >= 0 {
			lo, hi = b.pos[q]-1, b.pos[q]+1
		} else {
			hi = sort.SearchFloat64s(vs, qa)
			lo = hi - 1
		}
		for got := 0; got < k && (lo >= 0 || hi < len(ids)); got++ {
			var dl, dh = math.Inf(1), math.Inf(1)
			if lo >= 0 {
				dl = qa - vs[lo]
			}
			if hi < len(ids) {
				dh = vs[hi] - qa
			}
			if dl <= dh {
				cs = append(cs, cand{dl*dl + p, ids[lo]})
				lo--
			} else {
				cs = append(cs, cand{dh*dh + p, ids[hi]})
				hi++
			}
		}
	}
	sort.SliceStable(cs, func(x, y int) bool { return cs[x].d < cs[y].d })
	out = out[:0]
	for j := 0; j < k && j < len(cs); j++ {
		out = append(out, cs[j].i)
		if dist != nil {
			dist[j] = cs[j].d
		}
	}
	return out
}

// SMOTEENN balances a binary classification frame with SMOTE-NC
// (Chawla et al. 2002, nominal-continuous variant) followed by Edited
// Nearest Neighbours cleaning (Wilson 1972), like imblearn's SMOTEENN
// with SMOTENC (CorrDP paper, App. E.3), for one continuous feature and any
// number of categorical ones:
//
//   - SMOTE-NC: distance² = Δa² + Med²·#(categorical mismatches), Med the
//     SD of the continuous feature in the minority class; each synthetic
//     row picks a minority row uniformly, one of its K nearest minority
//     neighbours uniformly, interpolates a + u(a_nn − a), u ~ U(0,1), and
//     takes each categorical value by majority vote of the K neighbours
//     (ties: the smallest level code). The minority is raised to parity.
//   - ENN: every row (all classes) whose ENNK nearest neighbours in the
//     oversampled set (Euclidean on the numeric values, level codes for
//     non-numeric categories; itself excluded) do not all share its class
//     is removed.
//
// kNN is exact, by bucketing on the categorical configuration with a
// sorted continuous axis; ties are broken in a seeded random order (sklearn
// breaks them by tree order). The output keeps the schema's feature and
// label columns (categorical values as strings, the continuous as floats).
func SMOTEENN(df dataframe.DataFrame, schema data.Schema, opts SMOTEOptions, rng *rand.Rand) (dataframe.DataFrame, error) {
	fail := func(err error) (dataframe.DataFrame, error) {
		return dataframe.DataFrame{}, fmt.Errorf("corrdp: SMOTEENN: %w", err)
	}
	if rng == nil {
		return dataframe.DataFrame{}, data.ErrNilRand
	}
	if err := schema.Validate(df); err != nil {
		return fail(err)
	}
	lab, ok := schema.Label()
	if !ok {
		return fail(errors.New("schema has no label"))
	}
	k, ennK := opts.K, opts.ENNK
	if k <= 0 {
		k = 5
	}
	if ennK <= 0 {
		ennK = 3
	}
	cont, cats, err := smoteColumns(schema.Features(), opts)
	if err != nil {
		return fail(err)
	}
	sd, err := readSMOTEData(df, cont, cats, lab.Name)
	if err != nil {
		return fail(err)
	}
	pts, minC, minority, err := sd.points(k)
	if err != nil {
		return fail(err)
	}
	penS, penE := sd.penalties(minority)
	bm := indexBuckets(pts, minority, sd.nb, rng)
	pts = sd.oversample(pts, minC, minority, k, bm, penS, rng)
	keep := make([]bool, len(pts))
	for i := range keep {
		keep[i] = true
	}
	if !opts.SkipENN {
		ennClean(pts, keep, ennK, sd.nb, penE, rng)
	}
	out, err := sd.frame(pts, keep, cont, cats, lab.Name)
	if err != nil {
		return fail(err)
	}
	return out, nil
}

// smoteColumns returns the continuous feature and the categorical ones.
func smoteColumns(feats []data.Column, opts SMOTEOptions) (string, []string, error) {
	cont := opts.Continuous
	if cont == "" {
		for _, c := range feats {
			if c.Kind == data.Continuous && len(c.Name) >= 3 && c.Name[:3] == "age" {
				cont = c.Name
				break
			}
		}
		if cont == "" {
			for _, c := range feats {
				if c.Kind == data.Continuous {
					cont = c.Name
					break
				}
			}
		}
	}
	if cont == "" {
		return "", nil, errors.New("no continuous feature")
	}
	cats := opts.Categorical
	if cats == nil {
		for _, c := range feats {
			if c.Name != cont {
				cats = append(cats, c.Name)
			}
		}
	}
	return cont, cats, nil
}

// smoteData is the frame read for SMOTE-NC + ENN: the continuous values,
// the categorical level codes and the two classes; a bucket is one
// configuration of the categorical features.
type smoteData struct {
	a        []float64
	codes    [][]int     // categorical → row → level code
	levels   [][]string  // categorical → level names
	numVal   [][]float64 // categorical → numeric value of each level (or its code)
	cls      []int
	clsNames []string
	strides  []int
	nb       int // number of buckets
}

// levelCodes codes the levels of a column in order of appearance.
func levelCodes(s series.Series) (codes []int, levels []string) {
	idx := map[string]int{}
	codes = make([]int, s.Len())
	for i := range codes {
		l := data.LevelAt(s, i)
		j, ok := idx[l]
		if !ok {
			j = len(idx)
			idx[l] = j
			levels = append(levels, l)
		}
		codes[i] = j
	}
	return codes, levels
}

func readSMOTEData(df dataframe.DataFrame, cont string, cats []string, label string) (*smoteData, error) {
	n := df.Nrow()
	cs := df.Col(cont)
	sd := &smoteData{a: make([]float64, n)}
	for i := 0; i < n; i++ {
		v, err := data.NumericAt(cs, i)
		if err != nil {
			return nil, fmt.Errorf("%s row %d: %w", cont, i, err)
		}
		sd.a[i] = v
	}
	nc := len(cats)
	sd.codes, sd.levels, sd.numVal = make([][]int, nc), make([][]string, nc), make([][]float64, nc)
	for c, name := range cats {
		s := df.Col(name)
		if s.Err != nil {
			return nil, s.Err
		}
		sd.codes[c], sd.levels[c] = levelCodes(s)
		sd.numVal[c] = make([]float64, len(sd.levels[c]))
		for j, l := range sd.levels[c] {
			if f, err := strconv.ParseFloat(l, 64); err == nil {
				sd.numVal[c][j] = f
			} else {
				sd.numVal[c][j] = float64(j)
			}
		}
	}
	sd.cls, sd.clsNames = levelCodes(df.Col(label))
	if len(sd.clsNames) != 2 {
		return nil, fmt.Errorf("%d classes, want 2", len(sd.clsNames))
	}
	sd.nb = 1
	sd.strides = make([]int, nc)
	for c := nc - 1; c >= 0; c-- {
		sd.strides[c] = sd.nb
		sd.nb *= len(sd.levels[c])
		if sd.nb > 1e5 {
			return nil, errors.New("too many categorical configurations")
		}
	}
	return sd, nil
}

// bucketOf returns the bucket of a categorical configuration.
func (sd *smoteData) bucketOf(cc []int) int {
	b := 0
	for c := range cc {
		b += cc[c] * sd.strides[c]
	}
	return b
}

// decode returns the categorical configuration of a bucket.
func (sd *smoteData) decode(b int) []int {
	cc := make([]int, len(sd.strides))
	for c := range cc {
		cc[c] = b / sd.strides[c] % len(sd.levels[c])
	}
	return cc
}

// points returns the working set (capacity for the oversampled rows), the
// minority class and its rows; it needs more than k minority rows.
func (sd *smoteData) points(k int) (pts []smotePoint, minC int, minority []int, err error) {
	n := len(sd.a)
	pts = make([]smotePoint, n, 2*n)
	cnt := [2]int{}
	for i := 0; i < n; i++ {
		cc := make([]int, len(sd.codes))
		for c := range cc {
			cc[c] = sd.codes[c][i]
		}
		pts[i] = smotePoint{a: sd.a[i], bucket: sd.bucketOf(cc), class: sd.cls[i]}
		cnt[sd.cls[i]]++
	}
	if cnt[1] < cnt[0] {
		minC = 1
	}
	for i := range pts {
		if pts[i].class == minC {
			minority = append(minority, i)
		}
	}
	if len(minority) <= k {
		return nil, 0, nil, fmt.Errorf("%d minority rows, need > k = %d", len(minority), k)
	}
	return pts, minC, minority, nil
}

// penalties returns the squared distances between buckets: SMOTE-NC's
// Med² per categorical mismatch (Med the SD of the continuous feature in
// the minority) and ENN's squared numeric differences of the levels.
func (sd *smoteData) penalties(minority []int) (penS, penE [][]float64) {
	var mean, ss float64
	for _, i := range minority {
		mean += sd.a[i]
	}
	mean /= float64(len(minority))
	for _, i := range minority {
		ss += (sd.a[i] - mean) * (sd.a[i] - mean)
	}
	med := math.Sqrt(ss / float64(len(minority)-1))
	penS, penE = make([][]float64, sd.nb), make([][]float64, sd.nb)
	for b1 := 0; b1 < sd.nb; b1++ {
		penS[b1], penE[b1] = make([]float64, sd.nb), make([]float64, sd.nb)
		c1 := sd.decode(b1)
		for b2 := 0; b2 < sd.nb; b2++ {
			c2 := sd.decode(b2)
			for c := range c1 {
				if c1[c] != c2[c] {
					penS[b1][b2] += med * med
					d := sd.numVal[c][c1[c]] - sd.numVal[c][c2[c]]
					penE[b1][b2] += d * d
				}
			}
		}
	}
	return penS, penE
}

// oversample appends SMOTE-NC rows of class minC until the classes are at
// parity: a minority row, one of its k nearest minority neighbours,
// interpolation of the continuous value and a neighbour vote per
// categorical feature (ties: the smallest level code).
func (sd *smoteData) oversample(pts []smotePoint, minC int, minority []int, k int, bm *smoteBuckets, penS [][]float64, rng *rand.Rand) []smotePoint {
	nbrs := make([][]int, len(pts))
	need := len(pts) - 2*len(minority)
	for s := 0; s < need; s++ {
		i := minority[rng.IntN(len(minority))]
		if nbrs[i] == nil {
			nbrs[i] = bm.knn(pts, i, k, penS, make([]int, 0, k), nil)
		}
		nn := nbrs[i]
		j := nn[rng.IntN(len(nn))]
		u := rng.Float64()
		cc := make([]int, len(sd.codes))
		for c := range cc {
			best, bestN := 0, -1
			counts := map[int]int{}
			for _, q := range nn {
				counts[sd.decode(pts[q].bucket)[c]]++
			}
			for lv, m := range counts {
				if m > bestN || (m == bestN && lv < best) {
					best, bestN = lv, m
				}
			}
			cc[c] = best
		}
		pts = append(pts, smotePoint{a: pts[i].a + u*(pts[j].a-pts[i].a), bucket: sd.bucketOf(cc), class: minC})
	}
	return pts
}

// ennClean clears keep[i] for every row whose ennK nearest neighbours do
// not all share its class.
func ennClean(pts []smotePoint, keep []bool, ennK, nb int, penE [][]float64, rng *rand.Rand) {
	all := make([]int, len(pts))
	for i := range all {
		all[i] = i
	}
	be := indexBuckets(pts, all, nb, rng)
	buf := make([]int, 0, ennK)
	for i := range pts {
		nn := be.knn(pts, i, ennK, penE, buf, nil)
		for _, q := range nn {
			if pts[q].class != pts[i].class {
				keep[i] = false
				break
			}
		}
	}
}

// frame builds the output frame of the kept rows.
func (sd *smoteData) frame(pts []smotePoint, keep []bool, cont string, cats []string, label string) (dataframe.DataFrame, error) {
	var av []float64
	catv := make([][]string, len(cats))
	var labv []string
	for i, p := range pts {
		if !keep[i] {
			continue
		}
		av = append(av, p.a)
		cc := sd.decode(p.bucket)
		for c := range cc {
			catv[c] = append(catv[c], sd.levels[c][cc[c]])
		}
		labv = append(labv, sd.clsNames[p.class])
	}
	if len(av) == 0 {
		return dataframe.DataFrame{}, errors.New("ENN removed every row")
	}
	cols := []series.Series{series.New(av, series.Float, cont)}
	for c, name := range cats {
		cols = append(cols, series.New(catv[c], series.String, name))
	}
	cols = append(cols, series.New(labv, series.String, label))
	out := dataframe.New(cols...)
	return out, out.Err
}
