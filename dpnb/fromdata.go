package dpnb

import (
	"fmt"

	"github.com/featuredp/featuredp/data"
	"github.com/go-gota/gota/dataframe"
	fromdataseries "github.com/go-gota/gota/series"
)

// FromDataColumn is the name of the column a helper's Table gains when the
// caller opted in (data.EncodeOptions.BoundsFromData or LevelsFromData, or
// BCDPMeanOptions.BoundsFromData) to encoding parameters fitted on the
// private data; every row holds the description of what was fitted.
// CorrDPResult.Table always has it: CorrDP's TVs (and, when picked on the
// data, the noise constant C) are read from the private data.
const FromDataColumn = "NOT_DP_fitted_on_data"

// fromDataWarning returns the prominent markdown warning a helper's result
// starts with when d is not empty ("" otherwise): the encoding read the
// private data, outside the privacy accounting.
// fix names the options that take public values instead.
func fromDataWarning(d data.DataDependence, fix string) string {
	if d.Empty() {
		return ""
	}
	return fmt.Sprintf("> **Warning: not differentially private as a whole.** By explicit opt-in, %s. "+
		"These statistics of the private data shape the result and no privacy budget accounts for them; "+
		"give %s instead.\n\n", d, fix)
}

// encodeFix is the fix named by the warning of the encoding helpers.
const encodeFix = "public bounds (data.EncodeOptions.Bounds) and levels (data.EncodeOptions.Levels or the schema's Column.Levels)"

// withFromDataColumn returns df with the column FromDataColumn describing
// d when d is not empty, df unchanged otherwise.
func withFromDataColumn(df dataframe.DataFrame, d data.DataDependence) dataframe.DataFrame {
	if d.Empty() {
		return df
	}
	v := make([]string, df.Nrow())
	for i := range v {
		v[i] = d.String()
	}
	return df.Mutate(fromdataseries.New(v, fromdataseries.String, FromDataColumn))
}

// fromDataTitle is the suffix of a plot title when d is not empty.
func fromDataTitle(d data.DataDependence) string {
	if d.Empty() {
		return ""
	}
	return " (encoding fitted on the data: not DP)"
}
