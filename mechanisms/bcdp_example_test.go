package mechanisms_test

import (
	"fmt"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/mechanisms"
)

// Mechanism 1 streamed over 1000 users with ±1 data, server estimate
// clipped to the box.
func ExampleNewBCDPMean() {
	a, _ := accounting.BCDPAllocate([]float64{0.5, 2, 2}, 2, 0.05, accounting.BCDPZetaHeuristic(0.05))
	m, err := mechanisms.NewBCDPMean(a.C, mechanisms.BCDPMeanOptions{})
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
	est, _ := sums.Estimate(mechanisms.BCDPProjectBox)
	fmt.Println("rounds:", m.Rounds(), "users:", sums.N, "estimates in [-1,1]:", len(est) == 3)
	// Output:
	// rounds: [1 2] users: 1000 estimates in [-1,1]: true
}
