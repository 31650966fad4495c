// Command patients writes a synthetic table of patients as CSV to stdout,
// a table to try examples/owndata on:
//
//	mkdir -p results && go run ./examples/patients > results/patients.csv
//
// Columns: age, region, smoker (yes/no), income, readmitted (yes/no, the
// label). Smoking and age drive readmission; region drives nothing.
package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
)

func main() {
	rng := rand.New(rand.NewPCG(7, 1))
	w := csv.NewWriter(os.Stdout)
	w.Write([]string{"age", "region", "smoker", "income", "readmitted"})
	yesNo := map[bool]string{true: "yes", false: "no"}
	for range 3000 {
		age := math.Round(18 + 70*rng.Float64())
		region := []string{"north", "south", "east", "west"}[rng.IntN(4)]
		smoker := rng.Float64() < 0.25+0.002*(age-50)
		income := math.Round(math.Max(5000, 40000+600*(age-40)+15000*rng.NormFloat64()))
		logit := -0.8 + 0.07*(age-50) - 4e-5*(income-50000)
		if smoker {
			logit += 2.5
		}
		readmitted := rng.Float64() < 1/(1+math.Exp(-logit))
		w.Write([]string{strconv.FormatFloat(age, 'f', -1, 64), region, yesNo[smoker],
			strconv.FormatFloat(income, 'f', -1, 64), yesNo[readmitted]})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		fmt.Fprintln(os.Stderr, "patients:", err)
		os.Exit(1)
	}
}
