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
// label are kept. Errors: a nil or malformed encoding, a row outside
// [0, enc.N).
func EncodedRows(enc *data.Encoded, idx []int, public bool) (*design.Data, error) {
	if enc == nil {
		return nil, fmt.Errorf("fdp: EncodedRows: nil encoding")
	}
	if len(enc.X) != enc.N*enc.D || len(enc.Y) != enc.N || len(enc.Sensitive) != enc.D {
		return nil, fmt.Errorf("fdp: EncodedRows: malformed encoding (%d values, %d labels and %d sensitivity flags for N = %d rows of D = %d columns; build it with data.Encode)",
			len(enc.X), len(enc.Y), len(enc.Sensitive), enc.N, enc.D)
	}
	for _, i := range idx {
		if i < 0 || i >= enc.N {
			return nil, fmt.Errorf("fdp: EncodedRows: row %d out of range [0, %d)", i, enc.N)
		}
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

// NoBallReason says why a protected column without a given Ball has no
// Thm 4 bound: Ball (Def. 8) is the largest probability of one value of
// the column given what the adversary knows of the record (its public
// columns and, under feature DP, its label), a property of the data's
// distribution that nothing here may assume. 1/levels holds only when the
// column is uniform and independent of them; a public column that
// determines it makes Ball 1.
func NoBallReason(col data.Column) string {
	s := "no Ball given: the bound needs the largest probability of one value of " + col.Name +
		" given the record's public columns and label (public knowledge, not estimated)"
	if len(col.Levels) > 0 {
		s += fmt.Sprintf("; 1/%d holds only if %s is uniform and independent of them", len(col.Levels), col.Name)
	}
	return s
}

// CheckBall checks a given Ball of col: a probability in (0, 1], and at
// least 1/levels for a column with public levels (guessing one of K
// values succeeds with probability at least 1/K whatever the prior).
func CheckBall(col data.Column, ball float64) error {
	if !(ball > 0 && ball <= 1) {
		return fmt.Errorf("Ball[%q] = %v: want the probability of the best guess, in (0, 1]", col.Name, ball)
	}
	if k := len(col.Levels); k > 0 && ball < 1/float64(k) {
		return fmt.Errorf("Ball[%q] = %v is below 1/%d: guessing one of its %d levels succeeds with probability at least 1/%d", col.Name, ball, k, k, k)
	}
	return nil
}
