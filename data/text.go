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

// MarshalText writes the role's name ("sensitive", "public", "label",
// "ignore"), so that schemas read well in JSON (for example in a model
// file).
func (r Role) MarshalText() ([]byte, error) {
	return marshalEnum("role", r, Sensitive, Public, Label, Ignore)
}

// UnmarshalText reads a role's name.
func (r *Role) UnmarshalText(b []byte) (err error) {
	*r, err = parseEnum("role", string(b), Sensitive, Public, Label, Ignore)
	return err
}

// MarshalText writes the kind's name ("continuous", "categorical").
func (k Kind) MarshalText() ([]byte, error) { return marshalEnum("kind", k, Continuous, Categorical) }

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) (err error) {
	*k, err = parseEnum("kind", string(b), Continuous, Categorical)
	return err
}

// MarshalText writes the task's name ("classification", "regression",
// "unsupervised").
func (t Task) MarshalText() ([]byte, error) {
	return marshalEnum("task", t, Classification, Regression, Unsupervised)
}

// UnmarshalText reads a task's name.
func (t *Task) UnmarshalText(b []byte) (err error) {
	*t, err = parseEnum("task", string(b), Classification, Regression, Unsupervised)
	return err
}

// MarshalText writes the scaling's name ("none", "minmax", "zscore").
func (s Scaling) MarshalText() ([]byte, error) {
	return marshalEnum("scaling", s, NoScaling, MinMax, ZScore)
}

// UnmarshalText reads a scaling's name.
func (s *Scaling) UnmarshalText(b []byte) (err error) {
	*s, err = parseEnum("scaling", string(b), NoScaling, MinMax, ZScore)
	return err
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
