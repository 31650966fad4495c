package release

import (
	"fmt"
	"slices"

	"github.com/featuredp/featuredp/data"
)

// publicFeatures checks that every feature's encoding is the one its
// schema and options give without reading any data: the encoding that
// data.NewPublicEncoder builds from the file's Schema and Options (levels
// in their order, scaling, MinMax bounds with clipping, ZScore moments). A
// Public flag alone proves nothing: bounds edited to the data's minimum and
// maximum, or levels reordered, would otherwise pass.
func publicFeatures(enc *data.Encoder) error {
	want, err := data.NewPublicEncoder(enc.Schema, enc.Options)
	if err != nil {
		return fmt.Errorf("release: the model file's schema and options do not give a public encoding: %w (%w)", err, ErrFormat)
	}
	for i, got := range enc.Features {
		if d := featureDiff(got, want.Features[i]); d != "" {
			return fmt.Errorf("release: feature %q is encoded with %s: a release's encoding comes from its schema and options "+
				"alone (Column.Levels, EncodeOptions.Levels, Bounds, Moments), never from the data; edited or damaged: train again "+
				"or restore the original: %w", got.Column.Name, d, ErrFormat)
		}
	}
	return nil
}

// featureDiff describes how encoding got differs from the public encoding
// want of the same feature ("" when it does not).
func featureDiff(got, want data.FeatureEncoding) string {
	switch {
	case !slices.Equal(got.Column.Levels, want.Column.Levels):
		return "column levels that differ from its schema's: " + levelsDiff(got.Column.Levels, want.Column.Levels)
	case !slices.Equal(got.Levels, want.Levels):
		return "levels that differ from its public levels: " + levelsDiff(got.Levels, want.Levels)
	case got.Scale != want.Scale:
		return fmt.Sprintf("scaling %v, while its options give %v", got.Scale, want.Scale)
	case got.Lo != want.Lo || got.Hi != want.Hi || got.Clip != want.Clip:
		return fmt.Sprintf("bounds [%v, %v] (clip %v), while its public Bounds give [%v, %v] (clip %v)",
			got.Lo, got.Hi, got.Clip, want.Lo, want.Hi, want.Clip)
	case got.Mean != want.Mean || got.SD != want.SD:
		return fmt.Sprintf("moments mean %v, sd %v, while its public Moments give mean %v, sd %v", got.Mean, got.SD, want.Mean, want.SD)
	case got.Public != want.Public:
		return fmt.Sprintf("Public %v, while its parameters are public", got.Public)
	}
	return ""
}

// levelsDiff describes the first difference of two level lists, which
// differ, without quoting them whole (a hostile file may list a million).
func levelsDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("level %d is %q, the public one %q", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("%d levels, the public ones %d", len(got), len(want))
}
