package accounting

import "math"

const (
	ln2   = math.Ln2
	sqrt2 = math.Sqrt2
)
