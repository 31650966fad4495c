package models_test

import (
	"fmt"
	"log"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
)

// ExampleLogistic fits a logistic regression by full-batch gradient descent
// on a tiny separable dataset.
func ExampleLogistic() {
	// Four rows, one feature; label 1 iff x > 0.
	data, err := design.NewData([]float64{-2, -1, 1, 2}, []float64{0, 0, 1, 1}, 4, 1)
	if err != nil {
		log.Fatal(err)
	}
	m, err := models.NewLogistic(1, true, 0.01) // intercept, (0.01/2)‖w‖² per example
	if err != nil {
		log.Fatal(err)
	}
	if err := m.CheckLabels(data); err != nil {
		log.Fatal(err)
	}
	theta := make([]float64, m.NumParams()) // [w, b]
	m.Init(theta, nil)                      // zeros
	grad := make([]float64, m.NumParams())
	for range 200 {
		clear(grad)
		m.GradSum(theta, data, nil, grad)
		for j := range theta {
			theta[j] -= 0.5 * grad[j] / float64(data.N)
		}
	}
	ev := m.Evaluate(theta, data)
	fmt.Printf("accuracy %.2f, loss %.3f, P(y=1|x=1) = %.3f\n", ev.Accuracy, ev.Loss, m.Predict(theta, []float64{1}))
	// Output: accuracy 1.00, loss 0.070, P(y=1|x=1) = 0.947
}

// ExampleMLP builds a Softplus MLP with a softmax head, initialises it the
// PyTorch way from an explicit seed and computes per-example gradients and
// their (ghost) norms.
func ExampleMLP() {
	m, err := models.NewMLP(3, 4, 2, models.Softplus, models.HeadSoftmaxCE)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("params:", m.NumParams())              // 3·4 + 4 + 4·2 + 2
	fmt.Println("feature 1 owns:", m.FeatureParams(1)) // W1[1, :]
	fmt.Println("first-layer bias:", m.FirstLayerBiasParams())

	theta := make([]float64, m.NumParams())
	m.Init(theta, rand.New(rand.NewPCG(1, 2)))
	data, err := design.NewData([]float64{1, 0, -1, 0.5, 2, 0}, []float64{1, 0}, 2, 3)
	if err != nil {
		log.Fatal(err)
	}
	per := make([]float64, 2*m.NumParams())
	m.PerExampleGrads(theta, data, nil, per)
	norms := make([]float64, 2)
	m.PerExampleGradNorms(theta, data, nil, norms)
	fmt.Printf("norm of example 0: %.6f (ghost) vs %.6f (materialised)\n", norms[0], l2(per[:m.NumParams()]))
	// Output:
	// params: 26
	// feature 1 owns: [4 5 6 7]
	// first-layer bias: [12 13 14 15]
	// norm of example 0: 1.778949 (ghost) vs 1.778949 (materialised)
}

// ExampleLinear_Solve computes the CorrDP paper's ridge reference
// θ̂ = (XᵀX + I)⁻¹Xᵀy and checks that the sufficient-statistics gradient
// vanishes there.
func ExampleLinear_Solve() {
	data, err := design.NewData([]float64{1, 0, 0, 1, 1, 1}, []float64{1, 2, 3}, 3, 2)
	if err != nil {
		log.Fatal(err)
	}
	m, err := models.NewLinear(2, false, 1) // ℓ = (θᵀx − y)² + (1/n)‖θ‖²
	if err != nil {
		log.Fatal(err)
	}
	theta, err := m.Solve(data)
	if err != nil {
		log.Fatal(err)
	}
	stats, err := models.NewLinearStats(data)
	if err != nil {
		log.Fatal(err)
	}
	g := make([]float64, m.NumParams())
	stats.Grad(m, theta, g) // (2/n)(Gθ − Xᵀy + λθ)
	fmt.Printf("θ̂ = [%.4f %.4f], ‖∇F(θ̂)‖ < 1e-12: %v\n", theta[0], theta[1], l2(g) < 1e-12)
	// Output: θ̂ = [0.8750 1.3750], ‖∇F(θ̂)‖ < 1e-12: true
}

func l2(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// The feature-DP paper's diffusion stand-in: a class-conditional DDPM on
// 14×14 images. Its loss draws (t, ε) per row from its key; the training
// engine renews the key every step (Stochastic).
func ExampleNewDDPM() {
	m, err := models.NewDDPM(196, 10, 256, 32, 200, 1e-4, 0.02)
	if err != nil {
		panic(err)
	}
	fmt.Println("parameters:", m.NumParams())
	fmt.Printf("β from %.4f to %.2f, ᾱ_T = %.3f\n", m.Beta(0), m.Beta(199), m.AlphaBar(199))
	eps := make([]float64, 196)
	t1 := m.WithKey(7).(*models.DDPM).Draw(3, eps)
	t2 := m.WithKey(7).(*models.DDPM).Draw(3, eps)
	fmt.Println("same key and row, same draw:", t1 == t2)
	// Output:
	// parameters: 177348
	// β from 0.0001 to 0.02, ᾱ_T = 0.132
	// same key and row, same draw: true
}
