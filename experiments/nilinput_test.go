package experiments

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
)

// Exported functions given a nil or invalid argument return an error
// naming it instead of panicking (each panicked on the old code: a nil
// part dereferenced, Figure{}.Merge called a nil Cells, Parallel made a
// slice of negative length or called a nil f, Memo.Do called a nil f).
func TestNilAndInvalidArguments(t *testing.T) {
	f := shardFigure()
	part, err := f.ExecuteShard(context.Background(), Quick, Env{Workers: 1}, Shard{1, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	noop := func(context.Context, int) error { return nil }
	for _, tc := range []struct {
		name, want string
		call       func() error
	}{
		{"MergeParts nil part", "part 1 of 1 is nil", func() error { _, err := MergeParts([]*Part{nil}); return err }},
		{"MergeParts nil second part", "part 2 of 2 is nil", func() error { _, err := MergeParts([]*Part{part, nil}); return err }},
		{"Merge nil part", "part 1 of 1 is nil", func() error { _, err := f.Merge([]*Part{nil}); return err }},
		{"Merge invalid figure", "empty ID", func() error { _, err := Figure{}.Merge([]*Part{part}); return err }},
		{"Merge figure without Cells", "Cells and Run must both be set", func() error {
			g := f
			g.Cells = nil
			_, err := g.Merge([]*Part{part})
			return err
		}},
		{"Parallel negative n", "-1 indices", func() error { return Parallel(context.Background(), -1, 2, noop, nil) }},
		{"Parallel nil f", "nil function", func() error { return Parallel(context.Background(), 3, 2, nil, nil) }},
		{"Memo.Do nil f", `nil function for key "k"`, func() error { _, err := NewMemo(0).Do("k", nil); return err }},
		{"nil Memo.Do nil f", `nil function for key "k"`, func() error { var m *Memo; _, err := m.Do("k", nil); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("panicked: %v", r)
				}
			}()
			if err := tc.call(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
	if res, err := f.Merge([]*Part{part}); err != nil || len(res.Rows) != len(part.Rows) {
		t.Errorf("valid merge: %v", err)
	}
}

// A nil *Results reads as an empty table and refuses WriteCSV with an
// error naming the fix; a nil *Part and *Registry say what to use (each
// panicked on the old code).
func TestNilReceivers(t *testing.T) {
	var r *Results
	if m, x, e := r.Methods(), r.Metrics(), r.ExtraColumns(); len(m)+len(x)+len(e) != 0 {
		t.Errorf("nil Results: methods %v, metrics %v, extra columns %v; want none", m, x, e)
	}
	df := r.DataFrame()
	if df.Err != nil || df.Nrow() != 0 || !slices.Equal(df.Names(), CoreColumns) {
		t.Errorf("nil Results DataFrame: err %v, %d rows, columns %v; want no rows and %v", df.Err, df.Nrow(), df.Names(), CoreColumns)
	}
	var p *Part
	var reg *Registry
	if f, ok := reg.Lookup("x"); ok || f.ID != "" || len(reg.Figures()) != 0 || len(reg.Papers()) != 0 {
		t.Errorf("nil Registry: Lookup %v %v, figures %v, papers %v; want none", f, ok, reg.Figures(), reg.Papers())
	}
	for _, tc := range []struct {
		name, want string
		err        error
	}{
		{"Results.WriteCSV", "nil *Results: use the value returned by Figure.Execute", r.WriteCSV(io.Discard)},
		{"Part.WriteCSV", "nil *Part: use the value returned by Figure.ExecuteShard or ReadPart", p.WriteCSV(io.Discard)},
		{"Part.WriteManifest", "nil *Part", p.WriteManifest(io.Discard)},
		{"Registry.Register", "nil *Registry: declare a Registry value", reg.Register(shardFigure())},
		{"Registry.Select", "nil *Registry", func() error { _, err := reg.Select(nil); return err }()},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one saying %q", tc.name, tc.err, tc.want)
		}
	}
	if got := (*MissingDataError)(nil).Error(); !strings.Contains(got, "nil *MissingDataError") {
		t.Errorf("nil MissingDataError: %q", got)
	}
}
