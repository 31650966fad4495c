// Package audit measures, by a distinguishing attack, an empirical lower
// bound ε_lb on the privacy loss of a mechanism and sets it beside the ε
// the accountant claims. A mechanism is run many times on two neighbouring
// inputs D and D′; a threshold test on one scalar statistic of its output
// guesses which input was used. For an (ε, δ)-DP mechanism every test has
// false-positive and false-negative rates with
//
//	FPR + e^ε·FNR ≥ 1 − δ   and   FNR + e^ε·FPR ≥ 1 − δ,
//
// so upper confidence bounds FPR_hi, FNR_hi give
//
//	ε_lb = max( log((1 − δ − FNR_hi)/FPR_hi), log((1 − δ − FPR_hi)/FNR_hi) ),
//
// a lower bound on the true ε with the stated confidence (Jagielski, Ullman
// & Oprea 2020; Nasr et al. 2021). The threshold is chosen on one half of
// the trials and evaluated on the other, and the rates are bounded with
// Clopper–Pearson intervals, so ε_lb ≤ ε holds with probability at least
// the confidence for every correct mechanism and accountant (each audit at
// its own confidence: no correction across audits). Every audit also runs
// a deliberately broken control under the same claim (less noise — half
// the scale for Laplace and the Gaussian, a third or a quarter elsewhere —,
// a leak, or no secrecy of the subsampling; Spec.Broken says which): a
// sound audit must flag it (control ε_lb > claimed ε), and what it flags is
// the coarsest fault it shows it can detect. A milder one may pass: half
// the noise of multi-step DP-SGD gave ε_lb 2.18 against its claimed 2.58
// at 20,000 trials even with the per-step likelihood-ratio statistic (the
// accountant's ε at δ = 1e-5 rests on events too rare for 10⁴ trials to
// see), and half of CorrDP's σ0, though flagged, only narrowly: 1.07
// against 0.98 at 10⁶, too thin a margin to rely on (one
// seed each, measured when the controls were chosen). ε_lb ≤ ε
// is not a proof of privacy; a flagged real mechanism is a bug. With N
// trials no ε_lb exceeds Record.MaxDetectable (no error at all on the
// test half); an audit whose claim is at or above it cannot flag the real
// mechanism and is marked Inconclusive.
package audit

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"sort"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/featuredp/featuredp/mechanisms"
)

// TrialFunc runs a mechanism once on D (present = false) or on its
// neighbour D′ (present = true) with randomness from rng, and returns the
// statistic the attack thresholds (larger suggests D′).
type TrialFunc func(rng *rand.Rand, present bool) (float64, error)

// Spec is one audited mechanism.
type Spec struct {
	// Name identifies the mechanism ("laplace", "dpsgd-multistep", …).
	Name string
	// Claimed is the ε the accountant claims at Delta for one run on
	// neighbours D, D′ (Delta 0: pure DP).
	Claimed, Delta float64
	// Real runs the mechanism as featuredp implements and accounts it.
	Real TrialFunc
	// ControlClaimed, if > 0, is the ε the control claims instead of
	// Claimed (e.g. a naive claim that ignores pre-processing).
	ControlClaimed float64
	// Control runs a deliberately broken version under the same claim,
	// which the audit must flag; Broken says how it is broken.
	Control TrialFunc
	Broken  string
	// Neighbours describes D and D′; Statistic the thresholded output.
	Neighbours, Statistic string
	// Trials is the spec's default number of runs per input (0: Options).
	Trials int
}

// MinTrials and MaxTrials bound Options.Trials. Run keeps every statistic
// (2·Trials float64 values, and a copy of half of them to choose the
// threshold: about 24 bytes per trial, ≈ 96 MB at MaxTrials), so the bound
// keeps its memory and time finite; 4·10⁶ trials resolve an ε_lb of up to
// log(2·10⁶) ≈ 14.5, beyond every claimed ε.
const (
	MinTrials = 100
	MaxTrials = 4_000_000
)

// MaxWorkers bounds Options.Workers (one goroutine each).
const MaxWorkers = 1024

// Options configure Run.
type Options struct {
	// Trials per input and per mechanism [Spec.Trials, else 4000], in
	// [MinTrials, MaxTrials].
	Trials int
	// Seed of the trials' streams [0]; every trial has its own stream, so
	// the result does not depend on Workers.
	Seed uint64
	// Confidence of ε_lb [0.95].
	Confidence float64
	// Workers run trials in parallel [2], at most MaxWorkers.
	Workers int
}

// Record is the outcome of one audit.
type Record struct {
	Mechanism        string  `json:"mechanism"`
	ClaimedEpsilon   float64 `json:"claimed_epsilon"`
	Delta            float64 `json:"delta"`
	EpsilonLB        float64 `json:"epsilon_lb"`
	ControlEpsilonLB float64 `json:"control_epsilon_lb"`
	// ControlClaimedEpsilon is the ε the control claims (Claimed unless
	// the spec sets ControlClaimed).
	ControlClaimedEpsilon float64 `json:"control_claimed_epsilon"`
	ControlFlagged        bool    `json:"control_flagged"`
	Trials                int     `json:"trials"`
	Confidence            float64 `json:"confidence"`
	Broken                string  `json:"control"`
	Neighbours            string  `json:"neighbours"`
	// MaxDetectable is the largest ε_lb these trials can give (every
	// guess on the test half right); Inconclusive reports a claim at or
	// above it: the real mechanism could not have been flagged, whatever
	// it leaks (more trials, or a smaller claim, make the audit bite).
	MaxDetectable float64 `json:"max_detectable_epsilon"`
	Inconclusive  bool    `json:"inconclusive"`
}

// OK reports whether the audit found nothing wrong: ε_lb ≤ claimed ε and
// the broken control flagged.
func (r Record) OK() bool { return r.EpsilonLB <= r.ClaimedEpsilon && r.ControlFlagged }

var (
	regMu    sync.Mutex
	registry = map[string]Spec{}
)

// Register adds a spec to the audits `featuredp audit` runs; notions
// register theirs from init. A duplicate or incomplete spec panics (a
// programming error).
func Register(s Spec) {
	if err := s.validate(); err != nil {
		panic(err)
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[s.Name]; dup {
		panic("audit: duplicate spec " + s.Name)
	}
	registry[s.Name] = s
}

// validate reports what an incomplete spec lacks.
func (s Spec) validate() error {
	switch {
	case s.Name == "":
		return errors.New("audit: spec without a Name")
	case s.Real == nil || s.Control == nil:
		return fmt.Errorf("audit %s: spec without a Real or Control trial function; set both", s.Name)
	case !(s.Claimed > 0) || math.IsInf(s.Claimed, 1):
		return fmt.Errorf("audit %s: claimed ε = %v, want a finite ε > 0", s.Name, s.Claimed)
	case !(s.Delta >= 0 && s.Delta < 1):
		return fmt.Errorf("audit %s: delta = %v, want in [0, 1)", s.Name, s.Delta)
	}
	return nil
}

// All returns the registered specs sorted by name.
func All() []Spec {
	regMu.Lock()
	defer regMu.Unlock()
	out := make([]Spec, 0, len(registry))
	for _, s := range registry {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Run audits one spec: Trials runs of the real mechanism and of the
// control on each input, and ε_lb of both.
func Run(ctx context.Context, s Spec, o Options) (Record, error) {
	if err := s.validate(); err != nil {
		return Record{}, err
	}
	o, err := o.withDefaults(s)
	if err != nil {
		return Record{}, fmt.Errorf("audit %s: %w", s.Name, err)
	}
	root := mechanisms.NewStreams(o.Seed).Derive("audit/" + s.Name)
	real, err := lowerBound(ctx, s.Real, root.Derive("real"), s.Delta, o)
	if err != nil {
		return Record{}, fmt.Errorf("audit %s: %w", s.Name, err)
	}
	ctrl, err := lowerBound(ctx, s.Control, root.Derive("control"), s.Delta, o)
	if err != nil {
		return Record{}, fmt.Errorf("audit %s (control): %w", s.Name, err)
	}
	ctrlClaim := s.Claimed
	if s.ControlClaimed > 0 {
		ctrlClaim = s.ControlClaimed
	}
	most := MaxDetectable(o.Trials, s.Delta, o.Confidence)
	return Record{Mechanism: s.Name, ClaimedEpsilon: s.Claimed, Delta: s.Delta, EpsilonLB: real, ControlEpsilonLB: ctrl,
		ControlClaimedEpsilon: ctrlClaim, ControlFlagged: ctrl > ctrlClaim, Trials: o.Trials, Confidence: o.Confidence,
		Broken: s.Broken, Neighbours: s.Neighbours, MaxDetectable: most, Inconclusive: s.Claimed >= most}, nil
}

// MaxDetectable is the largest ε_lb that EpsilonLB can give with trials
// runs per input: no false positive and no false negative among the
// trials/2 test runs of each input, i.e. log((1 − δ − p)/p) with p the
// one-sided Clopper–Pearson upper bound on a rate with 0 of trials/2
// (p = 1 − (a)^{2/trials}, a = (1 − confidence)/2).
func MaxDetectable(trials int, delta, confidence float64) float64 {
	p := cpUpper(0, trials-trials/2, (1-confidence)/2)
	return math.Max(logRatio(1-delta-p, p), 0)
}

func (o Options) withDefaults(s Spec) (Options, error) {
	if o.Trials == 0 {
		o.Trials = s.Trials
	}
	if o.Trials == 0 {
		o.Trials = 4000
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	switch {
	case o.Trials < MinTrials || o.Trials > MaxTrials:
		return o, fmt.Errorf("trials = %d, want %d ≤ trials ≤ %d (each trial keeps about 24 bytes)", o.Trials, MinTrials, MaxTrials)
	case o.Workers > MaxWorkers:
		return o, fmt.Errorf("workers = %d, want ≤ %d", o.Workers, MaxWorkers)
	case !(o.Confidence > 0 && o.Confidence < 1):
		return o, fmt.Errorf("confidence = %v, want in (0, 1)", o.Confidence)
	}
	return o, nil
}

// lowerBound runs fn Trials times per input and returns ε_lb. The first
// failing trial (lowest index among those run) stops the dispatch and is
// the error returned, so a mechanism that always fails costs one batch of
// trials, not 2·Trials joined errors.
func lowerBound(ctx context.Context, fn TrialFunc, st *mechanisms.Streams, delta float64, o Options) (float64, error) {
	n := o.Trials
	out := make([]float64, 2*n) // [0, n): D; [n, 2n): D′
	var mu sync.Mutex
	var first error
	failed := -1
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < o.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				v, err := callTrial(fn, st.Split(i).Noise(), i >= n)
				if err != nil {
					mu.Lock()
					if failed < 0 || i < failed {
						failed, first = i, fmt.Errorf("trial %d: %w", i, err)
					}
					mu.Unlock()
				}
				out[i] = v
			}
		}()
	}
	for i := 0; i < 2*n && ctx.Err() == nil && !hasFailed(&mu, &failed); i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if first != nil {
		return 0, first
	}
	return EpsilonLB(out[:n], out[n:], delta, o.Confidence)
}

// callTrial runs one trial, turning a NaN statistic or a panic (with its
// stack) into an error, so that a bug in a mechanism cannot take down the
// process (a notebook kernel: dpnb.Audit) from a worker goroutine.
func callTrial(fn TrialFunc, rng *rand.Rand, present bool) (v float64, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = 0, fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	v, err = fn(rng, present)
	if err == nil && math.IsNaN(v) {
		err = errors.New("NaN statistic")
	}
	return v, err
}

// hasFailed reports, under mu, whether a trial has failed.
func hasFailed(mu *sync.Mutex, failed *int) bool {
	mu.Lock()
	defer mu.Unlock()
	return *failed >= 0
}

// EpsilonLB returns the lower bound on ε from statistics s0 (runs on D)
// and s1 (runs on D′): the threshold is chosen on the first half of each
// sample, by the same bound computed there, and the rates are bounded on
// the second half with one-sided Clopper–Pearson bounds at
// 1 − (1 − confidence)/2 each. It returns 0 when nothing is detected, and
// an error when a sample has fewer than 2 values or holds a NaN, or
// delta ∉ [0, 1) or confidence ∉ (0, 1).
func EpsilonLB(s0, s1 []float64, delta, confidence float64) (float64, error) {
	switch {
	case len(s0) < 2 || len(s1) < 2:
		return 0, fmt.Errorf("audit: %d and %d statistics, want at least 2 on each input (half choose the threshold, half bound the rates)", len(s0), len(s1))
	case !(delta >= 0 && delta < 1):
		return 0, fmt.Errorf("audit: delta = %v, want in [0, 1)", delta)
	case !(confidence > 0 && confidence < 1):
		return 0, fmt.Errorf("audit: confidence = %v, want in (0, 1)", confidence)
	case hasNaN(s0) || hasNaN(s1):
		return 0, errors.New("audit: a statistic is NaN; the trial function must return a number")
	}
	h0, h1 := len(s0)/2, len(s1)/2
	a := (1 - confidence) / 2
	tau := bestThreshold(s0[:h0], s1[:h1], delta, a)
	return math.Max(boundAt(s0[h0:], s1[h1:], tau, delta, a), 0), nil
}

// hasNaN reports whether s holds a NaN.
func hasNaN(s []float64) bool {
	for _, v := range s {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}

// boundAt is ε_lb of the test "statistic ≥ tau means D′" on samples s0, s1.
func boundAt(s0, s1 []float64, tau, delta, a float64) float64 {
	fp, fn := 0, 0
	for _, v := range s0 {
		if v >= tau {
			fp++
		}
	}
	for _, v := range s1 {
		if v < tau {
			fn++
		}
	}
	fprHi, fnrHi := cpUpper(fp, len(s0), a), cpUpper(fn, len(s1), a)
	return math.Max(logRatio(1-delta-fnrHi, fprHi), logRatio(1-delta-fprHi, fnrHi))
}

// bestThreshold returns, among 200 quantiles of the pooled values, the
// threshold with the largest bound on these samples.
func bestThreshold(s0, s1 []float64, delta, a float64) float64 {
	pool := append(append([]float64(nil), s0...), s1...)
	sort.Float64s(pool)
	best, tau := math.Inf(-1), math.Inf(1)
	for k := 1; k < 200; k++ {
		c := pool[k*len(pool)/200]
		if e := boundAt(s0, s1, c, delta, a); e > best {
			best, tau = e, c
		}
	}
	return tau
}

// cpUpper is the one-sided Clopper–Pearson upper bound at level 1 − a on a
// binomial rate with k successes in n trials.
func cpUpper(k, n int, a float64) float64 {
	if k >= n {
		return 1
	}
	return distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - a)
}

// logRatio is log(num/den), −Inf when num ≤ 0.
func logRatio(num, den float64) float64 {
	if num <= 0 || den <= 0 {
		return math.Inf(-1)
	}
	return math.Log(num / den)
}
