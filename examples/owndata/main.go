// Command owndata runs the three one-call helpers of featuredp on a CSV
// file of your own: feature DP vs DP, CorrDP vs Semi vs Standard, and BCDP
// mean estimation. Edit the schema and the public bounds to your columns.
//
//	go run ./examples/owndata results/patients.csv
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/dpnb"
)

func main() {
	f, err := os.Open(os.Args[1])
	check(err)
	df, err := data.ReadCSV(f, data.CSVOptions{})
	check(err)
	schema := data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "age", Role: data.Public, Kind: data.Continuous},
		{Name: "region", Role: data.Public, Kind: data.Categorical, Levels: []string{"north", "south", "east", "west"}},
		{Name: "smoker", Role: data.Sensitive, Kind: data.Categorical, Levels: []string{"no", "yes"}},
		{Name: "income", Role: data.Sensitive, Kind: data.Continuous},
		{Name: "readmitted", Role: data.Label, Kind: data.Categorical, Levels: []string{"no", "yes"}},
	}}
	bounds := map[string]data.Range{"age": {Lo: 18, Hi: 90}, "income": {Lo: 0, Hi: 150000}} // public, not from the data
	enc := data.EncodeOptions{DropFirst: true, Scale: data.MinMax, Bounds: bounds}
	ctx := context.Background()

	fdp, err := dpnb.FeatureDPvsDP(ctx, df, schema, dpnb.FeatureDPOptions{Encode: enc})
	check(err)
	fmt.Println(fdp.Markdown())
	plot, err := fdp.Plot()
	check(err)
	check(dpnb.SavePNG(plot, filepath.Join(filepath.Dir(os.Args[1]), "feature-dp.png"), 0, 0)) // beside the CSV

	corr, err := dpnb.CorrDPvsSemiVsStandard(ctx, df, schema, dpnb.CorrDPOptions{Encode: enc})
	check(err)
	fmt.Println(corr.Markdown())

	means := schema.Clone() // mean estimation: numeric columns only
	means.Columns[1].Role, means.Columns[2].Role = data.Ignore, data.Ignore
	bcdp, err := dpnb.BCDPMeanEstimation(ctx, df, means, dpnb.BCDPMeanOptions{
		Levels: map[string]float64{"income": 0.5}, Eps: 3, Q: 0.02, Bounds: bounds})
	check(err)
	fmt.Println(bcdp.Markdown())
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "owndata:", err)
		os.Exit(1)
	}
}
