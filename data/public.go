package data

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/featuredp/featuredp/internal/suggest"
)

// ErrPrivateStatistic marks an encoding that would read a statistic of the
// private data (scaling parameters or category levels) that no privacy
// budget accounts for; see EncodeOptions.RequirePublic.
var ErrPrivateStatistic = errors.New("encoding parameters would be fitted on the private data")

// DataDependence lists the encoding parameters FitEncoder would fit on the
// data rather than take from the options or the schema.
type DataDependence struct {
	// Scaling are the continuous features (and a scaled regression label)
	// whose MinMax bounds or ZScore moments would be fitted on the data.
	Scaling []string
	// Levels are the categorical features (and a classification label)
	// whose levels would be the values that occur in the data.
	Levels []string
}

// Empty reports whether the encoding is data-independent.
func (d DataDependence) Empty() bool { return len(d.Scaling) == 0 && len(d.Levels) == 0 }

// String describes the dependence, for example "scaling fitted on the data
// for "age"; levels taken from the data for "region"", or "" when Empty.
func (d DataDependence) String() string {
	var parts []string
	if len(d.Scaling) > 0 {
		parts = append(parts, "scaling (min/max or mean/sd) fitted on the data for "+quoteList(d.Scaling))
	}
	if len(d.Levels) > 0 {
		parts = append(parts, "category levels taken from the data for "+quoteList(d.Levels))
	}
	return strings.Join(parts, "; ")
}

// DataDependent returns the parameters FitEncoder would fit on the data
// under schema and o: a MinMax feature without Bounds, a ZScore feature
// without Moments, a regression label with a LabelScale, a categorical
// feature or classification label without Levels or Column.Levels. Names
// are in schema order.
func (o EncodeOptions) DataDependent(schema Schema) DataDependence {
	var d DataDependence
	for _, c := range schema.Features() {
		switch c.Kind {
		case Categorical:
			if len(o.publicLevels(c)) == 0 {
				d.Levels = append(d.Levels, c.Name)
			}
		case Continuous:
			if o.fittedScale(c.Name) {
				d.Scaling = append(d.Scaling, c.Name)
			}
		}
	}
	if l, ok := schema.Label(); ok {
		switch {
		case schema.Task == Classification && len(o.publicLevels(l)) == 0:
			d.Levels = append(d.Levels, l.Name)
		case schema.Task == Regression && o.LabelScale != NoScaling:
			d.Scaling = append(d.Scaling, l.Name)
		}
	}
	return d
}

// Unaccounted returns the part of DataDependent the caller did not opt in
// to: Scaling unless BoundsFromData, Levels unless LevelsFromData.
func (o EncodeOptions) Unaccounted(schema Schema) DataDependence {
	d := o.DataDependent(schema)
	if o.BoundsFromData {
		d.Scaling = nil
	}
	if o.LevelsFromData {
		d.Levels = nil
	}
	return d
}

// RequirePublic checks the options against schema (as FitEncoder does) and
// returns an error wrapping ErrPrivateStatistic, naming the columns and the
// fix, when FitEncoder would fit a scaling parameter or take category
// levels from the data without the caller's explicit opt-in
// (BoundsFromData, LevelsFromData). A private helper calls it before
// encoding: such a statistic spends privacy that no budget accounts for.
func (o EncodeOptions) RequirePublic(schema Schema) error {
	if err := checkEncodeOptions(schema, o); err != nil {
		return err
	}
	d := o.Unaccounted(schema)
	var errs []error
	if len(d.Scaling) > 0 {
		errs = append(errs, fmt.Errorf("the scaling of %s would be fitted on the private data: give public ranges in EncodeOptions.Bounds "+
			"(e.g. Bounds: map[string]data.Range{%q: {Lo: …, Hi: …}}) or Moments for ZScore, use no LabelScale for a regression label, "+
			"or set EncodeOptions.BoundsFromData = true to accept bounds from the data (not differentially private): %w",
			quoteList(d.Scaling), d.Scaling[0], ErrPrivateStatistic))
	}
	if len(d.Levels) > 0 {
		errs = append(errs, fmt.Errorf("the category levels of %s would be taken from the private data: list them in EncodeOptions.Levels "+
			"(e.g. Levels: map[string][]string{%q: {…}}) or in the schema's Column.Levels, "+
			"or set EncodeOptions.LevelsFromData = true to accept levels from the data (not differentially private): %w",
			quoteList(d.Levels), d.Levels[0], ErrPrivateStatistic))
	}
	return errors.Join(errs...)
}

// publicLevels returns the public levels of column c: o.Levels[c.Name] if
// given, else c.Levels (nil if neither).
func (o EncodeOptions) publicLevels(c Column) []string {
	if lv, ok := o.Levels[c.Name]; ok {
		return lv
	}
	return c.Levels
}

// fittedScale reports whether the scaling of continuous feature name
// would be fitted on the data.
func (o EncodeOptions) fittedScale(name string) bool {
	switch o.ScaleOf(name) {
	case MinMax:
		_, ok := o.Bounds[name]
		return !ok
	case ZScore:
		_, ok := o.Moments[name]
		return !ok
	}
	return false
}

// checkLevelsOption validates EncodeOptions.Levels: every key must be a
// categorical feature or the classification label, with at least one
// level and no repeated level.
func checkLevelsOption(schema Schema, levels map[string][]string) []error {
	var valid []string
	for _, c := range schema.Features() {
		if c.Kind == Categorical {
			valid = append(valid, c.Name)
		}
	}
	if l, ok := schema.Label(); ok && schema.Task == Classification {
		valid = append(valid, l.Name)
	}
	var errs []error
	for _, name := range sortedKeys(levels) {
		if !slices.Contains(valid, name) {
			errs = append(errs, fmt.Errorf("Levels names %q, which is not a categorical feature or the classification label of the schema%s (valid columns: %s)",
				name, suggest.Hint(name, valid), quoteList(valid)))
			continue
		}
		lv := levels[name]
		if len(lv) == 0 {
			errs = append(errs, fmt.Errorf("Levels[%q] is empty: list the column's public levels", name))
		}
		seen := map[string]bool{}
		for _, l := range lv {
			if seen[l] {
				errs = append(errs, fmt.Errorf("Levels[%q] repeats level %q", name, l))
			}
			seen[l] = true
			if spaced(l) {
				errs = append(errs, fmt.Errorf("Levels[%q] lists %q, with white space around it: every reader trims a cell's spaces, so no cell could be it: list %q", name, l, strings.TrimSpace(l)))
			}
			if alwaysMissing(l) {
				errs = append(errs, fmt.Errorf("Levels[%q] lists %q, which every reader takes for a missing value: rename it", name, l))
			}
		}
	}
	return errs
}

// continuousFeatures returns the continuous Sensitive and Public features.
func continuousFeatures(schema Schema) []string {
	var out []string
	for _, c := range schema.Features() {
		if c.Kind == Continuous {
			out = append(out, c.Name)
		}
	}
	return out
}

// sortedKeys returns the keys of m in increasing order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// quoteList formats names as QuoteNames does, "(none)" when empty.
func quoteList(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return QuoteNames(names)
}
