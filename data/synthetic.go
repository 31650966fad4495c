package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// adultLevels are the UCI Adult levels (after the "?" filter) used by
// SyntheticAdultLike.
var adultLevels = map[string][]string{
	"workclass": {"Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov", "State-gov", "Without-pay"},
	"marital-status": {"Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
		"Married-spouse-absent", "Married-AF-spouse"},
	"relationship": {"Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried"},
	"race":         {"White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"},
	"occupation": {"Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial", "Prof-specialty",
		"Handlers-cleaners", "Machine-op-inspct", "Adm-clerical", "Farming-fishing", "Transport-moving",
		"Priv-house-serv", "Protective-serv", "Armed-Forces"},
	"native-country": {"United-States", "Mexico", "Philippines", "Germany", "Canada", "India"},
}

var adultEducation = []string{"Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th",
	"HS-grad", "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school", "Doctorate"}

// SyntheticAdultLike draws n rows with the columns, types and levels of the
// cleaned UCI Adult DataFrame (LoadAdult), for tests and demos without the
// real file. It is a stand-in, not a model of the census: sensitive and
// public features are made dependent (relationship and marital status
// depend on sex; hours, education and income on several features) so that
// correlation-aware methods have something to find. All randomness comes
// from rng.
func SyntheticAdultLike(n int, rng *rand.Rand) (dataframe.DataFrame, error) {
	if rng == nil {
		return dataframe.DataFrame{}, ErrNilRand
	}
	if n < 1 {
		return dataframe.DataFrame{}, fmt.Errorf("data: SyntheticAdultLike: n = %d, want at least 1", n)
	}
	cols := map[string][]string{}
	for _, name := range AdultColumns {
		cols[name] = make([]string, n)
	}
	for i := 0; i < n; i++ {
		for name, v := range drawAdultRow(rng) {
			cols[name][i] = v
		}
	}
	ss := make([]series.Series, len(AdultColumns))
	for j, name := range AdultColumns {
		ss[j] = series.New(cols[name], adultTypes[name], name)
	}
	df := dataframe.New(ss...)
	if err := df.Error(); err != nil {
		return dataframe.DataFrame{}, fmt.Errorf("data: SyntheticAdultLike: %w", err)
	}
	return df, nil
}

// drawAdultRow draws one synthetic Adult row, as column name → value. The
// order of the random draws is part of the output (a fixed seed gives
// fixed data), so do not reorder them.
func drawAdultRow(rng *rand.Rand) map[string]string {
	male := rng.Float64() < 0.67
	sex := "Female"
	if male {
		sex = "Male"
	}
	age := 17 + int(math.Min(73, math.Abs(rng.NormFloat64()*13+21)))
	married, marital, rel := drawFamily(rng, male, age)
	eduNum := 1 + int(math.Max(0, math.Min(15, rng.NormFloat64()*2.5+9)))
	work := pickWeighted(rng, adultLevels["workclass"], []float64{0.74, 0.08, 0.035, 0.03, 0.07, 0.04, 0.005})
	hours := drawHours(rng, male, work)
	race := pickWeighted(rng, adultLevels["race"], []float64{0.86, 0.03, 0.01, 0.01, 0.09})
	income := drawIncome(rng, age, eduNum, hours, married)
	gain, loss := drawCapital(rng)
	fnlwgt := int(math.Max(12285, math.Min(1484705, math.Exp(rng.NormFloat64()*0.5+12))))
	occupation := adultLevels["occupation"][rng.IntN(len(adultLevels["occupation"]))]
	country := pickWeighted(rng, adultLevels["native-country"], []float64{0.91, 0.03, 0.02, 0.015, 0.015, 0.01})
	return map[string]string{
		"age": strconv.Itoa(age), "workclass": work,
		"fnlwgt":    strconv.Itoa(fnlwgt),
		"education": adultEducation[eduNum-1], "education-num": strconv.Itoa(eduNum),
		"marital-status": marital,
		"occupation":     occupation,
		"relationship":   rel, "race": race, "sex": sex,
		"capital-gain": strconv.Itoa(gain), "capital-loss": strconv.Itoa(loss),
		"hours-per-week": strconv.Itoa(hours),
		"native-country": country,
		"income":         income,
	}
}

// drawFamily draws whether a person of the given sex and age is married,
// their marital status and their relationship (which depend on both).
func drawFamily(rng *rand.Rand, male bool, age int) (married bool, marital, rel string) {
	married = rng.Float64() < 0.25+0.4*float64(min(age, 50)-17)/33
	switch {
	case married && male:
		marital, rel = "Married-civ-spouse", "Husband"
	case married:
		marital, rel = "Married-civ-spouse", pickWeighted(rng, []string{"Wife", "Not-in-family"}, []float64{0.8, 0.2})
	case age < 25:
		marital, rel = "Never-married", pickWeighted(rng, []string{"Own-child", "Not-in-family", "Other-relative"}, []float64{0.6, 0.3, 0.1})
	default:
		marital = pickWeighted(rng, []string{"Never-married", "Divorced", "Separated", "Widowed", "Married-spouse-absent"}, []float64{0.45, 0.35, 0.08, 0.08, 0.04})
		w := []float64{0.75, 0.25}
		if !male {
			w = []float64{0.45, 0.55}
		}
		rel = pickWeighted(rng, []string{"Not-in-family", "Unmarried"}, w)
	}
	return married, marital, rel
}

// drawHours draws the weekly hours, longer for men and the self-employed,
// clamped to [1, 99].
func drawHours(rng *rand.Rand, male bool, work string) int {
	hoursMean := 36.0
	if male {
		hoursMean = 43
	}
	if work == "Self-emp-inc" || work == "Self-emp-not-inc" {
		hoursMean += 6
	}
	return int(math.Max(1, math.Min(99, rng.NormFloat64()*10+hoursMean)))
}

// drawIncome draws the income class from a logistic model of age,
// education, hours and marriage.
func drawIncome(rng *rand.Rand, age, eduNum, hours int, married bool) string {
	z := -8.5 + 0.04*float64(min(age, 60)) + 0.3*float64(eduNum) + 0.03*float64(hours)
	if married {
		z += 2
	}
	if rng.Float64() < 1/(1+math.Exp(-z)) {
		return ">50K"
	}
	return "<=50K"
}

// drawCapital draws the capital gain (rare, exponential) and the capital
// loss (rarer, uniform in [1000, 2500)), in that order.
func drawCapital(rng *rand.Rand) (gain, loss int) {
	if rng.Float64() < 0.08 {
		gain = int(rng.ExpFloat64() * 5000)
	}
	if rng.Float64() < 0.05 {
		loss = 1000 + rng.IntN(1500)
	}
	return gain, loss
}

// pickWeighted draws one of levels with probabilities proportional to w
// (one rng.Float64 draw).
func pickWeighted(rng *rand.Rand, levels []string, w []float64) string {
	u := rng.Float64() * sum(w)
	for i, wi := range w {
		if u < wi {
			return levels[i]
		}
		u -= wi
	}
	return levels[len(levels)-1]
}

func sum(w []float64) float64 {
	s := 0.0
	for _, x := range w {
		s += x
	}
	return s
}
