package data

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Schemas and encoders round-trip through JSON with names for the enums;
// unknown names and invalid values are errors.
func TestEnumText(t *testing.T) {
	s := Schema{Task: Regression, Columns: []Column{
		{Name: "a", Role: Public, Kind: Categorical, Levels: []string{"x", "y"}},
		{Name: "b", Role: Sensitive, Kind: Continuous},
		{Name: "c", Role: Ignore},
		{Name: "y", Role: Label},
	}}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Task":"regression"`, `"Role":"public"`, `"Kind":"categorical"`, `"Role":"ignore"`, `"Role":"label"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	var back Schema
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, s) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	var sc Scaling
	if err := json.Unmarshal([]byte(`"zscore"`), &sc); err != nil || sc != ZScore {
		t.Errorf("scaling: %v %v", sc, err)
	}
	for _, bad := range []string{`{"Task":"regresion"}`, `{"Columns":[{"Role":"secret"}]}`, `{"Columns":[{"Kind":2}]}`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	if _, err := json.Marshal(Column{Role: Role(9)}); err == nil {
		t.Error("invalid role marshalled")
	}
}

// TestEnumTextHint: a misspelt role, kind or task name in a schema's JSON
// gets the name it most likely meant (before: only the list).
func TestEnumTextHint(t *testing.T) {
	var r Role
	var k Kind
	var task Task
	for _, tc := range []struct {
		err  error
		want string
	}{
		{r.UnmarshalText([]byte("senstive")), `(did you mean "sensitive"?)`},
		{k.UnmarshalText([]byte("Categorial")), `(did you mean "categorical"?)`},
		{task.UnmarshalText([]byte("regresion")), `(did you mean "regression"?)`},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%v, want it to say %s", tc.err, tc.want)
		}
	}
}
