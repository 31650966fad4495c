package data

import (
	"slices"
	"strings"
	"testing"

	"github.com/go-gota/gota/series"
)

// TestMissingMarkerSpaced: a missing-value marker with white space around
// it (" NA", "- ") is missing, as every reader reads a cell trimmed
// (LevelAt, IsMissing, EncodeCSV). Before, ReadCSV compared the markers
// with the untrimmed cell: " NA" stayed text, so in a categorical column
// it became the level "NA" beside the missing "NA" rows (DropMissing kept
// it), and in a numeric column it turned the column into text.
func TestMissingMarkerSpaced(t *testing.T) {
	for _, tc := range []struct {
		name     string
		text     string
		opts     CSVOptions
		kept     int         // rows DropMissing keeps
		typ      series.Type // of column x
		levelsOf []string    // distinct levels of column c after DropMissing
	}{
		{"NA spaced", "c,x\nNA,1\n NA,2\nEU,3\nNA ,4\n", CSVOptions{}, 1, series.Int, []string{"EU"}},
		{"numeric column", "c,x\nEU,1\nUS, NA\nEU,2.5\n", CSVOptions{}, 2, series.Float, []string{"EU"}},
		{"own marker", "c,x\n- ,1\nEU,2\n -,3\n", CSVOptions{Missing: []string{"-"}}, 1, series.Int, []string{"EU"}},
		{"marker not missing", "c,x\n NA,1\nNA,2\n", CSVOptions{Missing: []string{}}, 2, series.Int, []string{"NA"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			df, err := ReadCSV(strings.NewReader(tc.text), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := df.Col("x").Type(); got != tc.typ {
				t.Errorf("column x is %v, want %v", got, tc.typ)
			}
			kept, _, err := DropMissing(df)
			if err != nil {
				t.Fatal(err)
			}
			if kept.Nrow() != tc.kept {
				t.Fatalf("DropMissing keeps %d rows (%v), want %d", kept.Nrow(), kept.Col("c").Records(), tc.kept)
			}
			if got := distinctLevels(kept.Col("c")); strings.Join(got, "|") != strings.Join(tc.levelsOf, "|") {
				t.Errorf("levels %q, want %q", got, tc.levelsOf)
			}
		})
	}
}

// TestLevelsAsWrittenBothPaths: case and Unicode form (é composed, and e
// with a combining accent) make distinct levels, white space around a cell
// does not, and a DataFrame read by ReadCSV encodes as EncodeCSV does:
// no path merges levels that the other keeps apart.
func TestLevelsAsWrittenBothPaths(t *testing.T) {
	levels := []string{"Male", "male", "\u00e9", "e\u0301", "NA"}
	text := "c,y\nMale,a\nmale,b\n\u00e9,a\ne\u0301,b\n Male ,a\nNA,b\n"
	schema := Schema{Columns: []Column{{Name: "c", Kind: Categorical, Levels: levels},
		{Name: "y", Role: Label, Kind: Categorical, Levels: []string{"a", "b"}}}}
	enc, err := NewPublicEncoder(schema, EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := CSVOptions{Missing: []string{}} // "NA" a level on both paths
	df, err := ReadCSV(strings.NewReader(text), opts)
	if err != nil {
		t.Fatal(err)
	}
	fromFrame, err := enc.Transform(df)
	if err != nil {
		t.Fatal(err)
	}
	fromCSV, err := enc.EncodeCSV(strings.NewReader(text), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(fromFrame.X, fromCSV.X) {
		t.Fatalf("DataFrame path %v, CSV stream %v", fromFrame.X, fromCSV.X)
	}
	want := []int{0, 1, 2, 3, 0, 4} // the level of each row
	for i, k := range want {
		if row := fromCSV.X[i*fromCSV.D : (i+1)*fromCSV.D]; row[k] != 1 {
			t.Errorf("row %d encoded %v, want level %q", i, row, levels[k])
		}
	}
}
