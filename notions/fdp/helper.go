package fdp

// The building blocks of Compare (compare.go), the comparison of DP and
// feature DP behind dpnb.FeatureDPvsDP: the public view of encoded rows,
// the training of one comparison cell, and the uniform prior mass of a
// sensitive column for its Thm 4 bound.

import (
	"context"
	"fmt"

	"github.com/featuredp/featuredp/data"
	"github.com/featuredp/featuredp/design"
	"github.com/featuredp/featuredp/models"
)

// EncodedRows returns the rows idx of enc as a design matrix; with public
// it is the public view Ψ(x) of zero masking: every encoded column of a
// sensitive feature (enc.Sensitive) is set to 0, the public columns and the
// label are kept.
func EncodedRows(enc *data.Encoded, idx []int, public bool) (*design.Data, error) {
	if enc == nil {
		return nil, fmt.Errorf("fdp: EncodedRows: nil encoding")
	}
	x, y := make([]float64, 0, len(idx)*enc.D), make([]float64, len(idx))
	for k, i := range idx {
		for j := range enc.D {
			v := enc.X[i*enc.D+j]
			if public && enc.Sensitive[j] {
				v = 0
			}
			x = append(x, v)
		}
		y[k] = enc.Y[i]
	}
	return design.NewData(x, y, len(idx), enc.D)
}

// CompareRun trains method on s (its Model must be a models.Evaluator) and
// returns the accuracy on test and the ε spent at δ (+Inf for NonPrivate,
// 0 for Public).
func CompareRun(ctx context.Context, method Method, s Setup, test *design.Data, delta float64) (acc, spent float64, err error) {
	ev, ok := s.Model.(models.Evaluator)
	if !ok {
		return 0, 0, fmt.Errorf("fdp: CompareRun: model %T cannot be evaluated", s.Model)
	}
	res, err := Train(ctx, method, s)
	if err != nil {
		return 0, 0, err
	}
	if spent, err = Epsilon(method, s, res, delta); err != nil {
		return 0, 0, err
	}
	return ev.Evaluate(res.Theta, test).Accuracy, spent, nil
}

// UniformBall returns the prior mass Ball (Def. 8) of the best guess of a
// categorical column without the model under a uniform prior over its
// levels, 1/(number of levels), and false with the reason when the column
// has no levels (a continuous column: its Ball depends on the metric and
// the radius ρ, which the caller must give).
func UniformBall(col data.Column) (float64, string, bool) {
	if len(col.Levels) == 0 {
		return 0, "no Ball given and no levels to assume a uniform prior over (give Ball for this column)", false
	}
	return 1 / float64(len(col.Levels)), "", true
}
