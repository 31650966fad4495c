package valid

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type nullInner struct {
	Lo, Hi float64
	Clip   bool
}

// nullText reads a JSON string (as data.Role and data.Scaling do).
type nullText int

// UnmarshalText implements encoding.TextUnmarshaler.
func (n *nullText) UnmarshalText(b []byte) error { *n = nullText(len(b)); return nil }

type nullDoc struct {
	Role    nullText             `json:"role"`
	Epsilon float64              `json:"epsilon"`
	Steps   int                  `json:"steps,omitempty"`
	Name    string               `json:"name"`
	Skip    float64              `json:"-"`
	Theta   []float64            `json:"theta"`
	Ranges  map[string]nullInner `json:"ranges"`
	Inner   nullInner            `json:"inner"`
	Ptr     *nullInner           `json:"ptr"`
	Pair    [2]float64           `json:"pair"`
	Any     any                  `json:"any"`
	Levels  []string             `json:"levels"`
}

// JSONNulls names the first null that json.Unmarshal would read as a zero
// value, at any depth, and lets through the nulls that decode as nil and
// the documents without any null.
func TestJSONNulls(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string // want: the path named, "" for no error
	}{
		{"no null", `{"epsilon":1,"theta":[1,2],"name":"null"}`, ""},
		{"number", `{"epsilon":null}`, `"epsilon" must be a number`},
		{"integer", `{"steps":null}`, `"steps" must be a number`},
		{"string", `{"name":null}`, `"name" must be a string`},
		{"text", `{"role":null}`, `"role" must be a string`},
		{"slice element", `{"theta":[1,null]}`, `"theta[1]" must be a number`},
		{"array element", `{"pair":[null,1]}`, `"pair[0]" must be a number`},
		{"map value", `{"ranges":{"age":null}}`, `"ranges.age" must be an object`},
		{"map value field", `{"ranges":{"age":{"Lo":0,"Hi":null}}}`, `"ranges.age.Hi" must be a number`},
		{"struct", `{"inner":null}`, `"inner" must be an object`},
		{"bool in a pointer's struct", `{"ptr":{"Clip":null}}`, `"ptr.Clip" must be true or false`},
		{"key in another case", `{"EPSILON":null}`, `"EPSILON" must be a number`},
		{"nil slice, map, pointer, interface", `{"theta":null,"ranges":null,"ptr":null,"any":null,"levels":null}`, ""},
		{"inside an interface", `{"any":{"x":null}}`, ""},
		{"unknown and ignored keys", `{"other":null,"Skip":null}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d nullDoc
			if err := json.Unmarshal([]byte(tc.doc), &d); err != nil {
				t.Fatal(err)
			}
			err := JSONNulls([]byte(tc.doc), &d)
			var ne *NullError
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("JSONNulls: %v, want nil", err)
			case tc.want != "" && (!errors.As(err, &ne) || !strings.Contains(err.Error(), "field "+tc.want+", got null")):
				t.Errorf("JSONNulls: %v, want a *NullError naming %s", err, tc.want)
			}
		})
	}
}
