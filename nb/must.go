package nb

// Must returns v when err is nil and panics with err otherwise. It is meant
// for notebook cells, where a failed step should stop the cell with its error
// in view: res := nb.Must(dpnb.FeatureDPvsDP(ctx, df, schema, opts)). Library
// code returns errors instead.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Must2 is Must for functions with two results besides the error.
func Must2[A, B any](a A, b B, err error) (A, B) {
	if err != nil {
		panic(err)
	}
	return a, b
}
