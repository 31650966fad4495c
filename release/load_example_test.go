package release_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/dpnb"
	"github.com/featuredp/featuredp/release"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// A model file is saved once, never replaced unless asked, loaded with its
// checksum and content verified, and applied to new rows that hold the
// feature columns only (an age of 95, above the public bound 80, is clipped
// to it). The model here is trained by dpnb.Train on a small
// seeded table (a real release leaves Reproducible false).
func ExampleLoad() {
	n := 400
	age, y := make([]float64, n), make([]string, n)
	for i := range age {
		age[i] = 20 + float64(i%60)
		y[i] = map[bool]string{true: "yes", false: "no"}[age[i] >= 50]
	}
	df := dataframe.New(series.New(age, series.Float, "age"), series.New(y, series.String, "y"))
	schema := data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "age", Role: data.Sensitive, Kind: data.Continuous},
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"no", "yes"}},
	}}
	f, err := dpnb.Train(context.Background(), df, schema, dpnb.TrainOptions{Epsilon: 4,
		Encode: data.EncodeOptions{Bounds: map[string]data.Range{"age": {Lo: 20, Hi: 80}}}, SampleRate: 0.1, Epochs: 10,
		Rows:         400, // a public row count: DP scales the update by SampleRate·Rows
		Reproducible: true, Seed: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "featuredp-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model.json")
	if err := f.Save(path, false); err != nil {
		fmt.Println(err)
		return
	}
	err = f.Save(path, false)
	fmt.Println("second save refused:", errors.Is(err, fs.ErrExist))

	g, err := release.Load(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s, %s, ε = %.2f, δ = %g\n", g.Model.Kind, g.Certificate.Notion, g.Certificate.Epsilon, g.Certificate.Delta)
	p, err := g.Predict(dataframe.New(series.New([]float64{22, 78, 95}, series.Float, "age")))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("predicted:", p.Class)
	_, err = g.Predict(dataframe.New(series.New([]float64{30}, series.Float, "years")))
	fmt.Println(err)
	// Output:
	// second save refused: true
	// logistic, dp, ε = 4.00, δ = 1e-05
	// predicted: [no yes yes]
	// release: Predict: the data has no column "age" (unknown column); the model needs "age"
}
