package data

import (
	"fmt"

	"github.com/featuredp/featuredp/internal/suggest"
)

// parseEnum returns the value among vals whose String is s.
func parseEnum[T interface {
	~int
	String() string
}](what, s string, vals ...T) (T, error) {
	var names []string
	for _, v := range vals {
		if v.String() == s {
			return v, nil
		}
		names = append(names, v.String())
	}
	return 0, fmt.Errorf("data: unknown %s %q%s (want one of %v)", what, s, suggest.Hint(s, names), names)
}

// unmarshalEnum sets *dst to the value among vals named by b (as
// parseEnum); a nil dst is an error naming its type typ.
func unmarshalEnum[T interface {
	~int
	String() string
}](typ, what string, dst *T, b []byte, vals ...T) error {
	if dst == nil {
		return fmt.Errorf("data: UnmarshalText on a nil *%s: pass the address of a %s variable", typ, typ)
	}
	v, err := parseEnum(what, string(b), vals...)
	*dst = v
	return err
}

// MarshalText writes the role's name ("sensitive", "public", "label",
// "ignore"), so that schemas read well in JSON (for example in a model
// file).
func (r Role) MarshalText() ([]byte, error) {
	return marshalEnum("role", r, Sensitive, Public, Label, Ignore)
}

// UnmarshalText reads a role's name (an error for a nil receiver).
func (r *Role) UnmarshalText(b []byte) error {
	return unmarshalEnum("Role", "role", r, b, Sensitive, Public, Label, Ignore)
}

// MarshalText writes the kind's name ("continuous", "categorical").
func (k Kind) MarshalText() ([]byte, error) { return marshalEnum("kind", k, Continuous, Categorical) }

// UnmarshalText reads a kind's name (an error for a nil receiver).
func (k *Kind) UnmarshalText(b []byte) error {
	return unmarshalEnum("Kind", "kind", k, b, Continuous, Categorical)
}

// MarshalText writes the task's name ("classification", "regression",
// "unsupervised").
func (t Task) MarshalText() ([]byte, error) {
	return marshalEnum("task", t, Classification, Regression, Unsupervised)
}

// UnmarshalText reads a task's name (an error for a nil receiver).
func (t *Task) UnmarshalText(b []byte) error {
	return unmarshalEnum("Task", "task", t, b, Classification, Regression, Unsupervised)
}

// MarshalText writes the scaling's name ("none", "minmax", "zscore").
func (s Scaling) MarshalText() ([]byte, error) {
	return marshalEnum("scaling", s, NoScaling, MinMax, ZScore)
}

// UnmarshalText reads a scaling's name (an error for a nil receiver).
func (s *Scaling) UnmarshalText(b []byte) error {
	return unmarshalEnum("Scaling", "scaling", s, b, NoScaling, MinMax, ZScore)
}

// marshalEnum writes v's name, refusing a value outside vals.
func marshalEnum[T interface {
	~int
	String() string
}](what string, v T, vals ...T) ([]byte, error) {
	if _, err := parseEnum(what, v.String(), vals...); err != nil {
		return nil, fmt.Errorf("data: %s %d is not a valid %s", what, int(v), what)
	}
	return []byte(v.String()), nil
}
