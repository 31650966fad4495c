package fdp

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/featuredp/featuredp/design"
)

// The public view Ψ of the feature-DP experiments as a design matrix of the
// full width: the public columns are kept, the protected ones filled with
// public values, so that the public surrogate ℓ_pub can be the model of ℓ
// itself evaluated on Ψ(x).

// GaussianPadding builds the padded public surrogate input of the
// paper's Purchase100 experiment: g(Ψ(x)) keeps the public
// columns of each row and fills every other column with an independent
// N(0, 1) draw from rng (one fixed draw per row and column, so that
// ℓ_pub + ℓ_priv = ℓ exactly for each row; the paper does not say
// whether the padding is redrawn). The noise is
// independent of the private data, so the padded matrix is public. Labels
// are copied (the label is public in the Purchase100 setting).
//
// Errors: nil data or rng, a public column out of range or repeated.
func GaussianPadding(data *design.Data, public []int, rng *rand.Rand) (*design.Data, error) {
	if rng == nil {
		return nil, errors.New("fdp: GaussianPadding: nil rng")
	}
	return surrogate("GaussianPadding", data, public, rng.NormFloat64)
}

// ZeroMasking is the zero-masking public surrogate input of the Criteo
// experiment: the public columns are kept and every other
// column is set to 0. Errors as GaussianPadding (no rng needed).
func ZeroMasking(data *design.Data, public []int) (*design.Data, error) {
	return surrogate("ZeroMasking", data, public, func() float64 { return 0 })
}

// surrogate validates the public column set (in range, no repeats) and
// returns a copy of data whose public columns are kept and whose other
// columns are filled by fill(), drawn in row-major order.
func surrogate(name string, data *design.Data, public []int, fill func() float64) (*design.Data, error) {
	if data == nil || data.N <= 0 || data.D <= 0 {
		return nil, fmt.Errorf("fdp: %s: nil or empty data", name)
	}
	keep := make([]bool, data.D)
	for _, j := range public {
		if j < 0 || j >= data.D {
			return nil, fmt.Errorf("fdp: %s: public column %d out of range [0, %d)", name, j, data.D)
		}
		if keep[j] {
			return nil, fmt.Errorf("fdp: %s: public column %d repeated", name, j)
		}
		keep[j] = true
	}
	x := make([]float64, len(data.X))
	for i := range data.N {
		for j := range data.D {
			if keep[j] {
				x[i*data.D+j] = data.X[i*data.D+j]
			} else {
				x[i*data.D+j] = fill()
			}
		}
	}
	return &design.Data{X: x, Y: append([]float64(nil), data.Y...), N: data.N, D: data.D}, nil
}
