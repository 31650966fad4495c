package data_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/featuredp/featuredp/data"
)

func ExampleReadCSV() {
	in := "age,sex,bmi\n19,female,27.9\n?,male,33.77\n"
	df, err := data.ReadCSV(strings.NewReader(in), data.CSVOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(df.Types())
	clean, dropped, _ := data.DropMissing(df)
	fmt.Println(clean.Nrow(), dropped)
	// Output:
	// [int string float]
	// 1 1
}

// LoadAdult finds adult.data and adult.test in Options.Dir, $FEATUREDP_DATA
// or the user cache, downloading and verifying them if needed.
func ExampleLoadAdult() {
	ds, err := data.LoadAdult(data.Options{Deduplicate: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	// 45,175 rows, as in the CorrDP paper.
	train, test, err := data.TrainTestSplit(ds.Frame, 0.2, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	// Fitting reads the training data: the bounds are not private.
	enc, err := data.FitEncoder(train, ds.Schema, data.EncodeOptions{Scale: data.MinMax})
	if err != nil {
		fmt.Println(err)
		return
	}
	xTest, err := enc.Transform(test)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(xTest.D, xTest.Columns[:3])
}

func ExampleSyntheticAdultLike() {
	df, err := data.SyntheticAdultLike(1000, rand.New(rand.NewPCG(7, 0)))
	if err != nil {
		fmt.Println(err)
		return
	}
	enc, err := data.Encode(df, data.AdultSchema(), data.EncodeOptions{Scale: data.MinMax})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(enc.N, len(enc.FeatureNames), enc.FeatureNames[:3])
	// Output:
	// 1000 9 [age workclass fnlwgt]
}
