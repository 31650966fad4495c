package mechanisms_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"slices"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/models"
)

// ExampleTrain runs DP-SGD (Poisson sampling, per-example clipping, noise
// multiplier z) on a tiny logistic-regression problem and prints the phase
// to hand to the accountant.
func ExampleTrain() {
	// 500 rows, 2 features, label = [x0 + x1 > 0].
	const n, d = 500, 2
	rng := mechanisms.NewStreams(1).Rand("data")
	x, y := make([]float64, n*d), make([]float64, n)
	for i := range n {
		x[2*i], x[2*i+1] = rng.NormFloat64(), rng.NormFloat64()
		if x[2*i]+x[2*i+1] > 0 {
			y[i] = 1
		}
	}
	data, err := design.NewData(x, y, n, d)
	if err != nil {
		log.Fatal(err)
	}
	model, err := models.NewLogistic(d, true, 0)
	if err != nil {
		log.Fatal(err)
	}

	const q, z, clip = 0.1, 1.1, 1.0
	plan, err := mechanisms.DPSGD(model.NumParams(), z, clip, q*n) // σ = zC/(qn)
	if err != nil {
		log.Fatal(err)
	}
	res, err := mechanisms.Train(context.Background(), mechanisms.Config{
		Model:     model,
		Data:      data,
		Steps:     300,
		Sampler:   mechanisms.Poisson{Rate: q},
		Clip:      mechanisms.ClipPerExample,
		ClipNorm:  clip,
		Noise:     plan,
		Optimizer: mechanisms.SGD{LR: 1},
		Seed:      42,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("phases: %+v\n", res.Phases)
	fmt.Printf("expected batch %.0f\n", res.ExpectedBatchSize)
	fmt.Println("accuracy above 0.9:", model.Evaluate(res.Theta, data).Accuracy > 0.9)
	// Output:
	// phases: [{SampleRate:0.1 NoiseMultiplier:1.1 Steps:300}]
	// expected batch 50
	// accuracy above 0.9: true
}

// ExampleNewStreams shows that a stream depends only on its path: grid
// cell 3's noise is the same whether or not other cells ran first.
func ExampleNewStreams() {
	root := mechanisms.NewStreams(2024)
	a := root.Split(3).Noise()

	other := root.Split(0).Noise()
	_ = other.Float64() // another cell draws first
	b := mechanisms.NewStreams(2024).Split(3).Noise()

	fmt.Println("same path, same numbers:", a.Uint64() == b.Uint64())
	fmt.Println("purposes are independent:", root.Noise().Uint64() != root.Sampling().Uint64())
	// Output:
	// same path, same numbers: true
	// purposes are independent: true
}

// ExampleFeatureWeights builds the CorrDP noise plan of corrdp.md §2.3–2.4
// for an MLP: the first-layer weights of the insensitive input 1 (TV = 0.25)
// and, in paper mode, the first-layer bias get variance σ0²·0.25; every other
// parameter gets σ0².
func ExampleFeatureWeights() {
	mlp, err := models.NewMLP(3, 2, 2, models.Softplus, models.HeadSoftmaxCE)
	if err != nil {
		log.Fatal(err)
	}
	w, err := mechanisms.FeatureWeights(mlp, []float64{1, 0.25, 1}, 0.25, 1)
	if err != nil {
		log.Fatal(err)
	}
	plan, err := mechanisms.Weighted(w, 2) // σ_j = σ0·√w_j with σ0 = 2
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("first layer:", plan.Std[:6])
	fmt.Println("b1:", plan.Std[6:8])
	fmt.Println("second layer:", plan.Std[8:])
	// Output:
	// first layer: [2 2 1 1 2 2]
	// b1: [1 1]
	// second layer: [2 2 2 2 2 2]
}

// ExampleLaplaceMechanism releases a count with sensitivity 1 at ε = 0.5.
func ExampleLaplaceMechanism() {
	rng := mechanisms.NewStreams(7).Noise()
	noisy, err := mechanisms.LaplaceMechanism(rng, []float64{120}, 1, 0.5)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("released one value:", len(noisy) == 1)
	_, err = mechanisms.LaplaceMechanism(rng, []float64{120}, 1, 0)
	fmt.Println(err)
	// Output:
	// released one value: true
	// mechanisms: LaplaceMechanism: ε = 0, want finite > 0
}

// ExampleTrainLockstep trains three full-batch DP gradient-descent runs
// (noise multipliers 0.5, 1 and 2) of one logistic model together: each
// step, one models.LogisticBlock pass over the data serves all three
// gradients. A run's θ is the same, bit for bit, as when it trains alone.
// The features lie in [0, 1]², so every example's gradient
// (σ(xᵀw+b) − y)·[x; 1] has L2 norm at most √3, the C of the DP-SGD noise
// plan with the whole data set as the batch. Without per-example clipping
// the engine reports no phase (Result.Phases is empty): that bound is the
// caller's to state, and each run is then 200 Gaussian-mechanism steps
// of noise multiplier z (sampling rate 1) for the accountant.
func ExampleTrainLockstep() {
	const n, d = 400, 2
	rng := mechanisms.NewStreams(1).Rand("data")
	x, y := make([]float64, n*d), make([]float64, n)
	for i := range n {
		x[2*i], x[2*i+1] = rng.Float64(), rng.Float64()
		if x[2*i]+x[2*i+1] > 1 {
			y[i] = 1
		}
	}
	data, err := design.NewData(x, y, n, d)
	if err != nil {
		log.Fatal(err)
	}
	model, err := models.NewLogistic(d, true, 0)
	if err != nil {
		log.Fatal(err)
	}
	block, err := models.NewLogisticBlock(model, data)
	if err != nil {
		log.Fatal(err)
	}
	var cfgs []mechanisms.Config
	for _, z := range []float64{0.5, 1, 2} {
		plan, err := mechanisms.DPSGD(model.NumParams(), z, math.Sqrt(3), n)
		if err != nil {
			log.Fatal(err)
		}
		cfgs = append(cfgs, mechanisms.Config{Model: model, Data: data, Steps: 200, Noise: plan,
			Optimizer: mechanisms.SGD{LR: 4}, Init: make([]float64, model.NumParams()), Seed: 7})
	}
	together, err := mechanisms.TrainLockstep(context.Background(), cfgs, block.GradSums)
	if err != nil {
		log.Fatal(err)
	}
	for k, cfg := range cfgs {
		alone, err := mechanisms.TrainLockstep(context.Background(), cfgs[k:k+1], block.GradSums)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("z = %.1f: accuracy above 0.9: %v, same θ alone: %v\n", cfg.Noise.Multiplier,
			model.Evaluate(together[k].Theta, data).Accuracy > 0.9, slices.Equal(together[k].Theta, alone[0].Theta))
	}
	// Output:
	// z = 0.5: accuracy above 0.9: true, same θ alone: true
	// z = 1.0: accuracy above 0.9: true, same θ alone: true
	// z = 2.0: accuracy above 0.9: true, same θ alone: true
}
