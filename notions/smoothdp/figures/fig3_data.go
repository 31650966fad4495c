package figures

import (
	"context"
	"fmt"
	"math"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/experiments"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
	"github.com/featuredp/featuredp/notions/smoothdp"
)

// fig3Dataset returns the Figure 3 dataset of replicate rep. It is
// deterministic in the key, so every cell of the run shares it through
// env.Memo (a nil Memo builds it afresh).
func fig3Dataset(ctx context.Context, env experiments.Env, set fig3Setting, rep int) (*fig3Data, error) {
	key := fmt.Sprintf("smoothdp-fig3/n=%d/d=%d/s=%d/steps=%d/B=%g/rep=%d", set.n, set.d, set.s, set.steps, set.b, rep)
	v, err := env.Memo.Do(key, func() (any, error) { return buildFig3Dataset(ctx, set, rep) })
	if err != nil {
		return nil, err
	}
	return v.(*fig3Data), nil
}

// fig3Sample draws the low-rank points S (spectrum 0.45, 0.45, then 0.10,
// rows clipped to R = 1) and logistic labels with θ* = 5 · a unit vector in
// the top-2 span.
func fig3Sample(set fig3Setting, rep int) ([][]float64, *design.Data, error) {
	st := mechanisms.NewStreams(experiments.CellSeed(0, "smoothdp-fig3", "data", float64(set.d), rep))
	rng := st.Rand("data")
	top := []float64{0.45, 0.45}
	S, basis, err := LowRank(rng, set.n, set.d, top, 0.10, 1)
	if err != nil {
		return nil, nil, err
	}
	// θ* = 5 · unit vector in the top-2 span.
	a, b := rng.NormFloat64(), rng.NormFloat64()
	nr := math.Hypot(a, b)
	theta := make([]float64, set.d)
	for j := range theta {
		theta[j] = 5 * (a*basis.At(j, 0) + b*basis.At(j, 1)) / nr
	}
	x := make([]float64, 0, set.n*set.d)
	y := make([]float64, set.n)
	lab := st.Rand("labels")
	for i, r := range S {
		x = append(x, r...)
		z := 0.0
		for j, v := range r {
			z += v * theta[j]
		}
		if lab.Float64() < 1/(1+math.Exp(-z)) {
			y[i] = 1
		}
	}
	raw, err := design.NewData(x, y, set.n, set.d)
	return S, raw, err
}

// buildFig3Dataset draws the data, fits the non-private PCA and trains the
// non-private reference (projected gradient descent, 1500 steps).
func buildFig3Dataset(ctx context.Context, set fig3Setting, rep int) (*fig3Data, error) {
	S, raw, err := fig3Sample(set, rep)
	if err != nil {
		return nil, err
	}
	pca := smoothdp.PCA{Rank: set.s, R: 1}
	fit, err := pca.FitPCA(S)
	if err != nil {
		return nil, err
	}
	out := &fig3Data{raw: raw, fit: fit, gap: fit.Values[set.s-1] - fit.Values[set.s]}
	out.dimFit = &smoothdp.PCAFit{V: fit.V, Values: fit.Values, Dim: true}
	// Non-private reference: projected gradient descent, step 1/β_θ = 4.
	model, _ := models.NewLogistic(set.d, false, 0)
	res, err := mechanisms.Train(ctx, mechanisms.Config{Model: model, Data: raw, Init: make([]float64, set.d), Steps: 1500,
		Optimizer: mechanisms.SGD{LR: 4}, ProjectRadius: set.b})
	if err != nil {
		return nil, fmt.Errorf("non-private reference: %w", err)
	}
	out.lstar = model.Loss(res.Theta, raw, nil)
	return out, nil
}
