package figures

import (
	"fmt"
	"math/rand/v2"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/audit"
	"github.com/featuredp/featuredp/notions/smoothdp"
)

// The empirical audit of a pre-processed pipeline (featuredp audit):
// deduplication, then the Gaussian mechanism on the processed dataset, on
// the pathological neighbours of the smooth-RDP paper, where replacing one
// record changes which records deduplication keeps.

func init() {
	audit.Register(dedupAuditSpec())
	audit.Register(quantizeAuditSpec())
}

const (
	dedupN, dedupD      = 200, 256
	dedupR, dedupFar    = 0.05, 0.9
	dedupDelta, dedupEp = 1e-5, 1.0
)

// dedupAuditSpec: the pipeline S ↦ |Dedup(S)| + N(0, σ²) (how many records
// deduplication keeps), σ calibrated (analytic Gaussian) for ε = 1 at
// sensitivity 1, as if deduplication were local (a replacement moves one
// record, so the count by at most 1). The real claim accounts for it: at
// most k records of the processed dataset change (the ℓ0 sensitivity of
// Dedup.Theory), so the count moves by at most k and ε is the analytic
// Gaussian's at sensitivity k. The control is the same pipeline under the
// naive claim ε = 1, which the attack must refute (on these neighbours the
// count falls from n to 1).
func dedupAuditSpec() audit.Spec {
	p := smoothdp.Dedup{Radius: dedupR, R: 1}
	st, err := pathologicalStat(p, dedupKept, 1)
	if err != nil {
		panic(err)
	}
	trial := gaussianShiftTrial(float64(st.v0), float64(st.v1), st.sigma, true) // fewer records kept suggests D′
	claimed := st.claimed
	return audit.Spec{Name: "smoothdp-dedup", Claimed: claimed, Delta: dedupDelta, Real: trial, Control: trial, ControlClaimed: dedupEp,
		Broken:     fmt.Sprintf("the naive claim ε = %g that treats deduplication as local", dedupEp),
		Neighbours: fmt.Sprintf("the smooth-RDP paper's pathological neighbours (replace one record; n = %d, d = %d)", dedupN, dedupD),
		Statistic:  "the released count of records kept by deduplication"}
}

// dedupKept is the number of records of S that deduplication fitted on S
// keeps.
func dedupKept(p smoothdp.Dedup, S [][]float64) int {
	f, err := p.Fit(S)
	if err != nil {
		panic(err)
	}
	n := 0
	for _, x := range S {
		if _, ok := f.Apply(x); ok {
			n++
		}
	}
	return n
}

// quantizeAuditSpec is dedupAuditSpec for quantisation (near-duplicates
// mapped to their cluster's representative, Dedup{Quantize: true}): the
// released statistic is the number of distinct processed records plus
// N(0, σ²), σ calibrated for ε = 1 at the naive sensitivity 2 (one
// replaced record adds or removes at most two distinct values); the real
// claim uses the ℓ0 sensitivity k of Dedup.Theory (at most k processed
// records change, so the count moves by at most k).
func quantizeAuditSpec() audit.Spec {
	p := smoothdp.Dedup{Radius: dedupR, R: 1, Quantize: true}
	st, err := pathologicalStat(p, distinctProcessed, 2)
	if err != nil {
		panic(err)
	}
	trial := gaussianShiftTrial(float64(st.v0), float64(st.v1), st.sigma, true)
	claimed := st.claimed
	return audit.Spec{Name: "smoothdp-quantize", Claimed: claimed, Delta: dedupDelta, Real: trial, Control: trial, ControlClaimed: dedupEp,
		Broken:     fmt.Sprintf("the naive claim ε = %g that treats quantisation as local", dedupEp),
		Neighbours: fmt.Sprintf("the smooth-RDP paper's pathological neighbours (replace one record; n = %d, d = %d)", dedupN, dedupD),
		Statistic:  "the released number of distinct records after quantisation"}
}

// distinctProcessed counts the distinct processed records of S.
func distinctProcessed(p smoothdp.Dedup, S [][]float64) int {
	f, err := p.Fit(S)
	if err != nil {
		panic(err)
	}
	seen := map[string]bool{}
	for _, x := range S {
		if y, ok := f.Apply(x); ok {
			seen[fmt.Sprint(y)] = true
		}
	}
	return len(seen)
}

// pathological is a count statistic of a deduplication variant on the
// paper's pathological neighbours with its release noise and claims.
type pathological struct {
	v0, v1         int     // the statistic on S and on S′
	sigma, claimed float64 // σ for ε = 1 at the naive sensitivity; the ε at Theory's k
}

// pathologicalStat evaluates stat on the pathological neighbours, σ
// calibrated (analytic Gaussian) for the naive ε at naiveSens, and the real
// claim: the ε at sensitivity k, the ℓ0 sensitivity of Dedup.Theory (at
// most k processed records change, so a count moves by at most k).
func pathologicalStat(p smoothdp.Dedup, stat func(smoothdp.Dedup, [][]float64) int, naiveSens float64) (pathological, error) {
	S, S2, err := PathologicalDedup(dedupN, dedupD, dedupR, dedupFar)
	if err != nil {
		return pathological{}, err
	}
	c1, _ := p.Describe(S)
	c2, _ := p.Describe(S2)
	k, _, err := p.Theory(c1.Merge(c2))
	if err != nil {
		return pathological{}, err
	}
	sigma, err := accounting.AnalyticGaussianSigma(dedupEp, dedupDelta, naiveSens)
	if err != nil {
		return pathological{}, err
	}
	claimed, err := accounting.GDPEpsilon(float64(k)/sigma, dedupDelta)
	if err != nil {
		return pathological{}, err
	}
	return pathological{v0: stat(p, S), v1: stat(p, S2), sigma: sigma, claimed: claimed}, nil
}

// gaussianShiftTrial releases v0 (on D) or v1 (on D′) plus N(0, σ²); with
// negate the statistic is the negated release (a smaller value suggests D′).
func gaussianShiftTrial(v0, v1, sigma float64, negate bool) audit.TrialFunc {
	return func(rng *rand.Rand, present bool) (float64, error) {
		v := v0
		if present {
			v = v1
		}
		v += sigma * rng.NormFloat64()
		if negate {
			v = -v
		}
		return v, nil
	}
}
