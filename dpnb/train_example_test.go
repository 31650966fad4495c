package dpnb_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/dpnb"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// exampleSmokers is a table of n people drawn from a seeded stream: age
// (public), smoker (sensitive) and a yes/no label that depends on both.
func exampleSmokers(n int, seed1, seed2 uint64) (dataframe.DataFrame, data.Schema) {
	rng := rand.New(rand.NewPCG(seed1, seed2))
	age, smoker, y := make([]float64, n), make([]string, n), make([]string, n)
	for i := range age {
		age[i] = 20 + 60*rng.Float64()
		s := rng.Float64() < 0.3
		smoker[i], y[i] = map[bool]string{true: "yes", false: "no"}[s], "no"
		if 0.05*(age[i]-50)-1+map[bool]float64{true: 2.5}[s] > rng.NormFloat64() {
			y[i] = "yes"
		}
	}
	df := dataframe.New(series.New(age, series.Float, "age"), series.New(smoker, series.String, "smoker"), series.New(y, series.String, "y"))
	schema := data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "age", Role: data.Public, Kind: data.Continuous},
		{Name: "smoker", Role: data.Sensitive, Kind: data.Categorical, Levels: []string{"no", "yes"}},
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"no", "yes"}},
	}}
	return df, schema
}

// exampleTrainOptions target ε = 0.5 with the public bounds of age; seeded
// so that the examples' output can be checked (a real release leaves
// Reproducible false).
func exampleTrainOptions() dpnb.TrainOptions {
	return dpnb.TrainOptions{
		Epsilon:    0.5,
		Encode:     data.EncodeOptions{Bounds: map[string]data.Range{"age": {Lo: 20, Hi: 80}}},
		SampleRate: 0.05, Epochs: 5,
		Reproducible: true, Seed: 1,
	}
}

// Train calibrates feature DP's Algorithm 1 to ε = 0.5 and returns a model
// file whose certificate states the guarantee. The bounds of "age" and
// the levels are public values given here, not read from the data. A real
// release leaves Reproducible false (OS randomness); this example is
// seeded so that its output can be checked.
func ExampleTrain() {
	df, schema := exampleSmokers(2000, 11, 12)
	f, err := dpnb.Train(context.Background(), df, schema, dpnb.TrainOptions{
		Epsilon:    0.5,
		Encode:     data.EncodeOptions{Bounds: map[string]data.Range{"age": {Lo: 20, Hi: 80}}},
		SampleRate: 0.05, Epochs: 5,
		// Ball: the best guess of smoker from age and the label succeeds
		// at most half the time (public knowledge you state; nothing here
		// assumes a prior).
		Ball:         map[string]float64{"smoker": 0.5},
		Reproducible: true, Seed: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	c := f.Certificate
	fmt.Printf("%s under %s: ε = %.4f ≤ %g, δ = %g, z = %.2f, %d steps\n",
		c.Notion, c.Relation, c.Epsilon, c.TargetEpsilon, c.Delta, c.Training.NoiseMultiplier, c.Training.Steps)
	fmt.Println("protected:", c.Protected, "public:", c.Public, "private release:", c.PrivateRelease)
	for _, a := range c.AttributeInference {
		fmt.Printf("%s: a guess from the model succeeds with probability ≤ %.3f (prior mass %g)\n", a.Column, a.Bound, a.Ball)
	}

	rows := dataframe.New(series.New([]float64{25, 75}, series.Float, "age"), series.New([]string{"no", "yes"}, series.String, "smoker"))
	p, err := f.Predict(rows)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, probs := range p.Probs {
		fmt.Printf("row %d: P(y = yes) = %.2f, predicted %s\n", i, probs[1], p.Class[i])
	}
	fmt.Println(c.Statement)
	// Output:
	// feature-dp under feature-simulator: ε = 0.5000 ≤ 0.5, δ = 1e-05, z = 4.08, 100 steps
	// protected: [smoker] public: [age] private release: false
	// smoker: a guess from the model succeeds with probability ≤ 0.824 (prior mass 0.5)
	// row 0: P(y = yes) = 0.14, predicted no
	// row 1: P(y = yes) = 0.93, predicted yes
	// NOT A PRIVATE RELEASE (reproducible randomness: the seed regenerates the noise). Were the noise secret, it would be (ε = 0.5, δ = 1e-05)-feature-dp with respect to a simulator that sees every other record and only the public columns (age) and the label (y) of the one record, not its protected columns (smoker).
}

// CheckRelease puts the release's test accuracy beside the same model
// trained without privacy and on the public column alone: what ε = 0.5
// costs, and what the protected column adds. These numbers are computed on
// the private data without privacy, for your decision, not for
// publication.
func ExampleCheckRelease() {
	df, schema := exampleSmokers(2000, 11, 12)
	idx := make([]int, df.Nrow())
	for i := range idx {
		idx[i] = i
	}
	train, test := df.Subset(idx[:1500]), df.Subset(idx[1500:])
	chk, err := dpnb.CheckRelease(context.Background(), train, test, schema, exampleTrainOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("test %s: private %.3f, non-private %.3f, public column only %.3f\n",
		chk.Metric, chk.Private, chk.NonPrivate, chk.PublicOnly)
	// Output:
	// test accuracy: private 0.768, non-private 0.768, public column only 0.644
}
