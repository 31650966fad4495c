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
// a deliberately broken control under the same claim (half the noise —
// of Laplace, the Gaussian, DP-SGD, Algorithm 1, CorrDP's σ0 —, BCDP's
// channel at three times its level, no noise on a coordinate or on a
// test, or the naive claim of a pipeline; Spec.Broken says which): a sound audit must flag it (control
// ε_lb > claimed ε), and what it flags is the coarsest fault it shows it
// can detect.
//
// The attack is what the threat model of the claim allows (Spec.Adversary
// says what it sees). For DP-SGD and Algorithm 1 the claim covers every
// iterate θ_t, so the adversary sees each noisy update and sums the
// per-step log-likelihood ratios (SubsampledGaussianLLR: the
// Neyman–Pearson test of the whole run), on Dirac canaries — each
// canary's clipped gradient is C·e_j, a coordinate no other record
// touches — so that one training run gives many independent trials
// (BatchFunc). The final model alone is a far weaker test: half the noise
// of DP-SGD (q = 0.1, z = 1, T = 100: ε ≈ 7 at δ = 1e-5 by a Monte Carlo
// of its privacy loss) gave ε_lb 1.8 at 2000 trials and 2.4 at 50,000
// against the claimed 2.58 (simulated steps); the per-step statistic
// needs about 10⁵ trials (3.3–3.7 at 2·10⁵ through the engine), which
// the canaries make affordable. ε_lb
// ≤ ε is not a proof of privacy; a flagged real mechanism is a bug. With N
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

// BatchFunc runs a mechanism once on D (present = false) or on D′
// (present = true) with randomness from rng, and fills out with len(out)
// statistics that are independent trials of the audited neighbouring
// pair (larger suggests D′): e.g. one training run with len(out) Dirac
// canaries, each in a coordinate no other record touches, so that per-
// example clipping, Poisson sampling and isotropic noise — as the
// mechanism is specified — treat each canary alone (Nasr et al. 2021,
// Sec. 5; Steinke, Nasr & Jagielski 2023 audit with many canaries in one
// run). The Clopper–Pearson bounds of EpsilonLB hold when the trials are
// independent; a BatchFunc must only be used where the mechanism, as
// specified, makes them so.
type BatchFunc func(rng *rand.Rand, present bool, out []float64) error

// Spec is one audited mechanism.
type Spec struct {
	// Name identifies the mechanism ("laplace", "dpsgd-multistep", …).
	Name string
	// Claimed is the ε the accountant claims at Delta for one run on
	// neighbours D, D′ (Delta 0: pure DP).
	Claimed, Delta float64
	// Real runs the mechanism as featuredp implements and accounts it.
	Real TrialFunc
	// RealBatch and ControlBatch, with PerRun > 1, replace Real and
	// Control: each run gives PerRun independent trials (see BatchFunc).
	RealBatch, ControlBatch BatchFunc
	PerRun                  int
	// ControlClaimed, if > 0, is the ε the control claims instead of
	// Claimed (e.g. a naive claim that ignores pre-processing).
	ControlClaimed float64
	// Control runs a deliberately broken version under the same claim,
	// which the audit must flag; Broken says how it is broken.
	Control TrialFunc
	Broken  string
	// Neighbours describes D and D′; Statistic the thresholded output.
	Neighbours, Statistic string
	// Adversary says what the attacker sees (the final model only, every
	// intermediate noisy update, …) and whether that is within the threat
	// model of the claimed ε.
	Adversary string
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
	// Adversary is what the attack sees: Spec.Adversary, else the
	// Statistic (of the released output: black box).
	Adversary string `json:"adversary,omitempty"`
	// MaxDetectable is the largest ε_lb these trials can give (every
	// guess on the test half right); Inconclusive reports a claim at or
	// above it: the real mechanism could not have been flagged, whatever
	// it leaks (more trials, or a smaller claim, make the audit bite).
	MaxDetectable float64 `json:"max_detectable_epsilon"`
	Inconclusive  bool    `json:"inconclusive"`
}

// Sees is what the attack of r sees, as reports print it: r.Adversary, or
// "the released output (black box)" for a record whose spec states neither
// an adversary nor a statistic.
func (r Record) Sees() string {
	if r.Adversary == "" {
		return "the released output (black box)"
	}
	return r.Adversary
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
	case s.PerRun < 0 || s.PerRun > MaxTrials:
		return fmt.Errorf("audit %s: PerRun = %d, want 0 or 1 (one trial per run: Real, Control) or more (RealBatch, ControlBatch), at most %d", s.Name, s.PerRun, MaxTrials)
	case s.PerRun > 1 && (s.RealBatch == nil || s.ControlBatch == nil):
		return fmt.Errorf("audit %s: PerRun = %d without a RealBatch or ControlBatch function; set both", s.Name, s.PerRun)
	case s.PerRun <= 1 && (s.Real == nil || s.Control == nil):
		return fmt.Errorf("audit %s: spec without a Real or Control trial function; set both (or RealBatch, ControlBatch and PerRun > 1)", s.Name)
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
	realFn, ctrlFn, k := s.batches()
	real, err := lowerBound(ctx, realFn, k, root.Derive("real"), s.Delta, o)
	if err != nil {
		return Record{}, fmt.Errorf("audit %s: %w", s.Name, err)
	}
	ctrl, err := lowerBound(ctx, ctrlFn, k, root.Derive("control"), s.Delta, o)
	if err != nil {
		return Record{}, fmt.Errorf("audit %s (control): %w", s.Name, err)
	}
	ctrlClaim := s.Claimed
	if s.ControlClaimed > 0 {
		ctrlClaim = s.ControlClaimed
	}
	most := MaxDetectable(o.Trials, s.Delta, o.Confidence)
	adversary := s.Adversary
	if adversary == "" && s.Statistic != "" {
		adversary = s.Statistic + " (black box)"
	}
	return Record{Mechanism: s.Name, ClaimedEpsilon: s.Claimed, Delta: s.Delta, EpsilonLB: real, ControlEpsilonLB: ctrl,
		ControlClaimedEpsilon: ctrlClaim, ControlFlagged: ctrl > ctrlClaim, Trials: o.Trials, Confidence: o.Confidence,
		Broken: s.Broken, Neighbours: s.Neighbours, Adversary: adversary, MaxDetectable: most, Inconclusive: s.Claimed >= most}, nil
}

// batches returns the spec's real and control runs as BatchFuncs and the
// trials per run (1 for Real and Control).
func (s Spec) batches() (real, ctrl BatchFunc, k int) {
	if s.PerRun > 1 {
		return s.RealBatch, s.ControlBatch, s.PerRun
	}
	return single(s.Real), single(s.Control), 1
}

// single is fn as a BatchFunc of one trial.
func single(fn TrialFunc) BatchFunc {
	return func(rng *rand.Rand, present bool, out []float64) error {
		v, err := fn(rng, present)
		out[0] = v
		return err
	}
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

// lowerBound runs fn until it has Trials statistics per input (⌈Trials/k⌉
// runs of k each; run r < runs on D, the others on D′, each on stream r,
// so k = 1 gives trial i stream i) and returns ε_lb. The first failing run
// (lowest index among those run) stops the dispatch and is the error
// returned, so a mechanism that always fails costs one batch of runs, not
// 2·Trials joined errors.
func lowerBound(ctx context.Context, fn BatchFunc, k int, st *mechanisms.Streams, delta float64, o Options) (float64, error) {
	n := o.Trials
	runs := (n + k - 1) / k
	out := make([]float64, 2*runs*k) // [0, runs·k): D; [runs·k, 2·runs·k): D′
	var mu sync.Mutex
	var first error
	failed := -1
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < o.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range next {
				if err := callRun(fn, st.Split(r).Noise(), r >= runs, out[r*k:(r+1)*k]); err != nil {
					mu.Lock()
					if failed < 0 || r < failed {
						failed, first = r, fmt.Errorf("%s: %w", runName(r, k), err)
					}
					mu.Unlock()
				}
			}
		}()
	}
	for r := 0; r < 2*runs && ctx.Err() == nil && !hasFailed(&mu, &failed); r++ {
		next <- r
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if first != nil {
		return 0, first
	}
	return EpsilonLB(out[:n], out[runs*k:runs*k+n], delta, o.Confidence)
}

// runName names run r of k trials in an error.
func runName(r, k int) string {
	if k == 1 {
		return fmt.Sprintf("trial %d", r)
	}
	return fmt.Sprintf("run %d (trials %d–%d)", r, r*k, (r+1)*k-1)
}

// callRun runs fn once into out, turning a NaN statistic or a panic (with
// its stack) into an error, so that a bug in a mechanism cannot take down
// the process (a notebook kernel: dpnb.Audit) from a worker goroutine.
func callRun(fn BatchFunc, rng *rand.Rand, present bool, out []float64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	if err = fn(rng, present, out); err == nil && hasNaN(out) {
		err = errors.New("NaN statistic")
	}
	return err
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
