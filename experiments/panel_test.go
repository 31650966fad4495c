package experiments

import (
	"context"
	"strings"
	"testing"
)

func TestSplitGroup(t *testing.T) {
	for _, tc := range []struct {
		group, key, value, rest string
		ok                      bool
	}{
		{"dataset=purchase, mode=paper", "dataset", "purchase", "mode=paper", true},
		{"mode=paper, dataset=fmnist", "dataset", "fmnist", "mode=paper", true},
		{"dataset=purchase", "dataset", "purchase", "", true},
		{"mode=paper", "dataset", "", "mode=paper", false},
		{"", "dataset", "", "", false},
	} {
		v, rest, ok := SplitGroup(tc.group, tc.key)
		if v != tc.value || rest != tc.rest || ok != tc.ok {
			t.Errorf("SplitGroup(%q, %q) = %q, %q, %v; want %q, %q, %v", tc.group, tc.key, v, rest, ok, tc.value, tc.rest, tc.ok)
		}
	}
}

func TestValidatePanelBy(t *testing.T) {
	f := Figure{ID: "x-fig", Paper: "x", Cells: func(Profile) ([]Cell, error) { return nil, nil },
		Run: func(context.Context, Cell, Env) ([]Measurement, error) { return nil, nil }, GroupBy: []string{"dataset"}, PanelBy: "datset"}
	if err := f.Validate(); err == nil || !strings.Contains(err.Error(), `PanelBy "datset"`) {
		t.Errorf("misspelt PanelBy: %v", err)
	}
	f.PanelBy = "dataset"
	if err := f.Validate(); err != nil {
		t.Errorf("valid PanelBy: %v", err)
	}
}
