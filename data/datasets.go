package data

import (
	"fmt"
	"slices"
	"strings"

	"github.com/featuredp/featuredp/internal/safefile"
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// Dataset is a cleaned real dataset: the DataFrame, its default Schema and
// the cleaning counts.
type Dataset struct {
	// Name is a short identifier ("adult", "credit", ...).
	Name string
	// Frame is the cleaned DataFrame.
	Frame dataframe.DataFrame
	// Schema is the default schema (the papers' sensitive / public split).
	Schema Schema
	// Files are the paths the data was read from.
	Files []string
	// RawRows is the number of rows read from the files.
	RawRows int
	// DroppedMissing is the number of rows removed for missing values.
	DroppedMissing int
	// DroppedDuplicates is the number of exact duplicates removed.
	DroppedDuplicates int
}

// AdultColumns are the standard UCI names of the 15 Adult columns. The
// Kaggle copy used by the CorrDP paper calls education-num
// "educational-num" and sex "gender".
var AdultColumns = []string{
	"age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
	"occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
	"hours-per-week", "native-country", "income",
}

var adultTypes = map[string]series.Type{
	"age": series.Int, "workclass": series.String, "fnlwgt": series.Int,
	"education": series.String, "education-num": series.Int, "marital-status": series.String,
	"occupation": series.String, "relationship": series.String, "race": series.String,
	"sex": series.String, "capital-gain": series.Int, "capital-loss": series.Int,
	"hours-per-week": series.Int, "native-country": series.String, "income": series.String,
}

// AdultSchema is the CorrDP paper's split of Adult (Table 1): sensitive
// age, education-num, hours-per-week (continuous) and marital-status,
// relationship (categorical); public fnlwgt (continuous) and race, sex,
// workclass (categorical); label income with classes "<=50K" (0) and ">50K"
// (1); the other five columns ignored. Full one-hot encoding gives 31
// columns, 16 of them sensitive.
func AdultSchema() Schema {
	return Schema{Task: Classification, Columns: []Column{
		{Name: "age", Role: Sensitive, Kind: Continuous},
		{Name: "workclass", Role: Public, Kind: Categorical},
		{Name: "fnlwgt", Role: Public, Kind: Continuous},
		{Name: "education", Role: Ignore, Kind: Categorical},
		{Name: "education-num", Role: Sensitive, Kind: Continuous},
		{Name: "marital-status", Role: Sensitive, Kind: Categorical},
		{Name: "occupation", Role: Ignore, Kind: Categorical},
		{Name: "relationship", Role: Sensitive, Kind: Categorical},
		{Name: "race", Role: Public, Kind: Categorical},
		{Name: "sex", Role: Public, Kind: Categorical},
		{Name: "capital-gain", Role: Ignore, Kind: Continuous},
		{Name: "capital-loss", Role: Ignore, Kind: Continuous},
		{Name: "hours-per-week", Role: Sensitive, Kind: Continuous},
		{Name: "native-country", Role: Ignore, Kind: Categorical},
		{Name: "income", Role: Label, Kind: Categorical, Levels: []string{"<=50K", ">50K"}},
	}}
}

// LoadAdult reads UCI Adult (adult.data followed by adult.test: 48,842
// rows), strips the trailing "." of the test labels, and drops every row
// with a "?" (→ 45,222 rows) unless opts.KeepMissing. With
// opts.Deduplicate it then drops exact duplicates over all 15 columns
// (→ 45,175 rows, 11,202 with income ">50K"), as the CorrDP paper does.
func LoadAdult(opts Options) (*Dataset, error) {
	ds := &Dataset{Name: "adult", Schema: AdultSchema()}
	var rows [][]string
	var lines []int
	labelCol := slices.Index(AdultColumns, "income")
	for _, name := range []string{"adult.data", "adult.test"} {
		p, err := Fetch(name, opts)
		if err != nil {
			return nil, fmt.Errorf("data: LoadAdult: %w", err)
		}
		ds.Files = append(ds.Files, p)
		skip := 0
		if name == "adult.test" {
			skip = 1 // "|1x3 Cross validator"
		}
		fh, _, err := safefile.Open(p)
		if err != nil {
			return nil, fmt.Errorf("data: LoadAdult: %w", err)
		}
		_, r, l, err := readRecords(fh, CSVOptions{NoHeader: true, Names: AdultColumns, TrimSpace: true, SkipLines: skip})
		fh.Close()
		if err != nil {
			return nil, fmt.Errorf("data: LoadAdult: %s: %w", p, err)
		}
		for i, rec := range r {
			if len(rec) != len(AdultColumns) {
				return nil, fmt.Errorf("data: LoadAdult: %s, line %d: %d fields, want %d", p, l[i], len(rec), len(AdultColumns))
			}
			rec[labelCol] = strings.TrimSuffix(rec[labelCol], ".")
			if v := rec[labelCol]; v != "<=50K" && v != ">50K" {
				return nil, fmt.Errorf("data: LoadAdult: %s, line %d: income %q, want <=50K or >50K", p, l[i], v)
			}
		}
		rows = append(rows, r...)
		lines = append(lines, l...)
	}
	df, err := buildFrame(AdultColumns, rows, lines, CSVOptions{Types: adultTypes, Missing: []string{"?"}})
	if err != nil {
		return nil, fmt.Errorf("data: LoadAdult: %w", err)
	}
	return finish(ds, df, opts)
}

// finish records the raw count and applies the missing-value filter and
// deduplication.
func finish(ds *Dataset, df dataframe.DataFrame, opts Options) (*Dataset, error) {
	if err := df.Error(); err != nil {
		return nil, fmt.Errorf("data: loading %s: %w", ds.Name, err)
	}
	ds.RawRows = df.Nrow()
	var err error
	if !opts.KeepMissing {
		df, ds.DroppedMissing, err = DropMissing(df)
		if err != nil {
			return nil, fmt.Errorf("data: loading %s: %w", ds.Name, err)
		}
	}
	if opts.Deduplicate {
		df, ds.DroppedDuplicates, err = Deduplicate(df)
		if err != nil {
			return nil, fmt.Errorf("data: loading %s: %w", ds.Name, err)
		}
	}
	ds.Frame = df
	return ds, nil
}

// readFile reads a CSV file with ReadCSV.
func readFile(p string, o CSVOptions) (dataframe.DataFrame, error) {
	fh, _, err := safefile.Open(p)
	if err != nil {
		return dataframe.DataFrame{}, err
	}
	defer fh.Close()
	df, err := ReadCSV(fh, o)
	if err != nil {
		return dataframe.DataFrame{}, fmt.Errorf("%s: %w", p, err)
	}
	return df, nil
}

// CreditColumns are the 23 features and the target of the credit-card
// default data, in file order.
var CreditColumns = []string{
	"LIMIT_BAL", "SEX", "EDUCATION", "MARRIAGE", "AGE",
	"PAY_0", "PAY_2", "PAY_3", "PAY_4", "PAY_5", "PAY_6",
	"BILL_AMT1", "BILL_AMT2", "BILL_AMT3", "BILL_AMT4", "BILL_AMT5", "BILL_AMT6",
	"PAY_AMT1", "PAY_AMT2", "PAY_AMT3", "PAY_AMT4", "PAY_AMT5", "PAY_AMT6",
	"default",
}

// CreditSchema follows the CorrDP paper (after Shen et al. 2023): public
// SEX, EDUCATION, MARRIAGE (categorical) and AGE (continuous); the other 19
// features sensitive and continuous (the PAY_x statuses included, as the
// spec recommends); label default with classes "0" and "1".
func CreditSchema() Schema {
	s := Schema{Task: Classification}
	for _, name := range CreditColumns {
		c := Column{Name: name, Role: Sensitive, Kind: Continuous}
		switch name {
		case "SEX", "EDUCATION", "MARRIAGE":
			c.Role, c.Kind = Public, Categorical
		case "AGE":
			c.Role = Public
		case "default":
			c.Role, c.Kind, c.Levels = Label, Categorical, []string{"0", "1"}
		}
		s.Columns = append(s.Columns, c)
	}
	return s
}

// LoadCredit reads the default-of-credit-card-clients CSV (30,000 rows,
// 6,636 defaults). The canonical source is an .xls inside a zip, so the
// CSV is never downloaded: put UCI_Credit_Card.csv in Options.Dir or
// $FEATUREDP_DATA. A CSV with an ID column and the target named
// "default.payment.next.month" (the Kaggle layout) is accepted too (with
// Options.AllowUnverified, since its checksum differs).
func LoadCredit(opts Options) (*Dataset, error) {
	ds := &Dataset{Name: "credit", Schema: CreditSchema()}
	p, err := Fetch("UCI_Credit_Card.csv", opts)
	if err != nil {
		return nil, fmt.Errorf("data: LoadCredit: %w", err)
	}
	ds.Files = []string{p}
	df, err := readFile(p, CSVOptions{})
	if err != nil {
		return nil, fmt.Errorf("data: LoadCredit: %w", err)
	}
	names := df.Names()
	if slices.Contains(names, "ID") {
		df = df.Drop("ID")
	}
	for _, alt := range []string{"default.payment.next.month", "default payment next month"} {
		if slices.Contains(names, alt) {
			df = df.Rename("default", alt)
		}
	}
	names = df.Names()
	var lacking []string
	for _, c := range CreditColumns {
		if !slices.Contains(names, c) {
			lacking = append(lacking, c)
		}
	}
	if len(lacking) > 0 || len(names) != len(CreditColumns) {
		return nil, fmt.Errorf("data: LoadCredit: %s does not have the expected columns: lacks [%s], has [%s]: %w",
			p, strings.Join(lacking, ", "), strings.Join(names, ", "), ErrUnknownColumn)
	}
	return finish(ds, df, opts)
}

// InsuranceSchema is the Medical Cost split of the CorrDP paper's App. E.5
// (the one that carries TV_max = 0.36): public age (continuous), sex and
// region (categorical); sensitive bmi, children (continuous) and smoker
// (categorical); label charges (regression). With drop-first one-hot this
// gives 8 columns.
func InsuranceSchema() Schema {
	return Schema{Task: Regression, Columns: []Column{
		{Name: "age", Role: Public, Kind: Continuous},
		{Name: "sex", Role: Public, Kind: Categorical},
		{Name: "bmi", Role: Sensitive, Kind: Continuous},
		{Name: "children", Role: Sensitive, Kind: Continuous},
		{Name: "smoker", Role: Sensitive, Kind: Categorical},
		{Name: "region", Role: Public, Kind: Categorical},
		{Name: "charges", Role: Label, Kind: Continuous},
	}}
}

// InsuranceSchemaSec52 is the alternative split of the paper's Sec. 5.2:
// public sex, smoker and region; sensitive age, bmi and children.
func InsuranceSchemaSec52() Schema {
	s := InsuranceSchema()
	for i, c := range s.Columns {
		switch c.Name {
		case "age":
			s.Columns[i].Role = Sensitive
		case "smoker":
			s.Columns[i].Role = Public
		}
	}
	return s
}

// LoadInsurance reads the Medical Cost data insurance.csv (1,338 rows; 1,337
// with Options.Deduplicate). It is never downloaded (see Registry).
func LoadInsurance(opts Options) (*Dataset, error) {
	ds := &Dataset{Name: "insurance", Schema: InsuranceSchema()}
	p, err := Fetch("insurance.csv", opts)
	if err != nil {
		return nil, fmt.Errorf("data: LoadInsurance: %w", err)
	}
	ds.Files = []string{p}
	df, err := readFile(p, CSVOptions{Types: map[string]series.Type{
		"age": series.Int, "sex": series.String, "bmi": series.Float, "children": series.Int,
		"smoker": series.String, "region": series.String, "charges": series.Float,
	}})
	if err != nil {
		return nil, fmt.Errorf("data: LoadInsurance: %w", err)
	}
	return finish(ds, df, opts)
}

// Cohort selects one of the three Sepsis survival cohorts.
type Cohort int

const (
	// SepsisPrimary is the Norwegian primary cohort (110,204 records), the
	// one the CorrDP paper uses.
	SepsisPrimary Cohort = iota
	// SepsisStudy is the study cohort (19,051 records).
	SepsisStudy
	// SepsisValidation is the South Korean validation cohort (137 records).
	SepsisValidation
)

// String returns "primary", "study" or "validation".
func (c Cohort) String() string {
	switch c {
	case SepsisPrimary:
		return "primary"
	case SepsisStudy:
		return "study"
	case SepsisValidation:
		return "validation"
	}
	return fmt.Sprintf("Cohort(%d)", int(c))
}

// SepsisColumns are the four columns of every Sepsis cohort.
var SepsisColumns = []string{"age_years", "sex_0male_1female", "episode_number", "hospital_outcome_1alive_0dead"}

// SepsisSchema follows the CorrDP paper's App. E.3 and the spec's
// resolution of its input encoding: three raw numeric inputs, sensitive
// age_years, public sex_0male_1female and episode_number (Continuous, so
// they are scaled rather than one-hot encoded; make them Categorical for
// the Sec. 5.2 one-hot variant); label hospital_outcome_1alive_0dead with
// classes "0" (dead) and "1" (alive).
func SepsisSchema() Schema {
	return Schema{Task: Classification, Columns: []Column{
		{Name: "age_years", Role: Sensitive, Kind: Continuous},
		{Name: "sex_0male_1female", Role: Public, Kind: Continuous},
		{Name: "episode_number", Role: Public, Kind: Continuous},
		{Name: "hospital_outcome_1alive_0dead", Role: Label, Kind: Categorical, Levels: []string{"0", "1"}},
	}}
}

// LoadSepsis reads one cohort of the Sepsis Survival Minimal Clinical
// Records (primary: 110,204 rows, 8,105 deaths). If missing, the canonical
// UCI zip is downloaded and the three CSVs are extracted and verified.
func LoadSepsis(cohort Cohort, opts Options) (*Dataset, error) {
	var name string
	switch cohort {
	case SepsisPrimary:
		name = "sepsis_survival_primary_cohort.csv"
	case SepsisStudy:
		name = "sepsis_survival_study_cohort.csv"
	case SepsisValidation:
		name = "sepsis_survival_validation_cohort.csv"
	default:
		return nil, fmt.Errorf("data: LoadSepsis: unknown cohort %v (want SepsisPrimary, SepsisStudy or SepsisValidation)", cohort)
	}
	ds := &Dataset{Name: "sepsis-" + cohort.String(), Schema: SepsisSchema()}
	p, err := Fetch(name, opts)
	if err != nil {
		return nil, fmt.Errorf("data: LoadSepsis: %w", err)
	}
	ds.Files = []string{p}
	types := map[string]series.Type{}
	for _, c := range SepsisColumns {
		types[c] = series.Int
	}
	df, err := readFile(p, CSVOptions{Types: types})
	if err != nil {
		return nil, fmt.Errorf("data: LoadSepsis: %w", err)
	}
	return finish(ds, df, opts)
}

// AdultPublicEncoding is a public encoding of AdultSchema's features for
// releases: MinMax scaling with domain bounds and the category levels that
// the dataset's documentation (UCI's adult.names) lists, none of them read
// from the data. Bounds: age 0–100 years, education-num 1–16 (the 16
// education levels), hours-per-week 0–100, fnlwgt 0–1.5·10⁶ (the census
// weight's range of magnitude); values outside are clipped.
func AdultPublicEncoding() EncodeOptions {
	return EncodeOptions{
		Scale: MinMax,
		Bounds: map[string]Range{
			"age": {Lo: 0, Hi: 100}, "education-num": {Lo: 1, Hi: 16},
			"hours-per-week": {Lo: 0, Hi: 100}, "fnlwgt": {Lo: 0, Hi: 1.5e6},
		},
		Levels: map[string][]string{
			"workclass": {"Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov", "State-gov", "Without-pay", "Never-worked"},
			"marital-status": {"Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed", "Married-spouse-absent",
				"Married-AF-spouse"},
			"relationship": {"Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried"},
			"race":         {"White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"},
			"sex":          {"Female", "Male"},
		},
	}
}
