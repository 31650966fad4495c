package suggest

import "testing"

func TestNearest(t *testing.T) {
	for _, tc := range []struct {
		name       string
		candidates []string
		want       string
	}{
		{"agee", []string{"sex", "age", "income"}, "age"},
		{"Age", []string{"age"}, "age"},
		{"hours_per_week", []string{"hours-per-week"}, "hours-per-week"},
		{"zzzz", []string{"age"}, ""},
		{"ag", []string{"ag1", "ag2"}, "ag1"},
		{"", nil, ""},
	} {
		if got := Nearest(tc.name, tc.candidates); got != tc.want {
			t.Errorf("Nearest(%q, %q) = %q, want %q", tc.name, tc.candidates, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"kitten", "sitting", 3}, {"abc", "", 3}, {"é", "e", 1}, {"flaw", "lawn", 2},
	} {
		if got := Distance([]rune(tc.a), []rune(tc.b)); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
