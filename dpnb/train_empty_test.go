package dpnb

import (
	"context"
	"strings"
	"testing"
)

// TestTrainEmptyFrame: a DataFrame without rows is an error that says so
// and what to pass (it was "models: empty data (n=0, d=6)"), for Train and
// for CheckRelease's training set.
func TestTrainEmptyFrame(t *testing.T) {
	df, schema := corrdpUserFrame(300)
	empty := df.Subset([]int{})
	const want = "the training data has no rows"
	if _, err := Train(context.Background(), empty, schema, trainOpts()); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Train: %v, want an error with %q", err, want)
	}
	if _, err := CheckRelease(context.Background(), empty, df, schema, trainOpts()); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("CheckRelease: %v, want an error with %q", err, want)
	}
}
