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
	pick := func(levels []string, w []float64) string {
		u := rng.Float64() * sum(w)
		for i, wi := range w {
			if u < wi {
				return levels[i]
			}
			u -= wi
		}
		return levels[len(levels)-1]
	}
	cols := map[string][]string{}
	for _, name := range AdultColumns {
		cols[name] = make([]string, n)
	}
	for i := 0; i < n; i++ {
		male := rng.Float64() < 0.67
		sex := "Female"
		if male {
			sex = "Male"
		}
		age := 17 + int(math.Min(73, math.Abs(rng.NormFloat64()*13+21)))
		married := rng.Float64() < 0.25+0.4*float64(min(age, 50)-17)/33
		var marital, rel string
		switch {
		case married && male:
			marital, rel = "Married-civ-spouse", "Husband"
		case married:
			marital, rel = "Married-civ-spouse", pick([]string{"Wife", "Not-in-family"}, []float64{0.8, 0.2})
		case age < 25:
			marital, rel = "Never-married", pick([]string{"Own-child", "Not-in-family", "Other-relative"}, []float64{0.6, 0.3, 0.1})
		default:
			marital = pick([]string{"Never-married", "Divorced", "Separated", "Widowed", "Married-spouse-absent"}, []float64{0.45, 0.35, 0.08, 0.08, 0.04})
			w := []float64{0.75, 0.25}
			if !male {
				w = []float64{0.45, 0.55}
			}
			rel = pick([]string{"Not-in-family", "Unmarried"}, w)
		}
		eduNum := 1 + int(math.Max(0, math.Min(15, rng.NormFloat64()*2.5+9)))
		work := pick(adultLevels["workclass"], []float64{0.74, 0.08, 0.035, 0.03, 0.07, 0.04, 0.005})
		hoursMean := 36.0
		if male {
			hoursMean = 43
		}
		if work == "Self-emp-inc" || work == "Self-emp-not-inc" {
			hoursMean += 6
		}
		hours := int(math.Max(1, math.Min(99, rng.NormFloat64()*10+hoursMean)))
		race := pick(adultLevels["race"], []float64{0.86, 0.03, 0.01, 0.01, 0.09})
		z := -8.5 + 0.04*float64(min(age, 60)) + 0.3*float64(eduNum) + 0.03*float64(hours)
		if married {
			z += 2
		}
		income := "<=50K"
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			income = ">50K"
		}
		gain := 0
		if rng.Float64() < 0.08 {
			gain = int(rng.ExpFloat64() * 5000)
		}
		loss := 0
		if rng.Float64() < 0.05 {
			loss = 1000 + rng.IntN(1500)
		}
		row := map[string]string{
			"age": strconv.Itoa(age), "workclass": work,
			"fnlwgt":    strconv.Itoa(int(math.Max(12285, math.Min(1484705, math.Exp(rng.NormFloat64()*0.5+12))))),
			"education": adultEducation[eduNum-1], "education-num": strconv.Itoa(eduNum),
			"marital-status": marital,
			"occupation":     adultLevels["occupation"][rng.IntN(len(adultLevels["occupation"]))],
			"relationship":   rel, "race": race, "sex": sex,
			"capital-gain": strconv.Itoa(gain), "capital-loss": strconv.Itoa(loss),
			"hours-per-week": strconv.Itoa(hours),
			"native-country": pick(adultLevels["native-country"], []float64{0.91, 0.03, 0.02, 0.015, 0.015, 0.01}),
			"income":         income,
		}
		for name, v := range row {
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

func sum(w []float64) float64 {
	s := 0.0
	for _, x := range w {
		s += x
	}
	return s
}
