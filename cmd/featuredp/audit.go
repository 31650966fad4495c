package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/featuredp/featuredp/audit"
)

func init() {
	register("audit", "empirical privacy audit: a distinguishing attack's ε lower bound beside the claimed ε", runAudit)
}

const auditUsage = `usage: featuredp audit [--json] [--trials N] [--seed S] [--only NAME,...]

Runs a distinguishing attack on every audited mechanism: the mechanism runs
many times on two neighbouring inputs, a threshold test on a statistic of its
output guesses which, and Clopper–Pearson bounds on the test's error rates
give ε_lb, a lower bound on the true ε at 95% confidence. A correct mechanism
and accountant give ε_lb ≤ the claimed ε (it is not a proof of privacy).
Every audit also runs a deliberately broken control (half the noise, a
channel at three times its level, no noise on a coordinate or a test, or a
naive claim) under the same claim, which must be flagged (control ε_lb >
claimed ε); it shows the coarsest fault that audit detects (the "control is"
column). Each attack sees what the claim's threat model allows, listed after
the table: the released value, or, for DP-SGD and Feature DP Algorithm 1
(whose ε covers every iterate), every noisy update θ_t of many Dirac
canaries trained at once (white box). N trials resolve an ε_lb of at most
about log(N/2): an audit whose claim is beyond that is marked inconclusive
(it could not flag the real mechanism; raise --trials). Each audit is at 95%
confidence on its own (no correction across audits). The exit status is 1 if
a real mechanism exceeds its claim or a control is not flagged.

flags:
`

func runAudit(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("featuredp audit", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print a JSON array of records")
	trials := intFlagOf(fs, "trials", 0, fmt.Sprintf("runs per input and mechanism `N`, %d to %d (default: each audit's own, ≥ 2000)", audit.MinTrials, audit.MaxTrials))
	seed := intFlagOf[uint64](fs, "seed", 1, "seed `S` of the trials (the audit is reproducible)")
	only := fs.String("only", "", "audit only these comma-separated `NAMES`")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, auditUsage)
			printDefaults(fs, stdout)
			return 0
		}
		fmt.Fprintf(stderr, "featuredp audit: %s\n", flagError(fs, err))
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "featuredp audit: unexpected argument %q (every input is a flag, and flags after it were not read; see featuredp audit --help)\n", fs.Arg(0))
		return 2
	}
	if *trials != 0 && (*trials < audit.MinTrials || *trials > audit.MaxTrials) {
		fmt.Fprintf(stderr, "featuredp audit: --trials %d: want %d ≤ N ≤ %d (every trial's statistic is kept in memory; 0 means each audit's own)\n",
			*trials, audit.MinTrials, audit.MaxTrials)
		return 2
	}
	specs, err := selectAudits(*only)
	if err != nil {
		fmt.Fprintf(stderr, "featuredp audit: %v\n", err)
		return 2
	}
	var recs []audit.Record
	bad := 0
	for _, s := range specs {
		r, err := audit.Run(context.Background(), s, audit.Options{Trials: *trials, Seed: *seed})
		if err != nil {
			fmt.Fprintf(stderr, "featuredp audit: %v\n", err)
			return 2
		}
		if !r.OK() {
			bad++
		}
		recs = append(recs, r)
	}
	printAudits(stdout, recs, *asJSON)
	if bad > 0 {
		fmt.Fprintf(stderr, "featuredp audit: %d of %d audits found a problem\n", bad, len(recs))
		return 1
	}
	return 0
}

// selectAudits resolves --only against the registered audits.
func selectAudits(only string) ([]audit.Spec, error) {
	all := audit.All()
	if only == "" {
		return all, nil
	}
	by := map[string]audit.Spec{}
	var names []string
	for _, s := range all {
		by[s.Name] = s
		names = append(names, s.Name)
	}
	var out []audit.Spec
	seen := map[string]bool{}
	for _, n := range strings.Split(only, ",") {
		s, ok := by[strings.TrimSpace(n)]
		if !ok {
			return nil, fmt.Errorf("--only: unknown audit %q (known: %s)", n, strings.Join(names, ", "))
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("--only: audit %q named twice", s.Name)
		}
		seen[s.Name] = true
		out = append(out, s)
	}
	return out, nil
}

func printAudits(w io.Writer, recs []audit.Record, asJSON bool) {
	if asJSON {
		b, _ := json.MarshalIndent(recs, "", "  ")
		fmt.Fprintln(w, string(b))
		return
	}
	fmt.Fprintf(w, "%-24s %10s %8s %8s %14s %10s %8s  %s\n", "mechanism", "claimed ε", "ε_lb", "max ε_lb", "control claims", "control", "flagged", "control is")
	for _, r := range recs {
		fmt.Fprintf(w, "%-24s %10.3f %8.3f %8.3f %14.3f %10.3f %8v  %s\n", r.Mechanism, r.ClaimedEpsilon, r.EpsilonLB, r.MaxDetectable, r.ControlClaimedEpsilon,
			r.ControlEpsilonLB, r.ControlFlagged, r.Broken)
	}
	fmt.Fprintln(w, "what each attack sees:")
	for _, r := range recs {
		fmt.Fprintf(w, "  %-24s %s\n", r.Mechanism, r.Sees())
	}
	fmt.Fprintln(w, auditVerdict(recs))
}

// auditVerdict sums the audits up in one line.
func auditVerdict(recs []audit.Record) string {
	var over, missed []string
	for _, r := range recs {
		if r.EpsilonLB > r.ClaimedEpsilon {
			over = append(over, r.Mechanism)
		}
		if !r.ControlFlagged {
			missed = append(missed, r.Mechanism)
		}
	}
	inconclusive := ""
	if names := inconclusiveAudits(recs); len(names) > 0 {
		inconclusive = fmt.Sprintf("; inconclusive (claim beyond what these trials resolve, the real mechanism could not be flagged): %s", strings.Join(names, ", "))
	}
	if len(over) == 0 && len(missed) == 0 {
		return fmt.Sprintf("verdict: %d mechanisms audited, every ε lower bound ≤ its claim, every broken control caught%s", len(recs), inconclusive)
	}
	v := fmt.Sprintf("verdict: %d mechanisms audited, PROBLEMS:", len(recs))
	if len(over) > 0 {
		v += fmt.Sprintf(" ε lower bound above the claim for %s;", strings.Join(over, ", "))
	}
	if len(missed) > 0 {
		v += fmt.Sprintf(" broken control not caught for %s;", strings.Join(missed, ", "))
	}
	return strings.TrimSuffix(v, ";") + inconclusive
}

// inconclusiveAudits names the audits whose claim no ε_lb could exceed.
func inconclusiveAudits(recs []audit.Record) []string {
	var names []string
	for _, r := range recs {
		if r.Inconclusive {
			names = append(names, r.Mechanism)
		}
	}
	return names
}
