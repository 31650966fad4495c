package accounting_test

import (
	"fmt"

	"github.com/featuredp/featuredp/accounting"
)

// DP-SGD on 60000 records with batches of 2400 (q = 0.04) and noise
// multiplier 1.5 for 90 epochs (T = 2250 steps), then a fine-tuning phase
// with a different rate and noise: the accountant composes both.
func ExampleAccountant() {
	acc, err := accounting.NewAccountant(accounting.OrdersOpacus())
	if err != nil {
		panic(err)
	}
	if err := acc.Add(accounting.Phase{SampleRate: 0.04, NoiseMultiplier: 1.5, Steps: 2250}); err != nil {
		panic(err)
	}
	eps, order, _ := acc.Epsilon(1e-5, accounting.ConversionImproved)
	fmt.Printf("after phase 1: eps = %.4f (order %v)\n", eps, order)

	_ = acc.Add(accounting.Phase{SampleRate: 0.01, NoiseMultiplier: 2, Steps: 500})
	eps, order, _ = acc.Epsilon(1e-5, accounting.ConversionImproved)
	fmt.Printf("after phase 2: eps = %.4f (order %v)\n", eps, order)
	// Output:
	// after phase 1: eps = 7.3291 (order 3.9)
	// after phase 2: eps = 7.3570 (order 3.9)
}

// Opacus' get_noise_multiplier: bisection to ε-tolerance 0.01, so the result
// is conservative but not tight; NoiseMultiplier is the tight root.
func ExampleNoiseMultiplierOpacus() {
	z, err := accounting.NoiseMultiplierOpacus(8, 1e-5, 0.04, 2250)
	if err != nil {
		panic(err)
	}
	tight, _ := accounting.NoiseMultiplier(8, 1e-5, 0.04, 2250, nil, accounting.ConversionImproved)
	fmt.Println(z)
	fmt.Printf("tight: %.6f\n", tight)
	// Output:
	// 1.416015625
	// tight: 1.415787
}

// The tight (analytic) Gaussian mechanism needs less noise than the classic
// bound.
func ExampleAnalyticGaussianSigma() {
	sigma, err := accounting.AnalyticGaussianSigma(0.5, 1e-5, 1)
	if err != nil {
		panic(err)
	}
	classic, _ := accounting.ClassicGaussianSigma(0.5, 1e-5, 1)
	fmt.Printf("analytic %.6f, classic %.6f\n", sigma, classic)
	// Output:
	// analytic 7.031827, classic 9.689611
}

// A ledger composes different mechanisms under one neighbouring relation:
// a Laplace release (pure ε), a Gaussian release, DP-SGD (a subsampled
// Gaussian phase) and a zCDP query. Each is an RDP curve on the order
// grid; the best route here is the RDP one.
func ExampleLedger() {
	ar := accounting.RelationAddRemove
	L, err := accounting.NewLedger(ar, nil)
	if err != nil {
		panic(err)
	}
	laplace, _ := accounting.PureLoss(0.5, ar)
	gauss, _ := accounting.GaussianLoss(2, 1, ar)
	sgd, _ := accounting.SubsampledGaussianLoss(accounting.Phase{SampleRate: 0.02, NoiseMultiplier: 1, Steps: 500})
	zcdp, _ := accounting.ZCDPLoss(0.1, ar)
	for _, l := range []accounting.Loss{laplace, gauss, sgd, zcdp} {
		if err := L.Add(l); err != nil {
			panic(err)
		}
	}
	rep, err := L.Epsilon(1e-5, accounting.ConversionImproved)
	if err != nil {
		panic(err)
	}
	fmt.Printf("ε = %.4f at δ = %g by the %s route (order %v)\n", rep.Epsilon, rep.Delta, rep.Route, rep.Order)
	for _, e := range rep.Entries {
		fmt.Printf("  %-50s %s %.4f\n", e.Loss, e.Part, e.Value)
	}
	// Output:
	// ε = 4.7910 at δ = 1e-05 by the rdp route (order 5.2)
	//   pure ε=0.5 (add-remove)                            rdp 0.3893
	//   gaussian σ=2 Δ=1 (add-remove)                      rdp 0.6500
	//   subsampled_gaussian q=0.02 z=1 T=500 (add-remove)  rdp 1.0967
	//   zcdp ρ=0.1 (add-remove)                            rdp 0.5200
}
