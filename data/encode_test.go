package data

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"
)

func TestEncodeOneHot(t *testing.T) {
	df := smallFrame(t)
	tests := []struct {
		name      string
		opts      EncodeOptions
		columns   []string
		feature   []int
		sensitive []bool
		row0      []float64
	}{
		{"full one-hot, raw values", EncodeOptions{},
			[]string{"age", "city=Lima", "city=Oslo", "city=Rome", "income"},
			[]int{0, 1, 1, 1, 2}, []bool{true, false, false, false, true},
			[]float64{30, 0, 1, 0, 1.5}},
		{"drop-first, min-max", EncodeOptions{DropFirst: true, Scale: MinMax},
			[]string{"age", "city=Oslo", "city=Rome", "income"},
			[]int{0, 1, 1, 2}, []bool{true, false, false, true},
			[]float64{8.0 / 38, 1, 0, 1.0 / 2.5}},
		{"intercept", EncodeOptions{DropFirst: true, Intercept: true},
			[]string{"age", "city=Oslo", "city=Rome", "income", "(intercept)"},
			[]int{0, 1, 1, 2, 3}, []bool{true, false, false, true, true},
			[]float64{30, 1, 0, 1.5, 1}},
		{"public bounds clip", EncodeOptions{Scale: MinMax, Bounds: map[string]Range{"age": {Lo: 0, Hi: 50}}},
			[]string{"age", "city=Lima", "city=Oslo", "city=Rome", "income"},
			[]int{0, 1, 1, 1, 2}, []bool{true, false, false, false, true},
			[]float64{0.6, 0, 1, 0, 1.0 / 2.5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Encode(df, smallSchema(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(e.Columns, tc.columns) || !slices.Equal(e.Feature, tc.feature) || !slices.Equal(e.Sensitive, tc.sensitive) {
				t.Errorf("columns %v feature %v sensitive %v", e.Columns, e.Feature, e.Sensitive)
			}
			if e.N != 4 || e.D != len(tc.columns) || len(e.X) != e.N*e.D {
				t.Fatalf("shape N=%d D=%d len(X)=%d", e.N, e.D, len(e.X))
			}
			for j, want := range tc.row0 {
				if math.Abs(e.X[j]-want) > 1e-12 {
					t.Errorf("X[0][%d] (%s) = %v, want %v", j, e.Columns[j], e.X[j], want)
				}
			}
			if !slices.Equal(e.Classes, []string{"no", "yes"}) || !slices.Equal(e.Y, []float64{1, 0, 0, 1}) {
				t.Errorf("classes %v Y %v", e.Classes, e.Y)
			}
		})
	}
	// Age 60 is above the public bound 50: clipped to 1.
	e, _ := Encode(df, smallSchema(), EncodeOptions{Scale: MinMax, Bounds: map[string]Range{"age": {Lo: 0, Hi: 50}}})
	if got := e.X[3*e.D]; got != 1 {
		t.Errorf("clipped age = %v, want 1", got)
	}
}

func TestEncodeZScoreAndRegression(t *testing.T) {
	s := smallSchema()
	s.Task = Regression
	s.Columns[2].Role = Label
	s.Columns[3].Role = Public
	enc, err := FitEncoder(smallFrame(t), s, EncodeOptions{Scale: ZScore, LabelScale: ZScore})
	if err != nil {
		t.Fatal(err)
	}
	e, err := enc.Transform(smallFrame(t))
	if err != nil {
		t.Fatal(err)
	}
	// age column is z-scored: mean 0, population sd 1.
	var m, v float64
	for i := 0; i < e.N; i++ {
		m += e.X[i*e.D]
	}
	m /= float64(e.N)
	for i := 0; i < e.N; i++ {
		v += (e.X[i*e.D] - m) * (e.X[i*e.D] - m)
	}
	if math.Abs(m) > 1e-12 || math.Abs(v/float64(e.N)-1) > 1e-12 {
		t.Errorf("z-scored age: mean %v var %v", m, v/float64(e.N))
	}
	for i, y := range e.Y {
		raw := y*enc.LabelDiv + enc.LabelShift
		want := []float64{1.5, 2.5, 0.5, 3.0}[i]
		if math.Abs(raw-want) > 1e-12 {
			t.Errorf("label %d round-trips to %v, want %v", i, raw, want)
		}
	}
	if e.Classes != nil {
		t.Errorf("regression has classes %v", e.Classes)
	}
	d, err := e.ToModelsData()
	if err != nil || d.N != 4 || d.D != e.D {
		t.Errorf("ToModelsData: %v %+v", err, d)
	}
}

func TestEncoderFitTransform(t *testing.T) {
	train := smallFrame(t)
	enc, err := FitEncoder(train, smallSchema(), EncodeOptions{Scale: MinMax})
	if err != nil {
		t.Fatal(err)
	}
	if f := enc.Features[0]; f.Lo != 22 || f.Hi != 60 || f.Public {
		t.Errorf("fitted age bounds %+v", f)
	}
	test := dataframe.LoadRecords([][]string{{"age", "city", "income", "y"}, {"80", "Rome", "1", "no"}})
	e, err := enc.Transform(test)
	if err != nil {
		t.Fatal(err)
	}
	// Fitted (not public) bounds do not clip: 80 maps beyond 1.
	if got := e.X[0]; math.Abs(got-58.0/38) > 1e-12 {
		t.Errorf("age 80 → %v", got)
	}
	unseen := dataframe.LoadRecords([][]string{{"age", "city", "income", "y"}, {"30", "Paris", "1", "no"}})
	if _, err := enc.Transform(unseen); !errors.Is(err, ErrUnknownLevel) || !strings.Contains(err.Error(), `"Paris"`) {
		t.Errorf("unseen level: %v", err)
	}
	unseenClass := dataframe.LoadRecords([][]string{{"age", "city", "income", "y"}, {"30", "Rome", "1", "maybe"}})
	if _, err := enc.Transform(unseenClass); !errors.Is(err, ErrUnknownLevel) {
		t.Errorf("unseen class: %v", err)
	}
}

func TestEncodeErrors(t *testing.T) {
	df := smallFrame(t)
	noFeatures := Schema{Columns: []Column{
		{Name: "age", Role: Ignore}, {Name: "city", Role: Ignore}, {Name: "income", Role: Ignore},
		{Name: "y", Role: Label, Kind: Categorical}}}
	tests := []struct {
		name   string
		schema Schema
		opts   EncodeOptions
		want   string
	}{
		{"validation", Schema{Columns: smallSchema().Columns[:2]}, EncodeOptions{}, "missing from the schema"},
		{"no features", noFeatures, EncodeOptions{}, "no Sensitive or Public feature"},
		{"bounds on categorical", smallSchema(), EncodeOptions{Bounds: map[string]Range{"city": {0, 1}}}, `"city", which is not a continuous feature`},
		{"empty bounds", smallSchema(), EncodeOptions{Bounds: map[string]Range{"age": {5, 5}}}, "Lo < Hi"},
		{"bad moments", smallSchema(), EncodeOptions{Moments: map[string]Moments{"age": {0, 0}}}, "SD > 0"},
		{"bad scale", smallSchema(), EncodeOptions{Scale: Scaling(7)}, "invalid Scale"},
		{"scale for unknown", smallSchema(), EncodeOptions{ScaleFor: map[string]Scaling{"zzz": MinMax}}, `"zzz"`},
		{"bounds width overflows", smallSchema(), EncodeOptions{Scale: MinMax, Bounds: map[string]Range{"age": {-1e308, 1e308}}},
			"narrow the Bounds entry (featuredp: --bounds age=LO:HI)"},
		{"bounds naming the regression label", regressionSchema(), EncodeOptions{Scale: MinMax, Bounds: map[string]Range{"income": {0, 5}}},
			`"income", the regression label: give its public range as EncodeOptions.LabelBounds`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Encode(df, tc.schema, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want mention of %q", err, tc.want)
			}
		})
	}
}

func TestEncodedHelpers(t *testing.T) {
	e, err := Encode(smallFrame(t), smallSchema(), EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := e.ColumnWeights([]float64{1, 0.3, 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w, []float64{1, 0.3, 0.3, 0.3, 1}) {
		t.Errorf("ColumnWeights %v", w)
	}
	if _, err := e.ColumnWeights([]float64{1}); err == nil {
		t.Error("wrong length: no error")
	}
	if got := e.FeatureColumns(1); !slices.Equal(got, []int{1, 2, 3}) {
		t.Errorf("FeatureColumns(1) = %v", got)
	}
	sub, err := e.Subset([]int{3, 0})
	if err != nil {
		t.Fatal(err)
	}
	if sub.N != 2 || sub.X[0] != 60 || sub.Y[0] != 1 || sub.X[sub.D] != 30 {
		t.Errorf("Subset: %+v", sub)
	}
	if _, err := e.Subset([]int{4}); err == nil {
		t.Error("out of range: no error")
	}
	if !slices.Equal(e.FeatureNames, []string{"age", "city", "income"}) || !slices.Equal(e.FeatureSensitive, []bool{true, false, true}) {
		t.Errorf("features %v %v", e.FeatureNames, e.FeatureSensitive)
	}
}

func TestEncodeDeclaredLevels(t *testing.T) {
	s := smallSchema()
	s.Columns[1].Levels = []string{"Rome", "Oslo", "Lima", "Paris"}
	s.Columns[3].Levels = []string{"yes", "no"}
	e, err := Encode(smallFrame(t), s, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"age", "city=Rome", "city=Oslo", "city=Lima", "city=Paris", "income"}
	if !slices.Equal(e.Columns, want) || !slices.Equal(e.Y, []float64{0, 1, 1, 0}) {
		t.Errorf("columns %v Y %v", e.Columns, e.Y)
	}
}

func ExampleEncode() {
	df := dataframe.LoadRecords([][]string{
		{"age", "sex", "region", "charges"},
		{"19", "female", "southwest", "16884.9"},
		{"18", "male", "southeast", "1725.6"},
		{"28", "male", "southeast", "4449.5"},
		{"33", "male", "northwest", "21984.5"},
	})
	schema := Schema{
		Task: Regression,
		Columns: []Column{
			{Name: "age", Role: Sensitive, Kind: Continuous},
			{Name: "sex", Role: Public, Kind: Categorical},
			{Name: "region", Role: Public, Kind: Categorical},
			{Name: "charges", Role: Label, Kind: Continuous},
		},
	}
	// Public bounds for age keep the scaling data-independent.
	enc, err := Encode(df, schema, EncodeOptions{
		DropFirst: true,
		Scale:     MinMax,
		Bounds:    map[string]Range{"age": {Lo: 18, Hi: 64}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(enc.Columns)
	fmt.Println(enc.Feature, enc.Sensitive)
	w, _ := enc.ColumnWeights([]float64{1, 0.36, 0.36}) // one weight per raw feature
	fmt.Println(w)
	fmt.Printf("%.3f\n", enc.X[:enc.D])
	// Output:
	// [age sex=male region=southeast region=southwest]
	// [0 1 2 2] [true false false false]
	// [1 0.36 0.36 0.36]
	// [0.022 0.000 0.000 1.000]
}

func TestEncodeTooWide(t *testing.T) {
	n := 20000
	ids := make([][]string, n+1)
	ids[0] = []string{"id", "y"}
	for i := 1; i <= n; i++ {
		ids[i] = []string{fmt.Sprintf("u%d", i), "0"}
	}
	df := dataframe.LoadRecords(ids)
	s := Schema{Columns: []Column{{Name: "id", Kind: Categorical}, {Name: "y", Role: Label, Kind: Categorical}}}
	_, err := Encode(df, s, EncodeOptions{})
	if err == nil || !strings.Contains(err.Error(), `"id" with 20000 levels`) {
		t.Fatalf("got %v", err)
	}
}

// Width counts the encoded columns without building their names, and
// agrees with the layout for every option.
func TestWidthMatchesLayout(t *testing.T) {
	cat := Column{Name: "c", Role: Public, Kind: Categorical}
	for _, tc := range []struct {
		levels          []string
		drop, intercept bool
		want            int
	}{
		{[]string{"a", "b", "c"}, false, false, 4},
		{[]string{"a", "b", "c"}, true, false, 3},
		{[]string{"a", "b", "c"}, true, true, 4},
		{[]string{"a"}, true, false, 1},
		{nil, true, true, 2},
	} {
		e := &Encoder{Options: EncodeOptions{DropFirst: tc.drop, Intercept: tc.intercept},
			Features: []FeatureEncoding{{Column: cat, Levels: tc.levels}, {Column: Column{Name: "x", Role: Sensitive}}}}
		if got, lay := e.Width(), e.layout(0).D; got != tc.want || got != lay {
			t.Errorf("%+v: Width %d, layout %d, want %d", tc, got, lay, tc.want)
		}
	}
}

// regressionSchema is smallSchema with income as a regression label and y
// a public category.
func regressionSchema() Schema {
	s := smallSchema()
	s.Task = Regression
	s.Columns[2].Role, s.Columns[3].Role = Label, Public
	return s
}

// Scaling fitted on data whose range or moments overflow float64 is
// refused by FitEncoder with the fix, not written into the matrix as NaN
// or 0.
func TestFitEncoderOverflowingRange(t *testing.T) {
	header := []string{"age", "city", "income", "y"}
	wideAge := [][]string{header, {"1e308", "Oslo", "1.5", "yes"}, {"5", "Rome", "2.5", "no"}, {"-1e308", "Oslo", "3", "no"}}
	wideIncome := [][]string{header, {"1", "Oslo", "1e308", "yes"}, {"5", "Rome", "2.5", "no"}, {"7", "Oslo", "-1e308", "no"}}
	for _, tc := range []struct {
		name   string
		rows   [][]string
		schema Schema
		opts   EncodeOptions
		want   string
	}{
		{"minmax width", wideAge, smallSchema(), EncodeOptions{Scale: MinMax},
			`column "age": the MinMax range [-1e+308, 1e+308] fitted on the data has a width Hi − Lo that overflows float64: give public Bounds`},
		{"zscore moments", wideAge, smallSchema(), EncodeOptions{Scale: ZScore},
			`column "age": the ZScore moments fitted on the data are not finite`},
		{"label scaling", wideIncome, regressionSchema(), EncodeOptions{Scale: MinMax, Bounds: map[string]Range{"age": {0, 10}}, LabelScale: MinMax},
			`scaling of label "income" fitted on the data is not finite`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			df := dataframe.LoadRecords(tc.rows)
			if err := df.Error(); err != nil {
				t.Fatal(err)
			}
			enc, err := FitEncoder(df, tc.schema, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("FitEncoder: %v (encoder %+v), want %q", err, enc, tc.want)
			}
		})
	}
}
