package bcdp_test

import (
	"fmt"

	"github.com/featuredp/featuredp/notions/bcdp"
)

// The Theorem 2 allocation for the paper's Figure 3 demand at q = 0.1 with
// the heuristic ζ = (1+q)/2, and its exact predicted error for n = 10 000.
func ExampleAllocate() {
	delta := []float64{0.2, 0.2, 2, 2, 2, 2, 2, 2, 2, 2}
	a, err := bcdp.Allocate(delta, 2, 0.1, bcdp.ZetaHeuristic(0.1))
	if err != nil {
		fmt.Println(err)
		return
	}
	mse, _, _ := bcdp.PredictedMSE(a.Sorted, 10000, bcdp.MSEOptions{})
	fmt.Printf("c1 = %.4f, cd = %.4f, LDP level %.4f, predicted MSE %.4f\n", a.C[0], a.C[9], a.LDP, mse)
	// Output:
	// c1 = 0.0900, cd = 0.7714, LDP level 0.7714, predicted MSE 1.5633
}

// The paper's Example 1 (a two-bit channel that never outputs 1 at x =
// (0, 1)): BCDP without LDP.
func ExampleExact() {
	m, _ := bcdp.TwoBitChannel([4]float64{0.5, 0.5, 0, 0.5})
	d, _ := bcdp.Exact(m)
	eps, _ := bcdp.LDPExact(m)
	fmt.Printf("δ* = (%.6f, %.6f), LDP ε* = %v\n", d[0], d[1], eps)
	// Output:
	// δ* = (0.693147, 0.693147), LDP ε* = +Inf
}
