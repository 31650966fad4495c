package figures

import (
	"errors"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/notions/corrdp"
	"github.com/go-gota/gota/dataframe"
)

// TestNewFramePrepRequiresOptIn checks that preparing a frame with an
// encoding that would fit bounds or levels on the data is an error naming
// the columns, unless the options opt in (as NewRealPrep does for the
// paper's benchmark data).
func TestNewFramePrepRequiresOptIn(t *testing.T) {
	df := dataframe.LoadRecords([][]string{{"a", "c", "y"}, {"1", "u", "0"}, {"2", "v", "1"}, {"3", "u", "1"}})
	schema := data.Schema{Task: data.Classification, Columns: []data.Column{
		{Name: "a", Role: data.Public, Kind: data.Continuous},
		{Name: "c", Role: data.Sensitive, Kind: data.Categorical},
		{Name: "y", Role: data.Label, Kind: data.Categorical, Levels: []string{"0", "1"}},
	}}
	tests := []struct {
		name string
		opts data.EncodeOptions
		want string
	}{
		{"bounds fitted", data.EncodeOptions{Scale: data.MinMax, LevelsFromData: true}, `"a"`},
		{"levels fitted", data.EncodeOptions{Scale: data.MinMax, Bounds: map[string]data.Range{"a": {Lo: 0, Hi: 5}}}, `"c"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewFramePrep(df, schema, RealSpec{Name: "t", Kind: "logistic", Metric: "accuracy", Delta: 1e-5}, tc.opts)
			if !errors.Is(err, data.ErrPrivateStatistic) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrPrivateStatistic naming %s", err, tc.want)
			}
		})
	}
}

// The paper's figures estimate TVs with the paper's estimator
// (corrdp.ModelOnly), so they stay the paper's; the helper's spec takes the
// safe default (corrdp.Checked).
func TestRealSpecsUseModelOnly(t *testing.T) {
	for name, spec := range RealSpecs {
		if spec.Estimator != corrdp.ModelOnly {
			t.Errorf("RealSpecs[%q].Estimator = %v, want model-only", name, spec.Estimator)
		}
	}
	spec, _, err := CompareOptions{}.spec(data.Classification)
	if err != nil || spec.Estimator != corrdp.Checked {
		t.Errorf("the helper's spec: Estimator %v, err %v; want checked", spec.Estimator, err)
	}
}
