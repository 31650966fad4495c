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
// SMOTEENN defaults (spec §3.3): k = 5 SMOTE neighbours, ENN with 3
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
// with SMOTENC (spec §3.3, check C21), for one continuous feature and any
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
	if rng == nil {
		return dataframe.DataFrame{}, data.ErrNilRand
	}
	if err := schema.Validate(df); err != nil {
		return dataframe.DataFrame{}, fmt.Errorf("corrdp: SMOTEENN: %w", err)
	}
	lab, ok := schema.Label()
	if !ok {
		return dataframe.DataFrame{}, errors.New("corrdp: SMOTEENN: schema has no label")
	}
	k, ennK := opts.K, opts.ENNK
	if k <= 0 {
		k = 5
	}
	if ennK <= 0 {
		ennK = 3
	}
	feats := schema.Features()
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
		return dataframe.DataFrame{}, errors.New("corrdp: SMOTEENN: no continuous feature")
	}
	cats := opts.Categorical
	if cats == nil {
		for _, c := range feats {
			if c.Name != cont {
				cats = append(cats, c.Name)
			}
		}
	}
	n := df.Nrow()
	// Read columns.
	cs := df.Col(cont)
	a := make([]float64, n)
	for i := 0; i < n; i++ {
		v, err := data.NumericAt(cs, i)
		if err != nil {
			return dataframe.DataFrame{}, fmt.Errorf("corrdp: SMOTEENN: %s row %d: %w", cont, i, err)
		}
		a[i] = v
	}
	nc := len(cats)
	codes := make([][]int, nc)
	levels := make([][]string, nc)
	numVal := make([][]float64, nc) // numeric value of each level (or its code)
	for c, name := range cats {
		s := df.Col(name)
		if s.Err != nil {
			return dataframe.DataFrame{}, fmt.Errorf("corrdp: SMOTEENN: %w", s.Err)
		}
		idx := map[string]int{}
		codes[c] = make([]int, n)
		for i := 0; i < n; i++ {
			l := data.LevelAt(s, i)
			j, ok := idx[l]
			if !ok {
				j = len(idx)
				idx[l] = j
				levels[c] = append(levels[c], l)
			}
			codes[c][i] = j
		}
		numVal[c] = make([]float64, len(levels[c]))
		for j, l := range levels[c] {
			if f, err := strconv.ParseFloat(l, 64); err == nil {
				numVal[c][j] = f
			} else {
				numVal[c][j] = float64(j)
			}
		}
	}
	ls := df.Col(lab.Name)
	clsIdx := map[string]int{}
	var clsNames []string
	cls := make([]int, n)
	for i := 0; i < n; i++ {
		l := data.LevelAt(ls, i)
		j, ok := clsIdx[l]
		if !ok {
			j = len(clsIdx)
			clsIdx[l] = j
			clsNames = append(clsNames, l)
		}
		cls[i] = j
	}
	if len(clsNames) != 2 {
		return dataframe.DataFrame{}, fmt.Errorf("corrdp: SMOTEENN: %d classes, want 2", len(clsNames))
	}
	// Buckets = categorical configurations.
	nb := 1
	strides := make([]int, nc)
	for c := nc - 1; c >= 0; c-- {
		strides[c] = nb
		nb *= len(levels[c])
		if nb > 1e5 {
			return dataframe.DataFrame{}, errors.New("corrdp: SMOTEENN: too many categorical configurations")
		}
	}
	bucketOf := func(cc []int) int {
		b := 0
		for c := range cc {
			b += cc[c] * strides[c]
		}
		return b
	}
	decode := func(b int) []int {
		cc := make([]int, nc)
		for c := range cc {
			cc[c] = b / strides[c] % len(levels[c])
		}
		return cc
	}
	pts := make([]smotePoint, n, 2*n)
	cnt := [2]int{}
	for i := 0; i < n; i++ {
		cc := make([]int, nc)
		for c := range cc {
			cc[c] = codes[c][i]
		}
		pts[i] = smotePoint{a: a[i], bucket: bucketOf(cc), class: cls[i]}
		cnt[cls[i]]++
	}
	minC := 0
	if cnt[1] < cnt[0] {
		minC = 1
	}
	var minority []int
	for i := range pts {
		if pts[i].class == minC {
			minority = append(minority, i)
		}
	}
	if len(minority) <= k {
		return dataframe.DataFrame{}, fmt.Errorf("corrdp: SMOTEENN: %d minority rows, need > k = %d", len(minority), k)
	}
	var mean, ss float64
	for _, i := range minority {
		mean += a[i]
	}
	mean /= float64(len(minority))
	for _, i := range minority {
		ss += (a[i] - mean) * (a[i] - mean)
	}
	med := math.Sqrt(ss / float64(len(minority)-1))
	penS := make([][]float64, nb) // SMOTE-NC: Med² per mismatch
	penE := make([][]float64, nb) // ENN: squared numeric differences
	for b1 := 0; b1 < nb; b1++ {
		penS[b1], penE[b1] = make([]float64, nb), make([]float64, nb)
		c1 := decode(b1)
		for b2 := 0; b2 < nb; b2++ {
			c2 := decode(b2)
			for c := range c1 {
				if c1[c] != c2[c] {
					penS[b1][b2] += med * med
					d := numVal[c][c1[c]] - numVal[c][c2[c]]
					penE[b1][b2] += d * d
				}
			}
		}
	}
	// SMOTE-NC.
	bm := indexBuckets(pts, minority, nb, rng)
	nbrs := make([][]int, len(pts))
	need := cnt[1-minC] - cnt[minC]
	for s := 0; s < need; s++ {
		i := minority[rng.IntN(len(minority))]
		if nbrs[i] == nil {
			nbrs[i] = bm.knn(pts, i, k, penS, make([]int, 0, k), nil)
		}
		nn := nbrs[i]
		j := nn[rng.IntN(len(nn))]
		u := rng.Float64()
		cc := make([]int, nc)
		for c := range cc {
			best, bestN := 0, -1
			counts := map[int]int{}
			for _, q := range nn {
				counts[decode(pts[q].bucket)[c]]++
			}
			for lv, m := range counts {
				if m > bestN || (m == bestN && lv < best) {
					best, bestN = lv, m
				}
			}
			cc[c] = best
		}
		pts = append(pts, smotePoint{a: pts[i].a + u*(pts[j].a-pts[i].a), bucket: bucketOf(cc), class: minC})
	}
	keep := make([]bool, len(pts))
	for i := range keep {
		keep[i] = true
	}
	if !opts.SkipENN {
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
	// Build the output frame.
	var av []float64
	catv := make([][]string, nc)
	var labv []string
	for i, p := range pts {
		if !keep[i] {
			continue
		}
		av = append(av, p.a)
		cc := decode(p.bucket)
		for c := range cc {
			catv[c] = append(catv[c], levels[c][cc[c]])
		}
		labv = append(labv, clsNames[p.class])
	}
	if len(av) == 0 {
		return dataframe.DataFrame{}, errors.New("corrdp: SMOTEENN: ENN removed every row")
	}
	cols := []series.Series{series.New(av, series.Float, cont)}
	for c, name := range cats {
		cols = append(cols, series.New(catv[c], series.String, name))
	}
	cols = append(cols, series.New(labv, series.String, lab.Name))
	out := dataframe.New(cols...)
	if out.Err != nil {
		return dataframe.DataFrame{}, fmt.Errorf("corrdp: SMOTEENN: %w", out.Err)
	}
	return out, nil
}
