package dpnb

import (
	"context"
	"fmt"
	"strings"

	"github.com/featuredp/featuredp/audit"
	"github.com/featuredp/featuredp/experiments"
	"github.com/go-gota/gota/dataframe"
	auditseries "github.com/go-gota/gota/series"
	"gonum.org/v1/plot"
)

// AuditOptions configure Audit: the mechanisms (Only, by name; nil: every
// registered audit; empty or an unknown name: an error listing the names)
// and the trials (see audit.Options).
type AuditOptions struct {
	Only []string
	audit.Options
}

// AuditResult holds one record per audited mechanism; it renders itself as
// a table, a bar plot and markdown (nb.Renderable).
type AuditResult struct {
	Records []audit.Record
}

// Audit runs the empirical privacy audit of featuredp's mechanisms (the
// `featuredp audit` command): for each, a distinguishing attack's lower
// bound ε_lb beside the claimed ε, the largest ε_lb its trials can show
// (a claim at or beyond it is inconclusive), and the broken control's (see
// package audit).
func Audit(ctx context.Context, opts AuditOptions) (*AuditResult, error) {
	specs := audit.All()
	if opts.Only != nil {
		by := map[string]audit.Spec{}
		names := make([]string, len(specs))
		for i, s := range specs {
			by[s.Name] = s
			names[i] = s.Name
		}
		if len(opts.Only) == 0 {
			return nil, fmt.Errorf("dpnb: Audit: Only is empty, so nothing would be audited: name mechanisms (%s), or leave Only nil to audit every one", strings.Join(names, ", "))
		}
		specs = nil
		for _, n := range opts.Only {
			s, ok := by[n]
			if !ok {
				return nil, fmt.Errorf("dpnb: Audit: unknown mechanism %q in Only: want one of %s", n, strings.Join(names, ", "))
			}
			specs = append(specs, s)
		}
	}
	res := &AuditResult{}
	for _, s := range specs {
		r, err := audit.Run(ctx, s, opts.Options)
		if err != nil {
			return nil, fmt.Errorf("dpnb: Audit: %w", err)
		}
		res.Records = append(res.Records, r)
	}
	return res, nil
}

// Markdown is the audit table with a verdict per mechanism: ok, problem
// (ε_lb above the claim, or the broken control not flagged), or
// inconclusive when the claim is at or beyond the largest ε_lb the trials
// can show (audit.Record.Inconclusive: the real mechanism could not have
// been flagged, as featuredp audit says); then, as featuredp audit lists
// it, what each attack sees (audit.Record.Sees: the released output in black
// box, or every iterate θ_t in white box for DP-SGD and Algorithm 1).
// A nil receiver renders a line naming the fix.
func (r *AuditResult) Markdown() string {
	if r == nil {
		return nilMarkdown("AuditResult", "Audit")
	}
	var b strings.Builder
	b.WriteString("| mechanism | claimed ε | ε_lb (95%) | max ε_lb | control claims | control ε_lb | control flagged | verdict |\n|---|---:|---:|---:|---:|---:|---|---|\n")
	for _, x := range r.Records {
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %v | %s |\n", x.Mechanism, x.ClaimedEpsilon, x.EpsilonLB, x.MaxDetectable,
			x.ControlClaimedEpsilon, x.ControlEpsilonLB, x.ControlFlagged, auditVerdict(x))
	}
	b.WriteString("\nmax ε_lb is the largest lower bound these trials can give; a claim at or beyond it is inconclusive " +
		"(the real mechanism could not be flagged whatever it leaks: raise the trials).\n")
	if len(r.Records) > 0 {
		b.WriteString("\nWhat each attack sees (docs/accounting.md, \"The empirical audit\"):\n\n")
	}
	for _, x := range r.Records {
		fmt.Fprintf(&b, "- %s: %s\n", mdCell(x.Mechanism), mdCell(x.Sees()))
	}
	return b.String()
}

// auditVerdict is one record's verdict.
func auditVerdict(x audit.Record) string {
	switch {
	case !x.OK():
		return "**problem**"
	case x.Inconclusive:
		return "inconclusive (claim ≥ max ε_lb)"
	}
	return "ok"
}

// Table returns the records as a DataFrame, with the largest ε_lb the
// trials can show, whether the audit was inconclusive, and what the attack
// sees (column adversary: audit.Record.Sees).
// A nil receiver gives an empty DataFrame whose Err names the fix.
func (r *AuditResult) Table() dataframe.DataFrame {
	if r == nil {
		return nilTable("AuditResult", "Audit")
	}
	var names, broken, sees []string
	var claimed, lb, ctrl, most []float64
	var inconclusive []bool
	for _, x := range r.Records {
		names, broken, sees = append(names, x.Mechanism), append(broken, x.Broken), append(sees, x.Sees())
		claimed, lb, ctrl = append(claimed, x.ClaimedEpsilon), append(lb, x.EpsilonLB), append(ctrl, x.ControlEpsilonLB)
		most, inconclusive = append(most, x.MaxDetectable), append(inconclusive, x.Inconclusive)
	}
	return dataframe.New(auditseries.New(names, auditseries.String, "mechanism"),
		auditseries.New(claimed, auditseries.Float, "claimed_epsilon"), auditseries.New(lb, auditseries.Float, "epsilon_lb"),
		auditseries.New(most, auditseries.Float, "max_detectable_epsilon"), auditseries.New(inconclusive, auditseries.Bool, "inconclusive"),
		auditseries.New(ctrl, auditseries.Float, "control_epsilon_lb"), auditseries.New(broken, auditseries.String, "control"),
		auditseries.New(sees, auditseries.String, "adversary"))
}

// Plot draws claimed ε, ε_lb and the control's ε_lb per mechanism.
// A nil receiver is an error naming the fix.
func (r *AuditResult) Plot() (*plot.Plot, error) {
	if r == nil {
		return nil, errNilResult("AuditResult", "Audit")
	}
	var sums []experiments.Summary
	for i, x := range r.Records {
		for _, s := range []struct {
			m string
			v float64
		}{{"claimed ε", x.ClaimedEpsilon}, {"ε_lb", x.EpsilonLB}, {"control ε_lb", x.ControlEpsilonLB}} {
			sums = append(sums, experiments.Summary{Method: s.m, X: float64(i), Metric: "epsilon", Mean: s.v, N: 1})
		}
	}
	return BarPlot(sums, BarOptions{Title: "Empirical audit: ε lower bounds vs claims", YLabel: "ε", Metric: "epsilon",
		Band: BandNone, XFormat: func(x float64) string { return r.Records[int(x)].Mechanism }})
}
