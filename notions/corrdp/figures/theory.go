package figures

import (
	"fmt"
	"math"
	"slices"

	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/notions/corrdp"
)

// TheoryPoint sets the measured utility gaps of one ε of a synthetic figure
// (corrdp-fig1a, corrdp-fig2a–d) beside Theorems 3.9 and 3.12.
type TheoryPoint struct {
	Eps float64
	// Measured mean gaps over the seeds, and the non-private GD residual.
	Standard, CorrDP, Semi, Residual float64
	// TVMean is the mean TV~ of the insensitive coordinates CorrDP used.
	TVMean float64
	// RateCorrDP and RateStandard are Thm 3.9's rates (corrdp.UtilityRate, the
	// corrected sum, constants and log factors omitted) with TV~ = TVMean,
	// and Lower is Thm 3.12's lower bound min{1, √(m_s + M)/(nε)}.
	RateCorrDP, RateStandard, Lower float64
	// RateRatio is RateCorrDP/RateStandard; GapRatio is the measured
	// √((CorrDP − Residual)/(Standard − Residual)). The gap of a
	// quadratic under constant-step GD grows with the noise energy Σσ²
	// (corrdp.StationaryGap), a rate with its square root, so the two ratios
	// compare like with like.
	RateRatio, GapRatio float64
}

// TheoryBeside computes, for every ε of the results of a synthetic figure
// with settings set, the measured gaps beside Thm 3.9's rates and Thm
// 3.12's lower bound. Rows must hold the figure's variants (Standard,
// CorrDP with c2 = 1, Semi, NonPrivate) and CorrDP's tv_mean column.
func TheoryBeside(res *experiments.Results, set SyntheticSettings) ([]TheoryPoint, error) {
	if res == nil || len(res.Rows) == 0 {
		return nil, fmt.Errorf("corrdp: TheoryBeside: no results")
	}
	type key struct {
		method string
		x      float64
	}
	sum, cnt, tv, tvN := map[key]float64{}, map[key]float64{}, map[float64]float64{}, map[float64]float64{}
	var xs []float64
	for _, r := range res.Rows {
		if r.Metric != "utility_gap" {
			continue
		}
		k := key{r.Method, r.X}
		sum[k] += r.Value
		cnt[k]++
		if r.Method == VariantCorrDP.String() {
			if v, ok := r.Number("tv_mean"); ok {
				tv[r.X] += v
				tvN[r.X]++
			}
			if !slices.Contains(xs, r.X) {
				xs = append(xs, r.X)
			}
		}
	}
	mean := func(m string, x float64) (float64, error) {
		k := key{m, x}
		if cnt[k] == 0 {
			return 0, fmt.Errorf("corrdp: TheoryBeside: no %s gap at ε = %v", m, x)
		}
		return sum[k] / cnt[k], nil
	}
	var resid float64
	for k, c := range cnt {
		if k.method == VariantNonPrivate.String() {
			resid = sum[k] / c
		}
	}
	slices.Sort(xs)
	out := make([]TheoryPoint, 0, len(xs))
	for _, x := range xs {
		p := TheoryPoint{Eps: x, Residual: resid}
		var err error
		if p.Standard, err = mean(VariantStandard.String(), x); err != nil {
			return nil, err
		}
		if p.CorrDP, err = mean(VariantCorrDP.String(), x); err != nil {
			return nil, err
		}
		if p.Semi, err = mean(VariantSemi.String(), x); err != nil {
			return nil, err
		}
		if tvN[x] == 0 {
			return nil, fmt.Errorf("corrdp: TheoryBeside: no tv_mean at ε = %v", x)
		}
		p.TVMean = tv[x] / tvN[x]
		tvU := make([]float64, set.M-set.Ms)
		for i := range tvU {
			tvU[i] = p.TVMean
		}
		if p.RateCorrDP, _, p.RateStandard, err = corrdp.UtilityRate(set.Ms, tvU, x, set.Delta, set.N); err != nil {
			return nil, err
		}
		if p.Lower, _, err = corrdp.LowerBound(set.Ms, tvU, x, set.N); err != nil {
			return nil, err
		}
		p.RateRatio = p.RateCorrDP / p.RateStandard
		p.GapRatio = math.Sqrt((p.CorrDP - resid) / (p.Standard - resid))
		out = append(out, p)
	}
	return out, nil
}
