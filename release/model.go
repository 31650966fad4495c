package release

import (
	"fmt"
	"slices"

	"github.com/featuredp/featuredp/models"
)

// Model kinds a release can hold.
const (
	KindLogistic = "logistic" // binary logistic regression, P(class 1) = σ(wᵀx + b)
	KindSoftmax  = "softmax"  // multinomial logistic regression, softmax(Wᵀx + b)
	KindLinear   = "linear"   // least squares, wᵀx + b
	KindMLP      = "mlp"      // one hidden layer, tanh, softmax or squared-error head
)

// ModelSpec is the model of a release: its kind, its shape and its
// parameters θ in the layout of package models (docs/release.md).
type ModelSpec struct {
	Kind      string    `json:"kind"`
	Features  int       `json:"features"`
	Classes   int       `json:"classes,omitempty"`
	Hidden    int       `json:"hidden,omitempty"`
	Intercept bool      `json:"intercept,omitempty"`
	Theta     []float64 `json:"theta"`
}

// predictor maps one encoded row to the model's output.
type predictor struct {
	outputs int
	predict func(x, out []float64)
}

// build checks the spec against the encoded width and returns its
// predictor.
func (m ModelSpec) build(width int) (*predictor, error) {
	if m.Features != width {
		return nil, fmt.Errorf("release: the model takes %d features but the encoding gives %d: %w", m.Features, width, ErrFormat)
	}
	theta := slices.Clone(m.Theta)
	var (
		p   *predictor
		n   int
		err error
	)
	switch m.Kind {
	case KindLogistic:
		var lm *models.Logistic
		if lm, err = models.NewLogistic(m.Features, m.Intercept, 0); err == nil {
			n = lm.NumParams()
			p = &predictor{outputs: 2, predict: func(x, out []float64) {
				out[1] = lm.Predict(theta, x)
				out[0] = 1 - out[1]
			}}
		}
	case KindSoftmax:
		var sm *models.Softmax
		if sm, err = models.NewSoftmax(m.Features, m.Classes); err == nil {
			n = sm.NumParams()
			p = &predictor{outputs: m.Classes, predict: func(x, out []float64) { sm.Predict(theta, x, out) }}
		}
	case KindLinear:
		var li *models.Linear
		if li, err = models.NewLinear(m.Features, m.Intercept, 0); err == nil {
			n = li.NumParams()
			p = &predictor{outputs: 1, predict: func(x, out []float64) { out[0] = li.Predict(theta, x) }}
		}
	case KindMLP:
		p, n, err = m.buildMLP(theta)
	default:
		return nil, fmt.Errorf("release: unknown model kind %q (want %s, %s, %s or %s): %w", m.Kind, KindLogistic, KindSoftmax, KindLinear, KindMLP, ErrFormat)
	}
	if err != nil {
		return nil, fmt.Errorf("release: model %s: %w", m.Kind, err)
	}
	if len(theta) != n {
		return nil, fmt.Errorf("release: model %s with %d features has %d parameters, the file holds %d: %w", m.Kind, m.Features, n, len(theta), ErrFormat)
	}
	return p, nil
}

// buildMLP builds the tanh MLP: a softmax head for Classes ≥ 2, a
// squared-error head with one output otherwise.
func (m ModelSpec) buildMLP(theta []float64) (*predictor, int, error) {
	k, head := m.Classes, models.HeadSoftmaxCE
	if k < 2 {
		k, head = 1, models.HeadMSE
	}
	mlp, err := models.NewMLP(m.Features, m.Hidden, k, models.Tanh, head)
	if err != nil {
		return nil, 0, err
	}
	return &predictor{outputs: k, predict: func(x, out []float64) { mlp.Predict(theta, x, out) }}, mlp.NumParams(), nil
}
