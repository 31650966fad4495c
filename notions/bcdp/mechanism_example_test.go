package bcdp_test

import (
	"fmt"

	"github.com/featuredp/featuredp/mechanisms"
	"github.com/featuredp/featuredp/notions/bcdp"
)

// Mechanism 1 streamed over 1000 users with ±1 data, server estimate
// clipped to the box.
func ExampleNewMean() {
	a, _ := bcdp.Allocate([]float64{0.5, 2, 2}, 2, 0.05, bcdp.ZetaHeuristic(0.05))
	m, err := bcdp.NewMean(a.C, bcdp.MeanOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rng := mechanisms.NewStreams(1).Noise()
	sums := m.NewSums()
	for j := 0; j < 1000; j++ {
		if err := sums.Add(rng, []float64{1, -1, 1}); err != nil {
			fmt.Println(err)
			return
		}
	}
	est, _ := sums.Estimate(bcdp.ProjectBox)
	fmt.Println("rounds:", m.Rounds(), "users:", sums.N, "estimates in [-1,1]:", len(est) == 3)
	// Output:
	// rounds: [1 2] users: 1000 estimates in [-1,1]: true
}
