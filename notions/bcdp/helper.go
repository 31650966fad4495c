package bcdp

// The logic of the one-call helper dpnb.BCDPMeanEstimation: BCDP mean
// estimation of the columns of a DataFrame, beside the min-δ LDP baseline,
// as a reproducible simulation.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/internal/valid"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/go-gota/gota/dataframe"
)

// MeanEstimationOptions configure EstimateMeans. Zero values give the
// defaults in brackets.
type MeanEstimationOptions struct {
	// Levels is the demanded BCDP level δ_i of columns, keyed by column
	// name. Every Sensitive column of the schema needs one; a Public column
	// has no coordinate-specific demand (δ = +Inf: like every coordinate of
	// the release it is still protected by ε-LDP) and takes no level. A key
	// that is not a Sensitive column of the schema is an error.
	Levels map[string]float64
	// Eps is the overall LDP level ε > 0 (each user's release is ε-LDP).
	Eps float64
	// Q is the public bound q of Assumption 1 on the correlation between
	// coordinates, in [0, 1] (required, no default). It is an assumption
	// about the users' priors, not estimated from the data: the levels
	// δ_i hold only for priors that satisfy it. q = 1 (the min-δ
	// baseline allocation) holds for every prior. Because the zero value
	// would silently assume independent coordinates, the weakest
	// protection, Q = 0 is an error unless IndependentCoordinates is set
	// (see CheckQ).
	Q float64
	// IndependentCoordinates states q = 0 explicitly: the coordinates are
	// independent under every prior considered (Q must then be 0).
	IndependentCoordinates bool
	// Zeta is the allocation parameter ζ ∈ (0, 1] [the paper's heuristic
	// (1+q)/2].
	Zeta float64
	// Bounds are PUBLIC per-column ranges [Lo, Hi] (the data.Range of
	// data.EncodeOptions.Bounds), mapped affinely to [−1, 1]. Every
	// estimated (Sensitive or Public) column needs one (a column already in
	// [−1, 1] takes {Lo: -1, Hi: 1}); a missing one is an error naming the
	// columns, unless BoundsFromData. A value outside its bounds is an
	// error, and so is a key that is not an estimated column.
	Bounds map[string]data.Range
	// BoundsFromData is the explicit opt-in to fit the missing Bounds on
	// the data (the column's min and max). Those bounds are NOT
	// differentially private and no ε accounts for them: the result lists
	// the columns (FittedBounds) and its Markdown and Table say so.
	BoundsFromData bool
	// Trials is the number of simulated releases of each method [200],
	// at most MaxTrials.
	Trials int
	// Seed seeds the simulated mechanism noise: the whole result is a
	// reproducible function of (data, options, Seed), not a private release.
	Seed uint64
	// Mode is the releases' randomness [mechanisms.Reproducible: seeded
	// simulation]; Secure draws every user's noise from the OS CSPRNG, so
	// that Estimate ALONE is a private release: each user's record enters
	// it through one c_d-LDP run of Mechanism 1 (not reproducible). The
	// other outputs are not part of that release and void its guarantee
	// if published with it: BaselineEstimate and the other Trials − 1
	// releases of each method run the mechanisms again on the same
	// records (Estimate with BaselineEstimate is (c_d + min δ̃)-LDP by
	// composition), and TrueMean, Predicted and MC are computed from the
	// raw data (not private).
	Mode mechanisms.Mode
	// PaperConstant uses the Duchi radius as printed in the paper (2×,
	// biased). Default: the unbiased constant.
	PaperConstant bool
	// Projection of the server estimate [ProjectBox: clip to [−1, 1]].
	Projection Projection
	// Workers run the simulated releases in parallel [GOMAXPROCS]; the
	// result does not depend on it.
	Workers int
}

// MeanEstimation is the outcome of EstimateMeans. Errors are squared
// errors in the columns' original units.
type MeanEstimation struct {
	// Columns are the estimated columns (Sensitive and Public, schema
	// order); Delta their demanded δ (+Inf for Public columns).
	Columns []string
	Delta   []float64
	// C is the Theorem 2 allocation of CDP levels per column; Baseline the
	// level of the min-δ LDP baseline (min_i min(δ_i, ε)).
	C          []float64
	LDPLevel   float64 // c_d ≤ ε: the LDP level actually spent by BCDP
	Baseline   float64
	Allocation Allocation
	N          int
	TrueMean   []float64
	// Estimate and BaselineEstimate are the server estimates of the first
	// release (trial 0). In the Reproducible mode (default) they are a
	// simulation drawn from the fixed seed Options.Seed, NOT a private
	// release: publishing them gives no privacy guarantee, because anyone
	// with the seed can regenerate the noise. In the Secure mode every
	// user's noise comes from the OS CSPRNG, as a real deployment draws it
	// on each device, and Estimate alone is the c_d-LDP release (see
	// MeanEstimationOptions.Mode for what else must stay unpublished).
	Estimate, BaselineEstimate []float64
	// Predicted MSE per column: exact, unprojected, using the
	// data's second moments (so it is an oracle value, for comparison only).
	Predicted, PredictedBaseline []float64
	// MC is the Monte Carlo MSE per column (projected estimates) over
	// Options.Trials simulated releases; MCBaseline the same for the
	// baseline.
	MC, MCBaseline []float64
	// Scale[j] = (Hi−Lo)/2 of column j: dividing a squared error by Scale²
	// expresses it on the [−1, 1] scale the mechanism works on.
	Scale []float64
	// FittedBounds lists the columns whose bounds were fitted on the data
	// (Options.BoundsFromData): for them the release is not DP as a whole.
	FittedBounds []string
	// Options are the options used, defaults filled in.
	Options MeanEstimationOptions
}

// EstimateMeans estimates the means of the Sensitive and Public columns of
// df (roles from schema; Label and Ignore columns are not used) under ε-LDP
// and the per-column BCDP levels opts.Levels, with Mechanism 1 and the
// Theorem 2 allocation (BCDP paper §4–2.4), beside the min-δ LDP
// baseline (the Duchi channel at min δ on all columns, Prop. 3). Each row is
// one user; each user's release is c_d-LDP (c_d ≤ ε), c-CDP, and δ-BCDP for
// priors satisfying Assumption 1 with opts.Q (required: see CheckQ). It
// returns the allocation, the exact predicted error and the Monte Carlo
// error of opts.Trials releases of both methods simulated from opts.Seed.
// Only the result's Estimate can be a private release (in the Secure mode;
// see MeanEstimationOptions.Mode).
func EstimateMeans(ctx context.Context, df dataframe.DataFrame, schema data.Schema, opts MeanEstimationOptions) (*MeanEstimation, error) {
	r, err := estimateMeans(ctx, df, schema, opts)
	if err != nil {
		return nil, fmt.Errorf("bcdp: mean estimation: %w", err)
	}
	return r, nil
}

func estimateMeans(ctx context.Context, df dataframe.DataFrame, schema data.Schema, opts MeanEstimationOptions) (*MeanEstimation, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := schema.Validate(df); err != nil {
		return nil, err
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	cols, delta, err := resolveColumns(schema, opts)
	if err != nil {
		return nil, err
	}
	bounds, fitted, err := resolveBounds(df, cols, opts)
	if err != nil {
		return nil, err
	}
	x, lo, half, err := readScaled(df, cols, bounds)
	if err != nil {
		return nil, err
	}
	alloc, err := Allocate(delta, opts.Eps, opts.Q, opts.Zeta)
	if err != nil {
		return nil, err
	}
	uni, err := UniformAllocation(delta, opts.Eps)
	if err != nil {
		return nil, err
	}
	methods, err := newMethods(cols, alloc, uni, opts)
	if err != nil {
		return nil, err
	}
	n, d := df.Nrow(), len(cols)
	r := &MeanEstimation{Columns: cols, Delta: delta, C: alloc.C, LDPLevel: alloc.LDP, Baseline: uni.DeltaTilde[0],
		Allocation: alloc, N: n, Options: opts, Scale: half, TrueMean: make([]float64, d), FittedBounds: fitted}
	m2 := r.moments(x, lo)
	if r.Predicted, err = predictedPerColumn(alloc, n, m2, half, opts.PaperConstant); err != nil {
		return nil, err
	}
	if r.PredictedBaseline, err = predictedPerColumn(uni, n, m2, half, opts.PaperConstant); err != nil {
		return nil, err
	}
	if err := r.simulate(ctx, x, lo, methods); err != nil {
		return nil, err
	}
	return r, nil
}

// moments fills TrueMean from the scaled data x (row-major) and returns
// every column's second moment on the [−1, 1] scale.
func (r *MeanEstimation) moments(x, lo []float64) []float64 {
	n, d := r.N, len(r.Columns)
	m2 := make([]float64, d)
	for j := range d {
		mean := 0.0
		for i := 0; i < n; i++ {
			v := x[i*d+j]
			mean += v / float64(n)
			m2[j] += v * v / float64(n)
		}
		r.TrueMean[j] = lo[j] + r.Scale[j]*(mean+1)
		m2[j] = math.Min(1, m2[j]) // |x| ≤ 1: only rounding of the sum can exceed 1
	}
	return m2
}

// newMethods builds Mechanism 1 with the allocation and the min-δ
// baseline before anything runs, so that levels too small for float64 (a
// round budget whose Duchi radius overflows, or a column left with c = 0
// by rounding) fail here with the levels named, not after the simulation.
func newMethods(cols []string, alloc, uni Allocation, o MeanEstimationOptions) ([]*Mean, error) {
	mo := MeanOptions{PaperConstant: o.PaperConstant}
	fix := fmt.Sprintf("ε = %g, smallest level min(δ, ε) = %g and q = %g are too small for the mechanism: raise ε or the smallest level",
		o.Eps, uni.DeltaTilde[0], o.Q)
	mB, err := NewMean(alloc.C, mo)
	if err != nil {
		return nil, fmt.Errorf("allocation c = %v: %s: %w", alloc.C, fix, err)
	}
	if j := mB.zeroWeightCoordinate(); j >= 0 {
		return nil, fmt.Errorf("column %q gets c = %v from the allocation: %s", cols[j], alloc.C[j], fix)
	}
	mL, err := NewBaseline(len(cols), uni.DeltaTilde[0], mo)
	if err != nil {
		return nil, fmt.Errorf("min-δ baseline: %s: %w", fix, err)
	}
	return []*Mean{mB, mL}, nil
}

// MaxTrials caps MeanEstimationOptions.Trials (2²⁰): the releases are held
// in memory, two per trial.
const MaxTrials = 1 << 20

// CheckQ checks the correlation bound q of Assumption 1 as the one-call
// helpers take it (MeanEstimationOptions, dpnb.ReportOptions): q in
// (0, 1], or q = 0 stated with independent = true. q has no default: the
// BCDP levels hold only under Assumption 1 with the given q (BCDP paper,
// Theorem 2 and Prop. 4 part 2; docs/bcdp.md), and the zero value q = 0
// (independent coordinates) is the least conservative choice, so a
// forgotten q must not become it.
func CheckQ(q float64, independent bool) error {
	switch {
	case independent && q != 0:
		return fmt.Errorf("IndependentCoordinates means q = 0, but Q = %v: give one of them", q)
	case !independent && q == 0:
		return errors.New("the correlation bound q of Assumption 1 is not set: give Q in (0, 1] (1 is the always-valid " +
			"min-δ baseline), or set IndependentCoordinates for q = 0 (independent coordinates, the least conservative " +
			"assumption); q is a public assumption about the users' priors, not estimated from the data")
	}
	if err := valid.Unit("q", q); err != nil {
		return fmt.Errorf("bcdp: %w", err)
	}
	return nil
}

// withDefaults fills in the defaults and checks the scalar options (the
// levels are checked by Allocate).
func (o MeanEstimationOptions) withDefaults() (MeanEstimationOptions, error) {
	if o.Trials == 0 {
		o.Trials = 200
	}
	if o.Trials < 1 || o.Trials > MaxTrials {
		return o, fmt.Errorf("Trials = %d, want 1 to %d (each trial holds one release of every column)", o.Trials, MaxTrials)
	}
	if err := o.Mode.Validate(); err != nil {
		return o, err
	}
	if err := CheckQ(o.Q, o.IndependentCoordinates); err != nil {
		return o, err
	}
	if o.Zeta == 0 {
		o.Zeta = ZetaHeuristic(o.Q)
	}
	return o, nil
}

// resolveColumns returns the estimated columns (Sensitive and Public, in
// schema order) and their demanded levels. Every key of opts.Levels must
// be a Sensitive column and every key of opts.Bounds an estimated column;
// the error names the offending key. The keys are checked before the
// missing levels, so that a misspelt key is named rather than reported as
// a missing level.
func resolveColumns(schema data.Schema, opts MeanEstimationOptions) ([]string, []float64, error) {
	var cols, sensitive []string
	for _, c := range schema.Features() {
		if c.Kind != data.Continuous {
			return nil, nil, fmt.Errorf("column %q is %v; mean estimation needs Continuous columns (make it Ignore to leave it out)", c.Name, c.Kind)
		}
		cols = append(cols, c.Name)
		if c.Role == data.Sensitive {
			sensitive = append(sensitive, c.Name)
		}
	}
	if len(cols) == 0 {
		return nil, nil, errors.New("the schema has no Sensitive or Public column to estimate")
	}
	if err := unknownKeys("Levels", slices.Sorted(maps.Keys(opts.Levels)), sensitive, "Sensitive"); err != nil {
		return nil, nil, err
	}
	if err := unknownKeys("Bounds", slices.Sorted(maps.Keys(opts.Bounds)), cols, "estimated (Sensitive or Public)"); err != nil {
		return nil, nil, err
	}
	delta := make([]float64, len(cols))
	for j, c := range cols {
		if !slices.Contains(sensitive, c) {
			delta[j] = math.Inf(1) // Public: no demand beyond ε
			continue
		}
		lv, ok := opts.Levels[c]
		if !ok {
			return nil, nil, fmt.Errorf("Sensitive column %q has no level in Levels (give it one, or make it Public: no demand beyond ε)", c)
		}
		if !(lv > 0) || math.IsInf(lv, 0) {
			return nil, nil, fmt.Errorf("Levels[%q] = %v: a BCDP level is finite > 0 (make the column Public for no demand beyond ε)", c, lv)
		}
		delta[j] = lv
	}
	return cols, delta, nil
}

// resolveBounds returns the bounds of every column of cols: opts.Bounds,
// and for a column without one, with opts.BoundsFromData, its min and max
// on df (listed in fitted); without the opt-in a missing bound is an error
// naming the columns and the fix.
func resolveBounds(df dataframe.DataFrame, cols []string, opts MeanEstimationOptions) (map[string]data.Range, []string, error) {
	var missing []string
	for _, c := range cols {
		if _, ok := opts.Bounds[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return opts.Bounds, nil, nil
	}
	if !opts.BoundsFromData {
		return nil, nil, fmt.Errorf("Bounds has no public range for %s: give Bounds: map[string]data.Range{%q: {Lo: …, Hi: …}, …} "+
			"from the columns' documentation (a column already in [−1, 1] takes {Lo: -1, Hi: 1}), "+
			"or set BoundsFromData = true to fit them on the data (not differentially private)", data.QuoteNames(missing), missing[0])
	}
	out := make(map[string]data.Range, len(cols))
	for k, v := range opts.Bounds {
		out[k] = v
	}
	for _, c := range missing {
		r, err := fitBounds(df, c)
		if err != nil {
			return nil, nil, err
		}
		out[c] = r
	}
	return out, missing, nil
}

// fitBounds returns the min and max of column c of df (BoundsFromData).
func fitBounds(df dataframe.DataFrame, c string) (data.Range, error) {
	s := df.Col(c)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := 0; i < s.Len(); i++ {
		v, err := data.NumericAt(s, i)
		if err != nil || !valid.Finite(v) {
			return data.Range{}, fmt.Errorf("column %q row %d: %v is not a finite number (BoundsFromData cannot fit its bounds)", c, i, s.Elem(i))
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if !(hi > lo) {
		return data.Range{}, fmt.Errorf("column %q is constant (%v): BoundsFromData cannot fit a range; give Bounds[%q] with Lo < Hi", c, lo, c)
	}
	return data.Range{Lo: lo, Hi: hi}, nil
}

// unknownKeys errors on the first key (sorted) not in valid, naming it.
func unknownKeys(field string, keys, valid []string, what string) error {
	for _, k := range keys {
		if !slices.Contains(valid, k) {
			return fmt.Errorf("%s has key %q, which is not one of the schema's %s columns (%s)",
				field, k, what, strings.Join(valid, ", "))
		}
	}
	return nil
}

// readScaled reads the columns of df row-major, mapped from their bounds
// (one per column, see resolveBounds) to [−1, 1]; it returns the values,
// and per column the lower bound and the half-width.
func readScaled(df dataframe.DataFrame, cols []string, bounds map[string]data.Range) (x, lo, half []float64, err error) {
	n, d := df.Nrow(), len(cols)
	if n == 0 {
		return nil, nil, nil, errors.New("empty DataFrame")
	}
	x, lo, half = make([]float64, n*d), make([]float64, d), make([]float64, d)
	for j, c := range cols {
		b, ok := bounds[c]
		if !ok {
			return nil, nil, nil, fmt.Errorf("column %q has no Bounds", c)
		}
		if !valid.Finite(b.Lo) || !valid.Finite(b.Hi) || !(b.Hi > b.Lo) {
			return nil, nil, nil, fmt.Errorf("Bounds[%q] = %+v must be finite with Lo < Hi", c, b)
		}
		lo[j], half[j] = b.Lo, (b.Hi-b.Lo)/2
		s := df.Col(c)
		for i := 0; i < n; i++ {
			v, err := data.NumericAt(s, i)
			if err != nil || math.IsNaN(v) || v < b.Lo || v > b.Hi {
				return nil, nil, nil, fmt.Errorf("column %q row %d: %v is not a number or outside Bounds[%q] = [%v, %v] (widen the public range, or clip the column first)",
					c, i, s.Elem(i), c, b.Lo, b.Hi)
			}
			x[i*d+j] = math.Max(-1, math.Min(1, (v-b.Lo)/half[j]-1))
		}
	}
	return x, lo, half, nil
}

// predictedPerColumn returns the exact predicted unprojected MSE of
// allocation a per column (caller's order, original units), from the
// columns' second moments m2 on the [−1, 1] scale.
func predictedPerColumn(a Allocation, n int, m2, half []float64, paperConstant bool) ([]float64, error) {
	d := len(m2)
	sm := make([]float64, d)
	for k, j := range a.Perm {
		sm[k] = m2[j]
	}
	_, per, err := PredictedMSE(a.Sorted, n, MSEOptions{PaperConstant: paperConstant, SecondMoment: sm})
	if err != nil {
		return nil, err
	}
	out := make([]float64, d)
	for k, j := range a.Perm {
		out[j] = per[k] * half[j] * half[j]
	}
	return out, nil
}

// simulate runs r.Options.Trials simulated releases of BCDP and of the
// baseline (methods, from newMethods) on the scaled data x and fills MC, MCBaseline, Estimate and
// BaselineEstimate. Trial t of method k draws its noise from
// NewStreams(Seed).Derive("dpnb-bcdp-mean").Split(t).Derive(k), so the
// result does not depend on the number of workers.
func (r *MeanEstimation) simulate(ctx context.Context, x, lo []float64, methods []*Mean) error {
	o := r.Options
	d, n := len(r.Columns), r.N
	labels := []string{"BCDP", "LDP"}
	root := mechanisms.NewStreams(o.Seed).Derive("dpnb-bcdp-mean")
	if o.Mode == mechanisms.Secure {
		root = mechanisms.NewSecureStreams()
	}
	est := make([][]float64, 2*o.Trials) // index 2t+k: trial t, method k (original units)
	err := experiments.Parallel(ctx, 2*o.Trials, o.Workers, func(ctx context.Context, i int) error {
		t, k := i/2, i%2
		rng := root.Split(t).Derive(labels[k]).Noise()
		s := methods[k].NewSums()
		for u := 0; u < n; u++ {
			if u%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			s.AddUnchecked(rng, x[u*d:(u+1)*d])
		}
		e, err := s.Estimate(o.Projection)
		if err != nil {
			return err
		}
		for j := range e {
			e[j] = lo[j] + r.Scale[j]*(e[j]+1)
		}
		est[i] = e
		return nil
	}, nil)
	if err != nil {
		return err
	}
	r.MC, r.MCBaseline = make([]float64, d), make([]float64, d)
	for i, e := range est { // in trial order: the sums do not depend on scheduling
		acc := r.MC
		if i%2 == 1 {
			acc = r.MCBaseline
		}
		for j := range e {
			diff := e[j] - r.TrueMean[j]
			acc[j] += diff * diff / float64(o.Trials)
		}
	}
	r.Estimate, r.BaselineEstimate = est[0], est[1]
	return nil
}
