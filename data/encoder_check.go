package data

import (
	"errors"
	"fmt"

	"github.com/featuredp/featuredp/internal/valid"
)

// ErrEncoder marks an Encoder whose fields are inconsistent: one not made
// by FitEncoder or NewPublicEncoder, or edited or decoded from a damaged
// file (see Encoder.Validate).
var ErrEncoder = errors.New("inconsistent encoder")

// errNilEncoder is the error of a method called on a nil *Encoder; it
// wraps ErrEncoder.
var errNilEncoder = fmt.Errorf("data: nil *Encoder: build one with FitEncoder or NewPublicEncoder (or read it from a model file) and check its error: %w", ErrEncoder)

// Validate checks an Encoder that may not come from FitEncoder or
// NewPublicEncoder (decoded from a model file, say): its schema is well
// formed; Features lists the schema's features in order, with the same
// names, roles and kinds; every categorical feature has distinct levels,
// at least one; every continuous feature has a known scaling with finite
// parameters (Lo ≤ Hi with a finite width Hi − Lo, SD ≥ 0); a classification label has distinct
// classes, at least one; a regression label's LabelShift is finite and
// its LabelDiv finite and non-zero. Transform and EncodeCSV call it first.
func (e *Encoder) Validate() error {
	if e == nil {
		return errNilEncoder
	}
	structure, _ := e.Schema.structureErrors()
	errs := append(structure, e.Schema.labelErrors()...)
	feats := e.Schema.Features()
	if len(feats) == 0 {
		errs = append(errs, fmt.Errorf("data: the encoder's schema has no Sensitive or Public feature: %w", ErrSchema))
	}
	if len(e.Features) != len(feats) {
		errs = append(errs, fmt.Errorf("data: the encoder has %d features, its schema %d: %w", len(e.Features), len(feats), ErrEncoder))
	} else {
		for i, fe := range e.Features {
			errs = append(errs, fe.check(feats[i]))
		}
	}
	errs = append(errs, e.labelCheck()...)
	return errors.Join(errs...)
}

// check compares feature encoding fe with its schema column c and checks
// its parameters.
func (fe FeatureEncoding) check(c Column) error {
	got := fe.Column
	if got.Name != c.Name || got.Role != c.Role || got.Kind != c.Kind {
		return fmt.Errorf("data: encoder feature %q (%v, %v) does not match schema feature %q (%v, %v): %w",
			got.Name, got.Role, got.Kind, c.Name, c.Role, c.Kind, ErrEncoder)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("data: encoder feature %q: "+format+": %w", append(append([]any{c.Name}, a...), ErrEncoder)...)
	}
	if c.Kind == Categorical {
		if len(fe.Levels) == 0 {
			return bad("no levels")
		}
		if i := firstRepeat(fe.Levels); i >= 0 {
			return bad("level %q listed twice", fe.Levels[i])
		}
		return nil
	}
	switch {
	case len(fe.Levels) > 0:
		return bad("a continuous feature with levels")
	case fe.Scale < NoScaling || fe.Scale > ZScore:
		return bad("unknown scaling %v", fe.Scale)
	case fe.Scale == MinMax && !(valid.Finite(fe.Lo) && valid.Finite(fe.Hi) && fe.Lo <= fe.Hi):
		return bad("MinMax bounds must be finite with Lo ≤ Hi, got [%v, %v]", fe.Lo, fe.Hi)
	case fe.Scale == MinMax && !valid.Finite(fe.Hi-fe.Lo):
		return bad("MinMax bounds [%v, %v] have a width Hi − Lo that overflows float64 (every value would scale to NaN or 0): "+
			"narrow them (the Bounds entry, featuredp --bounds) to the column's real range", fe.Lo, fe.Hi)
	case fe.Scale == ZScore && !(valid.Finite(fe.Mean) && valid.Finite(fe.SD) && fe.SD >= 0):
		return bad("ZScore moments must be finite with SD ≥ 0, got mean %v, sd %v", fe.Mean, fe.SD)
	}
	return nil
}

// labelCheck checks the label's classes or its regression scaling.
func (e *Encoder) labelCheck() []error {
	if _, ok := e.Schema.Label(); !ok {
		return nil
	}
	switch e.Schema.Task {
	case Classification:
		if len(e.Classes) == 0 {
			return []error{fmt.Errorf("data: the encoder has no label classes: %w", ErrEncoder)}
		}
		if i := firstRepeat(e.Classes); i >= 0 {
			return []error{fmt.Errorf("data: the encoder lists class %q twice: %w", e.Classes[i], ErrEncoder)}
		}
	case Regression:
		if !valid.Finite(e.LabelShift) || !valid.Finite(e.LabelDiv) || e.LabelDiv == 0 {
			return []error{fmt.Errorf("data: the encoder's label scaling must be finite with a non-zero divisor, got shift %v, divisor %v: %w",
				e.LabelShift, e.LabelDiv, ErrEncoder)}
		}
		if e.LabelClip && !(e.LabelDiv > 0 && valid.Finite(e.LabelShift+e.LabelDiv)) {
			return []error{fmt.Errorf("data: the encoder clips the label to [%v, %v + %v]: want a positive, finite range: %w",
				e.LabelShift, e.LabelShift, e.LabelDiv, ErrEncoder)}
		}
	}
	if e.LabelClip && e.Schema.Task != Regression {
		return []error{fmt.Errorf("data: the encoder clips a label of a %v schema: only a regression label is clipped: %w", e.Schema.Task, ErrEncoder)}
	}
	return nil
}

// firstRepeat returns the index of the first element of s that repeats an
// earlier one, or −1.
func firstRepeat(s []string) int {
	seen := make(map[string]bool, len(s))
	for i, v := range s {
		if seen[v] {
			return i
		}
		seen[v] = true
	}
	return -1
}
