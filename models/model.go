// Package models holds differentiable models with exact per-example
// gradients: linear / ridge regression (Linear, with a sufficient-statistics
// fast path LinearStats and a closed-form Cholesky solve), binary logistic
// regression (Logistic), softmax regression (Softmax), a one-hidden-layer
// MLP (Softplus, ReLU, Tanh or SiLU hidden units; softmax cross-entropy or
// squared-error head) and the training loss of a denoising diffusion model
// with an MLP denoiser (DDPM, a Stochastic loss: its per-example draws are
// fixed by a key the engine renews every step). It contains no privacy
// logic: clipping and noise live in package mechanisms.
//
// All models share one data layout (Data: a row-major feature matrix and a
// label vector) and one parameter layout convention: a flat []float64 whose
// layout each model documents, so that noise plans can address individual
// parameters (for example "the first-layer weights of input feature j",
// Model.FeatureParams, and MLP.FirstLayerBiasParams).
//
// Conventions shared by every model:
//   - Loss is the mean of the per-example losses ℓ_i over the selected rows;
//     GradSum adds Σ ∇ℓ_i (not the mean) into its output; PerExampleGrads
//     writes each ∇ℓ_i. A nil idx selects all rows in order.
//   - Regularisers are part of ℓ_i, so per-example gradients include them:
//     Linear.Ridge λ contributes (λ/N)‖w‖² to every example (N = data.N;
//     the mean objective is then (1/N)(‖residual‖² + λ‖w‖²), the CorrDP
//     ridge form; such a model reads the row count, RowCountReader), while Logistic.L2 and Softmax.L2 λ contribute (λ/2)‖w‖²
//     to every example (objective = mean loss + (λ/2)‖w‖², λ-strongly
//     convex). Intercepts and biases are never penalised.
//   - Sums run sequentially in idx order on the calling goroutine, so
//     results are bitwise reproducible whatever GOMAXPROCS is. Methods keep
//     no state and are safe for concurrent use.
//   - Bad user input at construction (NewLinear, NewLogistic, NewSoftmax,
//     NewMLP, Validate, CheckLabels) is a returned error; a wrong-length
//     buffer on the hot path is a programmer error and panics with an error
//     wrapping ErrShape.
//   - A nil model pointer (a constructor's error ignored) is a programmer
//     error too: the checking methods (Validate, CheckLabels, Solve,
//     DDPM.Sample, the blocks' GradSums) return an error naming the
//     constructor, and every other method panics, as on a wrong-length
//     buffer (the hot path checks nothing per call; mechanisms.Train
//     refuses a nil Config.Model before calling any).
//
// Besides Model and Evaluator, every model implements LabelChecker,
// Initializer, GradNormer (per-example gradient norms; ghost norms for the
// MLP) and WeightedGradSummer (Σ w_i ∇ℓ_i without materialising per-example
// gradients, for ghost clipping).
package models

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/featuredp/featuredp/design"
)

// ErrShape reports parameters or buffers of the wrong length.
//
// Hot-path methods (Loss, GradSum, PerExampleGrads, ...) do not return
// errors: on a programmer error of buffer length (θ, out, weights) or on
// data with the wrong number of features they panic with an error value
// that wraps ErrShape and names the method and the offending buffer, so
// errors.Is(recovered, ErrShape) holds. This is the only panic in the
// package (besides Go's own index checks for out-of-range row indices in
// idx and class labels that CheckLabels would have rejected, and Go's nil
// dereference on a nil model pointer, whose Validate and CheckLabels
// return an error); constructors and CheckLabels report bad user input as
// returned errors.
var ErrShape = errors.New("models: wrong length")

// errNilModel is the error of a checking method (Validate, CheckLabels,
// Solve, ...) called on a nil *typ, which the constructor ctor builds.
func errNilModel(typ, ctor string) error {
	return fmt.Errorf("models: nil *%s: build it with %s and check its error", typ, ctor)
}

// Model is a differentiable loss ℓ(θ; x, y) over a flat parameter vector θ.
//
// Implementations must be safe for concurrent use by several goroutines on
// distinct parameter and output buffers (they hold no mutable state).
//
// The per-example gradient of row i must depend on θ and row i only: DP-SGD
// bounds one record's influence by clipping its own gradient, so a loss
// that reads other rows or their number changes every record's gradient
// when one is added. A loss that reads data.N must implement
// RowCountReader (the engine then states only the feature-simulator
// relation); one that reads other rows cannot be trained privately. A
// wrapper type that delegates to a model of this package must forward
// RowCountReader too. mechanisms.Train also checks the per-example gradient
// on synthetic rows (one row alone, with a copy of itself, with another
// row) and, if it moves, states the feature-simulator relation (row count)
// or no privacy phases (other rows), with a note.
type Model interface {
	// NumParams is the length of θ.
	NumParams() int
	// NumFeatures is the number of input features D the model expects.
	NumFeatures() int
	// Loss returns the mean loss over the rows idx (all rows if idx is nil).
	Loss(theta []float64, data *design.Data, idx []int) float64
	// GradSum adds Σ_{i∈idx} ∇θ ℓ(θ; x_i, y_i) into out (len NumParams).
	// idx nil means all rows.
	GradSum(theta []float64, data *design.Data, idx []int, out []float64)
	// PerExampleGrads writes ∇θ ℓ(θ; x_i, y_i) for i = idx[k] into
	// out[k*P:(k+1)*P], P = NumParams(). len(out) must be len(idx)*P.
	PerExampleGrads(theta []float64, data *design.Data, idx []int, out []float64)
	// FeatureParams returns the indices in θ of the parameters that
	// multiply input feature j directly (for linear models the single
	// weight of j; for an MLP the first-layer weights leaving input j).
	FeatureParams(j int) []int
}

// Metrics are evaluation results on a dataset. Fields that do not apply to a
// model are NaN (Accuracy for regression, MSE for classification).
type Metrics struct {
	Loss     float64
	Accuracy float64
	MSE      float64
}

// Evaluator is implemented by every model in this package.
type Evaluator interface {
	// Evaluate computes metrics over all rows of data.
	Evaluate(theta []float64, data *design.Data) Metrics
}

// LabelChecker is implemented by every model in this package. CheckLabels
// returns an error if data does not have the model's number of features or
// if a label is not of the model's kind (0/1 for logistic regression, an
// integer class index in [0, K) for softmax regression and classification
// MLPs, a finite real for regression). Call it once before training: the
// hot-path methods assume valid labels.
type LabelChecker interface {
	CheckLabels(data *design.Data) error
}

// Initializer is implemented by every model in this package. Init writes
// initial parameters into theta (len NumParams). Linear models initialise
// to zero and ignore rng (which may then be nil); the MLP draws its weights
// from rng.
type Initializer interface {
	Init(theta []float64, rng *rand.Rand)
}

// GradNormer computes per-example gradient norms without materialising the
// per-example gradients: out[k] = ‖∇θ ℓ(θ; x_i, y_i)‖₂ for i = idx[k]
// (idx nil means all rows; len(out) must equal the number of rows). For
// dense layers it uses the ghost-norm identity ‖δ xᵀ‖_F = ‖δ‖₂‖x‖₂.
// Implemented by every model in this package.
//
// A fast path must agree with the per-example definition (PerExampleGrads,
// each row clipped to C, then summed): mechanisms.Train checks the path it
// will use against it on synthetic rows before stating any phase, and
// refuses a model whose fast path disagrees (docs/dp-sgd.md).
type GradNormer interface {
	PerExampleGradNorms(theta []float64, data *design.Data, idx []int, out []float64)
}

// WeightedGradSummer computes a weighted gradient sum without materialising
// per-example gradients: out += Σ_k w[k] ∇θ ℓ(θ; x_i, y_i), i = idx[k]
// (idx nil means all rows; len(w) must equal the number of rows). With
// w[k] = min(1, C/‖g_k‖) from GradNormer this is the per-example-clipped
// gradient sum of DP-SGD ("ghost clipping"). Implemented by every model in
// this package.
type WeightedGradSummer interface {
	WeightedGradSum(theta []float64, data *design.Data, idx []int, w []float64, out []float64)
}

// ClippedGradSummer fuses GradNormer and WeightedGradSummer: it writes
// norms[k] = ‖∇θ ℓ(θ; x_i, y_i)‖₂ and weights[k] = weight(norms[k]) for
// i = idx[k], and adds Σ_k weights[k] ∇θ ℓ(θ; x_i, y_i) into out — the same
// bits as PerExampleGradNorms followed by WeightedGradSum, with one
// forward/backward pass over the rows instead of two. weight must depend on
// its argument alone (DP-SGD's clip factor min(1, C/‖g‖)). Implemented by
// MLP.
type ClippedGradSummer interface {
	ClippedGradSum(theta []float64, data *design.Data, idx []int, weight func(norm float64) float64, norms, weights, out []float64)
}

// Stochastic is implemented by a loss with randomness of its own (the
// diffusion step and noise draw of DDPM). WithKey returns the loss whose
// draws are fixed by key: a value (the receiver is unchanged), so it stays
// safe for concurrent use. mechanisms.Train gives such a model a fresh key
// at every step (from its own seeded stream, or the OS CSPRNG in Secure
// mode); LossDiff passes the same key to both of its losses.
type Stochastic interface {
	Model
	WithKey(key uint64) Model
}

// IsStochastic reports whether m draws randomness of its own: it
// implements Stochastic and, for a LossDiff, one of its losses does.
func IsStochastic(m Model) bool {
	if d, ok := m.(*LossDiff); ok {
		return IsStochastic(d.Full) || IsStochastic(d.Pub)
	}
	_, ok := m.(Stochastic)
	return ok
}

// PublicPart is implemented by a public loss ℓ_pub that reads only the
// public part of a record by construction, whatever rows it is given
// (EmbedLogistic with PublicOnly drops the categorical terms,
// LabelSplitSoftmax with PartPublic never reads the label). Feature DP's
// public term may run such a model on the full records; any other public
// model needs the public view Ψ(X) as its data (fdp.Setup).
type PublicPart interface {
	// ReadsPublicPartOnly reports whether the model reads only the
	// public part of every row.
	ReadsPublicPartOnly() bool
}

// ReadsPublicPartOnly reports whether m implements PublicPart and reads
// only the public part of every row.
func ReadsPublicPartOnly(m Model) bool {
	p, ok := m.(PublicPart)
	return ok && p.ReadsPublicPartOnly()
}

// RowCountReader is implemented by a model whose per-example loss may read
// the number of rows of its data, data.N (Linear's ridge term (λ/N)‖w‖²
// is split over the N rows). Under add/remove neighbours N differs, so one
// added record changes every other record's clipped gradient: the
// clipped sum then moves by more than the clip norm C (for a ridge
// regression with λ = N + 1, by 19·C in mechanisms'
// TestTrainAddRemoveSensitivity), and only a relation whose simulator knows
// the row count holds (mechanisms.Result.PhasesRelation). A type that wraps
// such a model by delegation must implement RowCountReader as well; one that
// does not is caught by mechanisms.Train's probe of synthetic rows, which
// then states the same relation with a note.
type RowCountReader interface {
	// ReadsRowCount reports whether the per-example loss reads data.N.
	ReadsRowCount() bool
}

// ReadsRowCount reports whether m implements RowCountReader and its
// per-example loss reads the data's row count.
func ReadsRowCount(m Model) bool {
	r, ok := m.(RowCountReader)
	return ok && r.ReadsRowCount()
}

// DiffGradNormer is implemented by models that compute the per-example
// norms of ∇ℓ(θ; x_i) − ∇ℓ_pub(θ; Ψ(x_i)) themselves (LossDiff asks Full
// first). DiffGradNorms reports false, writing nothing, if it does not
// handle pub.
type DiffGradNormer interface {
	DiffGradNorms(pub Model, theta []float64, data, pubData *design.Data, idx []int, out []float64) bool
}

// DiffClippedGradSummer is implemented by models that fuse the norms and
// the clipped sum of ∇ℓ(θ; x_i) − ∇ℓ_pub(θ; Ψ(x_i)) (LossDiff's
// ClippedGradSum asks Full first). DiffClippedGradSum reports false,
// writing nothing, if it does not handle pub.
type DiffClippedGradSummer interface {
	DiffClippedGradSum(pub Model, theta []float64, data, pubData *design.Data, idx []int, weight func(float64) float64, norms, weights, out []float64) bool
}

// numRows is the number of rows selected by idx (all rows if idx is nil).
func numRows(data *design.Data, idx []int) int {
	if idx == nil {
		return data.N
	}
	return len(idx)
}

// rowIndex returns the data row of the k-th selected row.
func rowIndex(idx []int, k int) int {
	if idx == nil {
		return k
	}
	return idx[k]
}

// checkLen panics with an ErrShape-wrapping error if got != want.
func checkLen(method, what string, got, want int) {
	if got != want {
		panic(fmt.Errorf("%w: %s: %s has length %d, want %d", ErrShape, method, what, got, want))
	}
}

// checkModel panics with an ErrShape-wrapping error naming typ.method if
// len(theta) ≠ p or data does not have d features. It does not allocate
// when the shapes are right.
func checkModel(typ, method string, theta []float64, p int, data *design.Data, d int) {
	if len(theta) != p || data == nil || data.D != d {
		name := typ + "." + method
		checkLen(name, "theta", len(theta), p)
		checkData(name, data, d)
	}
}

// checkData panics with an ErrShape-wrapping error if data is nil or does
// not have d features.
func checkData(method string, data *design.Data, d int) {
	if data == nil {
		panic(fmt.Errorf("%w: %s: nil data", ErrShape, method))
	}
	if data.D != d {
		panic(fmt.Errorf("%w: %s: data has %d features, model expects %d", ErrShape, method, data.D, d))
	}
}

// checkDataErr is the error-returning form of checkData used by
// CheckLabels.
func checkDataErr(model string, data *design.Data, d int) error {
	if data == nil {
		return fmt.Errorf("models: %s: nil data", model)
	}
	if data.D != d {
		return fmt.Errorf("models: %s: data has %d features, model expects %d", model, data.D, d)
	}
	if len(data.Y) != data.N || len(data.X) != data.N*data.D {
		return fmt.Errorf("models: %s: data has %d values and %d labels for %d×%d", model, len(data.X), len(data.Y), data.N, data.D)
	}
	return nil
}

// checkClassLabels returns an error unless every label is an integer in
// [0, k).
func checkClassLabels(model string, data *design.Data, k int) error {
	for i, y := range data.Y {
		if !(y >= 0 && y < float64(k)) || y != math.Trunc(y) {
			return fmt.Errorf("models: %s: label %v at row %d is not a class index in [0, %d)", model, y, i, k)
		}
	}
	return nil
}

// classOf converts a class label to an index, panicking with a clear
// message if it is out of range (a label CheckLabels would have rejected).
func classOf(y float64, k, row int) int {
	c := int(y)
	if c < 0 || c >= k || float64(c) != y {
		panic(fmt.Sprintf("models: label %v at row %d is not a class index in [0, %d) (call CheckLabels first)", y, row, k))
	}
	return c
}

// fullModel is everything each model of this package implements.
type fullModel interface {
	Model
	Evaluator
	LabelChecker
	Initializer
	GradNormer
	WeightedGradSummer
}

var (
	_ fullModel = (*Linear)(nil)
	_ fullModel = (*Logistic)(nil)
	_ fullModel = (*Softmax)(nil)
	_ fullModel = (*MLP)(nil)
)
