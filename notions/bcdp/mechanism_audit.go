package bcdp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/internal/valid"
)

// Release runs Mechanism 1 on one record x ∈ [−1,1]^d (caller's order) and
// returns the raw release: one vector Y^k per round that runs (in the order
// of Rounds()), Y^k ∈ R^{D_k} estimating the sorted suffix x_{k:d}. This is
// the object whose privacy Theorem 2 accounts for; the per-user
// estimate ν̂ is post-processing of it.
func (m *Mean) Release(rng *rand.Rand, x []float64) ([][]float64, error) {
	if m == nil {
		return nil, errNil("release", "Mean", "NewMean or NewBaseline")
	}
	if rng == nil {
		return nil, errors.New("bcdp: release: nil random source")
	}
	if err := checkRecord(x, m.d); err != nil {
		return nil, err
	}
	xs := make([]float64, m.d)
	for k, i := range m.perm {
		xs[k] = x[i]
	}
	out := make([][]float64, len(m.rounds))
	for ri, r := range m.rounds {
		v := xs[r.k:]
		n2 := 0.0
		for _, t := range v {
			n2 += t * t
		}
		out[ri] = make([]float64, r.ch.D)
		r.ch.add(rng, v, math.Sqrt(n2), out[ri], 1)
	}
	return out, nil
}

// checkSignDomain checks that every record of domain has m's d coordinates,
// each ±1 (the records MeanAuditMC's sign likelihood is exact for).
func (m *Mean) checkSignDomain(domain [][]float64) error {
	for x, rec := range domain {
		if len(rec) != m.d {
			return fmt.Errorf("bcdp: audit: domain[%d] has %d coordinates, want the mechanism's %d", x, len(rec), m.d)
		}
		for i, v := range rec {
			if v != 1 && v != -1 {
				return fmt.Errorf("bcdp: audit: domain[%d][%d] = %v, want ±1 (the audit's likelihood is exact for sign data only)", x, i, v)
			}
		}
	}
	return nil
}

// SignLogLikelihood returns log p(y | x) up to an additive constant that does
// not depend on x, for a record x ∈ {−1,+1}^d (caller's order) and a release
// y (as returned by Release) [ext]. For ±1 data ‖x_{k:d}‖ = r_k, so
// ṽ = x_{k:d} and the density of Y^k is proportional to e^{α_k}/(e^{α_k}+1)
// on the half-sphere ⟨Y^k, x_{k:d}⟩ > 0 and to 1/(e^{α_k}+1) on the other;
// hence log p(y|x) = Σ_k [α_k·1{⟨Y^k, x_{k:d}⟩ > 0}] + const. Ratios of these
// likelihoods are exact likelihood ratios of the mechanism.
func (m *Mean) SignLogLikelihood(y [][]float64, x []float64) (float64, error) {
	if m == nil {
		return 0, errNil("likelihood", "Mean", "NewMean or NewBaseline")
	}
	if len(y) != len(m.rounds) {
		return 0, fmt.Errorf("bcdp: likelihood: release has %d rounds, want %d", len(y), len(m.rounds))
	}
	if len(x) != m.d {
		return 0, fmt.Errorf("bcdp: likelihood: record has %d coordinates, want %d", len(x), m.d)
	}
	for i, v := range x {
		if v != 1 && v != -1 {
			return 0, fmt.Errorf("bcdp: likelihood: x[%d] = %v, the sign likelihood needs ±1 data", i, v)
		}
	}
	ll := 0.0
	for ri, r := range m.rounds {
		if len(y[ri]) != r.ch.D {
			return 0, fmt.Errorf("bcdp: likelihood: round %d has %d coordinates, want %d", ri, len(y[ri]), r.ch.D)
		}
		dot := 0.0
		for j, t := range y[ri] {
			dot += t * x[m.perm[r.k+j]]
		}
		if dot > 0 {
			ll += r.ch.Alpha
		}
	}
	return ll, nil
}

// MeanAuditMC is a Monte Carlo LOWER bound on the BCDP levels δ_i* of
// Mechanism 1 under a prior on {−1,+1}^d [ext, check 21]: it
// draws n releases (records from the prior, mechanism noise from rng), and for
// every release y and coordinate i computes the exact log ratio
// log P(y | x_i=+1)/P(y | x_i=−1) with P(y | x_i=a) = Σ_{x: x_i=a} π(x|x_i=a)
// p(y|x) (SignLogLikelihood); the maximum absolute value over the sampled
// outputs is ≤ δ_i*. domain lists ±1 records (caller's order) and prior their
// probabilities. Cost: n · |domain| · (rounds · d).
func MeanAuditMC(m *Mean, domain [][]float64, prior []float64, n int, rng *rand.Rand) ([]float64, error) {
	if m == nil {
		return nil, errors.New("bcdp: audit: nil mechanism (build it with NewMean or NewBaseline)")
	}
	if rng == nil {
		return nil, errors.New("bcdp: audit: nil random source")
	}
	if n < 1 || len(domain) == 0 || len(domain) != len(prior) {
		return nil, fmt.Errorf("bcdp: audit: need n ≥ 1 and a non-empty domain with one probability per point (n=%d, %d points, %d probabilities)", n, len(domain), len(prior))
	}
	if err := m.checkSignDomain(domain); err != nil {
		return nil, err
	}
	cum := make([]float64, len(prior))
	total := 0.0
	for i, p := range prior {
		if err := valid.NonNegative(fmt.Sprintf("prior[%d]", i), p); err != nil {
			return nil, fmt.Errorf("bcdp: audit: %w", err)
		}
		total += p
		cum[i] = total
	}
	if math.Abs(total-1) > 1e-9 {
		return nil, fmt.Errorf("bcdp: audit: prior sums to %v, want 1", total)
	}
	d := m.d
	// marginal masses of x_i = ±1
	mass := make([][2]float64, d)
	for x, p := range prior {
		for i := 0; i < d; i++ {
			if domain[x][i] > 0 {
				mass[i][1] += p
			} else {
				mass[i][0] += p
			}
		}
	}
	out := make([]float64, d)
	ll := make([]float64, len(domain))
	for s := 0; s < n; s++ {
		u := rng.Float64()
		xi := 0
		for xi < len(cum)-1 && cum[xi] <= u {
			xi++
		}
		y, err := m.Release(rng, domain[xi])
		if err != nil {
			return nil, err
		}
		mx := math.Inf(-1)
		for x := range domain {
			if ll[x], err = m.SignLogLikelihood(y, domain[x]); err != nil {
				return nil, err
			}
			mx = math.Max(mx, ll[x])
		}
		for i := 0; i < d; i++ {
			if mass[i][0] == 0 || mass[i][1] == 0 {
				continue
			}
			var p [2]float64
			for x, px := range prior {
				b := 0
				if domain[x][i] > 0 {
					b = 1
				}
				p[b] += px * math.Exp(ll[x]-mx)
			}
			r := math.Abs(math.Log((p[1] / mass[i][1]) / (p[0] / mass[i][0])))
			out[i] = math.Max(out[i], r)
		}
	}
	return out, nil
}
