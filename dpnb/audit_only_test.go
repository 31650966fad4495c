package dpnb

import (
	"context"
	"strings"
	"testing"

	"github.com/featuredp/featuredp/audit"
)

// TestAuditOnlyErrors: an empty Only audits nothing, which returned an
// empty result and no error; a misspelt name's error did not say which
// names exist. Both now name the registered mechanisms.
func TestAuditOnlyErrors(t *testing.T) {
	first := audit.All()[0].Name
	for _, c := range []struct {
		name string
		only []string
		want string
	}{
		{"empty", []string{}, "Only is empty"},
		{"misspelt", []string{first + "x"}, "want one of " + first},
	} {
		r, err := Audit(context.Background(), AuditOptions{Only: c.only})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: result %v, error %v; want an error with %q", c.name, r, err, c.want)
		}
	}
}
