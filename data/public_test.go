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

// publicSchema is smallSchema as a classification task.
func publicSchema() Schema {
	s := smallSchema().Clone()
	s.Task = Classification
	return s
}

// allPublic gives every column of publicSchema public parameters.
func allPublic() EncodeOptions {
	return EncodeOptions{Scale: MinMax,
		Bounds: map[string]Range{"age": {Lo: 0, Hi: 100}, "income": {Lo: 0, Hi: 5}},
		Levels: map[string][]string{"city": {"Lima", "Oslo", "Rome"}, "y": {"no", "yes"}}}
}

func TestRequirePublic(t *testing.T) {
	without := func(f func(o *EncodeOptions)) EncodeOptions {
		o := allPublic()
		f(&o)
		return o
	}
	tests := []struct {
		name string
		opts EncodeOptions
		want []string // substrings of the error; nil: no error
	}{
		{"all public", allPublic(), nil},
		{"no scaling needs no bounds", without(func(o *EncodeOptions) { o.Scale, o.Bounds = NoScaling, nil }), nil},
		{"missing bounds", without(func(o *EncodeOptions) { delete(o.Bounds, "income") }),
			[]string{`"income"`, "EncodeOptions.Bounds", "BoundsFromData"}},
		{"missing bounds, opted in", without(func(o *EncodeOptions) { o.Bounds, o.BoundsFromData = nil, true }), nil},
		{"zscore without moments", without(func(o *EncodeOptions) { o.ScaleFor = map[string]Scaling{"age": ZScore}; delete(o.Bounds, "age") }),
			[]string{`"age"`, "Moments", "BoundsFromData"}},
		{"bounds that the scaling ignores", without(func(o *EncodeOptions) { o.Scale = NoScaling }),
			[]string{`Bounds of "age" are given but its scaling is`, "set Scale: data.MinMax"}},
		{"bounds under zscore", without(func(o *EncodeOptions) { o.ScaleFor = map[string]Scaling{"age": ZScore} }),
			[]string{`Bounds of "age"`, `ScaleFor["age"] = data.MinMax`}},
		{"missing levels", without(func(o *EncodeOptions) { delete(o.Levels, "city") }),
			[]string{`"city"`, "EncodeOptions.Levels", "LevelsFromData"}},
		{"missing label classes", without(func(o *EncodeOptions) { delete(o.Levels, "y") }),
			[]string{`"y"`, "LevelsFromData"}},
		{"missing levels, opted in", without(func(o *EncodeOptions) { o.Levels, o.LevelsFromData = nil, true }), nil},
		{"levels opt-in does not cover bounds", without(func(o *EncodeOptions) { o.Bounds, o.LevelsFromData = nil, true }),
			[]string{`"age", "income"`, "BoundsFromData"}},
		{"misspelt Levels key", without(func(o *EncodeOptions) { o.Levels["ctiy"] = []string{"Oslo"} }),
			[]string{`"ctiy"`, `valid columns: "city", "y"`}},
		{"misspelt Bounds key", without(func(o *EncodeOptions) { o.Bounds["agee"] = Range{Lo: 0, Hi: 1} }),
			[]string{`"agee"`, `continuous features: "age", "income"`}},
		{"empty levels", without(func(o *EncodeOptions) { o.Levels["city"] = nil }), []string{`Levels["city"] is empty`}},
		{"repeated level", without(func(o *EncodeOptions) { o.Levels["y"] = []string{"no", "no"} }), []string{`repeats level "no"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.RequirePublic(publicSchema())
			if tc.want == nil {
				if err != nil {
					t.Fatalf("RequirePublic: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("RequirePublic: no error, want one containing %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestRequirePublicSentinel(t *testing.T) {
	err := EncodeOptions{Scale: MinMax}.RequirePublic(publicSchema())
	if !errors.Is(err, ErrPrivateStatistic) {
		t.Fatalf("error %v does not wrap ErrPrivateStatistic", err)
	}
}

func TestDataDependent(t *testing.T) {
	reg := Schema{Task: Regression, Columns: []Column{{Name: "age", Role: Public, Kind: Continuous}, {Name: "income", Role: Label, Kind: Continuous}}}
	tests := []struct {
		name    string
		schema  Schema
		opts    EncodeOptions
		scaling []string
		levels  []string
	}{
		{"nothing given", publicSchema(), EncodeOptions{Scale: MinMax}, []string{"age", "income"}, []string{"city", "y"}},
		{"schema levels count as public", func() Schema {
			s := publicSchema()
			s.Columns[1].Levels = []string{"Lima", "Oslo", "Rome"}
			return s
		}(), EncodeOptions{}, nil, []string{"y"}},
		{"all public", publicSchema(), allPublic(), nil, nil},
		{"regression label scaling", reg, EncodeOptions{LabelScale: ZScore}, []string{"income"}, nil},
		{"regression label unscaled", reg, EncodeOptions{}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.opts.DataDependent(tc.schema)
			if !slices.Equal(d.Scaling, tc.scaling) || !slices.Equal(d.Levels, tc.levels) {
				t.Fatalf("DataDependent = %+v, want scaling %v, levels %v", d, tc.scaling, tc.levels)
			}
			if d.Empty() != (tc.scaling == nil && tc.levels == nil) {
				t.Fatalf("Empty() = %v for %+v", d.Empty(), d)
			}
		})
	}
}

// TestEncodeLevelsOption checks that EncodeOptions.Levels fixes the
// one-hot columns and the classes (overriding the data and the schema),
// and that a value outside them is an error naming the column and value.
func TestEncodeLevelsOption(t *testing.T) {
	o := allPublic()
	o.Levels["city"] = []string{"Rome", "Oslo", "Lima", "Pisa"}
	o.Levels["y"] = []string{"yes", "no"}
	e, err := Encode(smallFrame(t), publicSchema(), o)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"age", "city=Rome", "city=Oslo", "city=Lima", "city=Pisa", "income"}
	if !slices.Equal(e.Columns, want) || !slices.Equal(e.Classes, []string{"yes", "no"}) {
		t.Fatalf("columns %v classes %v, want %v and [yes no]", e.Columns, e.Classes, want)
	}
	o.Levels["city"] = []string{"Oslo", "Rome"}
	_, err = Encode(smallFrame(t), publicSchema(), o)
	if !errors.Is(err, ErrUnknownLevel) || !strings.Contains(err.Error(), `"city"`) || !strings.Contains(err.Error(), `"Lima"`) {
		t.Fatalf("unseen level: error %v, want ErrUnknownLevel naming city and Lima", err)
	}
}

// FuzzPublicEncodingIsDataIndependent checks the class of defects behind
// the opt-in: when RequirePublic accepts options without BoundsFromData
// or LevelsFromData, the encoding of a row must not depend on the other
// rows. It fits on a frame and on a neighbouring frame (one row changed to
// arbitrary values) and compares the encodings of the common rows.
func FuzzPublicEncodingIsDataIndependent(f *testing.F) {
	f.Add(uint8(0xff), 70.0, "Lima", 9.0, false)
	f.Add(uint8(0x00), -5.0, "Oslo", 0.1, true)
	f.Add(uint8(0x15), 1e9, "Rome", -3.0, false)
	f.Fuzz(func(t *testing.T, mask uint8, age float64, city string, income float64, yes bool) {
		if math.IsNaN(age) || math.IsInf(age, 0) || math.IsNaN(income) || math.IsInf(income, 0) {
			return
		}
		o := fuzzOptions(mask)
		if o.RequirePublic(publicSchema()) != nil || o.BoundsFromData || o.LevelsFromData {
			return
		}
		base := smallFrame(t)
		y := map[bool]string{true: "yes", false: "no"}[yes]
		neigh := dataframe.LoadRecords([][]string{{"age", "city", "income", "y"},
			{"30", "Oslo", "1.5", "yes"}, {"45", "Rome", "2.5", "no"}, {"22", "Oslo", "0.5", "no"},
			{fmt.Sprint(age), city, fmt.Sprint(income), y}})
		if neigh.Error() != nil {
			return
		}
		e1, err1 := FitEncoder(base, publicSchema(), o)
		e2, err2 := FitEncoder(neigh, publicSchema(), o)
		if err1 != nil || err2 != nil {
			return // a neighbour the schema rejects
		}
		common := base.Subset([]int{0, 1, 2})
		x1, err1 := e1.Transform(common)
		x2, err2 := e2.Transform(common)
		if err1 != nil || err2 != nil {
			t.Fatalf("Transform of the common rows: %v / %v", err1, err2)
		}
		if !slices.Equal(x1.X, x2.X) || !slices.Equal(x1.Y, x2.Y) || !slices.Equal(x1.Columns, x2.Columns) {
			t.Fatalf("options %+v accepted as public, but the encoding depends on row 4: %v vs %v", o, x1.X, x2.X)
		}
	})
}

// fuzzOptions builds encoding options from the bits of mask: which
// columns get public bounds and levels, the scaling and the opt-ins.
func fuzzOptions(mask uint8) EncodeOptions {
	o := EncodeOptions{Bounds: map[string]Range{}, Levels: map[string][]string{}, Moments: map[string]Moments{}}
	if mask&1 != 0 {
		o.Scale = MinMax
	}
	if mask&2 != 0 {
		o.Bounds["age"] = Range{Lo: 0, Hi: 100}
	}
	if mask&4 != 0 {
		o.Bounds["income"] = Range{Lo: 0, Hi: 5}
	}
	if mask&8 != 0 {
		o.Levels["city"] = []string{"Lima", "Oslo", "Rome"}
	}
	if mask&16 != 0 {
		o.Levels["y"] = []string{"no", "yes"}
	}
	if mask&32 != 0 {
		o.ScaleFor = map[string]Scaling{"income": ZScore}
		o.Moments["income"] = Moments{Mean: 1, SD: 2}
	}
	o.BoundsFromData = mask&64 != 0
	o.LevelsFromData = mask&128 != 0
	return o
}
