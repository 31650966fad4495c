// Command release trains a private model on a CSV file of your own for
// release: feature DP protects smoker and income at ε = 2 while age and
// region are public, the randomness comes from the OS (a private release),
// and the model file with its certificate is saved, loaded back and
// applied. Edit the schema and the public bounds to your columns.
//
//	go run ./examples/release results/patients.csv results/model.json
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/dpnb"
	"github.com/featuredp/featuredp/release"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: release DATA.csv MODEL.json")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	check(err)
	df, err := data.ReadCSV(f, data.CSVOptions{StrictKinds: true})
	check(err)
	schema := data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "age", Role: data.Public, Kind: data.Continuous},
		{Name: "region", Role: data.Public, Kind: data.Categorical, Levels: []string{"north", "south", "east", "west"}},
		{Name: "smoker", Role: data.Sensitive, Kind: data.Categorical, Levels: []string{"no", "yes"}},
		{Name: "income", Role: data.Sensitive, Kind: data.Continuous},
		{Name: "readmitted", Role: data.Label, Kind: data.Categorical, Levels: []string{"no", "yes"}},
	}}
	bounds := map[string]data.Range{"age": {Lo: 18, Hi: 90}, "income": {Lo: 0, Hi: 150000}} // public, not from the data

	model, err := dpnb.Train(context.Background(), df, schema, dpnb.TrainOptions{
		Epsilon: 2, Encode: data.EncodeOptions{Scale: data.MinMax, Bounds: bounds}})
	check(err)
	fmt.Print(model.Certificate.Markdown())
	check(model.Save(os.Args[2], false)) // never replaces an existing file

	loaded, err := release.Load(os.Args[2]) // verifies format, version and checksum
	check(err)
	pred, err := loaded.Predict(df)
	check(err)
	right := 0
	for i, c := range pred.Class {
		if c == df.Col("readmitted").Elem(i).String() {
			right++
		}
	}
	// The prediction for a training row and the accuracy on the training
	// rows are functions of the private data that the certificate does not
	// cover: for your decision, not for publication.
	fmt.Printf("\nsaved %s; computed on the private rows without privacy (not for publication): P(%s) of the first row %.3f, accuracy on the file %.3f\n",
		os.Args[2], pred.Classes[1], pred.Probs[0][1], float64(right)/float64(len(pred.Class)))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}
