package release_test

import (
	"fmt"

	"github.com/featuredp/featuredp/accounting"
	"github.com/featuredp/featuredp/release"
)

// A certificate is read off the ledger that composed the training's
// losses: here 500 Poisson-subsampled Gaussian steps (q = 0.01, z = 1.1)
// of Algorithm 1, under feature DP's simulator relation (the same ε as
// `featuredp epsilon --sample-rate 0.01 --noise-multiplier 1.1 --steps 500`).
func ExampleNew() {
	l, _ := accounting.NewLedger(accounting.RelationFeatureSimulator, accounting.DefaultOrders())
	loss, _ := accounting.SubsampledGaussianLoss(accounting.Phase{SampleRate: 0.01, NoiseMultiplier: 1.1, Steps: 500})
	loss, _ = loss.ChangeRelation(accounting.RelationFeatureSimulator)
	if err := l.Add(loss); err != nil {
		fmt.Println(err)
		return
	}
	c, err := release.New(l, 1e-5, accounting.DefaultConversion, release.Spec{
		Notion: release.FeatureDP, Protected: []string{"income"}, Public: []string{"age", "sex"}, Label: "y",
		TargetEpsilon: 2, Secure: true,
		Training: release.Training{Model: release.KindLogistic, Sampling: "Poisson", SampleRate: 0.01, Steps: 500, NoiseMultiplier: 1.1, ClipNorm: 1},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("ε = %.4f at order %g, private release: %v\n", c.Epsilon, c.Accounting.Order, c.PrivateRelease)
	fmt.Println(c.Statement)
	// Output:
	// ε = 1.3209 at order 10.1, private release: true
	// (ε = 1.321, δ = 1e-05)-feature-dp with respect to a simulator that sees every other record and only the public columns (age, sex) and the label (y) of the one record, not its protected columns (income).
}
