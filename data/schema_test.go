package data

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
)

// smallFrame is a 4-row DataFrame with numeric, categorical and label
// columns.
func smallFrame(t testing.TB) dataframe.DataFrame {
	t.Helper()
	df := dataframe.LoadRecords([][]string{
		{"age", "city", "income", "y"},
		{"30", "Oslo", "1.5", "yes"},
		{"45", "Rome", "2.5", "no"},
		{"22", "Oslo", "0.5", "no"},
		{"60", "Lima", "3.0", "yes"},
	})
	if err := df.Error(); err != nil {
		t.Fatal(err)
	}
	return df
}

func smallSchema() Schema {
	return Schema{Columns: []Column{
		{Name: "age", Role: Sensitive, Kind: Continuous},
		{Name: "city", Role: Public, Kind: Categorical},
		{Name: "income", Role: Sensitive, Kind: Continuous},
		{Name: "y", Role: Label, Kind: Categorical},
	}}
}

func TestValidateOK(t *testing.T) {
	if err := smallSchema().Validate(smallFrame(t)); err != nil {
		t.Fatalf("Validate: %v", err)
	}
}

func TestValidateErrors(t *testing.T) {
	withCols := func(f func(cs []Column) []Column) Schema {
		s := smallSchema().Clone()
		s.Columns = f(s.Columns)
		return s
	}
	records := func(rows ...[]string) dataframe.DataFrame {
		df := dataframe.LoadRecords(append([][]string{{"age", "city", "income", "y"}}, rows...),
			dataframe.DetectTypes(false), dataframe.DefaultType(series.String), dataframe.NaNValues(nil))
		if err := df.Error(); err != nil {
			t.Fatal(err)
		}
		return df
	}
	good := []string{"30", "Oslo", "1.5", "yes"}
	tests := []struct {
		name   string
		schema Schema
		df     dataframe.DataFrame
		is     error
		want   []string // substrings of the message
	}{
		{"unknown column", withCols(func(cs []Column) []Column { return append(cs, Column{Name: "zip", Role: Public}) }),
			smallFrame(t), ErrUnknownColumn, []string{`"zip"`, `available: "age", "city", "income", "y"`}},
		{"column missing from schema", withCols(func(cs []Column) []Column { return cs[1:] }),
			smallFrame(t), ErrUnlistedColumn, []string{`"age"`, "Ignore"}},
		{"no label", withCols(func(cs []Column) []Column { cs[3].Role = Ignore; return cs }),
			smallFrame(t), ErrLabel, []string{"no label"}},
		{"two labels", withCols(func(cs []Column) []Column { cs[2].Role = Label; return cs }),
			smallFrame(t), ErrLabel, []string{"2 label columns", "income, y"}},
		{"continuous label for classifier", withCols(func(cs []Column) []Column {
			cs[2].Role, cs[3].Role = Label, Ignore
			return cs
		}), smallFrame(t), ErrLabel, []string{`label "income" is continuous`, "Regression"}},
		{"categorical label for regression", func() Schema { s := smallSchema(); s.Task = Regression; return s }(),
			smallFrame(t), ErrLabel, []string{`label "y" is categorical`, "regression"}},
		{"label in unsupervised", func() Schema { s := smallSchema(); s.Task = Unsupervised; return s }(),
			smallFrame(t), ErrLabel, []string{"unsupervised"}},
		{"question mark", smallSchema(), records(good, []string{"40", "?", "2", "no"}), ErrMissingValue,
			[]string{`"city"`, "1 missing", "row 1"}},
		{"empty string", smallSchema(), records(good, []string{"", "Rome", "2", "no"}), ErrMissingValue,
			[]string{`"age"`, "row 1"}},
		{"NaN float", smallSchema(), smallFrame(t).Mutate(series.New([]float64{1, 2, nan(), 4}, series.Float, "income")),
			ErrMissingValue, []string{`"income"`, "row 2"}},
		{"non-numeric", smallSchema(), records(good, good, []string{"forty", "Rome", "2", "no"}), ErrNotNumeric,
			[]string{`"age"`, "row 2", `"forty"`}},
		{"infinite", smallSchema(), records(good, []string{"30", "Rome", "Inf", "no"}), ErrNotNumeric,
			[]string{`"income"`, "row 1"}},
		{"undeclared level", withCols(func(cs []Column) []Column { cs[1].Levels = []string{"Oslo", "Rome"}; return cs }),
			smallFrame(t), ErrUnknownLevel, []string{`"Lima"`, "row 3"}},
		{"duplicate schema column", withCols(func(cs []Column) []Column { return append(cs, cs[0]) }),
			smallFrame(t), ErrSchema, []string{`"age" twice`}},
		{"empty schema", Schema{}, smallFrame(t), ErrSchema, []string{"no columns"}},
		{"invalid role", withCols(func(cs []Column) []Column { cs[0].Role = Role(9); return cs }),
			smallFrame(t), ErrSchema, []string{"Role(9)"}},
		{"levels on continuous", withCols(func(cs []Column) []Column { cs[0].Levels = []string{"1"}; return cs }),
			smallFrame(t), ErrSchema, []string{"declares Levels"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.schema.Validate(tc.df)
			if err == nil {
				t.Fatal("Validate returned nil")
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestValidateIgnoresIgnoredColumns(t *testing.T) {
	df := dataframe.LoadRecords([][]string{{"a", "junk", "y"}, {"1", "?", "0"}, {"2", "", "1"}})
	s := Schema{Columns: []Column{{Name: "a"}, {Name: "junk", Role: Ignore}, {Name: "y", Role: Label, Kind: Categorical}}}
	if err := s.Validate(df); err != nil {
		t.Fatalf("Validate: %v", err)
	}
}

func TestValidateDataFrameError(t *testing.T) {
	df := dataframe.LoadRecords(nil)
	if err := smallSchema().Validate(df); err == nil || !strings.Contains(err.Error(), "carries an error") {
		t.Fatalf("got %v", err)
	}
}

func TestSchemaHelpers(t *testing.T) {
	s := smallSchema()
	if got := len(s.Features()); got != 3 {
		t.Errorf("Features: %d, want 3", got)
	}
	if l, ok := s.Label(); !ok || l.Name != "y" {
		t.Errorf("Label: %v %v", l, ok)
	}
	s2, err := s.WithRole(Public, "age")
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := s2.Lookup("age"); c.Role != Public {
		t.Errorf("WithRole did not set the role: %v", c.Role)
	}
	if c, _ := s.Lookup("age"); c.Role != Sensitive {
		t.Errorf("WithRole modified its receiver")
	}
	if _, err := s.WithRole(Public, "nope"); !errors.Is(err, ErrUnknownColumn) {
		t.Errorf("WithRole(nope): %v", err)
	}
	d := DefaultSchema(smallFrame(t), "y", Classification)
	if err := d.Validate(smallFrame(t)); err != nil {
		t.Errorf("DefaultSchema does not validate: %v", err)
	}
	if c, _ := d.Lookup("city"); c.Kind != Categorical || c.Role != Sensitive {
		t.Errorf("DefaultSchema city: %+v", c)
	}
	for _, r := range []Role{Sensitive, Public, Label, Ignore} {
		if strings.HasPrefix(r.String(), "Role(") {
			t.Errorf("Role %d has no name", int(r))
		}
	}
	if Insensitive != Public || Role(0) != Sensitive {
		t.Error("role constants changed")
	}
}

func ExampleSchema() {
	df := dataframe.LoadRecords([][]string{
		{"age", "zip", "smoker", "charges"},
		{"34", "0150", "no", "1200.5"},
		{"?", "0151", "yes", "n/a"},
	})
	schema := Schema{
		Task: Regression,
		Columns: []Column{
			{Name: "age", Role: Sensitive, Kind: Continuous},
			{Name: "smoker", Role: Public, Kind: Categorical},
			{Name: "charges", Role: Label, Kind: Continuous},
		},
	}
	fmt.Println(schema.Validate(df))
	// Output:
	// data: DataFrame column "zip" is missing from the schema; give it a role (Ignore to leave it out): column missing from the schema
	// data: column "age" (sensitive, continuous) has 1 missing value(s) (NaN, empty or "?"), the first at row 1 (0-based); drop them (DropMissing) or mark the column Ignore: missing values
	// data: continuous column "charges" has 1 non-numeric or non-finite value(s), the first at row 1 (0-based): "n/a"; make it Categorical or clean it: non-numeric value in a continuous column
}

// A 0/1 integer label works for classification with the default schema:
// it is Categorical whatever its column type, validates and encodes into
// the classes 0 and 1.
func TestDefaultSchemaIntegerLabel(t *testing.T) {
	df := dataframe.New(
		series.New([]float64{1.5, 2, 3.5, 4}, series.Float, "x"),
		series.New([]int{0, 1, 1, 0}, series.Int, "y"),
	)
	s := DefaultSchema(df, "y", Classification)
	if c, _ := s.Lookup("y"); c.Kind != Categorical || c.Role != Label {
		t.Fatalf("label column %+v, want a Categorical Label", c)
	}
	if err := s.Validate(df); err != nil {
		t.Fatalf("a 0/1 integer label does not validate: %v", err)
	}
	enc, err := Encode(df, s, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := enc.Y; len(got) != 4 || got[0] != 0 || got[1] != 1 || got[2] != 1 || got[3] != 0 {
		t.Errorf("encoded labels %v, want [0 1 1 0]", got)
	}
	if r := DefaultSchema(df, "y", Regression); r.Columns[1].Kind != Continuous {
		t.Errorf("a regression label stays Continuous: %+v", r.Columns[1])
	}
}
